"""The window's feel under Xvfb (issue 37, item 4), driven by `tests/window_feel_script.py`
in a process of its own through the window's key events: a settings file read as
`tabletop play --settings` reads it (its shading is the drawing path, its volume the
sounds' loudness, its fast-forward speed the pace), the dice heard on a bot's roll, Tab's
fast-forward and M's mute on the next, the keys' changes and a new window size written to
the file. OpenAL plays into its null device there (ALSOFT_DRIVERS=null), so the sounds are
really loaded and started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.display, pytest.mark.slow]
SCRIPT = Path(__file__).with_name("window_feel_script.py")


def test_sound_fast_forward_and_settings_through_the_keys(xvfb_display, tmp_path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"volume": 0.5, "fast_forward": 8, "shading": "software", "theme": "dark"}')
    env = {**os.environ, "DISPLAY": xvfb_display, "TABLETOP_AUDIO": "openal",
           "ALSOFT_DRIVERS": "null", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(SCRIPT), str(path)], env=env, capture_output=True,
                          text=True, timeout=240, cwd=str(SCRIPT.parent.parent))
    if proc.returncode != 0 and "Could not open window" in proc.stderr:
        pytest.skip("Xvfb runs but Panda3D cannot open a window on it")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # The file's shading is the path the window draws with (auto would be gl here).
    assert out["drawn_by"] == "software" and out["size"] == [1280, 720]
    # Six sounds made, cached and loaded by a working OpenAL manager.
    assert out["device"] and out["sound_problem"] == ""
    assert out["sound_lengths"] == [0.14] * 3 + [0.08] * 3
    assert sorted(p.name for p in (tmp_path / "cache" / "tabletop" / "sounds").iterdir()) == \
        [f"{k}-{i}.wav" for k in ("dice", "table") for i in range(3)]
    # A bot's roll at real speed: on screen at least as long as its playback, heard.
    normal = out["normal"]
    assert normal["bot"] and normal["pace"] == 1.0
    assert normal["most"] >= normal["duration"]
    assert normal["unfinished"] >= normal["duration"] / 2  # not fast-forwarded
    assert normal["played"] >= 1
    assert all(0 < gain <= 0.5 for _t, _kind, gain in out["heard"])  # the file's volume
    # Tab and M: the next bot roll at x8 (the file's speed), silent, said on the HUD.
    fast = out["fast_muted"]
    assert fast["pace"] == 8.0 and fast["played"] == 0
    assert fast["least"] < fast["duration"] / 2  # over in less than half its real time
    assert "fast-forward x8" in out["status_fast_muted"] and "[muted]" in out["status_fast_muted"]
    assert "fast-forward" not in out["status_normal"]  # Tab again: off
    # '.', Shift+Tab and F8 wrote the file at once (unknown fields kept); the new size once
    # it had held.
    keys = out["file_after_keys"]
    assert keys.pop("window_size") in ([1280, 720], [1000, 600])  # the resize: maybe by then
    assert keys == {"theme": "dark", "shading": "auto", "volume": 0.6, "mute": False,
                    "fast_forward": 16, "shadows": "auto"}
    assert out["win_after_resize"] == [1000, 600]
    assert out["file_after_resize"]["window_size"] == [1000, 600]
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["settings.json"]
