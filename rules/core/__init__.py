"""Shared vocabulary of the rule engines: the game contract (GameState, StateBase,
GameModule, Action), protocols for the world, and the seeded roller."""

from rules.core.protocols import (
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    Action,
    DiceRoller,
    DiePose,
    GameModule,
    GameState,
    RulesError,
    StateBase,
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
    "Action",
    "DiceRoller",
    "DiePose",
    "GameModule",
    "GameState",
    "RulesError",
    "StateBase",
    "SeededRoller",
    "Table",
    "TableError",
    "ThrowResult",
    "ThrowSpec",
    "TipResult",
]
