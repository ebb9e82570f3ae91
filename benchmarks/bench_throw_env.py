"""Is a step of the game-AI environments bounded by its throws? Steps per second of the
Gymnasium throwing environment `tabletop/DeepWhiteSeaThrow-v0` (`simulator.ai.throw_env`)
and of PettingZoo's Deep White Sea (`simulator.ai.pettingzoo`), against the physics alone
doing the same work, in the same run.

    python -m benchmarks.bench_throw_env [--steps 200] [--opponent random --opponent greedy]
        [--pettingzoo-steps 200] [--seed 0]

Gymnasium: `--steps` random throws (resets counted in the time) on the default physics
table. The time in the physics table's answers (`simulator.physics_table`: throws, tips
and tip probes) is measured by what asked for them, with the `World.throw`, `World.tip`
and `World.outcome_of` (does a die rest flat?) calls they made: the game's own table (a
throw or tip *played*: the agent's, the opponent's, the follow-ups'), a copy a bot
simulates on (a bot's *trial*: the greedy opponent tries 4 throws a turn, the helper that
plays the thrower's shots tries each shot), or the engine's *probes* of which tips a die
can make (`can_tip`, to list the legal moves). Every throw and tip the game played is
recorded with the scene it was made in, and afterwards two references are timed, in a
fresh `World` on the same scenes:

- one agent throw: the agent's own throws (one a step) thrown again by `World.throw`
  alone; `step/throw` is how many of them a step costs (the target: about 1). The same
  throws on an empty table are printed beside it: what the dice resting in a game's
  scene add to a throw;
- the game's physics: every throw and tip the game played, each made once by `World`
  alone, in order: the leanest correct code for the same episode simulates at least
  this (the opponent's throws are part of the job; a bot's trials are its thinking, and
  the probes, which list the legal moves, are left out too). `step/played` is a step's
  cost over that.

Then the throws and tips a step made (played, trials, probes: calls of `World`, after
the answers the table keeps for repeated questions) and the shares of the time in each,
the rest being the rules, the bots' own thinking and the observation.

Times are this process's CPU seconds (`time.process_time`), so that other work on a shared
machine slows neither side of a ratio much.

PettingZoo: random legal actions of both seats (`--pettingzoo-steps` agent steps, resets
counted), the same recording and the same references (no bots: everything is played or a
probe).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulator.ai import script_import

KINDS = ("played", "trial", "probe")


@dataclass
class Recorder:
    """While installed: every `World.throw`, `tip` and `outcome_of` and its CPU time, by kind
    (`KINDS`: the table `real()` returns played it, a copy tried it, `can_tip` probed
    it), and every throw and tip played, with its scene, for `lean`. `mark()` before a
    step marks the next throw played as the agent's."""

    real: Callable[[], Any]
    calls: Counter[str] = field(default_factory=Counter)
    seconds: Counter[str] = field(default_factory=Counter)
    played: list[tuple[Any, ...]] = field(default_factory=list)
    agent: list[int] = field(default_factory=list)
    _marked: bool = False
    _kind: list[str] = field(default_factory=list)
    _originals: list[tuple[Any, str, Any]] = field(default_factory=list)

    def install(self) -> None:
        from simulator.physics.world import World
        from simulator.physics_table import PhysicsTable

        rec = self

        def asked(name: str) -> Any:  # the table's question, and what kind it is
            original = getattr(PhysicsTable, name)

            def wrapper(table: Any, die: str, *args: Any, **kwargs: Any) -> Any:
                kind = "probe" if name == "can_tip" else \
                    "played" if table is rec.real() else "trial"
                if kind == "played":
                    if name == "throw" and rec._marked:
                        rec.agent.append(len(rec.played))
                        rec._marked = False
                    w = table.world
                    rec.played.append((name, w.table, w.settings, dict(table.scene), die,
                                       table.model, args, kwargs))
                rec._kind.append(kind)
                t0 = time.process_time()
                try:
                    return original(table, die, *args, **kwargs)
                finally:
                    rec.seconds[kind] += time.process_time() - t0
                    rec._kind.pop()
            return original, wrapper

        def counted(name: str) -> Any:  # the World's work, counted to the kind that asked
            original = getattr(World, name)

            def wrapper(world: Any, *args: Any, **kwargs: Any) -> Any:
                rec.calls[f"{rec._kind[-1] if rec._kind else 'other'} {name}"] += 1
                return original(world, *args, **kwargs)
            return original, wrapper

        for owner, name, make in ((PhysicsTable, "throw", asked), (PhysicsTable, "tip", asked),
                                  (PhysicsTable, "can_tip", asked), (World, "throw", counted),
                                  (World, "tip", counted), (World, "outcome_of", counted)):
            original, wrapper = make(name)
            self._originals.append((owner, name, original))
            setattr(owner, name, wrapper)

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()

    def mark(self) -> None:
        self._marked = True


