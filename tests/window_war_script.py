"""Scripted sessions of the D-Day Dice and DiceWar windows in a real Panda3D window, run by
`tests/test_render_war_window.py` under Xvfb in a process of its own (one ShowBase a
process). The play and replay machinery is `tests/window_dice_script.py`'s; this adds each
game's clicks.

    python tests/window_war_script.py play GAME LOG
    python tests/window_war_script.py replay GAME LOG
    python tests/window_war_script.py inset deep-white-sea -   # bots throw; the close-up

Prints one JSON object on its last line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import window_dice_script as base  # noqa: E402
from window_dice_script import click, settle  # noqa: E402


def _last_action(session: Any, before: int) -> list[Any] | None:
    return list(session.history[before].action) if len(session.history) > before else None


def glide(app: Any) -> dict[str, Any]:
    """T (top view) then C (the thrower's): the window's camera position (m) at each frame
    of the glide to the top view, against the view aimed at."""
    import time

    import numpy as np

    def eye() -> list[float]:
        p = app.base.camera.getPos()
        return [float(p[0]), float(p[1]), float(p[2])]

    start = eye()
    app.view_top()
    target = app.camera.eye().tolist()
    seen = []
    busy = not app.idle()
    t0 = time.monotonic()
    while not app.idle() and time.monotonic() - t0 < 30:
        app.step_frames(1)
        seen.append(eye())
    end = eye()
    app.view_thrower()
    settle(app)
    back = eye()
    between = [p for p in seen if np.linalg.norm(np.subtract(p, start)) > 0.05
               and np.linalg.norm(np.subtract(p, target)) > 0.05]
    return {"start": start, "end": end, "top": target, "busy": busy, "frames": len(seen),
            "between": len(between), "back": back, "thrower": app.camera.eye().tolist()}


def inset(app: Any) -> dict[str, Any] | None:
    """The close-up inset after a roll: how wide (px) each tray die's top face is seen in it,
    whether each is in it, and how far the colour at the first die's projection in a
    picture of the window is from that die's colour (`colour_distance`)."""
    from panda3d.core import PNMImage
    from test_render_look import _top_face_px
    from window_dice_script import colour_distance

    from simulator.render.d6.session import d6_shape

    if not app.inset.views:
        return None
    shape = d6_shape()
    names = app.scene.die_names("roll:")
    # One view per die (a cell each), or one view framing them all.
    views = app.inset.views if len(app.inset.views) == len(names) else app.inset.views * len(names)
    widths, inside, where = [], [], []
    for name, (cam, box, size) in zip(names, views, strict=True):
        q = app.scene.dice[name].pose.getQuat()
        pose = (app.scene.die_position(name), (q.getI(), q.getJ(), q.getK(), q.getR()))
        widths.append(_top_face_px(cam, shape, pose, size))
        col, row = cam.project(pose[0], size)
        inside.append(bool(0 <= col < size[0] and 0 <= row < size[1]))
        where.append((box, col, row))
    app.base.graphicsEngine.renderFrame()
    image = PNMImage()
    app.base.win.getScreenshot(image)
    w, h = image.getXSize(), image.getYSize()
    import numpy as np

    pixels = np.array([[[int(255 * c) for c in image.getXel(x, y)] for x in range(w)]
                       for y in range(h)])
    box, col, row = where[0]
    xy = (box[0] * w + col, (1 - box[3]) * h + row)
    return {"widths": widths, "inside": inside,
            "first_colour": colour_distance(pixels, xy, (0.82, 0.12, 0.1), 2)}


def dicewar(app: Any, session: Any) -> dict[str, Any]:
    """Set-up: a click on power 4 of the Reserve row, then on a Supply Zone field: the
    engine applies ('place', col, 4). War: a click on a creature, then on a field it can
    move to: ('move', src, dst); the creature clicked twice: ('upgrade', src)."""
    from rules.dicewar.game import SIZE, home_row
    from simulator.render.d6.dicewar_window import FIELD_Z, field_xy, reserve_xy

    out: dict[str, Any] = {"inset": inset(app), "glide": glide(app)}
    st = session.state
    assert st.phase == "setup", st.phase
    me = st.player
    col = next(c for c in range(SIZE) if st.board[home_row(me) * SIZE + c] == 0)
    before = len(session.history)
    click(app, (*reserve_xy(me, 4), 0.008))
    out["power"] = app.power
    click(app, (*field_xy(home_row(me) * SIZE + col), FIELD_Z + 0.008))
    settle(app)
    out["place_action"] = _last_action(session, before)
    out["place_expected"] = ["place", col, 4]
    while session.state.phase == "setup":  # the rest of the set-up from the choices list
        app.choose(0)
        settle(app)
    st = session.state
    src = st.creatures_of(st.player)[0]
    moves = [a for a in session.legal() if a[0] == "move" and a[1] == src]
    assert moves, "a creature in the Supply Zone can always step forward"
    dst = moves[0][2]
    before = len(session.history)
    click(app, (*field_xy(src), FIELD_Z + 0.008))
    out["selected"] = app.selected
    click(app, (*field_xy(dst), FIELD_Z + 0.008))
    settle(app)
    out["move_action"] = _last_action(session, before)
    out["move_expected"] = ["move", src, dst]
    st = session.state
    src = next((c for c in st.creatures_of(st.player) if abs(st.board[c]) < 6), None)
    if src is not None:
        before = len(session.history)
        click(app, (*field_xy(src), FIELD_Z + 0.008))
        click(app, (*field_xy(src), FIELD_Z + 0.008))
        settle(app)
        out["upgrade_action"] = _last_action(session, before)
        out["upgrade_expected"] = ["upgrade", src]
    out["steps"] = session.step
    return out


def dday(app: Any, session: Any) -> dict[str, Any]:
    """After the first roll, clicks on dice 1 and 2 set them aside: ('keep', 0, 1); clicks
    on dice 3 and 4, then on the tray, re-roll them: ('reroll', (2, 3)); in the movement
    phase a click on a sector the unit may enter moves it there: ('move', sector)."""
    from simulator.render.d6.dday_window import TRAY_AT, die_xy, sector_at

    out: dict[str, Any] = {}
    st = session.state
    assert st.node == "keep", st.node
    before = len(session.history)
    click(app, (*die_xy(0, False), 0.008))
    click(app, (*die_xy(1, False), 0.008))
    settle(app)
    out["keep_action"] = _last_action(session, before)
    before = len(session.history)
    click(app, (*die_xy(2, False), 0.008))
    click(app, (*die_xy(3, False), 0.008))
    out["picked"] = list(app.picked)
    click(app, (TRAY_AT[0], TRAY_AT[1], 0.01))
    settle(app)
    out["reroll_action"] = _last_action(session, before)
    for _ in range(300):  # on by the choices list to the movement phase
        st = session.state
        if st.is_terminal() or st.node == "move":
            break
        app.choose(0)
        settle(app)
    st = session.state
    if st.node == "move":
        moves = [a for a in session.legal() if a[0] == "move" and len(a) == 2]
        if moves:
            before = len(session.history)
            click(app, (*sector_at(st, moves[0][1]), 0.004))
            settle(app)
            out["move_action"] = _last_action(session, before)
            out["move_expected"] = list(moves[0])
    out["steps"] = session.step
    return out


def dws_inset(game: str, _path: str) -> dict[str, Any]:
    """Deep White Sea, a bot against a person, until the bot's thrown die rests on the table
    and the window waits for the person: how wide (px) its top face is seen in the window's
    close-up inset and in the main view. (Between two bots the game ran on: whether a check
    caught a moment between two throws depended on the machine's speed, and a game that had
    ended showed no inset.)"""
    import time

    from test_render_look import _top_face_px

    from simulator.render.app import window_module
    from simulator.render.core.inset import inset_size

    module = window_module(game)
    assert module is not None
    session = module.new_session(["human", "random"], 3, {})
    app = module.App(session)
    app.speed = base.SPEED
    end = time.monotonic() + 120
    while time.monotonic() < end:
        app.step_frames(1)
        name = app.last_moved()
        if app.idle() and app.inset.camera is not None and name in session.poses():
            break
    name = app.last_moved()
    pose = session.poses()[name]
    out = {"die": name,
           "inset_px": _top_face_px(app.inset.camera, session.shape(name), pose,
                                    inset_size(app.win_size())),
           "main_px": _top_face_px(app.camera, session.shape(name), pose, app.win_size())}
    app.cleanup()
    return out


base.SCRIPTS["dicewar"] = dicewar
base.SCRIPTS["dday"] = dday

if __name__ == "__main__":
    mode, game, path = sys.argv[1], sys.argv[2], sys.argv[3]
    modes = {"play": base.play, "replay": base.replay, "inset": dws_inset}
    print(json.dumps(modes[mode](game, path)))
