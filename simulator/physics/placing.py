"""The engine-neutral checks and poses of placing, throwing and tipping a die: a flat
placement's pose, the refusal of a throw or a release inside something, the symmetry break
of an exactly symmetric throw, and a tip's roll and what blocks it among the dice. Every
engine places, throws and tips through these (simulator/physics/engine.py)."""

from __future__ import annotations

import functools
import math
import struct
import zlib
from dataclasses import replace
from typing import Any

import numpy as np

from dice_models import DataError, DieModel
from dice_models.geometry import (
    SWEEP_TOLERANCE_M,
    Solid,
    axis_angle,
    convex_from_vertices,
    cuboid,
    rest_yaw,
    signed_distance,
    tip_clearance,
    tip_turns,
)
from dice_models.numerics import dot, matmul, norm
from rules.core.protocols import ThrowSpec
from simulator.physics.common import (
    TABLE_THICKNESS,
    TOUCH_M,
    PlacedDie,
    PlacementError,
    Pose,
    quat_from_matrix,
    validate_throw,
    world_vertices,
)
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.settings import TableSpec

yaw_deg = rest_yaw  # the rest yaw, as the kinematic table reads it


# A pure drop (no sideways speed, no spin but about the vertical) can be exactly
# symmetric: a d8 let go point down stands on its point for ever in exact arithmetic, where
# a real hand is never that true. Such a throw is tilted about a random horizontal axis by
# an angle in this range (deg), the alignment a careful hand achieves at best, drawn from
# the throw's own values and its seed, and the tilt is recorded in the report. 2 deg moves
# the centre of a 16 mm d6 standing on an edge 0.4 mm sideways, beyond the largest rolling
# lever arm of the surface presets (0.00065 m), so gravity topples it.
#
# A throw that moves sideways can be exactly symmetric too: about the vertical plane of its
# motion, when its spin turns it within that plane and the die (its vertices, centre of
# mass and inertia, as released) is its own mirror image in that plane. `tabletop throw
# --release -0.2 0 0.1 --velocity 0.3 0 0` let the paper d8 down on a vertex, rolled it on
# to an edge in that plane and left it balanced there, which gravity could not end. Such a
# throw is tilted by the same amount about the horizontal line in the plane, which turns
# the die out of it. This is asked only of a lone die thrown on to a table with no obstacle
# and no resting die (the table top is its own mirror image in every vertical plane;
# another body, which could break the symmetry, would have to be its mirror image too).
# Any other throw is left exactly as given.
SYMMETRY_TILT_DEG = (2.0, 4.0)
MIRROR_TOL = 1e-9  # of the die's circumradius: how near a mirror image counts as exact


def symmetry_break(throw: ThrowSpec, alone: DieShape | None = None
                   ) -> tuple[ThrowSpec, dict[str, Any] | None]:
    """The throw as simulated, and the perturbation applied: None for any throw that is
    not exactly symmetric (a pure drop; given `alone`, the shape of a die thrown alone on to
    an empty table without obstacles, also one whose motion and die are mirror images of
    themselves in a vertical plane: see above)."""
    vx, vy, _vz = throw.velocity
    mirror = None
    if vx != 0.0 or vy != 0.0 or throw.spin[0] != 0.0 or throw.spin[1] != 0.0:
        mirror = None if alone is None else _mirror_plane(throw, alone)
        if mirror is None:
            return throw, None
    values = (*throw.release, *throw.velocity, *throw.orientation)
    digest = zlib.crc32(struct.pack(f"<{len(values)}d", *values))
    rng = np.random.default_rng([throw.seed & 0xFFFFFFFFFFFFFFFF, digest])
    heading = float(rng.uniform(0.0, 2 * math.pi))
    tilt = float(rng.uniform(*SYMMETRY_TILT_DEG))
    if mirror is None:
        axis = np.array([math.cos(heading), math.sin(heading), 0.0])
    else:  # the horizontal line in the plane, either way along it
        along = np.array([-mirror[1], mirror[0], 0.0])
        axis = along if math.cos(heading) >= 0.0 else -along
    rot = matmul(axis_angle(axis, math.radians(tilt)), Pose(throw.release, throw.orientation).rotation())
    perturbed = replace(throw, orientation=quat_from_matrix(rot))
    out: dict[str, Any] = {"kind": "tilt", "axis": axis.tolist(), "angle_deg": tilt,
                           "orientation": list(perturbed.orientation)}
    if mirror is not None:
        out["mirror_normal"] = mirror.tolist()
    return perturbed, out


