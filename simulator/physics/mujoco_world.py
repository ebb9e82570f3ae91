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

import ctypes
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import DieModel
from dice_models.materials import library
from dice_models.numerics import dot, matmul, norm
from rules.core.protocols import DiePose, ThrowSpec
from simulator.physics.common import (
    COS_FLAT,
    MAX_POISED,
    TABLE_THICKNESS,
    TOUCH_M,
    Frame,
    NonFiniteError,
    NotSettledError,
    PlacedDie,
    PlacementError,
    Pose,
    ThrowReport,
    TunnelError,
)
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.engine import TableWorld
from simulator.physics.engines import import_mujoco
from simulator.physics.placing import check_group, flat_pose
from simulator.physics.settings import PhysicsSettings, TableSpec
from simulator.physics.settle import coast_steps, describe, jitter, rest_rule, was_disturbed

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
# Steps a call while every die is brisk: faster than BRISK times settle_linear or spinning
# faster than BRISK times settle_angular, and none still (a forgiven twitch). The Python
# around each step cost half as much as the step; the settle rule needs to read the dice
# only when one may be still. A call is kept if every die is brisk after it too, none below
# its floor falling (fell off, tunnel) and none faster than fast_speed / 2; otherwise the
# state before it is put back and those steps are stepped one at a time, read after each.
# So the rule reads every step at which a die is slow: a die goes still, falls off, tunnels
# or turns non-finite at the same step, the same bits, as read every step. What a call could
# hide is a die that went from brisk to still and back to brisk within BATCH_STEPS steps,
# and no still spell that long (the hold) fits in one. A call starts only when every die is
# GATE times brisker than that, so that few are taken back (each costs BATCH_STEPS steps).
# Not when recording (frames at 60 Hz).
BATCH_STEPS = 4
BRISK = 10.0
GATE = 3.0


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
    runs: dict[tuple[bool, int], _Stepping] = field(default_factory=dict)


