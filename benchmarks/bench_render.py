"""Rendering speed and the physics' lead for every game's 3D table (issue 14, item 5).

For each game on its largest board, played some turns by bots (Deep White Sea: the default
table with both crews in play; Diced: 8 seats; Diceland hex: the large board; D-Day Dice:
4 units; DiceWar: the whole warlands with the Ruins):

1. Frames per second at the window's size (1280x720) while the last throw's dice move
   along their recorded trajectory, for each drawing path this machine has: the game's
   own window ("window-gl", "window-pbr": the window as `tabletop play --shading gl|pbr`
   draws it, its HUD and close-up inset included, each frame a turn of its loop, in a
   process of its own; `--window-shading` picks which), and offscreen pictures by
   Panda3D's software renderer, OpenGL with fixed-function shading and OpenGL with
   physically based shading (simplepbr). Under Xvfb with Mesa, OpenGL is llvmpipe on the
   CPU. An offscreen frame is waited for by reading back one pixel of it (llvmpipe draws
   nothing until its buffer is needed); a picture's whole read-back is not timed.
2. Whether a throw's physics finishes before its playback needs it: the wall time the
   physics takes to simulate each throw of the game to rest with its trajectory recorded
   (as the window does), against how long that throw's playback lasts. Below 100% the
   recording is complete before a playback started at release would need its last frame.

    xvfb-run -a python -m benchmarks.bench_render [--games all] [--frames 40] [--turns 6]
        [--paths window,software,gl,pbr] [--window-shading gl,pbr]

Prints one line per game and path, and one per game for the physics; no pass or fail.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

GAMES = ("deep-white-sea", "diced", "diceland-hex", "dday", "dicewar")
# The largest board of each game: seats and options for `new_session`.
LARGEST: dict[str, tuple[int, dict[str, Any]]] = {
    "deep-white-sea": (2, {}),
    "diced": (8, {}),
    "diceland-hex": (2, {"board": "large"}),
    "dday": (4, {}),
    "dicewar": (2, {"ruins": True}),
}
WINDOW = (1280, 720)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="all", help="comma-separated games, or all")
    ap.add_argument("--frames", type=int, default=40, help="frames timed per game and path")
    ap.add_argument("--turns", type=int, default=6, help="turns the bots play first")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paths", default="window,software,gl,pbr",
                    help="drawing paths to time, of window, software, gl, pbr (those the "
                         "machine has)")
    ap.add_argument("--window-shading", default="gl,pbr",
                    help="the window's drawing paths to time (tabletop play's --shading: "
                         "auto, pbr, gl, software), comma-separated")
    ap.add_argument("--window-of", metavar="GAME", help=argparse.SUPPRESS)  # one child's game
    args = ap.parse_args()
    if args.window_of:
        return _window_child(args.window_of, args.seed, args.turns, args.frames,
                             args.window_shading)
    games = GAMES if args.games == "all" else tuple(g.strip() for g in args.games.split(","))
    from simulator.render.core.offscreen import gl_unavailable, pbr_unavailable

    have = ["software"]
    why_not = gl_unavailable()
    if not why_not:
        have += ["window", "gl"]
        if not pbr_unavailable():
            have.append("pbr")
    else:
        print(f"OpenGL paths left out: {why_not}")
    paths = [p for p in have if p in args.paths.split(",")]
    window_shadings = [w for w in args.window_shading.split(",")
                       if w in ("auto", "gl", "software") or w == "pbr" and "pbr" in have]
    played = {game: _played(game, args.seed, args.turns) for game in games}
    for game, (_session, throws) in played.items():
        if throws:
            ratios = sorted(wall / length for wall, length in throws)
            lengths = [length for _wall, length in throws]
            print(f"{game:15s} physics  {len(throws)} throws: simulated to rest in "
                  f"{100 * statistics.median(ratios):.0f}% of the playback's length (median), "
                  f"worst {100 * ratios[-1]:.0f}%; playback {statistics.median(lengths):.2f} s "
                  f"(median); finishes before its playback needs it: "
                  f"{sum(r < 1 for r in ratios)} of {len(ratios)}", flush=True)
    # Each path for every game in turn, the slowest (simplepbr) last.
    for path in paths:
        for game, (session, _throws) in played.items():
            if path == "window":  # a process holds one window: each game's in its own
                for shading in window_shadings:
                    child = subprocess.run(
                        [sys.executable, "-m", "benchmarks.bench_render", "--window-of", game,
                         "--seed", str(args.seed), "--turns", str(args.turns),
                         "--frames", str(args.frames), "--window-shading", shading],
                        capture_output=True, text=True)
                    lines = [ln for ln in child.stdout.splitlines() if ln.startswith(game)]
                    print(lines[-1] if child.returncode == 0 and lines else
                          f"{game:15s} window-{shading} failed: {child.stderr.strip()[-300:]}",
                          flush=True)
                continue
            fps, dice, detail = _frames(game, session, path, args.frames)
            print(_line(game, path, fps, dice, detail), flush=True)
    return 0


def _played(game: str, seed: int, turns: int) -> tuple[Any, list[tuple[float, float]]]:
    """A session on the game's largest board after `turns` turns of random bots, and each
    throw's (physics wall time s, playback length s)."""
    from simulator.render.app import window_module

    module = window_module(game)
    assert module is not None, game
    seats, options = LARGEST[game]
    session = module.new_session(["random"] * seats, seed, dict(options))
    throws: list[tuple[float, float]] = []
    if game == "deep-white-sea":
        from simulator.render.deep_white_sea.session import ThrowAnim

        module.play_turns(session, turns)
        throws = [(a.physics_s, a.playback.duration) for out in session.history
                  for a in out.anims if isinstance(a, ThrowAnim) and a.playback.duration > 0]
        return session, throws
    from simulator.physics.tray import roll_tray
    from simulator.render.d6.session import d6_model

    # A first throw builds the tray's world and loads PyBullet's data: not the game's cost.
    roll_tray(d6_model(), 1, np.random.default_rng(0), record=True)
    original: Callable[[], Any] = session.throw

    def timed() -> Any:
        t0 = time.perf_counter()
        roll = original()
        throws.append((time.perf_counter() - t0, roll.playback.duration))
        return roll

    session.throw = timed
    module.play_turns(session, turns)
    return session, throws


