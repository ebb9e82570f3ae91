"""The MuJoCo table world: the same throws, placements, settle rule and outcomes as the
PyBullet `World`, simulated by a second engine so a fairness result can be checked for
depending on the engine (docs/engines.md).

What is shared, not copied: the die shapes and mass properties (simulator/physics/dice.py),
the placement pose (`placing.flat_pose`), the throw checks and the symmetry break, the release
check, the outcome classification (`settle.describe`: on_table, fell_off, leaning,
overhang), the disturbed-die rule and the free-flight bound (`settle.coast_steps`). What is
MuJoCo's own is the model and the stepping loop.

The model. Every die is a free body whose frame is its geometric frame (MuJoCo's qpos is
then the pose a `DiePose` reports), with an explicit inertial (mass, centre of mass and
principal moments from dice.py: shell inertia, tampering included); a cube or cuboid is a
box geom, any other die its hull as a mesh geom. The table is a slab TABLE_THICKNESS deep
(as in Bullet) and obstacles are boxes and cylinders. Contacts are explicit pairs (die with
table, obstacle and every other die), each carrying its material pair's values directly:
MuJoCo needs no per-body coefficients that combine into them (see CONTACT_MAPPING).

The tip, the throw's reports and the foul check are the engines' shared code
(simulator/physics/engine.py, `TableWorld`).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import DieModel
from dice_models.materials import library
from dice_models.numerics import matmul, norm
from rules.core.protocols import DiePose, ThrowSpec
from simulator.physics import stepping
from simulator.physics.common import (
    TABLE_THICKNESS,
    TOUCH_M,
    Frame,
    PlacedDie,
    PlacementError,
    Pose,
    ThrowReport,
)
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.engine import TableWorld
from simulator.physics.libraries import import_mujoco
from simulator.physics.mujoco_steps import BATCH_STEPS as BATCH_STEPS  # (its note there)
from simulator.physics.mujoco_steps import MujocoRun
from simulator.physics.placing import check_group, flat_pose
from simulator.physics.settings import PhysicsSettings, TableSpec
from simulator.physics.settle import describe, fell_off, poised, was_disturbed

# How a material pair's values become a MuJoCo contact (recorded in physics_json):
# - friction: MuJoCo's tangential friction coefficient, the pair value as it is;
# - rolling_friction, spinning_friction: MuJoCo's rolling and torsional coefficients (condim
#   6, or 4 without rolling, 3 without either). Both are lengths in MuJoCo (torque =
#   coefficient x normal force), as the lever arms of dice_models.materials are: the pair
#   value as it is;
# - restitution e: MuJoCo has none; its contact is a damped spring (solref = time constant,
#   damping ratio). The damping ratio is read off a table of the bounce it gives, measured
#   (RESTITUTION_TABLE); the time constant is CONTACT_TIMECONST_S.
CONTACT_MAPPING = ("friction: MuJoCo sliding friction = pair friction; rolling and spinning "
                   "lever arms: MuJoCo rolling and torsional friction (lengths) = pair values; "
                   "restitution: solref damping ratio from a measured table of bounce against "
                   "damping ratio (time constant 1/60 s, solimp 0.99), clamped to 0.06-0.20")
# A d6 dropped flat at 2 m/s onto the table (the impact speed of a lab throw released 0.15-
# 0.35 m up), time constant 4 steps of 1/240 s, solimp 0.99: the share of its speed it
# bounces back with, for each damping ratio. (At 2 steps, as MuJoCo allows, the discrete
# spring gained energy: a damping ratio of 0.36 bounced back 1.77 times the impact speed,
# and every throw on the slick table fell off; at 4 and 8 steps the bounce falls steadily
# with the damping ratio. Across 0.5-5 m/s the bounce at one ratio varies by about +-0.1:
# MuJoCo's contact is no restitution law, docs/engines.md.) The analytic damped-spring
# ratio, -ln e / sqrt(pi^2 + ln^2 e), bounced 0.43 for 0.3 and 0.14 for critical damping.
# Damping ratios under 0.8 (bounces over 0.20) are not used: at the 0.58 that slick's 0.3
# maps to, a d6 thrown onto the slick table rocked on its face for ever in 12 of 15 throws
# (none at 0.8, 1.0 or 1.3), so MuJoCo's highest restitution here is 0.20.
RESTITUTION_TABLE = ((0.8, 0.20), (1.0, 0.14), (1.3, 0.10), (1.7, 0.06))  # (ratio, bounce)
# (measured above 0.8 too, for the record: 0.2 -> 0.84, 0.3 -> 0.59, 0.45 -> 0.39, 0.6 -> 0.28)
# 4 steps of the default 1/240 s, kept in seconds so that the contact does not change with
# the step (the convergence check halves and quarters it)
CONTACT_TIMECONST_S = 4.0 / 240.0
SOLIMP = "0.99 0.99 0.001"  # resting dice then sink 0.01-0.3 mm (0.9 0.95: up to 3 mm)
# A die with a face of more than three corners (the d10's kites, the d12's pentagons) gets a
# sphere this small inside each corner, touching the hull there, with the same contacts
# against the table and obstacles as its hull. MuJoCo meets a hull with at most three or
# four points a step, and on a kite face it chose three, tipping the die over the edge
# between them: the next step chose the other three, and a d00 placed flat shivered at 0.37
# rad/s for ever (its spin changing sign every step) and never came to rest. The corner
# spheres give every corner its contact: that d00 rests (tests/test_mujoco_world.py).
CORNER_RADIUS = 1e-4  # m
TOUCH_GAP = 1e-3  # m: a die this close to another die or an obstacle touches it (as World)
MAX_MODELS = 32  # compiled models kept per world (one per set of die shapes in order)


def damping_ratio(restitution: float) -> float:
    """The damping ratio whose measured bounce is `restitution` (RESTITUTION_TABLE,
    interpolated; clamped to the table's range)."""
    ratios, bounces = zip(*RESTITUTION_TABLE, strict=True)
    # np.interp wants rising x: the bounce falls as the ratio rises
    return float(np.interp(restitution, bounces[::-1], ratios[::-1]))


def realized_restitution(restitution: float) -> float:
    """The bounce MuJoCo gives for a pair restitution (the table's range clamps it)."""
    bounces = [b for _r, b in RESTITUTION_TABLE]
    return min(max(restitution, min(bounces)), max(bounces))


@dataclass
class _Model:
    """A compiled MuJoCo model for dice of these shapes in this order, and its data."""

    model: Any
    data: Any
    shapes: tuple[DieShape, ...]
    static_geoms: list[int]  # the table's geom first, then each obstacle's
    die_geoms: list[int]
    # the stepping loops' bound state, by (recording, batch_steps): made once a model, as
    # it cost 13 us of a throw
    runs: dict[tuple[bool, int], MujocoRun] = field(default_factory=dict)


class MujocoWorld(TableWorld):
    """A table and the dice resting on it, simulated by MuJoCo; the public contract of
    `simulator.physics.world.World` for throws, placements, snapshots and settling."""

    def __init__(self, table: TableSpec | None = None, settings: PhysicsSettings | None = None):
        self._mj = import_mujoco()
        self.table = table or TableSpec()
        self.settings = settings or PhysicsSettings(engine="mujoco")
        if self.settings.engine != "mujoco":
            self.settings = replace(self.settings, engine="mujoco")
        self.scene: dict[str, PlacedDie] = {}
        self._models: dict[tuple[Any, ...], _Model] = {}
        self._contacts: dict[frozenset[Any], Any] = {}
        self._contacts_library: Any = None
        self._last_key: frozenset[Any] = frozenset()
        self._physics_json: tuple[frozenset[Any], dict[str, Any]] | None = None
        self.coast = True  # step a lone die in free flight unwatched (settle.coast_steps)
        self.batch_steps = BATCH_STEPS  # steps a call while every die is brisk (1: every step)
        # A lone unrecorded die is stepped by MujocoRun.advance_one (plain arguments, one
        # mj_step a step where `take` would make one); False steps it by `advance`, the same
        # bits (tests/test_mujoco_stepping.py).
        self.lone_steps = True
        # Dice that came to rest by the confinement rule, not the hold, since the world was
        # made (World.confined).
        self.confined = 0

    # -- public ---------------------------------------------------------------------------

    def close(self) -> None:
        """Drop the compiled models (MuJoCo holds no connection to close)."""
        self._models.clear()

    def physics_json(self) -> dict[str, Any]:
        """Settings (engine included), versions, table and the contact values used."""
        key = self._last_key
        if self._physics_json is None or self._physics_json[0] != key:
            self._physics_json = (key, {**self.settings.to_json(), "table": self.table.to_json(),
                                        "contact": self._contact_json(key)})
        return self._physics_json[1]

    def place(self, name: str, model: DieModel, face: int, yaw_deg: float,
              xy: tuple[float, float]) -> DiePose:
        """Put a die down flat with `face` up at `xy` (m) turned by `yaw_deg` (World.place)."""
        shape = die_shape(model)
        if name in self.scene:
            raise PlacementError(f"die {name!r} is already on the table")
        pose = flat_pose(name, shape, face, yaw_deg, xy, self.table)
        scene = dict(self.scene, **{name: PlacedDie(name, model, pose)})
        names = sorted(scene)
        mm = self._load(names, scene)
        i = names.index(name)
        hit = self._penetrating(mm, names, i)
        if hit is not None:
            raise PlacementError(f"die {name!r} at ({xy[0]:.3f}, {xy[1]:.3f}) m would overlap {hit}")
        self.scene = scene
        return self._classify(mm, names, i, removed={})

    def snapshot(self) -> list[DiePose]:
        names = sorted(self.scene)
        mm = self._load(names, self.scene)
        return [self._classify(mm, names, i, removed={}) for i in range(len(names))]

    def outcome_of(self, name: str) -> DiePose:
        names = sorted(self.scene)
        mm = self._load(names, self.scene)
        return self._classify(mm, names, names.index(name), removed={})

    def throw_group(self, dice: list[tuple[str, DieModel, ThrowSpec]], player: int = 1,
                    record: bool = False) -> list[ThrowReport]:
        """Throw several dice at once; one report per thrown die (World.throw_group)."""
        check_group(self.table, self.scene, dice)
        resting = sorted(self.scene)
        simulated, perturbations = self._simulated(dice)
        as_simulated = [(name, model, sim) for (name, model, _t), sim in zip(dice, simulated,
                                                                              strict=True)]
        with self.released(as_simulated, record) as run:
            # (velocities set: the geoms' places, all the resting dice are read by, are not)
            before = {n: self._classify(run.mm, run.names, i, removed={})
                      for i, n in enumerate(resting)}
            rest = stepping.settle(run, record)
        self.confined += rest.confined
        mm, names, removed = run.mm, run.names, run.removed
        if len(names) > 1 or self.table.obstacles:
            self._forward(mm)
        outcomes = {n: self._classify(mm, names, i, removed) for i, n in enumerate(names)}
        disturbed = tuple((b, outcomes[n]) for n, b in before.items() if was_disturbed(b, outcomes[n]))
        reports = self._reports(dice, player, True, rest.steps, outcomes, disturbed,
                                rest.frames if record else None, perturbations)
        placed = {**self.scene, **{name: PlacedDie(name, model, Pose(t.release, t.orientation))
                                   for name, model, t in as_simulated}}
        self.scene = {n: replace(placed[n], pose=self._pose(mm, i))
                      for i, n in enumerate(names) if i not in removed}
        return reports

    @contextlib.contextmanager
    def released(self, dice: list[tuple[str, DieModel, ThrowSpec]], record: bool = False
                 ) -> Iterator[MujocoRun]:
        """The model holding the scene and these dice let go at their throws exactly: the
        step-level run the settle loop drives (Engine.released). MuJoCo's profiling timers
        are off while it runs (_profiler_clock)."""
        names = sorted(self.scene) + [name for name, _m, _t in dice]
        placed = dict(self.scene)
        for name, model, throw in dice:
            placed[name] = PlacedDie(name, model, Pose(throw.release, throw.orientation))
        # The geoms' places are wanted only for reading resting dice or obstacles (touching,
        # leaning): a lone die's throw skips the two forward passes (mj_step makes its own).
        mm = self._load(names, placed, forward=len(names) > 1 or bool(self.table.obstacles))
        for k, (_name, _model, throw) in enumerate(dice):
            self._set_velocity(mm, len(self.scene) + k, throw)
        with self._run(mm, names, record) as run:
            yield run

    def settle(self) -> int:
        """Let the resting scene run until every die is at rest again; the steps it took."""
        names = sorted(self.scene)
        mm = self._load(names, self.scene)
        with self._run(mm, names, False) as run:
            rest = stepping.settle(run, False)
        self.confined += rest.confined
        steps = rest.steps
        self.scene = {n: replace(self.scene[n], pose=self._pose(mm, i))
                      for i, n in enumerate(names) if i not in run.removed}
        return steps

    # -- the tip's hooks (TableWorld.tip) ------------------------------------------------

    def _resting(self, name: str) -> DiePose:
        return self.outcome_of(name)

    def _obstacle_in(self, name: str, poses: list[Pose]) -> str | None:
        """MuJoCo's distance to each obstacle at each pose (the model holds the scene)."""
        names = sorted(self.scene)
        mm = self._load(names, self.scene, forward=False)
        i = names.index(name)
        me, qpos = mm.die_geoms[i], mm.data.qpos
        obstacles = list(zip(self.table.obstacles, mm.static_geoms[1:], strict=True))
        for pose in poses if obstacles else ():
            qpos[7 * i:7 * i + 7] = free_position(pose)
            self._forward(mm)
            for ob, g in obstacles:
                if self._distance(mm, me, g, 0.01) < -TOUCH_M:
                    return f"obstacle:{ob.name}"
        return None

    def _untipped(self, name: str, pose: Pose) -> None:
        pass  # the model is loaded from the scene for every operation

    def _tipped(self, name: str, pose: Pose) -> DiePose:
        return self.outcome_of(name)

    # -- the model ------------------------------------------------------------------------

    def _contact_json(self, key: frozenset[Any]) -> dict[str, Any]:
        contact = self._realized(key)
        pairs = {}
        for (a, b), values in sorted(contact.wanted.items()):
            pairs[f"{a}/{b}"] = {**values.to_json(), "mujoco": {
                "friction": list(self._friction(values)),
                "solref": [CONTACT_TIMECONST_S, damping_ratio(values.restitution)],
                "restitution_at_2_m_s": realized_restitution(values.restitution)}}
        # Friction and lever arms are met exactly; restitution only as the table measured it.
        return {"rule": CONTACT_MAPPING, "exact": False, "pairs": pairs}

    @staticmethod
    def _friction(v: Any) -> tuple[float, float, float, float, float]:
        return (v.friction, v.friction, v.spinning_friction, v.rolling_friction, v.rolling_friction)

    def _load(self, names: list[str], scene: dict[str, PlacedDie], forward: bool = True) -> _Model:
        """The compiled model for these dice (in this order) with every die at its pose in
        `scene` and at rest; `forward` places the geoms too (for distances between them)."""
        models = [scene[n].model for n in names]
        shapes = tuple(die_shape(m) for m in models)
        key_materials = frozenset(m.contact_material for m in models)
        self._last_key = key_materials
        key = (tuple(id(s) for s in shapes), key_materials, id(library()))
        mm = self._models.get(key)
        if mm is None:
            if len(self._models) >= MAX_MODELS:
                self._models.clear()
            mm = self._models[key] = self._compile(shapes, key_materials)
        mj = self._mj
        mj.mj_resetData(mm.model, mm.data)
        qpos = mm.data.qpos
        for i, n in enumerate(names):
            qpos[7 * i:7 * i + 7] = free_position(scene[n].pose)
        if forward:
            self._forward(mm)
        return mm

    def _compile(self, shapes: tuple[DieShape, ...], materials: frozenset[Any]) -> _Model:
        """MJCF for the table, obstacles and these dice, with a contact pair for every pair
        of bodies that can touch."""
        mj, s, t = self._mj, self.settings, self.table
        contact = self._realized(materials)
        assets, bodies, pairs = [], [], []
        statics = [("table", t.surface)]
        geoms = []
        half = TABLE_THICKNESS / 2
        if t.shape == "rect":
            geoms.append(f'<geom name="table" type="box" size="{t.width / 2!r} {t.depth / 2!r} {half!r}" '
                         f'pos="0 0 {-half!r}"/>')
        else:
            geoms.append(f'<geom name="table" type="cylinder" size="{t.radius!r} {half!r}" '
                         f'pos="0 0 {-half!r}"/>')
        for j, ob in enumerate(t.obstacles):
            yaw = math.radians(ob.yaw_deg)
            quat = f"{math.cos(yaw / 2)!r} 0 0 {math.sin(yaw / 2)!r}"
            if ob.kind == "box":
                size = " ".join(repr(v / 2) for v in ob.size)
                z = ob.size[2] / 2
                geoms.append(f'<geom name="ob{j}" type="box" size="{size}" '
                             f'pos="{ob.position[0]!r} {ob.position[1]!r} {z!r}" quat="{quat}"/>')
            else:
                z = ob.size[1] / 2
                geoms.append(f'<geom name="ob{j}" type="cylinder" size="{ob.size[0]!r} {z!r}" '
                             f'pos="{ob.position[0]!r} {ob.position[1]!r} {z!r}" quat="{quat}"/>')
            statics.append((f"ob{j}", ob.material or t.surface))
        for i, shape in enumerate(shapes):
            if shape.poly.kind in ("cube", "cuboid"):
                half_sides = np.abs(shape.poly.vertices).max(axis=0)
                geom = f'<geom name="d{i}" type="box" size="{" ".join(repr(float(v)) for v in half_sides)}"'
            else:
                verts = " ".join(repr(float(v)) for v in shape.poly.vertices.ravel())
                assets.append(f'<mesh name="m{i}" vertex="{verts}"/>')
                geom = f'<geom name="d{i}" type="mesh" mesh="m{i}"'
            corners = _corner_spheres(shape)
            geom_corners = "".join(
                f'<geom name="d{i}v{k}" type="sphere" size="{CORNER_RADIUS!r}" '
                f'pos="{" ".join(repr(float(c)) for c in at)}" mass="0"/>'
                for k, at in enumerate(corners))
            x, y, z, w = shape.inertial_quaternion
            com = " ".join(repr(float(v)) for v in shape.mass.com)
            moments = " ".join(repr(float(v)) for v in shape.principal_moments)
            bodies.append(f'<body name="b{i}"><freejoint/>'
                          f'<inertial pos="{com}" quat="{w!r} {x!r} {y!r} {z!r}" '
                          f'mass="{shape.mass.mass!r}" diaginertia="{moments}"/>'
                          f'{geom} contype="0" conaffinity="0" mass="0"/>{geom_corners}</body>')
            mat = shape.model.contact_material.name
            for sname, smat in statics:
                values = contact.wanted[_key(mat, smat.name)]
                pairs.append(self._pair(f"d{i}", sname, values))
                pairs += [self._pair(f"d{i}v{k}", sname, values) for k in range(len(corners))]
            for k in range(i):
                other = shapes[k].model.contact_material.name
                pairs.append(self._pair(f"d{k}", f"d{i}", contact.wanted[_key(other, mat)]))
        xml = (f'<mujoco model="tabletop"><compiler angle="radian" inertiafromgeom="false"/>'
               f'<option timestep="{s.time_step!r}" gravity="0 0 {-s.gravity!r}" '
               f'iterations="{s.solver_iterations}" integrator="Euler" cone="elliptic">'
               # Euler: nothing here depends on velocity but the contacts (no damping, no
               # actuators), so implicitfast's implicit term is zero and it integrates the
               # same equations, after a factorization of its own that cost 10% of a step.
               # No islands: a lone die is one island, and finding it cost 2-5% of a step
               # (the same bits); a few dice gain nothing from solving apart.
               f'<flag island="disable"/></option>'
               f'<asset>{"".join(assets)}</asset>'
               f'<default><geom contype="0" conaffinity="0"/></default>'
               f'<worldbody>{"".join(geoms)}{"".join(bodies)}</worldbody>'
               f'<contact>{"".join(pairs)}</contact></mujoco>')
        model = mj.MjModel.from_xml_string(xml)
        data = mj.MjData(model)
        static_geoms = [mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM, n) for n, _m in statics]
        die_geoms = [mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM, f"d{i}") for i in range(len(shapes))]
        return _Model(model, data, shapes, static_geoms, die_geoms)

    def _pair(self, g1: str, g2: str, values: Any) -> str:
        friction = " ".join(repr(float(v)) for v in self._friction(values))
        solref = f"{CONTACT_TIMECONST_S!r} {damping_ratio(values.restitution)!r}"
        # Only the friction dimensions in use: with a zero rolling coefficient in an elliptic
        # cone of condim 6, a d00 placed flat chattered for ever (its spin flipping sign every
        # step about a pose that never moved).
        condim = 6 if values.rolling_friction > 0 else 4 if values.spinning_friction > 0 else 3
        return (f'<pair geom1="{g1}" geom2="{g2}" condim="{condim}" friction="{friction}" '
                f'solref="{solref}" solimp="{SOLIMP}"/>')

    # -- state ----------------------------------------------------------------------------

    def _forward(self, mm: _Model) -> None:
        self._mj.mj_forward(mm.model, mm.data)

    def _pose(self, mm: _Model, i: int) -> Pose:
        return pose_from_qpos(mm.data.qpos[7 * i:7 * i + 7])

    def _set_velocity(self, mm: _Model, i: int, throw: ThrowSpec) -> None:
        mm.data.qvel[6 * i:6 * i + 6] = free_velocity(mm.shapes[i], throw)

    def _classify(self, mm: _Model, names: list[str], i: int, removed: dict[int, Pose]) -> DiePose:
        shape = mm.shapes[i]
        gone = i in removed
        pose = removed[i] if gone else self._pose(mm, i)
        touching = False
        if not gone and (len(mm.static_geoms) > 1 or len(names) > 1):
            touching = self._touching(mm, i, removed)
        return describe(names[i], shape, pose, self.table, touching, gone)

    def _others(self, mm: _Model, i: int, removed: dict[int, Pose]) -> list[tuple[str, int]]:
        """Every other die's geom (by index) and every obstacle's geom ('obstacle:NAME')."""
        out = [(str(k), g) for k, g in enumerate(mm.die_geoms) if k != i and k not in removed]
        out += [(f"obstacle:{ob.name}", g)
                for ob, g in zip(self.table.obstacles, mm.static_geoms[1:], strict=True)]
        return out

    def _distance(self, mm: _Model, g1: int, g2: int, limit: float) -> float:
        fromto = np.zeros(6)
        return float(self._mj.mj_geomDistance(mm.model, mm.data, g1, g2, limit, fromto))

    def _touching(self, mm: _Model, i: int, removed: dict[int, Pose]) -> bool:
        me = mm.die_geoms[i]
        return any(self._distance(mm, me, g, TOUCH_GAP) < TOUCH_GAP
                   for _n, g in self._others(mm, i, removed))

    def _penetrating(self, mm: _Model, names: list[str], i: int) -> str | None:
        me = mm.die_geoms[i]
        for label, g in self._others(mm, i, {}):
            if self._distance(mm, me, g, 0.01) < -TOUCH_M:
                return label if label.startswith("obstacle:") else names[int(label)]
        return None

    # -- stepping -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _run(self, mm: _Model, names: list[str], record: bool) -> Iterator[MujocoRun]:
        """The model's dice as loaded, as a run of the settle loop (stepping.py), with
        MuJoCo's profiling timers off (_profiler_clock)."""
        run = mm.runs.get((record, self.batch_steps))
        if run is None or run.settings is not self.settings:
            run = mm.runs[(record, self.batch_steps)] = MujocoRun(self, mm, record)
        run.begin(names, {})
        clock = _profiler_clock(self._mj)
        if clock is None:
            yield run
            return
        timer, clock.value = clock.value, None
        try:
            yield run
        finally:
            clock.value = timer

    def _poised(self, mm: _Model, names: list[str], i: int, removed: dict[int, Pose]) -> bool:
        """settle.poised, for die i of the model."""
        pose = self._pose(mm, i)
        return poised(mm.shapes[i], pose.rotation()[2], pose, self.table,
                      lambda: self._touching(mm, i, removed))

    def _fall_off(self, mm: _Model, names: list[str], i: int, step: int, removed: dict[int, Pose]) -> bool:
        """settle.fell_off's verdict; a die off the table is removed: its pose then is kept
        (it falls on below the table, where no contact reaches it)."""
        x, y, z = (float(v) for v in mm.data.qpos[7 * i:7 * i + 3])
        if not fell_off(self.table, names[i], (x, y, z), step):
            return False
        removed[i] = self._pose(mm, i)  # where it left the table; it falls on, out of play
        return True

    def _frame(self, mm: _Model, names: list[str], t: float, which: list[int]) -> Frame:
        poses = {}
        for i in which:
            p = self._pose(mm, i)
            poses[names[i]] = (p.position, p.quaternion)
        return Frame(t, poses)


