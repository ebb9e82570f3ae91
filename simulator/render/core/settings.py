"""The window's settings remembered between runs: its size, how it is drawn, the sound's
volume and mute, and the fast-forward speed for bot turns.

They live in one small JSON file, `$TABLETOP_SETTINGS` when that is set, else
`$XDG_CONFIG_HOME/tabletop/settings.json` (`~/.config/tabletop/settings.json` without
XDG_CONFIG_HOME):

    {"window_size": [1280, 720], "shading": "auto", "volume": 0.8, "mute": false,
     "fast_forward": 4, "shadows": "auto"}

The file is read when a window opens. It is outside input: a file that cannot be read or
parsed, or a field with a bad value, is one line on stderr naming the file and the field
(`load` returns those lines), the defaults are used for what is wrong, and the file is left
as it was until the player changes a setting. A field this version does not know is kept
when the file is written again. Command-line flags win over the file for that run and are
remembered (`merged`). The file is written whole through `dice_models.outfiles` (a
temporary file renamed over it) each time the player changes a setting in the window.

Plain Python: no Panda3D.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from dice_models.errors import DataError
from dice_models.files import read_text
from dice_models.outfiles import ensure_dir, write_text

__all__ = ["ENV", "FAST_FORWARD_SPEEDS", "SHADINGS", "SHADOWS", "Remembered", "Settings", "load",
           "merged", "save", "settings_path"]

ENV = "TABLETOP_SETTINGS"
SHADINGS = ("auto", "pbr", "gl", "software")
SHADOWS = ("auto", "soft", "planar", "off")  # `shadows.py`: auto is soft on a GPU, else planar
FAST_FORWARD_SPEEDS = (2, 4, 8, 16)  # times real speed, what the fast-forward key plays at
MAX_BYTES = 64 * 1024
WINDOW_MIN, WINDOW_MAX = 320, 8192  # px a side


@dataclass(frozen=True)
class Settings:
    window_size: tuple[int, int] = (1280, 720)
    shading: str = "auto"
    volume: float = 0.8  # 0..1
    mute: bool = False
    fast_forward: int = 4  # one of FAST_FORWARD_SPEEDS
    shadows: str = "auto"  # one of SHADOWS


def settings_path(env: dict[str, str] | None = None) -> Path:
    """Where the settings live (the module's note)."""
    env = dict(os.environ) if env is None else env
    if env.get(ENV):
        return Path(env[ENV])
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "tabletop" / "settings.json"


def load(path: str | Path) -> tuple[Settings, dict[str, Any], list[str]]:
    """The settings in `path` (the defaults where it is missing), every field the file has
    as read (kept when it is written again) and one line per problem (a bad file, a bad
    field: the defaults used for it)."""
    path = Path(path)
    if not _exists(path):
        return Settings(), {}, []
    try:
        text = read_text(path, MAX_BYTES)
        data = json.loads(text)
    except DataError as exc:
        return Settings(), {}, [f"{exc}; using the default settings"]
    except json.JSONDecodeError as exc:
        return Settings(), {}, [f"{path}: not JSON ({exc.msg} at line {exc.lineno} column "
                                f"{exc.colno}); using the default settings"]
    if not isinstance(data, dict):
        return Settings(), {}, [f"{path}: the settings must be a JSON object (got "
                                f"{type(data).__name__}); using the default settings"]
    values: dict[str, Any] = {}
    problems = []
    for name, check in _CHECKS.items():
        if name not in data:
            continue
        try:
            values[name] = check(data[name])
        except ValueError as exc:
            problems.append(f"{path}: {name}: {exc} (got {_shown(data[name])}); "
                            f"using {_shown(_default(name))}")
    return Settings(**values), data, problems


def merged(settings: Settings, **flags: Any) -> Settings:
    """`settings` with the command-line flags that were given (not None) in their place;
    each is checked as a field of the file is (ValueError naming it)."""
    given: dict[str, Any] = {}
    for name, value in flags.items():
        if value is None:
            continue
        if name not in _CHECKS:
            raise ValueError(f"no setting {name!r}")
        given[name] = _CHECKS[name](value)
    return replace(settings, **given)


def save(path: str | Path, settings: Settings, kept: dict[str, Any] | None = None) -> Path:
    """Write `settings` to `path` atomically (its folder made if need be), with the fields
    of `kept` this version does not know; OutputError (one line) if it cannot be written."""
    path = Path(path)
    data = {k: v for k, v in (kept or {}).items() if k not in _CHECKS}
    fields = asdict(settings)
    fields["window_size"] = list(settings.window_size)
    data.update(fields)
    ensure_dir(path.parent, "settings")
    return write_text(path, json.dumps(data, indent=2) + "\n", "settings")


def _window_size(v: Any) -> tuple[int, int]:
    if not (isinstance(v, list) and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise ValueError("must be [width, height] in pixels")
    if not all(WINDOW_MIN <= x <= WINDOW_MAX for x in v):
        raise ValueError(f"each side must be {WINDOW_MIN}..{WINDOW_MAX} px")
    return (v[0], v[1])


def _shading(v: Any) -> str:
    if v not in SHADINGS:
        raise ValueError(f"must be one of {', '.join(SHADINGS)}")
    return str(v)


def _shadows(v: Any) -> str:
    if v not in SHADOWS:
        raise ValueError(f"must be one of {', '.join(SHADOWS)}")
    return str(v)


def _volume(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not 0 <= v <= 1:
        raise ValueError("must be a number from 0 to 1")
    return float(v)


def _mute(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


def _fast_forward(v: Any) -> int:
    if isinstance(v, bool) or v not in FAST_FORWARD_SPEEDS:
        raise ValueError(f"must be one of {', '.join(map(str, FAST_FORWARD_SPEEDS))}")
    return int(v)


_CHECKS = {"window_size": _window_size, "shading": _shading, "volume": _volume,
           "mute": _mute, "fast_forward": _fast_forward, "shadows": _shadows}


def _exists(path: Path) -> bool:
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # there, or a name that cannot be: reading it says which
    return True


def _default(name: str) -> Any:
    v = getattr(Settings(), name)
    return list(v) if isinstance(v, tuple) else v


def _shown(v: Any) -> str:
    text = json.dumps(v) if isinstance(v, (int, float, str, bool, list, type(None))) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


class Remembered:
    """The settings of one run and the file they are remembered in. `flags` are the
    command-line flags given (not None): they win over the file for this run and are not
    written (`settings` is the file's with them in their place). `change(**fields)` is the
    player changing settings in the window: they are written to the file (atomically) and
    no flag holds them any longer; a write that fails is returned as
    one line for the window to show (the game goes on, the file stays as it was)."""

    def __init__(self, path: str | Path, saved: Settings, kept: dict[str, Any] | None = None,
                 **flags: Any) -> None:
        self.path = Path(path)
        self.saved = saved
        self.kept = dict(kept or {})
        self.flags = {k: v for k, v in flags.items() if v is not None}
        merged(saved, **self.flags)  # a bad flag: ValueError now

    @property
    def settings(self) -> Settings:
        return merged(self.saved, **self.flags)

    @classmethod
    def read(cls, path: str | Path, warn: Any = None, **flags: Any) -> Remembered:
        """The file's settings; each problem with it is one line to `warn` (stderr)."""
        import sys

        saved, kept, problems = load(path)
        for line in problems:
            print(line, file=warn or sys.stderr)
        return cls(path, saved, kept, **flags)

    def change(self, **fields: Any) -> str:
        for name in fields:
            self.flags.pop(name, None)
        new = replace(self.saved, **fields)
        self.saved = new
        try:
            save(self.path, new, self.kept)
        except DataError as exc:
            return f"settings not saved: {exc}"
        return ""
