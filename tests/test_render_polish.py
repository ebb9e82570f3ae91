"""The window's finish (issue 37's gaps): what is on the cloth in D-Day's window, the log
against what is in play. Under Xvfb, each window in a process of its own
(tests/window_polish_script.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "window_polish_script.py"


def _run(xvfb_display: str, mode: str, out: Path) -> dict:
    env = {**os.environ, "DISPLAY": xvfb_display}
    done = subprocess.run([sys.executable, str(SCRIPT), mode, str(out)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.display
def test_dday_window_paints_no_dice_words_on_the_cloth(xvfb_display, tmp_path) -> None:
    # The unit's dice are shown in the close-up's cells, each captioned; the words that
    # lay beside their rows on the cloth ("unit 1's dice", "set aside") stayed with no
    # dice beside them (before: both drawn in the main view, this state has 2 set aside).
    out = _run(xvfb_display, "dday", tmp_path / "dday.png")
    assert out["dice"] == 6 and out["kept"] >= 1, out
    words = out["words"]
    assert f"{out['unit']}'s dice" not in words and "set aside" not in words, words
    # The unit's sheet on the cloth is still there.
    assert any(w.endswith("soldiers") for w in words), words