def free_position(pose: Pose) -> np.ndarray:
    """A free joint's qpos for a die whose geometric frame is at `pose` (MuJoCo orders the
    quaternion w, x, y, z)."""
    x, y, z, w = pose.quaternion
    return np.array([*pose.position, w, x, y, z])


def free_velocity(shape: DieShape, throw: ThrowSpec) -> np.ndarray:
    """A free joint's qvel for a throw. The throw's velocity is the centre of mass's and its
    spin is in the table frame (as Bullet takes them); MuJoCo's free joint takes the body
    origin's velocity and the spin in the body frame."""
    rot = Pose(throw.release, throw.orientation).rotation()
    spin = np.array(throw.spin, dtype=float)
    origin_v = np.array(throw.velocity, dtype=float) - _cross(spin, matmul(rot, shape.mass.com))
    return np.concatenate([origin_v, matmul(rot.T, spin)])


def pose_from_qpos(q: Any) -> Pose:
    """The pose of a free joint's qpos (w >= 0, normalized)."""
    w, qx, qy, qz = (float(v) for v in q[3:7])
    norm = math.sqrt(w * w + qx * qx + qy * qy + qz * qz)
    if w < 0:
        norm = -norm
    return Pose((float(q[0]), float(q[1]), float(q[2])), (qx / norm, qy / norm, qz / norm, w / norm))


