"""Pig, a toy sixth game that lives only in the tests: its declaration."""

from __future__ import annotations

from rules.core.spec import GameSpec, Golden, OptionSpec

GAME = GameSpec(
    name="toy-pig",
    title="Pig (a toy game of the tests)",
    min_players=2,
    max_players=4,
    package="tests.toy_pig",
    options=(
        OptionSpec("target", int, 20, "points to win", minimum=5, maximum=100),
        OptionSpec("max_turns", int, 60, "house limit: then the most points wins", minimum=1),
    ),
    golden=Golden(("greedy", "random")),
    quick={"max_turns": 4},
)
