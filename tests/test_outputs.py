"""Output files: every file the program writes is replaced whole or not at all (temporary
file, fsync, rename), a path that cannot be written is one line and exit status 2, and a
save is one checked format (issue 15, items 12 and 16)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rules.deep_white_sea as dws
from dice_models.outfiles import LineFile, OutputError, write_text
from rules.core import RulesError, saves
from simulator.cli.main import main as cli

ROOT = Path(__file__).resolve().parents[1]


def _tabletop_limited(args: list[str], cwd: Path, max_bytes: int) -> subprocess.CompletedProcess[str]:
    """`tabletop ARGS` under a file-size limit (`ulimit -f`), as a user with a quota has."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "simulator.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=300)


def _one_error_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


# -- saves (item 12) ----------------------------------------------------------------------


def test_a_save_past_the_size_limit_keeps_the_last_whole_save(tmp_path: Path) -> None:
    save = tmp_path / "auto.json"
    state = dws.new_game(2, {"table": "kinematic"}, np.random.default_rng(1))
    saves.save_game(save, "deep-white-sea", state)
    before = save.read_bytes()
    # 600 bytes: less than any save of this game (about 1.3 KB), more than Python needs to start.
    done = _tabletop_limited(["play", "deep-white-sea", "--headless", "--table", "kinematic",
                              "--players", "random,random", "--seed", "1", "--save", "auto.json",
                              "--quiet"], tmp_path, 600)
    assert done.returncode == 2, done.stderr
    assert _one_error_line(done.stderr) and "auto.json" in done.stderr
    assert "size limit" in done.stderr
    assert save.read_bytes() == before  # the previous save, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auto.json"]  # no temporary left


