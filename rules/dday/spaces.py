"""D-Day Dice for game-AI libraries (`rules.core.spaces`): every action of a setting
numbered (`vocabulary`), the state as named float32 arrays (`encode`), and a bound of a
game's moves (`max_game_length`)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.spaces import TIE_ROLLS, Vocabulary, one_hot


def vocabulary(state: Any) -> Vocabulary:
    from rules.dday.battlemap import ITEMS, SPECIALISTS
    from rules.dday.game import COLOURS, SOLDIER_ITEMS

    six = range(6)
    actions: list[Action] = [(w,) for w in ("done", "flak_jacket", "no_trade", "end_items",
                                            "stay", "mine_detector", "cross", "accept_roll",
                                            "fight")]
    actions += [("keep", i, j) for i, j in itertools.combinations(six, 2)]
    actions += [("reroll", c) for k in range(1, 5) for c in itertools.combinations(six, k)]
    actions += [(w, i) for w in ("sergeant", "backpack", "cancel") for i in six]
    actions += [("binoculars", i, v) for i in six for v in range(1, 7)]
    actions += [(w, i, c) for w in ("terrain_map", "officer_colour") for i in six
                for c in COLOURS]
    actions += [("trade", i, q, j) for i in six for q in range(state.num_players())
                for j in six]
    actions += [("surge_colour", c) for c in COLOURS]
    actions += [("star", s) for s in SPECIALISTS]
    actions += [("buy", it) for it in ITEMS]
    actions += [("use", it) for it in ITEMS if it in SOLDIER_ITEMS or it in _combat_items()]
    actions += [("use", "medal", s) for s in SPECIALISTS]
    actions += [("use", "medal_of_honor", w) for w in ("courage", "hero")]
    actions += [("move", s) for s in state.map.sectors]
    actions += [("move", s, "whistle") for s in state.map.sectors]
    actions += [("binoculars_fire", v) for v in range(1, 7)]
    actions += [("lose", w) for w in ("soldier", "courage", *SPECIALISTS)]
    return Vocabulary("dday", actions)


def _combat_items() -> tuple[str, ...]:
    from rules.dday.game import COMBAT_ITEMS

    return COMBAT_ITEMS


DDAY_PHASES = ("roll", "trade", "resolve", "move", "fire", "combat", "over")
DDAY_NODES = ("", "chance", "keep", "rolling", "trade", "cancel", "surge_colour", "stars",
              "items", "move", "mine", "fire_binoculars", "combat", "losses")


def encode(s: Any) -> dict[str, np.ndarray]:
    from rules.dday.battlemap import ITEMS, SPECIALISTS
    from rules.dday.game import COLOURS

    sectors = list(s.map.sectors)
    units = []
    for u in s.units:
        dice = np.zeros((6, 6), np.float32)
        for i, v in enumerate(u.dice[:6]):
            dice[i, v - 1] = 1.0
        units.append(np.concatenate([
            one_hot(len(sectors), sectors.index(u.sector)),
            np.asarray([u.soldiers / 20.0, u.courage / 10.0, u.ep / 50.0, u.vp / 100.0,
                        u.rerolls / 2.0], np.float32),
            np.asarray([it in u.items for it in ITEMS], np.float32),
            np.asarray([sp in u.specialists for sp in SPECIALISTS], np.float32),
            np.asarray([sp in u.dead for sp in SPECIALISTS], np.float32),
            dice.ravel(),
            np.concatenate([one_hot(3, COLOURS.index(c)) for c in u.colours[:6]]),
            np.asarray([i in u.kept for i in range(6)], np.float32),
            one_hot(3, ("active", "won", "defeated").index(u.status)),
            one_hot(3, ("none", "held", "used").index(u.medal)),
        ]))
    return {
        "units": np.stack(units),
        "phase": one_hot(len(DDAY_PHASES), DDAY_PHASES.index(s.phase)),
        "node": one_hot(len(DDAY_NODES), DDAY_NODES.index(s.node)),
        "seat": one_hot(len(s.units), s.seat),
        "turn": np.asarray([s.turn / 20.0], np.float32),
    }


def max_game_length(s: Any) -> int:
    """An upper bound of the moves (decisions and chance nodes) of a game of this setting.
    A unit stays at most 3 turns in a sector and never re-enters one; a unit's turn has a
    roll of 6 dice, <= 3 re-rolls of <= 4, item uses, moves, fire and losses: 400 moves
    bound it, plus re-rolled Surge skulls."""
    turns = 3 * len(s.map.sectors)
    return turns * len(s.units) * 400 + TIE_ROLLS
