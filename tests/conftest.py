"""Fixtures shared by test modules: an X display (Xvfb) for the OpenGL tests."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time

import pytest


@pytest.fixture(scope="session")
def xvfb_display():
    """A private Xvfb display (":N") for tests that need OpenGL (Mesa); skips where Xvfb is
    not installed (`.ci/run` installs it) or does not start.

    Xvfb picks a free display number itself and writes it to a pipe once it listens
    (`-displayfd`), so test processes running side by side (pytest-xdist) never race for
    the same number."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24",
                             "-nolisten", "tcp"], pass_fds=(write_end,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    number = b""
    deadline = time.monotonic() + 10
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(read_end, 16)
        if not chunk:  # Xvfb exited without naming a display
            break
        number += chunk
    os.close(read_end)
    if not number.strip().isdigit():
        proc.kill()
        proc.wait(timeout=10)
        pytest.skip("Xvfb did not start")
    yield f":{number.strip().decode()}"
    proc.terminate()
    proc.wait(timeout=10)
