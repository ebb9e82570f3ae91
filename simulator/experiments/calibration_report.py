"""Calibration's report as a reader sees it: Markdown, the summary lines and the plot.
Split from `calibrate`, which re-exports these names.
"""

from __future__ import annotations

from typing import Any


def render_markdown(rep: dict[str, Any]) -> str:
    """The report as Markdown: the dataset, the fitted values, the measured scatter, the
    fit, the step check, the points and the summary."""
    lines = _md_dataset(rep) + _md_fitted(rep) + _md_scatter(rep)
    f = rep["fit"]
    lines += [f"Fit: X^2 {f['chi2']:.2f} on {f['df']} df, p {f['p']:.3g}{_ref(f)} -> "
              + ("BAD FIT (p < alpha " + f"{f['alpha']:g})" if f["bad_fit"] else
                 f"not rejected at alpha {f['alpha']:g}"), "",
              f"Inside rule: {rep['inside_rule']}.", ""]
    lines += _md_step_check(rep) + _md_points(rep) + _md_summary(rep)
    return "\n".join(lines)


def _md_dataset(rep: dict[str, Any]) -> list[str]:
    ds = rep["dataset"]
    lines = [f"# Calibration: {ds['name']}", "", f"Source: {ds['citation']}", "",
             f"Where read: {ds['where_read']}", ""]
    for c in ds["caveats"]:
        lines.append(f"- caveat: {c}")
    for v in rep["validation"]:
        lines += ["", f"Validation dataset: {v['name']} ({v['citation']})"]
        lines += [f"- caveat: {c}" for c in v["caveats"]]
    return lines


def _md_fitted(rep: dict[str, Any]) -> list[str]:
    pair = rep["pair"]
    lines = ["", "## Fitted values", "",
             f"Pair {pair['die']} on {pair['surface']} (before: friction "
             f"{pair['before']['friction']:.4f}, restitution {pair['before']['restitution']:.4f}, "
             f"spinning lever arm {pair['before']['spinning_friction']:.6f} m, "
             f"{pair['before']['source']}); throw_scale before: 1.", "",
             "| parameter | value | sigma | 95% interval |", "| --- | --- | --- | --- |"]
    for n in rep["values"]:  # PARAMETERS, then the styles' shares of a throw of styles
        if n in rep["fitted_parameters"]:
            s, iv = rep["sigma"][n], rep["interval95"][n]
            lines.append(f"| {n} | {rep['values'][n]:.4f} | {_fmt(s)} | "
                         + (f"[{iv[0]:.4f}, {iv[1]:.4f}]" if iv else "not determined") + " |")
        else:
            lines.append(f"| {n} | {rep['values'][n]:.4f} | not fitted | - |")
    lines += ["", f"Uncertainty: {rep['uncertainty_method']}.", ""]
    if rep["noise_warning"]:
        lines += [f"WARNING: {rep['noise_warning']}.", ""]
    sur = rep.get("surrogate")
    if sur:
        lof = sur["lack_of_fit"]
        lines += [f"Surrogate: {sur['design_points']} design points, the surface fitted on the "
                  f"{sur['fitted_on']} in " + ", ".join(
                      f"{n} [{a:.4f}, {b:.4f}]" for n, (a, b) in sur["region"].items())
                  + f"; lack of fit: deviance {lof['deviance']:.1f} on {lof['df']} df"
                  + (f", p {lof['p']:.3g}" if lof["p"] is not None else "") + ".", "",
                  "| object | lack-of-fit deviance | df | p | throws on the table |",
                  "| --- | --- | --- | --- | --- |"]
        for x in lof["per_object"]:
            lines.append(f"| {x['object']} | {x['deviance']:.1f} | {x['df']} | "
                         f"{_fmt(x['p'])} | {x['throws']} |")
        lines.append("")
    if rep.get("surrogate_warning"):
        lines += [f"WARNING: {rep['surrogate_warning']}.", ""]
    return lines


def _md_scatter(rep: dict[str, Any]) -> list[str]:
    d = rep.get("dispersion")
    lines = ["## Measured scatter", "", _dispersion_line(d) + "."]
    if d:
        lines += ["", f"Method: {d['method']}. Each measured count is then weighed as if N / phi "
                  "throws had been made (the design-effect correction of Rao and Scott): its "
                  "variance grows by phi in every X^2, interval and profile below, the "
                  "simulation's stays binomial (docs/calibration.md).", "",
                  "| trend degree | X^2 | df | X^2 / df | p (binomial) |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [f"| {t['degree']} | {t['chi2']:.2f} | {t['df']} | {t['phi']:.2f} | {t['p']:.3g} |"
                  for t in d["trends"]]
    lines += [""]
    return lines


