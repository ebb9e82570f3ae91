"""Scripted sessions of the d6 games' windows (Diced, Diceland hex) in a real Panda3D window,
run by `tests/test_render_dice_window.py` under Xvfb in a process of their own (a process
holds one ShowBase).

    python tests/window_dice_script.py play GAME LOG     # clicks on pieces, rolls in the tray
    python tests/window_dice_script.py replay GAME LOG   # the viewer steps through the log

Each prints one JSON object on its last line. Everything is done through the window's own
handlers, with pointer positions found by projecting table points through its camera.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from rules.core.runner import digest, read_log
from simulator.render.app import window_module
from simulator.render.core.window import GameWindow

# Diced's smallest pool (one die a player) closes soon, so a player attack comes early.
OPTIONS: dict[str, dict[str, Any]] = {"diced": {"pool": 3}}
SPEED = 16.0  # animations at 16x real time: the test waits less, the code path is the same


def settle(app: GameWindow, seconds: float = 90.0) -> None:
    """Run frames until nothing animates, no bot thinks and no roll is pending."""
    end = time.monotonic() + seconds
    app.step_frames(2)
    while time.monotonic() < end:
        app.step_frames(1)
        if app.idle() and not app.bot_turn():
            return
        if app.idle() and app.replay is not None and app.paused:
            return
        time.sleep(0.002)
    raise TimeoutError("the window did not settle")


def click(app: GameWindow, point: tuple[float, float, float]) -> None:
    pos = app.screen_of(point)
    assert pos is not None, point
    app.on_left_down(pos)
    app.on_left_up(pos)


def applied_since(session: Any, before: int) -> list[Any] | None:
    """The first engine action the session applied after its `before`-th step, or None."""
    done = session.history[before:]
    return list(done[0].action) if done else None


def play(game: str, log_path: str) -> dict[str, Any]:
    module = window_module(game)
    assert module is not None
    out: dict[str, Any] = {}
    with open(log_path, "w") as log:
        players = ["human"] * module.PLAYERS[0]
        session = module.new_session(players, 3, OPTIONS.get(game, {}), log=log)
        app = module.App(session)
        app.speed = SPEED
        shown: list[dict[str, Any]] = []
        original = app.show_roll

        def watch(roll: Any, on_applied: Any = None) -> None:
            def applied() -> None:
                shown.append({"physics": list(roll.faces), "shown": app.tray_values(),
                              "engine_step": session.step})
                if on_applied is not None:
                    on_applied()
            original(roll, applied)

        app.show_roll = watch  # type: ignore[method-assign]
        settle(app)
        out["gl"] = app.base.win.getGsg().getDriverRenderer()
        out.update(SCRIPTS[game](app, session))
        settle(app)
        out["rolls"] = shown
        out["help_lines"] = app.help_text.count("\n")
        app.base.graphicsEngine.renderFrame()
        from panda3d.core import Filename

        app.base.win.saveScreenshot(Filename.fromOsSpecific(log_path + ".png"))
        app.cleanup()
    out["log_faces"] = [ln["faces"] for ln in read_log(log_path)[1:] if ln.get("type") == "chance"]
    return out


def diced(app: Any, session: Any) -> dict[str, Any]:
    """Click your first ready die (attack with one), then the pool: the engine applies
    ('pool', 1); later, a player's dice: ('attack', target, k)."""
    from simulator.render.d6.diced_window import pool_spots, seat_dice_spots

    st = session.state
    out: dict[str, Any] = {}
    me = st.current_player()
    n = st.n
    before = len(session.history)
    click(app, (*seat_dice_spots(me, n, st.dice[me])[0], 0.008))
    out["commit"] = app.commit
    click(app, (*pool_spots(st.pool)[0], 0.008))
    settle(app)
    out["pool_action"] = applied_since(session, before)
    # Play on (by the choices list, as a person at the keyboard) until a player attack is
    # possible with the pool closed, or a few turns: end turns until someone has dice.
    for _ in range(200):
        st = session.state
        if st.is_terminal():
            break
        if st.phase == "turn" and not st.pool_open:
            me = st.current_player()
            target = next(t for t in st.alive() if t != me)
            expected = ["attack", target, st.ready]  # no die clicked: all ready dice attack
            before = len(session.history)
            click(app, (*seat_dice_spots(target, n, st.dice[target])[0], 0.008))
            settle(app)
            out["attack_action"] = applied_since(session, before)
            out["attack_expected"] = expected
            break
        if st.phase == "defend":
            me = st.current_player()
            before = len(session.history)
            click(app, (*seat_dice_spots(me, n, st.dice[me])[st.dice[me] - 1], 0.008))
            settle(app)
            out.setdefault("defend_action", applied_since(session, before))
            out.setdefault("defend_expected", ["defend", st.dice[me]])
            continue
        app.choose(0)
        settle(app)
    out["steps"] = session.step
    return out


