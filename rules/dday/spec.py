"""D-Day Dice: what the game declares about itself (`rules.core.spec`), read by the
registry and by everything that plays, lists, fuzzes or adapts games."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GOLDEN = Golden(("greedy",))

GAME = GameSpec(
    name="dday",
    title="D-Day Dice",
    min_players=1,
    max_players=4,
    package="rules.dday",
    options=(
        OptionSpec("map", str, "greyrock-cove",
                   "battle map: a shipped map name or a map YAML file"),
        OptionSpec("dmc15", bool, False,
                   "Additional Rule: Dead Man's Chest gives 15 EP instead of 20"),
        OptionSpec("binoculars_on_fire", bool, False,
                   "Additional Rule: Binoculars may change a Machine-Gun or Minefield roll"),
    ),
    bots=("random", "greedy", "expectimax"),
    utility="general-sum",  # a solo game: the one return is 0 or 1
    golden=GOLDEN,
)
