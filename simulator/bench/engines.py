"""Speed of the engines on the same throws (issue 20, item 4): MuJoCo's world against
PyBullet's World, per core, interleaved in rounds (the order swapped each round) so
machine noise hits both alike, each timed by its process CPU time; and the batched MuJoCo
Warp backend's throws per second at a batch size. `benchmarks/bench_engines.py` and
`benchmarks/gpu_check.sh` are the entry points."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from dice_models import load_die
from simulator.experiments import load_experiment
from simulator.experiments.config import DROP, Experiment, draw_throw
from simulator.physics import PhysicsSettings, TableSpec, ThrowSpec, die_shape
from simulator.physics.engines import make_world
from simulator.physics.throws import random_throw

EXPERIMENTS = Path(__file__).resolve().parent.parent.parent / "benchmarks" / "experiments"


def lab_experiment(die: str = "paper-d8") -> Experiment:
    """The fair paper d8's experiment (benchmarks/experiments/fair-paper-d8.yaml), for
    another die when asked, with the lab's throw distribution of before 2026-12-04 (the
    drop over the table's middle, config.DROP, fair-paper-d8's throw until then): the
    bench's lab throws stay the ones its recorded speeds were measured on."""
    exp = load_experiment(EXPERIMENTS / "fair-paper-d8.yaml").with_(throw=DROP)
    return exp if die == "paper-d8" else exp.with_(die=load_die(die))


def throws_for(kind: str, die: str, n: int) -> tuple[TableSpec, list[ThrowSpec]]:
    """`n` throws of a kind: 'lab' (the fairness lab's distribution: released over the
    table's middle) or 'table' (random legal throws from player 1's edge)."""
    if kind == "lab":
        exp = lab_experiment(die)
        shape = die_shape(exp.die)
        return exp.table, [draw_throw(exp, i, shape).throw for i in range(n)]
    import numpy as np

    table = TableSpec()
    return table, [random_throw(table, 1, np.random.default_rng([20, i])) for i in range(n)]


def engine_speed(die: str = "paper-d8", throws: int = 400, rounds: int = 5,
                 kind: str = "lab") -> dict[str, Any]:
    """Throws per CPU second of each engine's world on the same throws, and the ratio."""
    model = load_die(die)
    table, todo = throws_for(kind, die, throws)
    worlds = {e: make_world(table, PhysicsSettings(engine=e)) for e in ("pybullet", "mujoco")}
    cpu = dict.fromkeys(worlds, 0.0)
    outcomes: dict[str, Counter[str]] = {e: Counter() for e in worlds}
    per_round = max(1, -(-len(todo) // rounds))
    for r, start in enumerate(range(0, len(todo), per_round)):
        chunk = todo[start:start + per_round]
        order = list(worlds) if r % 2 == 0 else list(worlds)[::-1]
        for engine in order:
            world = worlds[engine]
            t0 = time.process_time()
            for th in chunk:
                rep = world.throw("die", model, th)
                world.scene.clear()
                outcomes[engine][str(rep.outcome.reason or "on_table")] += 1
            cpu[engine] += time.process_time() - t0
    for world in worlds.values():
        world.close()
    n = len(todo)
    return {"die": die, "kind": kind, "throws": n, "rounds": rounds,
            "throws_per_cpu_s": {e: n / cpu[e] for e in worlds},
            "ratio_mujoco_over_pybullet": cpu["pybullet"] / cpu["mujoco"],
            "outcomes": {e: dict(c) for e, c in outcomes.items()}}


def batched_speed(backend: str, batch: int, throws: int, die: str = "paper-d8") -> dict[str, Any]:
    """Throws per second of the batched MuJoCo Warp backend (wall time, the first batch's
    kernel compilation excluded), and the face counts of the die at rest on the table."""
    from simulator.experiments.batched import BatchedSimulator

    exp = lab_experiment(die)
    exp = exp.with_(physics=exp.physics.with_(engine="mujoco-warp"))
    sim = BatchedSimulator(exp, backend, batch)
    sim.run(list(range(min(batch, throws))))  # compiles Warp's kernels for this batch size
    faces: Counter[int] = Counter()
    status: Counter[str] = Counter()
    t0 = time.perf_counter()
    for lo in range(0, throws, batch):
        for row in sim.run(list(range(lo, min(lo + batch, throws)))):
            status[str(row.reason) if row.status != "on_table" else "on_table"] += 1
            if row.status == "on_table" and row.face is not None:
                faces[row.face] += 1
    seconds = time.perf_counter() - t0
    return {"backend": backend, "device": sim.device, "batch": batch, "throws": throws,
            "seconds": seconds, "throws_per_s": throws / seconds, "outcomes": dict(status),
            "faces": dict(sorted(faces.items()))}


__all__ = ["batched_speed", "engine_speed", "lab_experiment", "throws_for"]
