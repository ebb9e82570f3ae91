"""Drives a game's window for tests/test_render_polish.py in a process of its own (one
ShowBase a process; a display that fails cannot take the test run down).

    python tests/window_polish_script.py dicewar OUT.png   # the log against the Reserve rows
    python tests/window_polish_script.py dicewar-human OUT.png   # the same at a person's turn
    python tests/window_polish_script.py dday OUT.png      # the words on the cloth
    python tests/window_polish_script.py diceland OUT.png  # the tiles' numbers pinned
    python tests/window_polish_script.py diced OUT.png     # the dice clear of the panels

Prints one JSON object on its last line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def opened(game: str, players: list[str], turns: int, person: int | None = None):
    """The game's window after `turns` bot turns, paused, its view glided to its framing;
    with `person`, that seat is a person's from then on (its bot played the turns)."""
    from simulator.render.app import window_module

    module = window_module(game)
    assert module is not None
    session = module.new_session(players, 2, {})
    module.play_turns(session, turns)
    if person is not None:
        session.agents[person] = None
        session.players[person] = "human"
    from window_inspect_script import opened  # (this script's folder is on sys.path)

    app = opened(module, session)
    app.step_frames(2)
    return app


def shot(app, out: str) -> None:
    from PIL import Image

    from simulator.render.core.offscreen import texture_to_array

    Image.fromarray(texture_to_array(app.base.win.getScreenshot())).save(out)


def dicewar(out: str, person: int | None = None) -> dict:
    """DiceWar in its set-up (both Reserve rows full): the boxes (px) of the log, of each
    die on the table in the main view and of the HUD's texts (the log's left out)."""
    from simulator.render.core.framing import die_px, screen_box
    from simulator.render.core.inset import main_only
    from simulator.render.d6.picture import die_corners_in

    app = opened("dicewar", ["greedy", "greedy"], 3, person)
    # The log full, as a game played in the window leaves it: its rows of 42 characters.
    app.log_lines.extend(f"Red (greedy) places a creature of power {k} at row 1, column {k}"
                         for k in range(1, 7))
    app.refresh_texts()
    app.step_frames(2)
    shot(app, out)
    size = app.win_size()
    dice = {n: screen_box(app.camera, size, die_corners_in(app.scene, n))
            for n in app.scene.dice if not n.startswith("roll:")}
    result = {"log_box": list(app.hud.box_px(app.hud.log) or []),
              "log_rows": app.hud.log.getText().count("\n") + 1,
              "dice": {n: list(b) for n, b in dice.items() if b is not None},
              "min_die_px": min(die_px(app.camera, size, die_corners_in(app.scene, n))
                                for n in dice),
              "hud_boxes": [list(b) for b in app.hud.shown_boxes(log=False)],
              "prompt_box": list(app.hud.box_px(app.hud.prompt) or []),
              "human_to_act": app.human_to_act(),
              "painted": [n.node().getText() for n in app.scene.root.findAllMatches("**/+TextNode")
                          if not n.isHidden(main_only())],
              "painted_boxes": [list(b) for b in app.painted_boxes()],
              "panels": [n.getText() for n in app.hud.panels if not n.isHidden()]}
    app.cleanup()
    return result


def dday(out: str) -> dict:
    """D-Day after its first roll and a bot's choices: the words lying on the cloth that the
    main view draws, and the unit's dice (kept or not)."""
    from panda3d.core import TextNode

    from simulator.render.core.inset import main_only

    app = opened("dday", ["greedy"], 3)
    shot(app, out)
    words = [n.node().getText() for n in app.scene.labels.findAllMatches("**/+TextNode")
             if isinstance(n.node(), TextNode) and not n.isHidden(main_only())]
    u = app.session.state.units[0]
    n = len(app.session.state.map.sectors)  # the sectors' pins come first, then the sheets'
    result = {"words": words, "dice": len(u.dice), "kept": len(u.kept),
              "unit": app.session.player_name(0), "soldiers": u.soldiers,
              "sheet_pin": app.pinned_labels()[n][1]}
    app.cleanup()
    return result


def dday_units(out: str) -> dict:
    """D-Day, two greedy units (the first a person's from then on), seed 2 after 9 turns:
    each unit's mark (its box, px, and the colour drawn at its middle), the card of its
    sector (box, px) and the unit's colour."""
    import numpy as np

    from simulator.render.core.offscreen import texture_to_array
    from simulator.render.d6.scene import seat_colour

    app = opened("dday", ["greedy", "greedy"], 9, 0)
    app.step_frames(3)
    shot(app, out)
    pixels = texture_to_array(app.base.win.getScreenshot())
    st = app.session.state
    marks = []
    for (_point, rgb, pin), (node, _inner) in zip(app.pins.marks, app.pins._mark_nodes,
                                                  strict=False):
        box = app.hud.box_px(node) if not node.isHidden() else None
        mid = None if box is None else [int(v) for v in np.asarray(
            pixels[int((box[1] + box[3]) / 2), int((box[0] + box[2]) / 2)][:3])]
        marks.append({"colour": list(rgb), "box": list(box) if box else None, "drawn": mid,
                      "card": list(app.hud.box_px(app.pins.nodes[pin]) or [])})
    result = {"units": [u.sector for u in st.units],
              "colours": [list(seat_colour(k)) for k in range(len(st.units))], "marks": marks}
    app.cleanup()
    return result


