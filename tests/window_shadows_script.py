"""Drives Deep White Sea's window for tests/test_render_shadows.py in a process of its own
(the test checks its exit status: a shadow map left open aborted the interpreter at exit):
a bot game played 2 turns, paused, the window small, with the shadows asked for.

    python tests/window_shadows_script.py OUT.png soft|planar|off|file:MODE [gl|pbr]

(file:MODE: asked for through a settings file that says `"shadows": MODE`.)

Prints one JSON line: the shadows in force, the drawing path, the mean brightness of the
felt where the die nearest the middle casts its shadow (beside it, along the key light)
and on the other side of it, the same distance off, and the frame time (ms).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(out: str, mode: str, shading: str = "gl") -> dict:
    import numpy as np
    from PIL import Image

    from simulator.render.app import window_module
    from simulator.render.core.framing import die_corners, screen_box
    from simulator.render.core.offscreen import texture_to_array
    from simulator.render.core.scene import LIGHT_DIR

    module = window_module("deep-white-sea")
    assert module is not None
    session = module.new_session(["random", "random"], 3, {})
    module.play_turns(session, 2)
    app = module.App(session, size=(400, 240), shading=shading)
    app.paused = True
    if mode.startswith("file:"):  # the way a player asks: a settings file, as `play` reads it
        from simulator.render.core.settings import Remembered

        path = Path(out).with_suffix(".settings.json")
        path.write_text(json.dumps({"shadows": mode[len("file:"):]}), encoding="utf-8")
        app.feel.use_prefs(Remembered.read(path))
        in_force = app.shadows.mode
    else:
        in_force = app.shadows.use(mode)
    for _ in range(200):
        app.step_frames(1)
        if app.idle():
            break
    app.step_frames(3)
    app.base.aspect2d.hide()  # the HUD and the die names: the felt is measured
    t0 = time.perf_counter()
    app.step_frames(10)
    frame_ms = (time.perf_counter() - t0) * 100
    shot = texture_to_array(app.base.win.getScreenshot())
    Image.fromarray(shot).save(out)
    w, h = app.win_size()
    die = min(session.poses(), key=lambda d: abs(app.screen_of(app.scene.die_position(d))[0]))
    pos, quat = session.poses()[die]
    corners = die_corners(np.asarray(session.shape(die).poly.vertices, dtype=float), pos, quat)
    box = screen_box(app.camera, (w, h), corners)
    assert box is not None
    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    # The key light's way across the felt, on the screen: the shadow lies that way off the
    # die; the felt a quarter turn from it (the side further up the screen) is beside it.
    far = app.camera.project((pos[0] + LIGHT_DIR[0], pos[1] + LIGHT_DIR[1], pos[2]), (w, h))
    assert far is not None
    way = np.subtract(far, centre)
    way /= np.linalg.norm(way)
    side = np.array([way[1], -way[0]])
    side = side if side[1] < 0 else -side
    half = max(box[2] - box[0], box[3] - box[1]) / 2
    means = {}
    for name, d in (("shadow", way), ("beside", side)):
        c, r = (centre + d * (half + 6)).astype(int)
        means[name] = float(shot[r - 2:r + 3, c - 2:c + 3].astype(float).mean())
    result = {"mode": in_force, "path": app.drawn_by.name, "felt": means, "frame_ms": frame_ms,
              "die": die, "size": [w, h]}
    app.cleanup()
    return result


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])), flush=True)
