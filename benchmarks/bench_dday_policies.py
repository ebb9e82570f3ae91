"""D-Day Dice solo on the shipped map: win rate and mean victory points of each policy
over N games (the same N dice seeds for every policy).

    python -m benchmarks.bench_dday_policies [--games 1000] [--map greyrock-cove]

`greedy` re-rolls every die worth less than an average die; `expectimax` weighs every
re-roll by its exact expected value; `random` picks uniformly among legal actions (a
floor for comparison). Prints, per policy: win rate with a 95% interval, mean VP (and
its standard error), mean turns played, wall time (s).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import rules.dday as dd
from rules.core.bots import RandomBot
from rules.core.rollers import SeededRoller


def play(policy: str, seed: int, map_name: str) -> dd.DDayState:
    seq = np.random.SeedSequence(seed).spawn(2)
    chance = np.random.default_rng(seq[0])
    rng = np.random.default_rng(seq[1])
    bot = RandomBot(rng) if policy == "random" else dd.make_bot(policy, rng)
    s = dd.new_game(1, {"map": map_name})
    roller = SeededRoller()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(roller.roll(*s.chance_request(), chance))
        else:
            s.apply_legal(bot.step(s))
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--map", default="greyrock-cove")
    ap.add_argument("--policies", default="random,greedy,expectimax")
    args = ap.parse_args()
    print(f"D-Day Dice solo on {args.map}, {args.games} games per policy")
    for policy in args.policies.split(","):
        t0 = time.perf_counter()
        wins, vps, turns = 0, [], []
        for g in range(args.games):
            s = play(policy, g, args.map)
            wins += s.units[0].status == "won"
            vps.append(s.units[0].vp)
            turns.append(s.turn)
        dt = time.perf_counter() - t0
        p = wins / args.games
        half = 1.96 * math.sqrt(p * (1 - p) / args.games)
        print(f"{policy:>10}: win rate {p:.1%} (95% +-{half:.1%}), mean VP "
              f"{np.mean(vps):.1f} (se {np.std(vps) / math.sqrt(len(vps)):.1f}), "
              f"mean {np.mean(turns):.1f} turns, {dt:.0f} s")


if __name__ == "__main__":
    main()
