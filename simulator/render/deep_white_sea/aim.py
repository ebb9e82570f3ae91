"""The throw of a die from the hand, aimed by a person, a part of Deep White Sea's window:
a press behind the seat's edge (the release point), a drag to where the die should land, a
release; Up / Down set the release height and [ / ] the loft (`gesture.GestureSettings`).
While the drag is held the throw it makes is previewed on the table and in the prompt.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from simulator.render.deep_white_sea.gesture import GestureSettings, ThrowPreview, throw_from_drag
from simulator.render.deep_white_sea.marks import draw_throw

if TYPE_CHECKING:  # Panda3D's: imported when a window is made
    from simulator.render.deep_white_sea.scene import SeaTableScene

MIN_DRAG = 0.03  # m: a shorter drag is a click, not a throw


class AimsFor(Protocol):
    """What the aim reads and calls of the window it is a part of (`TableApp`)."""

    session: Any
    scene: SeaTableScene
    armed: str | None

    def ray_plane(self, pos: tuple[float, float], z: float) -> tuple[float, float] | None: ...

    def acting_seat(self) -> int: ...

    def refresh_texts(self) -> None: ...


class ThrowAim:
    """`drag` is the table points the pointer has passed since the press (None: no drag);
    `preview` the throw they make so far."""

    def __init__(self, window: AimsFor) -> None:
        self.window = window
        self.gesture = GestureSettings()
        self.drag: list[tuple[float, float]] | None = None
        self.preview: ThrowPreview | None = None

    def press(self, pos: tuple[float, float]) -> None:
        """The button went down at window position `pos`: the drag starts there."""
        start = self.window.ray_plane(pos, 0.0)
        if start is not None:
            self.drag = [start]
            self.update()

    def move(self, pos: tuple[float, float]) -> None:
        """The pointer moved while the drag is held (2 mm at least counts)."""
        if self.drag is None:
            return
        p = self.window.ray_plane(pos, 0.0)
        if p is not None and (not self.drag or np.hypot(p[0] - self.drag[-1][0],
                                                        p[1] - self.drag[-1][1]) > 0.002):
            self.drag.append(p)
            self.update()

    def release(self, die: str | None) -> ThrowPreview | None:
        """The drag is over: the throw of `die` it makes, or None (no die, or a drag too
        short to be a throw)."""
        path, self.drag = self.drag or [], None
        self.preview = None
        if die is None or len(path) < 2 or math.dist(path[0], path[-1]) < MIN_DRAG:
            return None
        w = self.window
        return throw_from_drag(w.session.table_spec, w.acting_seat() + 1, path, self.gesture)

    def drop(self) -> None:
        self.drag = None
        self.preview = None

    def higher(self) -> None:
        self.gesture = self.gesture.higher(0.05)
        self.update()

    def lower(self) -> None:
        self.gesture = self.gesture.higher(-0.05)
        self.update()

    def loftier(self) -> None:
        self.gesture = self.gesture.loftier(0.05)
        self.update()

    def flatter(self) -> None:
        self.gesture = self.gesture.loftier(-0.05)
        self.update()

    def update(self) -> None:
        """The preview of the drag so far (a press alone: a throw straight ahead), drawn."""
        w = self.window
        if self.drag is None or w.armed is None:
            return
        if len(self.drag) < 2:
            p = self.drag[0]
            path = [p, (p[0], p[1] + (0.3 if w.acting_seat() == 0 else -0.3))]
        else:
            path = self.drag
        self.preview = throw_from_drag(w.session.table_spec, w.acting_seat() + 1, path,
                                       self.gesture)
        w.scene.clear_overlay()
        draw_throw(w.scene, self.preview.throw, self.preview.foul, self.gesture.flight)
        w.refresh_texts()

    def prompt(self) -> list[str]:
        """The preview's release, speed, spin and flight, and whether it is foul."""
        p = self.preview
        if p is None:
            return []
        r = p.throw.release
        state = "FOUL: " + (p.foul_reason or "") if p.foul else "legal release"
        return [f"release ({r[0]:+.2f}, {r[1]:+.2f}, {r[2]:.2f}) m  speed {p.speed:.2f} m/s"
                f"  spin {p.spin:.1f} rad/s  flight {self.gesture.flight:.2f} s", state]

    def settings_line(self) -> str:
        return (f"release height {self.gesture.height:.2f} m (Up/Down), flight "
                f"{self.gesture.flight:.2f} s ([ ])")
