"""Draws pictures for tests/test_render_look.py in a process of its own, so an OpenGL
driver that fails (or a display that vanishes) cannot take the test run down with it.

    python tests/look_script.py dice OUT.png SHADING   # three solid dice, the overview camera
    python tests/look_script.py pieces GAME OUT.png SHADING  # a game's table from the top

Prints one JSON line: the drawing path and where each die rests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dice_models import load_die  # noqa: E402
from simulator.physics import TableSpec, World, die_shape  # noqa: E402

# Three dice at places no mirror or swap of axes maps onto each other (as tests/test_render.py).
SPOTS = {"red": ((0.31, 0.12), 0, (230, 30, 30)), "blue": ((-0.22, -0.18), 3, (30, 60, 230)),
         "yellow": ((0.05, 0.27), 6, (235, 215, 20))}
SIZE = (640, 360)


def dice(out: str, shading: str) -> dict:
    from simulator.render.core.camera import overview
    from simulator.render.core.looks import solid_look
    from simulator.render.core.offscreen import OffscreenRenderer
    from simulator.render.deep_white_sea.scene import SeaTableScene

    table = TableSpec()
    world = World(table)
    model = load_die("paper-d8")
    shape = die_shape(model)
    renderer = OffscreenRenderer(SIZE, shading)
    scene = SeaTableScene(table)
    placed = {}
    for name, (xy, face, rgb) in SPOTS.items():
        o = world.place(name, model, face + 1, 25.0 * face, xy)
        scene.add_die(name, shape, solid_look(rgb), tuple(range(1, 9)), o.position, o.quaternion)
        placed[name] = {"position": list(o.position), "rgb": list(rgb)}
    world.close()
    renderer.show(scene.root)
    renderer.set_camera(overview(table))
    renderer.save(out)
    result = {"path": renderer.path.name, "detail": renderer.path.detail, "dice": placed}
    renderer.close()
    return result


def pieces(game: str, out: str, shading: str) -> dict:
    """A game played a few turns by bots, drawn from the top; where each named piece of the
    game's `named_pieces` is seen (px) and the colour it should have there."""
    from simulator.render.app import window_module

    module = window_module(game)
    assert module is not None
    session = module.new_session(["random"] * module.PLAYERS[0], 5, {})
    module.play_turns(session, 6)
    size = (1280, 720)  # a d6 seen from the top is 12 px across here
    picture = module.picture(session, size, shading)
    cam = picture.camera("top")
    pixels = picture.render(cam, caption=False, inset=False)
    from PIL import Image

    Image.fromarray(pixels).save(out)
    named = {}
    for name, (point, rgb) in module.named_pieces(picture.scene, session).items():
        xy = cam.project(point, size)
        assert xy is not None, name
        named[name] = {"xy": list(xy), "rgb": list(rgb)}
    result = {"path": picture.renderer.path.name, "pieces": named}
    picture.close()
    return result


if __name__ == "__main__":
    if sys.argv[1] == "pieces":
        print(json.dumps(pieces(*sys.argv[2:5])))
    else:
        mode, out, shading = sys.argv[1:4]
        assert mode == "dice", mode
        print(json.dumps(dice(out, shading)))
