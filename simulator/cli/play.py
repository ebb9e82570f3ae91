"""`tabletop play GAME`: play a whole game with bots and/or terminal players.

    tabletop play diced --headless --players random,greedy,mcts --seed 1 --log game.jsonl
    tabletop play diceland-hex --players human,mcts --board compact --dice physics

Every registered game's options become flags here (`--board`, `--terrain`, ...); a game
rejects the flags it does not take. Every game opens the 3D window
(`simulator.render.app.launch`) unless `--headless` is given, which plays in the terminal;
without a display the window says so in one line (exit 2).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from dice_models.outfiles import LineFile, check_target
from rules import registry
from rules.core import DiceRoller
from rules.core.runner import ReplayedGame, play
from rules.core.saves import resume_game, save_game
from simulator.cli.args import (
    WINDOW_AUTO,
    add_game_options,
    add_shading,
    add_window_settings,
    game_options,
    seed,
)
from simulator.cli.main import UsageError
from simulator.plugins import load_plugins, make_roller


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("play", help="play a game with bots or in the terminal")
    p.add_argument("game", help="game name (see `tabletop games`)")
    p.add_argument("--headless", action="store_true",
                   help="no 3D window; play in the terminal")
    p.add_argument("--players", default=None,
                   help="comma-separated player kinds: random, greedy, mcts, human "
                        "(default: random for the smallest player count)")
    p.add_argument("--seed", type=seed, default=0, help="seed for dice and bots")
    p.add_argument("--log", default=None, help="write the JSON-lines game log here")
    p.add_argument("--dice", choices=("seeded", "physics"), default=None,
                   help="seeded random dice, or physics dice thrown into a tray (with "
                        "--headless; default seeded). The window always throws with the physics")
    p.add_argument("--mcts-iterations", type=int, default=None,
                   help="search iterations per mcts decision")
    p.add_argument("--quiet", action="store_true", help="print only the winner")
    add_shading(p, "the window", " (what auto picks on a software rasterizer such as Mesa's "
                "llvmpipe under Xvfb)", WINDOW_AUTO)
    add_window_settings(p)
    p.add_argument("--save", default=None,
                   help="keep the game in progress in this JSON file (written after every "
                        "step), so an interrupted game can go on with --load")
    p.add_argument("--load", default=None,
                   help="go on with a game saved by --save (its players, seed, options, dice "
                        "and bots come with it; its log is checked first, and the new log is "
                        "the whole game's)")
    add_game_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    spec = registry.lookup(args.game)
    load_plugins()
    # The save is read before anything is written (the log file), so a bad one costs nothing.
    resume = load_save(args.load, spec) if args.load else None
    if args.players:
        players = [p.strip() for p in args.players.split(",") if p.strip()]
    else:
        players = list(resume.players) if resume is not None else ["random"] * spec.min_players
    if resume is not None and len(players) != resume.num_players():
        raise UsageError(f"--load {args.load}: the saved game has {resume.num_players()} players, "
                         f"--players names {len(players)}")
    options: dict[str, Any] = game_options(args)
    if not args.headless:
        window = _launcher(WINDOW)
        return int(window(args, players, options))
    # A resumed game goes on with its own seed, options, dice and bots (its log's).
    seed = args.seed if resume is None else resume.seed
    if resume is not None:
        options = resume.options
    roller = make_roller(args.dice or (resume.roller if resume is not None else "seeded"))
    settings: dict[str, dict[str, Any]] = {} if resume is None else dict(resume.bots)
    if args.mcts_iterations is not None:
        if args.mcts_iterations < 1:
            raise UsageError(f"--mcts-iterations must be at least 1 (got {args.mcts_iterations})")
        settings["mcts"] = {**settings.get("mcts", {}), "iterations": args.mcts_iterations}

    def out(line: str) -> None:
        if not args.quiet or line.startswith(("Winner", "Draw")):
            print(line, flush=True)

    log = LineFile(check_target(args.log, "--log"), "--log") if args.log else None
    after_step = None
    if args.save:
        save_path = check_target(args.save, "--save")  # refused before the game starts

        def after_step(state: Any, lines: list[str]) -> None:
            save_game(save_path, spec.name, state, "--save", log=lines)

    try:
        play(spec.name, players, seed, options, roller=roller, out=out, log=log,
             bot_settings=settings, resume=resume, after_step=after_step)
    finally:
        if log is not None:
            log.close()
    if not args.quiet:
        line = rethrow_line(roller)
        if line:
            print(line)
    if log is not None and log.error is not None:
        # The game was played to the end (and saved, with --save); only its log is lost.
        print(f"tabletop play: error: {log.error}; the game was played to the end but "
              f"its log was not written (after {log.lines} lines)", file=sys.stderr)
        return 2
    if args.log:
        print(f"log written to {args.log}", file=sys.stderr)
    return 0


def rethrow_line(roller: DiceRoller) -> str | None:
    """What the tray roller re-threw over the game: dice that came to rest cocked, and
    dice whose throw never came to rest (the latter only when there were any)."""
    rethrows = getattr(roller, "rethrows", None)
    if rethrows is None:
        return None
    line = f"physics dice: {rethrows} cocked dice re-thrown"
    unsettled = getattr(roller, "unsettled", 0)
    if unsettled:
        line += f", {unsettled} re-thrown after a throw that never came to rest"
    return line


# The window: 'module:function(args, players, options)', imported only when it is wanted,
# so the rest of the command never loads Panda3D; it finds the game's own window module.
WINDOW = "simulator.render.app:launch"


def _launcher(target: str) -> Any:
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def load_save(path: str, spec: registry.GameSpec) -> ReplayedGame:
    """The game saved by `--save` in `path`, re-derived from its log and checked against
    its state (one line errors for a bad or doctored file)."""
    return resume_game(path, spec.name, "--load", make_roller)


