"""Shared vocabulary of the rule engines: protocols for the world, and the seeded roller."""

from rules.core.protocols import (
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    DiceRoller,
    DiePose,
    GameState,
    RulesError,
    Table,
    TableError,
    ThrowResult,
    ThrowSpec,
    TipResult,
)
from rules.core.rollers import SeededRoller

__all__ = [
    "CHANCE_PLAYER",
    "TERMINAL_PLAYER",
    "DiceRoller",
    "DiePose",
    "GameState",
    "RulesError",
    "SeededRoller",
    "Table",
    "TableError",
    "ThrowResult",
    "ThrowSpec",
    "TipResult",
]
