"""Fit the Diced heuristic: how well do dice counts predict who wins?

    python -m benchmarks.fit_diced_heuristic [--games 6000] [--seed 777000]

Plays three-player Diced games whose seats are greedy or random at random, records every
turn start (dice in hand, pool, tokens) and who won, and scores candidate heuristics
(dice + share * pool / living + weight * tokens) ** power, normalised, by the mean
log-likelihood of the winner. Prints the best few and the plain share of dice held, the
heuristic `rules.diced.heuristic` had before. The engine's constants STRENGTH_POWER and
POOL_SHARE come from this script's best row.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from rules.core.rollers import SeededRoller
from rules.diced import greedy_action, new_game
from rules.diced.game import DicedState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=777000)
    args = parser.parse_args()
    t0 = time.perf_counter()
    dice, pool, tokens, won = collect(args.games, args.seed)
    print(f"{len(won)} turn starts from {args.games} games ({time.perf_counter() - t0:.1f} s)")
    rows = []
    for power, share, weight in itertools.product((0.5, 1, 1.5, 2, 2.5, 3), (0, 0.25, 0.5, 1),
                                                  (0, 0.1, 0.25, 0.5)):
        rows.append((log_likelihood(dice, pool, tokens, won, power, share, weight),
                     power, share, weight))
    rows.sort(reverse=True)
    print("mean log-likelihood  power  pool share  token weight")
    for ll, power, share, weight in rows[:6]:
        print(f"{ll:19.4f}  {power:5.2f}  {share:10.2f}  {weight:12.2f}")
    plain = log_likelihood(dice, pool, tokens, won, 1.0, 0.0, 0.0)
    print(f"{plain:19.4f}  share of dice held (power 1, no pool, no tokens)")


def collect(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    roller = SeededRoller()
    dice: list[list[int]] = []
    pool: list[int] = []
    tokens: list[list[int]] = []
    won: list[list[float]] = []
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        s = new_game(3, {"pool": None, "max_rounds": 200}, rng)
        greedy = [bool(rng.random() < 0.5) for _ in range(3)]
        starts: list[tuple[list[int], int, list[int]]] = []
        seen = -1
        while not s.is_terminal():
            if s.is_chance_node():
                kind, n = s.chance_request()
                s.apply_chance(roller.roll(kind, n, rng))
                continue
            if s.phase == "turn" and s.turns_played != seen:
                seen = s.turns_played
                starts.append((list(s.dice), s.pool, list(s.tokens)))
            s.apply_action(choose(s, greedy[s.current_player()], rng))
        for d, p, t in starts:
            dice.append(d)
            pool.append(p)
            tokens.append(t)
            won.append(s.returns())
    return (np.array(dice, float), np.array(pool, float), np.array(tokens, float),
            np.array(won, float))


def choose(s: DicedState, greedy: bool, rng: np.random.Generator) -> tuple[object, ...]:
    if greedy:
        return greedy_action(s, rng)
    actions = s.legal_actions()
    return actions[int(rng.integers(len(actions)))]


def log_likelihood(dice: np.ndarray, pool: np.ndarray, tokens: np.ndarray, won: np.ndarray,
                   power: float, share: float, weight: float) -> float:
    alive = dice > 0
    living = alive.sum(axis=1, keepdims=True)
    strength = np.where(alive, dice + share * pool[:, None] / living + weight * tokens, 0.0)
    chance = strength ** power
    chance = chance / chance.sum(axis=1, keepdims=True)
    return float((won * np.log(np.clip(chance, 1e-9, 1.0))).sum() / len(won))


if __name__ == "__main__":
    main()
