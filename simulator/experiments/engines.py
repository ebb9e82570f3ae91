"""Where the engines agree: run a series of fairness experiments on each physics engine and
set their conclusions side by side (issue 20, docs/engines.md).

A series is YAML: the experiments (paths relative to the series file), the engines and the
throws per experiment and engine. Each experiment runs on each engine into its own store,
DIR/<experiment>/<engine>/ (the engine is part of the fingerprint, so the stores never mix
and each resumes on its own). For each experiment the report gives, per engine, the verdict
(biased or not at the experiment's alpha), the most likely face with its interval, and
between the engines: the homogeneity test of the face counts (how much) and whether the
conclusions agree: the same verdict (fair or biased), and which faces: no face significantly
above 1/k on one engine and below it on the other, each engine's most likely face not below
1/k on the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dice_models import DataError
from dice_models.files import read_yaml
from dice_models.materials import check_fields
from simulator.experiments.config import Experiment, load_experiment
from simulator.experiments.dispatch import run_experiment
from simulator.experiments.report import build_report, compare

SERIES_FIELDS = ("name", "description", "experiments", "engines", "throws")


@dataclass(frozen=True)
class EngineSeries:
    name: str
    source: str
    experiments: tuple[Experiment, ...]
    engines: tuple[str, ...]
    throws: int | None  # per experiment and engine; None: each experiment's own count
    description: str = ""


def load_series(path: str | Path) -> EngineSeries:
    """The series at `path`; one DataError line naming the file and field when it is wrong."""
    from simulator.physics.engines import check_engine

    path = Path(path)
    source = str(path)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping of series fields", show_value=False)
    check_fields(data, SERIES_FIELDS, source, "")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise DataError(source, "name", "must be a non-empty string", name)
    files = data.get("experiments")
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        raise DataError(source, "experiments", "must be a list of experiment YAML paths", files)
    experiments = tuple(load_experiment(path.parent / f) for f in files)
    names = [e.name for e in experiments]
    if len(set(names)) != len(names):
        raise DataError(source, "experiments", "name each experiment once (their names name "
                        "the result folders)", names)
    engines = data.get("engines", ["pybullet", "mujoco"])
    if not isinstance(engines, list) or len(engines) < 2 or len(set(engines)) != len(engines):
        raise DataError(source, "engines", "must list two or more different engines", engines)
    for e in engines:
        check_engine(str(e), f"{source}: engines")
    throws = data.get("throws")
    if throws is not None and (isinstance(throws, bool) or not isinstance(throws, int) or throws < 1):
        raise DataError(source, "throws", "must be a whole number of at least 1", throws)
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise DataError(source, "description", "must be a string", desc)
    return EngineSeries(name, source, experiments, tuple(str(e) for e in engines), throws,
                        desc.strip())


def run_series(series: EngineSeries, out: str | Path, throws: int | None = None, workers: int = 1,
               progress: bool = False) -> dict[str, Any]:
    """Run (or resume) every experiment of the series on every engine into `out`; the
    comparison of their conclusions."""
    out = Path(out)
    count = throws if throws is not None else series.throws
    timing: dict[str, dict[str, float]] = {}
    for exp in series.experiments:
        for engine in series.engines:
            on = exp.with_(physics=exp.physics.with_(engine=engine))
            summary = run_experiment(on, out / exp.name / engine, throws=count, workers=workers,
                                     progress=progress)
            if summary.ran:
                timing.setdefault(exp.name, {})[engine] = summary.throws_per_s
    rows = [agreement([out / exp.name / e for e in series.engines], series.engines)
            for exp in series.experiments]
    for row in rows:
        row["throws_per_s"] = timing.get(row["experiment"], {})
    return {"series": series.name, "source": series.source, "engines": list(series.engines),
            "workers": workers, "experiments": rows}


def agreement(dirs: list[Path], engines: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """One experiment's conclusions on each engine (stores `dirs`, in the order of
    `engines`) and whether they agree, the first engine against each other one."""
    sides = []
    for engine, d in zip(engines, dirs, strict=True):
        rep = build_report(d)
        n = rep["on_table"]
        top = max(rep["faces"], key=lambda f: (f["count"], -f["face"]))
        sides.append({
            "engine": engine, "dir": str(d), "throws": rep["throws"], "on_table": n,
            "on_table_share": rep["outcomes"]["on_table"],
            "fell_off_share": rep["outcomes"]["off_table_fell_off"],
            "verdict": rep["verdict"], "chi2_p": rep["chi2_p"],
            "top_face": top["face"], "top_p": top["p_hat"],
            "top_ci": [top["ci_low"], top["ci_high"]],
            "faces_above_fair": [f["face"] for f in rep["faces"] if f["ci_low"] > rep["fair_p"]],
            "faces_below_fair": [f["face"] for f in rep["faces"] if f["ci_high"] < rep["fair_p"]],
            "counts": rep["counts"], "alpha": rep["alpha"],
        })
    first = sides[0]
    pairs = []
    for other in sides[1:]:
        homo = compare(first["dir"], other["dir"], first["alpha"])
        same_verdict = first["verdict"] == other["verdict"]
        # Which faces: no face above 1/k on one engine and below it on the other, and each
        # engine's most likely face not below 1/k on the other. (Not "the same most likely
        # face": a cuboid's opposite faces are equally likely, and which of the two counts
        # a few more is noise.)
        contradicting = sorted((set(first["faces_above_fair"]) & set(other["faces_below_fair"]))
                               | (set(first["faces_below_fair"]) & set(other["faces_above_fair"])))
        tops_hold = (first["top_face"] not in other["faces_below_fair"]
                     and other["top_face"] not in first["faces_below_fair"])
        overlap = (first["top_ci"][0] <= other["top_ci"][1]
                   and other["top_ci"][0] <= first["top_ci"][1])
        agree = same_verdict and not contradicting and tops_hold
        pairs.append({"engines": [first["engine"], other["engine"]],
                      "homogeneity_p": homo["p"], "distributions": homo["verdict"],
                      "same_verdict": same_verdict,
                      "same_top_face": first["top_face"] == other["top_face"],
                      "contradicting_faces": contradicting, "top_faces_hold": tops_hold,
                      "top_intervals_overlap": overlap, "conclusions_agree": agree})
    name = Path(dirs[0]).parent.name
    return {"experiment": name, "sides": sides, "pairs": pairs}


def render_markdown(report: dict[str, Any]) -> str:
    """The comparison as a Markdown table (docs/engines.md quotes it)."""
    engines = report["engines"]
    lines = [f"Series `{report['series']}` ({report['source']}); engines {', '.join(engines)}; "
             f"intervals: Wilson, family-wise over the faces at each experiment's alpha.", "",
             "| experiment | engine | throws | on table | verdict (chi-square p) | most likely face, "
             "p [interval] | faces above / below 1/k | engines' counts differ (p) | conclusions agree |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in report["experiments"]:
        for i, s in enumerate(row["sides"]):
            p = "-" if s["chi2_p"] is None else f"{s['chi2_p']:.3g}"
            top = ("-" if s["top_p"] is None else
                   f"{s['top_face']}: {s['top_p']:.3f} [{s['top_ci'][0]:.3f}, {s['top_ci'][1]:.3f}]")
            outside = (f"{', '.join(map(str, s['faces_above_fair'])) or 'none'} / "
                       f"{', '.join(map(str, s['faces_below_fair'])) or 'none'}")
            if i == 0:
                pair = row["pairs"][0]
                diff = f"{pair['distributions']} ({pair['homogeneity_p']:.3g})"
                agree = "yes" if pair["conclusions_agree"] else "**no**"
            else:
                diff = agree = ""
            lines.append(f"| {row['experiment'] if i == 0 else ''} | {s['engine']} | {s['throws']} | "
                         f"{s['on_table']} ({s['on_table_share']:.1%}) | {s['verdict']} ({p}) | "
                         f"{top} | {outside} | {diff} | {agree} |")
    return "\n".join(lines) + "\n"


def render_text(report: dict[str, Any]) -> str:
    lines = []
    for row in report["experiments"]:
        pair = row["pairs"][0]
        parts = [f"{s['engine']}: {s['verdict']}, top face {s['top_face']} "
                 f"({s['top_p'] if s['top_p'] is None else round(s['top_p'], 3)})" for s in row["sides"]]
        lines.append(f"{row['experiment']}: {'; '.join(parts)}; counts differ p = "
                     f"{pair['homogeneity_p']:.3g}; conclusions "
                     f"{'agree' if pair['conclusions_agree'] else 'DISAGREE'}")
    return "\n".join(lines)


__all__ = ["EngineSeries", "agreement", "load_series", "render_markdown", "render_text", "run_series"]
