"""Calibration: fit a die material's contact values on a surface, and the throw model's
speed scale, to measured outcome counts of thrown objects (`tabletop fairness calibrate`).

A dataset (dice_models/datasets/*.yaml, format in docs/calibration.md) lists objects: a die
geometry and mass, the die and surface materials, how the objects were thrown (the source's
words and the lab's throw model that stands in for them), outcome groups of face values,
and the measured counts (or a published proportion p and N, from which the counts are
derived as round(p * N) and flagged). Every model input says whether the source states it
or the dataset assumes it.

What is fitted (any subset, `fit=`):
- `friction`, `restitution`: the effective pair values of the fitted objects' die material
  on their surface (one pair for the whole fitted part); `spinning_friction`, the pair's
  spinning lever arm, when asked. The rolling lever arm stays the pair's data.
- `throw_scale`: a factor on the throw model's speed and spin ranges (heights, angles and
  release area as the dataset gives them), i.e. the throw's kinetic energy scale squared.

Methods: `surrogate` (the default) models each object's outcome shares as a smooth surface
through many parameter points (`fit_surrogate`, `simulator.experiments.surrogate`); `search`,
described next, works on the noisy objective itself.

The search method's objective: the sum over fitted objects of Pearson's homogeneity X^2
between the measured counts and the simulated counts (a 2 x k table per object, k outcome
groups), so both the measurement's and the simulation's sampling noise are in the
denominator. Every evaluation
throws the same seeds (common random numbers): throw i of object j is drawn from
`default_rng([1000 seed + j, i])` (the lab's draw_throw) whatever the parameters, so the
parameters change the physics and the speed scale, not the draws. Throws are chaotic, so
the objective is still piecewise constant with noise of a few X^2 units; the search is
therefore coarse: a grid (`grid` points per parameter), then
Nelder-Mead from the best grid point (at most `refine` evaluations), then an axial and
diagonal design at +-STEP around the best point; a full quadratic is fitted by least
squares to every evaluated point near the best one (the region widened until it holds
twice as many points as coefficients), and its minimum is the estimate where it lies in
that region (else the best evaluated point, whose X^2 is a lucky draw of the noise).

Uncertainty: the curvature of that quadratic. X^2 ~ -2 ln L + const, so the covariance is
2 H^-1 (H: the quadratic's Hessian); 95% intervals are +-1.96 sigma. A direction in which
the quadratic is not convex gets no interval ("not determined").

The report simulates every object once more at the fitted values with fresh seeds (seed+1),
so the comparison is not flattered by the fit's own noise.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from scipy import stats as sps

from dice_models import DataError
from dice_models.materials import (
    VALUE_FIELDS,
    Material,
    library,
)
from dice_models.outfiles import ensure_dir, write_bytes
from simulator.experiments.calibration_fit import (  # noqa: F401  (re-exported: `calibrate` is the lab's entry point)
    FitResult,
    _quadratic,
    design_seed,
    fit,
    fit_surrogate,
    min_design,
)
from simulator.experiments.calibration_report import (  # noqa: F401  (re-exported: `calibrate` is the lab's entry point)
    _applied_phi,
    _bar,
    _dispersion_line,
    _fmt,
    _plot_png,
    _ref,
    _step_line,
    render_markdown,
    render_summary,
)
from simulator.experiments.calibration_sim import (  # noqa: F401  (re-exported: `calibrate` is the lab's entry point)
    _POOL_OBJECTS,
    SimCounts,
    Simulator,
    _init_worker,
    _key,
    _task,
    base_parameters,
    chi_square,
    experiment_for,
    phi_df,
    simulate,
    style_shares,
    trial_library,
)
from simulator.experiments.datasets import (  # noqa: F401  (re-exported: `calibrate` is the lab's entry point)
    DATASET_FIELDS,
    DISPERSION_FIELDS,
    LOCAL,
    MARKED,
    MAX_STAGES,
    METHODS,
    NEAR_BOUND,
    OBJECT_FIELDS,
    PAIR_PARAMETERS,
    PARAMETERS,
    PROPORTION_FIELDS,
    SHARE,
    SOURCE_FIELDS,
    STEP,
    THROW_FIELDS,
    DataObject,
    Dataset,
    _counts,
    _dispersion,
    _finite,
    _groups,
    _marks,
    _parse_object,
    _text,
    _volume,
    load_dataset,
    parse_dataset,
)
from simulator.experiments.dispersion import rise95, x2_p
from simulator.experiments.stats import homogeneity, wilson
from simulator.physics import PhysicsSettings


def split(ds: Dataset, holdout: Sequence[str] | None) -> tuple[list[DataObject], list[DataObject]]:
    """Fitted and held-out objects: `holdout` names (an empty list: none), else every second
    object (the 2nd, 4th, ...) is held out. Objects without a published N are never fitted."""
    if holdout is not None:
        held = {ds.object(n).name for n in holdout}
    else:
        held = {o.name for i, o in enumerate(ds.objects) if i % 2 == 1}
    held |= {o.name for o in ds.objects if o.counts is None}
    fitted = [o for o in ds.objects if o.name not in held]
    return fitted, [o for o in ds.objects if o.name in held]


def calibrate(dataset: Dataset, out: str | Path, throws: int = 300, workers: int = 1,
              fit_names: Sequence[str] = ("friction", "restitution", "throw_scale"),
              holdout: Sequence[str] | None = None, validate: Sequence[Dataset] = (),
              seed: int = 0, grid: int = 3, refine: int = 24, alpha: float = 0.01,
              log: Callable[[str], None] = lambda s: None, engine: str = "pybullet",
              method: str = "surrogate", design: int = 24,
              stages: int = MAX_STAGES, binomial: bool = False,
              at: dict[str, float] | None = None) -> dict[str, Any]:
    """Fit, simulate every object at the fit with fresh seeds, write DIR's four files; the
    report as a dict. `engine` simulates the throws (the fitted values are that engine's).
    The measured counts weigh as N / the dataset's dispersion, or as N (`binomial`). `at`
    holds parameters not fitted at these values (the pair's data and throw scale 1 otherwise):
    with `fit_names` empty, the report of a calibration already made."""
    t0 = time.perf_counter()
    if binomial:
        dataset = dataset.binomial()
        validate = [v.binomial() for v in validate]
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if method == "surrogate" and design < min_design(len(fit_names)):
        raise ValueError(f"design must be at least {min_design(len(fit_names))} for "
                         f"{len(fit_names)} parameter(s), not {design}")
    fitted, held = split(dataset, holdout)
    if not fitted:
        raise DataError(dataset.path, "objects", "no object with counts is left to fit (objects "
                        "with n: unknown are for validation only)", show_value=False)
    known = [*PARAMETERS, *style_shares(fitted[0].throw)]
    for n in [*fit_names, *(at or {})]:
        if n not in known:
            raise DataError("--fit", "fit", f"unknown parameter {n!r}; known: "
                            f"{', '.join(known)}", show_value=False)
    die_m, surf_m = fitted[0].pair
    for o in fitted[1:]:
        if o.pair != (die_m, surf_m):
            raise DataError(dataset.path, f"objects ({o.name})", f"names material {o.pair[0].name} "
                            f"on {o.pair[1].name}, but {fitted[0].name} names {die_m.name} on "
                            f"{surf_m.name}: one fit calibrates one pair", show_value=False)
    everyone = [*fitted, *held, *(o for ds in validate for o in ds.objects)]
    with Simulator(everyone, throws, workers, engine) as sim:
        log(f"fitting {', '.join(fit_names) or 'nothing'} on {len(fitted)} objects of "
            f"{dataset.name}, {throws} throws each per evaluation, {workers} worker(s)")
        if method == "surrogate":
            res = fit_surrogate(fitted, sim, list(fit_names), seed, design, alpha, stages, log, at)
        else:
            res = fit(fitted, sim, list(fit_names), seed, grid, refine, log, at)
        fit_seconds = time.perf_counter() - t0
        log(f"fit done in {fit_seconds:.1f} s; checking every object at the fit with fresh seeds")
        rows = []
        fresh: dict[str, dict[str, Any]] = {}
        parts: list[tuple[str, Sequence[DataObject]]] = [("fitted", fitted), ("held-out", held)]
        parts += [(f"validation: {ds.name}", ds.objects) for ds in validate]
        for part, objs in parts:
            measured: list[tuple[DataObject, SimCounts]] = []
            for o in objs:
                applied, params = _applied(o, dataset, die_m, surf_m, res.values)
                s = sim.run([o], params, seed + 1)[0]
                rows.extend(_points(o, s, part, applied))
                if o.counts is not None:
                    measured.append((o, s))
            if measured:
                fresh[part] = fresh_test(measured, len(fit_names) if part == "fitted" else 0)
        log("checking the fitted objects at half the time step")
        step = step_check(fitted, dataset, die_m, surf_m, res.values, sim, seed + 1, alpha)
        thrown, evaluations = sim.thrown + step["throws_simulated"], sim.evaluations + 1
    seconds = time.perf_counter() - t0
    report = _report(dataset, validate, res, rows, fitted, held, throws, workers, seconds,
                     fit_seconds, thrown, evaluations, alpha, seed, die_m, surf_m, fit_names)
    report["settings"]["engine"] = engine  # the fitted values hold for this engine
    report["dispersion"] = (None if dataset.dispersion is None else
                            {**dataset.dispersion.to_json(), "applied": not binomial})
    report["step_check"] = step
    report["fresh_throws"] = fresh
    write_outputs(report, out, dataset, die_m, surf_m)
    return report


def fresh_test(measured: Sequence[tuple[DataObject, SimCounts]], fitted_k: int) -> dict[str, Any]:
    """The measured counts of a part against its fresh simulation at the fit (the report's
    seeds, none of them used by the fit): the summed homogeneity X^2, simulated noise
    included, on the degrees of freedom of the groups seen in either (`homogeneity`) less
    the fitted parameters for the fitted part (`fitted_k`), none for the others. Unlike the
    fit's X^2 this asks no surface. An object none of whose throws stayed on the table is
    left out and counted (`no_throws`); with no degree of freedom left, chi2 and p are None.
    The measured counts weigh as N / their dispersion (`chi2_binomial`: as N)."""
    kept = [(o, s) for o, s in measured if s.n > 0]
    x2, df = chi_square([o for o, _ in kept], [s for _, s in kept]) if kept else (0.0, 0)
    x2b = chi_square([o for o, _ in kept], [s for _, s in kept], binomial=True)[0] if kept else 0.0
    df -= fitted_k
    ok = kept and df >= 1
    return {"chi2": x2 if ok else None, "df": df if ok else None,
            "p": x2_p(x2, df, phi_df([o for o, _ in kept])) if ok else None,
            "objects": len(kept),
            "no_throws": len(measured) - len(kept), "phi_df": phi_df([o for o, _ in kept]),
            # the same with the measured counts taken as binomial (equal where no dispersion)
            "chi2_binomial": x2b if ok else None,
            "p_binomial": float(sps.chi2.sf(x2b, df)) if ok else None}


def step_check(fitted: Sequence[DataObject], ds: Dataset, die_m: Material, surf_m: Material,
               values: dict[str, float], sim: Simulator, seed: int,
               alpha: float) -> dict[str, Any]:
    """Do the fitted objects' outcomes at the fit depend on the time step? Each object's
    throws at the default step with `seed` (the report's) are compared with as many fresh
    ones (`seed + 1`) at half the step: outcome counts (every group, and the throws that left
    the table), Pearson's homogeneity test, the X^2 summed over the objects. Fresh draws
    keep the two samples independent, as the test assumes: the same draws at two steps give
    the same outcome wherever the two integrations agree, and such pairs would make the test
    pass more easily than its p says. A calibration is only as good as this: values fitted
    where the outcomes depend on the step are values of the integrator, not of the
    materials."""
    dt = PhysicsSettings().time_step
    half = Simulator(fitted, sim.throws, sim.workers, sim.engine, dt / 2)
    objects, total, df = [], 0.0, 0
    with half:
        for o in fitted:
            params = _applied(o, ds, die_m, surf_m, values)[1]
            a = sim.run([o], params, seed)[0]
            b = half.run([o], params, seed + 1)[0]
            ca, cb = [*a.counts, a.off_table], [*b.counts, b.off_table]
            t = homogeneity(ca, cb)
            total += t.statistic
            df += t.df
            objects.append({"object": o.name, "groups": [g for g, _ in o.groups] + ["off the table"],
                            "counts_step": ca, "counts_half_step": cb, "chi2": t.statistic,
                            "df": t.df, "p": t.p})
    p = float(sps.chi2.sf(total, df)) if df > 0 else 1.0
    return {"time_step": dt, "half_step": dt / 2, "throws": sim.throws, "seeds": [seed, seed + 1],
            "objects": objects,
            "chi2": total, "df": df, "p": p, "alpha": alpha, "depends_on_step": p < alpha,
            "throws_simulated": half.thrown}


def _applied(o: DataObject, ds: Dataset, die_m: Material, surf_m: Material,
             values: dict[str, float]) -> tuple[str, dict[str, float]]:
    """Which fitted values reach an object: the pair's where it is the fitted pair, the throw
    scale where it belongs to the fitted dataset (thrown the same way)."""
    params = base_parameters(o)
    same_pair = o.pair == (die_m, surf_m)
    same_throw = any(o is x for x in ds.objects)
    if same_pair:
        for n in PAIR_PARAMETERS:
            params[n] = values[n]
    if same_throw:  # the throw scale, and the styles' shares where the throw has styles
        params["throw_scale"] = values["throw_scale"]
        params.update({n: v for n, v in values.items() if n.startswith(SHARE)})
    applied = ("pair + throw" if same_pair and same_throw else "pair" if same_pair
               else "throw" if same_throw else "none (own materials and throw)")
    return applied, params


def _points(o: DataObject, s: SimCounts, part: str, applied: str) -> list[dict[str, Any]]:
    out = []
    for g, (gname, vals) in enumerate(o.groups[:-1] if len(o.groups) > 1 else o.groups):
        p_m = o.measured_p(g)
        row: dict[str, Any] = {"object": o.name, "part": part, "group": gname, "faces": list(vals),
                               "calibrated": applied, "measured_p": p_m, "n": o.n,
                               "derived_counts": o.derived, "dispersion": o.dispersion}
        if o.counts is not None and o.n is not None:  # at N / dispersion throws
            ci = wilson(o.counts[g] / o.dispersion, o.n / o.dispersion)
            row["measured_count"] = o.counts[g]
            row["measured_ci"] = [ci.low, ci.high]
        else:
            row["measured_count"] = None
            row["measured_ci"] = None
        sim_ci = wilson(s.counts[g], s.n) if s.n else None
        row["sim_count"], row["sim_n"] = s.counts[g], s.n
        row["sim_off_table"], row["sim_errors"] = s.off_table, s.errors
        row["sim_p"] = s.counts[g] / s.n if s.n else None
        row["sim_ci"] = [sim_ci.low, sim_ci.high] if sim_ci else None
        if sim_ci is None:
            row["inside"] = False
        elif row["measured_ci"] is None:  # no N: the measured point inside the simulated interval
            row["inside"] = sim_ci.low <= p_m <= sim_ci.high
        else:  # the two 95% intervals overlap
            row["inside"] = row["measured_ci"][0] <= sim_ci.high and sim_ci.low <= row["measured_ci"][1]
        row["abs_error"] = abs(p_m - row["sim_p"]) if row["sim_p"] is not None else None
        out.append(row)
    return out


def _report(ds: Dataset, validate: Sequence[Dataset], res: FitResult, rows: list[dict[str, Any]],
            fitted: list[DataObject], held: list[DataObject], throws: int, workers: int,
            seconds: float, fit_seconds: float, thrown: int, evaluations: int, alpha: float,
            seed: int, die_m: Material, surf_m: Material, fit_names: Sequence[str]) -> dict[str, Any]:
    parts: dict[str, dict[str, Any]] = {}
    for r in rows:
        parts.setdefault(r["part"], {"points": 0, "inside": 0, "errors": []})
        p = parts[r["part"]]
        p["points"] += 1
        p["inside"] += int(r["inside"])
        if r["abs_error"] is not None:
            p["errors"].append(r["abs_error"])
    summary = {}
    for name, p in parts.items():
        objs = {r["object"] for r in rows if r["part"] == name}
        summary[name] = {"objects": len(objs), "points": p["points"], "inside": p["inside"],
                         "mae": float(np.mean(p["errors"])) if p["errors"] else None}
    intervals: dict[str, list[float] | None] = {}
    # z: 1.96, or Student's t on phi's degrees of freedom where the counts' dispersion is
    # estimated (the square root of the profile's rise)
    z = math.sqrt(rise95(phi_df(fitted)))
    for n in fit_names:  # the surrogate's profile intervals, else +-z sigma (curvature)
        s, v = res.sigma.get(n), res.values[n]
        intervals[n] = (res.intervals.get(n) if res.intervals is not None else
                        None if s is None else [v - z * s, v + z * s])
    sur = res.surrogate
    lof: dict[str, Any] = sur["lack_of_fit"] if sur else {}
    return {
        "dataset": {"name": ds.name, "path": ds.path, "citation": ds.citation,
                    "where_read": ds.where_read, "caveats": list(ds.caveats)},
        "validation": [{"name": v.name, "path": v.path, "citation": v.citation,
                        "caveats": list(v.caveats),
                        "dispersion": v.dispersion.to_json() if v.dispersion else None}
                       for v in validate],
        "pair": {"die": die_m.name, "surface": surf_m.name,
                 "before": library().pair(die_m, surf_m).to_json()},
        "fitted_parameters": list(fit_names),
        "values": {n: v for n, v in res.values.items() if n in PARAMETERS or n.startswith(SHARE)},
        "sigma": res.sigma,
        "interval95": intervals,
        "uncertainty_method": res.method,
        "objective_noise_sd": res.noise_sd,
        "surrogate": sur,
        "surrogate_warning": "; ".join(
            ([f"the quadratic surface misses the simulated shares (lack of fit deviance "
              f"{lof['deviance']:.1f} on {lof['df']} df, p {lof['p']:.3g}): its estimate and "
              "intervals are approximate; fit fewer parameters or narrow their ranges"]
             if sur and sur["lack_of_fit_bad"] else [])
            + ([f"after {sur['design_points'] // max(1, sur['design_size'])} designs the "
                "estimate still lies on the edge of the last "
                "one: the minimum may lie beyond it"] if sur and not sur["converged"] else [])
            + ([f"the estimate of design(s) {', '.join(map(str, sur['estimate_unsettled']))} "
                "kept moving with the surfaces' uncertainty held at it (two minima?)"]
               if sur and sur.get("estimate_unsettled") else [])
        ) or None,
        "noise_warning": (None if res.noise_sd is None or res.noise_sd <= 1.0 else
                          f"the objective's noise (sd {res.noise_sd:.1f} X^2 units) exceeds the "
                          "1 unit that defines a 1-sigma interval: the curvature intervals are "
                          "not reliable; more --throws lower the noise"),
        "fit": {"chi2": res.chi2, "df": res.df, "p": res.p, "alpha": alpha,
                "bad_fit": res.p < alpha, "objects": [o.name for o in fitted],
                # p from F(df, phi_df) of X^2 / df where the dispersion is estimated
                "phi_df": phi_df(fitted)},
        "held_out": [o.name for o in held],
        "inside_rule": "the measured and simulated 95% Wilson intervals overlap; where the "
                       "source gives no N, the measured proportion lies inside the simulated "
                       "interval",
        "summary": summary,
        "points": rows,
        "evaluations": res.evaluations,
        "settings": {"throws": throws, "workers": workers, "seed": seed,
                     "report_seed": seed + 1},
        "timing": {"seconds": seconds, "fit_seconds": fit_seconds, "throws_simulated": thrown,
                   "evaluations": evaluations,
                   "throws_per_s": thrown / seconds if seconds > 0 else 0.0},
        "date": _dt.date.today().isoformat(),
    }


# -- outputs ------------------------------------------------------------------------------


def write_outputs(report: dict[str, Any], out: str | Path, ds: Dataset, die_m: Material,
                  surf_m: Material) -> list[Path]:
    """report.json, report.md, calibration.png and materials.yaml in `out`, each written to
    a temporary file in `out` and renamed over the old one (never half-written)."""
    out = ensure_dir(out, "--out")
    paths = [out / "report.json", out / "report.md", out / "materials.yaml", out / "calibration.png"]
    mats = materials_yaml(report, ds, die_m, surf_m)
    report["materials_file"] = {"path": str(paths[2]), **mats["names"]}
    png = _plot_png(report)  # everything is made before the first file is replaced
    write_bytes(paths[0], (json.dumps(report, indent=2) + "\n").encode(), "--out")
    write_bytes(paths[1], render_markdown(report).encode(), "--out")
    write_bytes(paths[2], mats["text"].encode(), "--out")
    write_bytes(paths[3], png, "--out")
    return paths


def materials_yaml(report: dict[str, Any], ds: Dataset, die_m: Material,
                   surf_m: Material) -> dict[str, Any]:
    """A material file (the format of dice_models/materials.yaml): the die and surface
    materials under new names, and their fitted pair."""
    die_name, surf_name = f"{die_m.name}-cal", f"{surf_m.name}-cal"
    if die_name == surf_name:
        surf_name = f"{surf_m.name}-cal-surface"
    v = report["values"]
    mae = report["summary"]
    fitted_mae = mae.get("fitted", {}).get("mae")
    held_mae = mae.get("held-out", {}).get("mae")
    iv = report["interval95"]
    sig = ", ".join(f"{n} {v[n]:.4f} (95% [{iv[n][0]:.4f}, {iv[n][1]:.4f}])" if iv.get(n)
                    else f"{n} {v[n]:.4f} (interval not determined)"
                    for n in report["fitted_parameters"])
    when = f"calibrated by tabletop fairness calibrate {ds.path} on {report['date']}"
    how = "profile" if report.get("surrogate") else "curvature"
    pair_src = (f"{when}: MAE fitted {_fmt(fitted_mae)}, held-out {_fmt(held_mae)}; {sig} "
                f"({how}); fit X^2 {report['fit']['chi2']:.1f} on {report['fit']['df']} "
                f"df, p {report['fit']['p']:.3g}"
                + (f"; step check X^2 {report['step_check']['chi2']:.1f} on "
                   f"{report['step_check']['df']} df, p {report['step_check']['p']:.3g}"
                   if report.get("step_check") else "")
                + (f"; measured counts weighed as N / {_applied_phi(report):.2f} (their "
                   "scatter about a smooth trend)" if _applied_phi(report) > 1.0 else "")
                + f"; the lever arms not fitted from the {die_m.name}/{surf_m.name} pair")
    base = library().pair(die_m, surf_m)

    def entry(m: Material) -> dict[str, Any]:
        return {**{f: getattr(m, f) for f in VALUE_FIELDS},
                "source": f"{when}: the values of {m.name} (see its source there); only its "
                          f"pair with {surf_name if m is die_m else die_name} is fitted"}

    data = {"materials": {die_name: entry(die_m), surf_name: entry(surf_m)},
            "pairs": [{"a": die_name, "b": surf_name, "friction": round(v["friction"], 6),
                       "restitution": round(v["restitution"], 6),
                       "rolling_friction": base.rolling_friction,
                       "spinning_friction": round(v["spinning_friction"], 8),
                       "source": pair_src}]}
    head = (f"# Written by tabletop fairness calibrate from {ds.path} on {report['date']}.\n"
            f"# Name these materials with {{file: THIS_FILE, preset: {die_name}}} (a die's material)\n"
            f"# and {{file: THIS_FILE, preset: {surf_name}}} (a table's surface).\n")
    text = head + yaml.safe_dump(data, sort_keys=False, width=100)
    return {"text": text, "names": {"die": die_name, "surface": surf_name}}


__all__ = ["PARAMETERS", "DataObject", "Dataset", "FitResult", "SimCounts", "Simulator",
           "calibrate", "chi_square", "fit", "load_dataset", "materials_yaml", "parse_dataset",
           "render_markdown", "render_summary", "simulate", "split", "write_outputs"]
