"""Game options are checked once, by `rules.registry` (`OptionSpec.check`), for every engine
and on every path in: the runner, `tabletop play` and a direct `new_game` call. A value out of
range, of the wrong type, or an option the game does not take is one `RulesError` line naming
the option and the value; the CLI shows it as one line with exit status 2. Nothing quietly
becomes the default (a `max_plies` of 0 once did)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules import registry
from rules.core import RulesError


def new_game(game: str, options: dict[str, Any]) -> Any:
    spec = registry.lookup(game)
    return spec.module().new_game(spec.min_players if game != "diced" else 3, options,
                                  np.random.default_rng(0))


# (game, options, what the one error line must say)
REFUSED = [
    ("dicewar", {"max_plies": 0}, r"dicewar: option --max-plies: must be at least 1 \(got 0\)"),
    ("diced", {"max_rounds": 0}, r"diced: option --max-rounds: must be at least 1 \(got 0\)"),
    ("diceland-hex", {"max_rounds": 0}, r"--max-rounds: must be at least 1 \(got 0\)"),
    ("diceland-hex", {"board": "random", "tiles": 0},
     r"diceland-hex: option --tiles: must be from 8 to 36 \(got 0\)"),
    ("diceland-hex", {"board": "random", "tiles": 38}, r"--tiles: must be from 8 to 36 \(got 38\)"),
    ("diceland-hex", {"board": "random", "tiles": 9},
     r"--tiles: must be even \(got 9\)"),
    ("deep-white-sea", {"table": "kinematic", "max_turns": 0},
     r"deep-white-sea: option --max-turns: must be at least 1 \(got 0\)"),
    ("deep-white-sea", {"table": "kinematic", "first": 3},
     r"--first: must be from 1 to 2 \(got 3\)"),
    ("deep-white-sea", {"table": "kinematic", "first": 0},
     r"--first: must be from 1 to 2 \(got 0\)"),
    ("deep-white-sea", {"table": "marble"}, r"--table: must be one of physics, kinematic \(got 'marble'\)"),
    ("dicewar", {"max_plies": "7"}, r"--max-plies: must be a whole number \(got '7'\)"),
    ("dicewar", {"max_plies": True}, r"--max-plies: must be a whole number \(got True\)"),
    ("dicewar", {"ruins": 1}, r"dicewar: option --ruins: must be true or false \(got 1\)"),
    ("dicewar", {"max_plies": None}, r"--max-plies: must be a whole number \(got None\)"),
    ("dday", {"map": 5}, r"dday: option --map: must be a text \(got 5\)"),
    ("dday", {"dmc": True}, r"dday does not take option --dmc; did you mean --dmc15\?"),
]


@pytest.mark.parametrize("game,options,message", REFUSED)
def test_a_bad_option_is_one_line_naming_the_option_and_value(game, options, message):
    with pytest.raises(RulesError, match=message) as err:
        new_game(game, options)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("game,options,message", REFUSED)
def test_the_runner_refuses_the_same_options(game, options, message):
    with pytest.raises(RulesError, match=message):
        registry.lookup(game).resolve_options(options)


def test_an_echoed_value_is_cut_short():
    with pytest.raises(RulesError) as err:
        new_game("dicewar", {"max_plies": "x" * 10_000})
    assert len(str(err.value)) < 150


@pytest.mark.parametrize("game,options,attribute,value", [
    ("dicewar", {"max_plies": 1}, "max_plies", 1),
    ("diced", {"max_rounds": 1}, "max_rounds", 1),
    ("diceland-hex", {"max_rounds": 1}, "max_rounds", 1),
    ("deep-white-sea", {"table": "kinematic", "max_turns": 1}, "max_turns", 1),
])
def test_the_smallest_house_limit_is_kept_not_replaced(game, options, attribute, value):
    assert getattr(new_game(game, options), attribute) == value


def test_the_tile_count_reaches_the_random_board():
    s = new_game("diceland-hex", {"board": "random", "tiles": 8})
    assert s.board.size == 8


def test_first_fixes_who_goes_first():
    for first in (1, 2):
        s = new_game("deep-white-sea", {"table": "kinematic", "first": first})
        assert s.current_player() == first - 1


def test_deep_white_sea_plays_on_the_table_the_registry_names_by_default():
    default = registry.lookup("deep-white-sea").resolve_options({})["table"]
    assert default == "physics"
    pytest.importorskip("pybullet")
    import simulator.physics_table  # noqa: F401 - registers the physics table

    assert new_game("deep-white-sea", {}).table_kind == default


def test_every_int_option_refuses_the_value_below_its_range():
    """Every bounded int option of every game: one below its minimum is refused."""
    checked = 0
    for spec in registry.GAMES.values():
        for opt in spec.options:
            if opt.kind is int and opt.minimum is not None:
                with pytest.raises(RulesError, match=f"option {opt.flag}: must be"):
                    spec.resolve_options({opt.name: opt.minimum - 1})
                checked += 1
    assert checked >= 6


@pytest.mark.parametrize("argv,shown", [
    (["dicewar", "--max-plies", "0"], "--max-plies: must be at least 1 (got 0)"),
    (["diceland-hex", "--board", "random", "--tiles", "0"], "--tiles: must be from 8 to 36"),
    (["diced", "--players", "random,random,random", "--max-rounds", "0"],
     "--max-rounds: must be at least 1 (got 0)"),
    (["diced", "--players", "random,random,random", "--pool", "0"],
     "--pool must be at least 3"),
])
def test_the_cli_shows_a_bad_option_as_one_line_exit_2(capsys, argv, shown):
    from simulator.cli.main import main

    status = main(["play", argv[0], "--headless", *argv[1:]])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and shown in err


@pytest.mark.parametrize(("game", "state", "option"), [
    ("diced", "rules.diced.game:DicedState", "max_rounds"),
    ("diceland-hex", "rules.diceland_hex.game:HexState", "max_rounds"),
    ("dicewar", "rules.dicewar.game:DiceWarState", "max_plies"),
    ("deep-white-sea", "rules.deep_white_sea.game:DWSState", "max_turns"),
])
def test_an_engines_house_limit_defaults_to_the_registrys(game: str, state: str,
                                                           option: str) -> None:
    """Options are declared once, in the registry: a state built without the option
    (a test, a tool) gets the registry's default, not a number of its own."""
    import importlib
    import inspect

    module, _, name = state.partition(":")
    cls = getattr(importlib.import_module(module), name)
    declared = next(o.default for o in registry.lookup(game).options if o.name == option)
    assert inspect.signature(cls).parameters[option].default == declared
    assert registry.option_default(game, option) == declared
