"""The window's shadows (issue 37, item 4's soft shadows), chosen by the settings file's
`shadows`: soft (a shadow map looked up through a linear, percentage-closer depth filter)
where a GPU draws with simplepbr, planar where the CPU rasterizes, none when off. Under
Xvfb (tests/window_shadows_script.py, a process of its own: its exit status is checked) a
soft frame is drawn on Mesa's llvmpipe with the fixed-function path's auto-shader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "window_shadows_script.py"


def test_shadows_are_soft_on_a_gpu_and_planar_where_the_cpu_draws() -> None:
    from simulator.render.core.shadows import chosen

    assert chosen("auto", "pbr") == "soft"
    assert chosen("auto", "pbr", cpu=True) == "planar"  # simplepbr's shadow shader crashes llvmpipe
    assert chosen("auto", "gl", cpu=True) == chosen("auto", "software") == "planar"
    assert chosen("soft", "gl", cpu=True) == "soft"  # the auto-shader: asked for, it is had
    assert chosen("soft", "software") == "planar"  # no shaders there
    assert chosen("off", "pbr") == "off" and chosen("planar", "pbr") == "planar"
    with pytest.raises(ValueError, match="shadows must be one of"):
        chosen("hard", "gl")


def _run(xvfb_display: str, out: Path, mode: str) -> dict:
    env = {**os.environ, "DISPLAY": xvfb_display}
    done = subprocess.run([sys.executable, str(SCRIPT), str(out), mode], capture_output=True,
                          text=True, timeout=300, env=env)
    # The exit status: a shadow map's buffer left to the interpreter's exit aborted it.
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.display
def test_a_soft_shadow_frame_is_darker_under_the_die_than_beside_it(xvfb_display,
                                                                     tmp_path) -> None:
    soft = _run(xvfb_display, tmp_path / "soft.png", "file:soft")  # as the settings file asks
    assert soft["mode"] == "soft" and soft["path"] == "gl", soft
    felt = soft["felt"]
    # Measured: 34 of 255 where the die's shadow lies, 58 on the felt beside it.
    assert felt["shadow"] < felt["beside"] - 12, soft
    off = _run(xvfb_display, tmp_path / "off.png", "off")
    assert off["mode"] == "off" and abs(off["felt"]["shadow"] - off["felt"]["beside"]) < 4, off
