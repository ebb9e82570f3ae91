"""The cost of machine-independent arithmetic (dice_models.numerics) on the geometry's hot
paths: the sweep of a Deep White Sea tip against its neighbours (`tip_clearance`, thousands
of `signed_distance` calls a decision), reading a resting die (`face_up`, `rest_yaw`) and a
die's mass properties, against the same functions of an older commit's
`dice_models/geometry.py` (numpy's `@`, `np.linalg` and `np.einsum`, which follow the CPU's
SIMD and BLAS kernels), loaded from git and timed in the same run, interleaved in rounds.
Prints the seconds of each and the ratio new / old (1.0: no cost).

    python -m benchmarks.bench_numerics [--old 9135fc1] [--rounds 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dice_models.geometry as new

REPO = Path(__file__).resolve().parent.parent


def old_geometry(commit: str) -> types.ModuleType:
    src = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:dice_models/geometry.py"],
                         check=True, capture_output=True, text=True).stdout
    mod = types.ModuleType("old_geometry")
    sys.modules["old_geometry"] = mod  # dataclasses look their module up
    exec(compile(src, "old_geometry.py", "exec"), mod.__dict__)
    return mod


def workloads(g: Any) -> dict[str, Callable[[], Any]]:
    poly = g.octahedron(0.05)
    rng = np.random.default_rng(5)
    rests = [(int(rng.integers(8)), float(rng.uniform(0, 360)),
              np.array([rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), float(poly.face_offsets[0])]))
             for _ in range(12)]
    solids = [g.Solid.at(poly, poly.rest_rotation(f, y), c) for f, y, c in rests]
    icosa = g.icosahedron(0.02)

    def sweep() -> None:
        for f, y, c in rests[:4]:
            g.tip_clearance(poly, poly.rest_rotation(f, y), c, "x", solids[4:], 1e-5)

    def read() -> None:
        for f, y, _c in rests:
            rot = poly.rest_rotation(f, y)
            bottom, _ = poly.face_down(rot)
            g.rest_yaw(poly, rot, bottom)

    def mass() -> None:
        for _ in range(20):
            icosa.mass_properties(0.01, "solid")
            icosa.mass_properties(0.01, "shell")

    return {"tip sweep": sweep, "read a rest": read, "mass properties": mass}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_numerics")
    ap.add_argument("--old", default="9135fc1", help="commit whose geometry is the reference")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    sides = {"new": workloads(new), "old": workloads(old_geometry(args.old))}
    cpu = {(side, name): 0.0 for side in sides for name in sides[side]}
    for r in range(args.rounds):
        for side in (("new", "old") if r % 2 == 0 else ("old", "new")):
            for name, work in sides[side].items():
                t0 = time.process_time()
                work()
                cpu[side, name] += time.process_time() - t0
    print(f"{args.rounds} rounds, process CPU time; old = dice_models/geometry.py of {args.old}")
    for name in sides["new"]:
        a, b = cpu["new", name], cpu["old", name]
        print(f"{name:16s} new {a:7.3f} s   old {b:7.3f} s   new / old {a / b:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
