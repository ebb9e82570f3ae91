"""DiceWar: Light of Dragons (`../shared/rulebooks/dicewar.txt`), a pure rule engine,
tribes as YAML data (`rules/dicewar/tribes/`), and bots.

Plug-in functions for `rules.registry`: `new_game`, `deserialize`, `heuristic`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import RulesError
from rules.dicewar.bots import BOT_SETTINGS, GreedyBot, greedy_action, heuristic
from rules.dicewar.game import (
    DiceWarState,
    beats,
    cell_name,
    deserialize_state,
    field_bonus,
    new_state,
    parse_cell,
)
from rules.dicewar.spaces import encode, max_game_length, vocabulary
from rules.dicewar.spec import GAME
from rules.dicewar.tribe import Tribe, available, load_tribe, parse_tribe


def new_game(num_players: int, options: dict[str, Any] | None = None,
             rng: np.random.Generator | None = None) -> DiceWarState:
    """A new game; options: `tribes` ('name' or 'name,name', names or YAML paths),
    `ruins` (bool), `max_plies` (int)."""
    del rng  # the only randomness is the start roll, a chance node
    GAME.check_players(num_players)
    options = GAME.resolve_options(options)
    spec = options["tribes"]
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if len(names) not in (1, 2):
        raise RulesError(f"dicewar: --tribes takes one or two tribes, got {spec!r}")
    tribes = [load_tribe(n) for n in names]
    pair = (tribes[0], tribes[-1])
    return new_state(pair, ruins=options["ruins"], max_plies=options["max_plies"])


def deserialize(data: dict[str, Any]) -> DiceWarState:
    return deserialize_state(data)


__all__ = [
    "encode",
    "max_game_length",
    "vocabulary",
    "BOT_SETTINGS",
    "DiceWarState",
    "GreedyBot",
    "Tribe",
    "available",
    "beats",
    "cell_name",
    "deserialize",
    "field_bonus",
    "greedy_action",
    "heuristic",
    "load_tribe",
    "new_game",
    "parse_cell",
    "parse_tribe",
]
