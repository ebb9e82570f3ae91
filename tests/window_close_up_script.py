"""Drives Deep White Sea's window for tests/test_render_close_up.py in a process of its own
(a display that fails cannot take the test run down): random bots, seed 3, 19 turns (9 dice
in play), the view panned off the dice, so that the close-up shows each in a cell of its
own, captioned; then where the captions, the cells and the dice in them lie.

    python tests/window_close_up_script.py OUT.png

Prints one JSON line per number of cells, each as it is measured: 9 as the window's
frames show them, then 10 to 18 cells of the same dice again and again, set as the window
sets them (`close_up`): each caption's box, each cell's and the box of the die in it (px,
window's top left), and the die's size across in its cell (px).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def caption_boxes(app) -> list[list[float] | None]:
    """The captions shown, each one's box (px) in the layer they are drawn in (aspect2d's
    units: x -aspect..aspect, y -1..1)."""
    w, h = app.win_size()
    root = app.inset._caption_layer(w / h)
    out: list[list[float] | None] = []
    for node in app.inset.captions:
        if node.isHidden():
            continue
        bounds = node.getTightBounds(root) if node.getText() else None
        if bounds is None:
            out.append(None)
            continue
        lo, hi = bounds
        out.append([float((lo.x * h / w + 1) / 2 * w), float((1 - hi.z) / 2 * h),
                    float((hi.x * h / w + 1) / 2 * w), float((1 - lo.z) / 2 * h)])
    return out


def cells_and_dice(app, names: list[str]) -> dict:
    """The inset's cells as the window last framed them, the die in each (`names`)."""
    from simulator.render.core.framing import die_px, screen_box
    from simulator.render.deep_white_sea.close_up import dice_corners

    w, h = app.win_size()
    corners = dice_corners(app.session)
    cells, dice, px = [], [], []
    for name, (cam, (left, right, bottom, top), size) in zip(names, app.inset.views,
                                                             strict=True):
        x0, y0 = left * w, (1 - top) * h
        cells.append([x0, y0, right * w, (1 - bottom) * h])
        box = screen_box(cam, size, corners[name])
        assert box is not None, name
        dice.append([x0 + box[0], y0 + box[1], x0 + box[2], y0 + box[3]])
        px.append(die_px(cam, size, corners[name]))
    return {"n": len(names), "captions": caption_boxes(app), "cells": cells, "dice": dice,
            "die_px": px, "texts": app.inset.shown_captions()}


def main(out: str) -> None:
    from PIL import Image

    from simulator.render.app import window_module
    from simulator.render.core.camera import OrbitCamera
    from simulator.render.core.inset import caption_lines
    from simulator.render.core.offscreen import texture_to_array
    from simulator.render.deep_white_sea.close_up import caption, cell_dice, dice_corners

    module = window_module("deep-white-sea")
    assert module is not None
    session = module.new_session(["random", "random"], 3, {})
    module.play_turns(session, 19)
    app = module.App(session)
    app.paused = True
    # The person's pan off the dice (tests/test_render_close_up.py's view away).
    app.views.camera = OrbitCamera(target=(3.0, 3.0, 0.0), pitch=-85.0, distance=0.6, fov=40.0)
    for _ in range(400):
        app.step_frames(1)
        if app.idle():
            break
    app.step_frames(3)
    size = app.win_size()
    names = cell_dice(session, app.camera, size, app.scene.dice)
    Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(out)
    print(json.dumps(cells_and_dice(app, names)), flush=True)
    corners = dice_corners(session)
    for n in range(len(names) + 1, 19):  # the window's calls, for more dice
        more = [names[k % len(names)] for k in range(n)]
        lines = caption_lines(n, size)
        app.inset.caption([caption(session, d, lines) for d in more], size,
                          [corners[d] for d in more])
        app.inset.update([app.scene.die_position(d) for d in more], app.inset_die_size(),
                         size)
        print(json.dumps(cells_and_dice(app, more)), flush=True)
        if n == 11:  # the first number of cells with one line of caption a cell
            app.base.graphicsEngine.renderFrame()
            Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(
                out.replace(".png", "-11.png"))
    app.cleanup()


if __name__ == "__main__":
    main(sys.argv[1])
