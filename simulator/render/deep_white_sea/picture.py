"""Pictures of a game in progress with the offscreen renderer (physically based shading
where OpenGL answers, else the software renderer): what `tabletop render` writes and the
README shows.

Every view but the close-up carries an inset close on the die thrown last, so the die just
thrown is legible in any camera (its top face is at least 60 px across at 1280x720 there).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from simulator.render.core.camera import OrbitCamera, closeup_view, overview, thrower_view, top_view
from simulator.render.core.caption import caption_lines
from simulator.render.core.looks import CELL, PLAYER_COLOURS, crew_look
from simulator.render.core.offscreen import OffscreenRenderer, with_inset
from simulator.render.deep_white_sea.layout import legible_layout
from simulator.render.deep_white_sea.session import GameSession, ThrowAnim

VIEWS = ("framed", "overview", "top", "thrower", "closeup")


def last_thrown(session: GameSession) -> str | None:
    """The die thrown most recently that is still on the table, or None."""
    poses = session.poses()
    for out in reversed(session.history):
        for anim in out.anims:
            if isinstance(anim, ThrowAnim) and anim.die in poses:
                return anim.die
    return None


def camera_for(view: str, session: GameSession, size: tuple[int, int]) -> OrbitCamera:
    table = session.table_spec
    if view == "closeup":
        die = last_thrown(session)
        poses = session.poses()
        points = [poses[die][0]] if die is not None else [p for p, _q in poses.values()]
        if not points:
            return overview(table)
        width = 2 * float(session.shape(die or next(iter(poses))).poly.circumradius)
        return closeup_view(points, width, size[0] / size[1])
    if view == "top":
        return top_view(table, size[0] / size[1])
    if view == "thrower":
        st = session.state
        seat = 0 if st.is_terminal() else int(st.current_player())
        return thrower_view(table, seat + 1)
    return overview(table)


class SessionPicture:
    """An offscreen renderer showing a session's table (dice and poison counters)."""

    def __init__(self, session: GameSession, size: tuple[int, int] = (1280, 720),
                 shading: str = "auto") -> None:
        from simulator.render.deep_white_sea.scene import SeaTableScene

        self.session = session
        self.size = size
        self.renderer = OffscreenRenderer(size, shading)
        self.scene = SeaTableScene(session.table_spec)
        self.renderer.show(self.scene.root)
        self.report: Any = None  # what the last "framed" picture drew (`legible.Report`)

    def update(self) -> None:
        s = self.session
        poses = s.poses()
        for name in list(self.scene.dice):
            if name not in poses:
                self.scene.remove_die(name)
        for name, (pos, quat) in poses.items():
            if name in self.scene.dice:
                self.scene.move_die(name, pos, quat)
            else:
                crew = s.crew(name)
                self.scene.add_die(name, s.shape(name), crew_look(crew, CELL),
                                   tuple(crew.side_on_face(f) for f in range(8)), pos, quat)
        self.scene.clear_overlay()
        st = s.state
        for die, seat in st.poison.items():
            if die in st.poses:
                x, y = st.poses[die].position[:2]
                self.scene.poison_counter((x + 0.03, y + 0.03), PLAYER_COLOURS[seat + 1])

    def render(self, view: str | OrbitCamera = "overview", caption: bool = True,
               inset: bool = True) -> np.ndarray:
        """The picture from `view`; with `inset`, views other than the close-up carry the
        close-up of the last die thrown (when one is on the table) in a corner. "framed"
        is the player's picture (`simulator.render.core.legible`; `report` says what it drew)."""
        self.update()
        if view == "framed":
            from simulator.render.core.legible import draw

            s = self.session
            sizes = {d: 2 * float(s.shape(d).poly.circumradius) for d in s.poses()}
            pixels, self.report = draw(self.renderer, self.scene, legible_layout(s),
                                       self.size, sizes)
            return pixels
        cam = view if isinstance(view, OrbitCamera) else camera_for(view, self.session, self.size)
        self.renderer.set_camera(cam)
        pixels = self.renderer.render()
        if inset and view != "closeup" and last_thrown(self.session) is not None:
            self.renderer.set_camera(camera_for("closeup", self.session, self.size))
            pixels = with_inset(pixels, self.renderer.render())
        if caption:
            pixels = np.asarray(_caption(Image.fromarray(pixels), self.session))
        return pixels

    def close(self) -> None:
        self.renderer.close()


def _caption(img: Image.Image, session: GameSession) -> Image.Image:
    st = session.state
    names = [session.player_name(seat) for seat in (0, 1)]
    line1 = (f"Deep White Sea, turn {st.turn}: {names[0]} {st.scores[0]} - "
             f"{st.scores[1]} {names[1]}")
    in_play = [session.crew(d).name + f" (P{session.seat_of(d) + 1}, side {st.side(d).number})"
               for d in sorted(st.poses)]
    return caption_lines(img, [line1, "in play: " + (", ".join(in_play) if in_play else "-")])