def lean(played: list[tuple[Any, ...]], empty: bool = False) -> float:
    """CPU seconds of `World` alone making each of these throws and tips once, in its
    recorded scene (a fresh world per table setting), or on an empty table (`empty`)."""
    from simulator.physics import PhysicsError, PlacementError
    from simulator.physics.world import World

    worlds: dict[int, Any] = {}
    t0 = time.process_time()
    for name, table, settings, scene, die, model, args, kwargs in played:
        world = worlds.get(id(table))
        if world is None:
            world = worlds[id(table)] = World(table, settings)
        world.scene = {} if empty else dict(scene)
        with contextlib.suppress(PhysicsError, PlacementError):  # the game paid for it too
            if name == "throw":
                world.throw(die, model, *args, **kwargs)
            else:
                world.tip(die, *args, **kwargs)
    seconds = time.process_time() - t0
    for world in worlds.values():
        world.close()
    return seconds


def summary(rec: Recorder, steps: int, seconds: float) -> dict[str, Any]:
    """Steps/s, the two references (see the module docstring), calls a step and shares."""
    # The agent's throws; in PettingZoo, with no agent of ours, every throw played.
    own = [rec.played[i] for i in rec.agent] or [p for p in rec.played if p[0] == "throw"]
    out: dict[str, Any] = {
        "steps_s": steps / seconds,
        "throws_s": len(own) / lean(own) if own else 0.0,
        "lone_s": len(own) / lean(own, empty=True) if own else 0.0,
        "played_s": steps / lean(rec.played) if rec.played else 0.0,
        "calls": {k: v / steps for k, v in sorted(rec.calls.items())},
        "share": {k: rec.seconds[k] / seconds for k in KINDS},
    }
    out["share"]["rest"] = 1.0 - sum(out["share"].values())
    return out


def gym_run(opponent: str, steps: int, seed: int) -> dict[str, Any]:
    throw_env = script_import("simulator.ai.throw_env")
    env = throw_env.DeepWhiteSeaThrowEnv(opponent=opponent)  # the default physics table
    env.action_space.seed(seed)
    rec = Recorder(lambda: env.state.table)
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
    return {**summary(rec, steps, seconds), "reward": float(np.mean(rewards))}


def pettingzoo_run(steps: int, seed: int) -> dict[str, Any]:
    pz = script_import("simulator.ai.pettingzoo")
    env = pz.env("deep-white-sea")  # the default physics table
    rng = np.random.default_rng(seed)
    rec = Recorder(lambda: env.game_state.engine.table)
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
    return summary(rec, steps, seconds)


def report(title: str, r: dict[str, Any], steps: int) -> str:
    def ratio(ref: float) -> str:
        return f"{ref / r['steps_s']:.2f}" if ref else "-"

    calls = ", ".join(f"{v:.2f} {k}" for k, v in r["calls"].items())
    share = ", ".join(f"{k} {100 * v:.0f}%" for k, v in r["share"].items())
    return (f"{title}: {r['steps_s']:.1f} steps/s over {steps} steps"
            + (f" (mean reward {r['reward']:+.2f})" if "reward" in r else "") + "\n"
            f"  same run, World alone: one throw {r['throws_s']:.1f}/s in its scene "
            f"({r['lone_s']:.1f}/s on an empty table) -> step/throw {ratio(r['throws_s'])}; "
            f"the throws and tips the game played {r['played_s']:.1f} steps/s -> step/played "
            f"{ratio(r['played_s'])}\n"
            f"  World calls a step: {calls}\n"
            f"  time in the table by who asked: {share} (rest: rules, bots' thinking, "
            "observation)")


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
        print(report(f"{throw_env.ENV_ID} physics, opponent {opponent}", r, args.steps))
    if args.pettingzoo_steps > 0:
        r = pettingzoo_run(args.pettingzoo_steps, args.seed)
        print(report("PettingZoo deep-white-sea physics", r, args.pettingzoo_steps))


if __name__ == "__main__":
    main()
