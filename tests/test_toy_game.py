"""Issue 35: a game is one unit. A toy sixth game defined only under tests/ (`tests/toy_pig`:
its rules, its declaration) is registered by one line and, with no other file touched,
plays through `tabletop play`, verifies through `replay --verify`, passes OpenSpiel's
`random_sim_test` with serialization and PettingZoo's `api_test`, and is fuzzed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rules import registry
from rules.core.spec import GameSpec
from simulator.cli import fuzz
from simulator.cli import main as cli


@pytest.fixture(scope="module")
def toy() -> Iterator[GameSpec]:
    spec = registry.register_package("tests.toy_pig")  # the one line
    cli._parser.cache_clear()  # the command's parser, built once a process, learns its options
    yield spec
    registry.GAMES.pop(spec.name)
    cli._parser.cache_clear()


def test_the_toy_game_plays_through_tabletop_play_and_its_log_verifies(
        toy: GameSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "pig.jsonl"
    assert cli.main(["play", "toy-pig", "--headless", "--players", "greedy,random,mcts",
                     "--mcts-iterations", "20", "--seed", "4", "--target", "15",
                     "--log", str(log)]) == 0
    told = capsys.readouterr().out
    assert "rolls" in told and "holds" in told
    assert cli.main(["replay", str(log), "--verify"]) == 0
    assert "verified" in capsys.readouterr().out
    # The option's declared range is checked before the engine sees it.
    assert cli.main(["play", "toy-pig", "--headless", "--target", "4"]) == 2
    assert "--target: must be from 5 to 100 (got 4)" in capsys.readouterr().err


def test_the_toy_game_passes_openspiel_and_pettingzoo_tests(toy: GameSpec) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    from simulator.ai import openspiel, pettingzoo

    assert "tabletop_toy_pig" in openspiel.register()
    pyspiel.random_sim_test(openspiel.load("toy-pig", {"players": 3}), num_sims=3,
                            serialize=True, verbose=False)
    api_test(pettingzoo.env("toy-pig"), num_cycles=30)


def test_the_fuzz_suite_covers_the_toy_game(toy: GameSpec) -> None:
    drawn: list[list[str]] = []

    @fuzz.given(argv=fuzz.play_argv(games=["toy-pig"]))
    def prop(argv: list[str]) -> None:
        drawn.append(argv)
        with fuzz.inputs() as d:
            fuzz.run_case(argv, d)

    fuzz.run(prop, examples=12, derandomize=True)
    assert drawn and all(a[1] == "toy-pig" for a in drawn)
    assert any("--target" in a for a in drawn) and any("--max-turns" in a for a in drawn)
