"""`tabletop demo`: the main job in one command, for a first look.

Plays a whole game of Deep White Sea between two bots on the physics table with the
turn-by-turn account, re-simulates its log to check every outcome is identical, and draws
a picture of the table after a few turns (same bots and seed) with the offscreen renderer:

    tabletop demo --out demo/ [--seed 1] [--players planner,greedy]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dice_models.outfiles import ensure_dir
from simulator.cli.args import seed


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="play a bot game of Deep White Sea, verify it, draw the table")
    p.add_argument("--out", type=Path, default=Path("demo"),
                   help="folder for game.jsonl and table.png (default ./demo)")
    p.add_argument("--seed", type=seed, default=1, help="seed for the bots and throws")
    p.add_argument("--players", default="planner,greedy",
                   help="two bots: random, greedy or planner (default planner,greedy)")
    p.add_argument("--turns", type=int, default=5, help="turns played before the picture")
    p.add_argument("--no-picture", action="store_true", help="skip the rendered picture")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from simulator.cli.main import main

    ensure_dir(args.out, "--out")
    log = args.out / "game.jsonl"
    print(f"== 1. A whole game of Deep White Sea on the physics table: {args.players} "
          f"(seed {args.seed})", flush=True)
    status = main(["play", "deep-white-sea", "--headless", "--table", "physics", "--players",
                   args.players, "--seed", str(args.seed), "--log", str(log)])
    if status:
        return status
    print(f"\n== 2. Re-simulating {log} from scratch: every outcome must be identical", flush=True)
    status = main(["replay", str(log), "--verify"])
    if status or args.no_picture:
        return status
    picture = args.out / "table.png"
    print(f"\n== 3. The table after {args.turns} turns with the same bots and seed, drawn "
          "offscreen", flush=True)
    status = main(["render", "--seed", str(args.seed), "--turns", str(args.turns), "--players",
                   args.players, "--out", str(picture)])
    if status == 0:
        print(f"wrote {picture} and {log}")
    return status
