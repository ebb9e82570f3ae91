"""The one save format for a game in progress, written by `tabletop play --save` and by a
game's own `save_game`, read by `tabletop play --load` and `load_game`:

    {"type": "tabletop-save", "format": 2, "game": "<registry name>", "state": {...},
     "log": ["<the game's log line 1>", ...]}

`state` is the game's `serialize()`; `log` is the game's log so far (`rules.core.runner`'s
lines, as written, from the header of the game's first step), which makes the save
checkable: loading re-derives the log through the engine (the bots re-run, the dice
re-rolled or re-simulated, as `tabletop replay --verify` does) and refuses, in one line, a
save whose log does not re-derive or whose state is not the one its log reaches. A game
resumed from a save plays on from there with its random streams and bots as they stood, and
its log is the whole game's, from the first step (`rules.core.runner.play`).

Format 1 (an older version's save, and `save_game` of a bare state without a log) is a
*position*: a state and nothing that shows how it was reached. `load_game` still reads one
(for a library caller that builds positions), but `resume_game`, and so `tabletop play
--load`, refuses it in one line: nothing could check it, or the game played on from it.

A save is written atomically (temporary file, fsync, rename), so a full disk or a size limit
never truncates the previous save. Reading checks the type, the format and the game before
the state is handed to the game's `deserialize`; every problem is one `RulesError` line
naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dice_models.errors import shown
from dice_models.files import parse_json, read_text
from dice_models.outfiles import write_json
from rules.core.protocols import RulesError

if TYPE_CHECKING:
    from rules.core.runner import ReplayedGame, RollerSource

SAVE_TYPE = "tabletop-save"
SAVE_FORMAT = 2  # a state and the log that reaches it
POSITION_FORMAT = 1  # a state alone (older versions' saves; save_game without a log)


def save_game(path: str | Path, game: str, state: Any, what: str = "save",
              log: Sequence[str] | None = None) -> None:
    """Write `state` of registered game `game` to `path` (never half-written), with `log`,
    the game's log lines so far as written (`GameRecord.texts`, the `after_step` argument of
    `rules.core.runner.play`). Without a log the save is a position (format 1), which
    `tabletop play --load` refuses."""
    data: dict[str, Any] = {"type": SAVE_TYPE, "format": SAVE_FORMAT if log is not None
                            else POSITION_FORMAT, "game": game, "state": state.serialize()}
    if log is not None:
        data["log"] = list(log)
    write_json(path, data, what)


def load_game(path: str | Path, game: str | None = None, what: str = "save",
              rollers: RollerSource | None = None) -> Any:
    """The state saved in `path`; with `game`, the save must be of that game. A save with a
    log is checked against it (`resume_game`); a position (format 1) is read as it is."""
    data = read_save(path, what, game)
    if data["format"] == SAVE_FORMAT:
        return _replayed(path, what, data, rollers).state
    from rules.registry import lookup  # the registry imports the games lazily

    try:
        return lookup(data["game"]).module().deserialize(data["state"])
    except RulesError as exc:  # name the file as well as the field
        raise RulesError(f"{path}: {what}: {exc}") from None


def resume_game(path: str | Path, game: str | None = None, what: str = "save",
                rollers: RollerSource | None = None) -> ReplayedGame:
    """The game saved in `path`, re-derived from its log up to where it was saved: what
    `rules.core.runner.play(resume=...)` plays on from. One `RulesError` line for a save
    that is not of `game`, is a position without a log, whose log does not re-derive (a
    doctored step, dice the seed does not roll, a physics roll `rollers` cannot re-simulate)
    or whose state is not the one its log reaches."""
    data = read_save(path, what, game)
    if data["format"] != SAVE_FORMAT:
        raise RulesError(f"{path}: {what}: format: a format-{POSITION_FORMAT} save holds a "
                         "position without the log that reached it, so nothing can check "
                         "it and a game played on from it could not verify (this version "
                         f"goes on only from a format-{SAVE_FORMAT} save, which `tabletop "
                         "play --save` writes)")
    return _replayed(path, what, data, rollers)


def read_save(path: str | Path, what: str = "save", game: str | None = None) -> dict[str, Any]:
    """A save's top level, checked: type, format, game name, a state object and, in format
    2, a log (a list of texts); with `game`, the save must be of that game."""
    # Bounded, UTF-8 checked and parsed like every file we read (one-line DataErrors).
    data = parse_json(read_text(path), path, "save")
    if not isinstance(data, dict) or data.get("type") != SAVE_TYPE:
        raise RulesError(f"{path}: {what}: not a tabletop saved game (type is not {SAVE_TYPE!r})")
    fmt = data.get("format")
    if fmt not in (SAVE_FORMAT, POSITION_FORMAT) or isinstance(fmt, bool):
        raise RulesError(f"{path}: {what}: format: unsupported save format "
                         f"{shown(fmt)} (this version reads {POSITION_FORMAT} and {SAVE_FORMAT})")
    if not isinstance(data.get("game"), str):
        raise RulesError(f"{path}: {what}: game: must name the game (got {shown(data.get('game'))})")
    if game is not None and data["game"] != game:
        raise RulesError(f"{path}: {what}: game: the save is of another game, not {game} (got "
                         f"{shown(data['game'])})")
    if not isinstance(data.get("state"), dict):
        raise RulesError(f"{path}: {what}: state: must be an object")
    if fmt == SAVE_FORMAT:
        log = data.get("log")
        if (not isinstance(log, list) or not log
                or not all(isinstance(line, str) for line in log)):
            raise RulesError(f"{path}: {what}: log: must list the game's log lines from its "
                             "header, as texts")
    return data


def _replayed(path: str | Path, what: str, data: dict[str, Any],
              rollers: RollerSource | None) -> ReplayedGame:
    """The save's log re-derived, and its state checked against where the log leaves it."""
    from rules.core.runner import replay_lines  # the runner imports the registry

    source = f"{path}: {what}: log"
    result, replay = replay_lines(data["log"], source, rollers)
    if replay is None:
        raise RulesError(f"{source}: the game it records does not re-derive ({result.message})")
    if replay.spec.name != data["game"]:
        raise RulesError(f"{path}: {what}: game: the save says {shown(data['game'])}, its log "
                         f"is a {replay.spec.name} game")
    reached = json.loads(json.dumps(replay.state.serialize()))
    if reached != data["state"]:
        keys = sorted(set(reached) | set(data["state"]), key=str)
        differ = [k for k in keys if reached.get(k) != data["state"].get(k)]
        fields = ", ".join(f"state.{k}" for k in differ[:5]) or "state"
        raise RulesError(f"{path}: {what}: {fields}: not the state its log reaches after "
                         f"{replay.steps} steps (the save was changed, or is not this log's)")
    return replay
