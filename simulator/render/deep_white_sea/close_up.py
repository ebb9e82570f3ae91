"""What Deep White Sea's close-up shows (issue 37: every die in play seen 48 px across or
more): the die clicked to be inspected; else the dice the window's view does not show
whole (off its edges, or under the close-up itself: its dice lie where the physics left
them, at times wider apart than one view holds with each die 48 px across), one a cell,
captioned with its name and side like D-Day's six; else the die thrown last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.framing import Box, die_corners, seen
from simulator.render.core.inset import INSET_CELLS, Caption, caption_lines, inset_box
from simulator.render.core.looks import PLAYER_COLOURS


def dice_corners(session: Any) -> dict[str, np.ndarray]:
    """Each die in play's corners on the table, by name (sorted)."""
    return {d: die_corners(np.asarray(session.shape(d).poly.vertices, dtype=float), p, q)
            for d, (p, q) in sorted(session.poses().items())}


def window_sight(size: tuple[int, int]) -> tuple[Box, tuple[Box, ...]]:
    """Where a die is seen in a window of `size`: wholly in it, clear of the close-up."""
    return (0.0, 0.0, float(size[0]), float(size[1])), (inset_box(size),)


def off_view(session: Any, cam: OrbitCamera, size: tuple[int, int]) -> list[str]:
    """The dice in play that `cam` does not show whole in a window of `size`, by name."""
    dice = dice_corners(session)
    names = list(dice)
    held = set(seen(cam, size, list(dice.values()), *window_sight(size)))
    return [n for k, n in enumerate(names) if k not in held]


def caption(session: Any, die: str, lines: int = 3) -> Caption:
    """A cell's caption, over the die and under it: its name; whose it is and its side.
    Where the cell holds fewer than 3 lines beside its die (`caption_lines`: from 11
    dice), one line under it as the view's pinned names read ("Shoal Caller Iben 7": its
    leading words left out where it is too wide, `fit_caption`'s `lead`), in its side's
    colour."""
    st = session.state
    seat = session.seat_of(die)
    if lines < 3:
        side = f" {st.side(die).number}" if die in st.poses else ""
        return "", f"{session.crew(die).name}{side}", PLAYER_COLOURS[seat + 1]
    side = f", side {st.side(die).number}" if die in st.poses else ""
    return session.crew(die).name, f"P{seat + 1}{side}"


def cell_dice(session: Any, cam: OrbitCamera, size: tuple[int, int],
              drawn: Any = None) -> list[str]:
    """The dice in play the close-up's cells show, one a cell, when none is inspected: those
    `cam` does not show whole in a window of `size` (of them those in `drawn`, the scene's
    dice, when given), as many as the cells hold (INSET_CELLS, 18: the default crews are
    10 dice)."""
    names = [d for d in off_view(session, cam, size) if drawn is None or d in drawn]
    return names[:INSET_CELLS]


def close_up(app: Any) -> list[tuple[float, float, float]]:
    """The points the window's close-up frames (module note), its cells captioned on
    `app.inset`; while a throw plays, the die in flight (the window's own choice)."""
    from simulator.render.core.window import GameWindow

    s = app.session
    names: list[str] = []
    if app.inspected is not None and app.inspected in app.scene.dice:
        names = [app.inspected]
    elif app.running is None and not s.state.is_terminal():
        names = cell_dice(s, app.camera, app.win_size(), app.scene.dice)
    if not names:
        app.inset.caption([], app.win_size())
        return list(GameWindow.inset_points(app))
    corners = dice_corners(s)  # each die between its captions in its cell
    lines = caption_lines(len(names), app.win_size())
    app.inset.caption([caption(s, d, lines) for d in names], app.win_size(),
                      [corners[d] for d in names])
    return [app.scene.die_position(d) for d in names]
