"""The five games as PettingZoo AEC environments, through Shimmy's OpenSpiel wrapper
around our OpenSpiel games (`simulator.ai.openspiel`): one agent per seat (`player_0`,
...), the observation tensor as the observation, the legal actions as
`infos[agent]["action_mask"]`, chance nodes sampled with the environment's seeded
generator (so `reset(seed=...)` repeats an episode), and the rewards of the game's end.

    from simulator.ai.pettingzoo import env
    e = env("diceland-hex", {"board": "compact"})
    e.reset(seed=1)
"""

from __future__ import annotations

from typing import Any

from simulator.ai import require


def env(game: str, params: dict[str, Any] | None = None, render_mode: str | None = None) -> Any:
    """A PettingZoo AEC environment of `game` (a registry name) with OpenSpiel parameters
    `params` (see `simulator.ai.openspiel`)."""
    shimmy = require("shimmy")
    require("pettingzoo")
    from simulator.ai import openspiel

    return shimmy.OpenSpielCompatibilityV0(env=openspiel.load(game, params),
                                           render_mode=render_mode)
