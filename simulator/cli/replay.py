"""`tabletop replay LOG`: tell a logged game again, or `--verify` it by re-running it
through the engine (exit 0 only if every step is identical, 1 at the first mismatch)."""

from __future__ import annotations

import argparse

from rules.core.runner import read_log, verify_log


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("replay", help="tell or verify a logged game")
    p.add_argument("log", help="a JSON-lines game log written by `tabletop play --log`")
    p.add_argument("--verify", action="store_true",
                   help="re-run the log through the engine and report the first mismatch")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.verify:
        result = verify_log(args.log)
        if result.ok:
            print(f"{args.log}: verified, {result.message}")
            return 0
        print(f"{args.log}: MISMATCH: {result.message}")
        return 1
    lines = read_log(args.log)
    header = lines[0]
    print(f"{header.get('game')}: players {', '.join(map(str, header.get('players', [])))}; "
          f"seed {header.get('seed')}; dice: {header.get('roller')}")
    names = header.get("names") or [f"P{i + 1}" for i in range(len(header.get("players", [])))]

    def name(seat: object) -> str:
        return str(names[seat]) if isinstance(seat, int) and 0 <= seat < len(names) \
            else f"player {seat}"

    for line in lines[1:]:
        if line.get("type") == "action":
            print(f"{name(line.get('player'))}: {line.get('text')}")
        elif line.get("type") == "end":
            winners = ", ".join(name(w) for w in line.get("winners", []))
            print(f"End after {line.get('steps')} steps; winner(s): {winners}")
        for event in line.get("events", []):
            print(f"  {event}")
    return 0