class _Stepping:
    """What both stepping loops share: the settle rule's numbers, MuJoCo's calls bound once
    (each loop is every throw's hot path: d.warning[...] cost 1.4 us a step, a bound view
    0.2 us) and the ways to take more than one step at a time: coasting, sub-steps and a
    call of BATCH_STEPS steps."""

    def __init__(self, world: MujocoWorld, mm: _Model, record: bool):
        mj, m, d, s = world._mj, mm.model, mm.data, world.settings
        self.world, self.mm, self.m, self.d, self.settings = world, mm, m, d, s
        self.dt = dt = s.time_step
        # the settle rule's numbers (settle.rest_rule; MuJoCo's loops have no confinement rule)
        (self.hold, self.max_steps, self.lin2, self.ang2, self.jitter_m2, self.jitter_cos,
         _every) = rest_rule(s)
        self.fast = s.fast_speed
        self.floors = [-sh.poly.circumradius for sh in mm.shapes]
        self.radii = [sh.base_radius for sh in mm.shapes]
        # the farthest a point of die i reaches from its geometric centre, and one step more
        self.reach = [sh.poly.circumradius + norm(sh.mass.com) + s.fast_speed * dt
                      for sh in mm.shapes]
        self.top = max([0.0, *((ob.size[2] if ob.kind == "box" else ob.size[1])
                               for ob in world.table.obstacles)])
        self.slack = s.gravity * dt * dt
        self.corners = [[tuple(v) for v in sh.poly.vertices.tolist()] for sh in mm.shapes]
        self.coms = [tuple(sh.mass.com.tolist()) for sh in mm.shapes]
        self.obstacles = bool(world.table.obstacles)
        self.mj_step = mj.mj_step
        self.bad_qacc = d.warning[mj.mjtWarning.mjWARN_BADQACC]
        self.flags = m.opt.disableflags
        self.no_constraint = int(mj.mjtDisableBit.mjDSBL_CONSTRAINT)
        # The argument for calls (BATCH_STEPS' note) needs a hold longer than a call and a
        # brisk die's step to leave the jitter allowance; settings where either fails (a long
        # time step, a tiny one, a wide allowance) read every step.
        safe = (self.hold > world.batch_steps and BRISK * s.settle_linear * dt > s.jitter_m
                and math.degrees(BRISK * s.settle_angular * dt) > s.jitter_deg)
        self.batch = world.batch_steps if safe and not record else 1
        self.brisk_v2, self.brisk_w2 = self.lin2 * BRISK ** 2, self.ang2 * BRISK ** 2
        self.gate_v2, self.gate_w2 = self.brisk_v2 * GATE ** 2, self.brisk_w2 * GATE ** 2
        self.spec = mj.mjtState.mjSTATE_INTEGRATION
        self.saved = np.empty(mj.mj_stateSize(m, self.spec))
        self.get_state, self.set_state = mj.mj_getState, mj.mj_setState
        self.watch_to = 0  # step every step up to here (a call that ended in a slow die)

    def coast_steps(self, i: int, step: int) -> int:
        """Steps lone die i may coast (settle.coast_steps); asked only when it is clear of
        everything by its whole reach, as the bound costs more than a step."""
        qpos, qvel = self.d.qpos, self.d.qvel
        if qpos[7 * i + 2] - self.reach[i] <= self.top:
            return 0
        # The die's rotation from its quaternion, and the bound's inputs, in plain floats
        # (numpy's small-array calls cost 8 us of this): the lowest corner, the centre of
        # mass's height and velocity, the spin in the table frame.
        z, w, x, y, zq = qpos[7 * i + 2:7 * i + 7].tolist()
        n = 1.0 / math.sqrt(w * w + x * x + y * y + zq * zq)
        w, x, y, zq = w * n, x * n, y * n, zq * n
        r0 = (1 - 2 * (y * y + zq * zq), 2 * (x * y - w * zq), 2 * (x * zq + w * y))
        r1 = (2 * (x * y + w * zq), 1 - 2 * (x * x + zq * zq), 2 * (y * zq - w * x))
        r2 = (2 * (x * zq - w * y), 2 * (y * zq + w * x), 1 - 2 * (x * x + y * y))
        low = z + min(a * r2[0] + b * r2[1] + c * r2[2] for a, b, c in self.corners[i]) - self.slack
        cx, cy, cz = self.coms[i]
        com = [r[0] * cx + r[1] * cy + r[2] * cz for r in (r0, r1, r2)]
        vx, vy, vz, bx, by, bz = qvel[6 * i:6 * i + 6].tolist()
        spin = [r[0] * bx + r[1] * by + r[2] * bz for r in (r0, r1, r2)]
        com_v = [vx + spin[1] * com[2] - spin[2] * com[1], vy + spin[2] * com[0] - spin[0] * com[2],
                 vz + spin[0] * com[1] - spin[1] * com[0]]
        return coast_steps(self.settings, z + com[2], low, com_v, spin, self.radii[i],
                           self.mm.shapes[i].spin_ratio, self.top, self.obstacles,
                           self.max_steps - step + 1, self.slack)

    def coast(self, n: int) -> None:
        """n steps with constraints off: nothing is near enough to touch (coast_steps), so
        MuJoCo would find no contact; the same bits, 0.45 of a flight step's 2 us saved."""
        m = self.m
        m.opt.disableflags = self.flags | self.no_constraint
        try:
            self.mj_step(m, self.d, n)
        finally:
            m.opt.disableflags = self.flags

    def substeps(self, split: int) -> None:
        """One step in `split` sub-steps, for a die faster than fast_speed, with the stiffest
        contact MuJoCo allows at that sub-step (time constant 2 sub-steps). At 1/60 s a d8
        thrown down at 50 m/s sank 0.25 m into the table before the contact stopped it."""
        m, dt = self.m, self.dt
        timeconsts = m.pair_solref[:, 0].copy()
        m.opt.timestep = dt / split
        m.pair_solref[:, 0] = 2 * dt / split
        try:
            self.mj_step(m, self.d, split)
        finally:
            m.opt.timestep = dt
            m.pair_solref[:, 0] = timeconsts

    def take(self, step: int, coast: int, split: int, brisk: bool, live: list[int]) -> int:
        """Take step `step` and say which step the dice are read after: `coast` steps
        coasting, one step in `split` sub-steps, while every die is `brisk` a call of
        `batch` steps (stepped again one at a time up to its end if it is taken back), or
        one step."""
        if coast:
            self.coast(coast)
            return step + coast - 1
        if split > 1:
            self.substeps(split)
            return step
        if brisk and step > self.watch_to and step + self.batch <= self.max_steps:
            if self.call(live):
                return step + self.batch - 1
            self.watch_to = step + self.batch - 1
            return step
        self.mj_step(self.m, self.d)
        return step

    def call(self, live: list[int]) -> bool:
        """`batch` steps in one call (BATCH_STEPS), kept if every die is brisk after it too
        (True); if not, the state before it is put back and one step taken (False)."""
        m, d = self.m, self.d
        self.get_state(m, d, self.saved, self.spec)
        self.mj_step(m, d, self.batch)
        if _brisk(d.qpos, d.qvel, live, self.floors, self.brisk_v2, self.brisk_w2,
                  self.fast * self.fast / 4):
            return True
        self.set_state(m, d, self.saved, self.spec)
        self.bad_qacc.number = 0  # (a non-finite step is met again, at its step)
        self.mj_step(m, d)
        return False


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
        # A lone unrecorded die runs in `_run_alone`; False runs it in the general loop, the
        # same bits (tests/test_mujoco_stepping.py).
        self.lone_loop = True

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
        names = resting + [name for name, _m, _t in dice]
        simulated, perturbations = self._simulated(dice)
        placed = dict(self.scene)
        for (name, model, _throw), sim in zip(dice, simulated, strict=True):
            placed[name] = PlacedDie(name, model, Pose(sim.release, sim.orientation))
        # The geoms' places are wanted only for reading resting dice or obstacles (touching,
        # leaning): a lone die's throw skips the two forward passes (mj_step makes its own).
        others = len(names) > 1 or bool(self.table.obstacles)
        mm = self._load(names, placed, forward=others)
        before = {n: self._classify(mm, names, i, removed={}) for i, n in enumerate(resting)}
        for k, sim in enumerate(simulated):
            self._set_velocity(mm, len(resting) + k, sim)
        removed: dict[int, Pose] = {}
        steps, frames = self._run_to_rest(mm, names, removed, record)
        if others:
            self._forward(mm)
        outcomes = {n: self._classify(mm, names, i, removed) for i, n in enumerate(names)}
        disturbed = tuple((b, outcomes[n]) for n, b in before.items() if was_disturbed(b, outcomes[n]))
        reports = self._reports(dice, player, True, steps, outcomes, disturbed,
                                frames if record else None, perturbations)
        self.scene = {n: replace(placed[n], pose=self._pose(mm, i))
                      for i, n in enumerate(names) if i not in removed}
        return reports

    def settle(self) -> int:
        """Let the resting scene run until every die is at rest again; the steps it took."""
        names = sorted(self.scene)
        mm = self._load(names, self.scene)
        removed: dict[int, Pose] = {}
        steps, _frames = self._run_to_rest(mm, names, removed, False)
        self.scene = {n: replace(self.scene[n], pose=self._pose(mm, i))
                      for i, n in enumerate(names) if i not in removed}
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

    def _run_to_rest(self, mm: _Model, names: list[str], removed: dict[int, Pose],
                     record: bool) -> tuple[int, list[Frame]]:
        """World's settle rule: every die below settle_linear and settle_angular for
        hold_time (a twitch within jitter of where its still spell began does not break it),
        the hold restarted for a die poised on an edge or a point, a die below the table
        surface off the table removed, one through the slab a TunnelError. MuJoCo's
        profiling timers are off while it runs (_profiler_clock)."""
        clock = _profiler_clock(self._mj)
        if clock is None:
            return self._steps_to_rest(mm, names, removed, record)
        timer, clock.value = clock.value, None
        try:
            return self._steps_to_rest(mm, names, removed, record)
        finally:
            clock.value = timer

    def _steps_to_rest(self, mm: _Model, names: list[str], removed: dict[int, Pose],
                       record: bool) -> tuple[int, list[Frame]]:
        """_run_to_rest's loop (one die alone: _run_alone)."""
        run = mm.runs.get((record, self.batch_steps))
        if run is None or run.settings is not self.settings:
            run = mm.runs[(record, self.batch_steps)] = _Stepping(self, mm, record)
        live = [i for i in range(len(names)) if i not in removed]
        if len(live) == 1 and not record and self.lone_loop:
            return self._run_alone(run, names, live[0], removed), []
        d = run.d
        dt, hold, max_steps, fast = run.dt, run.hold, run.max_steps, run.fast
        lin2, ang2, gate_v2, gate_w2 = run.lin2, run.ang2, run.gate_v2, run.gate_w2
        jitter_m2, jitter_cos, floors, batch = run.jitter_m2, run.jitter_cos, run.floors, run.batch
        frame_every = max(1, round(1.0 / (self.settings.frame_rate * dt)))
        n = len(names)
        still, restarts = [0] * n, [0] * n
        anchors: list[Any] = [None] * n
        frames = [self._frame(mm, names, 0.0, live)] if record else []
        qpos, qvel, bad_qacc = d.qpos, d.qvel, run.bad_qacc
        brisk = False  # every die brisk after the last step (then a call may take `batch`)
        run.watch_to = 0
        step = 0
        fastest = math.sqrt(sum(dot(qvel[6 * i:6 * i + 3], qvel[6 * i:6 * i + 3]) for i in live))
        while step < max_steps:
            step += 1
            split = math.ceil(fastest / fast) if fastest > fast else 1
            coast = 0
            if len(live) == 1 and self.coast and not record and split == 1 and still[live[0]] == 0:
                coast = run.coast_steps(live[0], step)
            step = run.take(step, coast, split, brisk and fastest < fast / 2, live)
            if bad_qacc.number:
                raise NonFiniteError(f"MuJoCo's accelerations turned non-finite at step {step}")
            settled = True
            brisk = batch > 1
            fastest = 0.0
            for i in list(live):
                v = qvel[6 * i:6 * i + 6]
                lx, ly, lz, wx, wy, wz = v.tolist()
                z = float(qpos[7 * i + 2])
                if lz < -0.01 and z < floors[i] and self._fall_off(mm, names, i, step, removed):
                    live.remove(i)
                    continue
                v2 = lx * lx + ly * ly + lz * lz
                w2 = wx * wx + wy * wy + wz * wz
                if not v2 + w2 < math.inf:
                    raise NonFiniteError(f"die {names[i]} turned non-finite at step {step}: "
                                         f"velocity {[lx, ly, lz]}, spin {[wx, wy, wz]}")
                fastest = max(fastest, math.sqrt(v2))
                if v2 < gate_v2 and w2 < gate_w2:
                    brisk = False
                if v2 < lin2 and w2 < ang2:
                    if still[i] == 0:
                        anchors[i] = self._raw_pose(qpos, i)
                elif not (still[i] and jitter(self._raw_pose(qpos, i), anchors[i], jitter_m2,
                                               jitter_cos)):
                    still[i] = 0
                    settled = False
                    continue
                still[i] += 1
                brisk = False  # (a forgiven twitch: brisk, yet still)
                if still[i] < hold:
                    settled = False
                elif still[i] == hold and restarts[i] < MAX_POISED and self._poised(mm, names, i, removed):
                    restarts[i] += 1
                    still[i] = 0
                    settled = False
            if record and step % frame_every == 0:
                frames.append(self._frame(mm, names, step * dt, [i for i in live if still[i] == 0]))
            if settled:
                if record:
                    frames.append(self._frame(mm, names, step * dt, live))
                return step, frames
        restless = [names[i] for i in live if still[i] < hold]
        raise NotSettledError(f"dice {', '.join(restless)} did not come to rest within "
                              f"{self.settings.max_time:.1f} s of simulated time")

    def _run_alone(self, run: _Stepping, names: list[str], i: int, removed: dict[int, Pose]) -> int:
        """`_run_to_rest` for one die alone (the others removed), unrecorded: the fairness
        lab's and the bench's throw. The same rule in the same order (tested bit for bit
        against `_run_to_rest` with `lone_loop = False`), written with plain locals: the
        general loop's per-die lists cost 2-6% of a lone die's throw."""
        mm, d = run.mm, run.d
        hold, max_steps, fast, half_fast = run.hold, run.max_steps, run.fast, run.fast / 2
        lin2, ang2, gate_v2, gate_w2 = run.lin2, run.ang2, run.gate_v2, run.gate_w2
        jitter_m2, jitter_cos, batch = run.jitter_m2, run.jitter_cos, run.batch
        floor, coasting, clear = run.floors[i], self.coast, run.top + run.reach[i]
        qpos, qvel, bad_qacc = d.qpos, d.qvel, run.bad_qacc
        sqrt, ceil, inf = math.sqrt, math.ceil, math.inf
        vel, zi = slice(6 * i, 6 * i + 6), 7 * i + 2
        live = [i]
        lx, ly, lz, wx, wy, wz = qvel[vel].tolist()
        fastest = sqrt(lx * lx + ly * ly + lz * lz)
        still, restarts = 0, 0
        anchor: Any = None
        brisk = False
        run.watch_to = 0
        step = 0
        while step < max_steps:
            step += 1
            split = ceil(fastest / fast) if fastest > fast else 1
            coast = 0
            if coasting and split == 1 and still == 0 and qpos[zi] > clear:  # (coast_steps' test)
                coast = run.coast_steps(i, step)
            step = run.take(step, coast, split, brisk and fastest < half_fast, live)
            if bad_qacc.number:
                raise NonFiniteError(f"MuJoCo's accelerations turned non-finite at step {step}")
            lx, ly, lz, wx, wy, wz = qvel[vel].tolist()
            if lz < -0.01 and float(qpos[zi]) < floor and self._fall_off(mm, names, i, step, removed):
                return step
            v2 = lx * lx + ly * ly + lz * lz
            w2 = wx * wx + wy * wy + wz * wz
            if not v2 + w2 < inf:
                raise NonFiniteError(f"die {names[i]} turned non-finite at step {step}: "
                                     f"velocity {[lx, ly, lz]}, spin {[wx, wy, wz]}")
            fastest = sqrt(v2)
            brisk = batch > 1 and not (v2 < gate_v2 and w2 < gate_w2)
            if v2 < lin2 and w2 < ang2:
                if still == 0:
                    anchor = self._raw_pose(qpos, i)
            elif not (still and jitter(self._raw_pose(qpos, i), anchor, jitter_m2, jitter_cos)):
                still = 0
                continue
            still += 1
            brisk = False
            if still < hold:
                continue
            if restarts < MAX_POISED and self._poised(mm, names, i, removed):
                restarts += 1
                still = 0
                continue
            return step
        raise NotSettledError(f"dice {names[i]} did not come to rest within "
                              f"{self.settings.max_time:.1f} s of simulated time")

    @staticmethod
    def _raw_pose(qpos: Any, i: int) -> tuple[list[float], list[float]]:
        """(position, quaternion x, y, z, w) as settle.jitter reads a pose."""
        q = qpos[7 * i:7 * i + 7].tolist()
        return q[0:3], [q[4], q[5], q[6], q[3]]

    def _poised(self, mm: _Model, names: list[str], i: int, removed: dict[int, Pose]) -> bool:
        """World._poised: still for the hold time, yet on an edge or a point of the table
        top with nothing to lean on: not at rest, the hold starts again."""
        pose = self._pose(mm, i)
        rot = pose.rotation()
        poly = mm.shapes[i].poly
        if -float(matmul(poly.normals, rot[2]).min()) > COS_FLAT:
            return False
        if self._touching(mm, i, removed):
            return False
        world = matmul(poly.vertices, rot.T) + np.array(pose.position)
        return all(self.table.contains_xy(v[0], v[1]) for v in world.tolist())

    def _fall_off(self, mm: _Model, names: list[str], i: int, step: int, removed: dict[int, Pose]) -> bool:
        """World._fall_off: below the surface off the table's footprint, the die has fallen
        off (removed: its pose then is kept; it falls on below the table, where no contact
        reaches it); inside it, past the slab's
        middle, it went through (TunnelError)."""
        x, y, z = (float(v) for v in mm.data.qpos[7 * i:7 * i + 3])
        if not all(math.isfinite(v) for v in (x, y, z)):
            raise NonFiniteError(f"die {names[i]} turned non-finite at step {step}: position {(x, y, z)}")
        if self.table.contains_xy(x, y, inset=-1e-3):
            if z < -TABLE_THICKNESS / 2:
                raise TunnelError(f"die {names[i]} passed through the table at ({x:.3f}, {y:.3f}) m "
                                  f"at step {step}")
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


def _brisk(qpos: Any, qvel: Any, live: list[int], floors: list[float], v2_min: float,
           w2_min: float, v2_max: float) -> bool:
    """Every live die moving at least sqrt(v2_min) or spinning at least sqrt(w2_min), slower
    than sqrt(v2_max), and none falling below its floor (a non-finite one is not brisk)."""
    for i in live:
        lx, ly, lz, wx, wy, wz = qvel[6 * i:6 * i + 6].tolist()
        v2 = lx * lx + ly * ly + lz * lz
        if not ((v2 >= v2_min or wx * wx + wy * wy + wz * wz >= w2_min) and v2 < v2_max):
            return False
        if lz < -0.01 and qpos[7 * i + 2] < floors[i]:
            return False
    return True


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for two 3-vectors (numpy's cross costs 40 us of axis handling a call)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


__all__ = ["CONTACT_MAPPING", "MujocoWorld", "damping_ratio", "free_position", "free_velocity",
           "pose_from_qpos"]
