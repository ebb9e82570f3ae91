"""What the PyBullet world reads of its bodies: a die's pose (its geometric frame, from
Bullet's inertial one), the contacts (touching, penetrating, poised with nothing to lean
on), the classification of a rest (kept per scene: `classes_of`), and the grid of resting
dice that keeps a placement's questions to its neighbours. Part of the PyBullet backend
(simulator/physics/world.py)."""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from dice_models.numerics import matmul
from rules.core.protocols import DiePose
from simulator.physics._bullet import pybullet
from simulator.physics.common import TOUCH_M, Pose
from simulator.physics.common import quat_from_matrix as _quat_from_matrix
from simulator.physics.dice import DieShape
from simulator.physics.settings import PhysicsSettings, TableSpec
from simulator.physics.settle import describe as _describe
from simulator.physics.settle import poised

if TYPE_CHECKING:
    from dice_models import DieModel
    from simulator.physics.world import World, _Body


class _Grid:
    """Dice centres in square cells of the table plane, each with its reach (m): the dice
    whose reach could meet a given disc are found by looking in the cells around it only."""

    CELL = 0.1  # m: a few dice across

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], dict[str, tuple[float, float, float]]] = {}
        self.cell_of: dict[str, tuple[int, int]] = {}
        self.widest = 0.0  # the largest reach ever held (only grows: a safe bound)

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        return math.floor(x / self.CELL), math.floor(y / self.CELL)

    def add(self, name: str, x: float, y: float, reach: float) -> None:
        """Hold `name` at (x, y), moving it there if it is held elsewhere."""
        self.discard(name)
        cell = self._cell(x, y)
        self.cells.setdefault(cell, {})[name] = (x, y, reach)
        self.cell_of[name] = cell
        self.widest = max(self.widest, reach)

    def discard(self, name: str) -> None:
        cell = self.cell_of.pop(name, None)
        if cell is not None:
            del self.cells[cell][name]

    def near(self, x: float, y: float, reach: float) -> set[str]:
        """The dice whose reach, seen from above, meets the disc of `reach` about (x, y)."""
        span = reach + self.widest
        i0, j0 = self._cell(x - span, y - span)
        i1, j1 = self._cell(x + span, y + span)
        out = set()
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for other, (ox, oy, r) in self.cells.get((i, j), {}).items():
                    if (ox - x) ** 2 + (oy - y) ** 2 <= (r + reach) ** 2:
                        out.add(other)
        return out


