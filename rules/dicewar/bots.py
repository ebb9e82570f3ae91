"""DiceWar bots: `random`, `greedy` (one-ply look-ahead on the heuristic) and `mcts`
(UCT search with short random play-outs judged by the heuristic).

Each bot is `choose(state) -> action` with its randomness injected at construction.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rules.dicewar.game import SIZE, WIN_VP, DiceWarState, beats


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
    total += 1.0 * (s.vp[0] - s.vp[1]) + 0.08 * (s.tp[0] - s.tp[1])
    total += 0.05 * (s.reserve[0] - s.reserve[1])
    total -= 0.6 * (_hanging(s, 0) - _hanging(s, 1))
    return sign * total


def _hanging(s: DiceWarState, p: int) -> float:
    """The largest loss p's creatures face from adjacent opposing creatures next turn."""
    worst = 0
    sign = 1 if p == 0 else -1
    for i, v in enumerate(s.board):
        if v * sign <= 0:
            continue
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, c = divmod(i, SIZE)
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                w = s.board[rr * SIZE + cc]
                if w * sign < 0 and beats(abs(w), abs(v)):
                    worst = max(worst, abs(v))
    return float(worst)


class RandomBot:
    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(self, state: Any) -> Any:
        actions = state.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]


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


class _Node:
    __slots__ = ("player", "untried", "children", "visits", "value")

    def __init__(self, state: DiceWarState, rng: np.random.Generator) -> None:
        self.player = state.current_player()
        acts = state.legal_actions()
        order = rng.permutation(len(acts))
        self.untried = [acts[i] for i in order]
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.value = 0.0  # summed value for the player who moves at the parent


class MctsBot:
    """UCT. Each iteration descends by UCB1, expands one action, plays `rollout` random
    plies (taking an immediate win when a move reaches 10 VP), and scores the result
    with the heuristic. The most-visited root action is played."""

    name = "mcts"

    def __init__(self, rng: np.random.Generator, iterations: int = 150, rollout: int = 6,
                 c: float = 1.0) -> None:
        self.rng = rng
        self.iterations = iterations
        self.rollout = rollout
        self.c = c

    def choose(self, state: DiceWarState) -> Any:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        for a in actions:  # a winning action needs no search
            child = state.clone()
            child.apply_legal(a)
            if child.is_terminal() and child.returns()[state.current_player()] == 1.0:
                return a
        root = _Node(state, self.rng)
        for _ in range(self.iterations):
            self._iterate(root, state.clone())
        return max(root.children.items(), key=lambda kv: kv[1].visits)[0]

    def _iterate(self, root: _Node, s: DiceWarState) -> None:
        path: list[tuple[_Node, _Node]] = []
        node = root
        while not node.untried and node.children and not s.is_terminal():
            parent = node
            log_n = math.log(parent.visits + 1)
            best_a: Any = None
            best_u = -math.inf
            for a, ch in parent.children.items():
                u = ch.value / ch.visits + self.c * math.sqrt(log_n / ch.visits)
                if u > best_u:
                    best_a, best_u = a, u
            s.apply_legal(best_a)
            node = parent.children[best_a]
            path.append((parent, node))
        if node.untried and not s.is_terminal():
            a = node.untried.pop()
            s.apply_legal(a)
            child = _Node(s, self.rng)
            node.children[a] = child
            path.append((node, child))
        values = self._playout(s)
        root.visits += 1
        for parent, child in path:
            child.visits += 1
            child.value += values[parent.player]

    def _playout(self, s: DiceWarState) -> list[float]:
        for _ in range(self.rollout):
            if s.is_terminal():
                break
            acts = s.legal_actions()
            s.apply_legal(acts[int(self.rng.integers(len(acts)))])
        return heuristic(s)


BOTS = {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}

__all__ = ["BOTS", "WIN_VP", "GreedyBot", "MctsBot", "RandomBot", "heuristic"]
