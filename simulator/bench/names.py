"""The names `tabletop bench` offers on its command line, the check groups and the suites,
kept apart from the suites themselves (simulator.bench.suite) so that building the command
line imports neither PyBullet nor SciPy: `tabletop --help` and `tabletop games` load only
what they use (issue 15, item 19)."""

GROUPS = ("golden", "drift", "convergence", "sanity", "speed")
SUITE_NAMES = ("smoke", "full")  # the keys of simulator.bench.suite.SUITES, in that order