def hex_game(app: Any, session: Any) -> dict[str, Any]:
    """Place by clicks (a die of the hand, then an empty tile), then attack by clicks (your
    army, then the enemy's next to it)."""
    from simulator.render.d6.diceland_hex_window import layout_of
    from simulator.render.d6.scene import TILE_Z

    st = session.state
    lay = layout_of(session)
    out: dict[str, Any] = {}
    me = st.current_player()
    value = st.hands[me][0]
    tile = next(t for t in range(st.board.size) if st.owner[t] < 0)
    out["place_expected"] = ["place", value, tile]
    before = len(session.history)
    click(app, app.scene.die_position(f"hand{me}:0"))
    click(app, (*lay.centres[tile], TILE_Z))
    settle(app)
    out["place_action"] = applied_since(session, before)
    for _ in range(300):
        st = session.state
        if st.is_terminal():
            break
        if st.phase == "attack":
            a, t = next((a[1], a[2]) for a in st.legal_actions() if a[0] == "attack")
            out["attack_expected"] = ["attack", a, t]
            before = len(session.history)
            click(app, (*lay.centres[a], TILE_Z))
            click(app, (*lay.centres[t], TILE_Z))
            settle(app)
            out["attack_action"] = applied_since(session, before)
            break
        app.choose(0)
        app.step_frames(1)
        if st.phase == "place":
            app.choose(0)  # the value was picked; now the first tile offered
        settle(app)
    out["steps"] = session.step
    return out


SCRIPTS = {"diced": diced, "diceland-hex": hex_game}


def replay(game: str, log_path: str) -> dict[str, Any]:
    module = window_module(game)
    assert module is not None
    lines = [ln for ln in read_log(log_path)[1:] if ln.get("type") in ("chance", "action")]
    session, steps, digests = module.replay_session(log_path)
    app = module.App(session, replay=steps, replay_digests=digests)
    app.speed = SPEED
    app.paused = True
    settle(app)
    matches = []
    faces = []
    for k in range(min(6, len(steps))):
        app.step_once()
        settle(app)
        matches.append(session.step == k + 1 and digest(session.state) == lines[k]["digest"])
        if lines[k]["type"] == "chance":
            faces.append([app.tray_values(), lines[k]["faces"]])
    paused_steps = session.step
    app.step_frames(5)
    held = session.step == paused_steps
    app.cleanup()
    return {"steps": len(steps), "stepped": matches, "held_while_paused": held,
            "faces": faces}


def extras(game: str, log_path: str) -> dict[str, Any]:
    """The game-over screen and 'start again' (three bots, a one-round Diced), and the
    choices list paging past ten lines (placing on the large hex board by keys)."""
    from simulator.render.d6 import diced_window, diceland_hex_window

    out: dict[str, Any] = {}
    session = diced_window.new_session(["greedy"] * 3, 1, {"max_rounds": 1})
    app = diced_window.App(session)
    app.speed = SPEED
    end = time.monotonic() + 120
    while not session.state.is_terminal() and time.monotonic() < end:
        settle(app)
    settle(app)
    app.step_frames(2)
    out["over_text"] = app.hud.over.getText() if not app.hud.over.isHidden() else None
    out["again_shown"] = not app.hud.again.isHidden()
    app.restart()
    tray = app.scene.die_names("roll:")  # before the new game's first roll is thrown
    app.step_frames(2)
    out["restarted"] = [app.session is not session, app.session.seed, app.session.step,
                        app.hud.over.isHidden(), tray]
    app.cleanup()
    app.base.destroy()
    hex_session = diceland_hex_window.new_session(["human", "human"], 2, {"board": "large"})
    hexapp = diceland_hex_window.App(hex_session)
    hexapp.speed = SPEED
    settle(hexapp)
    hexapp.choose(0)  # the highest value of the hand: then one line per empty tile
    first = [c.label for c in hexapp.choices]
    hexapp.choose(len(hexapp.choices) - 1)  # 'more...'
    second = [c.label for c in hexapp.choices]
    hexapp.choose(0)  # a tile of the second page, by its key
    settle(hexapp)
    out["pages"] = [len(first), first[-1], second[0]]
    out["placed_from_page_two"] = list(hex_session.history[-1].action) \
        if hex_session.history else None
    hexapp.cleanup()
    return out


