"""PNG plots of fairness reports (matplotlib, no display needed)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from scipy.stats import chi2  # noqa: E402

from dice_models.outfiles import ensure_dir, write_with  # noqa: E402


def write_report_plots(rep: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """The three plots of one experiment, written into `out_dir`; their paths."""
    out = ensure_dir(out_dir, "--plots")
    return [face_probabilities(rep, out / "face_probabilities.png"),
            transition_heatmap(rep, out / "initial_to_final.png"),
            same_face_by_energy(rep, out / "same_face_by_energy.png")]


def face_probabilities(rep: dict[str, Any], path: Path) -> Path:
    faces = rep["faces"]
    xs = range(len(faces))
    p = [f["p_hat"] or 0.0 for f in faces]
    lo = [max(0.0, pi - f["ci_low"]) for pi, f in zip(p, faces, strict=True)]
    hi = [max(0.0, f["ci_high"] - pi) for pi, f in zip(p, faces, strict=True)]
    colours = ["tab:red" if f["outside_fair"] else "tab:blue" for f in faces]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.bar(xs, p, color=colours, alpha=0.75)
    ax.errorbar(xs, p, yerr=[lo, hi], fmt="none", ecolor="black", capsize=4)
    ax.axhline(rep["fair_p"], color="green", ls="--", label=f"fair 1/{len(faces)}")
    ax.set_xticks(list(xs), [str(f["face"]) for f in faces])
    top = max([f["ci_high"] for f in faces] + [rep["fair_p"]])
    ax.set_ylim(0, 1.3 * top)  # headroom for the legend above the bars
    ax.set_xlabel("face up")
    ax.set_ylabel("probability")
    e = rep["experiment"]
    p_text = f"chi2 p = {rep['chi2_p']:.3g}" if rep["chi2_p"] is not None else "no data"
    ax.set_title(f"{e['name']}: {rep['on_table']} on-table throws, {p_text}, {rep['verdict']}",
                 fontsize=10)
    ax.legend(title=rep["intervals"], title_fontsize=8, fontsize=8, loc="upper right")
    fig.tight_layout()
    _save(fig, path)
    return path


def transition_heatmap(rep: dict[str, Any], path: Path) -> Path:
    dyn = rep["dynamics"]
    m = dyn["initial_down_to_final_up"]
    faces = dyn["faces"]
    rows = [[c / max(1, sum(r)) for c in r] for r in m]
    fig, ax = plt.subplots(figsize=(6, 5))
    im = ax.imshow(rows, cmap="viridis", vmin=0)
    ax.set_xticks(range(len(faces)), [str(f) for f in faces])
    ax.set_yticks(range(len(faces)), [str(f) for f in faces])
    ax.set_xlabel("face up at rest")
    ax.set_ylabel("face down at release")
    for i, r in enumerate(m):
        for j, c in enumerate(r):
            ax.text(j, i, str(c), ha="center", va="center", color="white", fontsize=7)
    fig.colorbar(im, ax=ax, label="share of the row")
    ax.set_title(f"{rep['experiment']['name']}: release to rest (counts)", fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return path


def same_face_by_energy(rep: dict[str, Any], path: Path) -> Path:
    dyn = rep["dynamics"]
    bins = [b for b in dyn["same_face_by_energy"] if b["rate"] is not None]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    if bins:
        x = [1000 * (b["energy_low_j"] + b["energy_high_j"]) / 2 for b in bins]
        y = [b["rate"] for b in bins]
        # max(0, ...): at a rate of exactly 0 or 1 the interval's end differs by round-off
        err = [[max(0.0, r - b["ci_low"]) for r, b in zip(y, bins, strict=True)],
               [max(0.0, b["ci_high"] - r) for r, b in zip(y, bins, strict=True)]]
        level = f"{1 - rep['alpha']:.0%}"
        ax.errorbar(x, y, yerr=err, fmt="o-", capsize=4,
                    label=f"same face down as at release ({level} Wilson interval)")
    if dyn["same_face_no_memory"] is not None:
        ax.axhline(dyn["same_face_no_memory"], color="green", ls="--",
                   label="no memory of the start (from the two marginals)")
    ax.set_xlabel("release energy (mJ, kinetic + potential above the table)")
    ax.set_ylabel("same-face rate")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{rep['experiment']['name']}: dynamical bias by throw energy", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)
    return path


def series_plot(reports: list[dict[str, Any]], path: str | Path) -> Path:
    """Bias against the series parameter: the series face's probability with its interval,
    and the evidence against fairness (-log10 of the chi-square p-value)."""
    pts = sorted(reports, key=lambda r: r["experiment"]["series"]["value"])
    ser = pts[0]["experiment"]["series"]
    x = [r["experiment"]["series"]["value"] for r in pts]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True)
    face = ser.get("face")
    if face is not None:
        ys, lo, hi = [], [], []
        for r in pts:
            f = next(f for f in r["faces"] if f["face"] == face)
            ys.append(f["p_hat"] or 0.0)
            lo.append(max(0.0, ys[-1] - f["ci_low"]))
            hi.append(max(0.0, f["ci_high"] - ys[-1]))
        ax1.errorbar(x, ys, yerr=[lo, hi], fmt="o-", capsize=4, label=f"P(face {face} up)")
        ax1.axhline(pts[0]["fair_p"], color="green", ls="--", label="fair")
        ax1.set_ylabel("probability")
    else:
        tv = [0.5 * sum(abs((f["p_hat"] or 0) - r["fair_p"]) for f in r["faces"]) for r in pts]
        ax1.plot(x, tv, "o-", label="total variation from uniform")
        ax1.set_ylabel("distance")
    ax1.legend(fontsize=8)
    ax1.set_title(f"series {ser['name']}: bias against {ser['parameter']}", fontsize=10)
    # from the log tail: a strong bias's p-value underflows to 0 as a float
    evidence = [max(1e-2, _neg_log10_sf(r["chi2"], r["chi2_df"])) for r in pts]
    ax2.plot(x, evidence, "s-", color="tab:red", label="-log10 chi-square p")
    alpha = pts[0]["alpha"]
    ax2.axhline(-math.log10(alpha), color="black", ls=":", label=f"alpha {alpha:g}")
    ax2.set_yscale("log")
    ax2.set_xlabel(ser["parameter"])
    ax2.set_ylabel("evidence of bias")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)
    return Path(path)


def _save(fig: Any, path: str | Path) -> None:
    """Write the figure atomically (never half a PNG over an old one), then free it."""
    try:
        write_with(path, lambda tmp: fig.savefig(tmp, dpi=100), "plot")
    finally:
        plt.close(fig)


def _neg_log10_sf(x: float | None, df: int) -> float:
    """-log10 of the chi-square tail, from logs: a strong bias's p underflows to 0 as a
    float, and far out scipy's logsf does too; there the tail's leading asymptotic term
    Q(a, y) ~ y^(a-1) e^(-y) / Gamma(a) (a = df/2, y = x/2) serves."""
    if x is None:
        return 0.0
    log_sf = float(chi2.logsf(x, df))
    if not math.isfinite(log_sf):
        a, y = df / 2, x / 2
        log_sf = (a - 1) * math.log(y) - y - math.lgamma(a)
    return -log_sf / math.log(10)
