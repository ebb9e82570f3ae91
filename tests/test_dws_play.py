"""Deep White Sea played through: random-play conformance on the kinematic and the physics
table, logs that `tabletop replay --verify` re-simulates, save and load, and the bots."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rules.deep_white_sea as dws
import simulator.physics_table  # noqa: F401  (registers the 'physics' table)
from rules.core import saves
from rules.core.runner import digest, play, verify_log
from rules.deep_white_sea.bots import RandomBot, random_throw, throw_action
from rules.deep_white_sea.game import DWSState
from simulator.cli.main import main as cli

CREWS = ("white,blue", "green,orange", "burgundy,white", "blue,green", "orange,burgundy")


def check_invariants(s: DWSState, last_scores: list[int]) -> None:
    places = {"hand", "play", "reserve"}
    assert set(s.where) == set(s.dice) and set(s.where.values()) <= places
    in_play = {d for d, w in s.where.items() if w == "play"}
    assert in_play == set(s.poses)  # each die in exactly one place; play = on the table
    assert all(p.status == "on_table" for p in s.poses.values())
    assert all(a >= b for a, b in zip(s.scores, last_scores, strict=True))  # never fall
    assert set(s.poison) <= in_play and set(s.effects) <= in_play


def random_play(table: str, actions: int, seeds: range, check_all_every: int) -> int:
    done = 0
    for seed in seeds:
        if done >= actions:
            break
        s = dws.new_game(2, {"crews": CREWS[seed % len(CREWS)], "table": table},
                         np.random.default_rng(seed))
        bots = [RandomBot(np.random.default_rng([seed, i])) for i in range(2)]
        rng = np.random.default_rng([seed, 99])
        while not s.is_terminal() and done < actions:
            scores = list(s.scores)
            legal = s.legal_actions()
            assert legal and all(s.is_legal(a) or a[0] == "throw" for a in legal)
            assert s.throws() == [a for a in legal if a[0] == "throw"]  # (without probes)
            if done % check_all_every == 0:  # every legal action applies without error
                for a in legal:
                    if a[0] == "throw":
                        a = throw_action(a[1], random_throw(s, s.current_player(), rng))
                    t = s.clone()
                    t.apply_action(a)
                    check_invariants(t, scores)
                data = s.serialize()
                assert dws.deserialize(json.loads(json.dumps(data))).serialize() == data
            s.apply_action(bots[s.current_player()].step(s))
            s.take_events()
            s.take_results()
            check_invariants(s, scores)
            done += 1
    return done


@pytest.mark.slow
def test_random_play_conformance_kinematic_10000_actions() -> None:
    assert random_play("kinematic", 10_000, range(10_000), check_all_every=100) == 10_000


@pytest.mark.slow
def test_random_play_conformance_physics_500_actions() -> None:
    assert random_play("physics", 500, range(100, 200), check_all_every=125) == 500


def test_same_seed_same_game_and_state_clone_is_independent() -> None:
    def run(seed: int) -> str:
        s = dws.new_game(2, {"crews": "white,green", "table": "kinematic"},
                         np.random.default_rng(seed))
        bots = [RandomBot(np.random.default_rng([seed, i])) for i in range(2)]
        for _ in range(120):
            if s.is_terminal():
                break
            before = digest(s)
            c = s.clone()
            s.apply_action(bots[s.current_player()].step(s))
            assert digest(c) == before  # playing on the state leaves its clone as it was
        return digest(s)

    assert run(4) == run(4)
    assert run(4) != run(5)


@pytest.mark.parametrize("table", ["kinematic", "physics"])
def test_logged_game_verifies_and_a_changed_outcome_does_not(table: str, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    with log.open("w") as fh:
        rec = play("deep-white-sea", ["random", "random"], 3,
                   {"table": table, "crews": "white,blue",
                    "max_turns": 40 if table == "kinematic" else 16}, log=fh)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["world"]["kind"] == table
    throws = [x for x in lines if x["type"] == "action" and x.get("results")]
    assert throws and all("physics" in r for x in throws for r in x["results"])
    if table == "physics":
        assert "pybullet" in throws[0]["results"][0]["physics"]["versions"]
    assert verify_log(log).ok
    assert cli(["replay", str(log), "--verify"]) == 0
    assert rec.returns in ([1.0, 0.0], [0.0, 1.0], [0.5, 0.5])
    # Change where one throw landed: verify must fail.
    bad = tmp_path / "bad.jsonl"
    first = throws[0]
    first["results"][0]["outcome"]["position"][0] += 0.001
    bad.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert not verify_log(bad).ok
    assert cli(["replay", str(bad), "--verify"]) == 1


def test_save_and_load_a_game_in_progress(tmp_path: Path) -> None:
    s = dws.new_game(2, {"crews": "orange,green", "table": "physics"},
                     np.random.default_rng(8))
    bots = [RandomBot(np.random.default_rng([8, i])) for i in range(2)]
    for _ in range(25):
        s.apply_action(bots[s.current_player()].step(s))
    path = tmp_path / "save.json"
    dws.save_game(s, path)
    t = dws.load_game(path)
    assert t.serialize() == s.serialize()
    assert t.legal_actions() == s.legal_actions()
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(10):
        if s.is_terminal():
            break
        a, b = RandomBot(rng_a).step(s), RandomBot(rng_b).step(t)
        assert a == b
        s.apply_action(a)
        t.apply_action(b)
    assert digest(s) == digest(t)  # the same throws land the same way after loading


def test_bots_take_legal_actions_and_planner_beats_random_in_a_short_match() -> None:
    wins = 0
    for seed in range(3):
        rec = play("deep-white-sea", ["planner", "random"], seed,
                   {"table": "kinematic", "crews": "white,blue"},
                   bot_settings={"planner": {"throws": 40}})
        wins += rec.winners == [0]
    assert wins >= 2
    rec = play("deep-white-sea", ["greedy", "random"], 1, {"table": "kinematic"})
    assert rec.winners in ([0], [1], [0, 1])


def test_cli_play_headless_prints_the_account_and_writes_the_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "g.jsonl"
    status = cli(["play", "deep-white-sea", "--headless", "--players", "greedy,random",
                  "--seed", "1", "--log", str(log), "--crews", "white,blue",
                  "--table", "kinematic"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Winner:" in out and "lands on side" in out and "P1 White (greedy)" in out
    assert verify_log(log).ok
    assert cli(["play", "deep-white-sea", "--headless", "--crews", "whte,blue",
                "--table", "kinematic"]) == 2
    assert "did you mean white" in capsys.readouterr().err


def test_human_player_enters_aim_speed_and_spin() -> None:
    s = dws.new_game(2, {"table": "kinematic", "first": 1})
    s.apply_action(("place", "1-scout-pell", 4, 0))
    answers = iter(["x", str(1 + [a[0] for a in s.legal_actions()].index("throw")),
                    "0 0.1", "0 0.1 2.5 10"])
    out: list[str] = []
    human = dws.HumanPlayer(input_fn=lambda _p: next(answers), output_fn=out.append)
    action = human.step(s)
    assert action[0] == "throw" and s.is_legal(action)
    assert any("please type a number" in o for o in out)
    s.apply_action(action)


def test_human_places_the_first_die_by_die_side_and_yaw() -> None:
    s = dws.new_game(2, {"table": "kinematic", "first": 2})
    answers = iter(["9 1 0", "2 7 33.5"])
    human = dws.HumanPlayer(input_fn=lambda _p: next(answers), output_fn=lambda _t: None)
    action = human.step(s)
    assert action == ("place", s.hand(1)[1], 7, 33.5)
    s.apply_action(action)
    assert s.side(action[1]).number == 7


def test_cli_save_interrupt_and_load_goes_on_and_the_resumed_log_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "save.json"
    steps = []

    def stop_after_12(state: object, lines: list[str]) -> None:
        saves.save_game(save, "deep-white-sea", state, log=lines)
        steps.append(1)
        if len(steps) == 12:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play("deep-white-sea", ["random", "random"], 2, {"table": "kinematic"},
             after_step=stop_after_12)
    saved = json.loads(save.read_text())["log"]
    log = tmp_path / "resumed.jsonl"
    assert cli(["play", "deep-white-sea", "--headless", "--load", str(save), "--save",
                str(save), "--log", str(log)]) == 0
    assert "Winner:" in capsys.readouterr().out
    # The resumed game's log is the whole game's, from the original game's first step.
    assert log.read_text().splitlines()[:len(saved)] == saved and len(saved) == 13
    assert verify_log(log).ok
    assert json.loads(save.read_text())["state"]["winner"] is not None  # saved to the end
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"type": "tabletop-save", "format": 1, "game": "dicewar",
                               "state": {}}))
    assert cli(["play", "deep-white-sea", "--headless", "--load", str(bad)]) == 2
    assert "not deep-white-sea" in capsys.readouterr().err
