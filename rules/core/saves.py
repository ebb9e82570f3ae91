"""The one save format for a game in progress, written by `tabletop play --save` and by a
game's own `save_game`, read by `tabletop play --load` and `load_game`:

    {"type": "tabletop-save", "format": 1, "game": "<registry name>", "state": {...}}

`state` is the game's `serialize()`. A save is written atomically (temporary file, fsync,
rename), so a full disk or a size limit never truncates the previous save. Reading checks
the type, the format and the game before the state is handed to the game's `deserialize`;
every problem is one `RulesError` line naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dice_models.files import parse_json, read_text
from dice_models.outfiles import write_json
from rules.core.protocols import RulesError

SAVE_TYPE = "tabletop-save"
SAVE_FORMAT = 1


def save_game(path: str | Path, game: str, state: Any, what: str = "save") -> None:
    """Write `state` of registered game `game` to `path` (never half-written)."""
    write_json(path, {"type": SAVE_TYPE, "format": SAVE_FORMAT, "game": game,
                      "state": state.serialize()}, what)


def load_game(path: str | Path, game: str | None = None, what: str = "save") -> Any:
    """The state saved in `path`; with `game`, the save must be of that game."""
    from rules.registry import lookup  # the registry imports the games lazily

    data = read_save(path, what)
    name = data["game"]
    if game is not None and name != game:
        raise RulesError(f"{path}: {what}: the save is a {name!r} game, not {game}")
    try:
        return lookup(name).module().deserialize(data["state"])
    except RulesError as exc:  # name the file as well as the field
        raise RulesError(f"{path}: {what}: {exc}") from None


def read_save(path: str | Path, what: str = "save") -> dict[str, Any]:
    """A save's top level, checked: type, format, game name and a state object."""
    # Bounded, UTF-8 checked and parsed like every file we read (one-line DataErrors).
    data = parse_json(read_text(path), path, "save")
    if not isinstance(data, dict) or data.get("type") != SAVE_TYPE:
        raise RulesError(f"{path}: {what}: not a tabletop saved game (type is not {SAVE_TYPE!r})")
    if data.get("format") != SAVE_FORMAT or isinstance(data.get("format"), bool):
        raise RulesError(f"{path}: {what}: format: unsupported save format "
                         f"{_short(data.get('format'))} (this version reads {SAVE_FORMAT})")
    if not isinstance(data.get("game"), str):
        raise RulesError(f"{path}: {what}: game: must name the game (got {_short(data.get('game'))})")
    if not isinstance(data.get("state"), dict):
        raise RulesError(f"{path}: {what}: state: must be an object")
    return data


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
