"""A verify that proves the game (issue 38, item 5): a log verifies only if every outcome in
it is re-derived, and a save or a server's autosave is refused unless its state is the one
its history reaches.

Doctored logs are generated from short real games of every game, roller and dice mode (the
seeded dice, the physics tray, Deep White Sea's kinematic and physics tables): every header
field, every field of a sample of step lines, the faces of each roll, the roller's name, the
bots' settings and the lines' order. Each must be refused: a mismatch, a log that is
consistent but not verified, or one `RulesError` line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import registry
from rules.core import RulesError
from rules.core.rollers import FACES
from rules.core.runner import header_line, play, replay_lines, streams, verify_log
from rules.core.saves import load_game, resume_game, save_game
from simulator.cli.main import main as cli
from simulator.net.server import TableServer
from simulator.net.table import LOG_FILE, TABLE_FILE, GameTable
from simulator.plugins import load_plugins, make_roller

load_plugins()

# name: (game, players, options, roller, bot settings): small games, a fraction of a second
# each to re-play. The physics ones are doctored where their physics speaks (`PHYSICS`).
GAMES: dict[str, tuple[str, list[str], dict[str, Any], str, dict[str, Any] | None]] = {
    "diced": ("diced", ["random", "greedy", "mcts"], {"max_rounds": 3}, "seeded",
              {"mcts": {"iterations": 8}}),
    "dicewar": ("dicewar", ["mcts", "greedy"], {"max_plies": 8}, "seeded",
                {"mcts": {"iterations": 4}}),
    "dday": ("dday", ["random"], {}, "seeded", None),
    "diceland-hex": ("diceland-hex", ["greedy", "random"], {"max_rounds": 3}, "seeded", None),
    "dws-kinematic": ("deep-white-sea", ["greedy", "random"],
                      {"table": "kinematic", "max_turns": 3}, "seeded", {"greedy": {"throws": 2}}),
    "dws-physics": ("deep-white-sea", ["random", "random"], {"table": "physics", "max_turns": 3},
                    "seeded", None),
    "diced-physics": ("diced", ["random", "random", "random"], {"max_rounds": 1}, "physics",
                      None),
}
PHYSICS = ("dws-physics", "diced-physics")
SEEDS = {"dday": 11, "dws-physics": 6}  # short games (dws-physics: two throws)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    out = {}
    for name, (game, players, options, roller, bots) in GAMES.items():
        path = folder / f"{name}.jsonl"
        with open(path, "w") as fh:
            play(game, players, SEEDS.get(name, 4), options, roller=make_roller(roller), log=fh,
                 bot_settings=bots)
        out[name] = path
    return out


def _refusal(path: Path) -> str:
    """Why `path` is not verified ('' if it is): a mismatch, a consistent log with outcomes
    taken as given, or a one-line error."""
    try:
        result = verify_log(path, make_roller)
    except RulesError as exc:
        return f"error: {exc}"
    return "" if result.ok else ("not verified: " if result.consistent else "mismatch: ") \
        + result.message


def _alter(value: Any) -> Any:
    """Another JSON value in place of `value` (the same kind where it has one)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, list):
        return [_alter(value[0]), *value[1:]] if value else [0]
    if isinstance(value, dict):
        if not value:
            return {"x": 1}
        key = next(iter(value))
        return {**value, key: _alter(value[key])}
    return 1


def _sample(lines: list[dict[str, Any]]) -> list[int]:
    """The step lines doctored field by field: the first roll, the first action, the first
    table outcome, the last step and the end."""
    picks = [next((i for i, x in enumerate(lines) if x["type"] == kind), None)
             for kind in ("chance", "action")]
    picks.append(next((i for i, x in enumerate(lines) if "results" in x), None))
    picks += [len(lines) - 2, len(lines) - 1]
    return sorted({i for i in picks if i is not None and i > 0})


