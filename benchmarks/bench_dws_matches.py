"""Deep White Sea bot matches: planner against random and against greedy, seats and crews
alternating, and the crew-balance table (greedy on both sides, every pair of crews).

    python -m benchmarks.bench_dws_matches vs --opponent random --games 50 [--table kinematic]
    python -m benchmarks.bench_dws_matches balance --games 6 [--table kinematic] [--bot greedy]

Prints one line per game and the totals; `balance` prints each crew's win rate against
every other crew and overall (a draw counts half). Runs in `--jobs` processes.
"""

from __future__ import annotations

import argparse
import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from dice_models.crews import available_crews
from rules.core.runner import play


def one_game(job: tuple[list[str], list[str], int, str, dict[str, Any]]) -> tuple[Any, ...]:
    players, crews, seed, table, settings = job
    if table == "physics":
        import simulator.physics_table  # noqa: F401
    t0 = time.perf_counter()
    rec = play("deep-white-sea", players, seed,
               {"crews": ",".join(crews), "table": table, "max_turns": 200},
               bot_settings=settings)
    steps = sum(1 for x in rec.lines if x.get("type") == "action")
    return players, crews, seed, rec.returns, steps, time.perf_counter() - t0


def versus(args: argparse.Namespace) -> None:
    crews = available_crews()
    jobs = []
    for g in range(args.games):
        pair = [crews[g % len(crews)], crews[(g // len(crews) + g + 1) % len(crews)]]
        players = ["planner", args.opponent]
        if g % 2:  # alternate seats (and with them who may go first)
            players, pair = players[::-1], pair[::-1]
        jobs.append((players, pair, 1000 + g, args.table, {"planner": {"throws": args.throws}}))
    wins = 0.0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for players, pair, seed, returns, steps, secs in pool.map(one_game, jobs):
            seat = players.index("planner")
            wins += returns[seat]
            print(f"seed {seed}: {players[0]}({pair[0]}) vs {players[1]}({pair[1]}): "
                  f"returns {returns}, {steps} actions, {secs:.1f} s", flush=True)
    n = len(jobs)
    print(f"planner vs {args.opponent} on the {args.table} table: planner won {wins:g} of {n} "
          f"({100 * wins / n:.0f}%), {time.perf_counter() - t0:.0f} s")


def balance(args: argparse.Namespace) -> None:
    crews = available_crews()
    jobs = []
    seed = 5000
    for a, b in itertools.combinations(crews, 2):
        for g in range(args.games):
            pair = [a, b] if g % 2 == 0 else [b, a]
            jobs.append(([args.bot, args.bot], pair, seed, args.table, {}))
            seed += 1
    score: dict[tuple[str, str], float] = {}
    games: dict[tuple[str, str], int] = {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for _players, pair, _seed, returns, _steps, _secs in pool.map(one_game, jobs):
            for i in range(2):
                key = (pair[i], pair[1 - i])
                score[key] = score.get(key, 0.0) + returns[i]
                games[key] = games.get(key, 0) + 1
    print(f"crew balance, {args.bot} vs {args.bot} on the {args.table} table, {args.games} games per "
          f"pair (seats alternate), {time.perf_counter() - t0:.0f} s")
    print("win rate of row crew against column crew:")
    print(f"{'':10s}" + "".join(f"{c:>10s}" for c in crews) + f"{'overall':>10s}")
    for a in crews:
        cells = []
        tot_w = tot_n = 0.0
        for b in crews:
            if a == b:
                cells.append(f"{'-':>10s}")
                continue
            w, n = score.get((a, b), 0.0), games.get((a, b), 0)
            tot_w += w
            tot_n += n
            cells.append(f"{100 * w / n:9.0f}%" if n else f"{'':>10s}")
        print(f"{a:10s}" + "".join(cells) + f"{100 * tot_w / max(tot_n, 1):9.0f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    v = sub.add_parser("vs")
    v.add_argument("--opponent", default="random", choices=("random", "greedy"))
    v.add_argument("--games", type=int, default=50)
    v.add_argument("--throws", type=int, default=200)
    b = sub.add_parser("balance")
    b.add_argument("--games", type=int, default=6)
    b.add_argument("--bot", default="greedy", choices=("greedy", "planner", "random"))
    for p in (v, b):
        p.add_argument("--table", default="kinematic", choices=("kinematic", "physics"))
        p.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    versus(args) if args.what == "vs" else balance(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
