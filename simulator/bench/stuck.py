"""Stuck dice: how often does a throw fail to end in a clean rest?

Throws `--throws` random legal throws (`simulator.physics.throws.random_throw`, player 1,
onto the empty 1.2 x 0.9 m rect table) of every shipped die (dice_models/dice/*.yaml) on
every shipped surface (`simulator.physics.settings.SURFACES`) with `World.throw`, and
`--throws` tray rolls of 1 to 6 d6 through `simulator.physics.tray.roll_tray`. Prints per
configuration the counts of NotSettledError, TunnelError, NonFiniteError and other
PhysicsError, of cocked rests on the empty table (reason 'leaning' with nothing to lean
on: a die balanced on an edge or a vertex), the dice that came to rest by the confinement
rule (`PhysicsSettings.confine_time`: held in a limit cycle of Bullet's contacts, not slowed
to the settle speeds; counted, not a failure), and the throws per second (one process).

Tray rows count dice: `not_settled` is dice `roll_tray` re-threw because their throw never
came to rest (it re-throws them, as a player would), `cocked` is dice re-thrown because they
came to rest cocked (against a wall or another die: expected, not an error), and the error
columns are rolls that raised (a roll gives up with a PhysicsError after
`tray.MAX_UNSETTLED` throws that never came to rest).

Exit status 1 when any count that must be 0 is not: every error column, and cocked rests on
the empty table (never in a tray, where dice lean on the walls and on each other).

    python -m benchmarks.bench_stuck [--throws 10000] [--workers 1] [--only d6/slick,tray3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass

import numpy as np

from dice_models import available, load_die
from simulator.physics.engines import make_world
from simulator.physics.settings import SURFACES, PhysicsSettings, TableSpec
from simulator.physics.throws import random_throw
from simulator.physics.tray import roll_tray
from simulator.physics.world import (
    NonFiniteError,
    NotSettledError,
    PhysicsError,
    TunnelError,
)

TRAY_SIZES = range(1, 7)
ERRORS = ("not_settled", "tunnel", "non_finite", "other_error")
MUST_BE_ZERO = (*ERRORS, "cocked_empty")
CHUNK = 100  # throws per task handed to a worker


@dataclass(frozen=True)
class Config:
    """One row: `kind` 'throw' (die on surface, onto the empty table) or 'tray' (n d6)."""

    kind: str
    die: str
    surface: str = ""
    n: int = 0

    @property
    def name(self) -> str:
        return f"{self.die}/{self.surface}" if self.kind == "throw" else f"tray{self.n}"


def all_configs() -> list[Config]:
    configs = [Config("throw", die, surface) for die in available() for surface in SURFACES]
    return configs + [Config("tray", "d6", n=n) for n in TRAY_SIZES]


def _error_key(exc: PhysicsError) -> str:
    if isinstance(exc, NotSettledError):
        return "not_settled"
    if isinstance(exc, TunnelError):
        return "tunnel"
    if isinstance(exc, NonFiniteError):
        return "non_finite"
    return "other_error"


def run_chunk(config: Config, start: int, stop: int,
              settings: PhysicsSettings | None = None) -> tuple[Config, Counter[str], float]:
    """Throws start..stop-1 of `config` (each seeded by the configuration's name and its
    index, so a chunk gives the same counts in any process); the counts and the seconds."""
    settings = settings or PhysicsSettings()
    key = zlib.crc32(config.name.encode())
    counts: Counter[str] = Counter()
    model = load_die(config.die)
    t0 = time.perf_counter()
    if config.kind == "throw":
        table = TableSpec(surface=SURFACES[config.surface], source="<bench_stuck>")
        world = make_world(table, settings)  # the settings' engine
        try:
            for i in range(start, stop):
                throw = random_throw(table, 1, np.random.default_rng([key, i]),
                                     gravity=settings.gravity)
                confined = world.confined
                try:
                    report = world.throw("die", model, throw)
                except PhysicsError as exc:
                    counts[_error_key(exc)] += 1
                    continue
                finally:
                    world.scene.clear()
                counts["confined"] += world.confined - confined
                o = report.outcome
                if o.status == "on_table":
                    counts["flat"] += 1
                elif o.reason == "leaning":  # the table is empty: nothing to lean on
                    counts["cocked_empty"] += 1
                else:
                    counts[str(o.reason)] += 1
        finally:
            world.close()
    else:
        for i in range(start, stop):
            try:
                roll = roll_tray(model, config.n, np.random.default_rng([key, i]), settings)
            except PhysicsError as exc:
                counts[_error_key(exc)] += 1
                continue
            counts["not_settled"] += roll.unsettled
            counts["cocked"] += roll.rethrows
            counts["confined"] += roll.confined
    return config, counts, time.perf_counter() - t0


def _run_task(task: tuple[Config, int, int]) -> tuple[Config, Counter[str], float]:
    return run_chunk(*task)


def run(configs: list[Config], throws: int, workers: int = 1,
        progress: bool = False) -> dict[Config, tuple[Counter[str], float]]:
    """Counts and summed seconds per configuration."""
    tasks = [(c, s, min(s + CHUNK, throws)) for c in configs for s in range(0, throws, CHUNK)]
    totals: dict[Config, tuple[Counter[str], float]] = {c: (Counter(), 0.0) for c in configs}
    done = 0

    def add(result: tuple[Config, Counter[str], float]) -> None:
        nonlocal done
        config, counts, seconds = result
        old, secs = totals[config]
        totals[config] = (old + counts, secs + seconds)
        done += 1
        if progress:
            print(f"\r{done}/{len(tasks)} chunks", end="", file=sys.stderr, flush=True)

    if workers <= 1:
        for task in tasks:
            add(_run_task(task))
    else:
        # spawn: fresh workers, each with its own Bullet client (nothing forked mid-state)
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for result in pool.imap_unordered(_run_task, tasks):
                add(result)
    if progress:
        print(file=sys.stderr)
    return totals


def failures(totals: dict[Config, tuple[Counter[str], float]]) -> list[str]:
    """'config: count key' for every count that must be 0 and is not."""
    return [f"{c.name}: {counts[k]} {k}" for c, (counts, _s) in totals.items()
            for k in MUST_BE_ZERO if counts[k]]


def report(totals: dict[Config, tuple[Counter[str], float]], throws: int) -> str:
    head = (f"{'configuration':<26} {'throws':>7} {'not_settled':>11} {'tunnel':>6} "
            f"{'non_finite':>10} {'other_err':>9} {'cocked_empty':>12} {'cocked_tray':>11} "
            f"{'confined':>8} {'throws/s':>9}  other rests")
    lines = [head, "-" * len(head)]
    for c, (counts, secs) in totals.items():
        cocked_empty = str(counts["cocked_empty"]) if c.kind == "throw" else "-"
        cocked_tray = str(counts["cocked"]) if c.kind == "tray" else "-"
        rests = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())
                          if k not in (*MUST_BE_ZERO, "cocked", "flat", "confined"))
        rate = throws / secs if secs > 0 else float("nan")
        lines.append(f"{c.name:<26} {throws:>7} {counts['not_settled']:>11} {counts['tunnel']:>6} "
                     f"{counts['non_finite']:>10} {counts['other_error']:>9} {cocked_empty:>12} "
                     f"{cocked_tray:>11} {counts['confined']:>8} {rate:>9.1f}  {rests}")
    return "\n".join(lines)


def select(configs: list[Config], only: str | None) -> list[Config]:
    if not only:
        return configs
    wanted = {w.strip() for w in only.split(",") if w.strip()}
    unknown = wanted - {c.name for c in configs}
    if unknown:
        raise ValueError(f"unknown configuration(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(c.name for c in configs)}")
    return [c for c in configs if c.name in wanted]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=10_000,
                    help="throws (tray rolls) per configuration (default 10000)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--only", default=None,
                    help="comma-separated configurations, e.g. d6/slick,tray3 (default all)")
    ap.add_argument("--progress", action="store_true", help="chunks done, on stderr")
    args = ap.parse_args(argv)
    if args.throws < 1 or args.workers < 1:
        ap.error("--throws and --workers must be at least 1")
    try:
        configs = select(all_configs(), args.only)
    except ValueError as exc:
        ap.error(str(exc))
    t0 = time.perf_counter()
    totals = run(configs, args.throws, args.workers, args.progress)
    wall = time.perf_counter() - t0
    print(report(totals, args.throws))
    total = args.throws * len(configs)
    print(f"{total} throws/rolls in {wall:.1f} s wall with {args.workers} worker(s) "
          f"({total / wall:.1f} /s overall); throws/s per row is one process's rate")
    confined = sum(counts["confined"] for counts, _s in totals.values())
    print(f"{confined} dice came to rest by the confinement rule (a limit cycle within "
          f"{PhysicsSettings().confine_m * 1000:g} mm and {PhysicsSettings().confine_deg:g} deg "
          f"for {PhysicsSettings().confine_time:g} s), not by the hold")
    bad = failures(totals)
    if bad:
        print("FAIL: counts that must be 0: " + "; ".join(bad))
        return 1
    print("OK: no NotSettledError, TunnelError, NonFiniteError or cocked rest on an empty table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
