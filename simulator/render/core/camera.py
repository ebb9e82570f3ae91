"""The orbit camera as data: where it looks, from which direction and how far, and the
pinhole projection that says where a table point lands in the picture.

Plain numpy, so tests can check the renderer's pictures against it without Panda3D's lens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from simulator.physics.settings import TableSpec

MIN_DISTANCE, MAX_DISTANCE = 0.15, 6.0  # m
MIN_PITCH, MAX_PITCH = -89.9, -3.0  # deg: from just above the horizon to straight down


@dataclass(frozen=True)
class OrbitCamera:
    """Looks at `target` (m) from `distance` (m) away; `heading` (deg) turns the eye
    counter-clockwise about z (0: the eye is on the -y side, looking toward +y, which is
    player 1's seat); `pitch` (deg, negative) looks down. `fov` is the vertical field of view."""

    target: tuple[float, float, float] = (0.0, 0.0, 0.0)
    heading: float = 0.0
    pitch: float = -45.0
    distance: float = 1.6
    fov: float = 45.0

    def eye(self) -> np.ndarray:
        h, p = math.radians(self.heading), math.radians(self.pitch)
        back = np.array([math.sin(h) * math.cos(p), -math.cos(h) * math.cos(p), -math.sin(p)])
        return np.array(self.target) + self.distance * back

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(right, up, forward) unit vectors of the view."""
        fwd = np.array(self.target) - self.eye()
        fwd /= np.linalg.norm(fwd)
        right = np.cross(fwd, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, fwd)
        return right, up, fwd

    def project(self, point: tuple[float, float, float] | np.ndarray,
                size: tuple[int, int]) -> tuple[float, float] | None:
        """Pixel (column, row from the top) of a point, or None behind the camera."""
        w, h = size
        right, up, fwd = self.basis()
        rel = np.asarray(point, dtype=float) - self.eye()
        depth = float(rel @ fwd)
        if depth <= 1e-6:
            return None
        f = (h / 2) / math.tan(math.radians(self.fov) / 2)
        x = float(rel @ right) / depth * f
        y = float(rel @ up) / depth * f
        return (w / 2 + x, h / 2 - y)

    # -- mouse moves -------------------------------------------------------------------

    def orbit(self, d_heading: float, d_pitch: float) -> OrbitCamera:
        pitch = min(MAX_PITCH, max(MIN_PITCH, self.pitch + d_pitch))
        return replace(self, heading=(self.heading + d_heading) % 360.0, pitch=pitch)

    def zoom(self, factor: float) -> OrbitCamera:
        return replace(self, distance=min(MAX_DISTANCE, max(MIN_DISTANCE, self.distance * factor)))

    def pan(self, dx: float, dy: float) -> OrbitCamera:
        """Slide the target along the table plane, in screen directions scaled by distance."""
        right, _up, fwd = self.basis()
        flat_fwd = np.array([fwd[0], fwd[1], 0.0])
        n = float(np.linalg.norm(flat_fwd))
        ahead = flat_fwd / n if n > 1e-6 else np.array([-math.sin(math.radians(self.heading)),
                                                         math.cos(math.radians(self.heading)), 0.0])
        move = (right * dx + ahead * dy) * self.distance
        t = np.array(self.target) + move
        return replace(self, target=(float(t[0]), float(t[1]), float(t[2])))


def thrower_view(table: TableSpec, player: int) -> OrbitCamera:
    """Seated behind `player`'s edge, looking across the table, with the floor behind the
    edge (where a throw is released) in the lower part of the picture."""
    heading = 0.0 if player == 1 else 180.0
    reach = max(table.edge_y * 2, table.width if table.shape == "rect" else table.radius * 2)
    toward = -1.0 if player == 1 else 1.0
    return OrbitCamera(target=(0.0, toward * 0.67 * table.edge_y, 0.0), heading=heading,
                       pitch=-55.0, distance=0.95 * reach + 0.45, fov=50.0)


def top_view(table: TableSpec, aspect: float = 16 / 9) -> OrbitCamera:
    """Straight down, the whole table and both foul zones in the picture."""
    fov = 45.0
    half_h = table.edge_y + 0.36
    half_w = (table.width / 2 if table.shape == "rect" else table.radius) + 0.05
    need = max(half_h, half_w / aspect)
    distance = need / math.tan(math.radians(fov) / 2)
    return OrbitCamera(target=(0.0, 0.0, 0.0), heading=0.0, pitch=MIN_PITCH,
                       distance=distance, fov=fov)


def follow_view(position: tuple[float, float, float], heading: float) -> OrbitCamera:
    """Close on a die, keeping the current heading."""
    return OrbitCamera(target=(position[0], position[1], max(0.0, position[2])),
                       heading=heading, pitch=-40.0, distance=0.45)


def overview(table: TableSpec) -> OrbitCamera:
    """The picture `tabletop render` takes: an oblique view over player 1's shoulder."""
    reach = max(table.edge_y * 2, table.width if table.shape == "rect" else table.radius * 2)
    return OrbitCamera(target=(0.0, 0.05, 0.0), heading=20.0, pitch=-48.0,
                       distance=0.85 * reach + 0.3)


CLOSEUP_FOV = 30.0  # deg: a long lens, so dice seen close keep their shape
CLOSEUP_MARGIN = 1.25  # frame the dice with a quarter to spare


def closeup_view(points: list[tuple[float, float, float]], die_size: float,
                 aspect: float = 16 / 9, heading: float = 20.0) -> OrbitCamera:
    """Close on the dice of the last roll: looks at their middle, steeply from above (a top
    face is what decides a roll), from just far enough that every one of them and a die's
    width around each fits the picture. `die_size` (m) is a die's width across."""
    if not points:
        raise ValueError("closeup_view needs the position of at least one die")
    pts = np.asarray(points, dtype=float)
    centre = pts.mean(axis=0)
    spread = float(np.max(np.linalg.norm(pts[:, :2] - centre[:2], axis=1))) + die_size
    half_v = math.radians(CLOSEUP_FOV) / 2
    # The narrower of the two picture sides must hold the spread.
    half = min(math.tan(half_v), math.tan(half_v) * aspect)
    distance = CLOSEUP_MARGIN * spread / half
    return OrbitCamera(target=(float(centre[0]), float(centre[1]), max(0.0, float(centre[2]))),
                       heading=heading, pitch=-62.0,
                       distance=min(MAX_DISTANCE, max(MIN_DISTANCE, distance)), fov=CLOSEUP_FOV)


DIE_VIEW_DISTANCE = 0.2  # m: a die's own close-up looks from here through a narrow lens


def die_view(point: tuple[float, float, float], die_size: float, aspect: float,
             heading: float = 20.0) -> OrbitCamera:
    """One die seen from straight above, as large as its picture allows: the narrower side
    of the picture holds exactly `die_size` (the die's width across its corners, so a die
    in any pose fits). A 16 mm d6's top face then fills about 0.58 of that side."""
    half = die_size / 2 / min(1.0, aspect)  # half the vertical extent to show (m)
    fov = math.degrees(2 * math.atan(half / DIE_VIEW_DISTANCE))
    return OrbitCamera(target=(float(point[0]), float(point[1]), max(0.0, float(point[2]))),
                       heading=heading, pitch=MIN_PITCH, distance=DIE_VIEW_DISTANCE, fov=fov)


@dataclass(frozen=True)
class CameraMove:
    """A smooth move from one view to another over `duration` seconds (eased at both ends,
    so a switch between the thrower's, top and follow views is a glide, not a cut). The
    heading turns the short way round; the distance changes by a constant factor a second,
    which looks even where a linear change would rush in close."""

    start: OrbitCamera
    end: OrbitCamera
    duration: float = 0.6

    def at(self, t: float) -> OrbitCamera:
        if self.duration <= 0 or t >= self.duration:
            return self.end
        if t <= 0:
            return self.start
        u = t / self.duration
        s = u * u * (3 - 2 * u)  # smoothstep: no jolt at start or end
        a, b = self.start, self.end
        turn = (b.heading - a.heading + 180.0) % 360.0 - 180.0
        target = tuple(float(x) for x in np.add(a.target, s * np.subtract(b.target, a.target)))
        return OrbitCamera(target=target,  # type: ignore[arg-type]
                           heading=(a.heading + s * turn) % 360.0,
                           pitch=a.pitch + s * (b.pitch - a.pitch),
                           distance=a.distance * (b.distance / a.distance) ** s,
                           fov=a.fov + s * (b.fov - a.fov))

    def finished(self, t: float) -> bool:
        return t >= self.duration
