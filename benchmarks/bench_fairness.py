"""Throughput of the fairness lab.

1. Per worker: the lab's one-worker code path (drawing each throw from its seed,
   simulating it with World, committing chunks to SQLite) against the bare PyBullet loop
   of the physics benchmark and against World.throw alone on the same throws, interleaved
   in rounds in the same run so machine noise hits all alike. Targets: lab / bare >= 0.9;
   lab / World >= 0.95 (issue 13: the lab adds at most 5% to the physics).
2. Scaling: the same experiment with 1 and with 2 local workers, alternated. Target on a
   2-core machine: speed-up >= 1.8 (only reachable when both cores are free: the load
   average is printed alongside).

    python -m benchmarks.bench_fairness [--config benchmarks/experiments/fair-paper-d8.yaml]
        [--throws 1200] [--rounds 12] [--scale-throws 2000] [--repeats 2]

The scaling runs default to 2000 throws: a run pays once for forking its workers and at
its end for the last chunk, on which only one worker is busy; a short run charges these
to the speed-up and the figure then says more about the run's length than the lab.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bare_pybullet import BareLoop
from simulator.experiments import Store, load_experiment, run_experiment
from simulator.experiments.config import draw_throw
from simulator.experiments.dispatch import ThrowSimulator
from simulator.physics import World, die_shape

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(HERE / "experiments" / "fair-paper-d8.yaml"))
    ap.add_argument("--throws", type=int, default=1200, help="throws per loop, part 1")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--scale-throws", type=int, default=2000, help="throws per run, part 2")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    exp = load_experiment(args.config)
    print(f"experiment {exp.name}: die {exp.die.name}, surface {exp.table.surface.name}, "
          f"dt {exp.physics.time_step:.6f} s, {exp.physics.solver_iterations} iterations, "
          f"chunk {exp.chunk_size}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    per_worker(exp, args.throws, args.rounds)
    scaling(exp, args.scale_throws, args.repeats)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


def per_worker(exp, n: int, rounds: int) -> None:
    """The lab's own code path of a one-worker run (ThrowSimulator chunks committed to the
    Store), its one-off setup (store, Bullet client) counted once as in a real run."""
    bare = BareLoop(die_shape(exp.die), exp.table, exp.physics)
    per_round = max(1, n // rounds)
    faces_bare: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        t0, p0 = time.perf_counter(), time.process_time()
        store = Store.create_or_open(Path(tmp) / "lab", exp)
        sim = ThrowSimulator(exp)
        t_lab, c_lab = time.perf_counter() - t0, time.process_time() - p0
        t_bare = c_bare = t_world = c_world = 0.0
        round_ratios: list[float] = []  # bare / lab CPU time, per round
        world_ratios: list[float] = []  # World / lab CPU time, per round
        world = World(exp.table, exp.physics)  # World.throw alone, for where the gap lies
        # Each round runs the three loops in a different order: whichever runs first after
        # another loop pays for cold caches, and a fixed order would charge one loop always.
        orders = list(itertools.permutations(("bare", "lab", "world")))
        for r, start in enumerate(range(0, n, per_round)):
            stop = min(n, start + per_round)
            throws = [draw_throw(exp, i).throw for i in range(start, stop)]
            for which in orders[r % len(orders)]:
                t0, p0 = time.perf_counter(), time.process_time()
                if which == "bare":
                    for th in throws:
                        faces_bare.append(bare.throw(th)[0])
                elif which == "lab":
                    for c in range(start, stop, exp.chunk_size):
                        store.add_chunk(sim.run(list(range(c, min(stop, c + exp.chunk_size)))))
                else:
                    for th in throws:
                        world.throw("die", exp.die, th)
                        world.scene.clear()
                dt, dc = time.perf_counter() - t0, time.process_time() - p0
                if which == "bare":
                    t_bare, c_bare = t_bare + dt, c_bare + dc
                    round_bare = dc
                elif which == "lab":
                    t_lab, c_lab = t_lab + dt, c_lab + dc
                    round_lab = dc
                else:
                    t_world, c_world = t_world + dt, c_world + dc
                    round_world = dc
            round_ratios.append(round_bare / round_lab)
            world_ratios.append(round_world / round_lab)
        rows = store.rows()
        store.close()
    lab_faces = [r.face if r.reason != "fell_off" else -1 for r in rows]
    agree = sum(a == b for a, b in zip(lab_faces, faces_bare, strict=True)) / n
    print(f"\n1. per worker, {n} throws in {rounds} interleaved rounds (order rotated)")
    print("   (wall clock; CPU time of this process in brackets, which other load does not inflate)")
    print(f"   bare PyBullet loop      : {n / t_bare:8.1f} throws/s  [{n / c_bare:8.1f}]")
    print(f"   World.throw alone       : {n / t_world:8.1f} throws/s  [{n / c_world:8.1f}]"
          f"  (ratio {t_bare / t_world:.3f} [{c_bare / c_world:.3f}])")
    print(f"   fairness lab, 1 worker  : {n / t_lab:8.1f} throws/s  [{n / c_lab:8.1f}]"
          "  (draw, simulate, classify, SQLite)")
    print(f"   ratio                   : {t_bare / t_lab:8.3f}           [{c_bare / c_lab:8.3f}]"
          "  (target >= 0.9)")
    print(f"   per round (CPU)         : median {statistics.median(round_ratios):.3f}, "
          f"range {min(round_ratios):.3f}-{max(round_ratios):.3f} over {len(round_ratios)} rounds")
    print(f"   lab / World.throw alone : {t_world / t_lab:8.3f}           [{c_world / c_lab:8.3f}]"
          f"  (target >= 0.95; per round CPU median {statistics.median(world_ratios):.3f})")
    print(f"   same face in both       : {agree:8.1%}")


def scaling(exp, n: int, repeats: int) -> None:
    times: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(repeats):
            for workers in (1, 2):
                c0 = _cpu_seconds()
                summary = run_experiment(exp, Path(tmp) / f"w{workers}-{rep}", throws=n,
                                         workers=workers, progress=False)
                cpu[workers].append(_cpu_seconds() - c0)
                times[workers].append(summary.seconds)
    t1, t2 = min(times[1]), min(times[2])
    print(f"\n2. scaling, {n} throws per run, best of {repeats}")
    print(f"   1 worker  : {n / t1:8.1f} throws/s ({t1:.2f} s wall, {min(cpu[1]):.2f} s CPU)")
    print(f"   2 workers : {n / t2:8.1f} throws/s ({t2:.2f} s wall, {min(cpu[2]):.2f} s CPU "
          "incl. workers)")
    print(f"   speed-up  : {t1 / t2:8.2f}  (target >= 1.8 on 2 free cores)")
    eff = min(cpu[1]) / min(cpu[2])
    print(f"   CPU per throw, 1 worker / 2 workers: {eff:.3f} -> on 2 idle cores the wall speed-up "
          f"would be about {2 * eff:.2f} (inferred from CPU time, not measured)")


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


if __name__ == "__main__":
    raise SystemExit(main())
