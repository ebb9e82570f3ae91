"""The physics table for Deep White Sea: the rules' `Table` protocol on a PyBullet `World`.

Die names are the engine's die ids; every crew die is the paper d8
(`dice_models.load_die('paper-d8')`, side n on face n-1), so a pose's face value is the
side number. Dice that end off the table (fell off, leaning, overhanging) leave the scene.

A `World` rebuilds Bullet from its scene for every operation, so clones share one World
(one Bullet client) and each keeps its own scene: a clone is a dict copy, which is what
lets the planner try hundreds of throws per decision. Importing this module registers the
'physics' table kind with `rules.deep_white_sea`.
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

import numpy as np

from dice_models import DieModel, load_die
from dice_models.numerics import matmul
from rules.core.protocols import DiePose, RulesError, TableError, ThrowResult, ThrowSpec, TipResult
from rules.deep_white_sea import register_table
from simulator.physics import (
    PhysicsError,
    PhysicsSettings,
    PlacementError,
    TableSpec,
    World,
    die_shape,
)
from simulator.physics.settings import Obstacle, Surface, surface_from
from simulator.physics.world import PlacedDie, Pose, tip_poses

DIE_MODEL = "paper-d8"
NEAR_M = 0.15  # m: dice centres farther apart cannot touch while one tips (50 mm dice)


class PhysicsTable:
    """The `Table` protocol on a PyBullet world (see the module docstring)."""

    def __init__(self, table: TableSpec | None = None, settings: PhysicsSettings | None = None,
                 world: World | None = None) -> None:
        self.world = world if world is not None else World(table or TableSpec(),
                                                           settings or PhysicsSettings())
        self.model: DieModel = load_die(DIE_MODEL)
        self.scene: dict[str, PlacedDie] = {}

    # -- the Table protocol -------------------------------------------------------------

    def throw(self, die: str, spec: ThrowSpec, player: int = 1) -> ThrowResult:
        world = self._enter()
        try:
            report = world.throw(die, self.model, spec, player=player)
        except PhysicsError as exc:
            world.scene = self.scene
            raise TableError(f"physics: {exc}") from exc
        except PlacementError as exc:
            raise RulesError(str(exc)) from None
        self.scene = dict(world.scene)
        for p in (report.outcome, *(a for _b, a in report.disturbed)):
            if p.status != "on_table":
                self.scene.pop(p.die, None)
        # The rules' part of the report (a game log records ThrowResult.to_json).
        return ThrowResult(report.foul, report.foul_reason, report.outcome, report.disturbed,
                           report.physics)

    def tip(self, die: str, corner: str) -> TipResult:
        world = self._enter()
        try:
            report = world.tip(die, corner)
        except PlacementError as exc:
            raise RulesError(str(exc)) from None
        self.scene = dict(world.scene)
        return TipResult(report.rolled, report.pose, report.blocked_by)

    def can_tip(self, die: str, corner: str) -> str | None:
        if die in self.scene and not self._near(die):
            return self._edge_only(die, corner)
        world = self._enter()
        try:
            report = world.tip(die, corner)
        except PlacementError as exc:
            raise RulesError(str(exc)) from None
        finally:
            world.scene = dict(self.scene)  # a probe: the scene is left as it was
        return None if report.rolled else report.blocked_by

    def place(self, die: str, face: int, yaw_deg: float, xy: tuple[float, float]) -> DiePose:
        world = self._enter()
        try:
            outcome = world.place(die, self.model, face, yaw_deg, xy)
        except PlacementError as exc:
            raise RulesError(str(exc)) from None
        self.scene = dict(world.scene)
        return outcome

    def remove(self, die: str) -> None:
        self.scene.pop(die, None)

    def snapshot(self) -> list[DiePose]:
        return self._enter().snapshot()

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """A copy or a pickle (`copy.deepcopy`, `pickle`) is a table of its own, made from
        this one's JSON: its own World and Bullet connection. Copying the World would copy
        its client id, and the copy's finaliser would disconnect this table's live
        connection."""
        return (PhysicsTable.from_json, (self.to_json(),))

    def clone(self) -> PhysicsTable:
        """A table with its own scene on this one's World (see the module docstring): the
        clones share the one Bullet connection, which closes when the last is collected."""
        c = PhysicsTable.__new__(PhysicsTable)
        c.world = self.world
        c.model = self.model
        c.scene = dict(self.scene)
        return c

    def to_json(self) -> dict[str, Any]:
        w = self.world
        return {
            "kind": "physics", "die": DIE_MODEL,
            "table": w.table.to_json(),
            "settings": {f.name: getattr(w.settings, f.name) for f in fields(w.settings)},
            "scene": {n: [list(p.pose.position), list(p.pose.quaternion)]
                      for n, p in sorted(self.scene.items())},
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> PhysicsTable:
        try:
            table = _table_from_json(data["table"])
            settings = PhysicsSettings(**data["settings"])
            t = PhysicsTable(table, settings)
            for name, (pos, quat) in data["scene"].items():
                t.scene[str(name)] = PlacedDie(str(name), t.model,
                                               Pose(tuple(pos), tuple(quat)))  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError) as exc:
            raise RulesError(f"physics table: bad saved scene ({exc})") from None
        return t

    def describe(self) -> dict[str, Any]:
        t = self.world.table
        return {"kind": "physics", "die": DIE_MODEL, "width": t.width, "depth": t.depth,
                **self.world.physics_json()}

    # -- helpers ------------------------------------------------------------------------

    def _near(self, die: str) -> bool:
        """Could anything touch `die` during a tip? Only another die whose centre is
        within NEAR_M, or an obstacle."""
        if self.world.table.obstacles:
            return True
        x, y, _ = self.scene[die].pose.position
        return any(math.hypot(p.pose.position[0] - x, p.pose.position[1] - y) < NEAR_M
                   for n, p in self.scene.items() if n != die)

    def _edge_only(self, die: str, corner: str) -> str | None:
        """`can_tip` for a die with nothing near: only the table edge can block it (the same
        end pose and edge rule as `World.tip`, without rebuilding the Bullet world)."""
        if corner not in ("x", "y", "z"):
            raise RulesError(f"corner must be one of x, y, z (got {corner!r})")
        shape = die_shape(self.model)
        final = tip_poses(shape, self.scene[die].pose, corner, samples=1)[-1]
        bottom, _ = shape.poly.face_down(final.rotation())
        world = matmul(shape.poly.vertices, final.rotation().T) + np.array(final.position)
        corners = world[list(shape.poly.faces[bottom])]
        table = self.world.table
        return None if all(table.contains_xy(c[0], c[1]) for c in corners) else "table_edge"

    def _enter(self) -> World:
        self.world.scene = dict(self.scene)
        return self.world


def make(options: dict[str, Any]) -> PhysicsTable:
    surface = options.get("surface")
    table = TableSpec()
    if surface:
        table = table.with_surface(surface_from(str(surface), "--surface"))
    return PhysicsTable(table, PhysicsSettings())


def _table_from_json(d: dict[str, Any]) -> TableSpec:
    surface = Surface(**d["surface"])
    obstacles = tuple(Obstacle(name=o["name"], kind=o["kind"], position=tuple(o["position"]),
                               size=tuple(o["size"]), yaw_deg=o["yaw_deg"],
                               material=Surface(**o["material"]) if o.get("material") else None)
                      for o in d.get("obstacles", []))
    return TableSpec(shape=d["shape"], width=d["width"], depth=d["depth"], radius=d["radius"],
                     surface=surface, obstacles=obstacles, height=d["height"],
                     source=d.get("source", "<saved>"))


register_table("physics", make, PhysicsTable.from_json)
