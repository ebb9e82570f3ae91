"""`tabletop render`: play K turns headless with bots and write a picture of the table.

    tabletop render --game deep-white-sea --seed 3 --turns 8 --out table.png --size 1280x720
    tabletop render --game diced --players greedy,random,greedy,random --turns 4 --out d.png

Every game with a window module (`simulator.render.window_games()`) can be drawn: its
module makes the session, lets the bots play and draws the picture.

Drawn into an offscreen buffer with physically based shading where OpenGL answers (a
desktop, or Xvfb with Mesa), else by Panda3D's software renderer (no display, no GPU); the
command says which. The default view, `framed`, is the player's picture
(`simulator.render.core.legible`): what is in play framed, every text a player needs at a cap
height of at least 14 px at 1280x720, the dice read close up one by one; `--json` prints each
die's size in px. The other views but `closeup` carry a close-up inset of the last die thrown.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

from dice_models.outfiles import write_with
from simulator.cli.args import add_game_options, add_shading, game_options, seed
from simulator.cli.main import UsageError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("render", help="play some turns headless and write a picture")
    p.add_argument("--game", default="deep-white-sea",
                   help="game to play (any game with a table: see `tabletop games`)")
    p.add_argument("--seed", type=seed, default=0, help="seed for the bots and who goes first")
    p.add_argument("--turns", type=int, default=6, help="turns to play before the picture")
    p.add_argument("--out", required=True, help="PNG file to write")
    p.add_argument("--size", default="1280x720", help="picture size WIDTHxHEIGHT in pixels")
    p.add_argument("--players", default=None,
                   help="bots, comma-separated (the game's bots; default: random in each of "
                        "the fewest seats)")
    p.add_argument("--view", default="framed",
                   choices=("framed", "overview", "top", "thrower", "closeup"),
                   help="camera: framed (the player's picture: what is in play framed, its "
                        "texts on cards and a side panel, the dice close up), overview "
                        "(oblique, the whole table), top, the next thrower's view, or close on "
                        "the die thrown last")
    p.add_argument("--json", action="store_true",
                   help="print what the framed picture drew as JSON on stdout: each die's "
                        "size in px in the main view and in its close-up, the cards, the camera")
    add_shading(p, "the picture", ", as a window on a software rasterizer",
                "pbr wherever OpenGL and simplepbr can be had (a picture is drawn once: speed "
                "does not decide), else software")
    p.add_argument("--no-inset", action="store_true",
                   help="leave out the close-up of the last die thrown (views but framed)")
    p.add_argument("--no-caption", action="store_true",
                   help="leave out the score line (views but framed)")
    add_game_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rules import registry
    from simulator.render import window_games

    games = window_games()
    if args.game not in games:
        import difflib

        close = difflib.get_close_matches(args.game, games, n=1)
        hint = f"; did you mean {close[0]}?" if close else f"; renderable: {', '.join(games)}"
        raise UsageError(f"--game {args.game!r} has no table to draw{hint}")
    spec = registry.lookup(args.game)
    size = parse_size(args.size)
    if args.turns < 0:
        raise UsageError(f"--turns must be 0 or more (got {args.turns})")
    bots = tuple(spec.bots)
    players = ([p.strip() for p in args.players.split(",") if p.strip()] if args.players
               else ["random"] * spec.min_players)
    if not spec.min_players <= len(players) <= spec.max_players \
            or any(p not in bots for p in players):
        seats = (f"{spec.min_players}" if spec.min_players == spec.max_players
                 else f"{spec.min_players} to {spec.max_players}")
        raise UsageError(f"--players takes {seats} of {', '.join(bots)} (got {args.players!r})")
    if not args.out.lower().endswith(".png"):
        raise UsageError(f"--out {args.out!r}: the picture is a PNG file (name it .png)")
    # Panda3D loads here, not when `tabletop` builds its parser.
    from PIL import Image

    from simulator.render.app import window_module
    from simulator.render.core.offscreen import RenderPathError

    module = window_module(spec.name)
    assert module is not None
    options = game_options(args)  # the game says which it takes (--crews, --board, ...)
    session = module.new_session(players, args.seed, options)
    t0 = time.perf_counter()
    actions = module.play_turns(session, args.turns)
    t_play = time.perf_counter() - t0
    try:
        picture = module.picture(session, size, args.shading)
    except RenderPathError as e:
        raise UsageError(f"--shading {args.shading}: {e}") from None
    print(f"drawn by: {picture.renderer.path.detail}", file=sys.stderr)
    t1 = time.perf_counter()
    pixels = picture.render(args.view, caption=not args.no_caption, inset=not args.no_inset)
    t_draw = time.perf_counter() - t1
    write_with(args.out, Image.fromarray(pixels).save, "--out")
    if args.json:
        import json

        report = getattr(picture, "report", None)
        print(json.dumps({"out": args.out, "size": list(size), "view": args.view,
                          **(report.as_json() if report is not None and args.view == "framed"
                             else {})}, indent=1))
    summary = getattr(module, "summary", None)
    said = summary(session) if summary is not None else "; ".join(module.caption(session))
    print(f"{args.out}: {size[0]}x{size[1]} px, {actions} steps, {said}; "
          f"play {t_play:.2f} s, draw {t_draw * 1000:.0f} ms", file=sys.stderr)
    picture.close()
    return 0


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise UsageError(f"--size must be WIDTHxHEIGHT in pixels, e.g. 1280x720 (got {text!r})")
    w, h = int(m.group(1)), int(m.group(2))
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise UsageError(f"--size {text!r}: each side must be 16..8192 px")
    return w, h
