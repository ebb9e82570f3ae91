"""Deep White Sea's window while a person aims a throw (issue 37): the prompt (the throw's
release, speed, spin and flight) covers no die the person must see to aim, in the view
on screen, nor the choices' buttons or another HUD block, at capitals 14 px or more.
Under Xvfb (tests/window_aim_script.py).

Seed 3 (a person against greedy, the person's turns before played by the random bot),
the person's throw at turn 20, six dice on the table, the top view zoomed in 6 and 7
notches: before, the prompt was placed clear of the buttons and the names pinned under
the dice only, and lay over Shoalwarden Nerys and Warden Ilse Varga (1088 and 1007 px^2,
at its place under the table's middle where nothing was clear of the names) and over
Tidemother Serenne (1415 px^2, between her and her name).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "window_aim_script.py"


def _overlap(a: list[float], b: list[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


@pytest.mark.display
@pytest.mark.slow
def test_the_aiming_prompt_covers_no_die_no_button_and_no_hud(xvfb_display, tmp_path) -> None:
    env = {**os.environ, "DISPLAY": xvfb_display}
    # zoom6, zoom7: the same zoom made while the drag is held still (no pointer move after
    # it): the prompt stayed where the unzoomed view had it clear, over Shoal Caller Iben
    # (2574 and 3277 px^2), until the pointer moved (`view_moved` places it again).
    views = ["thrower", "top6", "top7", "zoom6", "zoom7"]
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "aim.png"), "3", "18",
                           *views], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["turn"] == 20, out["turn"]
    w, h = out["win"]
    for view in views:
        v = out["views"][view]
        box = v["prompt_box"]
        assert v["preview"] and "legal release" in v["prompt"], (view, v["prompt"])
        assert len(v["dice_boxes"]) == 6, (view, v["dice_boxes"])
        assert v["cap_px"] >= 14, (view, v["cap_px"])
        assert min(box[0], box[1]) >= 0 and box[2] <= w and box[3] <= h, (view, box)
        dice = {d: a for d, b in v["dice_boxes"].items() if (a := _overlap(box, b))}
        assert not dice, (view, box, dice)
        assert not any(_overlap(box, b) for b in v["button_boxes"]), (view, box)
        assert not any(_overlap(box, b) for b in v["hud_boxes"]), (view, box, v["hud_boxes"])
        # Nor the aim's release marker and arc (the marker touched the prompt's first line
        # in the thrower's view, the arc ran through its lines in top7).
        assert len(v["aim_boxes"]) >= 2, (view, v["aim_boxes"])
        assert not any(_overlap(box, b) for b in v["aim_boxes"]), (view, box)
        # The dice's names pinned in the view: none over another nor under the close-up
        # (in the thrower's view Tidemother Serenne's lay over Shoal Caller Iben's, Warden
        # Ilse Varga's over Shoalwarden Nerys's and under the close-up).
        pins = v["pins"]
        assert len(pins) == 6, (view, pins)
        for k, (text, b) in enumerate(pins):
            assert not [t for t, c in pins[:k] if _overlap(b, c)], (view, text, pins)
            assert not _overlap(b, v["hud_boxes"][-1]), (view, text, b)  # the close-up's
