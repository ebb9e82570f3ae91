"""What the simulator plugs into the pure rule engines, loaded in one place for every
program that plays a game (the command line, the server and its clients, the windows and
the game-AI adapters): the tables it provides (`rules.core.tables`) and its dice rollers.

The rules never name these modules; a game asks for a table or a roller by kind ('physics')
and gets what was registered here. The physics table is registered lazily: its module (and
PyBullet with it) is imported the first time a game makes or restores a physics table, so a
game without one pays nothing for it.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from rules.core.protocols import DiceRoller, RulesError, Table
from rules.core.rollers import SeededRoller
from rules.core.tables import register_table

ROLLERS = ("seeded", "physics")  # the dice rollers a game can be played with


def _physics_table() -> ModuleType:
    # Importing it registers the real maker and loader in place of the stand-ins below.
    return importlib.import_module("simulator.physics_table")


def _make_physics(options: dict[str, Any]) -> Table:
    make = _physics_table().make
    table: Table = make(options)
    return table


def _load_physics(data: dict[str, Any]) -> Table:
    table: Table = _physics_table().PhysicsTable.from_json(data)
    return table


def load_plugins() -> None:
    """Register the simulator's tables with the rules (idempotent and cheap: the physics
    table's module loads when the first such table is made)."""
    if "simulator.physics_table" not in sys.modules:
        register_table("physics", _make_physics, _load_physics)


def make_roller(kind: str) -> DiceRoller:
    """The dice roller `kind` names: seeded random dice, or physics dice thrown in a tray."""
    if kind == "seeded":
        return SeededRoller()
    if kind != "physics":
        raise RulesError(f"dice: unknown roller {kind[:40]!r}; known: {', '.join(ROLLERS)}")
    try:
        module = importlib.import_module("simulator.physics.roller")
    except ImportError as exc:
        raise RulesError(f"--dice physics: the physics roller is not available ({exc})") \
            from None
    roller: DiceRoller = module.PhysicsRoller()
    return roller
