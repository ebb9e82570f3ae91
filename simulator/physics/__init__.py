"""The PyBullet world: table, dice, throws, fouls, tips and d6 trays."""

from simulator.physics.dice import DieShape, die_shape, shape_by_name
from simulator.physics.settings import SURFACES, PhysicsSettings, Surface, TableSpec, load_table
from simulator.physics.world import (
    FOOT,
    NonFiniteError,
    NotSettledError,
    Outcome,
    PhysicsError,
    PlacementError,
    Pose,
    Throw,
    ThrowReport,
    TipReport,
    TunnelError,
    World,
    check_release,
    validate_throw,
)

__all__ = [
    "FOOT",
    "SURFACES",
    "DieShape",
    "NonFiniteError",
    "NotSettledError",
    "Outcome",
    "PhysicsError",
    "PhysicsSettings",
    "PlacementError",
    "Pose",
    "Surface",
    "TableSpec",
    "Throw",
    "ThrowReport",
    "TipReport",
    "TunnelError",
    "World",
    "check_release",
    "die_shape",
    "load_table",
    "shape_by_name",
    "validate_throw",
]