def _corner_spheres(shape: DieShape) -> list[np.ndarray]:
    """Centres of the corner spheres (see CORNER_RADIUS): none for a die whose faces are all
    triangles, or a box (MuJoCo's box-box test meets a whole face)."""
    poly = shape.poly
    if poly.kind in ("cube", "cuboid") or all(len(f) <= 3 for f in poly.faces):
        return []
    return [v - CORNER_RADIUS * v / norm(v) for v in poly.vertices]


_CLOCK: list[Any] = []  # the pointer _profiler_clock found (or None), once a process


def _profiler_clock(mj: Any) -> Any:
    """The loaded MuJoCo library's `mjcb_time` as a ctypes pointer, or None where it is not
    found (the timers then stay on: slower, the same bits).

    MuJoCo times its pipeline into mjData.timer only while this callback is installed ("most
    of the time the user does not need timing, and in that case there is no reason to call
    timing functions": MuJoCo's docs, Simulation, Diagnostics). Its Python bindings (4.0.0)
    install a wall-clock timer with every MjData, and `set_mjcb_time(None)` leaves it
    installed: its clock reads were 1 us of an empty model's 1.5 us step, 12% of a lab throw
    and 19% of an edge throw. Nothing in tabletop reads mjData.timer. RTLD_NOLOAD: only the
    copy of the library the bindings loaded, never a second one. (The pointer is the
    process's: worlds stepping in several threads at once may leave the timers off, which
    changes nothing but mjData.timer.)"""
    if not _CLOCK:
        found = None
        folder = Path(mj.__file__).parent
        libraries = [*folder.glob("libmujoco.so*"), *folder.glob("libmujoco*.dylib")]
        for path in sorted(libraries) if hasattr(os, "RTLD_NOLOAD") else []:
            try:
                found = ctypes.c_void_p.in_dll(ctypes.CDLL(str(path), mode=os.RTLD_NOLOAD), "mjcb_time")
                break
            except (OSError, ValueError):
                continue
        _CLOCK.append(found)
    return _CLOCK[0]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for two 3-vectors (numpy's cross costs 40 us of axis handling a call)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


__all__ = ["CONTACT_MAPPING", "MujocoWorld", "damping_ratio", "free_position", "free_velocity",
           "pose_from_qpos"]
