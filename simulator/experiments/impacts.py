"""The last phase of a throw, where a die chooses its face, in isolation (issue 36, item 1):
single impacts of a steel cuboid, the rocking of a thin tile and a long bar on an edge, a
face landing flat, and the effect of the engines' contact knobs, in PyBullet (the lab's
`World` with the lab's settings and sub-step rule) and in MuJoCo (`MujocoWorld`'s compiled
model), each figure beside what rigid-body mechanics predicts for the set restitution and
friction. Results and their reading: docs/impacts.md.

Nothing here is new physics: a probe builds the engine's own world for one die (the
project's `World` / `MujocoWorld` with its contact model, materials and settings), puts the
die at a pose with a velocity, and steps it as the lab does, reading the state after every
step. The mechanics it is compared with are closed forms:

- an impact at one contact point (or a symmetric set of them) under Newton's kinematic
  restitution and Coulomb friction (`impulse`): the contact point's normal velocity reverses
  by e, the tangential impulse is what stops the contact point's slip, capped at mu times the
  normal impulse (then the slip's direction is kept);
- Housner's rocking block (Bull. Seismol. Soc. Am. 53, 1963): a rigid rectangular block of
  half-width b and half-height h rocking on its bottom edges without bounce or slip keeps
  r = 1 - (3/2) sin^2(alpha) of its angular velocity at each impact, alpha = atan(b / h),
  so each rocking amplitude follows from the last by energy (`housner_next`); a block with
  r <= 0 (alpha >= 54.7 deg) cannot rock at all: its first impact stops it;
- static toppling: released from rest, a block topples over its edge exactly when its tilt
  is above alpha (the centre of mass beyond the edge).

`throw_shares` then throws the dataset's cuboids as the lab does with one deviation removed
at a time (Bullet's 100 rad/s spin clamp, the turn bound, the push-out) or the throw
changed, to see which of them moves the outcome. `python -m simulator.experiments.impacts`
prints tables (a)-(d).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import dice_models
from dice_models import DieModel
from dice_models.materials import MaterialLibrary, library, overlay
from rules.core.throwing import GRAVITY
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.settings import SURFACES, PhysicsSettings, TableSpec

# The calibrated pair of the cuboid dataset (dice_models/materials.yaml: steel on hardwood).
FRICTION = 0.4324
RESTITUTION = 0.5958
SQUARE = 0.016  # m: the cuboids' square side
TILE = (SQUARE, SQUARE, 0.00752)  # x/y 0.47 (c047 of budden_square_cuboids)
BAR = (SQUARE, SQUARE, 0.02992)  # x/y 1.87 (c187)
STEEL_DENSITY = 7850.0  # kg/m^3, as the dataset assumes
ENGINE_NAMES = ("pybullet", "mujoco")


def cuboid_die(sides: tuple[float, float, float], name: str = "cuboid") -> DieModel:
    """A solid steel cuboid die of these sides (m), faces +-z the squares (as the dataset's
    cuboids: sides [y, y, x])."""
    from dice_models import parse_die

    x, y, z = sides
    volume = x * y * z
    return parse_die({"name": name, "geometry": {"kind": "cuboid", "sides": [x, y, z]},
                      "values": [2, 5, 3, 4, 1, 6], "mass": STEEL_DENSITY * volume,
                      "mass_model": "solid", "material": "steel"}, f"<impacts {name}>")


@dataclass(frozen=True)
class Knobs:
    """One contact model: the engine, the pair's friction and restitution, and the engine's
    own contact settings left at the lab's where None."""

    engine: str = "pybullet"
    friction: float = FRICTION
    restitution: float = RESTITUTION
    time_step: float | None = None  # s; None: PhysicsSettings' (1/240)
    # PyBullet
    restitution_threshold: float | None = None  # m/s: no bounce below it (Bullet's default 0.2)
    split_impulse: bool | None = None  # Bullet's split impulse (rigid bodies only, not multibodies)
    recovery_time: float | None = None  # s: the lab's contact ERP is step / this (default 0.02)
    max_turn_deg: float | None = None  # the lab's turn bound (default 1 deg; 0: none)
    max_travel: float | None = None  # the lab's travel bound (default 2 mm)
    # Bullet clamps every velocity coordinate of a multibody (a die: its base's linear and
    # angular velocity components) at btMultiBody's maxCoordinateVelocity, 100 by default;
    # PyBullet sets it per body as changeDynamics(maxJointVelocity=...). None: the lab's 100.
    max_spin: float | None = None  # rad/s
    # MuJoCo
    solref: tuple[float, float] | None = None  # (time constant s, damping ratio) of every pair
    solimp: tuple[float, ...] | None = None  # of every pair (lab: 0.99 0.99 0.001)
    cone: str | None = None  # 'elliptic' (the lab's) or 'pyramidal'

    def label(self) -> str:
        parts = [self.engine]
        for f in ("friction", "restitution"):
            if getattr(self, f) != getattr(Knobs, f):
                parts.append(f"{f} {getattr(self, f):g}")
        for f in ("time_step", "restitution_threshold", "split_impulse", "recovery_time",
                  "max_turn_deg", "max_travel", "max_spin", "solref", "solimp", "cone"):
            v = getattr(self, f)
            if v is not None:
                parts.append(f"{f} {v}")
        return ", ".join(parts)

    def settings(self) -> PhysicsSettings:
        s = PhysicsSettings(engine=self.engine)
        changes: dict[str, Any] = {}
        if self.time_step is not None:
            changes["time_step"] = self.time_step
        if self.recovery_time is not None:
            changes["contact_recovery_time"] = self.recovery_time
        if self.max_turn_deg is not None:
            changes["max_turn_deg"] = self.max_turn_deg
        if self.max_travel is not None:
            changes["max_travel"] = self.max_travel
        return replace(s, **changes) if changes else s


