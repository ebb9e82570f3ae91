"""`tabletop fairness`: the throw-fairness lab.

    tabletop fairness run benchmarks/experiments/fair-paper-d8.yaml --out runs/fair --workers 2
    tabletop fairness run EXP.yaml --out DIR --backend ray --ray-address HOST:6379
    tabletop fairness run EXP.yaml --out DIR --stop sprt --p1 0.2 --face 6
    tabletop fairness report DIR [--json]
    tabletop fairness compare DIR_A DIR_B
    tabletop fairness series DIR... --png series.png
    tabletop fairness calibrate dice_models/datasets/budden_square_cuboids.yaml --out DIR
        [--validate dice_models/datasets/dicephysics_cylinders_glass.yaml] [--workers 2]

A run interrupted at any moment resumes when given the same command again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from simulator.cli.args import seed
from simulator.cli.main import UsageError

if TYPE_CHECKING:
    from simulator.experiments.datasets import Dataset


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("fairness", help="throw-fairness experiments: run, report, compare")
    sub = p.add_subparsers(dest="fairness_command", metavar="ACTION")
    sub.required = True
    _add_run(sub)
    _add_report_compare_series(sub)
    _add_engines(sub)
    _add_calibrate(sub)


def _add_run(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run", help="run (or resume) an experiment into a results directory")
    r.add_argument("config", help="experiment YAML (see benchmarks/experiments/)")
    r.add_argument("--out", required=True, help="results directory (SQLite inside)")
    r.add_argument("--throws", type=int, default=None, help="number of throws (default: the config's)")
    r.add_argument("--workers", type=int, default=1, help="parallel workers (default 1)")
    r.add_argument("--backend", choices=("local", "ray", "gpu", "warp-cpu"), default="local",
                   help="local processes, a Ray cluster, or MuJoCo Warp's batched throws on a "
                        "GPU (gpu) or on the CPU (warp-cpu, slow: for checks)")
    r.add_argument("--batch", type=int, default=None,
                   help="gpu / warp-cpu: throws simulated at once (default 8192 / 32)")
    r.add_argument("--ray-address", default=None,
                   help="Ray cluster address (HOST:PORT or 'auto'); default: start a local one")
    r.add_argument("--stop", choices=("sprt",), default=None,
                   help="stop when a sequential test decides (Wald's SPRT on one face)")
    r.add_argument("--p1", type=float, default=None, help="SPRT: the face's probability under H1")
    r.add_argument("--face", type=int, default=None, help="SPRT: the face tested (default: the "
                   "config's stop face, else the first face)")
    r.add_argument("--sprt-alpha", type=float, default=None, help="SPRT false-alarm rate (0.01)")
    r.add_argument("--sprt-beta", type=float, default=None, help="SPRT miss rate (0.05)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--engine", default=None,
                   help="physics engine, pybullet or mujoco (default pybullet; mujoco needs the "
                        "engines extra); "
                        "recorded in the store's fingerprint, so engines never mix in one store")
    r.set_defaults(func=run_cmd)


def _add_report_compare_series(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser("report", help="statistics, verdict and plots of a results directory")
    rep.add_argument("dir")
    rep.add_argument("--json", action="store_true", help="print the report as JSON")
    rep.add_argument("--alpha", type=float, default=None, help="significance level (default: "
                     "the experiment's)")
    rep.add_argument("--shift", type=float, default=None,
                     help="face-probability shift for the power analysis (default 1/(4k))")
    rep.add_argument("--plots", default=None, help="directory for PNG plots (default DIR/plots)")
    rep.add_argument("--no-plots", action="store_true")
    rep.set_defaults(func=report_cmd)

    c = sub.add_parser("compare", help="homogeneity test between two experiments")
    c.add_argument("dir_a")
    c.add_argument("dir_b")
    c.add_argument("--alpha", type=float, default=0.01)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=compare_cmd)

    s = sub.add_parser("series", help="plot bias against the series parameter of several runs")
    s.add_argument("dirs", nargs="+")
    s.add_argument("--png", required=True, help="output PNG")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=series_cmd)


def _add_engines(sub: argparse._SubParsersAction) -> None:
    eng = sub.add_parser("engines", help="run a series of experiments on each physics engine and "
                         "report where their conclusions agree (docs/engines.md)")
    eng.add_argument("series", help="series YAML (benchmarks/experiments/series/engines.yaml)")
    eng.add_argument("--out", required=True, help="results directory: DIR/<experiment>/<engine>/")
    eng.add_argument("--throws", type=int, default=None,
                     help="throws per experiment and engine (default: the series')")
    eng.add_argument("--workers", type=int, default=1, help="parallel workers (default 1)")
    eng.add_argument("--markdown", type=Path, default=None, help="write the comparison table here")
    eng.add_argument("--json", action="store_true", help="print the comparison as JSON")
    eng.add_argument("--progress", action="store_true", help="progress bars on stderr")
    eng.set_defaults(func=engines_cmd)


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    cal = sub.add_parser("calibrate", help="fit a die/surface pair's friction and restitution "
                         "and the throw scale to measured outcome counts (docs/calibration.md)")
    cal.add_argument("dataset", help="dataset YAML (see dice_models/datasets/)")
    cal.add_argument("--out", required=True, help="output directory: report.json, report.md, "
                     "calibration.png, materials.yaml")
    cal.add_argument("--throws", type=int, default=300,
                     help="throws per object per evaluation (default 300)")
    cal.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    cal.add_argument("--fit", default="friction,restitution,throw_scale",
                     help="comma-separated parameters to fit (default: all three; '' fits none)")
    cal.add_argument("--at", default="", metavar="NAME=VALUE[,NAME=VALUE...]",
                     help="hold parameters not fitted at these values instead of the pair's data "
                     "and a throw scale of 1 (with --fit '': the report of a calibration "
                     "already made), e.g. friction=0.4324,restitution=0.5958,throw_scale=1.6512")
    cal.add_argument("--holdout", default=None, help="comma-separated object names to hold out "
                     "('' holds none; default: every second object)")
    cal.add_argument("--validate", action="append", default=[], metavar="DATASET",
                     help="a dataset kept out of the fit, reported at the fitted values (repeatable)")
    cal.add_argument("--method", default="surrogate", choices=("surrogate", "search"),
                     help="surrogate (default): a smooth surface per object through designs "
                     "of --design points, profile intervals; search: grid and Nelder-Mead on the "
                     "noisy X^2 (--grid, --refine), curvature intervals")
    cal.add_argument("--design", type=int, default=24,
                     help="points per design of the surrogate method (default 24)")
    cal.add_argument("--stages", type=int, default=4,
                     help="the surrogate's designs at most: the first over the ranges, the others "
                     "around the estimate until it lies inside one (default 4)")
    cal.add_argument("--grid", type=int, default=3, help="grid points per parameter (default 3)")
    cal.add_argument("--refine", type=int, default=24,
                     help="at most this many Nelder-Mead evaluations after the grid (default 24)")
    cal.add_argument("--seed", type=seed, default=0, help="throw seed of the fit (the report uses "
                     "seed + 1)")
    cal.add_argument("--alpha", type=float, default=0.01,
                     help="the fit is flagged bad (exit status 1) when its X^2 p-value is below this")
    cal.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    cal.add_argument("--engine", default="pybullet",
                     help="physics engine of the fit, pybullet or mujoco (default pybullet)")
    cal.add_argument("--binomial", action="store_true",
                     help="take the measured counts as binomial even where the dataset's "
                     "dispersion series shows them scattering more (docs/calibration.md)")
    cal.set_defaults(func=calibrate_cmd)


def run_cmd(args: argparse.Namespace) -> int:
    from simulator.experiments import load_experiment, run_experiment
    from simulator.experiments.config import parse_stop
    from simulator.physics.engines import check_engine

    exp = load_experiment(args.config)
    if args.engine is not None:
        exp = exp.with_(physics=exp.physics.with_(engine=check_engine(args.engine)))
    if args.batch is not None and args.backend not in ("gpu", "warp-cpu"):
        raise UsageError("--batch goes with --backend gpu or warp-cpu")
    if args.stop == "sprt":
        if args.p1 is None:
            raise UsageError("--stop sprt needs --p1 (the face's probability under H1)")
        base = exp.stop.to_json() if exp.stop else {}
        raw = {"rule": "sprt", "face": args.face if args.face is not None else base.get("face"),
               "p1": args.p1,  # 0 is a value to refuse (parse_stop), not "unset"
               "alpha": base.get("alpha", 0.01) if args.sprt_alpha is None else args.sprt_alpha,
               "beta": base.get("beta", 0.05) if args.sprt_beta is None else args.sprt_beta}
        if raw["face"] is None:
            del raw["face"]
        exp = exp.with_(stop=parse_stop(raw, "--stop", exp.faces))
    elif args.p1 is not None or args.face is not None:
        raise UsageError("--p1 and --face go with --stop sprt")
    if args.throws is not None and args.throws < 1:
        raise UsageError(f"--throws must be at least 1 (got {args.throws})")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {args.workers})")
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address goes with --backend ray")
    summary = run_experiment(exp, args.out, throws=args.throws, workers=args.workers,
                             backend=args.backend, ray_address=args.ray_address,
                             progress=not args.no_progress, batch=args.batch)
    rate = f", {summary.throws_per_s:.1f} throws/s" if summary.ran else ""
    print(f"{exp.name}: {summary.stored} throws stored in {args.out} "
          f"(this run: {summary.ran} in {summary.seconds:.1f} s{rate})")
    if summary.stop is not None:
        s = summary.stop
        print(f"SPRT on face {s['face']} (p1 {s['p1']}): {s['decision']} after {s['throws']} throws "
              f"({s['on_table']} on the table)")
    elif exp.stop is not None:
        print(f"SPRT undecided after {summary.stored} throws (the --throws cap)")
    return 0


def report_cmd(args: argparse.Namespace) -> int:
    from simulator.experiments.report import build_report, render_text

    rep = build_report(args.dir, alpha=args.alpha, shift=args.shift)
    if not args.no_plots:
        from simulator.experiments.plots import write_report_plots

        paths = write_report_plots(rep, args.plots or Path(args.dir) / "plots")
        rep["plots"] = [str(p) for p in paths]
    if args.json:
        json.dump(rep, sys.stdout, indent=2)
        print()
    else:
        print(render_text(rep))
        for p in rep.get("plots", []):
            print(f"plot: {p}")
    return 0


def compare_cmd(args: argparse.Namespace) -> int:
    from simulator.experiments.report import compare, render_compare

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be strictly between 0 and 1 (got {args.alpha})")
    res = compare(args.dir_a, args.dir_b, args.alpha)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print(render_compare(res))
    return 0


def series_cmd(args: argparse.Namespace) -> int:
    from simulator.experiments.plots import series_plot
    from simulator.experiments.report import build_report

    reports = [build_report(d) for d in args.dirs]
    for d, r in zip(args.dirs, reports, strict=True):
        if not r["experiment"].get("series"):
            raise UsageError(f"{d}: the experiment has no 'series' field to plot against")
    names = {r["experiment"]["series"]["name"] for r in reports}
    if len(names) > 1:
        raise UsageError(f"the directories belong to different series: {', '.join(sorted(names))}")
    path = series_plot(reports, args.png)
    rows = [{"dir": d, "value": r["experiment"]["series"]["value"], "throws": r["throws"],
             "chi2_p": r["chi2_p"], "verdict": r["verdict"]} for d, r in zip(args.dirs, reports,
                                                                              strict=True)]
    rows.sort(key=lambda x: x["value"])
    if args.json:
        json.dump({"series": names.pop(), "points": rows, "plot": str(path)}, sys.stdout, indent=2)
        print()
    else:
        for x in rows:
            print(f"{x['value']:>8g}  {x['throws']:>7} throws  chi2 p {x['chi2_p']:.3g}  {x['verdict']}")
        print(f"plot: {path}")
    return 0


def engines_cmd(args: argparse.Namespace) -> int:
    from dice_models.outfiles import check_target, ensure_dir, write_text
    from simulator.experiments.engines import load_series, render_markdown, render_text, run_series

    if args.throws is not None and args.throws < 1:
        raise UsageError(f"--throws must be at least 1 (got {args.throws})")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {args.workers})")
    series = load_series(args.series)
    if args.markdown is not None:
        ensure_dir(args.out, "--out")  # the table may go inside it
        check_target(args.markdown, "--markdown")  # before hours of throws
    rep = run_series(series, args.out, throws=args.throws, workers=args.workers,
                     progress=args.progress)
    if args.markdown is not None:
        write_text(args.markdown, render_markdown(rep), "--markdown")
    if args.json:
        json.dump(rep, sys.stdout, indent=2)
        print()
    else:
        print(render_text(rep))
    return 0


def calibrate_cmd(args: argparse.Namespace) -> int:
    from simulator.experiments.calibrate import calibrate, load_dataset, min_design, render_summary
    from simulator.physics.engines import check_engine

    if args.throws < 10:
        raise UsageError(f"--throws must be at least 10 (got {args.throws})")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {args.workers})")
    if args.grid < 1 or args.refine < 0:
        raise UsageError("--grid must be at least 1 and --refine at least 0")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be strictly between 0 and 1 (got {args.alpha})")
    names = [n.strip() for n in args.fit.split(",") if n.strip()]
    if args.stages < 1:
        raise UsageError(f"--stages must be at least 1 (got {args.stages})")
    if args.method == "surrogate" and args.design < min_design(len(names)):
        raise UsageError(f"--design must be at least {min_design(len(names))} for {len(names)} "
                         f"fitted parameter(s): twice the coefficients of a quadratic in them "
                         f"(got {args.design})")
    holdout = (None if args.holdout is None
               else [n.strip() for n in args.holdout.split(",") if n.strip()])
    dataset = load_dataset(args.dataset)
    at = parse_at(args.at, dataset, holdout, names)
    others = [load_dataset(v) for v in args.validate]

    def log(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    rep = calibrate(dataset, args.out, throws=args.throws, workers=args.workers, fit_names=names,
                    holdout=holdout, validate=others, seed=args.seed, grid=args.grid,
                    refine=args.refine, alpha=args.alpha, log=log, engine=check_engine(args.engine),
                    method=args.method, design=args.design, stages=args.stages,
                    binomial=args.binomial, at=at)
    print(render_summary(rep))
    print(f"wrote {args.out}/report.json, report.md, calibration.png, materials.yaml "
          f"(materials {rep['materials_file']['die']} and {rep['materials_file']['surface']})")
    # 1: values no preset should take (the fit is rejected, or the outcomes at the fit
    # depend on the time step)
    return 1 if rep["fit"]["bad_fit"] or rep["step_check"]["depends_on_step"] else 0


def parse_at(text: str, dataset: Dataset, holdout: list[str] | None,
             fitted: list[str]) -> dict[str, float]:
    """`--at NAME=VALUE[,NAME=VALUE...]`: the values at which to hold parameters not fitted,
    each a parameter the fit knows (datasets.PARAMETERS, or `share.NAME` of the styles of the
    first fitted object's throw, as calibrate checks) within its search range, none fitted as
    well, none twice."""
    import math

    from simulator.experiments.calibrate import PARAMETERS, split, style_shares
    from simulator.experiments.datasets import bounds

    objs = split(dataset, holdout)[0] or dataset.objects
    known = [*PARAMETERS, *style_shares(objs[0].throw)]
    out: dict[str, float] = {}
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, eq, raw = (x.strip() for x in item.partition("="))
        if not eq or not name:
            raise UsageError(f"--at: {item!r} is not NAME=VALUE")
        if name not in known:
            raise UsageError(f"--at: {name}: unknown parameter (value {raw!r}); known: "
                             f"{', '.join(known)}")
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        lo, hi = bounds(name)
        if not lo <= value <= hi:  # nan and inf fail too
            raise UsageError(f"--at: {name}: {raw!r} is not a number in [{lo:g}, {hi:g}]")
        if name in out:
            raise UsageError(f"--at: {name}: given twice ({out[name]:g} and {raw})")
        if name in fitted:
            raise UsageError(f"--at: {name}: fitted by --fit as well; a parameter is either "
                             f"fitted or held at a value")
        out[name] = value
    return out
