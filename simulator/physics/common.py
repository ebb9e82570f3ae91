"""What every physics engine shares and reports: the table's geometric constants, the
errors, a die's pose, a placed die, a frame of a trajectory, the throw and tip reports, the
release rule (`rules.core.throwing`) and the rotation helpers. Engine-neutral: no engine is
simulated here (Pose.rotation reads PyBullet's quaternion-to-matrix formula, as every
result ever recorded was computed with it)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_models import DieModel
from dice_models.numerics import matmul
from rules.core.protocols import DiePose, ThrowResult, ThrowSpec, TipResult
from rules.core.throwing import check_throw, foul_of
from simulator.physics._bullet import pybullet
from simulator.physics.dice import DieShape
from simulator.physics.dice import quat_from_matrix as quat_from_matrix  # (re-exported)
from simulator.physics.settings import TableSpec

# CCD does not act on multibody dice, and at the 50 m/s speed limit a die moves 0.21 m per
# 1/240 s step; a slab thicker than twice that always pushes a die out through its top.
# (Maximal-coordinate bodies get CCD but ignore our 0.1 mm collision margin and rest 1 mm
# high: tested on PyBullet 3.2.7.)
TABLE_THICKNESS = 0.5  # m
FLAT_DEG = 2.0  # a die rests flat when its bottom face is within this of horizontal
COS_FLAT = math.cos(math.radians(FLAT_DEG))
FLAT_HEIGHT = 0.0015  # m: ... and its bottom corners are this close to the table surface
MOVED_M = 0.0005  # a die moved more than this (m) or turned more than TURNED_DEG is disturbed
TURNED_DEG = 1.0


# Bullet reports two dice that just touch as -0.2 mm apart (each shape's collision margin,
# 0.1 mm, counts): a Bullet distance below -TOUCH_M is a true penetration, at a placement or
# at one of a tip's 24 poses against an obstacle. Tips against dice use the exact,
# continuous sweep of dice_models.geometry with SWEEP_TOLERANCE_M (0.01 mm), as the
# kinematic table does.
TOUCH_M = 0.0002


class PhysicsError(RuntimeError):
    """The simulation failed: it never came to rest, a die tunnelled, or a value blew up."""


class NotSettledError(PhysicsError):
    pass


class TunnelError(PhysicsError):
    pass


class NonFiniteError(PhysicsError):
    pass


class PlacementError(ValueError):
    """A placement or tip the table refuses (overlap, off the table, die not resting)."""



@dataclass(frozen=True)
class Pose:
    position: tuple[float, float, float]  # geometric centre, m
    quaternion: tuple[float, float, float, float]  # (x, y, z, w)

    def rotation(self) -> np.ndarray:
        return np.array(pybullet.getMatrixFromQuaternion(self.quaternion)).reshape(3, 3)


@dataclass(frozen=True)
class PlacedDie:
    name: str
    model: DieModel
    pose: Pose


@dataclass(frozen=True)
class Frame:
    t: float  # s since release
    poses: dict[str, tuple[tuple[float, float, float], tuple[float, float, float, float]]]


@dataclass(frozen=True, kw_only=True)
class ThrowReport(ThrowResult):
    """A throw as the physics saw it: the rules' `ThrowResult` (foul, the thrown die's pose,
    the disturbed dice, the physics record) plus the die, the throw as given, the seat,
    whether and when everything came to rest, the trajectory when recorded and the
    symmetry-breaking perturbation. `to_json` is the `tabletop throw` record."""

    die: str
    throw: ThrowSpec
    player: int
    settled: bool
    steps: int
    sim_time_s: float
    physics: dict[str, Any]
    trajectory: tuple[Frame, ...] | None = None
    perturbation: dict[str, Any] | None = None  # see symmetry_break

    def to_json(self) -> dict[str, Any]:
        extra = {"perturbation": self.perturbation} if self.perturbation is not None else {}
        return {**extra,
            "die": self.die,
            "throw": self.throw.to_json(),
            "player": self.player,
            "foul": self.foul,
            "foul_reason": self.foul_reason,
            "settled": self.settled,
            "steps": self.steps,
            "sim_time_s": self.sim_time_s,
            "physics": self.physics,
            "outcome": self.outcome.to_json(),
            "disturbed": [{"die": b.die, "before": b.to_json(), "after": a.to_json()}
                          for b, a in self.disturbed],
        }


@dataclass(frozen=True, kw_only=True)
class TipReport(TipResult):
    """A tip as the physics saw it: the rules' `TipResult` (rolled, the pose after, what
    blocked it) plus the die, the corner and the pose before."""

    die: str
    corner: str
    before: DiePose



def check_release(table: TableSpec, player: int, throw: ThrowSpec) -> tuple[bool, str | None]:
    """Foul or not, and why: the release rule every table shares (`rules.core.throwing`),
    at this table's edge lines."""
    return foul_of(throw, player, table.edge_y)


def validate_throw(throw: ThrowSpec, source: str = "throw") -> None:
    """Refuse throws no person could make (`rules.core.throwing.check_throw`: one
    `ThrowError` line, a `DataError` and a `RulesError`)."""
    check_throw(throw, source)



MAX_POISED = 40  # hold restarts of a poised die before its tilted rest is accepted


def world_vertices(shape: DieShape, pose: Pose) -> np.ndarray:
    return matmul(shape.poly.vertices, pose.rotation().T) + np.array(pose.position)
