"""Fixtures shared by test modules: an X display (Xvfb) for the OpenGL tests, and a check
that no test leaves a library's thread running in the test process."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

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


def _named_threads() -> Counter[str]:
    """This process's threads by name, other than Python's own and plain library threads
    (named after the program, "python"): Linux's /proc; empty elsewhere."""
    names: Counter[str] = Counter()
    for task in Path("/proc/self/task").glob("*"):
        try:
            name = (task / "comm").read_text().strip()
        except OSError:  # (a thread that ended meanwhile)
            continue
        if not name.startswith("python"):
            names[name] += 1
    return names


@pytest.fixture(autouse=True)
def _no_thread_left_behind():
    """A test leaves no named library thread running (Ray's client left a dozen gRPC
    threads in the test process, and a later test's fork copied the locks they held:
    docs/testing.md). The threads a test made itself and stopped are gone by its end."""
    before = _named_threads()
    yield
    left = _named_threads() - before
    if left:
        pytest.fail(f"the test left threads running: {dict(sorted(left.items()))}; run what "
                    "starts them in a process of its own", pytrace=False)