def doctored(lines: list[dict[str, Any]], thorough: bool = True
             ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(what was done, the doctored lines) for one log; not `thorough`: only the fields the
    dice, the table and the bots decide, and the order (each re-play of a physics log costs
    its throws)."""
    def edit(change: Callable[[list[dict[str, Any]]], Any]) -> list[dict[str, Any]]:
        copy = json.loads(json.dumps(lines))
        change(copy)
        return copy

    header_keys = [k for k in lines[0] if k != "bots"]  # the bots: below
    if not thorough:
        header_keys = [k for k in header_keys if k in ("seed", "options", "world")]
    for key in header_keys:  # every header field changed; those that set the game left out
        yield f"header {key} changed", edit(lambda x, k=key: x[0].update({k: _alter(x[0][k])}))
        if key in ("game", "players", "seed", "options", "roller", "world"):
            yield f"header {key} dropped", edit(lambda x, k=key: x[0].pop(k))
    for n, i in enumerate(_sample(lines)):
        keys = [k for k in lines[i] if thorough or k in ("faces", "results", "digest")]
        for key in keys:
            yield f"line {i + 1} {key} changed", edit(
                lambda x, i=i, k=key: x[i].update({k: _alter(x[i][k])}))
            if n == 0:
                yield f"line {i + 1} {key} dropped", edit(lambda x, i=i, k=key: x[i].pop(k))
    for i in [i for i, x in enumerate(lines) if x["type"] == "chance" and x["faces"]][:2]:
        sides = FACES[lines[i]["kind"].split(":")[0]]
        yield f"line {i + 1} a face", edit(lambda x, i=i, s=sides: x[i]["faces"].__setitem__(
            0, x[i]["faces"][0] % s + 1))
        yield f"line {i + 1} a die more", edit(lambda x, i=i: x[i]["faces"].append(1))
    for i in [i for i, x in enumerate(lines) if "results" in x][:1]:
        for key in [k for k, v in lines[i]["results"][0].items() if isinstance(v, float | list)]:
            yield f"line {i + 1} results {key}", edit(
                lambda x, i=i, k=key: x[i]["results"][0].update({k: _alter(x[i]["results"][0][k])}))
    for roller in ("seeded", "physics", "openspiel", "none", "banana", "", 7, None):
        if roller != lines[0]["roller"] and (roller in ("banana", "", 7, None) or any(
                x["type"] == "chance" for x in lines)):  # a game without dice names any
            yield f"roller {roller!r}", edit(lambda x, r=roller: x[0].update(roller=r))
    played = [k for k in dict.fromkeys(lines[0]["players"]) if k != "human"]
    # (A setting changed to one with which the bot plays the same game is a true account
    # of that game, as a seed that rolls the same dice would be: not doctored here.)
    for kind in played:
        yield f"bots {kind} junk", edit(lambda x, k=kind: x[0]["bots"].setdefault(k, {}).update(
            junk="x"))
        yield f"bots {kind} depth", edit(lambda x, k=kind: x[0]["bots"].setdefault(k, {}).update(
            depth=99))
        yield f"bots {kind} not settings", edit(lambda x, k=kind: x[0]["bots"].update({k: 5}))
    yield "bots banana", edit(lambda x: x[0]["bots"].update(banana={}))
    yield "bots dropped", edit(lambda x: x[0].pop("bots"))
    if "mcts" in played:
        for value in ("5", 1.5, True, 10**9, -1):
            yield f"bots mcts iterations {value!r}", edit(
                lambda x, v=value: x[0]["bots"]["mcts"].update(iterations=v))
    n = len(lines)
    yield "lines 2 and 3 swapped", edit(lambda x: x.__setitem__(slice(1, 3), x[2:0:-1]))
    yield "the end line moved up", edit(lambda x: x.insert(n - 2, x.pop()))
    yield "no end line", edit(lambda x: x.pop())
    yield "the header last", edit(lambda x: x.append(x.pop(0)))
    if thorough:
        yield "the last two steps swapped", edit(lambda x: x.__setitem__(
            slice(n - 3, n - 1), [x[n - 2], x[n - 3]]))
        yield "a step twice", edit(lambda x: x.insert(2, x[1]))
        yield "a step left out", edit(lambda x: x.pop(n // 2))
        yield "steps reversed", edit(lambda x: x.__setitem__(slice(1, n - 1), x[n - 2:0:-1]))


@pytest.mark.parametrize("name", list(GAMES))
def test_every_doctored_log_of_every_game_and_dice_is_refused(logs: dict[str, Path],
                                                             tmp_path: Path, name: str) -> None:
    text = logs[name].read_text()
    assert _refusal(logs[name]) == ""  # the log as written verifies
    lines = [json.loads(x) for x in text.splitlines()]
    bad = tmp_path / "bad.jsonl"
    passed, count = [], 0
    for what, change in doctored(lines, thorough=name not in PHYSICS):
        doctored_text = "".join(json.dumps(x) + "\n" for x in change)
        if doctored_text == text:
            continue  # the edit changed nothing (a value altered into itself)
        count += 1
        bad.write_text(doctored_text)
        why = _refusal(bad)
        if not why:
            passed.append(what)
        assert "\n" not in why and "Traceback" not in why, (what, why)
    assert count > (20 if name in PHYSICS else 50) and not passed, \
        f"{name}: verified although doctored: {passed}"


def test_a_roller_name_is_refused_unless_known_and_the_dice_it_names_are_rederived(
        logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Any roller but 'seeded' turned the dice check off; now each known one says what
    becomes of its faces, and any other name is one line, exit 2."""
    text = logs["diced"].read_text()
    bad = tmp_path / "x.jsonl"
    bad.write_text(text.replace('"roller": "seeded"', '"roller": "banana"', 1))
    assert cli(["replay", str(bad), "--verify"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1: roller: not a dice roller" in err
    assert err.index("roller:") < err.index("banana")  # the field and reason, then the value
    # Dice taken as given (OpenSpiel's) are consistent but not verified: exit 1, and said so.
    bad.write_text(text.replace('"roller": "seeded"', '"roller": "openspiel"', 1))
    assert cli(["replay", str(bad), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "NOT VERIFIED" in out and "the faces of 11 rolls were taken as given" in out
    assert "verified," not in out


def test_physics_tray_dice_are_resimulated(logs: dict[str, Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log = logs["diced-physics"]
    assert cli(["replay", str(log), "--verify"]) == 0
    assert "3 rolls re-simulated in the physics tray" in capsys.readouterr().out
    # Without a physics roller (the rules alone), the tray's faces are not re-derived.
    result = verify_log(log)
    assert not result.ok and result.consistent and "not re-simulated" in result.message
    lines = log.read_text().splitlines()
    i = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "chance")
    line = json.loads(lines[i])
    line["faces"][0] = line["faces"][0] % 6 + 1
    lines[i] = json.dumps(line)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    assert cli(["replay", str(bad), "--verify"]) == 1
    assert "(physics), log has" in capsys.readouterr().out


def test_the_windows_tray_dice_are_resimulated_too(tmp_path: Path) -> None:
    """A d6 game in the window throws every roll in the tray and logs roller 'physics':
    verify re-simulates its rolls like those of `tabletop play --dice physics`."""
    from simulator.render.d6.session import DiceSession

    log = tmp_path / "window.jsonl"
    with open(log, "w") as fh:
        session = DiceSession("diced", ["random"] * 3, seed=2, options={"max_rounds": 1},
                              log=fh)
        while not session.state.is_terminal():
            if session.needs_roll():
                session.apply_roll(session.throw())
            else:
                session.apply(session.bot_action())
    result = verify_log(log, make_roller)
    assert result.ok and "4 rolls re-simulated in the physics tray" in result.message


def test_deep_white_sea_physics_throws_are_resimulated(logs: dict[str, Path], tmp_path: Path
                                                       ) -> None:
    lines = [json.loads(x) for x in logs["dws-physics"].read_text().splitlines()]
    i = next(i for i, x in enumerate(lines) if "results" in x)
    pose = lines[i]["results"][0]
    assert "(2 throws re-simulated on the table" in verify_log(logs["dws-physics"],
                                                               make_roller).message
    pose_key = next(k for k, v in pose.items() if isinstance(v, float | list))
    pose[pose_key] = _alter(pose[pose_key])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert not verify_log(bad, make_roller).ok


def test_an_older_versions_resumed_log_is_consistent_but_not_verified(logs: dict[str, Path],
                                                                     tmp_path: Path) -> None:
    """Older versions logged a resumed game from the saved state (`resumed_from`), which
    nothing re-derives: checked from there on, but not verified."""
    lines = [json.loads(x) for x in logs["diced"].read_text().splitlines()]
    spec = registry.lookup("diced")
    setup, _chance, _seats = streams(4, 3)
    start = spec.module().new_game(3, spec.resolve_options(lines[0]["options"]), setup)
    header = header_line("diced", lines[0]["players"], 4, lines[0]["options"], "seeded",
                         lines[0]["bots"], start, resumed=True)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines[1:]]))
    result = verify_log(old)
    assert not result.ok and result.consistent and "resumed_from" in result.message
    header["resumed_from"]["tokens"] = [9, 0, 0]  # what the saved state says is checked on
    old.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines[1:]]))
    assert not verify_log(old).consistent


