"""One conformance test over every registered game (STYLE.md): legal actions stay legal,
chance probabilities sum to 1, same seed same game, serialize round-trips, and the log of
a game verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import registry
from rules.core import SeededRoller
from rules.core.bots import make_agent
from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, GameModule, GameState, StateBase
from rules.core.runner import is_legal, new_state, play, streams, verify_log
from simulator.plugins import load_plugins


def players_for(spec: registry.GameSpec) -> list[str]:
    return ["random"] * spec.min_players


@pytest.fixture(params=registry.names())
def spec(request) -> registry.GameSpec:
    s = registry.lookup(request.param)
    load_plugins()
    return s


def test_same_seed_same_game_and_the_log_verifies(spec, tmp_path: Path):
    log = tmp_path / "game.jsonl"
    with log.open("w") as fh:
        first = play(spec.name, players_for(spec), 5, log=fh)
    second = play(spec.name, players_for(spec), 5)
    assert first.lines == second.lines
    result = verify_log(log)
    assert result.ok, result.message


def test_random_walk_keeps_actions_legal_chances_summing_to_one_and_saves_round_trip(spec):
    module = spec.module()
    n = len(players_for(spec))
    setup, chance, seats = streams(11, n)
    state = new_state(spec, n, spec.resolve_options({}), setup)
    roller = SeededRoller()
    player = make_agent("random", module, seats[0])
    steps = 0
    while not state.is_terminal() and steps < 400:
        if steps % 7 == 0:
            data = json.loads(json.dumps(state.serialize()))
            assert module.deserialize(data).serialize() == state.serialize()
        if state.is_chance_node():
            lister = getattr(state, "chance_outcomes", None)
            outcomes = None
            if lister is not None:
                try:
                    outcomes = lister()
                except (ValueError, NotImplementedError):
                    outcomes = None
            if outcomes:
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            kind, k = state.chance_request()
            state.apply_chance(roller.roll(kind, k, chance))
        else:
            assert state.legal_actions(), f"{spec.name}: no legal action at step {steps}"
            action = player.step(state)  # the game's own random player where it has one
            assert is_legal(state, action)
            state.apply_action(action)
        steps += 1
    if state.is_terminal():
        assert len(state.returns()) == n



def _members(protocol: type) -> list[str]:
    return sorted(n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_"))


def test_every_game_module_and_state_fulfil_the_contract(spec):
    """rules.core.protocols says the contract as code: the package's plug-in functions
    (`GameModule`), the state's methods (`GameState`), and `StateBase`, from which every
    state derives `is_chance_node` and `is_terminal` out of `current_player`."""
    module = spec.module()
    assert [n for n in _members(GameModule) if not callable(getattr(module, n, None))] == []
    n = spec.min_players
    setup, chance, seats = streams(3, n)
    state = new_state(spec, n, spec.resolve_options({}), setup)
    assert isinstance(state, StateBase)
    assert [m for m in _members(GameState) if not callable(getattr(state, m, None))] == []
    for name in ("is_chance_node", "is_terminal"):  # derived, not re-answered per engine
        assert getattr(type(state), name) is getattr(StateBase, name), name
    roller, player, steps = SeededRoller(), make_agent("random", module, seats[0]), 0
    while steps < 300:
        who = state.current_player()
        assert state.is_chance_node() == (who == CHANCE_PLAYER)
        assert state.is_terminal() == (who == TERMINAL_PLAYER)
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance(roller.roll(*state.chance_request(), chance))
        else:
            state.apply_action(player.step(state))
        steps += 1


def test_every_game_package_has_the_same_layout(spec):
    """ARCHITECTURE.md, "Adding a game": `game.py` (the state), `__init__.py` (the plug-in
    surface) and a `README.md` that says the rules as the engine plays them."""
    folder = Path(spec.module().__file__).parent
    assert {"game.py", "__init__.py", "README.md"} <= {p.name for p in folder.iterdir()}
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert spec.module().__name__.replace(".", "/") in text  # it names its package
    assert "## Rules as" in text or "## How a turn runs" in text
