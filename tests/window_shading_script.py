"""The window's drawing paths (`--shading`), run by `tests/test_render_window_shading.py` in
processes of their own under Xvfb (a process holds one ShowBase, and a window and an
offscreen OpenGL renderer in one process would make a second pandagl pipe).

    python tests/window_shading_script.py window GAME SHADING OUT.png  # the window's colours
    python tests/window_shading_script.py picture GAME VIEWS.json       # the same, offscreen

`window` opens the game's window the way `tabletop play` does (`open_window`, after the
bots have played as `tabletop render` lets them), shows the last roll in the tray and frames
it, draws a frame and saves it; it prints the path it drew with and, for each view (the main
camera and the close-up inset's first cell), the mean colour of a patch round a die of the
roll and of the felt. `picture` draws the same table from the
same cameras with `tabletop render`'s renderer (simplepbr) and measures the same patches.
Each prints one JSON object on its last line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

from simulator.render.app import window_module
from simulator.render.core.camera import OrbitCamera, closeup_view

PLAYERS = 3  # Diced's fewest: the table `tabletop render --game diced` draws by default
SEED, TURNS = 3, 4
SIZE = (1280, 720)


def session_of(game: str) -> tuple[Any, Any]:
    module = window_module(game)
    assert module is not None
    session = module.new_session(["random"] * PLAYERS, SEED, {})
    module.play_turns(session, TURNS)
    assert session.last_roll is not None
    return module, session


def patch(pixels: np.ndarray, xy: tuple[float, float] | None, reach: int) -> list[float]:
    """The mean colour of the pixels within `reach` px of xy."""
    assert xy is not None
    x, y = int(round(xy[0])), int(round(xy[1]))
    block = pixels[y - reach:y + reach + 1, x - reach:x + reach + 1].reshape(-1, 3)
    return [float(v) for v in block.mean(axis=0)]


def spots(cam: OrbitCamera, die: tuple[float, float, float], size: tuple[int, int],
          inset: bool) -> dict[str, tuple[tuple[float, float], int]]:
    """Where the colours are measured in a view of `size` px from `cam`: (x, y, reach) of
    the roll's first die and of the felt. Main view: the felt beside the tray, below the
    tray and left of the inset; a cell of the inset: the tray's felt floor in its corner,
    the die's middle with most of its face (pip and body) in the mean."""
    die_xy = cam.project(die, size)
    assert die_xy is not None
    w, h = size
    if inset:
        return {"die": (die_xy, 20), "felt": ((12.0, 12.0), 6)}
    return {"die": (die_xy, 4), "felt": ((0.55 * w, 0.88 * h), 6)}


def camera_json(cam: OrbitCamera) -> dict[str, Any]:
    return {"target": list(cam.target), "heading": cam.heading, "pitch": cam.pitch,
            "distance": cam.distance, "fov": cam.fov}


def window(game: str, shading: str, out_png: str) -> dict[str, Any]:
    from panda3d.core import PNMImage
    from PIL import Image

    from simulator.render.app import open_window
    from simulator.render.d6.tray_view import place_roll

    module, session = session_of(game)
    app: Any = open_window(session, module, shading=shading)
    app.paused = True
    roll = session.last_roll
    place_roll(app.scene, roll, module.roll_colours(session.roll_state, len(roll.faces)),
               roll.playback.duration)
    names = app.scene.die_names("roll:")
    die = app.scene.die_position(names[0])
    # The main camera frames the roll, as `tabletop render --view closeup` does.
    main = closeup_view([app.scene.die_position(n) for n in names], app.inset_die_size(),
                        SIZE[0] / SIZE[1])
    app.camera = main
    # A glide the window began as it opened would draw a view between its own and `main`,
    # by the clock (the die's patch then varied 129-170 in red from run to run): ended.
    for _ in range(600):
        if not app.views.gliding:
            break
        app.step_frames(1)
    app.step_frames(4)
    app.base.graphicsEngine.renderFrame()
    image = PNMImage()
    assert app.base.win.getScreenshot(image)
    image.write(out_png)
    pixels = np.asarray(Image.open(out_png).convert("RGB")).astype(float)
    out: dict[str, Any] = {"path": app.drawn_by.name, "detail": app.drawn_by.detail, "die": die,
                           "main": {"camera": camera_json(main), "size": list(SIZE)}}
    out["main"]["patches"] = {k: patch(pixels, xy, reach)
                              for k, (xy, reach) in spots(main, die, SIZE, False).items()}
    if app.inset.views:
        cam, box, size = app.inset.views[0]
        left, top = box[0] * SIZE[0], (1 - box[3]) * SIZE[1]
        out["inset"] = {"camera": camera_json(cam), "size": list(size), "patches": {
            k: patch(pixels, (left + xy[0], top + xy[1]), reach)
            for k, (xy, reach) in spots(cam, die, size, True).items()}}
    app.cleanup()
    return out


def picture(game: str, views_json: str) -> dict[str, Any]:
    """`tabletop render --shading pbr`'s drawing of the same table from the window's
    cameras (`views_json`: what `window` printed), measured the same way."""
    with open(views_json) as f:
        shown = json.load(f)
    module, session = session_of(game)
    out: dict[str, Any] = {}
    for view in ("main", "inset"):
        spec = shown[view]
        size = tuple(spec["size"])
        cam = OrbitCamera(**{**spec["camera"], "target": tuple(spec["camera"]["target"])})
        pic = module.picture(session, size, "pbr")
        pixels = pic.render(cam, caption=False, inset=False).astype(float)
        if len(sys.argv) > 4:  # where to keep the pictures, to look at them
            from PIL import Image

            Image.fromarray(pixels.astype(np.uint8)).save(f"{sys.argv[4]}-{view}.png")
        out[view] = {k: patch(pixels, xy, reach) for k, (xy, reach)
                     in spots(cam, tuple(shown["die"]), size, view == "inset").items()}
        out["detail"] = pic.renderer.path.detail
        pic.close()
    return out


if __name__ == "__main__":
    mode = sys.argv[1]
    result = (window(sys.argv[2], sys.argv[3], sys.argv[4]) if mode == "window"
              else picture(sys.argv[2], sys.argv[3]))
    print(json.dumps(result))
