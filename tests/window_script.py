"""Scripted sessions in a real Panda3D window, run by `tests/test_render_window.py` under
Xvfb in a process of their own (a process holds one ShowBase).

    python tests/window_script.py play LOG      # place, throw by drag, click to shoot
    python tests/window_script.py replay LOG    # open the log in the viewer, step through

Each prints one JSON object on its last line for the test to check. Everything is done
through the window's own handlers (choices, mouse down / drag / release, clicks), with
pointer positions found by projecting table points through the window's camera.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np

from rules.core.runner import digest, read_log
from simulator.physics.world import FOOT
from simulator.render.app import TableApp, replay_session
from simulator.render.deep_white_sea.session import GameSession, ThrowAnim

SPEED = 8.0  # animations at 8x real time: the test waits less, the code path is the same


def settle(app: TableApp, seconds: float = 60.0) -> None:
    """Run frames until nothing animates and no bot or replay step is pending."""
    end = time.monotonic() + seconds
    app.step_frames(2)
    while time.monotonic() < end:
        app.step_frames(1)
        if app.idle():
            return
        time.sleep(0.002)
    raise TimeoutError("the window did not settle")


def play(log_path: str) -> dict[str, Any]:
    with open(log_path, "w") as log:
        session = GameSession(["human", "human"], seed=0, options={"table": "physics"}, log=log)
        app = TableApp(session)
        app.speed = SPEED
        settle(app)
        out: dict[str, Any] = {"gl": app.base.win.getGsg().getDriverRenderer()}
        # First turn: take the first die offered and place it (Enter).
        app.choose(0)
        app.confirm()
        settle(app)
        out["placed"] = sorted(session.state.poses)
        # Second turn: throw with a drag from behind the thrower's edge toward the centre.
        seat = session.state.current_player()
        sign = -1.0 if seat == 0 else 1.0
        index = next(i for i, c in enumerate(app.choices) if c.arm is not None)
        app.choose(index)
        die = app.armed
        edge = session.table_spec.edge_y
        press = app.screen_of((0.08, sign * (edge + FOOT + 0.04), 0.0))
        middle = app.screen_of((0.06, sign * (edge * 0.5), 0.0))
        release = app.screen_of((0.04, sign * 0.06, 0.0))
        app.on_left_down(press)
        app.step_frames(1)
        app.on_pointer(middle)
        app.step_frames(1)
        app.on_pointer(release)
        app.step_frames(1)
        out["preview_foul"] = None if app.aim.preview is None else app.aim.preview.foul
        out["preview_release"] = None if app.aim.preview is None else list(app.aim.preview.throw.release)
        app.on_left_up(release)
        anims = [r.anim for r in ([app.running] if app.running else []) + app.queue]
        throw = next((a for a in anims if isinstance(a, ThrowAnim)), None)
        out["throw_playback_s"] = None if throw is None else throw.playback.duration
        out["physics_s"] = None if throw is None else throw.physics_s
        settle(app)
        out["thrown"] = die
        out["thrown_where"] = session.state.where[die]
        out["thrown_in_scene"] = die in app.scene.dice
        out["thrown_on_table"] = die in session.state.poses
        if die in session.state.poses:
            out["scene_vs_state_m"] = float(np.linalg.norm(np.subtract(
                app.scene.die_position(die), session.poses()[die][0])))
        out["log_after_throw"] = app.log_lines[-4:]
        # Then a shot by clicks: reach a position where the player to act has a targeted
        # shot (throwing as a bot would where needed), click the shooter, click its target.
        shot = _reach_targeted_shot(app, session)
        out["shot"] = list(shot) if shot else None
        if shot is not None:
            shooter, target = shot[1], shot[3]
            before = len(session.history)
            app.on_left_down(app.screen_of(app.scene.die_position(shooter)))
            app.on_left_up()
            out["selected"] = app.selected
            out["targets_ringed"] = app.scene.overlay.getNumChildren()
            _screenshot(app, log_path + ".select.png")
            app.on_left_down(app.screen_of(app.scene.die_position(target)))
            app.on_left_up()
            settle(app)
            applied = session.history[before] if len(session.history) > before else None
            out["applied"] = None if applied is None else list(applied.action)
            out["shot_events"] = [] if applied is None else applied.events
        app.toggle_help()
        app.step_frames(2)
        out["help_lines"] = app.help_text.count("\n")
        _screenshot(app, log_path + ".png")
        out["steps"] = session.step
        app.cleanup()
        return out


def replay(log_path: str) -> dict[str, Any]:
    lines = [ln for ln in read_log(log_path)[1:] if ln.get("type") == "action"]
    session, actions, digests = replay_session(log_path)
    app = TableApp(session, replay=actions, replay_digests=digests)
    app.speed = SPEED
    app.paused = True
    settle(app)
    matches = []
    for k in range(min(3, len(actions))):
        app.step_once()
        settle(app)
        matches.append(session.step == k + 1 and digest(session.state) == lines[k]["digest"])
    paused_steps = session.step
    app.step_frames(5)
    held = session.step == paused_steps  # paused: no step without N
    app.toggle_pause()
    end = time.monotonic() + 60
    while session.step < len(actions) and time.monotonic() < end:
        settle(app)
    final = session.step == len(actions) and digest(session.state) == lines[-1]["digest"]
    warned = any("another table" in line for line in app.log_lines)
    _screenshot(app, log_path + ".replay.png")
    app.cleanup()
    return {"actions": len(actions), "stepped": matches, "held_while_paused": held,
            "final_matches": final, "warned_of_difference": warned}


def _reach_targeted_shot(app: TableApp, session: GameSession) -> tuple[Any, ...] | None:
    from rules.deep_white_sea import aimed_throw, throw_action

    rng = np.random.default_rng(5)
    for _ in range(12):
        legal = session.legal()
        targeted = [a for a in legal if a[0] == "shoot" and len(a) > 3]
        if targeted:
            return tuple(targeted[0])
        st = session.state
        seat = st.current_player()
        if any(a[0] == "throw" for a in legal):
            dice = [a[1] for a in legal if a[0] == "throw"]
            spots = [st.poses[d].position[:2] for d in st.poses] or [(0.0, 0.0)]
            for k in range(30):
                spot = spots[k % len(spots)]
                aim = (spot[0] + rng.uniform(-0.08, 0.08), spot[1] + rng.uniform(-0.08, 0.08))
                action = throw_action(dice[k % len(dice)], aimed_throw(st, seat, aim, rng))
                trial = st.clone()
                trial.apply_action(action)
                if any(a[0] == "shoot" and len(a) > 3 for a in trial.legal_actions()):
                    app.apply(action, bot=True)
                    settle(app)
                    break
            else:
                app.apply(legal[-1])
                settle(app)
            continue
        app.apply(next((a for a in legal if a[0] in ("pass", "decline")), legal[0]))
        settle(app)
    return None


def _screenshot(app: TableApp, path: str) -> None:
    from panda3d.core import Filename

    app.base.graphicsEngine.renderFrame()
    app.base.win.saveScreenshot(Filename.fromOsSpecific(path))


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    result = play(path) if mode == "play" else replay(path)
    print(json.dumps(result))
