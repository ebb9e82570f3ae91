"""Drives Deep White Sea's window for tests/test_render_framing_window.py in a process of its
own (a display that fails cannot take the test run down): a bot game played to a state
whose dice lie wider apart than one view holds at 48 px each, paused; then what the window
shows of each die.

    python tests/window_framing_script.py OUT.png SEED TURNS        # what it shows of each die
    python tests/window_framing_script.py OUT.png SEED TURNS card   # a click on each die

Prints one JSON line: each die's name, its size (px) in the main view (None where the
view does not show it whole, or the close-up covers it) and in its close-up cell (None: no
cell), and the captions the close-up shows; with `card`, for a click on each die in turn
the inspect card's box, the dice's boxes and the HUD's (px).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def opened(seed: int, turns: int):
    """The window on a bot game played `turns` turns, paused, its view glided home."""
    from simulator.render.app import window_module

    module = window_module("deep-white-sea")
    assert module is not None
    session = module.new_session(["random", "random"], seed, {})
    module.play_turns(session, turns)
    app = module.App(session)
    app.paused = True
    for _ in range(200):  # the view glides to its framing as the window opens
        app.step_frames(1)
        if app.idle():
            break
    app.step_frames(3)
    return app, session


def cards(out: str, seed: int, turns: int) -> dict:
    """A click on each die in play in turn: where its card lies, and the dice and the HUD."""
    import numpy as np
    from PIL import Image

    from simulator.render.core.framing import die_corners, screen_box
    from simulator.render.core.offscreen import texture_to_array

    app, session = opened(seed, turns)
    w, h = app.win_size()
    clicks = []
    for k, name in enumerate(sorted(session.poses())):
        pos = app.screen_of(app.scene.die_position(name))
        assert pos is not None, name
        app.on_left_down(pos)
        app.on_left_up(pos)
        app.step_frames(2)
        shot = Image.fromarray(texture_to_array(app.base.win.getScreenshot()))
        shot.save(out if k == 0 else out.replace(".png", f"-{k}.png"))
        boxes = {}
        for d, (p, q) in session.poses().items():
            corners = die_corners(np.asarray(session.shape(d).poly.vertices, dtype=float), p, q)
            box = screen_box(app.camera, (w, h), corners)
            if box is not None:
                boxes[d] = list(box)
        clicks.append({"die": name, "inspected": app.inspected,
                       "card_shown": not app.hud.inspect.isHidden(),
                       "card_box": list(app.hud.box_px(app.hud.inspect) or ()),
                       "dice_boxes": boxes, "hud_boxes": [list(b) for b in app.hud.shown_boxes()]})
    app.cleanup()
    return {"clicks": clicks, "win": [w, h]}


def main(out: str, seed: int, turns: int) -> dict:
    import numpy as np
    from PIL import Image

    from simulator.render.core.framing import die_corners, die_px, overlap, screen_box
    from simulator.render.core.inset import inset_box
    from simulator.render.core.offscreen import texture_to_array

    app, session = opened(seed, turns)
    Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(out)
    w, h = app.win_size()
    cover = inset_box((w, h))
    points = app.inset_points()
    views = app.inset.views
    dice = {}
    for name, (p, q) in sorted(session.poses().items()):
        corners = die_corners(np.asarray(session.shape(name).poly.vertices, dtype=float), p, q)
        box = screen_box(app.camera, (w, h), corners)
        whole = box is not None and box[0] >= 0 and box[1] >= 0 and box[2] <= w \
            and box[3] <= h and not overlap(box, cover)
        # The close-up's cell showing this die: the one framed on where it lies.
        cell = next((v for pt, v in zip(points, views, strict=False)
                     if len(views) == len(points) and np.allclose(pt, p, atol=1e-4)), None)
        dice[name] = {"name": session.crew(name).name,
                      "view_px": die_px(app.camera, (w, h), corners) if whole else None,
                      "cell_px": die_px(cell[0], cell[2], corners) if cell else None}
    shown = getattr(app.inset, "shown_captions", list)  # none before the close-up had them
    result = {"dice": dice, "captions": shown(), "win": [w, h]}
    app.cleanup()
    return result


if __name__ == "__main__":
    run = cards if sys.argv[4:] == ["card"] else main
    print(json.dumps(run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
