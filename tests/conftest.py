"""Fixtures shared by test modules: an X display (Xvfb) for the OpenGL tests."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def xvfb_display():
    """A private Xvfb display (":N") for tests that need OpenGL (Mesa); skips where Xvfb is
    not installed (`.ci/run` installs it) or does not start."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    number = next((n for n in range(140, 190) if not Path(f"/tmp/.X{n}-lock").exists()
                   and not Path(f"/tmp/.X11-unix/X{n}").exists()), None)
    if number is None:
        pytest.skip("no free X display number for Xvfb")
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten",
                             "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = Path(f"/tmp/.X11-unix/X{number}")
    deadline = time.monotonic() + 10
    while not socket.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not socket.exists():
        proc.kill()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)