def _mirror_plane(throw: ThrowSpec, shape: DieShape) -> np.ndarray | None:
    """The horizontal unit normal of the vertical plane through the release point that
    the throw and the die are mirror images of themselves in, or None. The plane holds the
    sideways velocity (or, for a throw straight down, is square to a horizontal spin); the
    spin must be square to the plane, the centre of mass in it, the plane's normal a
    principal axis of the inertia, and the vertices must map on to vertices."""
    vx, vy, _vz = throw.velocity
    wx, wy, wz = throw.spin
    if vx != 0.0 or vy != 0.0:
        if wz != 0.0 or wx * vx + wy * vy != 0.0:  # (cheap: this runs before every lone throw)
            return None
        n = np.array([-vy, vx, 0.0])
    elif wz == 0.0:
        n = np.array([wx, wy, 0.0])
    else:
        return None
    n /= norm(n)
    scale = MIRROR_TOL * shape.poly.circumradius
    rot = Pose(throw.release, throw.orientation).rotation()
    if abs(dot(matmul(rot, shape.mass.com), n)) > scale:
        return None
    inertia = matmul(matmul(rot, shape.mass.inertia), rot.T)
    turned = matmul(inertia, n)
    if norm(turned - dot(n, turned) * n) > MIRROR_TOL * norm(inertia):
        return None
    from scipy.spatial import cKDTree

    world = matmul(shape.poly.vertices, rot.T)
    mirrored = world - np.outer(matmul(world, n), 2.0 * n)
    gaps, _nearest = cKDTree(world).query(mirrored)
    return n if float(np.max(gaps)) <= scale else None



def flat_pose(name: str, shape: DieShape, face: int, yaw_deg: float, xy: tuple[float, float],
              table: TableSpec) -> Pose:
    """The pose of die `name` put down flat showing `face` at `xy` (m) turned by `yaw_deg`;
    PlacementError for a value it cannot show flat or a spot not wholly on the table. (Both
    engines place through this: simulator/physics/mujoco_world.py.)"""
    shape.face_of_value(face)  # refuses a value the die does not have
    # The face to rest on is the one on which the die shows `face` by its reading (for a
    # die without parallel faces, resting on the face opposite `face`'s face shows
    # another value: tests/test_die_models.py).
    if face not in shape.shown_on:
        raise PlacementError(f"die {name!r} ({shape.name}) cannot lie flat showing {face}")
    bottom = shape.shown_on.index(face)
    rot = shape.poly.rest_rotation(bottom, yaw_deg)
    pos = (float(xy[0]), float(xy[1]), float(shape.poly.face_offsets[bottom]))
    pose = Pose(pos, quat_from_matrix(rot))
    corners = world_vertices(shape, pose)[list(shape.poly.faces[bottom])]
    if not all(table.contains_xy(c[0], c[1]) for c in corners):
        raise PlacementError(f"die {name!r} at ({xy[0]:.3f}, {xy[1]:.3f}) m would not rest "
                             "wholly on the table")
    return pose


def check_group(table: TableSpec, scene: dict[str, PlacedDie],
                dice: list[tuple[str, DieModel, ThrowSpec]]) -> None:
    """Refuse a group throw before anything is simulated: a throw no person could make, a
    name already on the table, a release inside the table, an obstacle or a resting die.
    (Both engines throw through this: simulator/physics/mujoco_world.py.)"""
    for name, model, throw in dice:
        validate_throw(throw)
        if name in scene:
            raise PlacementError(f"die {name!r} is already on the table")
        inside = release_blocker(table, scene, model, throw)
        if inside is not None:
            raise DataError("throw", "release", f"would start the die inside {inside}",
                            list(throw.release))


def release_blocker(table: TableSpec, scene: dict[str, PlacedDie], model: DieModel,
                    throw: ThrowSpec) -> str | None:
    """What a die released at `throw`'s pose would start inside, deeper than TOUCH_M: 'the
    table', 'obstacle NAME' or 'die NAME' (a resting die); None when it starts clear. Such a
    release was accepted, and Bullet pushed the die out of the solid by no law at all.
    Exact convex geometry (`dice_models.geometry.signed_distance`); a cylinder is the
    64-sided prism about it (at most 0.12% of its radius larger)."""
    poly = die_shape(model).poly
    if not scene and not table.obstacles and throw.release[2] > poly.circumradius:
        return None  # the common throw: nothing anywhere near the die (TOUCH_M > 0)
    release = np.array(throw.release, dtype=float)
    me = Solid.at(poly, Pose(throw.release, throw.orientation).rotation(), release)
    reach = poly.circumradius
    # Cheap tests first (a throw is refused rarely, and this runs before every throw): no
    # point below the surface, nothing of the table; an obstacle beyond both bounding spheres.
    low = float(me.vertices[:, 2].min()) < -TOUCH_M
    for what, solid, radius in _static_solids(table):
        if what == "the table" and not low:
            continue
        if what != "the table" and norm(
                solid.vertices.mean(axis=0) - release) > reach + radius:
            continue
        if signed_distance(me, solid) < -TOUCH_M:
            return what
    for other, placed in sorted(scene.items()):
        other_poly = die_shape(placed.model).poly
        at = np.array(placed.pose.position)
        if norm(at - release) > reach + other_poly.circumradius:
            continue
        if signed_distance(me, Solid.at(other_poly, placed.pose.rotation(), at)) < -TOUCH_M:
            return f"die {other}"
    return None


