"""Property-based fuzzing of every loader and every command-line entry point (issue 15, item 21).

Hypothesis generates bad and odd inputs: random bytes, truncated and byte-flipped files,
shipped files with a field replaced, removed or added (wrong types, huge, negative, NaN and
infinite numbers, numeric strings, typos), alias bombs, deep nesting, files that are not
UTF-8, missing files, directories and devices given as files, and odd option values. Every
case must end in one of two ways:

- exit status 0 (a loader returns) with a sane result, or
- one error line and exit status 2 (a loader raises one of the CLI's user errors, whose
  text is one line); argparse's own errors are its usage lines and one error line; the
  one other documented answer is `replay --verify`'s exit 1 with its MISMATCH line;

never a traceback (any other exception fails the case, and Hypothesis shrinks it to a
smallest input), never a case that runs past `CASE_SECONDS`, and never a change to an input
file: inputs sit in a directory made read-only and are hashed before and after (the tests
run as root on CI, where permissions alone would not stop a write).

`tests/test_fuzz_inputs.py` runs every property with a small number of examples (about a
minute in all); run it from a checkout for a longer search, which prints the cases tried:

    python -m benchmarks.fuzz_inputs --examples 500 [--only die,throw-values]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import io
import json
import math
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import registry
from simulator.cli.main import USER_ERRORS, main

# The checkout: the fuzz suite mutates the shipped example files, some of which (experiments,
# bench baselines) live in benchmarks/, beside the package rather than in it.
ROOT = Path(__file__).resolve().parents[2]
CASE_SECONDS = 30.0  # one case (one loader call or one command) may take this long
CASES: Counter[str] = Counter()  # cases tried, by property

# -- generated values --------------------------------------------------------------------

ODD_NUMBERS = st.one_of(
    st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-300, 1e300, 10 ** 30, -(10 ** 30), float("nan"), float("inf")]),
)
ODD_SCALARS = st.one_of(
    st.none(), st.booleans(), ODD_NUMBERS, st.text(max_size=12),
    st.sampled_from(["3e-3", "1e999", "-0", ".nan", "~", "yes", "0x10", "1_000", "", " ",
                     "d6", "paper-d8", "felt", "../../etc/passwd", "x" * 300]),
)
ODD_VALUES = st.one_of(
    ODD_SCALARS,
    st.lists(ODD_SCALARS, max_size=4),
    st.dictionaries(st.text(max_size=6), ODD_SCALARS, max_size=3),
)


def _alias_bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


# Whole files that have broken YAML and JSON readers (and the validators behind them).
SPECIAL_FILES: list[bytes] = [
    b"", b"\n", b"---\n", b"---\n...\n---\n", b"~\n", b"[]\n", b"{}\n", b"0\n", b"null\n",
    _alias_bomb().encode(), b"a: &a [1, *a]\n", b"[" * 5000 + b"]" * 5000, b"{" * 3000,
    b"a:\n" + b"".join(b" " * i + b"- \n" for i in range(1, 600)),
    "name: caf\u00e9\n".encode("latin-1"), b"\xef\xbb\xbfname: x\n", b"\xff\xfe\x00n\x00",
    b"name: x\r\nmass: 1\r\n", b"\tname: x\n", b"\x00\x01\x02", b"mass: " + b"9" * 5000 + b"\n",
    b"!!python/object:os.system {}\n", b"? [1]\n: 2\n", b'{"a": ' * 2000,
    b"1" * 5000, b'"' + b"\\u0000" * 10 + b'"', b"NaN", b"[1e999, -1e999]",
]


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a nested document, as the keys/indices leading to it."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """`base` (a parsed shipped file) with one to three parts replaced, removed or added."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        node = _get(data, path)
        action = draw(st.sampled_from(["replace", "remove", "add", "number", "typo"]))
        if not path:
            if action == "replace":
                data = draw(ODD_VALUES)
            continue
        parent, key = _get(data, path[:-1]), path[-1]
        if action == "replace":
            parent[key] = draw(ODD_VALUES)
        elif action == "remove":
            del parent[key]
        elif action == "add" and isinstance(node, dict):
            node[draw(st.text(max_size=8))] = draw(ODD_VALUES)
        elif action == "add" and isinstance(node, list):
            again = bool(node) and draw(st.booleans())
            node.append(copy.deepcopy(node[0]) if again else draw(ODD_VALUES))
        elif action == "number" and isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[key] = draw(st.sampled_from([0, -node, _scaled(node, 1e6), _scaled(node, 1e-6),
                                                str(node),
                                                float("nan"), float("inf"), -float("inf"),
                                                10 ** 400, True]))
        elif action == "typo" and isinstance(parent, dict) and isinstance(key, str) and key:
            i = draw(st.integers(0, len(key) - 1))
            parent[key[:i] + key[i + 1:] + key[i]] = parent.pop(key)
    return data