def _md_step_check(rep: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    st = rep.get("step_check")
    if st:
        lines += ["## Step check", "", _step_line(st) + ". Each fitted object's throws at the default "
                  "step (the points' below) against as many fresh throws at half the step, at "
                  "the fitted values: outcome "
                  "counts (every group, and the throws that left the table) compared by "
                  "Pearson's homogeneity test. Values fitted where the outcomes depend on the "
                  "step belong to the integrator, not to the materials.", "",
                  "| object | counts at dt | counts at dt/2 | X^2 | df | p |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for x in st["objects"]:
            lines.append(f"| {x['object']} | {x['counts_step']} | {x['counts_half_step']} | "
                         f"{x['chi2']:.2f} | {x['df']} | {x['p']:.3g} |")
        lines.append("")
    return lines


def _md_points(rep: dict[str, Any]) -> list[str]:
    lines = ["## Points (at the fitted values, fresh seeds)", "",
             "| object | part | group | N | measured p [95%] | simulated p [95%] (n sim) | inside | "
             "calibrated |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rep["points"]:
        meas = (f"{r['measured_p']:.3f} [{r['measured_ci'][0]:.3f}, {r['measured_ci'][1]:.3f}]"
                if r["measured_ci"] else f"{r['measured_p']:.3f} (no N)")
        if r["derived_counts"]:
            meas += " (count derived)"
        simp = (f"{r['sim_p']:.3f} [{r['sim_ci'][0]:.3f}, {r['sim_ci'][1]:.3f}] ({r['sim_n']})"
                if r["sim_ci"] else "no throw on the table")
        lines.append(f"| {r['object']} | {r['part']} | {r['group']} | {r['n'] or 'unknown'} | "
                     f"{meas} | {simp} | {'yes' if r['inside'] else 'NO'} | {r['calibrated']} |")
    return lines


def _md_summary(rep: dict[str, Any]) -> list[str]:
    lines = ["", "## Summary", "", "Fresh-throw X^2: each part's measured counts against its "
             "simulation above (homogeneity, the simulation's noise included), df less the "
             "fitted parameters for the fitted part; the measured counts weighed as N / "
             "phi, and as binomial counts (N).", "",
             "| part | objects | points inside | MAE | fresh-throw X^2 | df | p | X^2 as "
             "binomial | p as binomial |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    fresh = rep.get("fresh_throws") or {}
    for name, s in rep["summary"].items():
        x = fresh.get(name)
        lines.append(f"| {name} | {s['objects']} | {s['inside']}/{s['points']} | {_fmt(s['mae'])} | "
                     + (f"{x['chi2']:.2f} | {x['df']} | {x['p']:.3g} | {x['chi2_binomial']:.2f} | "
                        f"{x['p_binomial']:.3g} |" if x and x["chi2"] is not None
                        else "- | - | - | - | - |"))
    t = rep["timing"]
    lines += ["", f"Wall time {t['seconds']:.1f} s (fit {t['fit_seconds']:.1f} s), "
              f"{t['throws_simulated']} throws in {t['evaluations']} evaluations "
              f"({t['throws_per_s']:.0f} throws/s, {rep['settings']['workers']} worker(s), "
              f"{rep['settings']['throws']} throws per object per evaluation).", ""]
    return lines


def render_summary(rep: dict[str, Any]) -> str:
    """The lines the command prints."""
    v, s = rep["values"], rep["sigma"]
    out = []
    for n in rep["fitted_parameters"]:
        iv = rep["interval95"][n]
        out.append(f"{n}: {v[n]:.4f}" + (f" +- {s[n]:.4f} (95% [{iv[0]:.4f}, {iv[1]:.4f}])"
                                          if iv else " (interval not determined)"))
    if rep["noise_warning"]:
        out.append(f"warning: {rep['noise_warning']}")
    sur = rep.get("surrogate")
    if sur:
        lof = sur["lack_of_fit"]
        out.append(f"surrogate: {sur['design_points']} design points, fitted on "
                   f"{sur['fitted_on']}; lack of fit deviance {lof['deviance']:.1f} on "
                   f"{lof['df']} df" + (f", p {lof['p']:.3g}" if lof["p"] is not None else ""))
    if rep.get("surrogate_warning"):
        out.append(f"warning: {rep['surrogate_warning']}")
    out.append(_dispersion_line(rep.get("dispersion")))
    f = rep["fit"]
    out.append(f"fit: X^2 {f['chi2']:.2f} on {f['df']} df, p {f['p']:.3g}{_ref(f)}"
               + (f"  BAD FIT (p < {f['alpha']:g})" if f["bad_fit"] else ""))
    if rep.get("step_check"):
        out.append(_step_line(rep["step_check"]))
    fresh = rep.get("fresh_throws") or {}
    for name, p in rep["summary"].items():
        x = fresh.get(name)
        out.append(f"{name}: {p['objects']} objects, {p['inside']}/{p['points']} points inside, "
                   f"MAE {_fmt(p['mae'])}"
                   + (f"; fresh throws X^2 {x['chi2']:.2f} on {x['df']} df, p {x['p']:.3g}{_ref(x)}"
                      if x and x["chi2"] is not None else "")
                   + (f" (as binomial counts: X^2 {x['chi2_binomial']:.2f}, p {x['p_binomial']:.3g})"
                      if x and x["chi2"] is not None and _applied_phi(rep) > 1.0 else ""))
    t = rep["timing"]
    out.append(f"wall time {t['seconds']:.1f} s (fit {t['fit_seconds']:.1f} s), "
               f"{t['throws_simulated']} throws, {t['evaluations']} evaluations")
    return "\n".join(out)


def _ref(t: dict[str, Any]) -> str:
    """How a weighed X^2's p was found, where not by chi-square."""
    return f" (X^2/df against F({t['df']}, {t['phi_df']}))" if t.get("phi_df") else ""


def _applied_phi(rep: dict[str, Any]) -> float:
    d = rep.get("dispersion")
    return float(d["phi"]) if d and d["applied"] else 1.0


def _dispersion_line(d: dict[str, Any] | None) -> str:
    if d is None:
        return ("dispersion: not estimated (the dataset names no series): the measured counts "
                "are taken as binomial")
    c = next(t for t in d["trends"] if t["degree"] == d["chosen_degree"])
    line = (f"dispersion: the {len(d['objects'])} measured shares scatter about smooth trends in "
            f"log {d['series']} {c['phi']:.2f} times as much as binomial counts at least (degree "
            f"{c['degree']}: X^2 {c['chi2']:.2f} on {c['df']} df, p {c['p']:.3g}; the trend's F "
            f"{d['trend_f']:.1f}, p {d['trend_p']:.3g}); ")
    if not d["trend"]:
        return line + (f"not applied: no trend in {d['series']} (F test p >= "
                       f"{d['trend_alpha']:g}), so the scatter cannot be told from a misfit; "
                       "the measured counts are taken as binomial")
    if not d["applied"]:
        return line + "not applied (--binomial): the measured counts are taken as binomial"
    return line + (f"the measured counts weigh as N / {d['phi']:.2f}, and the tests take phi "
                   f"as estimated on {d['phi_df']} df (F, not chi-square)")


def _step_line(st: dict[str, Any]) -> str:
    return (f"step check: the fitted objects at dt 1/{1 / st['time_step']:.0f} and "
            f"1/{1 / st['half_step']:.0f} s, {st['throws']} throws each: X^2 {st['chi2']:.2f} on "
            f"{st['df']} df, p {st['p']:.3g}"
            + (f"  DEPENDS ON THE STEP (p < {st['alpha']:g})" if st["depends_on_step"] else ""))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def _bar(p: float, ci: list[float]) -> list[list[float]]:
    return [[max(0.0, p - ci[0])], [max(0.0, ci[1] - p)]]  # Wilson's ends, round-off clipped


def _plot_png(rep: dict[str, Any]) -> bytes:
    """Measured against simulated proportions with their intervals, by part."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 6.0))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, zorder=0)
    styles = {"fitted": ("o", "C0", "fitted"), "held-out": ("s", "C1", "held out")}
    labelled: set[str] = set()
    for r in rep["points"]:
        if r["sim_p"] is None:
            continue
        marker, colour, label = styles.get(r["part"], ("^", "C2", r["part"]))
        xerr = None
        if r["measured_ci"]:
            xerr = _bar(r["measured_p"], r["measured_ci"])
        yerr = _bar(r["sim_p"], r["sim_ci"])
        ax.errorbar([r["measured_p"]], [r["sim_p"]], xerr=xerr, yerr=yerr, fmt=marker, color=colour,
                    mfc=colour if r["part"] == "fitted" else "white", ms=6, capsize=2, lw=1,
                    label=None if label in labelled else label)
        labelled.add(label)
    ax.set_xlabel("measured proportion (95% Wilson)")
    ax.set_ylabel("simulated proportion at the fit (95% Wilson)")
    s = rep["summary"]
    ax.set_title(f"{rep['dataset']['name']}: MAE fitted {_fmt(s.get('fitted', {}).get('mae'))}, "
                 f"held out {_fmt(s.get('held-out', {}).get('mae'))}", fontsize=9)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=110)
    finally:
        plt.close(fig)
    return buf.getvalue()
