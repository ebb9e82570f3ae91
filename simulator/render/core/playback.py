"""Playing a recorded throw back at real speed.

The physics simulates a throw to rest first, recording 60 Hz frames (`World.throw(...,
record=True).trajectory`); the window then shows the pose each die had at the wall-clock
time since release, interpolated between frames. The renderer never steps physics by frame
time (DESIGN.md). A recorder frame lists only the dice that moved in it, so a die keeps its
last recorded pose until it moves again.

Plain Python: no Panda3D.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np

from rules.core.throwing import GRAVITY
from simulator.physics.world import Frame

PoseT = tuple[tuple[float, float, float], tuple[float, float, float, float]]


@dataclass(frozen=True)
class Track:
    """One die's recorded poses over time."""

    times: tuple[float, ...]
    poses: tuple[PoseT, ...]
    # A die that left over the rim keeps falling to the floor: last velocity (m/s), floor z.
    fall: tuple[tuple[float, float, float], float] | None = None

    def at(self, t: float) -> PoseT:
        i = bisect.bisect_right(self.times, t)
        if i == 0:
            return self.poses[0]
        if i >= len(self.times):
            if self.fall is None:
                return self.poses[-1]
            (vx, vy, vz), floor = self.fall
            dt = t - self.times[-1]
            (x, y, z), q = self.poses[-1]
            z_new = max(floor, z + vz * dt - 0.5 * GRAVITY * dt * dt)
            return (x + vx * dt, y + vy * dt, z_new), q
        t0, t1 = self.times[i - 1], self.times[i]
        # Frames are 1/60 s apart while a die moves; a longer gap means it rested between.
        if t1 - t0 > 0.05:
            return self.poses[i - 1]
        f = (t - t0) / (t1 - t0)
        (p0, q0), (p1, q1) = self.poses[i - 1], self.poses[i]
        pos = tuple(a + (b - a) * f for a, b in zip(p0, p1, strict=True))
        return pos, slerp(q0, q1, f)  # type: ignore[return-value]


@dataclass(frozen=True)
class Playback:
    """Tracks of every die a throw moved, and how long the throw took (s)."""

    tracks: dict[str, Track]
    duration: float

    def poses_at(self, t: float) -> dict[str, PoseT]:
        return {name: track.at(t) for name, track in self.tracks.items()}

    def finished(self, t: float) -> bool:
        return t >= self.duration


def playback_of(frames: tuple[Frame, ...] | list[Frame], floor_z: float | None = None,
                fell: tuple[str, ...] = ()) -> Playback:
    """Tracks from recorded frames. Dice named in `fell` left the table over its rim: their
    tracks go on falling to `floor_z` (m) instead of hanging where the recorder lost them."""
    times: dict[str, list[float]] = {}
    poses: dict[str, list[PoseT]] = {}
    for fr in frames:
        for name, pose in fr.poses.items():
            ts = times.setdefault(name, [])
            if ts and fr.t <= ts[-1]:
                poses[name][-1] = pose  # the settle frame repeats the last step's time
                continue
            ts.append(fr.t)
            poses.setdefault(name, []).append(pose)
    tracks = {}
    duration = frames[-1].t if frames else 0.0
    for n in times:
        fall = None
        if n in fell and floor_z is not None and len(times[n]) >= 2:
            (p0, _), (p1, _) = poses[n][-2], poses[n][-1]
            dt = times[n][-1] - times[n][-2]
            v = tuple((b - a) / dt for a, b in zip(p0, p1, strict=True))
            fall = (v, floor_z)
            # keep the fall on screen until it lands: z drops about 1 m in 0.45 s
            duration = max(duration, times[n][-1] + math.sqrt(2 * max(0.0, p1[2] - floor_z) / GRAVITY))
        tracks[n] = Track(tuple(times[n]), tuple(poses[n]), fall)  # type: ignore[arg-type]
    return Playback(tracks, duration)


def slerp(q0: tuple[float, float, float, float], q1: tuple[float, float, float, float],
          f: float) -> tuple[float, float, float, float]:
    a, b = np.array(q0, dtype=float), np.array(q1, dtype=float)
    dot = float(a @ b)
    if dot < 0:
        b, dot = -b, -dot
    if dot > 0.9995:
        q = a + (b - a) * f
    else:
        theta = math.acos(min(1.0, dot))
        s = math.sin(theta)
        q = (math.sin((1 - f) * theta) * a + math.sin(f * theta) * b) / s
    q /= np.linalg.norm(q)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))
