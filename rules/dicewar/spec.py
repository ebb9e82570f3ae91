"""DiceWar: Light of Dragons: what the game declares about itself (`rules.core.spec`), read by the
registry and by everything that plays, lists, fuzzes or adapts games."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GOLDEN = Golden(("greedy", "random"))

GAME = GameSpec(
    name="dicewar",
    title="DiceWar: Light of Dragons",
    min_players=2,
    max_players=2,
    package="rules.dicewar",
    options=(
        OptionSpec("tribes", str, "emberfen",
                   "tribe for both players, or two separated by a comma (names or YAML files)"),
        OptionSpec("ruins", bool, False, "play the Location 'The Ruins'"),
        OptionSpec("max_plies", int, 400,
                   "house limit: after this many turns more victory points wins", minimum=1),
    ),
    golden=GOLDEN,
)
