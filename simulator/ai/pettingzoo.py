"""The five games as PettingZoo AEC environments, through Shimmy's OpenSpiel wrapper
around our OpenSpiel games (`simulator.ai.openspiel`): one agent per seat (`player_0`,
...), the observation tensor as the observation, the legal actions as
`infos[agent]["action_mask"]`, chance nodes sampled with the environment's seeded
generator (so `reset(seed=...)` repeats an episode), and the rewards of the game's end.

    from simulator.ai.pettingzoo import env
    e = env("diceland-hex", {"board": "compact"})
    e.reset(seed=1)

The parameters hold across resets: Shimmy's wrapper reloads its game by name at every
`reset()`, which without its `config` means the defaults (a DiceWar with ruins played
without them, a 5-player Diced crashed at reset); this one gives it the parameters as its
`config`, so every episode is a game of the setting the environment was made with.
"""

from __future__ import annotations

from typing import Any

from rules import registry
from simulator.ai import openspiel, require

shimmy = require("shimmy")
require("pettingzoo")
EzPickle = require("gymnasium.utils").EzPickle


class TabletopAEC(shimmy.OpenSpielCompatibilityV0):  # type: ignore[misc,name-defined]
    """Shimmy's OpenSpiel wrapper given the parameters as its `config`, which it loads the
    game with at every reset; pickles as (game, params, render_mode)."""

    def __init__(self, game: str, params: dict[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        self.params = dict(params or {})
        super().__init__(game_name=openspiel.short_name(registry.lookup(game).name),
                         render_mode=render_mode, config=self.params)
        EzPickle.__init__(self, game, self.params, render_mode)


def env(game: str, params: dict[str, Any] | None = None, render_mode: str | None = None) -> Any:
    """A PettingZoo AEC environment of `game` (a registry name) with OpenSpiel parameters
    `params` (see `simulator.ai.openspiel`), kept across resets."""
    return TabletopAEC(game, params, render_mode)
