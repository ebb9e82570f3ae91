"""What an experiment's results say: face counts, goodness-of-fit tests, intervals, a verdict,
the power analysis, outcome rates and dynamical bias, as one JSON-ready dict; and the same
as text. Only throws that came to rest flat on the table count toward face statistics."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import DataError
from simulator.experiments import stats
from simulator.experiments.config import StopRule
from simulator.experiments.dispatch import sprt_over
from simulator.experiments.store import Store, ThrowRow

OFF_TABLE_REASONS = ("fell_off", "leaning", "overhang")
ENERGY_BINS = 5


def build_report(out_dir: str | Path, alpha: float | None = None, shift: float | None = None,
                 power: float = 0.8) -> dict[str, Any]:
    """The report of the experiment stored in `out_dir`. `alpha` defaults to the
    experiment's; `shift` (a change of one face's probability) to a quarter of 1/k."""
    store = Store.open(out_dir)
    try:
        exp = store.experiment_json()
        decision = store.stop_decision()
        rows = store.rows()
    finally:
        store.close()
    faces = _faces(exp)
    k = len(faces)
    a = float(exp.get("alpha", 0.01) if alpha is None else alpha)
    if not 0 < a < 1:
        raise DataError("--alpha", "alpha", "must be strictly between 0 and 1", a)
    d = 0.25 / k if shift is None else float(shift)
    if not 0 < d < 1 - 1 / k:
        raise DataError("--shift", "shift", f"must be in (0, {1 - 1 / k:.3f})", d)
    report = summarize(rows, faces, a, d, power)
    report["experiment"] = {key: exp.get(key) for key in ("name", "source", "fingerprint", "seed",
                                                          "series", "description")}
    report["experiment"]["die"] = exp.get("die", {}).get("name")
    report["experiment"]["surface"] = exp.get("table", {}).get("surface", {}).get("name")
    if exp.get("stop"):
        rule = StopRule(**exp["stop"])
        report["sequential"] = decision or sprt_over(rows, rule, k)
    return report


def summarize(rows: list[ThrowRow], faces: tuple[int, ...], alpha: float, shift: float,
              power: float = 0.8) -> dict[str, Any]:
    k = len(faces)
    on = [r for r in rows if r.status == "on_table"]
    tally = Counter(r.face for r in on)
    counts = [tally.get(f, 0) for f in faces]
    n = len(on)
    out: dict[str, Any] = {"throws": len(rows), "on_table": n, "alpha": alpha,
                           "counts": {str(f): c for f, c in zip(faces, counts, strict=True)}}
    if n > 0:
        chi = stats.chi_square(counts)
        g = stats.g_test(counts)
        out.update(chi2=chi.statistic, chi2_df=chi.df, chi2_p=chi.p, g=g.statistic, g_p=g.p)
    else:
        out.update(chi2=None, chi2_df=k - 1, chi2_p=None, g=None, g_p=None)
    out["faces"] = []
    for f, c in zip(faces, counts, strict=True):
        ci = stats.wilson(c, n, alpha, comparisons=k)
        out["faces"].append({"face": f, "count": c, "p_hat": ci.p_hat if n else None,
                             "ci_low": ci.low, "ci_high": ci.high,
                             "outside_fair": bool(n and not ci.low <= 1 / k <= ci.high)})
    out["fair_p"] = 1 / k
    out["intervals"] = f"Wilson, {1 - alpha:.0%} family-wise (Bonferroni over {k} faces)"
    # Expected counts under 5 make the chi-square approximation unreliable.
    if n == 0:
        verdict = "no data"
    elif n / k < 5:
        verdict = "too few throws"
    elif out["chi2_p"] < alpha:
        verdict = "biased"
    else:
        verdict = "no evidence of bias"
    out["verdict"] = verdict
    out["power"] = {
        "power": power,
        "shift": shift,
        "throws_needed": stats.throws_needed(k, shift, alpha, power),
        "detectable_shift_now": stats.detectable_shift(k, n, alpha, power) if n else None,
        "note": f"on-table throws for the chi-square test at alpha {alpha:g} to detect one face's "
                f"probability moved from 1/{k} by {shift:g}",
    }
    total = len(rows)
    reasons = Counter(r.reason for r in rows if r.status == "off_table")
    errors = sum(1 for r in rows if r.status == "error")
    out["outcomes"] = {
        "on_table": n / total if total else None,
        **{f"off_table_{why}": (reasons.get(why, 0) / total if total else None)
           for why in OFF_TABLE_REASONS},
        "cocked": reasons.get("leaning", 0) / total if total else None,
        "error": errors / total if total else None,
    }
    out["outcome_counts"] = {"on_table": n, **{why: reasons.get(why, 0) for why in OFF_TABLE_REASONS},
                             "error": errors}
    out["dynamics"] = _dynamics(on, faces, alpha)
    return out


def _dynamics(on: list[ThrowRow], faces: tuple[int, ...], alpha: float) -> dict[str, Any]:
    """Dynamical bias: how the face down at release maps to the face up at rest, and how often
    the die ends on the face it started on (same face down), by release energy."""
    index = {f: i for i, f in enumerate(faces)}
    matrix = np.zeros((len(faces), len(faces)), dtype=int)
    for r in on:
        matrix[index[r.initial_down], index[r.face]] += 1  # type: ignore[index]
    same = [r.final_down == r.initial_down for r in on]
    by_energy = []
    if on:
        energies = np.array([r.energy_j for r in on])
        edges = np.unique(np.quantile(energies, np.linspace(0, 1, ENERGY_BINS + 1)))
        which = np.clip(np.searchsorted(edges, energies, side="right") - 1, 0, len(edges) - 2)
        for b in range(max(0, len(edges) - 1)):
            sel = [s for s, w in zip(same, which, strict=True) if w == b]
            ci = stats.wilson(sum(sel), len(sel), alpha)
            by_energy.append({"energy_low_j": float(edges[b]), "energy_high_j": float(edges[b + 1]),
                              "throws": len(sel), "same_face": int(sum(sel)),
                              "rate": ci.p_hat if sel else None, "ci_low": ci.low,
                              "ci_high": ci.high})
    n = len(on)
    overall = stats.wilson(sum(same), n, alpha)
    # Without memory of the start, the face down at rest is independent of the face down at
    # release: the same-face rate is then sum_f P(start f) P(rest f), estimated from the two
    # marginals. It is 1/k only when either is uniform (a fair die, or starts drawn uniformly).
    start = Counter(r.initial_down for r in on)
    rest = Counter(r.final_down for r in on)
    no_memory = sum(start[f] * rest[f] for f in faces) / (n * n) if n else None
    return {
        "faces": list(faces),
        "initial_down_to_final_up": matrix.tolist(),
        "same_face_rate": overall.p_hat if n else None,
        "same_face_ci": [overall.low, overall.high],
        "same_face_fair": 1 / len(faces),
        "same_face_no_memory": no_memory,
        "same_face_by_energy": by_energy,
    }


def compare(dir_a: str | Path, dir_b: str | Path, alpha: float = 0.01) -> dict[str, Any]:
    """Homogeneity of two experiments' face distributions (same faces required)."""
    sides = []
    for d in (dir_a, dir_b):
        store = Store.open(d)
        try:
            exp = store.experiment_json()
            rows = store.rows()
        finally:
            store.close()
        faces = _faces(exp)
        tally = Counter(r.face for r in rows if r.status == "on_table")
        engine = (exp.get("physics") or {}).get("engine", "pybullet")  # stores before engines
        sides.append((str(d), exp.get("name"), faces, [tally.get(f, 0) for f in faces], engine))
    if sides[0][2] != sides[1][2]:
        raise DataError(dir_b, "faces", f"has faces {list(sides[1][2])}, but {dir_a} has "
                        f"{list(sides[0][2])}: the experiments cannot be compared", show_value=False)
    if not sum(sides[0][3]) or not sum(sides[1][3]):
        raise DataError(dir_b if sum(sides[0][3]) else dir_a, "throws", "has no on-table throws",
                        show_value=False)
    res = stats.homogeneity(sides[0][3], sides[1][3])
    return {
        "a": {"dir": sides[0][0], "name": sides[0][1], "engine": sides[0][4],
              "on_table": sum(sides[0][3]),
              "counts": dict(zip(map(str, sides[0][2]), sides[0][3], strict=True))},
        "b": {"dir": sides[1][0], "name": sides[1][1], "engine": sides[1][4],
              "on_table": sum(sides[1][3]),
              "counts": dict(zip(map(str, sides[1][2]), sides[1][3], strict=True))},
        "chi2": res.statistic, "df": res.df, "p": res.p, "alpha": alpha,
        "verdict": "different" if res.p < alpha else "no evidence of a difference",
    }


