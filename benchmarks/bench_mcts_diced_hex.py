"""Diced and Diceland hex: the generic mcts player (with each game's BOT_SETTINGS)
against random and against greedy, N games per pairing, plus greedy against random as
the yardstick. Games run through the same runner as `tabletop play` (seeded dice).

    python -m benchmarks.bench_mcts_diced_hex [--games 100] [--iterations N] [--board compact]
                                               [--only diced|diceland-hex]

Diced is played by three: the bot under test in one seat, two opponents of one kind in the
others (a fair share is 1/3). Hex is two-player (a fair share is 1/2). The tested seat
rotates with the seed. Prints the tested bot's win rate (draws count their share) with a
95% Wilson interval, mean steps per game and wall time (s).

For Diced it also prints the ceiling against random: the exact win probability of the
best response to two random players (`rules/diced/best_response.py`, value iteration
over the whole game), and that best response's own record on the same seeds. No player
can expect more than the ceiling; the 100-game figures scatter about +-9 points around it.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from rules.core.bots import Agent, make_agent
from rules.core.runner import play, streams
from rules.diced.best_response import BestResponseAgent, solve_game
from rules.registry import lookup


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def match(game: str, bot: str, opponent: str, seats: int, games: int,
          options: dict[str, Any], settings: dict[str, dict[str, Any]],
          policy: dict[Any, Any] | None = None) -> None:
    """`policy`: play the tested seat with this Diced best-response table instead of the
    bot kind `bot` (which then only names it)."""
    score = 0.0
    steps = 0
    t0 = time.perf_counter()
    for seed in range(games):
        seat = seed % seats
        players = [opponent] * seats
        agents: list[Agent] | None = None
        if policy is None:
            players[seat] = bot
        else:  # the opponents are built as `play` would build them, from the same streams
            module = lookup(game).module()
            rngs = streams(seed, seats)[2]
            agents = [BestResponseAgent(policy, seat) if i == seat
                      else make_agent(opponent, module, rngs[i]) for i in range(seats)]
        record = play(game, players, seed, options, bot_settings=settings, agents=agents)
        score += record.returns[seat]
        steps += record.lines[-1]["steps"]
    wall = time.perf_counter() - t0
    lo, hi = wilson(score, games)
    print(f"{game:13s} {bot:6s} vs {opponent:6s} x{seats - 1}: win rate {score / games:6.1%} "
          f"(95% CI {lo:.1%}-{hi:.1%}, fair share {1 / seats:.0%}), "
          f"{steps / games:6.1f} steps/game, {wall:7.1f} s ({wall / games:.2f} s/game)",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=None,
                        help="mcts iterations per decision (default: the game's setting)")
    parser.add_argument("--board", default="compact")
    parser.add_argument("--only", choices=("diced", "diceland-hex"), default=None)
    args = parser.parse_args()
    settings = {"mcts": {"iterations": args.iterations}} if args.iterations else {}
    plan = [("diced", 3, {}), ("diceland-hex", 2, {"board": args.board})]
    for game, seats, options in plan:
        if args.only and game != args.only:
            continue
        if game == "diced":
            sol = solve_game()
            print(f"diced         ceiling vs random x2: the best response wins "
                  f"{sol.best_mean:.2%} exactly (greedy {sol.greedy_mean:.2%}); value iteration "
                  f"over {sol.states} states in {sol.build_s + sol.solve_s:.0f} s", flush=True)
            match(game, "best", "random", seats, args.games, options, settings, sol.policy)
        for bot, opponent in (("greedy", "random"), ("mcts", "random"), ("mcts", "greedy")):
            match(game, bot, opponent, seats, args.games, options, settings)


if __name__ == "__main__":
    main()
