"""`tabletop serve`: the authoritative table server for network play.

    tabletop serve --port 8765 --games-dir games/

Hosts any number of tables of any game (`tabletop join` makes and joins them). With
`--games-dir` every table keeps its game log (`tabletop replay --verify` checks it) and its
autosave there, and a server started again on the same folder resumes every table where it
stood. It serves until interrupted (Ctrl-C, exit 130) or asked to stop with SIGTERM (it
closes cleanly, exit 0).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import sys
from pathlib import Path

from dice_models.outfiles import ensure_dir
from simulator.cli.main import UsageError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="host tables for network play")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every network)")
    p.add_argument("--port", type=_port, default=8765,
                   help="port to listen on (default 8765; 0 picks a free one, printed)")
    p.add_argument("--games-dir", default=None,
                   help="keep each table's log and autosave here, and resume the tables "
                        "found here (default: tables live in memory only)")
    p.add_argument("--quiet", action="store_true", help="log only warnings and errors")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from simulator.net.server import run_server  # websockets loads only here

    games_dir = ensure_dir(args.games_dir, "--games-dir") if args.games_dir else None
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, stream=sys.stderr,
                        format="tabletop serve: %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)

    def ready(port: int, tables: list[str]) -> None:
        where = f"; {len(tables)} table(s) resumed from {games_dir}" if games_dir else ""
        print(f"tabletop serve: listening on ws://{args.host}:{port}{where}", file=sys.stderr,
              flush=True)

    try:
        asyncio.run(run_server(args.host, args.port, Path(games_dir) if games_dir else None,
                               ready))
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise UsageError(f"--host {args.host} --port {args.port}: cannot listen: "
                             f"{exc.strerror}") from None
        raise
    return 0


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number (got {text[:40]!r})") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be from 0 to 65535 (got {value})")
    return value