@contextmanager
def pair_values(knobs: Knobs) -> Iterator[None]:
    """The steel/hardwood pair at the knobs' friction and restitution (lever arms the pair's
    own), for the worlds made inside the block (as the calibration's trials)."""
    lib = library()
    steel, wood = lib.materials["steel"], SURFACES["hardwood"]
    base = lib.pair(steel, wood)
    if knobs.friction == base.friction and knobs.restitution == base.restitution:
        yield
        return
    stated = {"friction": knobs.friction, "restitution": knobs.restitution,
              "rolling_friction": base.rolling_friction,
              "spinning_friction": base.spinning_friction, "source": "impacts probe"}
    with overlay(MaterialLibrary({"steel": steel, "hardwood": wood},
                                 {("hardwood", "steel"): stated})):
        yield


@dataclass
class Motion:
    """A die's state after every step: time (s), centre of mass (m), quaternion (x, y, z, w),
    velocity (m/s), spin in the table frame (rad/s), contact points with the table (those
    carrying load) and the sub-steps each step took."""

    shape: DieShape
    t: np.ndarray
    com: np.ndarray
    quat: np.ndarray
    v: np.ndarray
    w: np.ndarray
    contacts: np.ndarray
    splits: np.ndarray
    knobs: Knobs = field(default_factory=Knobs)

    def rotation(self, k: int) -> np.ndarray:
        return _rot(self.quat[k])

    def energy(self, k: int) -> float:
        """Kinetic plus potential energy above the table (J)."""
        sh = self.shape
        m = sh.mass.mass
        rot = self.rotation(k) @ sh.principal_axes
        inertia = rot @ np.diag(sh.principal_moments) @ rot.T
        w = self.w[k]
        return float(0.5 * m * self.v[k] @ self.v[k] + 0.5 * w @ inertia @ w
                     + m * GRAVITY * self.com[k][2])

    def lowest(self, k: int) -> float:
        """Height of the die's lowest vertex (m)."""
        verts = self.shape.poly.vertices - self.shape.mass.com
        return float((verts @ self.rotation(k).T)[:, 2].min() + self.com[k][2])

    def down_face(self, k: int) -> int:
        """The index of the face whose outward normal points most nearly down."""
        normals = self.shape.poly.normals @ self.rotation(k).T
        return int(np.argmin(normals[:, 2]))


