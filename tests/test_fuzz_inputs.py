"""Property-based fuzzing of every loader and command-line entry point (issue 15, item 21):
generated bad and odd inputs give exit 0 with a sane result or one error line with exit 2,
never a traceback, never a change to an input file. The properties live in
simulator/cli/fuzz.py; `python -m benchmarks.fuzz_inputs` searches longer and prints the
cases tried; here each runs a fixed, derandomised set of cases (about a minute in all)."""

from __future__ import annotations

import pytest

from simulator.cli.fuzz import CASES, properties, run

# Cases per property: enough to reach every generator branch; about a minute in all.
EXAMPLES = 200
PROPERTIES = properties()


@pytest.mark.parametrize("name", list(PROPERTIES))
def test_fuzzed_inputs_give_a_result_or_one_error_line(name: str) -> None:
    before = CASES[name]
    run(PROPERTIES[name], EXAMPLES, derandomize=True)
    # The cases really ran (Hypothesis stops early only when it has tried every case there
    # is: the 70 of cli-output-paths).
    assert CASES[name] - before >= min(EXAMPLES, 70)
