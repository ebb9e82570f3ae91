"""The one error type for bad user data, shared by every layer."""

from __future__ import annotations

import math
import reprlib
from pathlib import Path
from typing import Any, TypeGuard

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


# The characters str.splitlines() breaks a line at, written as escapes in an error line: a
# YAML key or a file name may hold them, and the error must stay one line.
_BREAKS = str.maketrans({c: repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"})
MAX_FIELD = 100


def one_line(text: str) -> str:
    """`text` with every line break written as its escape, so it prints as one line."""
    return text.translate(_BREAKS)


# The longest error line the CLI prints: messages built elsewhere with a raw repr (a game's
# save checks) are cut here, once, whatever they echo.
MAX_LINE = 2000


def error_line(text: str) -> str:
    """An error message as the one line the CLI prints: line breaks escaped, length bounded."""
    text = one_line(text)
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 3] + "..."


def shown_field(name: str) -> str:
    """A field name (it may come from a user's key) on one line and at most MAX_FIELD long."""
    name = one_line(name)
    return name if len(name) <= MAX_FIELD else name[:MAX_FIELD - 3] + "..."


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


def is_finite_number(x: Any) -> TypeGuard[int | float]:
    """A real number a float holds: not a bool, not NaN or infinite, and not an int too large
    for a float (math.isfinite(10**400) raises OverflowError: a traceback from the checks)."""
    if not isinstance(x, int | float) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


class DataError(ValueError):
    """Bad user data: one line naming the file, field and value."""

    def __init__(self, source: str | Path, fieldname: str, message: str, value: Any = None,
                 *, show_value: bool = True) -> None:
        self.source = str(source)
        self.field = fieldname
        self.value = value
        text = f"{one_line(self.source)}: {shown_field(fieldname)}: {one_line(message)}"
        if show_value:
            text += f" (got {shown(value)})"
        super().__init__(text)
