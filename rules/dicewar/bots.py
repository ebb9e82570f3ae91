"""DiceWar's judgement for bots: the `heuristic` (used by the generic `mcts` player of
`rules.core.bots` to judge its play-outs) and the `greedy` player (one-ply look-ahead on
that heuristic). `random` and `mcts` are the generic players; `BOT_SETTINGS` tunes mcts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rules.dicewar.game import SIZE, DiceWarState, beats


def heuristic(state: DiceWarState) -> list[float]:
    """How well each player stands, in [0, 1] (the two add up to 1); 1/0 when over."""
    if state.is_terminal():
        return state.returns()
    x = _score(state, 0)
    h = 1.0 / (1.0 + math.exp(-x / 4.0))
    return [h, 1.0 - h]


def _score(s: DiceWarState, p: int) -> float:
    """Player p's edge in points: victory points dominate, then material on the board,
    creatures near the opposing Supply Zone, and trigger points."""
    sign = 1 if p == 0 else -1
    total = 0.0
    for i, v in enumerate(s.board):
        if v == 0:
            continue
        row = i // SIZE
        adv = row if v > 0 else SIZE - 1 - row
        val = 0.35 * abs(v) + 0.05 * adv
        total += val if v > 0 else -val
    total += 1.0 * (s.points(0) - s.points(1)) + 0.08 * (s.tp[0] - s.tp[1])
    total += 0.05 * (s.reserve[0] - s.reserve[1])
    total -= 0.6 * (_hanging(s, 0) - _hanging(s, 1))
    return sign * total


def _hanging(s: DiceWarState, p: int) -> float:
    """The largest loss p's creatures face from adjacent opposing creatures next turn."""
    worst = 0
    sign = 1 if p == 0 else -1
    for i, v in enumerate(s.board):
        if v * sign <= 0 or s.has_speciality(i, "immune_attacks"):
            continue
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, c = divmod(i, SIZE)
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                w = s.board[rr * SIZE + cc]
                if w * sign < 0 and beats(abs(w), abs(v)):
                    worst = max(worst, abs(v))
    return float(worst)


class GreedyBot:
    """Takes a winning action if there is one, else the action whose result the
    heuristic likes best (ties broken at random)."""

    name = "greedy"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(self, state: DiceWarState) -> Any:
        p = state.current_player()
        best: list[Any] = []
        best_v = -math.inf
        for a in state.legal_actions():
            child = state.clone()
            child.apply_legal(a)
            v = heuristic(child)[p]
            if v > best_v + 1e-12:
                best, best_v = [a], v
            elif abs(v - best_v) <= 1e-12:
                best.append(a)
        return best[int(self.rng.integers(len(best)))]


def greedy_action(state: DiceWarState, rng: np.random.Generator) -> Any:
    """The registry's `greedy` player for DiceWar."""
    return GreedyBot(rng).choose(state)


# Generic mcts settings for DiceWar: short play-outs, since the heuristic reads the board
# well and long random play-outs mostly add noise (see benchmarks/bench_dicewar_mcts.py).
BOT_SETTINGS = {"mcts": {"iterations": 200, "rollout_depth": 8}}
