"""The bench's outputs for people: a text table of checks for the terminal and a Markdown
report with plots (faces against the baseline, convergence, speed ratio) beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dice_models.outfiles import ensure_dir, write_text, write_with


def text_table(record: dict[str, Any]) -> str:
    rows = [("check", "value", "baseline", "tolerance", "result", "why")]
    for c in record["checks"]:
        rows.append((c["name"], _fmt(c["value"]), _fmt(c["baseline"]), c["tolerance"],
                     _verdict(c["passed"]), c["why"]))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths, strict=True))
                     + "  " + row[5])
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 3)
    return "\n".join([_headline(record), *lines, _summary(record)])


def write_markdown(record: dict[str, Any], path: Path) -> list[Path]:
    """The report at `path` and its plots beside it (<stem>-faces.png and so on)."""
    ensure_dir(path.parent, "--report")
    plots = _plots(record, path)
    write_text(path, _markdown(record, {k: p.name for k, p in plots.items()}), "--report")
    return [path, *plots.values()]


# -- text ---------------------------------------------------------------------------------


def _headline(record: dict[str, Any]) -> str:
    fp = record["fingerprint"]
    base = record.get("baseline")
    text = (f"tabletop bench: {record['suite']} suite, pybullet {fp['pybullet']}, numpy {fp['numpy']}, "
            f"{fp['platform']}, dt {fp['time_step']:.6g} s, {fp['solver_iterations']} iterations")
    if record.get("overrides"):
        text += "; overrides " + ", ".join(f"{k}={v:g}" for k, v in record["overrides"].items())
    if base is None:
        return text + "\nno baseline: recording"
    how = ("exact golden comparison (same fingerprint)" if not base["fingerprint_differs"] else
           "statistical golden comparison (fingerprint differs: "
           + ", ".join(base["fingerprint_differs"]) + ")")
    return text + f"\nbaseline {base['path']} ({base['created_utc']}): {how}"


def _summary(record: dict[str, Any]) -> str:
    checks = record["checks"]
    n_fail = sum(c["passed"] is False for c in checks)
    n_pass = sum(c["passed"] is True for c in checks)
    n_info = len(checks) - n_fail - n_pass
    verdict = "PASS" if record["passed"] else "FAIL"
    return (f"{verdict}: {n_pass} passed, {n_fail} failed, {n_info} for information; "
            f"{record['elapsed_s']:.1f} s")


def _verdict(p: bool | None) -> str:
    return "info" if p is None else ("pass" if p else "FAIL")


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


# -- Markdown -----------------------------------------------------------------------------


def _markdown(record: dict[str, Any], plots: dict[str, str]) -> str:
    m = record["measurements"]
    base = record.get("baseline")
    out = [f"# Physics regression report: {record['suite']} suite", ""]
    out.append(f"**{_summary(record)}**  ")
    out.append(f"Run {record['created_utc']}.")
    for line in _headline(record).splitlines()[1:]:
        out.append(line + ".")
    out += ["", "## Checks", "", "| check | value | baseline | tolerance | result | why |",
            "| --- | --- | --- | --- | --- | --- |"]
    for c in record["checks"]:
        cells = [c["name"], _fmt(c["value"]), _fmt(c["baseline"]), c["tolerance"],
                 "**FAIL**" if c["passed"] is False else _verdict(c["passed"]), c["why"]]
        out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    out += ["", "## Fingerprint", "", "| key | this run | baseline |", "| --- | --- | --- |"]
    old = base["fingerprint"] if base else {}
    for key, value in record["fingerprint"].items():
        mark = " (differs)" if base and old.get(key) != value else ""
        out.append(f"| {key} | {value}{mark} | {old.get(key, '-')} |")
    if record.get("overrides"):
        out += ["", "Overrides: " + ", ".join(f"`{k}={v:g}`" for k, v in record["overrides"].items())]
    if "faces" in plots:
        out += ["", "## Faces against the baseline", "",
                "Share of throws ending on each face (or off the table, and why), this run "
                "beside the baseline. The drift checks test whether the two are samples of one "
                "distribution.", "", f"![faces against baseline]({plots['faces']})"]
    if "convergence" in plots:
        out += ["", "## Convergence", "",
                "The same kind of throws at each time step and solver iteration count; "
                "independent samples. A low p-value means the outcome distribution still "
                "depends on the integrator: a finding about the physics, not noise.", "",
                f"![convergence]({plots['convergence']})", "", "| configuration | variant | n | "
                "off table | mean steps |", "| --- | --- | --- | --- | --- |"]
        for key, runs in m["convergence"].items():
            for label, d in runs.items():
                off = sum(v for k, v in d["counts"].items() if not k.isdigit()) / d["throws"]
                out.append(f"| {key} | {label} | {d['throws']} | {off:.1%} | {d['mean_steps']:.0f} |")
    if "speed" in plots:
        sp = m["speed"]
        out += ["", "## Speed", "",
                f"{sp['throws']} throws of the paper d8, interleaved in rounds: World "
                f"{sp['world_throws_per_s']:.0f} throws/s, bare PyBullet loop "
                f"{sp['bare_throws_per_s']:.0f} throws/s, ratio {sp['ratio']:.3f}; same face in "
                f"{sp['same_face_share']:.0%} of throws; peak extra memory "
                f"{sp['peak_extra_memory_mb']:.1f} MB.", "", f"![speed ratio]({plots['speed']})"]
    if "golden" in m:
        out += ["", "## Golden throws", ""]
        golden = next(c for c in record["checks"] if c["name"] == "golden.throws")
        out.append(f"{len(m['golden'])} cases: {golden['why']}.")
        out += ["", "| case | dice at rest (die: state, face) |", "| --- | --- |"]
        for r in m["golden"]:
            dice = r["error"] or "; ".join(
                f"{d['die']}: {d['reason'] or d['status']}, {d['face']}" for d in r["dice"])
            out.append(f"| {r['case']} | {_cell(dice)} |")
    out += ["", "How to read this report and when to record a new baseline: see docs/bench.md.", ""]
    return "\n".join(out)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


# -- plots --------------------------------------------------------------------------------


def _plots(record: dict[str, Any], path: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = record["measurements"]
    out: dict[str, Path] = {}
    stem = path.with_suffix("")
    if "drift" in m and "drift" in record["groups"]:
        old = (record.get("baseline") or {}).get("drift") or {}
        out["faces"] = Path(f"{stem}-faces.png")
        _grouped(plt, m["drift"], {k: {"baseline": old[k]} for k in old} if old else {},
                 "this run", out["faces"], "Faces against the baseline")
    if "convergence" in m:
        out["convergence"] = Path(f"{stem}-convergence.png")
        _convergence_plot(plt, m["convergence"], record, out["convergence"])
    if "speed" in m:
        out["speed"] = Path(f"{stem}-speed.png")
        _speed_plot(plt, m["speed"], record, out["speed"])
    return out


def _grouped(plt: Any, now: dict[str, Any], old: dict[str, dict[str, Any]], label: str,
             path: Path, title: str) -> None:
    keys = list(now)
    cols = min(2, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.2 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        series = {**old.get(key, {}), label: now[key]}
        _bars(ax, series, now[key]["faces"])
        ax.set_title(key)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    try:
        write_with(path, lambda tmp: fig.savefig(tmp, dpi=90), "plot")
    finally:
        plt.close(fig)


def _bars(ax: Any, series: dict[str, dict[str, Any]], faces: list[str]) -> None:
    extra = sorted({k for d in series.values() for k in d["counts"] if not k.isdigit()})
    cats = [*faces, *extra]
    width = 0.8 / len(series)
    for i, (name, d) in enumerate(series.items()):
        n = sum(d["counts"].values()) or 1
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(cats))]
        ax.bar(xs, [d["counts"].get(c, 0) / n for c in cats], width, label=f"{name} (n={n})")
    ax.set_xticks(range(len(cats)), [c.replace("_", "\n") for c in cats], fontsize=7)
    ax.set_ylabel("share of throws")
    ax.legend(fontsize=7)


def _convergence_plot(plt: Any, conv: dict[str, Any], record: dict[str, Any], path: Path) -> None:
    p = {c["name"].split(".", 1)[1]: c["value"] for c in record["checks"]
         if c["name"].startswith("convergence.")}
    keys = list(conv)
    fig, axes = plt.subplots(len(keys), 1, figsize=(9, 3.2 * len(keys)), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=True):
        runs = conv[key]
        _bars(ax, runs, next(iter(runs.values()))["faces"])
        ax.set_title(f"{key}: homogeneity p = {p.get(key, float('nan')):.3g}")
    fig.tight_layout()
    try:
        write_with(path, lambda tmp: fig.savefig(tmp, dpi=90), "plot")
    finally:
        plt.close(fig)


def _speed_plot(plt: Any, sp: dict[str, Any], record: dict[str, Any], path: Path) -> None:
    check = next((c for c in record["checks"] if c["name"] == "speed.ratio"), None)
    old = check["baseline"] if check else None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4))
    a1.bar(["bare PyBullet", "World"], [sp["bare_throws_per_s"], sp["world_throws_per_s"]],
           color=["#888888", "#3b75af"])
    a1.set_ylabel("throws/s (this run)")
    a1.set_title("Throughput, same throws, same run")
    labels, values = ["this run"], [sp["ratio"]]
    if old is not None:
        labels.insert(0, "baseline")
        values.insert(0, old)
    a2.bar(labels, values, color=["#888888", "#3b75af"][-len(values):])
    a2.axhline(1.0, color="black", lw=0.8, ls=":", label="bare loop speed")
    if old is not None:
        from simulator.bench.compare import SPEED_RATIO_FLOOR

        a2.axhline(SPEED_RATIO_FLOOR * old, color="#c0392b", lw=1, ls="--", label="fail below")
    a2.set_ylabel("World / bare throughput")
    a2.set_ylim(0, max(1.1, *values) * 1.1)
    a2.set_title("Speed ratio")
    a2.legend(fontsize=7)
    fig.tight_layout()
    try:
        write_with(path, lambda tmp: fig.savefig(tmp, dpi=90), "plot")
    finally:
        plt.close(fig)
