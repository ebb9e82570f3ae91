"""`tabletop bench`: physics regression benchmarks against a recorded baseline.

    tabletop bench run [--suite smoke|full] [--baseline FILE] [--json FILE] [--markdown FILE]
                       [--set KEY=VALUE ...] [--only GROUP,...]
    tabletop bench baseline --out FILE [--suite smoke|full] [--markdown FILE] [--set KEY=VALUE ...]

`run` exits 0 when every check passes, 1 when any regresses, 2 on a bad baseline or option.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from simulator.bench.names import GROUPS, SUITE_NAMES


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="physics regression benchmarks against a baseline",
                              description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="bench_command", metavar="ACTION")
    sub.required = True

    r = sub.add_parser("run", help="run a suite and compare it with a baseline")
    _common(r)
    r.add_argument("--baseline", type=Path, metavar="FILE",
                   help="baseline JSON (default: benchmarks/baselines/<suite>.json)")
    r.add_argument("--json", type=Path, metavar="FILE", help="write the run's record as JSON")
    r.add_argument("--markdown", type=Path, metavar="FILE",
                   help="write a Markdown report, with PNG plots beside it")
    r.add_argument("--only", metavar="GROUP,...",
                   help=f"run only these check groups ({', '.join(GROUPS)})")
    r.set_defaults(func=run)

    b = sub.add_parser("baseline", help="run a suite and record its results as a new baseline")
    _common(b)
    b.add_argument("--out", type=Path, metavar="FILE", required=True,
                   help="where to write the baseline, e.g. benchmarks/baselines/smoke.json")
    b.add_argument("--markdown", type=Path, metavar="FILE",
                   help="also write a Markdown report of the recorded run, with plots")
    b.set_defaults(func=record)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default="smoke", choices=sorted(SUITE_NAMES),
                   help="smoke: the CI suite, under 2 minutes; full: after changing the physics")
    p.add_argument("--engine", default="pybullet",
                   help="physics engine, pybullet or mujoco (default pybullet; the baselines are "
                        "PyBullet's: on mujoco the golden checks compare statistically)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="change a physics setting for this run, e.g. friction=0.3, "
                        "felt.restitution=0.1, time_step=1/480, solver_iterations=100")


def run(args: argparse.Namespace) -> int:
    from simulator.bench.baseline import default_baseline, run_suite, write_json
    from simulator.bench.report import text_table, write_markdown
    from simulator.cli.main import UsageError

    groups = _groups(args.only, UsageError)
    baseline = args.baseline if args.baseline is not None else default_baseline(args.suite)
    record_, _checks = run_suite(args.suite, args.overrides, groups, baseline, _engine(args))
    print(text_table(record_))
    if args.json is not None:
        write_json(record_, args.json)
        print(f"wrote {args.json}")
    if args.markdown is not None:
        written = write_markdown(record_, args.markdown)
        print("wrote " + ", ".join(str(p) for p in written))
    return 0 if record_["passed"] else 1


def record(args: argparse.Namespace) -> int:
    from simulator.bench.baseline import run_suite, write_json
    from simulator.bench.report import text_table, write_markdown

    record_, _checks = run_suite(args.suite, args.overrides, None, None, _engine(args))
    write_json(record_, args.out)
    print(text_table(record_))
    print(f"wrote baseline {args.out}")
    if args.markdown is not None:
        print("wrote " + ", ".join(str(p) for p in write_markdown(record_, args.markdown)))
    if not record_["passed"]:
        print("warning: some checks that need no baseline failed; the baseline records them "
              "as they are", file=sys.stderr)
        return 1
    return 0


def _groups(only: str | None, error: type[Exception]) -> list[str] | None:
    if only is None:
        return None
    chosen = [g.strip() for g in only.split(",") if g.strip()]
    for g in chosen:
        if g not in GROUPS:
            close = difflib.get_close_matches(g, GROUPS, n=1)
            hint = f"; did you mean {close[0]}?" if close else f"; groups: {', '.join(GROUPS)}"
            raise error(f"--only: unknown check group {g!r}{hint}")
    if not chosen:
        raise error("--only: name at least one check group")
    return chosen


def _engine(args: argparse.Namespace) -> str:
    from simulator.physics.engines import check_engine

    return check_engine(args.engine)
