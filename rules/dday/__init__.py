"""D-Day Dice (`../shared/rulebooks/dday-dice.txt`): a pure rule engine, battle maps as
YAML data (`rules/dday/maps/`), and players.

Plug-in functions for `rules.registry`: `new_game`, `deserialize`, `heuristic`,
`greedy_action`, `make_bot` (the `expectimax` player).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import RulesError
from rules.dday.battlemap import ITEMS, SPECIALISTS, BattleMap, available, load_map, parse_map
from rules.dday.bots import DDayBot, DiceValuer, greedy_action, heuristic, make_bot
from rules.dday.game import MAX_PLAYERS, DDayState, deserialize_state
from rules.dday.spaces import encode, max_game_length, vocabulary
from rules.dday.spec import GAME
from rules.dday.unit import Unit, equipment_points, rwb_triples


def new_game(num_players: int, options: dict[str, Any] | None = None,
             rng: np.random.Generator | None = None) -> DDayState:
    """A new game; options: `map` (a shipped map name or a YAML path), `dmc15` (the
    Additional Rule: Dead Man's Chest gives 15 EP), `binoculars_on_fire` (the Additional
    Rule: Binoculars may change a Machine-Gun or Minefield roll)."""
    del rng  # every die roll is a chance node
    if not 1 <= num_players <= MAX_PLAYERS:
        raise RulesError(f"dday takes 1 to {MAX_PLAYERS} players, got {num_players}")
    options = GAME.resolve_options(options)
    bm = load_map(options["map"])
    return DDayState(bm, num_players, {
        "dead_mans_chest_ep": 15 if options["dmc15"] else 20,
        "binoculars_on_fire": options["binoculars_on_fire"],
    })


def deserialize(data: dict[str, Any]) -> DDayState:
    return deserialize_state(data)


__all__ = [
    "encode",
    "max_game_length",
    "vocabulary",
    "ITEMS",
    "SPECIALISTS",
    "BattleMap",
    "DDayBot",
    "DDayState",
    "DiceValuer",
    "Unit",
    "available",
    "deserialize",
    "equipment_points",
    "greedy_action",
    "heuristic",
    "load_map",
    "make_bot",
    "new_game",
    "parse_map",
    "rwb_triples",
]
