"""Diced (3 to 8 players, d6): the engine in `rules.diced.game`; its rules and decisions
are in that module's docstring."""

from rules.diced.game import (
    DicedState,
    candidate_actions,
    deserialize,
    exact_steal_probability,
    greedy_action,
    heuristic,
    new_game,
)

BOT_SETTINGS = {"mcts": {"iterations": 200, "rollout_depth": 0, "exploration": 0.5,
                         "prior_weight": 2.0}}

__all__ = [
    "BOT_SETTINGS",
    "DicedState",
    "candidate_actions",
    "deserialize",
    "exact_steal_probability",
    "greedy_action",
    "heuristic",
    "new_game",
]
