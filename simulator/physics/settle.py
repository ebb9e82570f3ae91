"""The engine-neutral settle rule and the classification of a rest: a still spell's
jitter allowance, the confinement rule's cage, the free-flight bound of a coast, how a
resting die is classified (on_table, fell_off, leaning, overhang) and when a resting die
counts as disturbed. Every engine's stepping loop applies these (docs/physics.md)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from dice_models.numerics import dot, matmul, norm, rows_by, rows_dot
from rules.core.protocols import DiePose
from simulator.physics.common import (
    COS_FLAT,
    FLAT_DEG,
    FLAT_HEIGHT,
    MOVED_M,
    TABLE_THICKNESS,
    TURNED_DEG,
    NonFiniteError,
    Pose,
    TunnelError,
)
from simulator.physics.dice import DieShape
from simulator.physics.placing import yaw_deg
from simulator.physics.settings import CONFINE_CHECKS, DICE_DAMPING, PhysicsSettings, TableSpec

COAST_MIN = 4  # fewer steps than this are not worth a coast


def coast_steps(s: PhysicsSettings, z: float, low: float, lin: Any, ang: Any, radius: float,
                spin_ratio: float, top: float, whole_reach: bool, limit: int,
                slack: float) -> int:
    """How many whole steps a lone die in free flight can take unwatched (0: none worth it).

    A die in the air needs no reading: nothing it can meet, so every step would be a whole
    step and every check after it would pass. Over the steps returned, bounds that hold
    whatever the die does show that (1) it stays slower than fast_speed, so no step would be
    split for speed; (2) its lowest point stays farther above `top` (the table top, or the
    highest obstacle) than it can travel toward it in a step, so no step would be split for
    a contact and it cannot fall below the table; (3) it stays faster than settle_linear, so
    no still spell would start. The caller steps that many times and then reads the die as
    after any step: the results are those of watching every step, bit for bit
    (tests/test_kept_table.py hashes them). `z` is the centre of mass's height, `low` the
    bottom of its die_box (its lowest point less `slack`), `radius` its farthest point from
    the centre of mass, `spin_ratio` its largest principal moment over its smallest (a free
    die's spin can grow by that).

    The bounds: gravity plus Bullet's multibody damping, which decelerates a body by
    c * v * (1 + |v|) (DICE_DAMPING = c), taken twice over; the lowest point falls no faster
    than the centre of mass plus the spin's sweep of `radius`.

    The loops pass the steps to the next check of the confinement rule as `limit`, so a coast
    never runs past a check. A refusal (0) costs about as much as a step, and a die
    bouncing low over the table is refused step after step, so the loops ask again only
    COAST_MIN steps after one (or right after the check that cut it short): either way every
    step is the same step, only watched or not."""
    dt, g = s.time_step, s.gravity
    vx, vy, vz = lin
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    across = math.sqrt(vx * vx + vy * vy)
    spin = 1.1 * spin_ratio * math.sqrt(ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2])
    sweep = spin * radius  # how fast the spin can move a point of the hull

    def ok(k: int) -> bool:
        t = k * dt
        vmax = speed + g * t
        for _ in range(2):
            drag = 2.0 * DICE_DAMPING * vmax * (1.0 + vmax)
            vmax = speed + (g + drag) * t
        if vmax >= s.fast_speed:
            return False
        if across - drag * t <= s.settle_linear and (vz >= -s.settle_linear or drag >= g):
            return False  # (3): neither its sideways speed nor its fall keeps it moving
        fall = vz * t - 0.5 * (g + drag) * t * t
        lowest = min(0.0, fall) + max(z - radius - slack, low - sweep * t)
        gap = dt * ((vmax if whole_reach else max(0.0, (g + drag) * t - vz)) + sweep)
        return lowest - gap > top

    if limit < COAST_MIN or not ok(COAST_MIN):
        return 0
    lo, hi = COAST_MIN, COAST_MIN * 2
    while hi <= limit and ok(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:  # ok(lo), not ok(hi) (or past the limit)
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo



def describe(name: str, shape: DieShape, pose: Pose, table: TableSpec, touching: bool,
              removed: bool) -> DiePose:
    """Classify a die's pose. This runs after every throw, so past the two small matrix
    products it works on Python lists (a numpy call on 8 numbers costs more than the sum)."""
    poly = shape.poly
    rot = pose.rotation()
    px, py, pz = pose.position
    world = [[x + px, y + py, z + pz] for x, y, z in rows_by(shape.vertex_list, rot.T.tolist())]
    heights = rows_dot(shape.normal_list, rot[2].tolist())  # z of each face's world normal
    low, high = min(heights), max(heights)
    bottom, up = heights.index(low), heights.index(high)  # the first, as numpy's argmin/argmax
    tilt = math.degrees(math.acos(min(1.0, -low)))
    top = shape.opposite[bottom]
    corners = [world[v] for v in shape.face_vertex_lists[bottom]]
    flat = tilt < FLAT_DEG and max(abs(c[2]) for c in corners) < FLAT_HEIGHT
    inside = table.contains_xy
    all_on = all(inside(c[0], c[1]) for c in corners)
    if removed or pose.position[2] < 0:
        status, reason = "off_table", "fell_off"
    elif flat and all_on:
        status, reason = "on_table", None
    elif flat:
        status, reason = "off_table", "overhang"
    elif touching:
        status, reason = "off_table", "leaning"
    elif not all(inside(c[0], c[1]) for c in world):
        status, reason = "off_table", "overhang"
    else:
        status, reason = "off_table", "leaning"
    face_for_corners = top if poly.kind == "octahedron" else up
    top_corners = {k: (world[v][0], world[v][1]) for k, v in shape.corner_names(face_for_corners).items()}
    # A die lying on a face shows what its reading says (DieShape.value_shown): for a die
    # read by its top face, the face opposite the bottom, not the highest: for the bipyramid
    # d10, with no parallel faces, the highest is one of two nearly level faces that traded
    # places with a hair of drift (its face shares then depended on the time step,
    # benchmarks/convergence.py).
    return DiePose(
        die=name, status=status, reason=reason, face=shape.value_shown(bottom, up, tilt < FLAT_DEG),
        position=pose.position, yaw_deg=yaw_deg(poly, rot, bottom),
        top_corners=top_corners, quaternion=pose.quaternion)


def poised(shape: DieShape, up: Any, pose: Pose, table: TableSpec,
           leaning: Callable[[], bool]) -> bool:
    """The poised rule: a die still for the hold, yet balanced on an edge or a point of the
    table top with nothing to lean on, is not at rest (the hold starts again, and gravity
    decides). Not poised: resting on a face (its lowest face's normal within FLAT_DEG of down;
    `up` is the third row of its rotation as the engine computes it), touching a die or an
    obstacle (`leaning`, asked only then), or with a corner past the table's edge, where a
    die may rest tilted. At the top of a rock a paper d8 on its edge stayed under the settle
    speeds for 6 steps and was taken for at rest (2 of 1000 throws at a 0.025 s hold)."""
    if -float(matmul(shape.poly.normals, up).min()) > COS_FLAT:  # resting on a face
        return False
    if leaning():
        return False
    world = matmul(shape.poly.vertices, pose.rotation().T) + np.array(pose.position)
    return all(table.contains_xy(v[0], v[1]) for v in world.tolist())


def was_disturbed(before: DiePose, after: DiePose) -> bool:
    moved = norm(np.subtract(after.position, before.position))
    q1, q2 = np.array(before.quaternion), np.array(after.quaternion)
    turned = math.degrees(2 * math.acos(min(1.0, abs(dot(q1, q2)))))
    return moved > MOVED_M or turned > TURNED_DEG or after.status != before.status


def jitter(now: Any, anchor: Any, max_m2: float, min_cos: float) -> bool:
    """Is a Bullet base pose (position, quaternion) within jitter of the anchor pose?"""
    (p, q), (a, b) = now, anchor
    d2 = (p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2 + (p[2] - a[2]) ** 2
    dot = abs(q[0] * b[0] + q[1] * b[1] + q[2] * b[2] + q[3] * b[3])
    return d2 < max_m2 and dot > min_cos


class Cage:
    """The confinement rule's watch over one die (PhysicsSettings.confine_time): how many
    checks in a row found it spinning slower than confine_spin and within confine_m and
    confine_deg of its pose at the first of them (`anchor`)."""

    __slots__ = ("anchor", "cos", "kept", "m2", "spin2")

    def __init__(self, s: PhysicsSettings) -> None:
        _every, self.m2, self.cos, self.spin2 = s.confine_rule()
        self.kept = 0
        self.anchor: Any = None

    def check(self, w2: float, get_pose: Callable[..., Any], *body: int) -> Any:
        """One check of the die (squared spin w2, its pose read by get_pose(*body)): its pose
        when this is the check that confines it (CONFINE_CHECKS + 1 in a row), else None."""
        if not w2 < self.spin2:  # (NaN too)
            self.kept = 0
            return None
        pose = get_pose(*body)
        if self.kept and jitter(pose, self.anchor, self.m2, self.cos):
            self.kept += 1
            return pose if self.kept == CONFINE_CHECKS + 1 else None
        self.anchor, self.kept = pose, 1
        return None

    def holds(self, pose: Any) -> bool:
        """Confined, and this pose still in the cage?"""
        return self.kept > CONFINE_CHECKS and jitter(pose, self.anchor, self.m2, self.cos)


class RestRule(NamedTuple):
    """The settle rule's numbers for one PhysicsSettings, as every engine's loop reads them:
    steps of stillness a die must hold, the steps before NotSettledError, the squared settle
    speeds, the jitter allowance of a still spell (squared metres, least |quaternion dot|)
    and the steps between the confinement rule's checks."""

    hold: int
    max_steps: int
    lin2: float
    ang2: float
    jitter_m2: float
    jitter_cos: float
    every: int


_LAST_RULE: list[tuple[PhysicsSettings, RestRule]] = []  # the last settings' rule (frozen)


def rest_rule(s: PhysicsSettings) -> RestRule:
    """The settle rule of settings `s` (kept for the last settings asked: a throw asks three
    times, and PhysicsSettings is frozen)."""
    if _LAST_RULE and _LAST_RULE[0][0] is s:
        return _LAST_RULE[0][1]
    rule = _rest_rule(s)
    _LAST_RULE[:] = [(s, rule)]
    return rule


def _rest_rule(s: PhysicsSettings) -> RestRule:
    return RestRule(max(1, math.ceil(s.hold_time / s.time_step - 1e-9)),
                    math.ceil(s.max_time / s.time_step), s.settle_linear ** 2,
                    s.settle_angular ** 2, s.jitter_m ** 2,
                    math.cos(math.radians(s.jitter_deg) / 2), s.confine_rule()[0])


def fell_off(table: TableSpec, name: str, position: tuple[float, float, float], step: int) -> bool:
    """The verdict on a die whose centre dropped below the table surface, at `position`: off
    the table's footprint it has fallen off (True; the engine takes it out of play); inside
    it, either still being pushed out of the slab (False) or, past the slab's middle, gone
    through it (TunnelError). A non-finite position is a NonFiniteError."""
    x, y, z = position
    if not all(math.isfinite(v) for v in position):
        raise NonFiniteError(f"die {name} turned non-finite at step {step}: position {position}")
    if table.contains_xy(x, y, inset=-1e-3):
        if z < -TABLE_THICKNESS / 2:
            raise TunnelError(f"die {name} passed through the table at ({x:.3f}, {y:.3f}) m "
                              f"at step {step}")
        return False
    return True