class BulletReads:
    """The PyBullet world's reads of its bodies (a part of `World`)."""

    table: TableSpec
    settings: PhysicsSettings
    keep_table: bool
    _client: Any
    _bodies: dict[str, _Body]
    _obstacles: dict[int, str]
    _table_id: int
    _still: bool
    _grid: _Grid | None

    def _pose_of(self, body: _Body) -> Pose:
        if body.removed:
            return Pose(tuple(body.last_pos.tolist()), body.last_orn)  # type: ignore[arg-type]
        pos, orn = self._client.getBasePositionAndOrientation(body.bid)
        if body.shape.shape_key is not None:  # balanced: Bullet's base frame is the geometric one
            x, y, z, w = orn
            return Pose((pos[0], pos[1], pos[2]), (x, y, z, w) if w >= 0 else (-x, -y, -z, -w))
        rot_b = np.array(pybullet.getMatrixFromQuaternion(orn)).reshape(3, 3)
        rot = matmul(rot_b, body.shape.principal_axes.T)
        centre = np.array(pos) - matmul(rot, body.shape.mass.com)
        return Pose((float(centre[0]), float(centre[1]), float(centre[2])), _quat_from_matrix(rot))

    def _poised(self, body: _Body) -> bool:
        """settle.poised, for a die of this world (a removed one is not)."""
        if body.removed:
            return False
        pose = self._pose_of(body)
        x, y, z, w = pose.quaternion
        up = (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))  # rotation's 3rd row
        return poised(body.shape, up, pose, self.table, lambda: any(
            cp[2] != self._table_id and cp[8] < 1e-3
            for cp in self._client.getContactPoints(bodyA=body.bid)))

    def _classify(self, name: str, touching_ids: set[int] | None = None) -> DiePose:
        """How die `name` lies; `touching_ids` (from _touching_ids) when classifying many."""
        body = self._bodies[name]
        touching = False
        # Leaning needs something to lean on: with no obstacles and no other die there is none.
        if not body.removed and (self._obstacles or len(self._bodies) > 1):
            touching = (body.bid in touching_ids if touching_ids is not None
                        else self._in_contact(body.bid))
        return _describe(name, body.shape, self._pose_of(body), self.table, touching, body.removed)

    def _in_contact(self, bid: int) -> bool:
        """Is body `bid` in contact (closer than 1 mm) with a die or an obstacle?"""
        return any(cp[2] != self._table_id and cp[8] < 1e-3
                   for cp in self._client.getContactPoints(bodyA=bid))

    def _touching_ids(self) -> set[int]:
        """Bullet ids of the bodies in contact (closer than 1 mm) with a die or an obstacle,
        from one query of every contact point: asking body by body walks every contact for
        each die, O(N^2) for a scene of N dice (9 s of a throw among 1000)."""
        out: set[int] = set()
        table = self._table_id
        for cp in self._client.getContactPoints():
            if cp[8] < 1e-3:
                a, b = cp[1], cp[2]
                if b != table:
                    out.add(a)
                if a != table:
                    out.add(b)
        return out

    def _penetrating(self, name: str) -> str | None:
        """The die or obstacle that `name` penetrates, if any (table contacts ignored)."""
        c = self._client
        me = self._bodies[name].bid
        for other, bid in self._near(name, 0.0):
            for cp in c.getClosestPoints(me, bid, distance=0.0):
                if cp[8] < -TOUCH_M:
                    return other
        return None

    def _touching(self, name: str) -> bool:
        """Does `name` touch another die or an obstacle (within 1 mm, as _classify asks)?"""
        if not self._obstacles and len(self._bodies) < 2:
            return False  # nothing to lean on
        c = self._client
        me = self._bodies[name].bid
        return any(cp[8] < 1e-3 for _other, bid in self._near(name, 1e-3)
                   for cp in c.getClosestPoints(me, bid, distance=1e-3))

    def _near(self, name: str, gap: float) -> list[tuple[str, int]]:
        """The dice (by name) and then the obstacles ('obstacle:NAME') that could come within
        `gap` of die `name`, with their Bullet ids. While no die has moved since the world
        was built, dice farther off than their bounding spheres allow are left out, found
        through a grid of their places, so a placement asks Bullet about a few neighbours
        rather than every die on the table."""
        me = self._bodies[name]
        if self._still and self.keep_table:  # (without keeping, the reference: every die)
            if self._grid is None:
                self._grid = _Grid()
                for b in self._bodies.values():
                    if not b.removed:
                        self._grid.add(b.name, float(b.last_pos[0]), float(b.last_pos[1]),
                                       self._reach(b.shape))
            names = self._grid.near(float(me.last_pos[0]), float(me.last_pos[1]),
                                    self._reach(me.shape) + gap)
        else:
            names = set(self._bodies)
        out = [(other, self._bodies[other].bid) for other in sorted(names)
               if other != name and not self._bodies[other].removed]
        return out + [(f"obstacle:{oname}", bid) for bid, oname in self._obstacles.items()]

    def _reach(self, shape: DieShape) -> float:
        """How far from its centre a die's collision shape can reach (m), margin included."""
        return shape.poly.circumradius + self.settings.collision_margin


MAX_RESTS_KEPT = 512  # scenes whose dice's rests a World keeps (classes_of), then it starts over


def classes_of(world: World, names: list[str], adding: tuple[DieModel, ...] = (),
               build: bool = False) -> dict[str, DiePose]:
    """How the scene's dice `names` rest, in that order: `_classify` in the Bullet world
    built around the scene (for dice of `adding` too), every die from one contact query
    (`_touching_ids`; what `_in_contact` finds die by die). That is a function of the
    scene's exact bits, its dice's models and contact values, the table and the settings
    (the same build gives the same world whatever was built before), so it is kept by
    them, and a scene asked again (a probe's die, then the throw into that scene) is not
    built again; `build`: the world is built around the scene even then (a tip goes on
    in it). With `keep_table` False (the reference) nothing is kept."""
    scene = world.scene
    order = sorted(scene)
    models = tuple(scene[n].model for n in order)
    contact = world._contact_for([*models, *adding])
    values: list[float] = []
    for n in order:
        values += scene[n].pose.position
        values += scene[n].pose.quaternion
    # keyed by identity: the entry keeps them alive, so no other object takes their ids
    owners = (models, contact, world.table, world.settings)
    key = (tuple(order), tuple(map(id, models)), *map(id, owners[1:]),
           struct.pack(f"<{len(values)}d", *values))
    kept = world._rests.get(key) if world.keep_table and order else None
    if kept is None or build or contact is not world._contact:  # (physics_json reads it)
        world._build(scene, adding=adding)
    if kept is None:
        touching = world._touching_ids()
        kept = (owners, {n: world._classify(n, touching) for n in order})
        if world.keep_table and order:
            if len(world._rests) >= MAX_RESTS_KEPT:
                world._rests.clear()
            world._rests[key] = kept
    classes = kept[1]
    return {n: classes[n] for n in names}
