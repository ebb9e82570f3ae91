"""The Deep White Sea window playing through a table server, for `tests/test_net.py` under
Xvfb in a process of its own (a process holds one ShowBase).

    python tests/window_net_script.py GAMES_DIR                # Deep White Sea
    python tests/window_net_script.py GAMES_DIR diced          # a d6 game's window
    python tests/window_net_script.py GAMES_DIR diced random   # its seat played by --auto random

Starts `tabletop serve` on GAMES_DIR, makes a table (seat 0 open, the others server bots),
takes seat 0, then plays it in the window through the window's own handlers. Deep White
Sea: the first die placed with Enter, then a throw by a mouse drag. A d6 game: the first
choice of the keyboard list at each of seat 0's turns, for STEPS steps; with a bot kind
(`--auto`), nothing is pressed and the bot plays seat 0. Prints one JSON object on its last
line.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from simulator.net.client import Client
from simulator.net.load import start_server
from simulator.net.window import Bridge, NetSession, net_app
from simulator.physics.world import FOOT
from simulator.render.deep_white_sea.deep_white_sea_window import App
from simulator.render.deep_white_sea.session import ThrowAnim

SPEED = 8.0
STEPS = 30  # a d6 game's window plays this many steps of the server's table
AUTO_STEPS = 8  # ... and with its seat played by a bot


def our_turn(app: Any, seconds: float = 120.0) -> None:
    """Run frames until the person at seat 0 is to act (or the game is over)."""
    end = time.monotonic() + seconds
    app.step_frames(2)
    while time.monotonic() < end:
        app.step_frames(1)
        if app.session.state.is_terminal() or app.human_to_act():
            return
        time.sleep(0.002)
    raise TimeoutError("the window did not come to seat 0's turn")


def main(games_dir: str) -> dict[str, Any]:
    proc, url = start_server(Path(games_dir))
    try:
        async def seat() -> tuple[str, str]:
            client = await Client.open(url)
            table = await client.create("deep-white-sea", ["open", "random"], seed=2)
            record = await client.join(table, 0)
            await client.close()
            return table, record.token or ""

        table, token = asyncio.run(seat())
        session = NetSession(Bridge(url, table, 0, token))
        app = net_app(App)(session)
        app.speed = SPEED
        out: dict[str, Any] = {"table": table, "class": type(app).__name__}
        our_turn(app)
        # The first die of the turn: the first choice, placed with Enter (as local play).
        while session.state.decision == "place" and session.to_move == 0:
            app.choose(0)
            app.confirm()
            our_turn(app)
        out["placed"] = sorted(session.state.poses)
        # A throw by a drag from behind the edge toward the centre.
        index = next(i for i, c in enumerate(app.choices) if c.arm is not None)
        app.choose(index)
        die = app.armed
        edge = session.table_spec.edge_y
        app.on_left_down(app.screen_of((0.08, -(edge + FOOT + 0.04), 0.0)))
        app.step_frames(1)
        app.on_pointer(app.screen_of((0.06, -(edge * 0.5), 0.0)))
        app.step_frames(1)
        release = app.screen_of((0.04, -0.06, 0.0))
        app.on_pointer(release)
        app.step_frames(1)
        before = len(session.history)
        app.on_left_up(release)
        out["pending_after_release"] = session.pending
        end = time.monotonic() + 60
        while len(session.history) <= before and time.monotonic() < end:
            app.step_frames(1)
            time.sleep(0.002)
        thrown = session.history[before] if len(session.history) > before else None
        out["thrown"] = None if thrown is None else list(thrown.action[:2])
        anim = next((a for a in (thrown.anims if thrown else []) if isinstance(a, ThrowAnim)),
                    None)
        out["playback_s"] = None if anim is None else anim.playback.duration
        out["physics_s"] = None if anim is None else anim.physics_s
        out["die"] = die
        our_turn(app)
        poses = session.poses()
        out["scene_vs_server_m"] = max((float(np.linalg.norm(np.subtract(
            app.scene.die_position(n), poses[n][0]))) for n in poses if n in app.scene.dice),
            default=0.0)
        out["steps"] = session.step
        out["log"] = app.log_lines[-6:]
        app.cleanup()
        session.close()
        return out
    finally:
        proc.terminate()
        proc.wait(30)


def dice(games_dir: str, game: str, auto: str | None = None) -> dict[str, Any]:
    from rules import registry
    from rules.core.runner import digest
    from simulator.net.window import window_app
    from simulator.render.app import window_module

    seats = ["open"] + ["random"] * (max(2, registry.lookup(game).min_players) - 1)
    proc, url = start_server(Path(games_dir))
    try:
        async def seat() -> tuple[str, str]:
            client = await Client.open(url)
            table = await client.create(game, seats, seed=2)
            record = await client.join(table, 0, kind=auto)
            await client.close()
            return table, record.token or ""

        table, token = asyncio.run(seat())
        bridge = Bridge(url, table, 0, token)
        module = window_module(game)
        assert module is not None
        app = window_app(bridge, game, module, auto, 1)  # as `tabletop join` makes it
        session = app.session
        app.speed = 16.0
        chosen = asked = 0
        end = time.monotonic() + 240
        steps = STEPS if auto is None else AUTO_STEPS
        while (not session.state.is_terminal() and session.step < steps
               and time.monotonic() < end):
            app.step_frames(1)
            if app.human_to_act():
                asked += 1
                if app.choices and auto is None:
                    app.choose(0)
                    chosen += 1
            time.sleep(0.001)
        rolls_shown = app.roll is not None
        out = {"table": table, "class": type(app).__name__, "chosen": chosen, "asked": asked,
               "terminal": session.state.is_terminal(), "steps": session.step,
               "digest": digest(session.state), "rolls_shown": rolls_shown,
               "differed": [x for x in app.log_lines if "differed" in x]}
        app.cleanup()
        bridge.close()
        return out
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    if len(sys.argv) > 2:
        print(json.dumps(dice(sys.argv[1], sys.argv[2], *sys.argv[3:4])))
    else:
        print(json.dumps(main(sys.argv[1])))