def test_save_game_and_play_load_use_one_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--save` writes the game with its log (format 2), which `--load` checks and goes on
    from; `save_game` of a bare state is a position (format 1): `load_game` reads it, and
    `--load` refuses it in one line (nothing shows how it was reached)."""
    save = tmp_path / "save.json"
    assert cli(["play", "deep-white-sea", "--headless", "--table", "kinematic", "--max-turns",
                "3", "--seed", "3", "--save", str(save), "--quiet"]) == 0
    data = json.loads(save.read_text())
    assert (data["type"], data["format"], data["game"]) == ("tabletop-save", 2, "deep-white-sea")
    assert cli(["play", "deep-white-sea", "--headless", "--load", str(save), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Winner" in out or "Draw" in out
    assert dws.load_game(save).serialize() == data["state"]
    state = dws.new_game(2, {"table": "kinematic"}, np.random.default_rng(3))
    dws.save_game(state, save)
    assert json.loads(save.read_text())["format"] == 1
    assert dws.load_game(save).serialize() == state.serialize()
    assert cli(["play", "deep-white-sea", "--headless", "--load", str(save), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "format: a format-1 save holds a position" in err


@pytest.mark.parametrize("where,value", [("top", 7), ("top", True), ("top", None), ("state", 7)])
def test_a_save_of_another_format_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             where: str, value: object) -> None:
    state = dws.new_game(2, {"table": "kinematic"}, np.random.default_rng(3))
    save = tmp_path / "save.json"
    dws.save_game(state, save)
    data = json.loads(save.read_text())
    (data if where == "top" else data["state"])["format"] = value
    save.write_text(json.dumps(data))
    with pytest.raises(RulesError, match="format"):
        dws.load_game(save)
    assert cli(["play", "deep-white-sea", "--headless", "--load", str(save)]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "format" in err and str(save) in err


def test_save_into_a_directory_is_one_line_before_the_game(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["play", "diced", "--headless", "--players", "random,random,random",
                "--save", str(tmp_path), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert _one_error_line(captured.err) and "is a directory" in captured.err
    assert "Winner" not in captured.out


def test_save_into_a_missing_directory_is_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "nope" / "save.json"
    assert cli(["play", "diced", "--headless", "--players", "random,random,random",
                "--save", str(target), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "does not exist" in err and not target.parent.exists()


# -- game logs written as the game runs ---------------------------------------------------


def test_log_to_a_full_device_plays_the_game_and_says_the_log_is_lost(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "save.json"
    status = cli(["play", "diced", "--headless", "--players", "random,random,random", "--seed",
                  "2", "--log", "/dev/full", "--save", str(save)])
    captured = capsys.readouterr()
    assert status == 2
    assert "Winner" in captured.out or "Draw" in captured.out  # the game went on to its end
    assert _one_error_line(captured.err)
    assert "/dev/full" in captured.err and "no space left" in captured.err
    assert json.loads(save.read_text())["state"]  # and was saved


def test_a_log_past_the_size_limit_leaves_the_old_log_whole(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text("an earlier game's log\n")
    done = _tabletop_limited(["play", "diced", "--headless", "--players", "random,random,random",
                              "--seed", "2", "--log", "game.jsonl", "--quiet"], tmp_path, 4096)
    assert done.returncode == 2, done.stderr
    assert _one_error_line(done.stderr) and "size limit" in done.stderr
    assert log.read_text() == "an earlier game's log\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]


def test_line_file_replaces_the_target_only_when_closed(tmp_path: Path) -> None:
    target = tmp_path / "log.jsonl"
    target.write_text("old\n")
    out = LineFile(target)
    out.write("new 1\n")
    assert target.read_text() == "old\n"  # an open log never clobbers the old one
    out.write("new 2\n")
    out.close()
    assert target.read_text() == "new 1\nnew 2\n" and out.error is None and out.lines == 2
    assert [p.name for p in tmp_path.iterdir()] == ["log.jsonl"]


def test_write_text_onto_a_full_device_or_a_directory_is_an_output_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="no space left"):
        write_text("/dev/full", "x" * 10_000)
    with pytest.raises(OutputError, match="is a directory"):
        write_text(tmp_path, "x")
    with pytest.raises(OutputError, match="does not exist"):
        write_text(tmp_path / "a" / "b.txt", "x")


# -- odd output paths of the other commands (item 16) ----------------------------------------


def test_throw_trajectory_into_a_missing_directory_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "t.json"
    assert cli(["throw", "--seed", "1", "--trajectory", str(target)]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "--trajectory" in err and "does not exist" in err


def test_throw_trajectory_is_written_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "t.json"
    assert cli(["throw", "--seed", "1", "--trajectory", str(target), "--json"]) == 0
    assert json.loads(target.read_text())["frames"]
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_dice_art_onto_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "art"
    target.write_text("not a folder\n")
    assert cli(["dice", "art", "scout-pell", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "not a directory" in err
    assert target.read_text() == "not a folder\n"


def test_dice_net_into_a_directory_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "net.svg"
    target.mkdir()
    assert cli(["dice", "net", "scout-pell", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "is a directory" in err


@pytest.mark.parametrize("content", [bytes((i * 131 + 7) % 256 for i in range(4000)), b"sqlite"])
def test_replay_of_random_bytes_or_an_sqlite_file_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    log = tmp_path / "log.jsonl"
    if content == b"sqlite":
        import sqlite3

        conn = sqlite3.connect(log)
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute("INSERT INTO t VALUES (?)", (bytes(range(256)),))
        conn.commit()
        conn.close()
    else:
        log.write_bytes(content)
    for argv in (["replay", str(log)], ["replay", str(log), "--verify"]):
        assert cli(argv) == 2
        err = capsys.readouterr().err
        assert _one_error_line(err) and str(log) in err


@pytest.mark.parametrize("argv", [["throw", "--seed", "1", "--trajectory"],
                                  ["play", "diced", "--headless", "--quiet", "--save"],
                                  ["play", "diced", "--headless", "--quiet", "--log"],
                                  ["fairness", "run", str(ROOT / "benchmarks/experiments/fair-d6.yaml"),
                                   "--throws", "1", "--no-progress", "--out"]])
def test_an_output_name_too_long_for_the_system_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    target = tmp_path / ("n" * 300 + ".json")
    assert cli([*argv, str(target)]) == 2
    err = capsys.readouterr().err
    assert _one_error_line(err) and "name is too long" in err
