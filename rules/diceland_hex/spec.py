"""Diceland (hex tiles): what the game declares about itself (`rules.core.spec`), read by the
registry and by everything that plays, lists, fuzzes or adapts games."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GOLDEN = Golden(("greedy", "greedy"))

GAME = GameSpec(
    name="diceland-hex",
    title="Diceland (hex tiles)",
    min_players=2,
    max_players=2,
    package="rules.diceland_hex",
    options=(
        OptionSpec("board", str, "compact",
                   "preset board name, a board YAML file, or 'random'"),
        # The bounds of every board (rules.diceland_hex.board.MIN_TILES, MAX_TILES), kept
        # here as numbers so that listing the games imports no engine.
        OptionSpec("tiles", int, 20, "tile count of a random board (even, 8 to 36)",
                   minimum=8, maximum=36, step=2),
        OptionSpec("terrain", bool, False, "play the terrain variant"),
        OptionSpec("max_rounds", int, 200,
                   "house limit: after this many rounds the game ends as if no one attacked",
                   minimum=1),
    ),
    golden=GOLDEN,
)
