"""`tabletop demo`, the README's main job: a whole bot game on the physics table, its log
verified by re-simulation, and a picture of the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image


def test_demo_plays_verifies_and_draws(tmp_path: Path):
    out = tmp_path / "demo"
    r = subprocess.run([sys.executable, "-m", "simulator.cli.main", "demo", "--out", str(out),
                        "--players", "greedy,random", "--seed", "3", "--turns", "3"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Winner:" in r.stdout and "steps identical" in r.stdout + r.stderr
    log = (out / "game.jsonl").read_text().splitlines()
    assert len(log) > 2
    picture = Image.open(out / "table.png")
    assert picture.size == (1280, 720)
    pixels = np.asarray(picture.convert("RGB").resize((64, 36))).reshape(-1, 3)
    assert len({tuple(p) for p in pixels}) > 20  # not blank


def test_demo_refuses_an_unusable_out_folder(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = subprocess.run([sys.executable, "-m", "simulator.cli.main", "demo", "--out",
                        str(blocker / "sub")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cannot create the folder" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
