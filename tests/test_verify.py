"""`tabletop replay LOG --verify` re-plays the game and compares every line byte for byte:
a doctored header, step, event or end line, or a line after the end, is a mismatch
(issue 15, item 11)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.core.runner import play, verify_log
from simulator.cli.main import main as cli

Lines = list[dict[str, Any]]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A Deep White Sea game on the kinematic table (its header carries the table) and a
    Diced game (seeded dice, chance lines), both with bots."""
    folder = tmp_path_factory.mktemp("logs")
    out = {}
    for game, players, options in [("deep-white-sea", ["random", "greedy"], {"table": "kinematic"}),
                                   ("diced", ["random", "greedy", "random"], {})]:
        path = folder / f"{game}.jsonl"
        with open(path, "w") as fh:
            play(game, players, 5, options, log=fh)
        out[game] = path
    return out


def _doctor(src: Path, dst: Path, edit: Callable[[Lines], None]) -> Path:
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    edit(lines)
    dst.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dst


def _first(lines: Lines, kind: str, where: Callable[[dict[str, Any]], bool] = lambda _: True
           ) -> dict[str, Any]:
    return next(x for x in lines if x["type"] == kind and where(x))


def _swap_winner(lines: Lines) -> None:
    end = lines[-1]
    end["winners"] = [w for w in range(len(end["returns"])) if w not in end["winners"]][:1]


def _edit_event(lines: Lines) -> None:
    line = _first(lines, "action", lambda x: bool(x["events"]))
    line["events"][0] = line["events"][0] + " (and a little more)"


def _edit_world(lines: Lines) -> None:
    world = lines[0]["world"]
    key = next(k for k, v in world.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    world[key] = world[key] * 2 + 1


EDITS: dict[str, tuple[str, Callable[[Lines], None]]] = {
    "end winners": ("deep-white-sea", _swap_winner),
    "end steps": ("deep-white-sea", lambda x: x[-1].update(steps=x[-1]["steps"] + 1)),
    "end returns": ("diced", lambda x: x[-1]["returns"].__setitem__(0, x[-1]["returns"][0] + 0.5)),
    "event text": ("deep-white-sea", _edit_event),
    "action text": ("diced", lambda x: _first(x, "action").update(text="something else")),
    "step number": ("diced", lambda x: _first(x, "chance").update(step=99)),
    "header seed": ("deep-white-sea", lambda x: x[0].update(seed=x[0]["seed"] + 1)),
    "header seed, dice": ("diced", lambda x: x[0].update(seed=x[0]["seed"] + 1)),
    "header players": ("deep-white-sea", lambda x: x[0].update(players=["greedy", "greedy"])),
    "header names": ("diced", lambda x: x[0]["names"].__setitem__(0, "Mallory (random)")),
    "header world": ("deep-white-sea", _edit_world),
    "header bots": ("diced", lambda x: x[0]["bots"].update(mcts={"iterations": 5})),
    "appended after the end": ("diced", lambda x: x.append(dict(x[-1]))),
    "appended action": ("deep-white-sea", lambda x: x.append(_first(x, "action"))),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_a_doctored_log_is_a_mismatch(logs: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str], name: str) -> None:
    game, edit = EDITS[name]
    assert verify_log(logs[game]).ok  # the log as written verifies
    bad = _doctor(logs[game], tmp_path / "bad.jsonl", edit)
    assert bad.read_text() != logs[game].read_text()
    result = verify_log(bad)
    assert not result.ok, f"{name}: {result.message}"
    assert cli(["replay", str(bad), "--verify"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("name,change", [
    ("a space inside a line", lambda t: t.replace('"type": "action"', '"type":  "action"', 1)),
    ("a blank line", lambda t: t.replace("\n", "\n\n", 2)),
    ("no final new line", lambda t: t.rstrip("\n")),
    ("a carriage return", lambda t: t.replace("\n", "\r\n", 1)),
    ("keys reordered", lambda t: t.replace('{"type": "end", "steps"', '{"steps"', 1)
     .replace('"winners"', '"type": "end", "winners"', 1)),
])
def test_verify_compares_bytes(logs: dict[str, Path], tmp_path: Path, name: str,
                               change: Callable[[str], str]) -> None:
    text = logs["diced"].read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(change(text).encode())  # bytes: no newline translation
    assert bad.read_bytes() != text.encode()
    assert not verify_log(bad).ok, name