def _frames(game: str, session: Any, path: str, frames: int) -> tuple[float, int, str]:
    """Frames per second drawing the session's table by `path`, the last throw's dice
    moving along their recording; how many dice moved; the renderer in words."""
    from simulator.render.app import window_module

    module = window_module(game)
    assert module is not None, game
    picture = module.picture(session, WINDOW, path)
    renderer = picture.renderer
    picture.render("overview", caption=False, inset=False)  # builds the scene, uploads textures
    playback, move = _mover(game, session, picture.scene)
    fps = _timed(lambda: renderer.draw(), move, playback, frames)
    detail = renderer.path.detail
    picture.close()
    return fps, len(playback.tracks), detail


def _window_frames(game: str, session: Any, frames: int,
                   shading: str) -> tuple[float, int, str]:
    """The game's own window (`GameWindow`, drawn by `shading` as `tabletop play --shading`
    draws it) showing the session, its HUD and close-up inset included, each frame a turn
    of its loop; bots are paused, so only drawing is timed. A process holds one window:
    `main` runs this in a process of its own for each game and shading."""
    from simulator.render.app import open_window, window_module

    app: Any = open_window(session, window_module(game), shading=shading)
    app.paused = True
    if game != "deep-white-sea":
        from simulator.render.d6.tray_view import place_roll

        roll = session.last_roll
        colours = window_module(game).roll_colours(session.roll_state, len(roll.faces))
        place_roll(app.scene, roll, colours, 0.0)
    playback, move = _mover(game, session, app.scene)
    app.step_frames(3)  # uploads textures, makes the inset's views
    fps = _timed(lambda: app.step_frames(1), move, playback, frames)
    detail = f"the game's window, HUD and inset; {app.drawn_by.detail}"
    app.cleanup()
    return fps, len(playback.tracks), detail


def _mover(game: str, session: Any, scene: Any) -> tuple[Any, Callable[[dict[str, Any]], None]]:
    """The last throw's playback and what poses the scene's dice at one of its moments."""
    from simulator.render.deep_white_sea.session import ThrowAnim

    if game == "deep-white-sea":
        anim = next(a for out in reversed(session.history) for a in out.anims
                    if isinstance(a, ThrowAnim) and a.playback.duration > 0)

        def move(poses: dict[str, Any]) -> None:
            for name, (pos, quat) in poses.items():
                if name in scene.dice:
                    scene.move_die(name, pos, quat)

        return anim.playback, move

    def move_tray(poses: dict[str, Any]) -> None:
        for name, pose in poses.items():
            if "roll:" + name in scene.dice:
                scene.move_tray_die("roll:" + name, pose)

    return session.last_roll.playback, move_tray


def _timed(draw: Callable[[], None], move: Callable[[dict[str, Any]], None], playback: Any,
           frames: int) -> float:
    """Frames per second of `draw` with the dice moved to each frame's moment (60 a
    second of playback); the better of two rounds, the machine being shared."""
    best = 0.0
    for _round in range(2):
        t0 = time.perf_counter()
        for k in range(frames):
            move(playback.poses_at((k / 60.0) % max(playback.duration, 1e-3)))
            draw()
        best = max(best, frames / (time.perf_counter() - t0))
    return best


def _window_child(game: str, seed: int, turns: int, frames: int, shading: str) -> int:
    """`--window-of GAME`: one game's window line, printed by a process of its own."""
    session, _throws = _played(game, seed, turns)
    fps, dice, detail = _window_frames(game, session, frames, shading)
    print(_line(game, f"window-{shading}", fps, dice, detail), flush=True)
    return 0


def _line(game: str, path: str, fps: float, dice: int, detail: str) -> str:
    return (f"{game:15s} {path:10s} {fps:6.1f} frames/s at {WINDOW[0]}x{WINDOW[1]}, "
            f"{dice} dice moving ({detail})")


if __name__ == "__main__":
    sys.exit(main())
