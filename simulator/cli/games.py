"""`tabletop games`: every registered game with its player counts, options and bots."""

from __future__ import annotations

import argparse

from rules import registry


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("games", help="list the games with their player counts")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = [("game", "title", "players", "options", "players kinds")]
    for spec in registry.GAMES.values():
        span = (str(spec.min_players) if spec.min_players == spec.max_players
                else f"{spec.min_players}-{spec.max_players}")
        options = " ".join(o.flag for o in spec.options) or "-"
        rows.append((spec.name, spec.title, span, options, ",".join([*spec.bots, "human"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0
