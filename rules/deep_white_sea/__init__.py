"""Diceland: Deep White Sea (`../shared/rulebooks/deep-white-sea.txt`): a pure rule engine
adjudicated from what a `Table` reports, a kinematic table, and bots.

Plug-in functions for `rules.registry`: `new_game`, `deserialize`, `heuristic`,
`greedy_action`, and `make_bot` for the game's own players (`OWN_PLAYERS`: random,
greedy and planner, whose throws carry specs, and the terminal human who enters aim,
speed and spin). `save_game` / `load_game` keep a game in progress as JSON.
Options: `crews` ('white,blue': one or two crew names or YAML paths), `table`
('physics' or 'kinematic'; 'physics' is the simulator's, registered with its plug-ins),
`max_turns` (house limit), `first` (1 or 2: who goes first; default drawn). They are
checked by `rules.registry` (`game_options`), the table defaulting to the registry's
physics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rules.core import saves
from rules.deep_white_sea.bots import (
    BOT_SETTINGS,
    OWN_PLAYERS,
    GreedyBot,
    HumanPlayer,
    PlannerBot,
    RandomBot,
    aimed_throw,
    greedy_action,
    heuristic,
    human_throw,
    make_bot,
    random_throw,
    throw_action,
    value,
)
from rules.deep_white_sea.game import (
    WIN_POINTS,
    DWSState,
    deserialize_state,
    load_crews,
    make_table,
    new_state,
    register_table,
    spec_to_tuple,
)
from rules.deep_white_sea.kinematic import KinematicTable
from rules.deep_white_sea.spaces import encode, max_game_length, vocabulary
from rules.deep_white_sea.spec import GAME


def new_game(num_players: int, options: dict[str, Any] | None = None,
             rng: np.random.Generator | None = None) -> DWSState:
    """A new game on the table the options name (the registry's default: physics, which
    the simulator registers with its plug-ins). Who goes first is drawn with `rng` (rulebook,
    "Who Goes First"); the option `first` (1 or 2) fixes it instead."""
    GAME.check_players(num_players)
    options = GAME.resolve_options(options)
    crews = load_crews(options["crews"])
    kind = options["table"]
    if options["first"] is not None:
        first = options["first"] - 1
    else:
        first = int((rng if rng is not None else np.random.default_rng(0)).integers(2))
    table = make_table(kind, options)
    return new_state(crews, table, kind, first, options["max_turns"])


def deserialize(data: dict[str, Any]) -> DWSState:
    return deserialize_state(data)


def save_game(state: DWSState, path: str | Path) -> None:
    """Write a game in progress (the table's exact scene included) in the one save format
    `tabletop play --save` writes (`rules.core.saves`), atomically."""
    saves.save_game(path, "deep-white-sea", state)


def load_game(path: str | Path) -> DWSState:
    """A game saved by `save_game` or `tabletop play --save` (one-line `RulesError`s)."""
    state: DWSState = saves.load_game(path, "deep-white-sea")
    return state


__all__ = [
    "encode",
    "max_game_length",
    "vocabulary",
    "BOT_SETTINGS",
    "OWN_PLAYERS",
    "HumanPlayer",
    "human_throw",
    "save_game",
    "load_game",
    "WIN_POINTS",
    "DWSState",
    "GreedyBot",
    "KinematicTable",
    "PlannerBot",
    "RandomBot",
    "aimed_throw",
    "deserialize",
    "greedy_action",
    "heuristic",
    "make_bot",
    "make_table",
    "new_game",
    "random_throw",
    "register_table",
    "spec_to_tuple",
    "throw_action",
    "value",
]
