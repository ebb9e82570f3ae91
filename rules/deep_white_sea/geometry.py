"""Geometry of Deep White Sea on the table, pure numpy: the resting paper d8, its tips, and
sight lines and distances between top faces.

The octahedron follows DESIGN.md and `simulator.geometry` (repeated here because `rules/`
must not import the simulator): vertices at +-r on each body axis, face i carries the
sign vector of the Gray code of i, side n = face n-1. Yaw follows the physics table: the
rotation that rests `bottom` flat with the smallest turn, then turned about z.

Sight (rulebook, "Sight Lines"): the baseline of an arrow is the top-face edge opposite
its corner, extended both ways; a die sees every die whose top face lies even partly on the
arrow's side. Distances are between the closest points of the top faces (rulebook,
"Range"), which all lie in one plane for dice resting flat.
"""

from __future__ import annotations

import functools
import math

import numpy as np

AXES = ("x", "y", "z")
TIP_ANGLE = math.pi - math.acos(-1.0 / 3.0)  # 70.53 deg roll over an edge (DESIGN.md)
SIGHT_EPS = 1e-9  # m: a top face must reach past the baseline by more than this

Point = tuple[float, float]


def gray_sign(face: int) -> tuple[int, int, int]:
    g = face ^ (face >> 1)
    return (1 if g & 1 else -1, 1 if g & 2 else -1, 1 if g & 4 else -1)


SIGNS = tuple(gray_sign(i) for i in range(8))


def face_of_sign(s: tuple[int, int, int]) -> int:
    return SIGNS.index(s)


def opposite(face: int) -> int:
    s = SIGNS[face]
    return face_of_sign((-s[0], -s[1], -s[2]))


def flipped(face: int, axis: str) -> int:
    """The face that comes up when the top face's corner on `axis` is pressed (DESIGN.md)."""
    s = list(SIGNS[face])
    k = AXES.index(axis)
    s[k] = -s[k]
    return face_of_sign((s[0], s[1], s[2]))


class Octahedron:
    """A regular octahedron of edge `edge` (m) resting flat on the table."""

    def __init__(self, edge: float = 0.05) -> None:
        self.edge = edge
        self.r = edge / math.sqrt(2.0)
        self.inradius = self.r / math.sqrt(3.0)  # resting height of the centre
        self.vertices = np.array([[self.r, 0, 0], [-self.r, 0, 0], [0, self.r, 0],
                                  [0, -self.r, 0], [0, 0, self.r], [0, 0, -self.r]])
        self._rest = [_rotation_between(-np.array(s, dtype=float) / math.sqrt(3.0),
                                        np.array([0.0, 0.0, -1.0])) for s in SIGNS]

    def rotation(self, up_face: int, yaw_deg: float) -> np.ndarray:
        """Rotation of a die resting with `up_face` (0..7) up, turned by yaw (deg)."""
        return _rot_z(math.radians(yaw_deg)) @ self._rest[opposite(up_face)]

    def yaw_of(self, rot: np.ndarray, up_face: int) -> float:
        m = rot @ self._rest[opposite(up_face)].T
        yaw = math.degrees(math.atan2(m[1, 0], m[0, 0]))
        return yaw + 360.0 if yaw <= -180.0 else yaw

    def world_vertices(self, rot: np.ndarray, centre: np.ndarray) -> np.ndarray:
        return self.vertices @ rot.T + centre

    def top_corners(self, up_face: int, yaw_deg: float, xy: Point) -> dict[str, Point]:
        rot = self.rotation(up_face, yaw_deg)
        s = SIGNS[up_face]
        out = {}
        for k, axis in enumerate(AXES):
            v = np.zeros(3)
            v[k] = s[k] * self.r
            w = rot @ v
            out[axis] = (float(w[0] + xy[0]), float(w[1] + xy[1]))
        return out

    def bottom_corners(self, up_face: int, yaw_deg: float, xy: Point) -> list[Point]:
        rot = self.rotation(up_face, yaw_deg)
        s = SIGNS[up_face]
        out = []
        for k in range(3):
            v = np.zeros(3)
            v[k] = -s[k] * self.r
            w = rot @ v
            out.append((float(w[0] + xy[0]), float(w[1] + xy[1])))
        return out

    def footprint(self, up_face: int, yaw_deg: float, xy: Point) -> list[Point]:
        """The hexagon a resting die covers, seen from above (counter-clockwise)."""
        pts = list(self.top_corners(up_face, yaw_deg, xy).values())
        pts += self.bottom_corners(up_face, yaw_deg, xy)
        return convex_hull(pts)

    def tip_frames(self, up_face: int, yaw_deg: float, xy: Point, axis: str,
                   samples: int = 6) -> tuple[list[list[Point]], int, float, Point]:
        """Footprints along the roll over the bottom edge beneath the top corner on `axis`,
        and the final (up face, yaw, xy)."""
        rot = self.rotation(up_face, yaw_deg)
        centre = np.array([xy[0], xy[1], self.inradius])
        world = self.world_vertices(rot, centre)
        s = SIGNS[up_face]
        k = AXES.index(axis)
        bottom = [2 * j + (0 if -s[j] > 0 else 1) for j in range(3) if j != k]
        e1, e2 = world[bottom[0]], world[bottom[1]]
        u = (e2 - e1) / np.linalg.norm(e2 - e1)
        top_corner = world[2 * k + (0 if s[k] > 0 else 1)]
        toward = top_corner - centre
        toward[2] = 0.0
        probe = _axis_angle(u, 1e-3) @ (centre - e1)
        if float(probe @ toward) < float((centre - e1) @ toward):
            u = -u
        frames = []
        for i in range(1, samples + 1):
            turn = _axis_angle(u, TIP_ANGLE * i / samples)
            c = turn @ (centre - e1) + e1
            pts = self.world_vertices(turn @ rot, c)
            frames.append(convex_hull([(float(p[0]), float(p[1])) for p in pts]))
        turn = _axis_angle(u, TIP_ANGLE)
        new_face = flipped(up_face, axis)
        new_rot = turn @ rot
        c = turn @ (centre - e1) + e1
        return frames, new_face, self.yaw_of(new_rot, new_face), (float(c[0]), float(c[1]))


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


def convex_hull(points: list[Point]) -> list[Point]:
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Point] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _triangles_overlap(a: list[Point], b: list[Point]) -> bool:
    return polygons_overlap(a, b, margin=0.0)


def _point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy)
                                          / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _rot_z(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    v = np.cross(a, b)
    c = float(a @ b)
    if c < -1 + 1e-12:
        perp = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(perp) < 1e-6:
            perp = np.cross(a, [0.0, 1.0, 0.0])
        perp /= np.linalg.norm(perp)
        return 2 * np.outer(perp, perp) - np.eye(3)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx / (1 + c)


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx
