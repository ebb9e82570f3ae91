"""Offscreen pictures of a d6 game (`tabletop render --game diced ...`): the game's own
scene painted from the session, the last roll lying in the tray, drawn by the offscreen
renderer with a caption line."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from PIL import Image

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.caption import caption_lines
from simulator.render.core.offscreen import OffscreenRenderer
from simulator.render.d6.session import DiceSession
from simulator.render.d6.tray_view import TRAY_PREFIX, place_roll, seat_view, table_top_view

VIEWS = ("framed", "overview", "top", "thrower", "closeup")
CLOSEUP_PITCH, CLOSEUP_FOV = -88.0, 40.0  # deg: nearly straight down, so no wall hides a die
CLOSEUP_MIN = 0.2  # m: a 16 mm die's top face is about 80 px across at 720 px from here


class DicePicture:
    """An offscreen renderer showing a d6 game's table; `module` is the game's window
    module (`make_scene`, `paint`, `caption`, `seat_heading`, `roll_colours`: the last
    roll's dice coloured as the game colours them, from the state it was thrown for)."""

    def __init__(self, session: DiceSession, size: tuple[int, int], module: ModuleType,
                 shading: str = "auto") -> None:
        self.session = session
        self.size = size
        self.module = module
        self.renderer = OffscreenRenderer(size, shading=shading)
        self.scene = module.make_scene(session)
        self.renderer.show(self.scene.root)
        self.report: Any = None  # what the last "framed" picture drew (`legible.Report`)

    def update(self) -> None:
        self.module.paint(self.scene, self.session)
        roll = self.session.last_roll
        for name in self.scene.die_names(TRAY_PREFIX):
            self.scene.remove_die(name)
        if roll is not None:
            colours = self.module.roll_colours(self.session.roll_state, len(roll.faces))
            place_roll(self.scene, roll, colours, roll.playback.duration)

    def camera(self, view: str) -> OrbitCamera:
        table = self.scene.table
        n = len(self.session.players)
        if view == "top":
            return table_top_view(table, self.size[0] / self.size[1])
        if view == "closeup":  # the last roll, read from above the tray
            return self.closeup()
        if view == "thrower":
            st = self.session.state
            seat = int(st.current_player()) if not st.is_terminal() else 0
            return seat_view(table, self.module.seat_heading(max(0, seat), n))
        return seat_view(table, self.module.seat_heading(0, n) + 20.0, pitch=-48.0)

    def closeup(self) -> OrbitCamera:
        """Close over the dice of the last roll, near enough to read each one's top face
        (farther only as the dice lie farther apart)."""
        names = self.scene.die_names(TRAY_PREFIX)
        at = self.scene.tray_at
        if not names:
            return OrbitCamera(target=(at[0], at[1], 0.0), heading=0.0, pitch=CLOSEUP_PITCH,
                               distance=0.42, fov=CLOSEUP_FOV)
        pts = np.array([self.scene.die_position(n) for n in names])
        mid = pts.mean(axis=0)
        spread = float(np.max(np.linalg.norm(pts[:, :2] - mid[:2], axis=1)))
        return OrbitCamera(target=(float(mid[0]), float(mid[1]), 0.0), heading=0.0,
                           pitch=CLOSEUP_PITCH, distance=max(CLOSEUP_MIN, 2.2 * spread + 0.08),
                           fov=CLOSEUP_FOV)

    def render(self, view: str | OrbitCamera = "overview", caption: bool = True,
               inset: bool = True) -> np.ndarray:
        """The picture from `view`; `inset`: with a close-up of the tray in a corner (not on
        the close-up itself, nor when there has been no roll). "framed" is the player's
        picture (`simulator.render.core.legible`, laid out by the module's `legible_layout`)."""
        self.update()
        if view == "framed":
            return self.framed()
        cam = view if isinstance(view, OrbitCamera) else self.camera(view)
        self.renderer.set_camera(cam)
        pixels = self.renderer.render()
        if inset and view != "closeup" and self.session.last_roll is not None:
            from simulator.render.core.offscreen import with_inset

            self.renderer.set_camera(self.camera("closeup"))
            pixels = with_inset(pixels, self.renderer.render())
        if caption:
            lines: list[str] = self.module.caption(self.session)
            pixels = np.asarray(caption_lines(Image.fromarray(pixels), lines))
        return pixels

    def framed(self) -> np.ndarray:
        """The player's picture: the module's layout, the tray's dice close up in cells,
        the type painted on the cloth hidden (its words are on the cards and the panel)."""
        from simulator.render.core.legible import draw
        from simulator.render.d6.session import d6_shape

        layout = self.module.legible_layout(self.session, self.scene)
        painted = [n for n in self.scene.root.findAllMatches("**/+TextNode") if not n.isHidden()]
        for node in painted:
            node.hide()
        try:
            size = 2 * float(d6_shape().poly.circumradius)
            pixels, self.report = draw(self.renderer, self.scene, layout, self.size,
                                       dict.fromkeys(self.scene.dice, size))
        finally:
            for node in painted:
                node.show()
        return pixels

    def close(self) -> None:
        self.renderer.close()



# -- what every d6 game's player picture shares (each module's `legible_layout`) ------------


def die_corners_in(scene: Any, name: str) -> np.ndarray:
    """A die's corners on the table as the scene shows it."""
    from simulator.render.core.framing import die_corners
    from simulator.render.d6.session import d6_shape

    nodes = scene.dice[name]
    p, q = nodes.pose.getPos(), nodes.pose.getQuat()
    return die_corners(np.asarray(d6_shape().poly.vertices, dtype=float),
                       (float(p[0]), float(p[1]), float(p[2])),
                       (float(q.getI()), float(q.getJ()), float(q.getK()), float(q.getR())))


def roll_cells(scene: Any, session: DiceSession, word: Any = None) -> list[tuple[str, str]]:
    """The last roll's dice in the tray, each with the value it shows (or `word(value)`)."""
    roll = session.last_roll
    if roll is None:
        return []
    out = []
    for i, name in enumerate(roll.names):
        key = TRAY_PREFIX + name
        if key in scene.dice:
            value = int(roll.faces[i])
            out.append((key, f"roll: {word(value) if word else value}"))
    return out


def choice_lines(session: DiceSession, most: int = 7, words: Any = None
                 ) -> list[tuple[str, tuple[float, float, float]]]:
    """'choices:' and what the player to act may do (the engine's words, or `words(action)`
    where given), or nothing."""
    st = session.state
    if st.is_terminal() or session.needs_roll():
        return []
    legal = session.legal()
    white = (1.0, 1.0, 1.0)
    say = words or st.action_to_string
    out = [("choices:", white)] + [("  " + say(a), white) for a in legal[:most]]
    if len(legal) > most:
        out.append((f"  ... {len(legal) - most} more", white))
    return out
