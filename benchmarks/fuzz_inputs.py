"""Property-based fuzzing of every loader and command (`simulator.cli.fuzz`, which
tests/test_fuzz_inputs.py runs with fewer cases): a longer search that prints the cases tried.

    python -m benchmarks.fuzz_inputs --examples 500 [--only die,throw-values]
"""

import sys

from simulator.cli.fuzz import search

if __name__ == "__main__":
    sys.exit(search())
