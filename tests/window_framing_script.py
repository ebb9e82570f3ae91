"""Drives Deep White Sea's window for tests/test_render_framing_window.py in a process of its
own (a display that fails cannot take the test run down): a bot game played to a state
whose dice lie wider apart than one view holds at 48 px each, paused; then what the window
shows of each die.

    python tests/window_framing_script.py OUT.png SEED TURNS

Prints one JSON line: each die's name, its size (px) in the main view (None where the
view does not show it whole, or the close-up covers it) and in its close-up cell (None: no
cell), and the captions the close-up shows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(out: str, seed: int, turns: int) -> dict:
    import numpy as np
    from PIL import Image

    from simulator.render.app import window_module
    from simulator.render.core.framing import die_corners, die_px, overlap, screen_box
    from simulator.render.core.inset import inset_box
    from simulator.render.core.offscreen import texture_to_array

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
    Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(out)
    w, h = app.win_size()
    cover = inset_box((w, h))
    points = app.inset_points()
    views = app.inset_views
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
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
