"""The window's feel for real (issue 37, item 4), run by tests/test_render_feel_window.py
under Xvfb in a process of its own:

    python tests/window_feel_script.py SETTINGS_FILE

Three random bots play a one-round Diced in a window opened the way `tabletop play` opens
one (`open_window` with the settings file read as `--settings` reads it), with OpenAL
playing into its null device (TABLETOP_AUDIO=openal, ALSOFT_DRIVERS=null: the sounds are
really loaded and started; nothing is heard). Keys are sent as Panda3D events, so the
bindings are what is tested. Prints one JSON object on its last line.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from simulator.render.app import open_window
from simulator.render.core.settings import Remembered
from simulator.render.d6 import diced_window


def watch(app: Any, seconds: float = 60.0) -> dict[str, Any]:
    """Run frames until a bot's roll has been shown: its playback's length, its pace, the
    sounds played meanwhile, and bounds on how long it was on screen: `unfinished`, how long
    it had been shown at least in the last frame that did not end it (its frame began that
    long after the frame it started in ended); `least`, from the start of the frame it
    started in to the start of the frame that ended it; `most`, to that frame's end."""
    current, t0, t0_end, played0, unfinished = None, 0.0, 0.0, 0, 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        before = time.perf_counter()
        app.step_frames(1)
        after = time.perf_counter()
        running = app.running
        if running is not current:
            if current is not None and hasattr(current.anim, "playback"):
                return {"duration": current.anim.playback.duration, "least": before - t0,
                        "most": after - t0, "unfinished": unfinished,
                        "pace": app.feel.pace(current), "bot": current.bot,
                        "played": app.feel.sound.played - played0}
            current, t0, t0_end, played0, unfinished = running, before, after, \
                app.feel.sound.played, 0.0
        elif current is not None:
            unfinished = max(unfinished, before - t0_end)
        time.sleep(0.001)
    raise TimeoutError("no roll was shown")


def main(path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    session = diced_window.new_session(["random"] * 3, 1, {"max_rounds": 1})
    prefs = Remembered.read(path)
    app = open_window(session, module=diced_window, shading=prefs.settings.shading, prefs=prefs)
    send = app.base.messenger.send
    out["drawn_by"] = app.drawn_by.name
    out["size"] = list(app.win_size())
    out["device"] = app.feel.sound.device
    out["sound_lengths"] = [round(s.length(), 3) for k in app.feel.sound._sounds.values() for s in k]
    out["sound_problem"] = app.feel.sound.problem
    props = type(app.base.win.getProperties())()
    props.setSize(1000, 600)  # as a person resizing the window would (remembered later)
    app.base.win.requestProperties(props)
    out["normal"] = watch(app)
    out["heard"] = [list(h) for h in app.feel.sound.heard]
    send("tab")  # fast-forward on, at the file's speed
    send("m")  # mute
    out["status_fast_muted"] = app.hud.status.getText()
    out["fast_muted"] = watch(app)
    send(".")  # volume up: sound on again
    send("shift-tab")  # the next fast-forward speed
    send("f8")  # the next start's shading
    with open(path) as fh:
        out["file_after_keys"] = json.load(fh)
    send("tab")
    out["status_normal"] = app.hud.status.getText()
    end = time.monotonic() + 5
    while time.monotonic() < end:
        app.step_frames(1)
        with open(path) as fh:
            if json.load(fh)["window_size"] == [1000, 600]:
                break
        time.sleep(0.02)
    with open(path) as fh:
        out["file_after_resize"] = json.load(fh)
    out["win_after_resize"] = list(app.win_size())
    app.cleanup()
    app.base.destroy()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
