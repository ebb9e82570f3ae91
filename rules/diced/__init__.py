"""Diced (3 to 8 players, d6): the engine in `rules.diced.game`; its rules and decisions
are in that module's docstring."""

from rules.diced.bots import BOT_SETTINGS, candidate_actions, greedy_action, heuristic
from rules.diced.game import DicedState, deserialize, exact_steal_probability, new_game
from rules.diced.spaces import encode, max_game_length, vocabulary

__all__ = [
    "encode",
    "max_game_length",
    "vocabulary",
    "BOT_SETTINGS",
    "DicedState",
    "candidate_actions",
    "deserialize",
    "exact_steal_probability",
    "greedy_action",
    "heuristic",
    "new_game",
]
