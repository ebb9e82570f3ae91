"""The one error type for bad user data, shared by every layer."""

from __future__ import annotations

import reprlib
from pathlib import Path
from typing import Any

# An echoed value is cut to this many characters: enough to recognise it, never a
# megabyte of a user's file on one error line.
MAX_SHOWN = 120

_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxset = _SHORT.maxfrozenset = 6
_SHORT.maxdict = 6
_SHORT.maxstring = 60
_SHORT.maxother = 60
_SHORT.maxlong = 40


def shown(value: Any) -> str:
    """`repr(value)` bounded in length and in the work it takes (reprlib stops at a depth and
    a count, so a huge or deeply shared structure costs no more than a small one)."""
    try:
        text = _SHORT.repr(value)
    except ValueError:  # an int past Python's 4300-digit str limit
        text = f"<{type(value).__name__} too long to show>"
    if len(text) > MAX_SHOWN:
        text = text[:MAX_SHOWN - 3] + "..."
    return text


class DataError(ValueError):
    """Bad user data: one line naming the file, field and value."""

    def __init__(self, source: str | Path, fieldname: str, message: str, value: Any = None,
                 *, show_value: bool = True) -> None:
        self.source = str(source)
        self.field = fieldname
        self.value = value
        text = f"{self.source}: {fieldname}: {message}"
        if show_value:
            text += f" (got {shown(value)})"
        super().__init__(text)