class _Loaded:
    """A roller that always rolls 6, 1, 1, ... under another roller's name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def roll(self, kind: str, n: int, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple([6, 1, 1] * n)[:n]


@pytest.mark.parametrize("name", ["seeded", "physics"])
def test_a_game_played_with_loaded_dice_does_not_verify(tmp_path: Path, name: str) -> None:
    log = tmp_path / "loaded.jsonl"
    with open(log, "w") as fh:
        play("diced", ["random", "greedy", "random"], 5, {"max_rounds": 2}, roller=_Loaded(name),
             log=fh)
    result = verify_log(log, make_roller)
    assert not result.ok and not result.consistent and "line 2: seed 5 rolls" in result.message


@pytest.mark.parametrize("bots,field", [
    ({"greedy": {"depth": 99, "junk": "x"}}, "bots.greedy.depth: not a setting of the greedy bot"),
    ({"mcts": {"iterations": 8, "junk": "x"}}, "bots.mcts.junk: not a setting of the mcts bot"),
    ({"mcts": {"iterations": "8"}}, "bots.mcts.iterations: must be a whole number"),
    ({"mcts": {"iterations": 10**9}}, "bots.mcts.iterations: must be from 0 to 1000000"),
    ({"planner": {}}, "bots: not a bot of dicewar"),
    ({"mcts": []}, "bots.mcts: must be an object of settings"),
])
def test_unknown_bots_or_settings_are_one_line_naming_the_field(
        logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        bots: dict[str, Any], field: str) -> None:
    lines = [json.loads(x) for x in logs["dicewar"].read_text().splitlines()]
    lines[0]["bots"].update(bots)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert cli(["replay", str(bad), "--verify"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"line 1: {field}" in err, err


# -- saves ------------------------------------------------------------------------------------


def _interrupted(path: Path, game: str, players: list[str], seed: int, options: dict[str, Any],
                 after: int, bots: dict[str, Any] | None = None) -> None:
    """Play a game with --save's saving and stop it after `after` steps."""
    def save(state: Any, lines: list[str]) -> None:
        save_game(path, game, state, "--save", log=lines)
        if len(lines) > after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play(game, players, seed, options, bot_settings=bots, after_step=save)