def _scaled(number: float, factor: float) -> float:
    """`number * factor`, or `number` itself when that is past a float (a 400-digit int)."""
    try:
        return number * factor
    except OverflowError:
        return number


def _dump_yaml(data: Any) -> bytes:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")


def _dump_json(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")


def _dump_lines(data: Any) -> bytes:
    """A JSON-lines log: a list of lines (anything else as one line)."""
    lines = data if isinstance(data, list) else [data]
    return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")


@st.composite
def _damaged(draw: st.DrawFn, text: bytes) -> bytes:
    """`text` truncated, or with a few bytes changed."""
    if draw(st.booleans()):
        return text[:draw(st.integers(0, len(text)))]
    data = bytearray(text)
    for _ in range(draw(st.integers(1, 4))):
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


def file_contents(base: Any, dump: Callable[[Any], bytes]) -> st.SearchStrategy[bytes]:
    """Contents for a file whose good form is `base`: damaged, mutated or wholly odd."""
    good = dump(base)
    return st.one_of(
        mutated(base).map(dump),
        _damaged(good),
        st.binary(max_size=300),
        st.sampled_from(SPECIAL_FILES),
        ODD_VALUES.map(dump),
    )


# -- what a case must do -------------------------------------------------------------------


class CaseTimeout(Exception):
    """A case ran past CASE_SECONDS: a hang or a runaway on bad input is a finding too."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(_signum: int, _frame: Any) -> None:
        raise CaseTimeout(f"the case ran past {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class CommandResult:
    status: int
    out: str
    err: str


def run_cli(argv: list[str]) -> CommandResult:
    """`tabletop ARGV` in this process; an exception main() lets through fails the case
    (it is what the user would see as a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            _time_limit(CASE_SECONDS):
        try:
            status = main(argv)
        except SystemExit as stop:  # argparse
            status = stop.code if isinstance(stop.code, int) else 2
    return CommandResult(int(status), out.getvalue(), err.getvalue())


def check_outcome(argv: list[str], result: CommandResult) -> None:
    """Exit 0, or exit 2 with one error line (argparse: usage lines, then one error line)."""
    where = f"tabletop {' '.join(a[:80] for a in argv)}"
    assert "Traceback" not in result.err, f"{where}: traceback\n{result.err}"
    if argv[0] == "replay" and "--verify" in argv and result.status == 1:
        # The one documented third answer: the log was read but does not verify.
        assert ": MISMATCH: " in result.out, f"{where}: exit 1 without a mismatch line"
        return
    assert result.status in (0, 2), f"{where}: exit {result.status}\n{result.err[-2000:]}"
    if result.status == 2:
        lines = result.err.strip().splitlines()
        assert lines, f"{where}: exit 2 without an error line"
        if lines[0].startswith("usage:"):
            lines = lines[-1:]
        assert len(lines) == 1, f"{where}: {len(lines)} error lines\n{result.err[:2000]}"
        assert lines[0].startswith("tabletop") and "error:" in lines[0], f"{where}: {lines[0]}"
        assert len(lines[0]) < 1500, f"{where}: a {len(lines[0])}-character error line"


def check_loader(load: Callable[[Path], Any], path: Path) -> Any:
    """`load(path)` returns, or raises a user error of one short line; anything else fails."""
    with _time_limit(CASE_SECONDS):
        try:
            return load(path)
        except USER_ERRORS as exc:
            text = str(exc)
            assert "\n" not in text, f"a user error of several lines: {text[:2000]}"
            assert len(text) < 1500, f"a {len(text)}-character user error: {text[:300]}..."
            return None


class InputDir:
    """A directory of input files, read-only while a case runs; every file in it must be there
    unchanged after (a new file is allowed: an output the case asked to be written there)."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="fuzz-in-"))
        self.out = Path(tempfile.mkdtemp(prefix="fuzz-out-"))

    def write(self, name: str, data: bytes) -> Path:
        p = self.path / name
        p.write_bytes(data)
        return p

    def _state(self) -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
                for p in sorted(self.path.iterdir())}

    @contextlib.contextmanager
    def frozen(self, allowed: set[str] | None = None) -> Iterator[None]:
        for p in self.path.iterdir():
            if p.is_file():
                p.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        self.path.chmod(stat.S_IRUSR | stat.S_IXUSR)
        before = self._state()
        try:
            yield
        finally:
            self.path.chmod(stat.S_IRWXU)
            after = self._state()
            changed = {name: (digest, after.get(name)) for name, digest in before.items()
                       if after.get(name) != digest and name not in (allowed or set())}
            assert not changed, f"input files changed or removed: {changed}"

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.rmtree(self.out, ignore_errors=True)


@contextlib.contextmanager
def inputs() -> Iterator[InputDir]:
    d = InputDir()
    try:
        yield d
    finally:
        d.close()


# -- the good forms of every input ---------------------------------------------------------


def _yaml_file(rel: str) -> Any:
    return yaml.safe_load((ROOT / rel).read_text(encoding="utf-8"))


TABLE = {"shape": "rect", "width": 1.2, "depth": 0.9, "height": 0.75, "surface": "felt",
         "obstacles": [{"name": "crate", "kind": "box", "position": [0.3, 0.2],
                        "size": [0.1, 0.1, 0.05], "yaw_deg": 10.0},
                       {"name": "mug", "kind": "cylinder", "position": [-0.3, 0.2],
                        "radius": 0.04, "height": 0.1}]}
SCENE = {"dice": [{"name": "a", "die": "paper-d8", "face": 3, "yaw_deg": 30.0, "xy": [0.0, 0.1]},
                  {"name": "b", "die": "d6", "face": 2, "yaw_deg": 0.0, "xy": [0.1, 0.1]}]}


@dataclass(frozen=True)
class Kind:
    """An input file kind: its good form, how it is written, its file name."""

    name: str
    base: Callable[[], Any]
    dump: Callable[[Any], bytes]
    filename: str


def _played(option: str) -> Any:
    """A save (`--save`) or a log (`--log`) of a short game, made once."""
    cached = _PLAYED.get(option)
    if cached is None:
        folder = Path(tempfile.mkdtemp(prefix="fuzz-base-"))
        target = folder / ("game.json" if option == "--save" else "game.jsonl")
        result = run_cli(["play", "diced", "--headless", "--quiet", "--seed", "3",
                          "--players", "random,random,random", option, str(target)])
        assert result.status == 0, result.err
        text = target.read_text(encoding="utf-8")
        cached = (json.loads(text) if option == "--save"
                  else [json.loads(line) for line in text.splitlines() if line.strip()])
        _PLAYED[option] = cached
        shutil.rmtree(folder, ignore_errors=True)
    return copy.deepcopy(cached)


_PLAYED: dict[str, Any] = {}

KINDS = {k.name: k for k in [
    Kind("die", lambda: _yaml_file("dice_models/dice/paper-d8.yaml"), _dump_yaml, "die.yaml"),
    Kind("table", lambda: TABLE, _dump_yaml, "table.yaml"),
    Kind("experiment", lambda: _yaml_file("benchmarks/experiments/fair-d6.yaml"), _dump_yaml,
         "experiment.yaml"),
    Kind("crew", lambda: _yaml_file("dice_models/crews/blue.yaml"), _dump_yaml, "crew.yaml"),
    Kind("map", lambda: _yaml_file("rules/dday/maps/greyrock-cove.yaml"), _dump_yaml, "map.yaml"),
    Kind("tribe", lambda: _yaml_file("rules/dicewar/tribes/emberfen.yaml"), _dump_yaml,
         "tribe.yaml"),
    Kind("board", lambda: _yaml_file("rules/diceland_hex/boards/compact.yaml"), _dump_yaml,
         "board.yaml"),
    Kind("dataset", lambda: _yaml_file("dice_models/datasets/budden_square_cuboids.yaml"),
         _dump_yaml, "dataset.yaml"),
    Kind("scene", lambda: SCENE, _dump_json, "scene.json"),
    Kind("save", lambda: _played("--save"), _dump_json, "save.json"),
    Kind("log", lambda: _played("--log"), _dump_lines, "game.jsonl"),
    Kind("baseline", lambda: json.loads((ROOT / "benchmarks/baselines/smoke.json").read_text()),
         _dump_json, "baseline.json"),
]}


def contents(kind: str) -> st.SearchStrategy[bytes]:
    k = KINDS[kind]
    return st.deferred(lambda: file_contents(k.base(), k.dump))


# -- the loaders, called directly ------------------------------------------------------------


def _loaders() -> dict[str, Callable[[Path], Any]]:
    from dice_models import load_die
    from dice_models.crews import load_crew_file
    from rules.core.runner import read_log, verify_log
    from rules.core.saves import load_game
    from rules.dday.battlemap import load_map
    from rules.diceland_hex.board import load_board
    from rules.dicewar.tribe import load_tribe
    from simulator.bench.baseline import load_baseline
    from simulator.experiments.calibrate import load_dataset
    from simulator.experiments.config import load_experiment
    from simulator.physics.settings import load_table

    def log(path: Path) -> Any:
        read_log(path)
        return verify_log(path)

    return {
        "die": load_die, "table": load_table, "experiment": load_experiment,
        "crew": load_crew_file, "map": lambda p: load_map(str(p)),
        "tribe": lambda p: load_tribe(str(p)), "board": lambda p: load_board(str(p)),
        "dataset": load_dataset, "save": load_game, "log": log,
        "baseline": lambda p: load_baseline(p, "smoke", ["golden"]),
    }


def _check_loaded(kind: str, value: Any) -> None:
    """The few facts a loaded value must hold whatever the file said."""
    if value is None:
        return
    if kind == "die":
        assert math.isfinite(value.mass) and value.mass > 0, value.mass
    if kind == "table":
        assert all(math.isfinite(v) and v > 0 for v in (value.width, value.depth, value.height))


def loader_property(kind: str) -> Callable[..., None]:
    @given(data=contents(kind))
    def prop(data: bytes) -> None:
        CASES[f"load-{kind}"] += 1
        load = _loaders()[kind]
        with inputs() as d:
            path = d.write(KINDS[kind].filename, data)
            with d.frozen():
                _check_loaded(kind, check_loader(load, path))
    prop.__name__ = f"load_{kind}"
    return prop


# -- the command line ------------------------------------------------------------------------

# Each command that reads a file of a kind: {f} is the file, {out} a writable directory.
FILE_COMMANDS: dict[str, list[list[str]]] = {
    "die": [["throw", "--die", "{f}", "--json"]],
    "table": [["throw", "--table", "{f}", "--json"]],
    "scene": [["throw", "--scene", "{f}", "--json"]],
    "experiment": [["fairness", "run", "{f}", "--throws", "2", "--out", "{out}/run"]],
    "crew": [["dice", "check", "{f}"],
             ["play", "deep-white-sea", "--headless", "--quiet", "--crews", "{f},blue",
              "--table", "kinematic", "--max-turns", "2"]],
    "map": [["play", "dday", "--headless", "--quiet", "--map", "{f}"]],
    "tribe": [["play", "dicewar", "--headless", "--quiet", "--tribes", "{f},emberfen"]],
    "board": [["play", "diceland-hex", "--headless", "--quiet", "--board", "{f}"]],
    "save": [["play", "diced", "--headless", "--quiet", "--load", "{f}"]],
    "log": [["replay", "{f}"], ["replay", "{f}", "--verify"]],
}


def run_case(argv: list[str], d: InputDir, written: set[str] | None = None) -> None:
    """One command against the inputs in `d` (only the files named in `written` may change):
    its outcome checked, and on exit 0 what it produced."""
    with d.frozen(allowed=written):
        result = run_cli(argv)
    check_outcome(argv, result)
    if result.status == 0:
        _check_success(argv, result)


def _check_success(argv: list[str], result: CommandResult) -> None:
    """What exit 0 must have produced."""
    if argv[0] == "throw" and "--json" in argv and "--tray" not in argv:
        report = json.loads(result.out.strip().splitlines()[-1])
        outcome = report["outcome"]
        if outcome["status"] == "on_table":
            assert isinstance(outcome["face"], int), outcome
        assert all(math.isfinite(v) for v in report["throw"]["release"]), report["throw"]
    if argv[:2] == ["dice", "check"]:
        assert ": ok: " in result.out, result.out


def file_command_property(kind: str) -> Callable[..., None]:
    forms = FILE_COMMANDS[kind]

    @given(data=contents(kind), form=st.sampled_from(forms))
    def prop(data: bytes, form: list[str]) -> None:
        CASES[f"cli-{kind}"] += 1
        with inputs() as d:
            path = d.write(KINDS[kind].filename, data)
            run_case([a.format(f=path, out=d.out) for a in form], d)
    prop.__name__ = f"cli_{kind}"
    return prop


def _num(text_too: bool = True) -> st.SearchStrategy[str]:
    numbers = st.one_of(st.integers(-(10 ** 25), 10 ** 25).map(str),
                        st.floats(allow_nan=True, allow_infinity=True).map(repr),
                        st.sampled_from(["0", "-0", "1e-9", "1e9", "nan", "inf", "-inf", "1e400"]))
    return st.one_of(numbers, st.text(max_size=6)) if text_too else numbers


def _vec(n: int) -> st.SearchStrategy[list[str]]:
    return st.lists(_num(), min_size=n, max_size=n)


@st.composite
def throw_argv(draw: st.DrawFn) -> list[str]:
    argv = ["throw", "--json"]
    if draw(st.booleans()):
        argv += ["--die", draw(st.sampled_from(["paper-d8", "d6", "d8", "pape", "", "D6"]))]
    for option, n in (("--release", 3), ("--velocity", 3), ("--spin", 3), ("--orientation", 4)):
        if draw(st.integers(0, 2)) == 0:
            argv += [option, *draw(_vec(n))]
    if draw(st.booleans()):
        argv += ["--seed", draw(_num())]
    if draw(st.integers(0, 3)) == 0:
        argv += ["--player", draw(st.sampled_from(["1", "2", "0", "3", "x"]))]
    if draw(st.integers(0, 3)) == 0:
        argv += ["--surface", draw(st.sampled_from(["felt", "wood", "rubber", "glass", "x", ""]))]
    if draw(st.integers(0, 4)) == 0:
        argv += ["--tray", "--count", draw(st.sampled_from(["1", "3", "0", "-2", "x"]))]
    return argv


def option_values(spec: registry.GameSpec,
                  option: registry.OptionSpec) -> st.SearchStrategy[str] | None:
    """What the fuzz suite gives a game's option, read from its declaration: None for a
    flag; any number for an int, but only small ones for an option the game's quick setting
    bounds (a drawn limit must not make a long game); for a text, its default, a prefix of
    it, its choices and a few bad values."""
    if option.kind is bool:
        return None
    if option.kind is int:
        if option.name in spec.quick:
            near = int(spec.quick[option.name])
            return st.sampled_from([str(near - 1), str(near), "0", "-1", "x", "1e3"])
        return _num()
    default = str(option.default or "")
    return st.sampled_from(sorted({default, default[:4], "", ".", "x,y",
                                   *(str(c) for c in option.choices or ())}))


def quick_argv(spec: registry.GameSpec) -> list[str]:
    """The flags of a game's quick setting (a short game)."""
    out: list[str] = []
    for name, value in spec.quick.items():
        flag = spec.option(name).flag
        if value is True:
            out.append(flag)
        elif value is not False:
            out += [flag, str(value)]
    return out


@st.composite
def play_argv(draw: st.DrawFn, games: list[str] | None = None) -> list[str]:
    """`tabletop play` of a registered game (or one of `games`) with drawn options, players
    and seed; or of a game that does not exist."""
    game = draw(st.sampled_from(games or [*registry.names(), "dice", "Diced", ""]))
    argv = ["play", game, "--headless", "--quiet"]
    spec = registry.GAMES.get(game)
    if spec is not None:
        argv += quick_argv(spec)  # e.g. Deep White Sea's kinematic table: a drawn limit wins
        for option in spec.options:
            if option.name in spec.quick and option.kind is not int:
                continue  # the quick setting's table stays
            values = option_values(spec, option)
            if draw(st.booleans()):
                argv += [option.flag] if values is None else [option.flag, draw(values)]
    if draw(st.booleans()):
        bots = sorted({b for s in registry.GAMES.values() for b in (*s.bots, *registry.GENERIC_BOTS)})
        kinds = st.sampled_from([*bots, "x", ""])
        argv += ["--players", ",".join(draw(st.lists(kinds, min_size=0, max_size=5)))]
        argv += ["--mcts-iterations", draw(st.sampled_from(["1", "5", "0", "-1", "x"]))]
    if draw(st.booleans()):
        argv += ["--seed", draw(_num())]
    return argv


# Odd paths where a file is read or written ({in} is a read-only directory holding one file,
# `good`, and a subdirectory `sub`; {out} a writable directory).
ODD_PATHS = ["{in}/missing.yaml", "{in}/sub", "{in}/good/x", "/dev/null", "{in}/sub/",
             "{in}/" + "n" * 300 + ".yaml", "{out}/missing/x.json", "{out}", "/dev/full",
             "{in}/good"]
PATH_COMMANDS = [
    ["throw", "--die", "{p}"], ["throw", "--table", "{p}"], ["throw", "--scene", "{p}"],
    ["dice", "check", "{p}"], ["fairness", "run", "{p}", "--out", "{out}/run"],
    ["fairness", "report", "{p}", "--no-plots"], ["fairness", "compare", "{p}", "{p}"],
    ["fairness", "calibrate", "{p}", "--out", "{out}/cal"],
    ["play", "dday", "--headless", "--quiet", "--map", "{p}"],
    ["play", "diced", "--headless", "--quiet", "--load", "{p}"],
    ["replay", "{p}"], ["bench", "run", "--baseline", "{p}"],
]
# Output paths: {p} is written, so it may change (atomically); every other input may not.
OUTPUT_COMMANDS = [
    ["throw", "--trajectory", "{p}"], ["dice", "art", "blue", "--out", "{p}"],
    ["play", "diced", "--headless", "--quiet", "--save", "{p}"],
    ["play", "diced", "--headless", "--quiet", "--log", "{p}"],
    ["fairness", "series", "{in}/sub", "--png", "{p}"],
    ["fairness", "run", "benchmarks/experiments/fair-d6.yaml", "--throws", "1", "--out", "{p}"],
    ["bench", "run", "--only", "golden", "--json", "{p}"],
]


def odd_path_property(name: str, forms: list[list[str]], output: bool) -> Callable[..., None]:
    @given(form=st.sampled_from(forms), odd=st.sampled_from(ODD_PATHS))
    def prop(form: list[str], odd: str) -> None:
        CASES[name] += 1
        with inputs() as d:
            d.write("good", b"name: x\n")
            (d.path / "sub").mkdir()
            p = odd.format(**{"in": d.path, "out": d.out})
            argv = [a.format(**{"p": p, "out": d.out, "in": d.path}) for a in form]
            written = {Path(p).name} if output and Path(p).parent == d.path else set()
            run_case(argv, d, written)
    prop.__name__ = name.replace("-", "_")
    return prop


def values_property(name: str, argvs: st.SearchStrategy[list[str]]) -> Callable[..., None]:
    @given(argv=argvs)
    def prop(argv: list[str]) -> None:
        CASES[f"cli-{name}"] += 1
        with inputs() as d:
            run_case(argv, d)
    prop.__name__ = f"cli_{name}"
    return prop


def properties() -> dict[str, Callable[..., None]]:
    """Every property by name: loaders, commands reading each file kind, option values, paths."""
    props: dict[str, Callable[..., None]] = {}
    for kind in _loaders():
        props[f"load-{kind}"] = loader_property(kind)
    for kind in FILE_COMMANDS:
        props[f"cli-{kind}"] = file_command_property(kind)
    props["cli-throw-values"] = values_property("throw-values", throw_argv())
    props["cli-play-values"] = values_property("play-values", play_argv())
    props["cli-odd-paths"] = odd_path_property("cli-odd-paths", PATH_COMMANDS, output=False)
    props["cli-output-paths"] = odd_path_property("cli-output-paths", OUTPUT_COMMANDS, output=True)
    return props


def run(prop: Callable[..., None], examples: int, derandomize: bool = False) -> None:
    """Run one property with `examples` cases (no example database: each run searches anew;
    `derandomize` draws the same cases every time, as CI wants)."""
    settings(max_examples=examples, deadline=None, database=None, derandomize=derandomize,
             suppress_health_check=list(HealthCheck), print_blob=False)(prop)()


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


def _describe(exc: BaseException) -> str:
    """One failure: its error, where it was raised, and Hypothesis's smallest case."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    notes = " ".join(" ".join(getattr(exc, "__notes__", [])).split())
    return (f"\n  {type(exc).__name__}: {' '.join(str(exc).split())[:400]}\n"
            f"    at {where.filename}:{where.lineno}\n    {notes[:700]}")


def search(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300, help="cases per property")
    parser.add_argument("--only", default="", help="comma-separated property names")
    args = parser.parse_args(argv)
    props = properties()
    chosen = [n for n in args.only.split(",") if n] or list(props)
    unknown = [n for n in chosen if n not in props]
    if unknown:
        parser.error(f"unknown properties {unknown}; known: {', '.join(props)}")
    os.environ.setdefault("MPLBACKEND", "Agg")
    failed = 0
    start = time.perf_counter()
    for name in chosen:
        t0 = time.perf_counter()
        try:
            run(props[name], args.examples)
            verdict = "ok"
        except Exception as exc:  # noqa: BLE001 - the report names every failing property
            failed += 1
            verdict = "FAILED" + "".join(_describe(e) for e in _leaves(exc))
        print(f"{name:22s} {CASES[name]:6d} cases {time.perf_counter() - t0:7.1f} s  {verdict}",
              flush=True)
    print(f"{sum(CASES.values())} cases tried in {time.perf_counter() - start:.1f} s; "
          f"{failed} of {len(chosen)} properties failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(search())
