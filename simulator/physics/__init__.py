"""The PyBullet world: table, dice, throws, fouls, tips and d6 trays. A throw and a die's pose
are the rules' own types (`rules.core.protocols.ThrowSpec`, `DiePose`), re-exported here."""

from rules.core.protocols import DiePose, ThrowSpec
from simulator.physics.dice import DieShape, die_shape, shape_by_name
from simulator.physics.settings import SURFACES, PhysicsSettings, Surface, TableSpec, load_table
from simulator.physics.world import (
    FOOT,
    NonFiniteError,
    NotSettledError,
    PhysicsError,
    PlacementError,
    Pose,
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
    "DiePose",
    "PhysicsError",
    "PhysicsSettings",
    "PlacementError",
    "Pose",
    "Surface",
    "TableSpec",
    "ThrowSpec",
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
