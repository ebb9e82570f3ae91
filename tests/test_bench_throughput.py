"""`python -m benchmarks.bench_throughput`: World against the reference loop and an old World
on the same throws. Only that it runs and what it compares is tested here; its ratios are
figures for docs/physics.md, never asserted (they are the machine's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OLD_COMMIT = "9ea7a0a"  # the benchmark's default old World
ROOT_COMMIT = "0d3534c"  # the project's skeleton: no physics to run


def _run(*args: str) -> tuple[int, list[str]]:
    """The benchmark as its users run it (tests never import a benchmark script)."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_throughput", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout.splitlines()


def _have(commit: str) -> bool:
    """Is git here, and this commit in the clone?"""
    try:
        return subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{commit}^{{commit}}"],
                              capture_output=True).returncode == 0
    except OSError:
        return False


def _worktrees() -> str:
    return subprocess.run(["git", "-C", str(REPO), "worktree", "list"], capture_output=True,
                          text=True, check=True).stdout


def test_world_and_the_reference_agree_on_every_face_against_the_old_world() -> None:
    if not _have(OLD_COMMIT):
        pytest.skip(f"a clone without commit {OLD_COMMIT}")
    status, out = _run("--throws", "6", "--rounds", "2")
    assert status == 0
    ref = [line for line in out if line.startswith("World / reference")]
    old = [line for line in out if line.startswith("World / World of 9ea7a0a")]
    assert len(ref) == 1 and len(old) == 1, out
    # The reference loop is the same physics: the same face in every throw.
    assert ref[0].endswith("same face 100.0%")


def test_an_old_commit_that_is_not_there_leaves_the_reference_ratio() -> None:
    status, out = _run("--throws", "4", "--rounds", "2", "--old", "0000000")
    assert status == 0
    assert out[0].startswith("old World (0000000): unavailable (")
    assert not any(line.startswith("World / World of") for line in out)
    assert any(line.startswith("World / reference") for line in out)


def test_an_old_commit_whose_world_cannot_run_is_one_line_and_exit_2() -> None:
    if not _have(ROOT_COMMIT):
        pytest.skip(f"a clone without commit {ROOT_COMMIT}")
    before = _worktrees()
    status, out = _run("--throws", "4", "--rounds", "2", "--old", ROOT_COMMIT)
    assert status == 2
    assert len(out) == 1 and out[0].startswith(f"old World ({ROOT_COMMIT}): its process ended: ")
    assert "Error: " in out[0]  # the old process's last line (an import that fails there)
    assert _worktrees() == before  # ... and its worktree is gone again