def render_text(rep: dict[str, Any]) -> str:
    e = rep["experiment"]
    lines = [f"experiment {e['name']} ({e['source']}), die {e['die']}, surface {e['surface']}, "
             f"fingerprint {e['fingerprint']}"]
    lines.append(f"throws {rep['throws']}, on the table {rep['on_table']}")
    if "sequential" in rep:
        s = rep["sequential"]
        lines.append(f"sequential test (SPRT, face {s['face']}, p1 {s['p1']}): {s['decision']} after "
                     f"{s['throws']} throws ({s['on_table']} on the table), log LR {s['llr']:.3f}")
    lines.append("")
    lines.append(f"face  count   p_hat   {rep['intervals']}")
    for f in rep["faces"]:
        mark = "  *" if f["outside_fair"] else ""
        p = f"{f['p_hat']:.4f}" if f["p_hat"] is not None else "   -  "
        lines.append(f"{f['face']:>4}  {f['count']:>5}  {p}  [{f['ci_low']:.4f}, {f['ci_high']:.4f}]{mark}")
    lines.append(f"fair p = 1/{len(rep['faces'])} = {rep['fair_p']:.4f}; * = interval excludes it")
    lines.append("")
    if rep["chi2"] is not None:
        lines.append(f"Pearson chi-square {rep['chi2']:.3f} (df {rep['chi2_df']}), p = {rep['chi2_p']:.4g}")
        lines.append(f"G-test             {rep['g']:.3f} (df {rep['chi2_df']}), p = {rep['g_p']:.4g}")
    lines.append(f"verdict at alpha {rep['alpha']:g}: {rep['verdict']}")
    pw = rep["power"]
    lines.append(f"power {pw['power']:g}: {pw['throws_needed']} on-table throws detect a shift of "
                 f"{pw['shift']:g} in one face's probability"
                 + (f"; these {rep['on_table']} detect {pw['detectable_shift_now']:.4f}"
                    if pw["detectable_shift_now"] is not None else ""))
    lines.append("")
    o = rep["outcome_counts"]
    t = max(1, rep["throws"])
    lines.append("outcomes: " + ", ".join(
        f"{name} {o[key]} ({o[key] / t:.1%})" for key, name in (
            ("on_table", "on table"), ("fell_off", "fell off"), ("leaning", "cocked/leaning"),
            ("overhang", "overhang"), ("error", "physics error"))))
    dyn = rep["dynamics"]
    lines.append("")
    lines.append("dynamical bias: rows = face down at release, columns = face up at rest")
    lines.append("      " + "".join(f"{f:>6}" for f in dyn["faces"]))
    for f, row in zip(dyn["faces"], dyn["initial_down_to_final_up"], strict=True):
        lines.append(f"{f:>6}" + "".join(f"{c:>6}" for c in row))
    if dyn["same_face_rate"] is not None:
        lines.append(f"same face down at rest as at release: {dyn['same_face_rate']:.3f} "
                     f"[{dyn['same_face_ci'][0]:.3f}, {dyn['same_face_ci'][1]:.3f}] "
                     f"(no memory of the start: {dyn['same_face_no_memory']:.3f})")
    for b in dyn["same_face_by_energy"]:
        rate = f"{b['rate']:.3f}" if b["rate"] is not None else "  -  "
        lines.append(f"  energy {1000 * b['energy_low_j']:7.2f}-{1000 * b['energy_high_j']:7.2f} mJ: "
                     f"{rate} [{b['ci_low']:.3f}, {b['ci_high']:.3f}] of {b['throws']}")
    return "\n".join(lines)


def render_compare(res: dict[str, Any]) -> str:
    a, b = res["a"], res["b"]
    lines = [f"A {a['name']} ({a['dir']}, {a['engine']}): {a['on_table']} on-table throws",
             f"B {b['name']} ({b['dir']}, {b['engine']}): {b['on_table']} on-table throws",
             "face " + "".join(f"{f:>7}" for f in a["counts"]),
             "A    " + "".join(f"{c:>7}" for c in a["counts"].values()),
             "B    " + "".join(f"{c:>7}" for c in b["counts"].values()),
             f"homogeneity chi-square {res['chi2']:.3f} (df {res['df']}), p = {res['p']:.4g}",
             f"verdict at alpha {res['alpha']:g}: {res['verdict']}"]
    return "\n".join(lines)


def _faces(exp: dict[str, Any]) -> tuple[int, ...]:
    from dice_models import parse_die
    from simulator.physics import die_shape

    return tuple(sorted(die_shape(parse_die(exp["die"], "stored experiment")).values))
