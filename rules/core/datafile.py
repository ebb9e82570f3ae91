"""Reading user-authored YAML game data (maps, tribes) with one-line errors.

Game data errors are `RulesError`s worded like `DataError`: `<file>: <field>: <message>
(got <value>)`. The CLI turns them into one line on stderr and exit status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dice_models.errors import DataError, one_line, shown, shown_field
from dice_models.files import read_yaml, resolve_named
from rules.core.protocols import RulesError


def data_error(source: str, field: str, message: str, value: Any = None, *,
               show_value: bool = True) -> RulesError:
    text = f"{one_line(source)}: {shown_field(field)}: {one_line(message)}"
    if show_value:
        text += f" (got {shown(value)})"
    return RulesError(text)


def load_yaml(path: str | Path) -> Any:
    """Parse a YAML file with the project's one bounded reader (`dice_models.files`);
    anything wrong with the file is one line, raised as a `RulesError`."""
    try:
        return read_yaml(path)
    except DataError as exc:
        raise RulesError(str(exc)) from None


def resolve_data_file(name_or_path: str, folder: Path, what: str) -> Path:
    """A shipped file by name (`folder/<name>.yaml`) or a YAML file by path; a folder or
    file of the same name in the current directory does not hide a shipped one."""
    try:
        return resolve_named(name_or_path, folder, what)
    except DataError as exc:
        raise RulesError(str(exc)) from None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    known = list(known)
    close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.5)
    if close:
        return f"; did you mean {close[0]}?"
    return f"; known: {', '.join(known)}" if known else ""


def check_keys(source: str, where: str, data: dict[str, Any], allowed: Iterable[str]) -> None:
    """Reject unknown keys (a typo in a key would otherwise be silently ignored)."""
    allowed = list(allowed)
    for key in data:
        if key not in allowed:
            raise data_error(source, f"{where}.{key}" if where else str(key),
                             "unknown field" + did_you_mean(str(key), allowed), show_value=False)


def need_int(source: str, field: str, value: Any, lo: int | None = None,
             hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise data_error(source, field, "must be an integer", value)
    if lo is not None and value < lo:
        raise data_error(source, field, f"must be at least {lo}", value)
    if hi is not None and value > hi:
        raise data_error(source, field, f"must be at most {hi}", value)
    return value


def need_str(source: str, field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise data_error(source, field, "must be a non-empty string", value)
    return value


def need_choice(source: str, field: str, value: Any, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        hint = did_you_mean(str(value), choices) if isinstance(value, str) else (
            f"; one of {', '.join(choices)}")
        raise data_error(source, field, "unknown value" + hint, value)
    return str(value)
