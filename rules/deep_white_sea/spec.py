"""Diceland: Deep White Sea: what the game declares about itself (`rules.core.spec`), read by the
registry and by everything that plays, lists, fuzzes or adapts games."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GOLDEN = Golden(("greedy", "planner"), options={"table": "kinematic"})

GAME = GameSpec(
    name="deep-white-sea",
    title="Diceland: Deep White Sea",
    min_players=2,
    max_players=2,
    package="rules.deep_white_sea",
    options=(
        OptionSpec("crews", str, "white,blue",
                   "crew for both players, or two separated by a comma (names or YAML files)"),
        OptionSpec("table", str, "physics", "the table that adjudicates throws and tips",
                   choices=("physics", "kinematic")),
        OptionSpec("max_turns", int, 200,
                   "house limit: after this many turns the higher score wins", minimum=1),
        OptionSpec("first", int, None,
                   "the player who goes first, 1 or 2 (default: drawn with the seed)",
                   minimum=1, maximum=2),
    ),
    bots=("random", "greedy", "planner"),
    chance="none",
    # The golden story runs on the kinematic table: the rules layer's own, no PyBullet needed.
    golden=GOLDEN,
    # The physics table is minutes a game; the fuzz suite plays two turns on the kinematic one.
    quick={"table": "kinematic", "max_turns": 2},
)
