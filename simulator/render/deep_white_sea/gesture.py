"""The throw gesture as data: from a press, a drag and a release on the table plane to a
`ThrowSpec`, and the preview the window draws while the mouse is still down.

The gesture: press where the hand lets go of the die (the release point, on the plane of
the table top; behind your edge it is in the air over the floor), drag to where the die
should first land, let go. The release height (Up/Down keys) and the loft (the flight time
to the landing point, [ and ] keys) are set beside the gesture. The speed follows from the
ballistic flight; the spin is a forward roll proportional to the speed plus side spin from
how far the drag bows to one side of the straight line (a curled flick spins the die).

Plain Python: no Panda3D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rules.core.protocols import ThrowSpec
from rules.core.throwing import GRAVITY
from simulator.physics.settings import TableSpec
from simulator.physics.world import MAX_SPEED, check_release

DEFAULT_HEIGHT = 0.12  # m: a hand low over the floor behind the edge
DEFAULT_FLIGHT = 0.5  # s
HEIGHT_RANGE = (0.03, 0.8)  # m
FLIGHT_RANGE = (0.25, 1.2)  # s
ROLL_SPIN = 4.0  # rad/s of forward roll per m/s of speed: an underhand toss rolls off the fingers
SIDE_SPIN = 160.0  # rad/s per m of bow in the drag
AIM_Z = 0.03  # m: the flight ends with the die's centre a little over the felt, where it lands
SPIN_LIMIT = 40.0  # rad/s per axis: no one flicks a paper die faster


@dataclass(frozen=True)
class ThrowPreview:
    throw: ThrowSpec
    foul: bool
    foul_reason: str | None
    arc: tuple[tuple[float, float, float], ...]  # flight to the landing point
    speed: float  # m/s
    spin: float  # rad/s


@dataclass(frozen=True)
class GestureSettings:
    height: float = DEFAULT_HEIGHT
    flight: float = DEFAULT_FLIGHT

    def higher(self, step: float) -> GestureSettings:
        h = min(HEIGHT_RANGE[1], max(HEIGHT_RANGE[0], self.height + step))
        return GestureSettings(h, self.flight)

    def loftier(self, step: float) -> GestureSettings:
        f = min(FLIGHT_RANGE[1], max(FLIGHT_RANGE[0], self.flight + step))
        return GestureSettings(self.height, f)


def throw_from_drag(table: TableSpec, player: int, path: list[tuple[float, float]],
                    settings: GestureSettings) -> ThrowPreview:
    """The throw a drag makes: `path` is the mouse's track on the table plane (m), from
    the press (release point) to the current or final point (landing target)."""
    start = np.array(path[0], dtype=float)
    end = np.array(path[-1], dtype=float)
    release = np.array([start[0], start[1], settings.height])
    target = np.array([end[0], end[1], AIM_Z])
    t = settings.flight
    vel = (target - release) / t
    vel[2] += 0.5 * GRAVITY * t
    speed = float(np.linalg.norm(vel))
    if speed > MAX_SPEED:
        vel *= (MAX_SPEED * 0.999) / speed
        speed = float(np.linalg.norm(vel))
    horiz = np.array([vel[0], vel[1], 0.0])
    hn = float(np.linalg.norm(horiz))
    roll_axis = np.cross([0.0, 0.0, 1.0], horiz / hn) if hn > 1e-9 else np.array([1.0, 0.0, 0.0])
    spin = roll_axis * ROLL_SPIN * speed
    spin[2] += SIDE_SPIN * _bow(path)
    spin = np.clip(spin, -SPIN_LIMIT, SPIN_LIMIT)
    throw = ThrowSpec(release=_t3(release), velocity=_t3(vel), spin=_t3(spin),
                      orientation=_orientation(start, end))
    foul, why = check_release(table, player, throw)
    arc = tuple(_t3(release + vel * s + np.array([0.0, 0.0, -0.5 * GRAVITY * s * s]))
                for s in np.linspace(0.0, t, 24))
    return ThrowPreview(throw, foul, why, arc, speed, float(np.linalg.norm(spin)))


def arc_of(throw: ThrowSpec, flight: float, steps: int = 24) -> tuple[tuple[float, float, float], ...]:
    """The ballistic path of a throw for `flight` seconds (or until it meets the table)."""
    out = []
    r = np.array(throw.release)
    v = np.array(throw.velocity)
    for s in np.linspace(0.0, flight, steps):
        p = r + v * s + np.array([0.0, 0.0, -0.5 * GRAVITY * s * s])
        out.append(_t3(p))
        if p[2] < 0:
            break
    return tuple(out)


def flight_time(throw: ThrowSpec, z_end: float = 0.02) -> float:
    """Seconds until the die's centre falls to `z_end` (m), ignoring what it meets."""
    z0, vz = throw.release[2], throw.velocity[2]
    disc = vz * vz + 2 * GRAVITY * (z0 - z_end)
    if disc <= 0:
        return 0.0
    return (vz + math.sqrt(disc)) / GRAVITY


# -- helpers -------------------------------------------------------------------------------


def _bow(path: list[tuple[float, float]]) -> float:
    """Signed largest sideways distance (m) of the track from its chord, + to the left."""
    if len(path) < 3:
        return 0.0
    a, b = np.array(path[0]), np.array(path[-1])
    d = b - a
    n = float(np.linalg.norm(d))
    if n < 1e-6:
        return 0.0
    left = np.array([-d[1], d[0]]) / n
    offsets = [float((np.array(p) - a) @ left) for p in path[1:-1]]
    return max(offsets, key=abs)


def _orientation(start: np.ndarray, end: np.ndarray) -> tuple[float, float, float, float]:
    """Held with a face toward the throw's direction: a yaw about z, a quarter tilt."""
    d = end - start
    yaw = math.atan2(d[1], d[0]) if float(np.linalg.norm(d)) > 1e-9 else 0.0
    # yaw about z, then 35 degrees about x: the die does not leave the hand face-flat
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    cx, sx = math.cos(math.radians(35) / 2), math.sin(math.radians(35) / 2)
    # q = q_yaw * q_tilt  (x, y, z, w)
    w = cy * cx
    x = cy * sx
    y = sy * sx
    z = sy * cx
    return (x, y, z, w)


def _t3(a: np.ndarray) -> tuple[float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]))
