"""DiceWar for game-AI libraries (`rules.core.spaces`): every action of a setting
numbered (`vocabulary`), the state as named float32 arrays (`encode`), and a bound of a
game's moves (`max_game_length`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.spaces import TIE_ROLLS, Vocabulary, one_hot


def vocabulary(state: Any) -> Vocabulary:
    from rules.dicewar.game import CELLS, SIZE

    actions: list[Action] = [("place", c, p) for c in range(SIZE) for p in range(1, 7)]
    actions += [("upgrade", s) for s in range(CELLS)]
    actions += [(verb, s, d) for verb in ("move", "spell") for s in range(CELLS)
                for d in range(CELLS)]
    return Vocabulary("dicewar", actions)


def encode(s: Any) -> dict[str, np.ndarray]:
    from rules.dicewar.game import CELLS, DICE_PER_PLAYER, RUINS, WIN_VP

    board = np.asarray(s.board)
    planes = np.zeros((2, 6, CELLS), np.float32)
    for p, sign in ((0, 1), (1, -1)):
        for power in range(1, 7):
            planes[p, power - 1] = board == sign * power
    ruins = np.zeros(CELLS, np.float32)
    if s.ruins:
        ruins[list(RUINS)] = 1.0
    return {
        "board": planes,
        "ruins": ruins,
        "dice": np.asarray([*s.reserve, *s.exile], np.float32) / DICE_PER_PLAYER,
        "points": np.asarray([*s.vp, *s.tp], np.float32) / WIN_VP,
        "phase": one_hot(4, ("start", "setup", "war", "over").index(s.phase)),
        "player": one_hot(2, s.player),
        "setup_done": np.asarray(s.setup_done, np.float32),
        "plies": np.asarray([s.plies / s.max_plies], np.float32),
    }


def max_game_length(s: Any) -> int:
    """An upper bound of the moves (decisions and chance nodes) of a game of this setting.
    Tied start rolls of 2 dice; setup places dice of power >= 1 until 10 each; then one
    Standard Action a ply."""
    return 2 * TIE_ROLLS + 2 * 10 + s.max_plies + 1
