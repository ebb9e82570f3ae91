"""Where the d6 games' dice and cameras go, for the window and the picture alike: the tray's
dice placed as a roll's playback has them, and the seat's and the top view of the table."""

from __future__ import annotations

import math
from typing import Any

from simulator.physics.settings import TableSpec
from simulator.render.core.camera import MIN_PITCH, OrbitCamera
from simulator.render.d6.session import Roll, d6_shape

TRAY_PREFIX = "roll:"  # scene names of the tray's dice: roll:d0, roll:d1, ...


def tray_pose(scene: Any, pose: Any) -> Any:
    """A die's pose in the tray's frame (as the tray's physics records it) on the table."""
    (x, y, z), q = pose
    return ((x + scene.tray_at[0], y + scene.tray_at[1], z), q)


def place_roll(scene: Any, roll: Roll, colours: list[Any], t: float) -> None:
    """The roll's dice in the scene's tray as they lie `t` s into its playback, each die
    in its colour (`colours`, one a die): the window's playback starts so, and a picture
    shows the roll at rest so (t = its duration)."""
    for name in scene.die_names(TRAY_PREFIX):
        scene.remove_die(name)
    at = roll.playback.poses_at(t)
    shape = d6_shape()
    for i, name in enumerate(roll.names):
        pose = at.get(name)
        if pose is not None:
            scene.add_d6(TRAY_PREFIX + name, shape, colours[i], roll.labels[i],
                         tray_pose(scene, pose))


def seat_view(table: TableSpec, heading: float, pitch: float = -52.0) -> OrbitCamera:
    """From behind a seat (camera `heading`, deg), the whole table in view."""
    return OrbitCamera(target=(0.0, 0.0, 0.0), heading=heading % 360.0, pitch=pitch,
                       distance=0.8 * max(table.width, table.depth) + 0.12, fov=50.0)


def table_top_view(table: TableSpec, aspect: float) -> OrbitCamera:
    """Straight down on the whole table."""
    fov = 45.0
    need = max(table.depth / 2 + 0.05, (table.width / 2 + 0.05) / aspect)
    return OrbitCamera(target=(0.0, 0.0, 0.0), heading=0.0, pitch=MIN_PITCH,
                       distance=need / math.tan(math.radians(fov) / 2), fov=fov)


__all__ = ["TRAY_PREFIX", "place_roll", "seat_view", "table_top_view", "tray_pose"]
