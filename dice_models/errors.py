"""The one error type for bad user data, shared by every layer."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class DataError(ValueError):
    """Bad user data: one line naming the file, field and value."""

    def __init__(self, source: str | Path, fieldname: str, message: str, value: Any = None,
                 *, show_value: bool = True) -> None:
        self.source = str(source)
        self.field = fieldname
        self.value = value
        text = f"{self.source}: {fieldname}: {message}"
        if show_value:
            text += f" (got {value!r})"
        super().__init__(text)
