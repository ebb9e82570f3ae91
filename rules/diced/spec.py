"""Diced: what the game declares about itself (`rules.core.spec`), read by the
registry and by everything that plays, lists, fuzzes or adapts games."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GOLDEN = Golden(("greedy", "greedy", "greedy"))

GAME = GameSpec(
    name="diced",
    title="Diced",
    min_players=3,
    max_players=8,
    package="rules.diced",
    options=(
        OptionSpec("pool", int, None,
                   "dice in the pool at the start (default: 3 per player)"),
        OptionSpec("max_rounds", int, 200,
                   "house limit: after this many rounds the most dice wins", minimum=1),
    ),
    golden=GOLDEN,
)
