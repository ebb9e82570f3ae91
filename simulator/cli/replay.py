"""`tabletop replay LOG`: tell a logged game again, or `--verify` it by re-running it
through the engine: exit 0 only if every step is identical and every outcome in it was
re-derived (bots re-run, seeded dice re-rolled, physics dice re-simulated in the tray, the
table's throws re-simulated); 1 at the first mismatch, or when nothing differs but some
outcomes could only be taken as given (dice chosen by OpenSpiel); 2 for a log that cannot be
read or names a roller, bot or bot setting this version does not know."""

from __future__ import annotations

import argparse
from typing import Any

from dice_models.errors import shown
from rules.core import RulesError
from rules.core.runner import read_log, verify_log
from simulator.cli.args import WINDOW_AUTO, add_shading, add_window_settings
from simulator.plugins import load_plugins, make_roller


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("replay", help="tell or verify a logged game")
    p.add_argument("log", help="a JSON-lines game log written by `tabletop play --log`")
    p.add_argument("--verify", action="store_true",
                   help="re-run the log through the engine and report the first mismatch")
    p.add_argument("--view", action="store_true",
                   help="play the log in the 3D window (any game with a table): Space pauses, N steps, "
                        "+/- change the speed")
    p.add_argument("--speed", type=float, default=1.0, help="--view: playback speed (1 = real)")
    add_shading(p, "--view's window", " (what auto picks on a software rasterizer such as "
                "Mesa's llvmpipe under Xvfb)", WINDOW_AUTO)
    add_window_settings(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    load_plugins()  # e.g. the physics table a log was played on
    if args.view:
        return _view(args)
    if args.verify:
        result = verify_log(args.log, make_roller)  # physics dice re-simulated
        if result.ok:
            print(f"{args.log}: verified, {result.message}")
            return 0
        if result.consistent:  # nothing differs, but not every outcome was re-derived
            print(f"{args.log}: NOT VERIFIED: {result.message}")
            return 1
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

    for number, line in enumerate(lines[1:], start=2):
        if line.get("type") == "action":
            print(f"{name(line.get('player'))}: {line.get('text')}")
        elif line.get("type") == "end":
            winners = ", ".join(name(w) for w in _listed(args.log, number, line, "winners"))
            print(f"End after {line.get('steps')} steps; winner(s): {winners}")
        for event in _listed(args.log, number, line, "events"):
            print(f"  {event}")
    return 0


def _listed(path: str, number: int, line: dict[str, Any], key: str) -> list[Any]:
    """A list field of a log line (absent: empty); anything else is a damaged log, one line
    (a null `events` was a TypeError traceback)."""
    value = line.get(key, [])
    if not isinstance(value, list):
        raise RulesError(f"{path}: line {number}: {key}: must be a list (got {shown(value)})")
    return value


def _view(args: argparse.Namespace) -> int:
    from simulator.cli.main import UsageError

    if not 0.05 <= args.speed <= 16:
        raise UsageError(f"--speed must be between 0.05 and 16 (got {args.speed})")
    # Panda3D loads only here.
    from simulator.render.app import display_problem, replay_window, shading_said, window_prefs

    problem = display_problem()
    if problem is not None:
        raise UsageError(shading_said(args.shading, f"{problem}: leave out --view to tell the "
                                                    "game in the terminal"))
    prefs = window_prefs(args)
    return replay_window(args.log, speed=args.speed, shading=prefs.settings.shading, prefs=prefs)
