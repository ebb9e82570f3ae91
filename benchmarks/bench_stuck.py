"""Stuck dice (`simulator.bench.stuck`, which the tests use too): how often a throw fails
to end in a clean rest.

    python -m benchmarks.bench_stuck [--throws 10000] [--workers 1] [--only d6/slick,tray3]
"""

from simulator.bench.stuck import main

if __name__ == "__main__":
    raise SystemExit(main())
