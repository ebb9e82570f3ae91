"""Deep White Sea planner decision speed: candidates per second of one planner decision,
against bare PyBullet throws per second measured in the same run (the reference loop of
`benchmarks/bare_pybullet.py`, one paper d8 onto the empty felt table).

Positions: mid-game states reached by random play on the physics table (one per seed),
at a decision where the planner may throw. Prints, per table kind, the candidates
considered (and how many were throws), the seconds per decision and candidates per second.

    python -m benchmarks.bench_dws_planner_speed [--positions 6] [--throws 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rules.deep_white_sea as dws
import simulator.physics_table  # noqa: F401
from benchmarks.bare_pybullet import BareLoop
from dice_models import load_die
from rules.deep_white_sea.bots import PlannerBot, RandomBot
from simulator.physics import PhysicsSettings, TableSpec, die_shape
from simulator.physics.throws import random_throw


def positions(n: int, table: str) -> list[dws.DWSState]:
    out = []
    seed = 0
    while len(out) < n:
        seed += 1
        s = dws.new_game(2, {"crews": "white,blue", "table": table}, np.random.default_rng(seed))
        bots = [RandomBot(np.random.default_rng([seed, i])) for i in range(2)]
        for _ in range(14):
            if s.is_terminal():
                break
            s.apply_action(bots[s.current_player()].step(s))
        while not s.is_terminal() and s.decision != "main":
            s.apply_action(bots[s.current_player()].step(s))
        if not s.is_terminal() and any(a[0] == "throw" for a in s.legal_actions()):
            out.append(s)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--throws", type=int, default=200)
    ap.add_argument("--recheck", type=int, default=10)
    args = ap.parse_args()
    bare = BareLoop(die_shape(load_die("paper-d8")), TableSpec(), PhysicsSettings())
    bare_throws = [random_throw(TableSpec(), 1, np.random.default_rng([5, i]))
                   for i in range(60)]
    print(f"planner: {args.throws} candidate throws per decision plus every discrete "
          f"action; physics: best {args.recheck} re-simulated on the physics table")
    print(f"{'table':10s} {'decision':>8s} {'candidates':>10s} {'throws':>6s} "
          f"{'seconds':>8s} {'cand/s':>8s} {'bare throws/s':>13s}")
    for table in ("kinematic", "physics"):
        rows = []
        for i, s in enumerate(positions(args.positions, table)):
            t0 = time.perf_counter()
            for th in bare_throws[:20]:
                bare.throw(th)
            bare_rate = 20 / (time.perf_counter() - t0)
            bot = PlannerBot(np.random.default_rng(i), throws=args.throws,
                             recheck=args.recheck)
            bot.step(s)
            st = bot.last_stats
            rate = st["candidates"] / st["seconds"]
            rows.append((st["seconds"], rate, bare_rate))
            print(f"{table:10s} {i:8d} {int(st['candidates']):10d} {int(st['throws']):6d} "
                  f"{st['seconds']:8.3f} {rate:8.1f} {bare_rate:13.1f}")
        secs = [r[0] for r in rows]
        print(f"{table:10s} mean {np.mean(secs):.3f} s per decision, max {max(secs):.3f} s; "
              f"mean {np.mean([r[1] for r in rows]):.1f} candidates/s against "
              f"{np.mean([r[2] for r in rows]):.1f} bare throws/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