def pictures(shading: str, _path: str) -> dict[str, Any]:
    """Offscreen pictures of Diced and hex drawn by `shading`; for each named piece, how far
    the colours at its projected position are from its own colour (`colour_distance`)."""
    from simulator.render.d6 import diced_window, diceland_hex_window
    from simulator.render.d6.scene import POOL_COLOUR, TERRAIN_COLOURS, TILE_Z, seat_colour

    # A 16 mm die is about 13 px across in the top view at this size (the window's).
    size = (1280, 720)
    out: dict[str, Any] = {}
    session = diced_window.new_session(["greedy", "random", "greedy", "random"], 5, {})
    diced_window.play_turns(session, 2)
    pic = diced_window.picture(session, size, shading)
    out["path"] = "pbr" if pic.renderer.pbr else "software"
    cam = pic.camera("top")
    px = pic.render(cam, caption=False, inset=False)
    st = session.state
    palette = [seat_colour(k) for k in range(st.n)]

    def nearest(point: Any) -> list[float]:
        xy = cam.project(point, size)
        return [colour_distance(px, xy, rgb, 3) for rgb in palette]

    # For each die: its owner's seat and the distances to every seat's colour (the nearest
    # within 3 px of its middle: the white pips are far from every seat colour here).
    out["diced"] = [[s, nearest(pic.scene.die_position(f"seat{s}:{i}"))]
                    for s in range(st.n) for i in range(st.dice[s])]
    out["pool"] = colour_distance(px, cam.project(pic.scene.die_position("pool:0"), size),
                                  POOL_COLOUR)
    out["felt_vs_seat0"] = colour_distance(px, cam.project((0.3, -0.3, 0.0), size),
                                           seat_colour(0), 0)
    pic.close()
    session = diceland_hex_window.new_session(["greedy", "random"], 2, {"board": "classic"})
    diceland_hex_window.play_turns(session, 2)
    pic = diceland_hex_window.picture(session, size, shading)
    cam = pic.camera("top")
    px = pic.render(cam, caption=False, inset=False)
    st = session.state
    lay = diceland_hex_window.layout_of(session)
    armies = [t for t in range(st.board.size) if st.owner[t] >= 0]
    # An army shows its value: 1, 3 and 5 have a pip in the middle, so look 3 px round it.
    out["armies"] = [[st.owner[t], [colour_distance(px, cam.project(
        pic.scene.die_position(f"army:{t}"), size), seat_colour(k), 3) for k in (0, 1)]]
        for t in armies]
    out["terrain"] = [[t, colour_distance(px, cam.project(
        (lay.centres[t][0] + 0.6 * diceland_hex_window.RADIUS, lay.centres[t][1], TILE_Z), size),
        TERRAIN_COLOURS[st.board.terrain[t]])] for t in armies[:6]]
    pic.close()
    return out


def colour_distance(pixels: Any, xy: Any, rgb: tuple[float, ...], reach: int = 1) -> float:
    """The smallest distance of the colours within `reach` px of xy to `rgb`, both scaled to
    unit length (shading that darkens or brightens a colour does not count)."""
    import numpy as np

    assert xy is not None
    x, y = int(round(xy[0])), int(round(xy[1]))
    target = np.asarray(rgb, dtype=float) / np.linalg.norm(rgb)
    best = 9.0
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            p = pixels[y + dy, x + dx].astype(float)
            if p.sum() >= 30:
                best = min(best, float(np.linalg.norm(p / np.linalg.norm(p) - target)))
    return best


if __name__ == "__main__":
    mode, game, path = sys.argv[1], sys.argv[2], sys.argv[3]
    modes = {"play": play, "replay": replay, "extras": extras, "pictures": pictures}
    result = modes[mode](game, path)
    print(json.dumps(result))
