"""Picking in the window: the line of sight through a window position (Panda3D's -1..1
coordinates, y up), where it meets a horizontal plane, which of a set of spheres it meets
first, and where a table point is seen (what a script passes to the pointer handlers).
Functions of the camera and the window size, so a script and a test pick as a mouse does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.offscreen import apply_camera

Ray = tuple[np.ndarray, np.ndarray]


def mouse(base: Any) -> tuple[float, float] | None:
    """The pointer's window position, None when it is outside the window."""
    mw = base.mouseWatcherNode
    if mw is None or not mw.hasMouse():
        return None
    return (float(mw.getMouseX()), float(mw.getMouseY()))


def ray(base: Any, camera: OrbitCamera, pos: tuple[float, float],
        win_size: tuple[int, int]) -> Ray | None:
    """The line of sight through window position `pos` seen from `camera`: origin and unit
    direction (None outside the lens)."""
    from panda3d.core import Point2, Point3

    near, far = Point3(), Point3()
    apply_camera(base.camera, base.camLens, camera, win_size)
    if not base.camLens.extrude(Point2(*pos), near, far):
        return None
    n = base.render.getRelativePoint(base.camera, near)
    f = base.render.getRelativePoint(base.camera, far)
    origin = np.array([n[0], n[1], n[2]])
    d = np.array([f[0], f[1], f[2]]) - origin
    return origin, d / np.linalg.norm(d)


def ray_plane(sight: Ray | None, z: float) -> tuple[float, float] | None:
    """Where a line of sight meets the horizontal plane at height z (None: never, or
    behind the eye)."""
    if sight is None:
        return None
    origin, d = sight
    if abs(d[2]) < 1e-9:
        return None
    t = (z - origin[2]) / d[2]
    if t <= 0:
        return None
    p = origin + d * t
    return (float(p[0]), float(p[1]))


def pick_sphere(sight: Ray | None,
                spheres: dict[Any, tuple[tuple[float, float, float], float]]) -> Any:
    """The nearest of `spheres` (key -> centre, radius in m) a line of sight meets, or
    None."""
    if sight is None:
        return None
    origin, direction = sight
    best, best_t = None, math.inf
    for key, (centre, r) in spheres.items():
        oc = origin - np.asarray(centre, dtype=float)
        b = float(oc @ direction)
        disc = b * b - (float(oc @ oc) - r * r)
        if disc < 0:
            continue
        t = -b - math.sqrt(disc)
        if 0 < t < best_t:
            best, best_t = key, t
    return best


def screen_of(camera: OrbitCamera, point: tuple[float, float, float],
              win_size: tuple[int, int]) -> tuple[float, float] | None:
    """Window coordinates (-1..1, y up) where a table point is seen from `camera`."""
    w, h = win_size
    px = camera.project(point, (w, h))
    if px is None:
        return None
    return (2 * px[0] / w - 1, 1 - 2 * px[1] / h)
