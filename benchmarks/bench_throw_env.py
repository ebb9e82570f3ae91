"""Steps per second of the Gymnasium throwing environment `tabletop/DeepWhiteSeaThrow-v0`
(`simulator.ai.throw_env`), with random throws, on each table and against each opponent.

    python -m benchmarks.bench_throw_env [--steps 200] [--table physics --table kinematic]
        [--opponent random --opponent greedy]

A step is one throw of the agent plus everything until its next throw (its shot by our
greedy bot, the opponent's turn); resets are counted in the time. Prints steps/s, the
time of a step (ms) and the mean reward per throw.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simulator.ai import script_import


def run(table: str, opponent: str, steps: int, seed: int) -> tuple[float, float]:
    """(steps per second, mean reward) over `steps` random throws."""
    throw_env = script_import("simulator.ai.throw_env")
    env = throw_env.DeepWhiteSeaThrowEnv(table=table, opponent=opponent)
    env.action_space.seed(seed)
    rewards = []
    t0 = time.perf_counter()
    env.reset(seed=seed)
    for _ in range(steps):
        _, reward, term, trunc, _ = env.step(env.action_space.sample())
        rewards.append(reward)
        if term or trunc:
            env.reset()
    return steps / (time.perf_counter() - t0), float(np.mean(rewards))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--table", action="append", choices=("physics", "kinematic"))
    ap.add_argument("--opponent", action="append", choices=("random", "greedy", "planner"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    throw_env = script_import("simulator.ai.throw_env")
    for table in args.table or ["physics", "kinematic"]:
        for opponent in args.opponent or ["random", "greedy"]:
            rate, reward = run(table, opponent, args.steps, args.seed)
            print(f"{throw_env.ENV_ID} table {table:<9} opponent {opponent:<7} "
                  f"{rate:7.1f} steps/s ({1000 / rate:6.1f} ms a step), "
                  f"mean reward {reward:+.2f} points a throw over {args.steps} steps")


if __name__ == "__main__":
    main()
