"""DiceWar: the generic mcts player (with DiceWar's heuristic and BOT_SETTINGS) against
random, and greedy against random, over N games with seats alternating.

    python -m benchmarks.bench_dicewar_mcts [--games 100] [--iterations 200]

Prints win rates (draws count half), mean game length in turns and wall time (s).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rules.dicewar as dw
from rules.core.bots import make_agent
from rules.core.rollers import SeededRoller


def play(kinds: list[str], seed: int, settings: dict[str, dict]) -> dw.DiceWarState:
    seq = np.random.SeedSequence(seed).spawn(3)
    chance = np.random.default_rng(seq[0])
    agents = [make_agent(k, dw, np.random.default_rng(seq[1 + i]),
                         **{**dw.BOT_SETTINGS.get(k, {}), **settings.get(k, {})})
              for i, k in enumerate(kinds)]
    s = dw.new_game(2, {})
    roller = SeededRoller()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(roller.roll(*s.chance_request(), chance))
        else:
            s.apply_action(agents[s.current_player()].step(s))
    return s


def match(bot: str, games: int, settings: dict[str, dict]) -> None:
    score = 0.0
    plies = []
    t0 = time.perf_counter()
    for g in range(games):
        seat = g % 2  # the bot plays red in even games, black in odd ones
        kinds = [bot, "random"] if seat == 0 else ["random", bot]
        s = play(kinds, 1000 + g, settings)
        score += s.returns()[seat]
        plies.append(s.plies)
    dt = time.perf_counter() - t0
    print(f"{bot:>6} vs random: {games} games, win rate {score / games:.1%}, "
          f"mean length {np.mean(plies):.1f} turns, {dt:.1f} s ({dt / games:.2f} s/game)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=None, help="mcts iterations per move")
    args = ap.parse_args()
    settings: dict[str, dict] = {}
    if args.iterations:
        settings["mcts"] = {"iterations": args.iterations}
    mcts = {**dw.BOT_SETTINGS["mcts"], **settings.get("mcts", {})}
    print(f"mcts settings: {mcts}")
    match("mcts", args.games, settings)
    match("greedy", args.games, settings)


if __name__ == "__main__":
    main()
