"""Drives Deep White Sea's window for tests/test_render_aim_window.py in a process of its
own (a display that fails cannot take the test run down): a person (seat 1) against a
greedy bot, the person's turns before played by the random bot the seat would have had,
the window opened at the person's throw; the first die of the hand armed, the view turned
as `VIEWS` says, a drag from behind the person's edge toward the middle held (the throw's
preview in the prompt); then where the prompt lies.

    python tests/window_aim_script.py OUT.png SEED TURNS VIEW [VIEW ...]

A VIEW is `thrower` (the window's own while aiming), `top` or `topN` (the top view zoomed
in N notches of the mouse wheel), or `zoomN` (the top view, zoomed N notches while the
drag is held still: no pointer move after the zoom). Prints one JSON line: for each view the prompt's box,
its capitals' height, the dice's boxes, the aim's marks' (the release marker and the
arc), the pinned names', the buttons' and the other HUD blocks' (px).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))


def settle(app) -> None:
    for _ in range(400):
        app.step_frames(1)
        if app.idle():
            break


def at_the_persons_throw(seed: int, turns: int):
    """Seat 1 a person's, seat 2 greedy; played `turns` turns and on to seat 1's throw."""
    from rules.core.bots import make_agent
    from simulator.render.app import window_module

    module = window_module("deep-white-sea")
    assert module is not None
    session = module.new_session(["human", "greedy"], seed, {})
    match = session.match
    stand_in = make_agent("random", session.module, match.seat_rngs[0],
                          **match.bots.get("random", {}))
    st = session.state

    def persons_throw() -> bool:
        return st.current_player() == 0 and any(a[0] == "throw" for a in session.legal())

    for _ in range(2000):
        if st.is_terminal() or (st.turn > turns and persons_throw()):
            break
        seat = st.current_player()
        session.apply(stand_in.step(st) if seat == 0 else session.bot_action())
    assert not st.is_terminal() and persons_throw()
    return module, session


def main(out: str, seed: int, turns: int, views: list[str]) -> dict:
    from PIL import Image
    from window_inspect_script import cap_px  # the HUD's capitals as the window draws them

    from simulator.physics.world import FOOT
    from simulator.render.core.offscreen import texture_to_array
    from simulator.render.deep_white_sea.inspect_card import aim_boxes, dice_boxes
    from simulator.render.deep_white_sea.session import ThrowAnim

    module, session = at_the_persons_throw(seed, turns)
    app = module.App(session)
    app.paused = True
    # The last throw's line of the prompt, as the window shows it after a throw it played.
    throws = [a for o in session.history for a in o.anims
              if isinstance(a, ThrowAnim) and a.playback.duration > 0]
    if throws:
        app.last_physics_ratio = throws[-1].physics_s / throws[-1].playback.duration
    settle(app)
    app.choose(next(i for i, c in enumerate(app.choices) if c.arm is not None))
    settle(app)
    hud = app.hud
    w, h = app.win_size()
    edge = session.table_spec.edge_y
    result: dict = {"turn": session.state.turn, "win": [w, h], "views": {}}
    for k, view in enumerate(views):
        app.aim.drop()
        if view.startswith("top") or view.startswith("zoom"):
            app.view_top()
            settle(app)
            for _ in range(int(view[3:] or 0) if view.startswith("top") else 0):
                app.views.zoom_in()
            settle(app)
        else:
            app.view_thrower()
            settle(app)
        press = app.screen_of((0.08, -(edge + FOOT + 0.04), 0.0))
        release = app.screen_of((0.04, -0.06, 0.0))
        assert press is not None and release is not None, view
        app.on_left_down(press)
        app.step_frames(1)
        app.on_pointer(release)
        app.step_frames(3)
        if view.startswith("zoom"):  # the drag held still, the wheel turned N notches
            for _ in range(int(view[4:])):
                app.views.zoom_in()
            app.step_frames(3)
        shot = Image.fromarray(texture_to_array(app.base.win.getScreenshot()))
        shot.save(out if k == 0 else out.replace(".png", f"-{k}.png"))
        prompt = hud.box_px(hud.prompt)
        others = [hud.status, hud.log, *hud.panels, hud.inspect]
        blocks = [list(b) for n in others if not n.isHidden() and (b := hud.box_px(n))]
        from simulator.render.core.inset import inset_box

        blocks.append(list(inset_box((w, h))))
        result["views"][view] = {
            "prompt": hud.prompt.getText(), "preview": app.aim.preview is not None,
            "prompt_box": list(prompt) if prompt else None,
            "cap_px": cap_px(app, hud.prompt),
            "dice_boxes": {d: list(b) for d, b in dice_boxes(app).items()},
            "aim_boxes": [list(b) for b in aim_boxes(app)],
            "pins": [(n.getText(), list(b)) for n in app.pins.nodes
                     if not n.isHidden() and (b := hud.box_px(n)) is not None],
            "button_boxes": [list(b) for b in hud.button_boxes()], "hud_boxes": blocks}
    app.cleanup()
    return result


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])))
