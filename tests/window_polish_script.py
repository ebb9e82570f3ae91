"""Drives a game's window for tests/test_render_polish.py in a process of its own (one
ShowBase a process; a display that fails cannot take the test run down).

    python tests/window_polish_script.py dday OUT.png   # the words on the cloth

Prints one JSON object on its last line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def opened(game: str, players: list[str], turns: int):
    """The game's window after `turns` bot turns, paused, its view glided to its framing."""
    from simulator.render.app import window_module

    module = window_module(game)
    assert module is not None
    session = module.new_session(players, 2, {})
    module.play_turns(session, turns)
    app = module.App(session)
    app.paused = True
    for _ in range(400):
        app.step_frames(1)
        if app.idle():
            break
    app.step_frames(2)
    return app


def shot(app, out: str) -> None:
    from PIL import Image

    from simulator.render.offscreen import texture_to_array

    Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(out)


def dday(out: str) -> dict:
    """D-Day after its first roll and a bot's choices: the words lying on the cloth that the
    main view draws, and the unit's dice (kept or not)."""
    from panda3d.core import TextNode

    from simulator.render.inset import main_only

    app = opened("dday", ["greedy"], 3)
    shot(app, out)
    words = [n.node().getText() for n in app.scene.labels.findAllMatches("**/+TextNode")
             if isinstance(n.node(), TextNode) and not n.isHidden(main_only())]
    u = app.session.state.units[0]
    result = {"words": words, "dice": len(u.dice), "kept": len(u.kept),
              "unit": app.session.player_name(0)}
    app.cleanup()
    return result


if __name__ == "__main__":
    print(json.dumps({"dday": dday}[sys.argv[1]](sys.argv[2])))
