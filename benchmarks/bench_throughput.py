"""Throughput of `simulator.physics.World.throw` against a bare PyBullet loop (same die,
table, settings and settle rule), measured in the same run, interleaved in rounds so
machine noise hits both alike. Prints throws per second of each and their ratio
(target: ratio >= 0.95), and checks both loops saw the same faces.

    python benchmarks/bench_throughput.py [--throws 400] [--die paper-d8] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bare_pybullet import BareLoop  # noqa: E402
from dice_models import load_die  # noqa: E402
from simulator.physics import PhysicsSettings, TableSpec, World, die_shape  # noqa: E402
from simulator.physics.throws import random_throw  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--die", default="paper-d8")
    args = ap.parse_args()
    model = load_die(args.die)
    table, settings = TableSpec(), PhysicsSettings()
    throws = [random_throw(table, 1, np.random.default_rng([11, i])) for i in range(args.throws)]
    world = World(table, settings)
    bare = BareLoop(die_shape(model), table, settings)
    t_ours = t_bare = 0.0
    faces_ours: list[int] = []
    faces_bare: list[int] = []
    per_round = max(1, args.throws // args.rounds)
    for start in range(0, args.throws, per_round):
        chunk = throws[start:start + per_round]
        t0 = time.perf_counter()
        for th in chunk:
            f, _steps = bare.throw(th)
            faces_bare.append(f)
        t1 = time.perf_counter()
        for th in chunk:
            r = world.throw("die", model, th)
            world.scene.clear()
            faces_ours.append(r.outcome.face if r.outcome.reason != "fell_off" else -1)
        t2 = time.perf_counter()
        t_bare += t1 - t0
        t_ours += t2 - t1
    n = len(throws)
    agree = sum(a == b for a, b in zip(faces_ours, faces_bare, strict=True)) / n
    print(f"die {args.die}, {n} throws, felt table 1.2 x 0.9 m, dt {settings.time_step:.6f} s, "
          f"{settings.solver_iterations} iterations")
    print(f"bare PyBullet loop : {n / t_bare:8.1f} throws/s")
    print(f"simulator.World    : {n / t_ours:8.1f} throws/s")
    print(f"ratio              : {t_bare / t_ours:8.3f}  (target >= 0.95)")
    print(f"same face in both  : {agree:8.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
