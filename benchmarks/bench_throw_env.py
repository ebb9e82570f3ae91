"""Is a step of the game-AI environments bounded by its throws? Steps per second of the
Gymnasium throwing environment `tabletop/DeepWhiteSeaThrow-v0` (`simulator.ai.throw_env`)
and of PettingZoo's Deep White Sea (`simulator.ai.pettingzoo`), against `World.throw` on
the same work in the same run.

    python -m benchmarks.bench_throw_env [--steps 200] [--opponent random --opponent greedy]
        [--pettingzoo-steps 200] [--seed 0]

Gymnasium: `--steps` random throws (resets counted in the time) on the default physics
table. Every `World.throw` the environment makes is recorded (the scene it was thrown
into, the die, the throw); afterwards the agent's own throws (one a step) are thrown again
by `World.throw` alone, in a fresh world on the same scenes: that is a throw's cost, and
`step/throw` is how many of them a step costs. Also printed: the throws the environment
made a step (the opponent's and the bots' trial throws included) and the shares of its time
spent inside `World.throw` and inside `World.tip` (tips, and the engine's probes of which
tips a die can make).

Times are this process's CPU seconds (`time.process_time`), so that other work on a shared
machine slows neither side of a ratio.

PettingZoo: random legal actions of both seats (`--pettingzoo-steps` agent steps, resets
counted), the same recording: steps/s, throws a step and the share of time inside
`World.throw`, and the recorded throws re-thrown alone (throws/s).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulator.ai import script_import


@dataclass
class Recorder:
    """Every `World.throw` made while installed: (scene, die, model, spec, player), its
    time, and which were an agent's throw (marked by `mark()` before the step)."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)
    seconds: float = 0.0
    tip_seconds: float = 0.0  # in World.tip: the tips played and the engine's tip probes
    agent: list[int] = field(default_factory=list)
    _marked: bool = False
    _original: Any = None
    _original_tip: Any = None

    def install(self) -> None:
        from simulator.physics.world import World

        self._original = original = World.throw
        recorder = self

        def throw(world: Any, name: str, model: Any, spec: Any, player: int = 1,
                  record: bool = False) -> Any:
            if recorder._marked:
                recorder.agent.append(len(recorder.calls))
                recorder._marked = False
            recorder.calls.append((world.table, world.settings, dict(world.scene), name,
                                   model, spec, player))
            t0 = time.process_time()
            try:
                return original(world, name, model, spec, player, record)
            finally:
                recorder.seconds += time.process_time() - t0

        self._original_tip = original_tip = World.tip

        def tip(world: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return original_tip(world, *args, **kwargs)
            finally:
                recorder.tip_seconds += time.process_time() - t0

        World.throw = throw  # type: ignore[method-assign,assignment]
        World.tip = tip  # type: ignore[method-assign,assignment]

    def uninstall(self) -> None:
        from simulator.physics.world import World

        World.throw = self._original  # type: ignore[method-assign]
        World.tip = self._original_tip  # type: ignore[method-assign]

    def mark(self) -> None:
        self._marked = True


def rethrow(calls: list[tuple[Any, ...]]) -> float:
    """Throws per second of `World.throw` alone on the recorded throws (a fresh world per
    table setting, each throw into its recorded scene)."""
    from simulator.physics import PhysicsError
    from simulator.physics.world import World

    worlds: dict[int, Any] = {}
    t0 = time.process_time()
    for table, settings, scene, name, model, spec, player in calls:
        world = worlds.get(id(table))
        if world is None:
            world = worlds[id(table)] = World(table, settings)
        world.scene = dict(scene)
        with contextlib.suppress(PhysicsError):  # counted: the environment paid too
            world.throw(name, model, spec, player=player)
    seconds = time.process_time() - t0
    for world in worlds.values():
        world.close()
    return len(calls) / seconds


def gym_run(opponent: str, steps: int, seed: int) -> dict[str, float]:
    throw_env = script_import("simulator.ai.throw_env")
    env = throw_env.DeepWhiteSeaThrowEnv(opponent=opponent)  # the default physics table
    env.action_space.seed(seed)
    rec = Recorder()
    rec.install()
    try:
        t0 = time.process_time()
        env.reset(seed=seed)
        rewards = []
        for _ in range(steps):
            rec.mark()
            _, reward, term, trunc, _ = env.step(env.action_space.sample())
            rewards.append(reward)
            if term or trunc:
                env.reset()
        seconds = time.process_time() - t0
    finally:
        rec.uninstall()
    env.close()
    own = [rec.calls[i] for i in rec.agent]
    return {"steps_s": steps / seconds, "throws_s": rethrow(own),
            "throws_step": len(rec.calls) / steps, "in_throw": rec.seconds / seconds,
            "in_tip": rec.tip_seconds / seconds, "reward": float(np.mean(rewards))}


def pettingzoo_run(steps: int, seed: int) -> dict[str, float]:
    pz = script_import("simulator.ai.pettingzoo")
    env = pz.env("deep-white-sea")  # the default physics table
    rng = np.random.default_rng(seed)
    rec = Recorder()
    rec.install()
    try:
        t0 = time.process_time()
        env.reset(seed=seed)
        done = 0
        while done < steps:
            _, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                if not env.agents:
                    env.reset(seed=int(rng.integers(2**31)))
                continue
            legal = np.flatnonzero(info["action_mask"])
            env.step(int(legal[int(rng.integers(len(legal)))]))
            done += 1
        seconds = time.process_time() - t0
    finally:
        rec.uninstall()
    env.close()
    return {"steps_s": steps / seconds, "throws_s": rethrow(rec.calls) if rec.calls else 0.0,
            "throws_step": len(rec.calls) / steps, "in_throw": rec.seconds / seconds,
            "in_tip": rec.tip_seconds / seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--opponent", action="append", choices=("random", "greedy", "planner"))
    ap.add_argument("--pettingzoo-steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    throw_env = script_import("simulator.ai.throw_env")
    for opponent in args.opponent or ["random", "greedy"]:
        r = gym_run(opponent, args.steps, args.seed)
        print(f"{throw_env.ENV_ID} physics, opponent {opponent:<7} {r['steps_s']:7.1f} steps/s; "
              f"World.throw alone on its throws {r['throws_s']:7.1f} throws/s; step/throw "
              f"{r['throws_s'] / r['steps_s']:5.2f}; {r['throws_step']:.2f} throws a step, "
              f"{100 * r['in_throw']:.0f}% of the time in World.throw, "
              f"{100 * r['in_tip']:.0f}% in World.tip; mean reward "
              f"{r['reward']:+.2f} over {args.steps} steps")
    if args.pettingzoo_steps > 0:
        r = pettingzoo_run(args.pettingzoo_steps, args.seed)
        ratio = f"{r['throws_s'] / r['steps_s']:5.2f}" if r["throws_s"] else "  -  "
        print(f"PettingZoo deep-white-sea physics     {r['steps_s']:7.1f} steps/s; "
              f"World.throw alone on its throws {r['throws_s']:7.1f} throws/s; step/throw "
              f"{ratio}; {r['throws_step']:.2f} throws a step, {100 * r['in_throw']:.0f}% of "
              f"the time in World.throw, {100 * r['in_tip']:.0f}% in World.tip over "
              f"{args.pettingzoo_steps} steps")


if __name__ == "__main__":
    main()