@functools.lru_cache(maxsize=16)
def _static_solids(table: TableSpec) -> list[tuple[str, Solid, float]]:
    """The table's slab (as Bullet has it, TABLE_THICKNESS deep) and its obstacles, each with
    its bounding radius about its centre; made once per table, as a fairness run throws
    thousands of times onto one."""
    def prism(radius: float, height: float) -> Any:
        angles = np.linspace(0.0, 2 * math.pi, 64, endpoint=False)
        r = radius / math.cos(math.pi / 64)  # circumscribed: contains the cylinder
        ring = np.array([[r * math.cos(a), r * math.sin(a)] for a in angles.tolist()])  # libm's
        return convex_from_vertices(np.concatenate(
            [np.column_stack([ring, np.full(64, -height / 2)]),
             np.column_stack([ring, np.full(64, height / 2)])]))

    slab = (cuboid(table.width, table.depth, TABLE_THICKNESS) if table.shape == "rect"
            else prism(table.radius, TABLE_THICKNESS))
    out = [("the table", Solid.at(slab, np.eye(3), np.array([0.0, 0.0, -TABLE_THICKNESS / 2])),
            math.inf)]
    for ob in table.obstacles:
        if ob.kind == "box":
            poly, z = cuboid(*ob.size), ob.size[2] / 2
        else:
            poly, z = prism(ob.size[0], ob.size[1]), ob.size[1] / 2
        yaw = math.radians(ob.yaw_deg)
        rot = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0],
                        [0.0, 0.0, 1.0]])
        out.append((f"obstacle {ob.name}",
                    Solid.at(poly, rot, np.array([ob.position[0], ob.position[1], z])),
                    poly.circumradius))
    return out


def sweep_blocker(scene: dict[str, PlacedDie], name: str, corner: str) -> str | None:
    """The die that the roll of `name` over `corner` would penetrate deeper than
    SWEEP_TOLERANCE_M at any moment (`dice_models.geometry.tip_clearance`, the very sweep
    of the kinematic table), or None. Dice beyond reach of the roll are not asked."""
    placed = scene[name]
    poly = die_shape(placed.model).poly
    centre = np.array(placed.pose.position)
    names, solids = [], []
    for other, p in sorted(scene.items()):
        other_poly = die_shape(p.model).poly
        at = np.array(p.pose.position)
        # No point of the rolling die gets farther than 3 circumradii from its centre.
        if other == name or norm(at - centre) > 3 * poly.circumradius + (
                other_poly.circumradius):
            continue
        names.append(other)
        solids.append(Solid.at(other_poly, p.pose.rotation(), at))
    if not solids:
        return None
    hit, _least = tip_clearance(poly, placed.pose.rotation(), centre, corner, solids,
                                SWEEP_TOLERANCE_M)
    return None if hit is None else names[hit]


def tip_poses(shape: DieShape, pose: Pose, corner: str, samples: int) -> list[Pose]:
    """Poses along the roll over the bottom edge beneath the top face's `corner`, from just
    after the start to the end (the last pose is exact). The roll itself is
    `dice_models.geometry.tip_turns`, the same code the kinematic table rolls with."""
    poly = shape.poly
    turns = tip_turns(poly, pose.rotation(), np.array(pose.position), corner, samples)
    out = [Pose(tuple(c.tolist()), quat_from_matrix(r)) for c, r in turns]  # type: ignore[arg-type]
    # Snap the last pose exactly flat at the geometric height (removes round-off drift).
    last = out[-1]
    new_bottom, _ = poly.face_down(last.rotation())
    snapped = poly.rest_rotation(new_bottom, yaw_deg(poly, last.rotation(), new_bottom))
    pos = (last.position[0], last.position[1], float(poly.face_offsets[new_bottom]))
    out[-1] = Pose(pos, quat_from_matrix(snapped))
    return out