@pytest.mark.parametrize("after", [1, 9])
def test_a_resumed_game_logs_the_whole_game_byte_for_byte(tmp_path: Path, after: int,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """The log of a game saved, interrupted and resumed is the log of the same game played
    through: from the first step of the original game, and it verifies."""
    whole, resumed, save = tmp_path / "whole.jsonl", tmp_path / "resumed.jsonl", tmp_path / "s.json"
    args = ["dicewar", "--headless", "--players", "mcts,greedy", "--mcts-iterations", "8",
            "--seed", "6", "--max-plies", "12", "--quiet"]
    assert cli(["play", *args, "--log", str(whole)]) == 0
    _interrupted(save, "dicewar", ["mcts", "greedy"], 6, {"max_plies": 12}, after,
                 {"mcts": {"iterations": 8}})
    assert cli(["play", "dicewar", "--headless", "--load", str(save), "--quiet", "--log",
                str(resumed)]) == 0
    assert resumed.read_bytes() == whole.read_bytes()
    assert verify_log(resumed).ok
    # The save's players, seed and bots are the game's: others are one line, exit 2.
    capsys.readouterr()
    assert cli(["play", "dicewar", "--headless", "--load", str(save), "--players",
                "random,greedy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "players: a resumed game goes on as its log began it" in err


@pytest.fixture(scope="module")
def dicewar_saves(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    """DiceWar saves after 1 step (in the setup: the start rolls) and after 6 steps."""
    folder = tmp_path_factory.mktemp("saves")
    out = {}
    for after in (1, 6):
        path = folder / f"after{after}.json"
        _interrupted(path, "dicewar", ["random", "greedy"], 3, {"max_plies": 20}, after)
        out[after] = json.loads(path.read_text())
    return out


def _start_roll(state: dict[str, Any]) -> None:
    rolls = state["start_rolls"]
    key = next(iter(rolls)) if isinstance(rolls, dict) else 0
    rolls[key] = _alter(rolls[key])


@pytest.mark.parametrize("after,what,change,field", [
    (6, "vp", lambda s: s.update(vp=[99, 0]), "state.vp"),
    (1, "a start roll", lambda s: _start_roll(s["state"]), "state.start_rolls"),
    (1, "winner during the setup", lambda s: s["state"].update(winner=0), "state.winner"),
    (6, "a face in its log", lambda s: s["log"].__setitem__(1, s["log"][1].replace(
        '"faces": [', '"faces": [7, ', 1)), "log: the game it records does not re-derive"),
    (6, "its log cut short", lambda s: s["log"].pop(), "state"),
    (6, "a format-1 save", lambda s: (s.update(format=1), s.pop("log")), "format: a format-1 "
     "save holds a position"),
    (6, "no log", lambda s: s.pop("log"), "log: must list the game's log lines"),
    (6, "a log of another game", lambda s: s.update(log=[json.dumps({"type": "header"})]),
     "line 1: format"),
])
def test_a_tampered_save_is_refused_in_one_line(dicewar_saves: dict[int, dict[str, Any]],
                                                tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                after: int, what: str,
                                                change: Callable[[dict[str, Any]], Any],
                                                field: str) -> None:
    data = json.loads(json.dumps(dicewar_saves[after]))
    if what == "vp":
        change(data["state"])
    else:
        change(data)
    save = tmp_path / "save.json"
    save.write_text(json.dumps(data))
    log = tmp_path / "game.jsonl"
    assert cli(["play", "dicewar", "--headless", "--load", str(save), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(save) in err and field in err, err
    assert not log.exists()  # refused before anything was written
    with pytest.raises(RulesError, match="--load"):
        resume_game(save, "dicewar", "--load")
    # Untouched, the same save loads.
    save.write_text(json.dumps(dicewar_saves[after]))
    assert load_game(save, "dicewar").serialize() == dicewar_saves[after]["state"]


def test_a_save_of_physics_dice_needs_the_physics_roller_to_be_checked(tmp_path: Path) -> None:
    save = tmp_path / "save.json"

    def stop(state: Any, lines: list[str]) -> None:
        save_game(save, "diced", state, log=lines)
        if len(lines) > 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play("diced", ["random"] * 3, 2, {"max_rounds": 1}, roller=make_roller("physics"),
             after_step=stop)
    assert resume_game(save, "diced", rollers=make_roller).steps == 3
    with pytest.raises(RulesError, match="does not re-derive.*not re-simulated"):
        resume_game(save, "diced")


# -- the server's autosave ----------------------------------------------------------------------


def _table(folder: Path, name: str, steps: int, seats: list[str] | None = None) -> Path:
    table = GameTable.create(name, "dicewar", seats or ["random", "greedy"], 3, {}, "seeded",
                             folder)
    for _ in range(steps):
        table.auto_step()
    table.close()
    return folder / name / TABLE_FILE


def _edit(path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("what,change,field", [
    ("vp", lambda d: d["state"].update(vp=[77, 0]), "state.vp: not the state its log"),
    ("a chance stream", lambda d: d["rng"]["chance"]["state"].update(state=1), "rng.chance"),
    ("a seat's bot", lambda d: d["seats"][1].update(kind="mcts"), "seats: the log's players"),
    ("the seed", lambda d: d.update(seed=4), "seed: the log's"),
])
def test_a_tampered_autosave_is_refused_and_the_other_tables_resume(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, what: str,
        change: Callable[[dict[str, Any]], Any], field: str) -> None:
    doctored = _table(tmp_path, "t1", 6)
    _table(tmp_path, "t2", 6)
    _edit(doctored, change)
    with pytest.raises(RulesError) as exc:
        GameTable.load(doctored.parent)
    message = str(exc.value)
    assert "\n" not in message and str(doctored) in message and field in message, message
    assert TableServer(tmp_path).load() == ["t2"]
    assert any("t1/table.json" in r.getMessage() and field in r.getMessage()
               for r in caplog.records)


def test_a_resumed_table_goes_on_as_its_log_and_verifies_from_the_first_step(tmp_path: Path
                                                                             ) -> None:
    saved = _table(tmp_path, "t1", 5)
    table = GameTable.load(saved.parent)
    while not table.finished:
        table.auto_step()
    table.close()
    played = GameTable.create("t9", "dicewar", ["random", "greedy"], 3, {}, "seeded", tmp_path)
    while not played.finished:
        played.auto_step()
    played.close()
    ours = (saved.parent / LOG_FILE).read_bytes()
    assert ours == (tmp_path / "t9" / LOG_FILE).read_bytes()
    assert verify_log(saved.parent / LOG_FILE).ok


def test_a_waiting_table_whose_state_is_not_its_start_is_refused(tmp_path: Path) -> None:
    saved = _table(tmp_path, "t1", 0, ["open", "random"])
    GameTable.load(saved.parent).close()  # as saved, it loads
    _edit(saved, lambda d: d["state"].update(vp=[77, 0]))
    with pytest.raises(RulesError, match="state.vp: not the game's start"):
        GameTable.load(saved.parent)


def test_replay_lines_reads_a_history_without_its_end(logs: dict[str, Path]) -> None:
    texts = logs["diced"].read_text().splitlines()
    result, replay = replay_lines(texts[:6], "history")
    assert result.ok and replay is not None and replay.steps == 5 and not replay.ended
    result, replay = replay_lines(texts, "history")
    assert result.ok and replay is not None and replay.ended
