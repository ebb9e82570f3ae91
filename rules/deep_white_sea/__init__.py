"""Diceland: Deep White Sea (`../shared/rulebooks/deep-white-sea.txt`): a pure rule engine
adjudicated from what a `Table` reports, a kinematic table, and bots.

Plug-in functions for `rules.registry`: `new_game`, `deserialize`, `heuristic`,
`greedy_action`, and `make_bot` for the game's own players (`OWN_PLAYERS`: random,
greedy and planner, whose throws carry specs, and the terminal human who enters aim,
speed and spin). `save_game` / `load_game` keep a game in progress as JSON.
Options: `crews` ('white,blue': one or two crew names or YAML paths), `table`
('physics' or 'kinematic'; 'physics' is registered by `simulator.physics_table`),
`max_turns` (house limit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from rules.core.protocols import RulesError
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
    TABLE_KINDS,
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

DEFAULT_CREWS = "white,blue"


def new_game(num_players: int, options: dict[str, Any] | None = None,
             rng: np.random.Generator | None = None) -> DWSState:
    """A new game. Who goes first is drawn with `rng` (rulebook, "Who Goes First");
    `options['first']` (1 or 2) fixes it instead."""
    if num_players != 2:
        raise RulesError(f"deep-white-sea takes 2 players, got {num_players}")
    options = dict(options or {})
    crews = load_crews(options.get("crews") or DEFAULT_CREWS)
    kind = str(options.get("table") or "kinematic")
    max_turns = int(options.get("max_turns") or 200)
    if max_turns < 1:
        raise RulesError(f"deep-white-sea: --max-turns must be at least 1, got {max_turns}")
    first_opt = options.get("first")
    if first_opt:
        first = int(first_opt) - 1
        if first not in (0, 1):
            raise RulesError(f"deep-white-sea: --first must be 1 or 2, got {first_opt}")
    else:
        first = int((rng if rng is not None else np.random.default_rng(0)).integers(2))
    table = make_table(kind, options)
    return new_state(crews, table, kind, first, max_turns)


def deserialize(data: dict[str, Any]) -> DWSState:
    return deserialize_state(data)


def save_game(state: DWSState, path: str | Path) -> None:
    """Write a game in progress as JSON (the table's exact scene included)."""
    Path(path).write_text(json.dumps(state.serialize(), indent=1))


def load_game(path: str | Path) -> DWSState:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise RulesError(f"{path}: cannot read save ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise RulesError(f"{path}: not a JSON save ({exc.msg})") from None
    if not isinstance(data, dict):
        raise RulesError(f"{path}: not a deep-white-sea save")
    return deserialize_state(data)


__all__ = [
    "BOT_SETTINGS",
    "OWN_PLAYERS",
    "HumanPlayer",
    "human_throw",
    "save_game",
    "load_game",
    "DEFAULT_CREWS",
    "TABLE_KINDS",
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
