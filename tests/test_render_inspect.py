"""The window's inspect view (issue 37): a click on a Deep White Sea die shows it large in
the close-up and its card, the eight sides in the words `tabletop dice show` prints; a
click on the bare table puts the card away. Under Xvfb (tests/window_inspect_script.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "window_inspect_script.py"


@pytest.mark.display
@pytest.mark.slow
def test_a_click_on_a_die_shows_its_eight_sides_as_dice_show_prints_them(
        xvfb_display, tmp_path, capsys) -> None:
    from simulator.cli.main import main

    env = {**os.environ, "DISPLAY": xvfb_display}
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "inspect.png")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["inspected"] == out["die"] and out["card_shown"], out
    # Shown large: the close-up looks at the die clicked (not at the last throw's).
    assert out["inset_target"] == pytest.approx(out["die_at"], abs=1e-6), out
    assert main(["dice", "show", out["name"]]) == 0
    printed = capsys.readouterr().out.splitlines()
    card = " ".join(" ".join(out["card"].split("\n")).split())  # wrapped lines joined
    rows = [line for line in printed[3:] if line.strip()[:1].isdigit()]
    assert len(rows) == 8, printed
    for row in rows:
        number, rest = row.strip().split(" ", 1)
        arrows = rest.strip().split("  ")[0]  # the table's second column
        assert f"{number} arrows {arrows}" in card, (number, arrows, card)
    assert out["after_table_click"] == {"inspected": None, "card_shown": False}
