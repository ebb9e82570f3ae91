"""Diced for game-AI libraries (`rules.core.spaces`): every action of a setting
numbered (`vocabulary`), the state as named float32 arrays (`encode`), and a bound of a
game's moves (`max_game_length`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.spaces import TIE_ROLLS, Vocabulary, counts, one_hot


def vocabulary(state: Any) -> Vocabulary:
    n, total = state.n, state.total
    actions: list[Action] = [("end",), ("keep",)]
    actions += [("pool", k) for k in range(1, total + 1)]
    actions += [("attack", t, k) for t in range(n) for k in range(1, total + 1)]
    actions += [("defend", j) for j in range(total + 1)]
    actions += [("reroll", m) for m in range(1, 4)]
    return Vocabulary("diced", actions)


def encode(s: Any) -> dict[str, np.ndarray]:
    from rules.diced.game import PHASES, POOL

    n, total = s.n, float(s.total)
    return {
        "dice": np.asarray(s.dice, np.float32) / total,
        "tokens": np.asarray(s.tokens, np.float32) / 3.0,
        "pool": np.asarray([s.pool / total, float(s.pool_open)], np.float32),
        "phase": one_hot(len(PHASES), PHASES.index(s.phase)),
        "turn": one_hot(n, s.turn),
        "target": one_hot(n + 1, n if s.target == POOL else s.target),
        "attack": np.asarray([s.ready, s.k, s.j, s.reroll_n], np.float32) / total,
        "attack_faces": counts(s.attack_faces) / total,
        "defence_faces": counts(s.defence_faces) / total,
    }


def max_game_length(s: Any) -> int:
    """An upper bound of the moves (decisions and chance nodes) of a game of this setting.
    A turn attacks with each ready die at most once (<= total attacks); an attack is one
    decision, a defence, up to 3 re-rolls and a keep, and rolls <= 2 * total + 3 dice.
    Turns: max_rounds rounds of n seats, and one more."""
    total, n = s.total, s.n
    turn = 1 + total * (6 + 2 * total + 3)
    return (s.max_rounds + 1) * n * turn + TIE_ROLLS * n
