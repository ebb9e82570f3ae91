"""The physics table for Deep White Sea: the rules' `Table` protocol on a PyBullet `World`.

Die names are the engine's die ids; every crew die is the paper d8
(`dice_models.load_die('paper-d8')`, side n on face n-1), so a pose's face value is the
side number. Dice that end off the table (fell off, leaning, overhanging) leave the scene.

A `World` rebuilds Bullet from its scene for every operation, so clones share one World
(one Bullet client) and each keeps its own scene: a clone is a dict copy, which is what
lets the planner try hundreds of throws per decision. Importing this module registers the
'physics' table kind with `rules.deep_white_sea`.

The World's answers are a function of the scene (same scene, same throw or tip: the same
bits, whatever the world did before; tests/test_kept_table.py checks it against a world
rebuilt from nothing), so a table and its clones keep what it answered (`_Answers`, keyed
by the scene's exact bits): a bot that tries a throw or a move on a clone and then plays it
does not simulate it twice, and the tips the engine probes to list the legal moves are
simulated once per scene, not once per clone that lists them.
"""

from __future__ import annotations

import math
import struct
from dataclasses import astuple, fields
from typing import Any

import numpy as np

from dice_models import DieModel, load_die
from dice_models.geometry import AXES
from dice_models.materials import library
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
from simulator.physics.common import world_vertices
from simulator.physics.placing import sweep_blocker
from simulator.physics.settings import Obstacle, Surface, surface_from
from simulator.physics.world import PlacedDie, Pose, tip_poses

DIE_MODEL = "paper-d8"
NEAR_M = 0.15  # m: dice centres farther apart cannot touch while one tips (50 mm dice)
ANSWERS_KEPT = 4096  # answers of each kind a table and its clones keep (then they start over)


