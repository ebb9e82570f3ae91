"""Load on the table server (issue 19): one `tabletop serve` with many tables, each played
by simulated clients with bots on the client's side; prints tables and actions per second
and the latency from an action leaving its client to the step reaching the last client at
its table (median and p99).

    python -m benchmarks.bench_server --game dicewar --tables 40 --watchers 1

The work is `simulator.net.load.run_load` (tests run it small).
"""

from __future__ import annotations

import argparse

from rules import registry
from simulator.net.load import run_load


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="dicewar", choices=registry.names())
    p.add_argument("--tables", type=int, default=20, help="tables played at once")
    p.add_argument("--watchers", type=int, default=0, help="spectators per table")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    spec = registry.lookup(args.game)
    seats = max(2, spec.min_players)
    result = run_load(args.game, args.tables, seats, args.watchers, args.seed)
    for line in result.lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
