"""The desktop window's entry points for every game: `tabletop play GAME` (people and bots
at one screen), `tabletop replay LOG --view` and the games' window modules.

A game has a window when `simulator/render/<table>/<game>_window.py` exists (the game's registry
name with '-' written '_'), found by that name alone; each module implements the small
interface `simulator.render.core.window` documents in `GameWindowModule` terms:

    GAME: str                       # the registry name
    PLAYERS: tuple[int, int]        # fewest and most seats in the window
    App: type[GameWindow]           # the window class
    new_session(players, seed, options, log=None, bot_settings=None) -> session
    replay_session(log_path) -> (session, steps, digests)
    picture(session, size) -> object with render(view, caption) and close()
    play_turns(session, turns) -> steps taken (bots play; `tabletop render`)

The window itself (camera, HUD, choices, bots, replay, picking, game over) is
`simulator.render.core.window.GameWindow`; Deep White Sea's is
`simulator.render.deep_white_sea.deep_white_sea_window.TableApp`.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from dice_models.outfiles import LineFile, check_target
from rules.core.runner import read_log
from simulator.render import WindowError, window_games, window_module_name
from simulator.render.core.offscreen import pbr_package_missing
from simulator.render.core.settings import Remembered, settings_path
from simulator.render.core.window import GameWindow
from simulator.render.deep_white_sea.deep_white_sea_window import TableApp, replay_session

__all__ = ["TableApp", "display_problem", "launch", "open_window", "play_window",
           "replay_session", "replay_window", "window_module", "window_games", "window_prefs"]

BOT_KINDS_NOTE = "human or a bot of the game"


def window_module(game: str) -> ModuleType | None:
    """The game's window module, or None if it has no window (yet)."""
    name = window_module_name(game)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def display_problem() -> str | None:
    """Why no window can open here, or None if a display is there to try."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY") \
            and not os.environ.get("WAYLAND_DISPLAY"):
        return "no display (DISPLAY is not set)"
    return None


def no_display_hint(game: str) -> str:
    return (f"use --headless to play in the terminal, or `tabletop render --game {game} "
            "--out table.png` for a picture")


def launch(args: Any, players: list[str], options: dict[str, Any]) -> int:
    """`tabletop play GAME` with a window (called by the play command unless --headless).
    Without --players every seat is a person at one screen."""
    from rules import registry

    spec = registry.lookup(args.game)
    for flag in ("load", "save"):
        if getattr(args, flag, None):
            raise WindowError(f"--{flag}: the window neither saves nor resumes games; "
                              "add --headless to play a saved game on in the terminal")
    if getattr(args, "dice", None) == "seeded":
        raise WindowError("--dice seeded: the window throws every roll with the physics; "
                          "add --headless to play with seeded dice in the terminal")
    shading = getattr(args, "shading", None) or "auto"  # the flag's, for the checks below
    if shading == "pbr" and pbr_package_missing():  # said before a game is set up
        raise WindowError(f"--shading pbr: physically based shading: {pbr_package_missing()}")
    problem = display_problem()
    if problem is not None:
        raise WindowError(shading_said(shading, f"{problem}: {no_display_hint(spec.name)}"))
    module = window_module(spec.name)
    if module is None:
        raise WindowError(f"{spec.name} has no 3D table yet: add --headless to play it in "
                          "the terminal")
    lo, hi = module.PLAYERS
    if getattr(args, "players", None) is None:
        players = ["human"] * lo
    if not lo <= len(players) <= hi:
        seats = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise WindowError(f"--players: {spec.name} takes {seats} players, got {len(players)}")
    kinds = ("human", *spec.bots)
    for kind in players:
        if kind not in kinds:
            raise WindowError(f"--players: {kind!r} cannot play {spec.name} in the window "
                              f"({', '.join(kinds)})")
    settings: dict[str, dict[str, Any]] = {}
    iterations = getattr(args, "mcts_iterations", None)
    if iterations is not None:
        if iterations < 1:
            raise WindowError(f"--mcts-iterations must be at least 1 (got {iterations})")
        settings["mcts"] = {"iterations": iterations}
    prefs = window_prefs(args)  # read once a window is to open
    shading = prefs.settings.shading  # --shading, else the settings file's
    return play_window(spec.name, players, int(getattr(args, "seed", 0)), options,
                       log_path=getattr(args, "log", None), bot_settings=settings or None,
                       shading=shading, prefs=prefs)


def shading_said(shading: str, problem: str) -> str:
    """`problem` as the line a window that cannot open prints: OpenGL asked for by
    `--shading` is named first (what the person asked for cannot be had)."""
    if shading == "pbr":
        return f"--shading pbr: physically based shading needs OpenGL: {problem}"
    if shading == "gl":
        return f"--shading gl: OpenGL: {problem}"
    return problem


def play_window(game: str, players: list[str], seed: int, options: dict[str, Any],
                log_path: str | None = None,
                bot_settings: dict[str, dict[str, Any]] | None = None,
                shading: str = "auto", prefs: Remembered | None = None) -> int:
    """Play `game` in the window (every roll thrown by the physics), drawn by `shading`
    (`GameWindow`), with the settings `prefs` (None: the defaults, nothing remembered)."""
    module = _module(game)
    # Written beside the target and renamed over it when the window closes (never half a log
    # over an old one); a write that fails is said at the end, the game itself goes on.
    log = LineFile(check_target(log_path, "--log"), "--log") if log_path else None
    try:
        session = module.new_session(players, seed, options, log=log, bot_settings=bot_settings)
        app = open_window(session, module=module, shading=shading, prefs=prefs)
        status = app.run()
    finally:
        if log is not None:
            log.close()
    if log is not None and log.error is not None:
        raise log.error
    return status


def replay_window(log_path: str | Path, speed: float = 1.0,
                  on_ready: Callable[[GameWindow], None] | None = None,
                  shading: str = "auto", prefs: Remembered | None = None) -> int:
    """`tabletop replay LOG --view`: the logged game, played again in the window."""
    from rules.core.protocols import RulesError

    game = read_log(log_path)[0].get("game")
    module = window_module(game) if isinstance(game, str) and game else None
    if module is None:
        raise RulesError(f"{log_path}: the replay viewer has no table for {game!r} (it shows "
                         f"{', '.join(window_games())})")
    session, steps, digests = module.replay_session(log_path)
    app = open_window(session, module=module, replay=steps, replay_digests=digests,
                      title=f"tabletop replay: {Path(log_path).name}", shading=shading,
                      prefs=prefs)
    app.speed = speed
    if on_ready is not None:
        on_ready(app)
    return app.run()


def open_window(session: Any, module: ModuleType | None = None, **kwargs: Any) -> GameWindow:
    """The game's window, or one line saying why it cannot open (a display that is set but
    does not answer, no OpenGL, the `shading` asked for cannot be had). Says on stdout which
    path it draws with, as `tabletop render` does."""
    from simulator.render.core.offscreen import RenderPathError

    module = module or _module(getattr(session, "game", "deep-white-sea"))
    shading = kwargs.get("shading") or "auto"
    prefs: Remembered | None = kwargs.pop("prefs", None)
    if prefs is not None:
        kwargs.setdefault("size", prefs.settings.window_size)
    try:
        app: GameWindow = module.App(session, **kwargs)
    except RenderPathError as exc:
        raise WindowError(f"--shading {shading}: {exc}") from None
    except Exception as exc:
        if "window" not in str(exc).lower():
            raise
        where = os.environ.get("DISPLAY", "the display")
        raise WindowError(shading_said(shading, f"could not open a window on {where} ({exc}): "
                                                f"{no_display_hint(module.GAME)}")) from None
    if prefs is not None:
        app.feel.use_prefs(prefs)
    print(f"drawn by: {app.drawn_by.detail}", flush=True)
    return app


def window_prefs(args: Any) -> Remembered:
    """The window's settings for `tabletop play` and `replay --view`: the settings file
    (`--settings`, else `$TABLETOP_SETTINGS`, else the XDG config folder's; a bad one is a
    line on stderr and the defaults) with the flags given winning (`settings.py`)."""
    path = getattr(args, "settings", None) or settings_path()
    return Remembered.read(path, shading=getattr(args, "shading", None),
                           volume=getattr(args, "volume", None), mute=getattr(args, "mute", None))


def _module(game: str) -> ModuleType:
    module = window_module(game)
    if module is None:
        raise WindowError(f"{game} has no 3D table yet")
    return module
