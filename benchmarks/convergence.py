"""Do outcomes depend on the time step? The convergence group of the full bench, in parallel.

For every shipped die on every shipped surface, N random legal throws (default 2000) at the
default step, half and a quarter of it, and twice the solver iterations (the full bench's
variants: `simulator.bench.suite.convergence_variants`); a chi-square homogeneity test over
the four outcome distributions (each face, fell_off, leaning, overhang), passed when
p >= 0.01 / (number of configurations) (Bonferroni). Prints one line per configuration and
exits 1 if any fails. `tabletop bench run --suite full` runs the same check in one process.

    python -m benchmarks.convergence [--throws 2000] [--workers 2] [--only paper-d8/felt,...]
"""

from __future__ import annotations

import argparse
import time
import zlib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from dice_models import available, load_die
from simulator.bench.compare import homogeneity
from simulator.bench.measure import category
from simulator.bench.suite import convergence_variants
from simulator.physics import PhysicsError, PhysicsSettings, World
from simulator.physics.settings import SURFACES, TableSpec
from simulator.physics.throws import random_throw

ALPHA = 0.01


def run(job: tuple[str, str, float, int, int, int]) -> tuple[str, str, float, int, dict[str, int], float]:
    die, surface, dt, iters, start, stop = job
    model = load_die(die)
    table = TableSpec(surface=SURFACES[surface])
    world = World(table, PhysicsSettings(time_step=dt, solver_iterations=iters))
    counts: Counter[str] = Counter()
    t0 = time.process_time()
    for i in range(start, stop):
        # Independent samples per variant (seeded by the variant too), as the bench does.
        rng = np.random.default_rng([zlib.crc32(f"{die}/{surface}".encode()), round(1 / dt), iters, i])
        try:
            counts[category(world.throw("d", model, random_throw(table, 1, rng)).outcome)] += 1
        except PhysicsError as exc:
            counts[f"error:{type(exc).__name__}"] += 1
        finally:
            world.scene.clear()
    world.close()
    return die, surface, dt, iters, dict(counts), time.process_time() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated die/surface configurations")
    a = ap.parse_args()
    configs = [(d, s) for d in available() for s in SURFACES]
    if a.only:
        wanted = set(a.only.split(","))
        configs = [c for c in configs if f"{c[0]}/{c[1]}" in wanted]
    variants = convergence_variants(PhysicsSettings())
    chunk = 250
    jobs = [(d, s, dt, it, lo, min(lo + chunk, a.throws))
            for d, s in configs for dt, it in variants for lo in range(0, a.throws, chunk)]
    results: dict[tuple[str, str], dict[tuple[float, int], Counter[str]]] = {}
    cpu = 0.0
    with ProcessPoolExecutor(max(1, a.workers)) as pool:
        for die, surface, dt, it, counts, sec in pool.map(run, jobs):
            results.setdefault((die, surface), {}).setdefault((dt, it), Counter()).update(counts)
            cpu += sec
    floor = ALPHA / len(configs)
    failed = 0
    print(f"{len(configs)} configurations x {len(variants)} variants x {a.throws} throws; "
          f"pass: p >= {floor:.2g} (alpha {ALPHA}, Bonferroni); {cpu:.0f} s of CPU")
    for (die, surface), runs in results.items():
        samples = [dict(runs[v]) for v in variants]
        p = homogeneity(samples)
        ok = p >= floor
        failed += not ok
        fell = " / ".join(f"{s.get('fell_off', 0) / a.throws:.3f}" for s in samples)
        errors = sum(n for s in samples for k, n in s.items() if k.startswith("error"))
        print(f"{'pass' if ok else 'FAIL'} {die}/{surface}: p = {p:.3g}; fell off {fell}; "
              f"errors {errors}")
    print(f"{len(configs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