class PhysicsTable:
    """The `Table` protocol on a PyBullet world (see the module docstring)."""

    def __init__(self, table: TableSpec | None = None, settings: PhysicsSettings | None = None,
                 world: World | None = None) -> None:
        self.world = world if world is not None else World(table or TableSpec(),
                                                           settings or PhysicsSettings())
        self.model: DieModel = load_die(DIE_MODEL)
        self.scene: dict[str, PlacedDie] = {}
        self._answers = _Answers()

    # -- the Table protocol -------------------------------------------------------------

    def throw(self, die: str, spec: ThrowSpec, player: int = 1) -> ThrowResult:
        key = self._key(die, player, *astuple(spec))
        known = self._answers.throws.get(key) if key is not None else None
        if known is not None:
            result, self.scene = known[0], dict(known[1])
            return result
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
        result = ThrowResult(report.foul, report.foul_reason, report.outcome, report.disturbed,
                             report.physics)
        self._answers.keep(self._answers.throws, key, (result, dict(self.scene)))
        return result

    def tip(self, die: str, corner: str) -> TipResult:
        result, scene = self._tipped(die, corner)
        self.scene = dict(scene)
        return result

    def can_tip(self, die: str, corner: str) -> str | None:
        """What `tip` would answer, the scene left as it is. `World.tip`'s verdict is the
        sweep past the dice near (`sweep_blocker`), then the obstacles, then the table's
        edge, for a die that rests flat on the table; without obstacles that is geometry
        once the die is known to rest, so a probe asks Bullet only whether the die rests
        (once a scene and die) and not for the tipped pose, which it does not need."""
        key = self._key(die, corner)
        if die in self.scene and not self._near(die):
            verdict = self._answers.verdicts.get(key, _UNKNOWN) if key is not None \
                else _UNKNOWN
            if verdict is _UNKNOWN:
                verdict = self._edge_only(die, corner)
                self._answers.keep(self._answers.verdicts, key, verdict)
            return verdict  # type: ignore[return-value]
        known = self._answers.tips.get(key) if key is not None else None
        if known is None and key is not None and die in self.scene \
                and not self.world.table.obstacles \
                and corner in AXES and self._rests(die):
            verdict = self._answers.verdicts.get(key, _UNKNOWN)
            if verdict is _UNKNOWN:
                verdict = sweep_blocker(self.scene, die, corner) or self._edge_only(die, corner)
                self._answers.keep(self._answers.verdicts, key, verdict)
            return verdict  # type: ignore[return-value]
        result, _scene = known or self._tipped(die, corner)  # the scene left as it was
        return None if result.rolled else result.blocked_by

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
        c._answers = self._answers
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

    def _key(self, die: str, *args: Any) -> tuple[Any, ...] | None:
        """The question's key for the answers kept: the scene to the bit (its names in the
        scene's own order, which the order of an answer's `disturbed` and of the scene after
        a throw follow; every position and quaternion packed as doubles, so that -0.0 is not
        0.0), the die and the rest of the question. None (nothing kept) for a scene holding a
        die of another model than the table's."""
        self._answers.current()
        names = list(self.scene)
        values: list[float] = []
        for n in names:
            placed = self.scene[n]
            if placed.model is not self.model:
                return None
            values += placed.pose.position
            values += placed.pose.quaternion
        return (tuple(names), struct.pack(f"<{len(values)}d", *values), die,
                *(struct.pack("<d", a) if isinstance(a, float | np.floating) else a
                  for a in _flat(args)))

    def _rests(self, die: str) -> bool:
        """Does `die`, in this scene, rest flat on the table, as `World.tip` asks first
        (`outcome_of` is its `_resting`)? Kept per scene and die."""
        key = self._key(die, "rests")
        rests = self._answers.rests.get(key) if key is not None else None
        if rests is None:
            rests = self._enter().outcome_of(die).status == "on_table"
            self._answers.keep(self._answers.rests, key, rests)
        return rests

    def _tipped(self, die: str, corner: str) -> tuple[TipResult, dict[str, PlacedDie]]:
        """What `World.tip` answers for `die` and `corner` in this scene, and the scene
        after it (kept, see the module docstring); this table's scene is left as it was."""
        key = self._key(die, corner)
        known = self._answers.tips.get(key) if key is not None else None
        if known is not None:
            return known
        world = self._enter()
        try:
            report = world.tip(die, corner)
        except PlacementError as exc:
            world.scene = dict(self.scene)
            raise RulesError(str(exc)) from None
        answer = (TipResult(report.rolled, report.pose, report.blocked_by), dict(world.scene))
        world.scene = dict(self.scene)
        self._answers.keep(self._answers.tips, key, answer)
        return answer

    def _near(self, die: str) -> bool:
        """Could anything touch `die` during a tip? Only another die whose centre is
        within NEAR_M, or an obstacle."""
        if self.world.table.obstacles:
            return True
        x, y, _ = self.scene[die].pose.position
        return any(math.hypot(p.pose.position[0] - x, p.pose.position[1] - y) < NEAR_M
                   for n, p in self.scene.items() if n != die)

    def _edge_only(self, die: str, corner: str) -> str | None:
        """The table edge's part of `World.tip`'s verdict: "table_edge" if the die's end
        pose would not lie wholly on the table (the same end pose and edge rule, without
        the Bullet world; the last of `tip_poses` is the same for 1 sample as for 24, since
        TIP_ANGLE * 24 / 24 == TIP_ANGLE)."""
        if corner not in AXES:
            raise RulesError(f"corner must be one of x, y, z (got {corner!r})")
        shape = die_shape(self.model)
        final = tip_poses(shape, self.scene[die].pose, corner, samples=1)[-1]
        bottom, _ = shape.poly.face_down(final.rotation())
        corners = world_vertices(shape, final)[list(shape.poly.faces[bottom])]
        table = self.world.table
        return None if all(table.contains_xy(c[0], c[1]) for c in corners) else "table_edge"

    def _enter(self) -> World:
        self.world.scene = dict(self.scene)
        return self.world


_UNKNOWN = object()  # no answer kept


class _Answers:
    """What the World answered a table and its clones, by question (`PhysicsTable._key`):
    throws and tips with the scene after them, the tip verdicts of probes and whether a
    die rests flat."""

    def __init__(self) -> None:
        self.throws: dict[tuple[Any, ...], tuple[ThrowResult, dict[str, PlacedDie]]] = {}
        self.tips: dict[tuple[Any, ...], tuple[TipResult, dict[str, PlacedDie]]] = {}
        self.verdicts: dict[tuple[Any, ...], str | None] = {}
        self.rests: dict[tuple[Any, ...], bool] = {}
        self.materials = library()  # the pairs in force when they were given

    def current(self) -> None:
        """Forget every answer once another material file or overlay is in force: the
        World's contact values, and so its answers, may differ."""
        if library() is not self.materials:
            for kind in (self.throws, self.tips, self.verdicts, self.rests):
                kind.clear()
            self.materials = library()

    @staticmethod
    def keep(kind: dict[Any, Any], key: tuple[Any, ...] | None, answer: Any) -> None:
        if key is None:
            return
        if len(kind) >= ANSWERS_KEPT:
            kind.clear()
        kind[key] = answer


def _flat(args: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, tuple):
            out += _flat(a)
        else:
            out.append(a)
    return out


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
