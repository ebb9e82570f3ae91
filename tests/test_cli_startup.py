"""Start-up cost of the `tabletop` command (issue 15, item 19): `tabletop --help` and
`tabletop games` took about 1 s, almost all of it SciPy imported through simulator.bench,
with PyBullet through the CLI's error handling. A command imports only what it uses."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "pybullet", "panda3d", "matplotlib")


# Runs the command's entry point, then lists sys.modules (Python's -X importtime cannot
# see PyBullet, imported while stderr is closed to keep its banner quiet).
RUN = """
import sys
from simulator.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print("\\nMODULES " + " ".join(sorted(sys.modules)))
sys.exit(status)
"""


def imported(*args: str) -> set[str]:
    """Every module `tabletop ARGS` has imported by the time it returns."""
    r = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    names = set(r.stdout.rsplit("MODULES ", 1)[1].split())
    assert "simulator.cli.main" in names
    return names


@pytest.mark.parametrize("args", [("games",), ("--help",), ("bench", "--help")])
def test_listing_commands_load_no_physics_statistics_or_3d(args: tuple[str, ...]) -> None:
    names = imported(*args)
    loaded = sorted(h for h in HEAVY if any(n == h or n.startswith(h + ".") for n in names))
    assert loaded == [], f"tabletop {' '.join(args)} imported {loaded}"


def test_a_command_that_throws_still_loads_the_physics() -> None:
    """The check above is not vacuous: the listing finds PyBullet where it is used."""
    assert "pybullet" in imported("throw", "--seed", "1", "--json")
