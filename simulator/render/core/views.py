"""The view a window shows, a part of `GameWindow`: the camera aimed at, the one on screen
while a change of view glides there (GLIDE_S), the piece it follows, the orbit and pan
drags and the zoom, and the view the window chose itself, which follows the game until the
person moves the camera.

Plain Python (no Panda3D): the window calls `shown(now, where)` each frame and draws from
what it answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from simulator.render.core.camera import CameraMove, OrbitCamera

GLIDE_S = 0.6  # s: a change of view (thrower's, top, follow) glides this long

WindowPos = tuple[float, float]


class Views:
    """`camera` is the view aimed at (what picking uses); `on_screen` the one the last frame
    was drawn from; `follow` the piece the camera follows (None: none); `chosen` the view
    the window chose last (a game's default view), None until it chooses one."""

    def __init__(self, camera: OrbitCamera) -> None:
        self.camera = camera
        self.on_screen = camera
        self.follow: str | None = None
        self.chosen: OrbitCamera | None = None
        self._glide_from: OrbitCamera | None = None  # a change of view under way
        self._glide_t0 = 0.0
        self._orbit_from: WindowPos | None = None
        self._pan_from: WindowPos | None = None

    @property
    def gliding(self) -> bool:
        return self._glide_from is not None

    def glide_to(self, camera: OrbitCamera) -> None:
        """`camera` is reached in GLIDE_S from the view on screen (`CameraMove`)."""
        self._glide_from = self.on_screen
        self._glide_t0 = time.perf_counter()
        self.camera = camera

    def follow_game(self, choose: Callable[[], OrbitCamera]) -> None:
        """While the view on screen is the one the window chose (the person has not orbited,
        zoomed, panned or picked another), glide to the one it would choose now."""
        if self.chosen is not None and self.camera == self.chosen and self.follow is None:
            new = choose()
            if new != self.camera:
                self.glide_to(new)

    def zoom_in(self) -> None:
        self.camera = self.camera.zoom(0.9)

    def zoom_out(self) -> None:
        self.camera = self.camera.zoom(1 / 0.9)

    def grab_orbit(self, at: WindowPos | None) -> None:
        """An orbit drag starts at pointer position `at`, or ends (None)."""
        self._orbit_from = at

    def grab_pan(self, at: WindowPos | None) -> None:
        self._pan_from = at

    def drag(self, pos: WindowPos) -> None:
        """The pointer moved to `pos` while a drag is held: orbit or pan by the move."""
        if self._orbit_from is not None:
            dx, dy = pos[0] - self._orbit_from[0], pos[1] - self._orbit_from[1]
            self.camera = self.camera.orbit(-dx * 120.0, dy * 60.0)
            self._orbit_from = pos
        if self._pan_from is not None:
            dx, dy = pos[0] - self._pan_from[0], pos[1] - self._pan_from[1]
            self.camera = self.camera.pan(-dx * 0.6, -dy * 0.6)
            self._pan_from = pos

    def shown(self, now: float, where: tuple[float, float, float] | None) -> OrbitCamera:
        """The view to draw at `now` (s, perf_counter): the followed piece kept in the
        middle (`where`, its position), and the glide under way, if any."""
        if self.follow is not None and where is not None:
            c = self.camera
            self.camera = OrbitCamera(target=(where[0], where[1], max(0.0, where[2])),
                                      heading=c.heading, pitch=c.pitch, distance=c.distance,
                                      fov=c.fov)
        shown = self.camera
        if self._glide_from is not None:
            t = now - self._glide_t0
            move = CameraMove(self._glide_from, self.camera, GLIDE_S)
            if move.finished(t):
                self._glide_from = None
            else:
                shown = move.at(t)
        self.on_screen = shown
        return shown
