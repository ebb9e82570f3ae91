"""The `tabletop` command: one entry point, one module per subcommand.

Each subcommand module has `add_parser(subparsers)` (which sets `func`) and its run
function returns an exit status. User errors (bad files, bad values) become one line on
stderr and exit status 2; a physics failure (a simulation that never came to rest, a die
that tunnelled, a value that blew up: `PhysicsError`, or the `TableError` a game's table
raises for one) one line and exit status 3; anything else is our bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys

from dice_models import DataError
from dice_models.errors import error_line
from rules.core import RulesError, TableError
from simulator.render import WindowError

# Subcommand modules under simulator.cli, in the order `tabletop --help` lists them.
SUBCOMMANDS = [
    "demo",
    "throw",
    "play",
    "replay",
    "serve",
    "join",
    "games",
    "dice",
    "fairness",
    "bench",
    "render",
]


class UsageError(ValueError):
    """A bad command-line value that argparse cannot catch by itself."""


USER_ERRORS: tuple[type[BaseException], ...] = (DataError, RulesError, UsageError, WindowError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Physics-backed tabletop simulator for dice war games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"simulator.cli.{name}")
        module.add_parser(sub)
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once a process (about 15 ms: argparse formats every option as it
    is added), for a program that calls `main` many times (the tests, the fuzzer).
    Parsing leaves it as it was. It holds each subcommand's run function as it was at the
    first call: a test that replaces one calls `_parser.cache_clear()` too."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for name, value in vars(args).items():  # a list default is the parser's own object
        if isinstance(value, list):
            setattr(args, name, list(value))
    try:
        status = args.func(args)
        sys.stdout.flush()  # inside the try: a closed pipe surfaces here, not at exit
    except USER_ERRORS as exc:
        # a file name or a key in the message may hold a line break, a value any length
        print(f"tabletop {args.command}: error: {error_line(str(exc))}", file=sys.stderr)
        return 2
    except _physics_errors() as exc:
        # The physics could not bring a throw to rest (never settled, tunnelled, blew up):
        # not the user's fault and not a rules bug; say what happened in one line.
        cause = exc.__cause__ if isinstance(exc.__cause__, _physics_errors()) else exc
        print(f"tabletop {args.command}: physics error: {_one_line(cause)}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"tabletop {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`tabletop dice list | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return int(status or 0)


def _physics_errors() -> tuple[type[BaseException], ...]:
    """TableError, and PhysicsError if the physics was imported (PyBullet with it): a
    command that never loaded the physics cannot have raised it, and `tabletop games` or
    `--help` should not load PyBullet just to name the class (issue 15, item 19)."""
    world = sys.modules.get("simulator.physics.world")
    return (TableError,) if world is None else (TableError, world.PhysicsError)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":
    # Run through the imported module, not this __main__ copy, so the error classes that
    # subcommands import from simulator.cli.main are the ones caught above.
    from simulator.cli.main import main as _main

    sys.exit(_main())
