"""The shared game infrastructure with Diced and Diceland hex plugged in: the registry,
the runner and its log verification, and `tabletop play / replay / games`, including
bad input (one line, exit status 2) and a human player in the terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rules import registry
from rules.core import RulesError
from rules.core.runner import play, verify_log
from simulator.cli.main import main

FAST = ["--mcts-iterations", "10"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- registry ---------------------------------------------------------------------------


def test_registry_lookup_suggests_the_closest_game():
    assert registry.lookup("diced").max_players == 8
    with pytest.raises(RulesError, match="did you mean diceland-hex"):
        registry.lookup("diceland-hx")


def test_registry_fills_defaults_and_refuses_foreign_options():
    spec = registry.lookup("diceland-hex")
    assert spec.resolve_options({})["board"] == "compact"
    with pytest.raises(RulesError, match="does not take option --pool"):
        spec.resolve_options({"pool": 3})


def test_games_lists_every_game_with_player_counts(capsys):
    status, out, _ = run(capsys, "games")
    assert status == 0
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "3-8" in lines["diced"] and " 2 " in lines["diceland-hex"]
    assert set(registry.names()) <= set(lines)


# --- play and replay ----------------------------------------------------------------------


def test_play_diced_headless_writes_a_log_that_verifies(capsys, tmp_path: Path):
    log = tmp_path / "diced.jsonl"
    status, out, _ = run(capsys, "play", "diced", "--headless", "--players",
                         "random,greedy,mcts", "--seed", "1", "--log", str(log), *FAST)
    assert status == 0
    assert "P3 (mcts)" in out and ("Winner:" in out or "Draw" in out)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["seed"] == 1
    assert lines[0]["roller"] == "seeded" and lines[0]["players"] == ["random", "greedy", "mcts"]
    assert lines[-1]["type"] == "end"
    assert {x["type"] for x in lines[1:-1]} == {"chance", "action"}
    status, out, _ = run(capsys, "replay", str(log), "--verify")
    assert status == 0 and "verified" in out


def test_play_diceland_hex_headless_and_replay_tells_the_game(capsys, tmp_path: Path):
    log = tmp_path / "hex.jsonl"
    status, out, _ = run(capsys, "play", "diceland-hex", "--headless", "--players",
                         "mcts,random", "--board", "compact", "--seed", "1", "--log",
                         str(log), *FAST)
    assert status == 0 and "Red (mcts)" in out and "Winner" in out
    assert run(capsys, "replay", str(log), "--verify")[0] == 0
    status, told, _ = run(capsys, "replay", str(log))
    assert status == 0 and "places a" in told and "End after" in told


def test_verify_reports_the_first_mismatch(capsys, tmp_path: Path):
    log = tmp_path / "hex.jsonl"
    with log.open("w") as fh:
        play("diceland-hex", ["greedy", "random"], 4, log=fh)
    lines = log.read_text().splitlines()
    # Change one die of the first setup roll: the seed no longer rolls it.
    first = json.loads(lines[1])
    first["faces"][0] = first["faces"][0] % 6 + 1
    lines[1] = json.dumps(first)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = verify_log(bad)
    assert not result.ok and result.message.startswith("line 2")
    status, out, _ = run(capsys, "replay", str(bad), "--verify")
    assert status == 1 and "MISMATCH" in out
    # An action the game would not allow.
    lines = log.read_text().splitlines()
    k = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "action")
    act = json.loads(lines[k])
    act["action"] = ["place", 6, 99]
    lines[k] = json.dumps(act)
    bad.write_text("\n".join(lines) + "\n")
    assert "illegal action" in verify_log(bad).message
    # A truncated log is not a verified game.
    bad.write_text("\n".join(log.read_text().splitlines()[:-3]) + "\n")
    assert not verify_log(bad).ok


def test_same_seed_same_log(tmp_path: Path):
    a = play("diceland-hex", ["mcts", "greedy"], 9, bot_settings={"mcts": {"iterations": 10}})
    b = play("diceland-hex", ["mcts", "greedy"], 9, bot_settings={"mcts": {"iterations": 10}})
    assert a.lines == b.lines


def test_random_board_option_and_terrain(capsys):
    status, out, _ = run(capsys, "play", "diceland-hex", "--headless", "--players",
                         "greedy,greedy", "--board", "random", "--tiles", "14", "--terrain",
                         "--seed", "3")
    assert status == 0 and ("Winner" in out or "Draw" in out)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("argv,expected", [
    (["play", "diced", "--headless", "--players", "random,random"], "3 to 8 players, got 2"),
    (["play", "diced", "--headless", "--players", ",".join(["random"] * 9)],
     "3 to 8 players, got 9"),
    (["play", "diceland-hex", "--headless", "--players", "mcts,random,random"],
     "2 players, got 3"),
    (["play", "diceland-hex", "--headless", "--board", "compakt"], "did you mean compact?"),
    (["play", "dicedd", "--headless"], "did you mean diced?"),
    (["play", "diced", "--headless", "--board", "compact"], "does not take option --board"),
    (["play", "diceland-hex", "--headless", "--players", "mcts,randon"],
     "did you mean random?"),
    (["play", "diceland-hex", "--headless", "--board", "random", "--tiles", "9"], "even"),
])
def test_bad_input_is_one_line_and_exit_status_2(capsys, argv, expected):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("layout,expected", [
    ("  P P P\n   P P P P\n", "even number"),
    ("  P P P . P P P\n   P P\n", "not connected"),
])
def test_bad_board_files_exit_2_naming_the_file(capsys, tmp_path: Path, layout, expected):
    board = tmp_path / "board.yaml"
    board.write_text("layout: |2\n" + layout)
    status, _, err = run(capsys, "play", "diceland-hex", "--headless", "--board", str(board))
    assert status == 2 and expected in err and str(board) in err and err.count("\n") == 1


@pytest.mark.parametrize("content,expected", [
    ('{"type": "header"', "not JSON"),
    ('{"type": "action"}\n', "no header"),
    ('{"type": "header", "format": 2, "game": "chess", "players": [], "seed": 1}\n',
     "unknown game"),
    ("", "no header"),
])
def test_corrupt_logs_exit_2(capsys, tmp_path: Path, content, expected):
    log = tmp_path / "log.jsonl"
    log.write_text(content)
    status, _, err = run(capsys, "replay", str(log), "--verify")
    assert status == 2 and expected in err and err.count("\n") == 1


def test_corrupt_log_fields_exit_2(capsys, tmp_path: Path):
    log = tmp_path / "log.jsonl"
    with log.open("w") as fh:
        play("diced", ["greedy", "greedy", "greedy"], 1, log=fh)
    lines = log.read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["faces"]
    lines[1] = json.dumps(broken)
    log.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, "replay", str(log), "--verify")
    assert status == 2 and "faces" in err


# --- a human in the terminal ---------------------------------------------------------------


def test_a_human_plays_in_the_terminal_from_stdin(capsys, monkeypatch):
    # Always choose the first action offered (after one bad answer).
    answers = io.StringIO("x\n" + "1\n" * 400)
    monkeypatch.setattr("sys.stdin", answers)
    status, out, _ = run(capsys, "play", "diceland-hex", "--headless", "--players",
                         "human,greedy", "--seed", "2")
    assert status == 0
    assert "choose 1-" in out or "Red (human)" in out
    assert "please type a number" in out
    assert " 0" in out and "Red:" in out  # the ASCII board and the tallies were shown


def test_a_human_whose_input_ends_gets_one_line(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status, _, err = run(capsys, "play", "diced", "--headless", "--players",
                         "human,random,random", "--seed", "1")
    assert status == 2 and "input closed" in err


def test_a_human_may_type_the_action_in_words_and_list_long_choices():
    import numpy as np

    from rules.core.bots import HumanPlayer
    from rules.diceland_hex import new_game

    s = new_game(2, {"board": "large"}, np.random.default_rng(0))
    s.apply_chance((5,) * 10 + (6,) * 10)
    s.apply_chance((1,) * 20)
    shown: list[str] = []
    answers = iter(["?", "place 6 99", "place 6 17"])
    human = HumanPlayer(input_fn=lambda _prompt: next(answers), output_fn=shown.append)
    assert human.step(s) == ("place", 6, 17)
    text = "\n".join(shown)
    assert "72 choices" in text and "72. place a 6 on tile 35" in text
    assert "please type a number" in text  # tile 99 does not exist


@pytest.mark.parametrize("game,players,field,value", [
    ("diceland-hex", "greedy,greedy", "value", [9] * 8),
    ("diceland-hex", "greedy,greedy", "board", {"cells": [[0, 0], [4, 0]], "terrain": "PP"}),
    ("diced", "random,random,random", "dice", [1, 1]),
    ("diced", "random,random,random", "phase", "dancing"),
])
def test_corrupt_saves_exit_2_naming_file_and_field(capsys, tmp_path: Path, game, players,
                                                    field, value):
    save = tmp_path / "save.json"
    status, _, _ = run(capsys, "play", game, "--headless", "--players", players, "--seed",
                       "1", "--save", str(save), "--quiet")
    assert status == 0
    data = json.loads(save.read_text())
    data["state"][field] = value
    save.write_text(json.dumps(data))
    status, _, err = run(capsys, "play", game, "--headless", "--players", players, "--load",
                         str(save))
    assert status == 2 and str(save) in err and err.count("\n") == 1
    assert field in err or "even number" in err


def test_a_bad_load_leaves_the_log_file_alone(capsys, tmp_path: Path):
    log = tmp_path / "game.jsonl"
    log.write_text("an earlier game's log\n")
    status, _, err = run(capsys, "play", "diced", "--headless", "--players",
                         "random,random,random", "--load", str(tmp_path / "missing.json"),
                         "--log", str(log))
    assert status == 2 and "missing.json" in err and err.count("\n") == 1
    assert log.read_text() == "an earlier game's log\n"


def test_load_checks_the_player_count_and_defaults_to_the_saves(capsys, tmp_path: Path):
    save = tmp_path / "save.json"
    status, _, _ = run(capsys, "play", "diced", "--headless", "--players", "random,random,random,random",
                       "--seed", "2", "--save", str(save), "--quiet")
    assert status == 0
    status, _, err = run(capsys, "play", "diced", "--headless", "--players",
                         "random,random,random", "--load", str(save))
    assert status == 2 and "4 players" in err and "names 3" in err and err.count("\n") == 1
    status, out, _ = run(capsys, "play", "diced", "--headless", "--load", str(save), "--quiet")
    assert status == 0 and ("Winner" in out or "Draw" in out)


@pytest.mark.parametrize("game,extra", [
    ("diced", ["--players", "bogus,random,random"]),
    ("diced", ["--players", "random"]),
    ("diced", ["--board", "compact"]),
    ("diceland-hex", ["--board", "compcat"]),
])
def test_bad_players_or_options_leave_the_log_file_alone(capsys, tmp_path: Path, game, extra):
    log = tmp_path / "game.jsonl"
    log.write_text("an earlier game's log\n")
    status, _, err = run(capsys, "play", game, "--headless", *extra, "--log", str(log))
    assert status == 2 and err.count("\n") == 1
    assert log.read_text() == "an earlier game's log\n"
