"""Placing N dice one after another (a scene file, a game set up): seconds per die for
N = 100, 300 and 1000 paper d8s, each against the time per die for N = 100 measured in
the same run. Placing is linear when the ratios stay near 1 (before issue 15, item 18, a
placement rebuilt the world with every die and checked every other die: 1000 dice took
215 s). The reference path, the world rebuilt around every placement (`keep_table = False`,
what the results are tested against bit for bit), is timed at N = 100 beside it.

Dice go on a square grid 70 mm apart (clear of each other, each near its neighbours'
bounding spheres), every tenth tried on top of the one before and refused.

    python -m benchmarks.bench_place [--sizes 100 300 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from dice_models import load_die
from simulator.physics import PlacementError, TableSpec, World

SPACING = 0.07  # m


def place_all(n: int, keep_table: bool = True) -> tuple[float, int]:
    """Seconds to place n dice (and the refused tries among them) in a fresh world; the
    number of dice placed."""
    side = math.ceil(math.sqrt(n))
    half = side * SPACING / 2 + 0.1
    world = World(TableSpec(width=2 * half, depth=2 * half))
    world.keep_table = keep_table
    d8 = load_die("paper-d8")
    start = time.perf_counter()
    for i in range(n):
        xy = (-half + 0.1 + SPACING * (i % side), -half + 0.1 + SPACING * (i // side))
        world.place(f"d{i}", d8, 1 + i % 8, 7.0 * i, xy)
        if i % 10 == 9:
            try:
                world.place(f"x{i}", d8, 1, 0.0, (xy[0] + 0.01, xy[1]))
            except PlacementError:
                pass
            else:
                raise AssertionError("a die on top of another was placed")
    seconds = time.perf_counter() - start
    placed = len(world.scene)
    world.close()
    return seconds, placed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per size")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip timing the rebuild-every-placement path")
    args = ap.parse_args()
    if any(n < 1 for n in args.sizes) or args.repeat < 1:
        print("bench_place: --sizes and --repeat must be at least 1", file=sys.stderr)
        return 2
    sizes = sorted(set(args.sizes))
    per_die = {}
    for n in sizes:
        best = min(place_all(n)[0] for _ in range(args.repeat))
        per_die[n] = best / n
    base = sizes[0]
    print(f"placing paper d8s {SPACING * 1000:.0f} mm apart, best of {args.repeat}; "
          f"ratio = time per die / time per die at N = {base} (1.0 = linear)")
    for n in sizes:
        print(f"  N = {n:5d}: {per_die[n] * 1e3:7.3f} ms per die, {per_die[n] * n:7.3f} s in all, "
              f"ratio {per_die[n] / per_die[base]:5.2f}")
    if not args.no_reference:
        ref = place_all(base, keep_table=False)[0] / base
        print(f"  reference, world rebuilt around every placement, N = {base}: "
              f"{ref * 1e3:.3f} ms per die ({ref / per_die[base]:.1f} x the time per die above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
