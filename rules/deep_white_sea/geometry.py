"""Geometry of Deep White Sea on the table: the resting paper d8, its tips, and sight lines
and distances between top faces.

The die itself (its faces, rest rotations, corners and the roll of a tip) is
`dice_models.geometry`, the very code the physics table uses (DESIGN.md: geometry lives
once, at the bottom), so the two tables agree on every face, corner and yaw
(tests/test_deep_white_sea.py). Face i carries the sign vector of the Gray code of i and
side n = face n-1. Yaw follows the physics table: the rotation that rests the bottom face
flat with the smallest turn, then turned about z.

Sight (rulebook, "Sight Lines"): the baseline of an arrow is the top-face edge opposite
its corner, extended both ways; a die sees every die whose top face lies even partly on the
arrow's side. Distances are between the closest points of the top faces (rulebook,
"Range"), which all lie in one plane for dice resting flat.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dice_models.geometry import (
    AXES,
    SWEEP_TOLERANCE_M,
    Point,
    Solid,
    corner_vertices,
    gray_sign_vector,
    octahedron,
    rest_yaw,
    tip_clearance,
    tip_turns,
)
from dice_models.numerics import matmul

SIGHT_EPS = 1e-9  # m: a top face must reach past the baseline by more than this
TOUCH_M = SWEEP_TOLERANCE_M  # m: the numerical tolerance of a tip's sweep (the book: no brush)


SIGNS = tuple(gray_sign_vector(i) for i in range(8))


class Octahedron:
    """A regular octahedron of edge `edge` (m) resting flat on the table: a view of
    `dice_models.geometry.octahedron(edge)` in the terms of the kinematic table (up face,
    yaw, centre xy)."""

    def __init__(self, edge: float = 0.05) -> None:
        self.edge = edge
        self.poly = octahedron(edge)
        self.inradius = float(self.poly.face_offsets[0])  # resting height of the centre
        self.vertices = self.poly.vertices

    def rotation(self, up_face: int, yaw_deg: float) -> np.ndarray:
        """Rotation of a die resting with `up_face` (0..7) up, turned by yaw (deg)."""
        return self.poly.rest_rotation(self.poly.opposite_face(up_face), yaw_deg)

    def centre(self, xy: Point) -> np.ndarray:
        return np.array([xy[0], xy[1], self.inradius])

    def world_vertices(self, rot: np.ndarray, centre: np.ndarray) -> np.ndarray:
        return matmul(self.vertices, rot.T) + centre

    def solid(self, up_face: int, yaw_deg: float, xy: Point) -> Solid:
        """The resting die as a solid in the world (for distances and sweeps)."""
        return Solid.at(self.poly, self.rotation(up_face, yaw_deg), self.centre(xy))

    def _corners(self, face: int, up_face: int, yaw_deg: float, xy: Point) -> dict[str, Point]:
        world = self.world_vertices(self.rotation(up_face, yaw_deg), self.centre(xy))
        return {axis: (float(world[v][0]), float(world[v][1]))
                for axis, v in sorted(corner_vertices(self.poly, face).items())}

    def top_corners(self, up_face: int, yaw_deg: float, xy: Point) -> dict[str, Point]:
        return self._corners(up_face, up_face, yaw_deg, xy)

    def bottom_corners(self, up_face: int, yaw_deg: float, xy: Point) -> list[Point]:
        return list(self._corners(self.poly.opposite_face(up_face), up_face, yaw_deg, xy).values())

    def tip_end(self, up_face: int, yaw_deg: float, xy: Point,
                axis: str) -> tuple[int, float, Point]:
        """(up face, yaw, xy) after the roll over the bottom edge beneath the top corner on
        `axis` (`dice_models.geometry.tip_turns`, as the physics table rolls)."""
        (c, rot), = tip_turns(self.poly, self.rotation(up_face, yaw_deg), self.centre(xy),
                              axis, 1)
        bottom, _ = self.poly.face_down(rot)
        return self.poly.opposite_face(bottom), rest_yaw(self.poly, rot, bottom), (float(c[0]), float(c[1]))

    def tip_blocker(self, up_face: int, yaw_deg: float, xy: Point, axis: str,
                    others: list[Solid]) -> int | None:
        """Index of the first of `others` the roll would penetrate deeper than TOUCH_M at
        any moment (a continuous 3D sweep), or None."""
        return tip_clearance(self.poly, self.rotation(up_face, yaw_deg), self.centre(xy),
                             axis, others, TOUCH_M)[0]


# ---------------------------------------------------------------------------------------
# Sight and distance between top faces


def baseline(corners: dict[str, Point], axis: str) -> tuple[Point, Point]:
    """(point on the baseline, unit normal pointing to the arrow's side) for the arrow in
    the corner on `axis`."""
    c = corners[axis]
    a, b = (corners[k] for k in AXES if k != axis)
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = (-dy, dx)
    length = math.hypot(*n)
    n = (n[0] / length, n[1] / length)
    if (c[0] - a[0]) * n[0] + (c[1] - a[1]) * n[1] < 0:
        n = (-n[0], -n[1])
    return a, n


def sees_through(corners: dict[str, Point], axis: str, target: dict[str, Point]) -> bool:
    """Does the arrow on `axis` see a die whose top face has `target` corners?"""
    a, n = baseline(corners, axis)
    return any((p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] > SIGHT_EPS
               for p in target.values())


def face_distance(p: dict[str, Point], q: dict[str, Point]) -> float:
    """Distance between the closest points of two top-face triangles (0 if they overlap)."""
    return _triangle_distance(tuple(p.values()), tuple(q.values()))


@functools.lru_cache(maxsize=8192)
def _triangle_distance(tp: tuple[Point, ...], tq: tuple[Point, ...]) -> float:
    # Cached: bots ask for the same pairs of resting dice over and over.
    if _triangles_overlap(list(tp), list(tq)):
        return 0.0
    best = math.inf
    for tri_a, tri_b in ((tp, tq), (tq, tp)):
        for v in tri_a:
            for i in range(3):
                best = min(best, _point_segment(v, tri_b[i], tri_b[(i + 1) % 3]))
    return best


def polygons_overlap(a: list[Point], b: list[Point], margin: float = 0.0) -> bool:
    """Separating-axis test of two convex polygons; they overlap when every axis shows
    an overlap deeper than `margin` (m)."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            x1, y1 = poly[i]
            x2, y2 = poly[(i + 1) % n]
            ax, ay = y1 - y2, x2 - x1
            norm = math.hypot(ax, ay)
            if norm == 0:
                continue
            ax, ay = ax / norm, ay / norm
            pa = [x * ax + y * ay for x, y in a]
            pb = [x * ax + y * ay for x, y in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= margin:
                return False
    return True


def _triangles_overlap(a: list[Point], b: list[Point]) -> bool:
    return polygons_overlap(a, b, margin=0.0)


def _point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy)
                                          / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