def _rot(q: Any) -> np.ndarray:
    x, y, z, w = (float(c) for c in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _quat(m: np.ndarray) -> tuple[float, float, float, float]:
    from scipy.spatial.transform import Rotation

    x, y, z, w = Rotation.from_matrix(m).as_quat()
    return (float(x), float(y), float(z), float(w))


def run(model: DieModel, rot: np.ndarray, com: Any, v: Any, w: Any, steps: int,
        knobs: Knobs = Knobs(), substeps: bool = False) -> Motion:
    """Put a die of `model` with rotation `rot` (its body frame in the table's), centre of
    mass at `com`, velocity `v` and spin `w` (table frame) on the default table of hardwood
    (with the knobs' pair), and step it `steps` steps with the engine's contact model (with
    `substeps`, a row for each of the lab's sub-steps in PyBullet; MuJoCo takes whole steps)."""
    if knobs.engine not in ENGINE_NAMES:
        raise ValueError(f"engine must be one of {', '.join(ENGINE_NAMES)}: {knobs.engine!r}")
    with pair_values(knobs):
        if knobs.engine == "pybullet":
            return _run_bullet(model, rot, com, v, w, steps, knobs, substeps)
        return _run_mujoco(model, rot, com, v, w, steps, knobs)


def _geometric_pose(shape: DieShape, rot: np.ndarray, com: Any) -> Any:
    from simulator.physics.world import Pose

    centre = np.asarray(com, dtype=float) - rot @ shape.mass.com
    return Pose((float(centre[0]), float(centre[1]), float(centre[2])), _quat(rot))


def _run_bullet(model: DieModel, rot: np.ndarray, com: Any, v: Any, w: Any, steps: int,
                knobs: Knobs, substeps: bool) -> Motion:
    """The lab's World for one die, stepped by the lab's rule for a lone die on an empty
    table (the lone-die step of simulator/physics/bullet_steps.py: sub-steps for speed, for
    travel toward the table top and for the turn of a die touching it), without the settle
    rule: every step read (with `substeps`, every sub-step: a row each)."""
    from simulator.physics._bullet import fast_reads
    from simulator.physics.world import Stepper, World, _near_split, die_box, turn_bound

    s = knobs.settings()
    shape = die_shape(model)
    world = World(TableSpec(surface=SURFACES["hardwood"]), s)
    try:
        world._build({}, adding=(model,))
        body = world._add_body("probe", shape, _geometric_pose(shape, rot, com))
        c = world._client
        params: dict[str, Any] = {}
        if knobs.restitution_threshold is not None:
            params["restitutionVelocityThreshold"] = knobs.restitution_threshold
        if knobs.split_impulse is not None:
            params["useSplitImpulse"] = int(knobs.split_impulse)
        if params:
            c.setPhysicsEngineParameter(**params)
        if knobs.max_spin is not None:
            c.changeDynamics(body.bid, -1, maxJointVelocity=knobs.max_spin)
        c.resetBaseVelocity(body.bid, [float(a) for a in v], [float(a) for a in w])
        stepper = Stepper(c, s)
        get_pose, get_vel, _step = fast_reads(c)
        statics = world._static_boxes()
        dt = s.time_step
        slack = s.collision_margin + s.gravity * dt * dt
        max_turn = turn_bound(s, shape)
        radius, local = shape.base_radius, shape.base_points
        table = world._table_id
        out: dict[str, list[Any]] = {k: [] for k in ("com", "quat", "v", "w", "contacts", "splits", "dt")}
        for _ in range(steps):
            lin, ang = get_vel(body.bid)
            speed = math.sqrt(sum(a * a for a in lin))
            split = math.ceil(speed / s.fast_speed) if speed > s.fast_speed else 1
            w_xy = math.hypot(ang[0], ang[1])
            drop, tilt = dt * (max(0.0, -lin[2]) + w_xy * radius), dt * w_xy
            if drop > s.max_travel or tilt > max_turn:
                box = die_box(get_pose(body.bid), local, radius, slack)
                split = max(split, _near_split(box, 0.0, drop, statics, s.max_travel, tilt,
                                               max_turn))
            stepper(split, 0)  # the sub-step's length and ERP, as the lab sets them
            for _sub in range(split if substeps else 1):
                for _ in range(1 if substeps else split):
                    _step()
                pos, orn = get_pose(body.bid)
                lin, ang = get_vel(body.bid)
                loaded = [cp for cp in c.getContactPoints(bodyA=body.bid, bodyB=table)
                          if cp[9] > 0.0]
                out["com"].append(pos)
                out["quat"].append(orn)
                out["v"].append(lin)
                out["w"].append(ang)
                out["contacts"].append(len(loaded))
                out["splits"].append(split)
                out["dt"].append(dt / split if substeps else dt)
        stepper.reset()
    finally:
        world.close()
    return _track(shape, out, knobs)


def _run_mujoco(model: DieModel, rot: np.ndarray, com: Any, v: Any, w: Any, steps: int,
                knobs: Knobs) -> Motion:
    """MujocoWorld's compiled model for one die, stepped whole steps (the lab's MuJoCo loop
    takes whole steps but for dice faster than fast_speed), every step read."""
    from simulator.physics.mujoco_world import MujocoWorld, free_position
    from simulator.physics.world import PlacedDie

    s = knobs.settings()
    shape = die_shape(model)
    world = MujocoWorld(TableSpec(surface=SURFACES["hardwood"]), s)
    mj = world._mj
    pose = _geometric_pose(shape, rot, com)
    mm = world._load(["probe"], {"probe": PlacedDie("probe", model, pose)})
    m, d = mm.model, mm.data
    if knobs.solref is not None:
        m.pair_solref[:, :] = np.array(knobs.solref, dtype=float)
    if knobs.solimp is not None:
        imp = np.array(m.pair_solimp[0], dtype=float)
        imp[:len(knobs.solimp)] = knobs.solimp
        m.pair_solimp[:, :] = imp
    if knobs.cone is not None:
        if knobs.cone not in ("elliptic", "pyramidal"):
            raise ValueError(f"cone must be elliptic or pyramidal: {knobs.cone!r}")
        m.opt.cone = (mj.mjtCone.mjCONE_ELLIPTIC if knobs.cone == "elliptic"
                      else mj.mjtCone.mjCONE_PYRAMIDAL)
    d.qpos[0:7] = free_position(pose)
    origin_v = np.asarray(v, dtype=float) - np.cross(np.asarray(w, dtype=float), rot @ shape.mass.com)
    d.qvel[0:6] = np.concatenate([origin_v, rot.T @ np.asarray(w, dtype=float)])
    mj.mj_forward(m, d)
    table_geom = mm.static_geoms[0]
    force = np.zeros(6)
    out: dict[str, list[Any]] = {k: [] for k in ("com", "quat", "v", "w", "contacts", "splits", "dt")}
    for _ in range(steps):
        mj.mj_step(m, d)
        q = d.qpos[0:7]
        r = _rot((q[4], q[5], q[6], q[3]))
        wb = np.array(d.qvel[3:6])
        ww = r @ wb
        cw = r @ shape.mass.com
        out["com"].append(np.array(q[0:3]) + cw)
        out["quat"].append((q[4], q[5], q[6], q[3]))
        out["v"].append(np.array(d.qvel[0:3]) + np.cross(ww, cw))
        out["w"].append(ww)
        n = 0
        for i in range(d.ncon):
            con = d.contact[i]
            if table_geom in (con.geom1, con.geom2):
                mj.mj_contactForce(m, d, i, force)
                n += force[0] > 0.0
        out["contacts"].append(n)
        out["splits"].append(1)
        out["dt"].append(s.time_step)
    return _track(shape, out, knobs)


def _track(shape: DieShape, out: dict[str, list[Any]], knobs: Knobs) -> Motion:
    return Motion(shape, np.cumsum(out["dt"]), np.array(out["com"], dtype=float),
                 np.array(out["quat"], dtype=float), np.array(out["v"], dtype=float),
                 np.array(out["w"], dtype=float), np.array(out["contacts"], dtype=int),
                 np.array(out["splits"], dtype=int), knobs)


# -- mechanics -------------------------------------------------------------------------------


def _cross_matrix(r: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def impulse(mass: float, inertia: np.ndarray, r: Any, v: Any, w: Any, e: float, mu: float
            ) -> tuple[np.ndarray, np.ndarray, bool]:
    """Velocity and spin after an impact at the contact point `r` (from the centre of mass,
    table frame, normal +z) under Newton's restitution `e` and Coulomb friction `mu`, and
    whether the contact point stuck. The impulse J solves K J = du with K = I/m - [r]x
    I^-1 [r]x: stick (the point's tangential velocity stopped, its normal velocity -e times
    the incoming) when |J_t| <= mu J_n; else slide, J = J_n (n - mu s) along the incoming
    slip s (the stick impulse's direction when the point does not slip)."""
    r, v, w = (np.asarray(a, dtype=float) for a in (r, v, w))
    inv = np.linalg.inv(inertia)
    rx = _cross_matrix(r)
    k = np.eye(3) / mass - rx @ inv @ rx
    u = v + np.cross(w, r)
    n = np.array([0.0, 0.0, 1.0])
    target = np.array([0.0, 0.0, -e * u[2]])
    j = np.linalg.solve(k, target - u)
    jt = j - j[2] * n
    stuck = bool(np.hypot(jt[0], jt[1]) <= mu * j[2] + 1e-15)
    if not stuck:
        ut = u - u[2] * n
        s = ut / np.linalg.norm(ut) if np.linalg.norm(ut) > 1e-12 else -jt / np.linalg.norm(jt)
        d = n - mu * s
        jn = -(1.0 + e) * u[2] / float(n @ k @ d)
        j = jn * d
    return v + j / mass, w + inv @ np.cross(r, j), stuck


def housner_r(b: float, h: float) -> float:
    """Housner's ratio of angular velocities after and before a rocking impact of a uniform
    rectangular block of half-width b and half-height h: 1 - (3/2) sin^2(atan(b / h))."""
    return 1.0 - 1.5 * math.sin(math.atan2(b, h)) ** 2


def housner_next(theta: float, b: float, h: float) -> float:
    """The next rocking amplitude (rad) of a Housner block after one at `theta`: the energy
    m g R (cos(alpha - theta) - cos alpha) scaled by r^2 (0 when r <= 0: no rocking)."""
    r = housner_r(b, h)
    if r <= 0:
        return 0.0
    alpha = math.atan2(b, h)
    lift = r * r * (math.cos(alpha - theta) - math.cos(alpha))
    return alpha - math.acos(math.cos(alpha) + lift)


def measured_r(theta0: float, theta1: float, b: float, h: float) -> float:
    """The velocity ratio r that takes a rocking amplitude theta0 to theta1 by energy."""
    alpha = math.atan2(b, h)
    den = math.cos(alpha - theta0) - math.cos(alpha)
    num = math.cos(alpha - theta1) - math.cos(alpha)
    return math.sqrt(max(num, 0.0) / den) if den > 0 else float("nan")


# -- (a) single impacts ------------------------------------------------------------------------


ATTITUDES = {  # a rotation of the die (its body frame in the table's) for each way of landing
    "flat": (0.0, 0.0),  # square face down
    "edge": (30.0, 0.0),  # turned 30 deg about x: a bottom edge along x lowest
    "corner": (30.0, 20.0),  # and 20 deg about y: one corner lowest
}


def attitude(name: str) -> np.ndarray:
    ax, ay = (math.radians(a) for a in ATTITUDES[name])
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    return ry @ rx


@dataclass(frozen=True)
class Impact:
    """One impact: the die and how it landed, the incoming normal speed, and measured against
    predicted (Newton's restitution and Coulomb friction at the contact point)."""

    shape: str
    landing: str
    speed: float  # m/s, the centre of mass's speed at impact (downward)
    slide: float  # m/s, its horizontal speed at impact
    point_e: float  # the contact point's normal velocity ratio, measured
    com_e: float  # the centre of mass's normal velocity ratio, measured
    com_e_predicted: float
    energy_lost: float  # share of the kinetic energy at impact lost in it, measured
    energy_lost_predicted: float
    tangential: float  # |horizontal velocity change of the centre of mass| / its normal change
    contacts: int  # load-carrying contact points in the impact's step
    steps: int  # steps in contact before the die left the table (or the window ended)


GAPS = tuple(0.0001 + 0.0016 * (i + 0.5) / 8 for i in range(8))  # m: release heights of a series


def drop(model: DieModel, landing: str, speed: float, knobs: Knobs = Knobs(), slide: float = 0.0,
         name: str = "", gap: float = 0.0005) -> Impact:
    """Drop the die in attitude `landing` from `gap` m above the table (its lowest point) so
    that it meets the table at `speed` m/s (and `slide` m/s along +y); measure its first
    impact against Newton's and Coulomb's. Where in a step the die meets the table moves
    how deep it is found, and so Bullet's push-out: a series over GAPS averages that out."""
    shape = die_shape(model)
    rot = attitude(landing)
    verts = (shape.poly.vertices - shape.mass.com) @ rot.T
    low = float(verts[:, 2].min())
    v0 = math.sqrt(max(speed * speed - 2 * GRAVITY * gap, 0.0))
    com = (0.0, 0.0, gap - low)
    tr = run(model, rot, com, (0.0, slide, -v0), (0.0, 0.0, 0.0), 40, knobs, substeps=True)
    # the impact: the first (sub-)step whose centre of mass gained upward speed beyond gravity's
    dts = np.diff(np.concatenate([[0.0], tr.t]))
    vz = np.concatenate([[-v0], tr.v[:, 2]])
    jumps = np.nonzero(np.diff(vz) > 0.5 * GRAVITY * dts)[0]
    if len(jumps) == 0:
        raise RuntimeError(f"the {landing} drop at {speed} m/s never met the table")
    k = int(jumps[0])  # step index of the impact (tr row k is after it)
    # the state just before, as the solver meets it: the last (sub-)step's, with gravity's
    # pull over the impact's (sub-)step added (both engines add it before the contacts)
    g = knobs.settings().gravity
    before_v = np.array([0.0, slide, -v0]) if k == 0 else tr.v[k - 1].copy()
    before_v[2] -= g * dts[k]
    before_w = np.zeros(3) if k == 0 else tr.w[k - 1]
    rot_before = rot if k == 0 else tr.rotation(k - 1)
    # after: in PyBullet the (sub-)step of the impact (a rigid contact ends in one); in
    # MuJoCo the first step out of contact (its soft contact lasts steps), at most 20 on
    end = k
    if knobs.engine == "mujoco":
        while end + 1 < len(tr.t) and tr.contacts[end] > 0 and end - k < 20:
            end += 1
    after_v, after_w = tr.v[end], tr.w[end]
    m = shape.mass.mass
    rot_k = rot_before @ shape.principal_axes
    inertia = rot_k @ np.diag(shape.principal_moments) @ rot_k.T
    # contact point: the lowest vertices (their centre) as the die meets the table
    verts_k = (shape.poly.vertices - shape.mass.com) @ rot_before.T
    lowz = verts_k[:, 2].min()
    r = verts_k[verts_k[:, 2] < lowz + 1e-4].mean(axis=0)
    u0 = before_v + np.cross(before_w, r)
    u1 = after_v + np.cross(after_w, r)
    # a face landing flat cannot turn into the table: its load shifts across the face
    # instead, so it takes the impulse as a particle would (the point at the centre of mass)
    at = np.zeros(3) if landing == "flat" else r
    pv, pw, _stuck = impulse(m, inertia, at, before_v, before_w, knobs.restitution, knobs.friction)

    def ke(vv: np.ndarray, ww: np.ndarray) -> float:
        return float(0.5 * m * vv @ vv + 0.5 * ww @ inertia @ ww)

    e0 = ke(before_v, before_w)
    dv = after_v - before_v
    return Impact(
        shape=name or shape.name, landing=landing, speed=speed, slide=slide,
        point_e=float(-u1[2] / u0[2]), com_e=float(-after_v[2] / before_v[2]),
        com_e_predicted=float(-pv[2] / before_v[2]),
        energy_lost=1.0 - ke(after_v, after_w) / e0, energy_lost_predicted=1.0 - ke(pv, pw) / e0,
        tangential=float(math.hypot(dv[0], dv[1]) / abs(dv[2])) if dv[2] else 0.0,
        contacts=int(tr.contacts[k]), steps=end - k + 1)


# -- (b) rocking -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stance:
    """A cuboid resting on one face, rocking about one bottom edge: the body axes pointing
    down and along the edge, and the half-width b (across the edge) and half-height h."""

    name: str
    sides: tuple[float, float, float]
    down: int  # body axis (0 x, 1 y, 2 z) pointing down (its - face on the table)
    along: int  # body axis along the rocking edge

    @property
    def across(self) -> int:
        return 3 - self.down - self.along

    @property
    def b(self) -> float:
        return self.sides[self.across] / 2

    @property
    def h(self) -> float:
        return self.sides[self.down] / 2

    @property
    def alpha(self) -> float:
        return math.atan2(self.b, self.h)


STANCES = {
    "tile flat": Stance("tile flat", TILE, down=2, along=0),  # on a square face, alpha 64.8 deg
    "tile on edge": Stance("tile on edge", TILE, down=1, along=0),  # on a long narrow face, 25.2
    "bar on end": Stance("bar on end", BAR, down=2, along=0),  # on a square face, 28.1
    "bar on side": Stance("bar on side", BAR, down=1, along=2),  # on a long face, about its long edge, 45
}


def stance_rotation(st: Stance, theta: float) -> np.ndarray:
    """Body frame in the table's: body axis `down` to -z, `along` to x, then tilted by
    `theta` about x (positive lifts the +y side: the die pivots on its -y bottom edge)."""
    cols = np.zeros((3, 3))
    cols[:, st.along] = (1.0, 0.0, 0.0)
    cols[:, st.down] = (0.0, 0.0, -1.0)
    cols[:, st.across] = np.cross(cols[:, st.down], cols[:, st.along])
    if np.linalg.det(cols) < 0:
        cols[:, st.across] *= -1
    base = cols  # columns: the body axes in the table frame
    c, s = math.cos(theta), math.sin(theta)
    tilt = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return tilt @ base


@dataclass(frozen=True)
class Rocking:
    stance: str
    theta0: float  # deg, the release tilt
    amplitudes: tuple[float, ...]  # deg, successive peaks of |tilt| (the release first)
    toppled: bool  # ended on another face
    final_tilt: float  # deg, the tilt of the stance's face at the end (90: on the next face)
    r_measured: tuple[float, ...]  # per impact, from the amplitudes by energy
    r_housner: float
    predicted: tuple[float, ...]  # Housner's amplitudes from the release (deg)
    max_contacts: int
    airborne_steps: int  # steps with no contact after the first impact (bounces)


def tilt_of(tr: Motion, st: Stance) -> np.ndarray:
    """The signed tilt (rad) of the stance's bottom face about x for every step."""
    axis_down = np.zeros(3)
    axis_down[st.down] = 1.0  # outward normal of the face on the table, body frame
    out = np.empty(len(tr.t))
    for k in range(len(tr.t)):
        nrm = tr.rotation(k) @ axis_down
        out[k] = math.atan2(nrm[1], -nrm[2])  # 0 when flat; positive as stance_rotation's theta
    return out


def rock(st: Stance, theta0_deg: float, steps: int = 480, knobs: Knobs = Knobs(),
         spin: float = 0.0) -> Rocking:
    """Release a cuboid in stance `st` tilted by theta0 on its bottom edge (at rest, or with
    `spin` rad/s about the edge), step it, and read the rocking amplitudes."""
    model = cuboid_die(st.sides, st.name.replace(" ", "-"))
    shape = die_shape(model)
    theta0 = math.radians(theta0_deg)
    rot = stance_rotation(st, theta0)
    # the pivot edge on the table (0.05 mm above it)
    verts = (shape.poly.vertices - shape.mass.com) @ rot.T
    com = np.array([0.0, 0.0, 5e-5 - verts[:, 2].min()])
    w = np.array([spin, 0.0, 0.0])
    tr = run(model, rot, com, (0.0, 0.0, 0.0), w, steps, knobs)
    th = tilt_of(tr, st)
    amps = [theta0_deg]  # the release, then the peak of |tilt| of each half cycle after it
    sign = 1.0 if theta0 >= 0 else -1.0
    peak, crossed = 0.0, False
    for val in th:
        if sign * val < 0:  # through the upright: an impact, and a new half cycle
            if crossed:
                amps.append(math.degrees(peak))
            crossed, sign, peak = True, -sign, 0.0
        peak = max(peak, sign * val)
    if crossed:
        amps.append(math.degrees(peak))
    amps_t = tuple(a for a in amps if a > 0.02) or (theta0_deg,)
    b, h = st.b, st.h
    rs = tuple(measured_r(math.radians(a0), math.radians(a1), b, h)
               for a0, a1 in zip(amps_t, amps_t[1:], strict=False) if a0 < math.degrees(st.alpha))
    pred = [theta0]
    while len(pred) < 8 and pred[-1] > 1e-4 and pred[-1] < st.alpha:
        pred.append(housner_next(pred[-1], b, h))
    first = int(np.argmax(np.abs(np.diff(np.sign(th))) > 0)) if crossed else len(th)
    final = math.degrees(abs(th[-1]))
    return Rocking(stance=st.name, theta0=theta0_deg, amplitudes=amps_t, toppled=final > 45.0,
                   final_tilt=final, r_measured=rs, r_housner=housner_r(b, h),
                   predicted=tuple(math.degrees(p) for p in pred),
                   max_contacts=int(tr.contacts.max()),
                   airborne_steps=int((tr.contacts[first:] == 0).sum()))


@dataclass(frozen=True)
class ImpactSeries:
    """Impacts of one kind over the release heights GAPS: mean, least and most."""

    shape: str
    landing: str
    speed: float
    slide: float
    point_e: tuple[float, float, float]
    com_e: tuple[float, float, float]
    com_e_predicted: float
    energy_lost: tuple[float, float, float]
    energy_lost_predicted: float
    tangential: tuple[float, float, float]


def _spread(xs: list[float]) -> tuple[float, float, float]:
    return (float(np.mean(xs)), float(min(xs)), float(max(xs)))


def drop_series(model: DieModel, landing: str, speed: float, knobs: Knobs = Knobs(),
                slide: float = 0.0, name: str = "", gaps: tuple[float, ...] = GAPS) -> ImpactSeries:
    hits = [drop(model, landing, speed, knobs, slide, name, g) for g in gaps]
    h0 = hits[0]
    return ImpactSeries(h0.shape, landing, speed, slide, _spread([h.point_e for h in hits]),
                  _spread([h.com_e for h in hits]), float(np.mean([h.com_e_predicted for h in hits])),
                  _spread([h.energy_lost for h in hits]),
                  float(np.mean([h.energy_lost_predicted for h in hits])),
                  _spread([h.tangential for h in hits]))


def critical_tilt(st: Stance, knobs: Knobs = Knobs(), tol_deg: float = 0.05) -> float:
    """The least release tilt (deg, from rest) from which the die topples off its stance's
    face, bisected to `tol_deg` in alpha +- 5 deg (geometry: alpha exactly)."""
    a = math.degrees(st.alpha)
    lo, hi = a - 5.0, a + 5.0
    if rock(st, lo, 360, knobs).toppled or not rock(st, hi, 360, knobs).toppled:
        return float("nan")
    while hi - lo > tol_deg:
        mid = (lo + hi) / 2
        if rock(st, mid, 360, knobs).toppled:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class Landing:
    """A face landing: load-carrying contact points per (sub-)step while in contact, the
    rebound ratio, the spin it picked up and how it ended."""

    shape: str
    tilt: float  # deg, about x, at impact
    speed: float
    contacts: tuple[int, ...]  # per (sub-)step from the first contact, 12 rows
    first_contacts: int  # points in the impact's (sub-)step
    rebound: float  # the centre of mass's upward speed after the impact / its impact speed
    spin_after: float  # rad/s right after the impact
    bounces: int  # separate contact spells in the window (a chatter adds spells)
    same_stance: bool  # it ends on the face it landed on or the one opposite (a flip)


def land_flat(model: DieModel, speed: float, tilt_deg: float = 0.0, knobs: Knobs = Knobs(),
              steps: int = 240, gap: float = 0.0005) -> Landing:
    """Drop a die square face down (tilted by `tilt_deg` about x) at `speed` m/s, no spin."""
    shape = die_shape(model)
    c, s = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
    rot = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    verts = (shape.poly.vertices - shape.mass.com) @ rot.T
    v0 = math.sqrt(max(speed * speed - 2 * GRAVITY * gap, 0.0))
    tr = run(model, rot, (0.0, 0.0, gap - float(verts[:, 2].min())), (0.0, 0.0, -v0),
             (0.0, 0.0, 0.0), steps, knobs, substeps=True)
    touching = np.nonzero(tr.contacts > 0)[0]
    k = int(touching[0]) if len(touching) else 0
    spells = int(np.sum(np.diff(np.concatenate([[0], (tr.contacts > 0).astype(int)])) == 1))
    # the rebound: the highest upward speed within 3 (sub-)steps of the first contact
    rebound = float(tr.v[k:k + 3, 2].max() / speed)
    start = shape.poly.normals[int(np.argmin((shape.poly.normals @ rot.T)[:, 2]))]
    end = shape.poly.normals[tr.down_face(len(tr.t) - 1)]
    return Landing(shape.name, tilt_deg, speed, tuple(int(n) for n in tr.contacts[k:k + 12]),
                   int(tr.contacts[k]), rebound, float(np.linalg.norm(tr.w[k])), spells,
                   abs(float(start @ end)) > 0.99)


# -- (d) the engines' contact knobs --------------------------------------------------------------

DT = 1.0 / 240.0
BULLET_KNOBS = (
    Knobs(),
    Knobs(restitution_threshold=0.0),
    Knobs(restitution_threshold=1.0),
    Knobs(split_impulse=True),
    Knobs(recovery_time=0.005),
    Knobs(recovery_time=0.08),
    Knobs(max_turn_deg=0.0),
    Knobs(max_turn_deg=0.25),
    Knobs(max_travel=0.0005),
    Knobs(time_step=1.0 / 960.0),
    Knobs(max_spin=1000.0),
)
MUJOCO_KNOBS = (
    Knobs(engine="mujoco"),
    Knobs(engine="mujoco", cone="pyramidal"),
    Knobs(engine="mujoco", solref=(2 * DT, 0.8)),
    Knobs(engine="mujoco", solref=(8 * DT, 0.8)),
    Knobs(engine="mujoco", solref=(4 * DT, 0.3)),
    Knobs(engine="mujoco", solimp=(0.9, 0.95, 0.001)),
    Knobs(engine="mujoco", time_step=1.0 / 960.0),
)


@dataclass(frozen=True)
class KnobRow:
    knobs: str
    flat_e: tuple[float, ...]  # flat drop restitution (series mean) at 0.3, 1, 2 m/s
    corner_lost: float  # tile corner drop at 3 m/s: share of energy lost (Newton: see predicted)
    corner_lost_predicted: float
    bar_r: tuple[float, ...]  # bar on end from 0.6 alpha: r of the first two impacts (Housner 0.666)
    tile_r: tuple[float, ...]  # tile on edge from 0.6 alpha (Housner 0.729)
    critical: float  # bar on end: the critical tilt (deg; geometry 28.14)


def knob_row(knobs: Knobs, gaps: tuple[float, ...] = GAPS, critical: bool = True) -> KnobRow:
    tile = cuboid_die(TILE, "tile")
    flat = tuple(drop_series(tile, "flat", v, knobs, gaps=gaps).com_e[0] for v in (0.3, 1.0, 2.0))
    corner = drop_series(tile, "corner", 3.0, knobs, gaps=gaps)
    bar, edge = STANCES["bar on end"], STANCES["tile on edge"]
    rb = rock(bar, 0.6 * math.degrees(bar.alpha), 480, knobs).r_measured[:2]
    rt = rock(edge, 0.6 * math.degrees(edge.alpha), 480, knobs).r_measured[:2]
    crit = critical_tilt(bar, knobs, 0.1) if critical else float("nan")
    return KnobRow(knobs.label(), flat, corner.energy_lost[0], corner.energy_lost_predicted,
                   rb, rt, crit)


# -- the whole record --------------------------------------------------------------------------


def _f(x: float, nd: int = 3) -> str:
    return "n/a" if x != x else f"{x:.{nd}f}"


def report(engines: tuple[str, ...] = ENGINE_NAMES, knobs: bool = True) -> str:
    """Every experiment of docs/impacts.md as markdown tables (a few minutes on one core)."""
    lines: list[str] = []
    tile, bar = cuboid_die(TILE, "tile"), cuboid_die(BAR, "bar")
    lines += ["## (a) Single impacts (8 release heights each: mean [least, most])", "",
              "| engine | die | landing | speed m/s | contact point e | centre of mass e "
              "| predicted | energy lost | predicted | ratio lost/predicted |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for eng in engines:
        k = Knobs(engine=eng)
        for model, nm in ((tile, "tile"), (bar, "bar")):
            for landing in ATTITUDES:
                for v in (0.3, 1.0, 2.0, 3.0):
                    sr = drop_series(model, landing, v, k, name=nm)
                    ratio = sr.energy_lost[0] / sr.energy_lost_predicted
                    lines.append(
                        f"| {eng} | {nm} | {landing} | {v} | {_spread_s(sr.point_e)} | "
                        f"{_spread_s(sr.com_e)} | {_f(sr.com_e_predicted)} | "
                        f"{_spread_s(sr.energy_lost)} | {_f(sr.energy_lost_predicted)} | {_f(ratio, 2)} |")
    lines += ["", "Oblique flat landings of the tile at 1 m/s down (Coulomb: |dv_t| / |dv_n| = mu "
              f"= {FRICTION} while it slides, less once it sticks):", "",
              "| engine | slide m/s | dv_t / dv_n | energy lost | predicted |",
              "| --- | --- | --- | --- | --- |"]
    for eng in engines:
        for sl in (0.3, 1.0, 3.0):
            so = drop_series(tile, "flat", 1.0, Knobs(engine=eng), slide=sl, name="tile")
            lines.append(f"| {eng} | {sl} | {_spread_s(so.tangential)} | {_spread_s(so.energy_lost)} "
                         f"| {_f(so.energy_lost_predicted)} |")
    lines += ["", "## (b) Rocking from rest (amplitudes in deg; r per impact by energy)", "",
              "| engine | stance | alpha | Housner r | release | amplitudes | Housner's | r measured "
              "| toppled |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for eng in engines:
        k = Knobs(engine=eng)
        for name, st in STANCES.items():
            a = math.degrees(st.alpha)
            for frac in (0.3, 0.6, 0.9, 1.02):
                r = rock(st, frac * a, 480, k)
                lines.append(
                    f"| {eng} | {name} | {a:.1f} | {_f(r.r_housner)} | {r.theta0:.1f} | "
                    f"{', '.join(f'{x:.2f}' for x in r.amplitudes[:6])} | "
                    f"{', '.join(f'{x:.2f}' for x in r.predicted[:5])} | "
                    f"{', '.join(_f(x) for x in r.r_measured[:4])} | {'yes' if r.toppled else 'no'} |")
    lines += ["", "Critical tilt (released from rest; bisected to 0.05 deg):", "",
              "| engine | stance | geometric (alpha) | measured |", "| --- | --- | --- | --- |"]
    for eng in engines:
        for name, st in STANCES.items():
            lines.append(f"| {eng} | {name} | {math.degrees(st.alpha):.2f} | "
                         f"{_f(critical_tilt(st, Knobs(engine=eng)), 2)} |")
    lines += ["", "## (c) Square face landing (1 s window)", "",
              "| engine | die | speed m/s | tilt deg | contacts per (sub-)step from the first | "
              "rebound | spin after rad/s | contact spells | ends on a square face |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for eng in engines:
        for model, nm in ((tile, "tile"), (bar, "bar")):
            for v in (0.5, 1.5):
                for tilt in (0.0, 0.5, 2.0, 5.0):
                    L = land_flat(model, v, tilt, Knobs(engine=eng))
                    lines.append(f"| {eng} | {nm} | {v} | {tilt} | {' '.join(map(str, L.contacts[:8]))} "
                                 f"| {_f(L.rebound)} | {L.spin_after:.1f} | {L.bounces} | "
                                 f"{'yes' if L.same_stance else 'no'} |")
    if knobs:
        lines += ["", "## (d) Contact knobs", "",
                  "| knobs | flat e 0.3 / 1 / 2 m/s | tile corner 3 m/s lost (Newton) | bar on end r "
                  "(Housner 0.666) | tile on edge r (0.729) | bar critical tilt (28.14) |",
                  "| --- | --- | --- | --- | --- | --- |"]
        rows = [kn for kn in (*BULLET_KNOBS, *MUJOCO_KNOBS) if kn.engine in engines]
        for kn in rows:
            kr = knob_row(kn)
            lines.append(f"| {kr.knobs} | {' / '.join(_f(x) for x in kr.flat_e)} | "
                         f"{_f(kr.corner_lost)} ({_f(kr.corner_lost_predicted)}) | "
                         f"{', '.join(_f(x) for x in kr.bar_r)} | {', '.join(_f(x) for x in kr.tile_r)} "
                         f"| {_f(kr.critical, 2)} |")
    return "\n".join(lines) + "\n"


def _spread_s(x: tuple[float, float, float]) -> str:
    return f"{x[0]:.3f} [{x[1]:.3f}, {x[2]:.3f}]"


def main(argv: list[str] | None = None) -> int:
    """`python -m simulator.experiments.impacts [--no-knobs] [--engine NAME]`: print the tables."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m simulator.experiments.impacts")
    ap.add_argument("--engine", choices=ENGINE_NAMES, action="append",
                    help="an engine to run (repeatable; default both)")
    ap.add_argument("--no-knobs", action="store_true", help="leave out the knob sweep (d)")
    a = ap.parse_args(argv)
    print(report(tuple(a.engine) if a.engine else ENGINE_NAMES, knobs=not a.no_knobs), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# -- (e) the lab's throws with the spin clamp raised ---------------------------------------------

DATASET = str(Path(dice_models.__file__).parent / "datasets" / "budden_square_cuboids.yaml")
CALIBRATED = {"friction": FRICTION, "restitution": RESTITUTION, "throw_scale": 1.6512}


def throw_shares(names: tuple[str, ...], throws: int, max_spin: float | None = None,
                 params: dict[str, float] | None = None, seed: int = 11,
                 dataset: str = DATASET, throw: dict[str, Any] | None = None,
                 table: TableSpec | None = None, engine_params: dict[str, float] | None = None,
                 **settings: Any) -> dict[str, tuple[int, int, int]]:
    """The lab's own throws of the dataset's objects (calibrate.simulate's experiment, the
    dataset's table and throw model, `params` the calibrated point by default), with every
    die body's velocity clamp at `max_spin` (None: Bullet's 100), `throw` fields of the
    throw model replaced (after the throw scale), on `table` (None: the dataset's) and with
    `settings` changed in the PhysicsSettings, and `engine_params` given to Bullet's
    setPhysicsEngineParameter after the lab's (restitutionVelocityThreshold, say): per object
    (square face up, on the table, all throws). The same seeds whatever is changed: the
    comparisons are paired."""
    from simulator.experiments.calibrate import experiment_for, load_dataset, trial_library
    from simulator.experiments.dispatch import ThrowSimulator

    ds = load_dataset(dataset)
    p = dict(params or CALIBRATED)
    out: dict[str, tuple[int, int, int]] = {}
    for name in names:
        obj = ds.object(name)
        exp = experiment_for(obj, p, seed)
        if settings:
            exp = replace(exp, physics=exp.physics.with_(**settings))
        if throw:
            exp = replace(exp, throw=replace(exp.throw, **throw))
        if table is not None:
            exp = replace(exp, table=table)
        square = set(dict(obj.groups)["square"])
        with overlay(trial_library(obj, p)):
            sim = ThrowSimulator(exp)
            try:
                if max_spin is not None:
                    _clamp_spin(sim.world, max_spin)
                if engine_params:
                    _engine_params(sim.world, engine_params)
                rows = sim.run(list(range(throws)))
            finally:
                sim.world.close()
        on = [r for r in rows if r.status == "on_table" and r.face is not None]
        out[name] = (sum(1 for r in on if r.face in square), len(on), len(rows))
    return out


def walled_table(width: float = 1.2, depth: float = 0.9, wall: float = 0.05) -> TableSpec:
    """A hardwood table with a wall `wall` m high (2 cm thick) just inside each edge: a
    tray that keeps energetic rolls on the table."""
    from simulator.physics.settings import Obstacle

    t = 0.02
    walls = (Obstacle("north", "box", (0.0, depth / 2 - t / 2), (width, t, wall)),
             Obstacle("south", "box", (0.0, -depth / 2 + t / 2), (width, t, wall)),
             Obstacle("east", "box", (width / 2 - t / 2, 0.0), (t, depth - 2 * t, wall)),
             Obstacle("west", "box", (-width / 2 + t / 2, 0.0), (t, depth - 2 * t, wall)))
    return TableSpec(width=width, depth=depth, surface=SURFACES["hardwood"], obstacles=walls)


def _clamp_spin(world: Any, max_spin: float) -> None:
    """Give every die body `world` makes Bullet's velocity clamp `max_spin` (an experiment's
    hook on this World instance only; the lab's World is unchanged)."""
    add = world._add_body

    def add_body(*args: Any, **kwargs: Any) -> Any:
        body = add(*args, **kwargs)
        world._client.changeDynamics(body.bid, -1, maxJointVelocity=max_spin)
        return body

    world._add_body = add_body


def _engine_params(world: Any, params: dict[str, float]) -> None:
    """Bullet's engine parameters `params` on every table `world` builds, after the lab's
    (an experiment's hook on this World instance only)."""
    build = world._build_table

    def build_table(*args: Any, **kwargs: Any) -> Any:
        out = build(*args, **kwargs)
        world._client.setPhysicsEngineParameter(**params)
        return out

    world._build_table = build_table
    world._client.setPhysicsEngineParameter(**params)
