"""Argument types shared by the subcommands, so a value is checked the same way everywhere
and a bad one is argparse's usage line plus one error line, exit status 2."""

from __future__ import annotations

import argparse
from typing import Any


def seed(text: str) -> int:
    """A `--seed`: a whole number of 0 or more (numpy's generators refuse negative seeds, which
    gave a traceback from `throw`, `play` and `render`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number (got {text[:40]!r})") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {value})")
    return value


def add_game_options(p: argparse.ArgumentParser) -> None:
    """Every registered game's options as flags (`--board`, `--terrain`, ...), each once;
    a game rejects the ones it does not take when it resolves them."""
    from rules import registry

    seen: set[str] = set()
    for spec in registry.GAMES.values():
        for opt in spec.options:
            if opt.name in seen:
                continue
            seen.add(opt.name)
            if opt.kind is bool:
                p.add_argument(opt.flag, dest=f"opt_{opt.name}", action="store_true",
                               default=None, help=f"{spec.name}: {opt.help}")
            else:
                p.add_argument(opt.flag, dest=f"opt_{opt.name}", type=opt.kind, default=None,
                               help=f"{spec.name}: {opt.help}")


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The game options given on the command line (`add_game_options`)."""
    return {key[4:]: value for key, value in vars(args).items()
            if key.startswith("opt_") and value is not None}


# The drawing paths of `tabletop render`, `tabletop play` (window) and `tabletop replay --view`
# (simulator.render.core.offscreen.PATHS, repeated here: the parser must not load Panda3D).
SHADINGS = ("auto", "pbr", "gl", "software")


# What auto picks for a window (tabletop play, replay --view): render.core.stage.drawing_path.
WINDOW_AUTO = ("pbr on a GPU, gl on a software rasterizer such as llvmpipe (where pbr draws a "
               "few frames a second), software without OpenGL")


def add_shading(p: argparse.ArgumentParser, what: str, gl_note: str, auto: str) -> None:
    """`--shading`, the same names wherever the table is drawn; `what` is what is drawn,
    `gl_note` how the gl path relates to the others there, `auto` what auto picks there."""
    p.add_argument("--shading", default="auto", choices=SHADINGS,
                   help=f"how {what} is drawn. pbr: OpenGL with physically based shading "
                        f"(needs a display, e.g. Xvfb); gl: OpenGL with fixed-function "
                        f"shading{gl_note}; software: Panda3D's software renderer; auto: {auto}")


def volume(text: str) -> float:
    """A `--volume`: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1 (got {text[:40]!r})") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1 (got {value:g})")
    return value


def add_window_settings(p: argparse.ArgumentParser) -> None:
    """The window's remembered settings (simulator/render/core/settings.py): the file, and the
    flags that win over it for one run. `--shading` (add_shading, called before) is left
    unset so the file's shading is used when it is not given."""
    p.set_defaults(shading=None)
    p.add_argument("--settings", default=None, metavar="FILE",
                   help="the window's settings file (default $TABLETOP_SETTINGS, else "
                        "$XDG_CONFIG_HOME/tabletop/settings.json): size, shading, sound, "
                        "fast-forward; flags given win over it")
    p.add_argument("--volume", type=volume, default=None,
                   help="the dice's sound, 0 to 1 (default: the settings file's, 0.8)")
    p.add_argument("--mute", action=argparse.BooleanOptionalAction, default=None,
                   help="no sound (--no-mute: sound, whatever the settings file says)")