def game_over(out: str) -> dict:
    """Diceland (compact), greedy bots, seed 2: the game over after 12 turns, the window
    opened on it; the boxes (px) of the game-over line, of 'start again' and of each die
    on the table."""
    from simulator.render.core.framing import screen_box
    from simulator.render.d6.picture import die_corners_in

    app = opened("diceland-hex", ["greedy", "greedy"], 12, 0)
    app.step_frames(3)
    shot(app, out)
    size = app.win_size()
    dice = {n: screen_box(app.camera, size, die_corners_in(app.scene, n))
            for n in app.scene.dice if not n.startswith("roll:")}
    result = {"terminal": app.session.state.is_terminal(),
              "over": list(app.hud.box_px(app.hud.over) or []),
              "again": list(app.hud.box_px(app.hud.again) or []),
              "dice": {n: list(b) for n, b in dice.items() if b is not None}}
    app.cleanup()
    return result


def diceland(out: str, orbit: float = 0.0) -> dict:
    """Diceland (compact) at a person's attack, seed 2 after 6 bot turns: each pin shown
    (its text and box, px), each die's box on the table, the painted words the main view
    draws; with `orbit` (degrees), after the person orbits the view by that much by hand
    (no refresh: the game waits on the person)."""
    from panda3d.core import TextNode

    from simulator.render.core.framing import screen_box
    from simulator.render.core.inset import main_only
    from simulator.render.d6.picture import die_corners_in

    app = opened("diceland-hex", ["greedy", "greedy"], 6, 0)
    app.step_frames(2)
    if orbit:
        app.views.grab_orbit((0.0, 0.0))
        app.views.drag((-orbit / 120.0, 0.0))
        app.views.grab_orbit(None)
        app.step_frames(3)
    shot(app, out)
    size = app.win_size()
    dice = {n: screen_box(app.camera, size, die_corners_in(app.scene, n))
            for n in app.scene.dice if not n.startswith("roll:")}
    painted = [n.node().getText() for n in app.scene.root.findAllMatches("**/+TextNode")
               if isinstance(n.node(), TextNode) and not n.isHidden(main_only())]
    result = {"pins": [(n.getText(), app.hud.box_px(n)) for n in app.pins.nodes
                       if not n.isHidden()],
              "tiles": len(app.session.state.owner), "armies": sum(
                  1 for o in app.session.state.owner if o >= 0),
              "dice": {n: list(b) for n, b in dice.items() if b is not None},
              "buttons": [list(b) for b in app.hud.button_boxes()], "painted": painted}
    app.cleanup()
    return result


def diced(out: str) -> dict:
    """Diced, three seats (the first a person's), seed 2 after 6 bot turns: each die's box
    and size on the table, and the seat panels' boxes (px)."""
    from simulator.render.core.framing import die_px, screen_box
    from simulator.render.d6.picture import die_corners_in

    app = opened("diced", ["greedy", "greedy", "greedy"], 6, 0)
    shot(app, out)
    size = app.win_size()
    names = [n for n in app.scene.dice if not n.startswith("roll:")]
    result = {"dice": {n: list(screen_box(app.camera, size, die_corners_in(app.scene, n)) or [])
                       for n in names},
              "die_px": {n: die_px(app.camera, size, die_corners_in(app.scene, n)) for n in names},
              "panels": [list(b) for n in app.hud.panels if not n.isHidden()
                         and (b := app.hud.box_px(n)) is not None]}
    app.cleanup()
    return result


def dws_inset(out: str) -> dict:
    """Deep White Sea, seed 2 after 8 greedy turns, a person at seat 0: the close-up's one
    die, its size there (px) and the close-up's (px)."""
    from simulator.render.core.framing import die_px
    from simulator.render.core.inset import inset_size
    from simulator.render.deep_white_sea.close_up import dice_corners

    app = opened("deep-white-sea", ["greedy", "greedy"], 8, 0)
    app.step_frames(3)
    shot(app, out)
    points = app.inset_points()
    corners = dice_corners(app.session)
    near = min(corners, key=lambda n: sum((a - b) ** 2 for a, b in
                                          zip(app.scene.die_position(n), points[0], strict=True)))
    size = inset_size(app.win_size())
    result = {"points": len(points), "size": list(size),
              "die_px": die_px(app.inset.camera, size, corners[near])}
    app.cleanup()
    return result


if __name__ == "__main__":
    modes = {"dws-inset": dws_inset, "dicewar": dicewar, "dday": dday, "diceland": diceland, "diced": diced,
             "dday-units": dday_units, "game-over": game_over,
             "diceland-orbit": lambda out: diceland(out, 150.0),
             # A person's set-up turn: the choices reach the foot, the prompt is shown.
             "dicewar-human": lambda out: dicewar(out, 0)}
    print(json.dumps(modes[sys.argv[1]](sys.argv[2])))
