"""Diceland hex for game-AI libraries (`rules.core.spaces`): every action of a setting
numbered (`vocabulary`), the state as named float32 arrays (`encode`), and a bound of a
game's moves (`max_game_length`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.spaces import TIE_ROLLS, Vocabulary, counts, one_hot


def vocabulary(state: Any) -> Vocabulary:
    size, nb = state.board.size, state.board.neighbours
    actions: list[Action] = [("stay",)]
    actions += [("place", v, t) for v in range(1, 7) for t in range(size)]
    actions += [("attack", a, t) for a in range(size) for t in nb[a]]
    actions += [("combined", a, b, t) for a in range(size) for b in nb[a] if b > a
                for t in nb[a] if t in nb[b]]
    actions += [("use", r, a) for r in range(1, 7) for a in range(size)]
    actions += [("move", a, u) for a in range(size) for u in nb[a]]
    return Vocabulary("diceland-hex", actions)


def encode(s: Any) -> dict[str, np.ndarray]:
    from rules.diceland_hex.game import PHASES

    size = s.board.size
    owner = np.asarray(s.owner)
    return {
        "armies": np.stack([(owner == 0), (owner == 1), (owner < 0)]).astype(np.float32),
        "values": np.asarray(s.value, np.float32) / 6.0,
        "hands": np.stack([counts(h) for h in s.hands]) / float(s.dice_per_player()),
        "phase": one_hot(len(PHASES), PHASES.index(s.phase)),
        "seats": np.concatenate([one_hot(2, s.placer), one_hot(2, s.turn)]),
        "quiet_turns": np.asarray([min(s.quiet_turns, 2) / 2.0], np.float32),
        "moved_in": one_hot(size, s.moved_in),
        "attackers": sum((one_hot(size, a) for a in s.attackers), np.zeros(size, np.float32)),
        "target": one_hot(size, s.target),
        "rolls": counts(s.rolls),
    }


def max_game_length(s: Any) -> int:
    """An upper bound of the moves (decisions and chance nodes) of a game of this setting.
    Two setup rolls, one placement per tile, tied start rolls of 4 dice; a turn is an
    attack, its roll (<= 2 dice), a choice and a move; 2 turns a round."""
    setup = 2 * s.dice_per_player() + s.board.size + 4 * TIE_ROLLS
    return setup + 2 * (s.max_rounds + 1) * 5
