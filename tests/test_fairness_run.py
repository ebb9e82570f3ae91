"""Running experiments: a run really killed part way and resumed equals an uninterrupted
run row for row; results do not depend on the worker count or the backend (local
processes or a local Ray cluster); the SPRT stops at the same throw whatever runs it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulator.experiments import Store, load_experiment, run_experiment

REPO = Path(__file__).resolve().parent.parent

EXP = """
name: resume-check
die: paper-d8
surface: felt
throw: {height: [0.15, 0.3], speed: [0.2, 1.2], spin: [0, 20], orientation: uniform}
throws: 120
chunk_size: 5
seed: 9
"""


def rows(out: Path) -> list:
    store = Store.open(out)
    try:
        return store.rows()
    finally:
        store.close()


def stored_count(db: Path) -> int:
    try:
        conn = sqlite3.connect(db, timeout=0.05)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM throws").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.OperationalError:  # not created yet, or the writer holds the lock
        return -1


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "simulator.cli.main", "fairness", *args]


def test_killed_run_resumes_to_exactly_the_uninterrupted_rows(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    killed = tmp_path / "killed"
    proc = subprocess.Popen(cli("run", str(cfg), "--out", str(killed), "--workers", "2",
                                "--no-progress"), cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    db = killed / "results.sqlite"
    deadline = time.monotonic() + 60
    while stored_count(db) < 20 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.stderr is not None
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, mid-chunk, no clean-up
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    partial = rows(killed)
    assert 20 <= len(partial) < 120
    assert len(partial) % 5 == 0  # whole chunks only: a chunk commits in one transaction

    resumed = subprocess.run(cli("run", str(cfg), "--out", str(killed), "--no-progress"),
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"this run: {120 - len(partial)} in" in resumed.stdout

    whole = tmp_path / "whole"
    run_experiment(load_experiment(cfg), whole, workers=1, progress=False)
    a, b = rows(killed), rows(whole)
    assert [r.idx for r in a] == list(range(120))
    assert a == b  # every field of every row, bit for bit
    assert partial == a[:len(partial)] or {r.idx for r in partial} <= {r.idx for r in a}

    again = run_experiment(load_experiment(cfg), killed, progress=False)
    assert again.ran == 0 and again.stored == 120


def test_more_throws_extend_a_finished_run(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP.replace("throws: 120", "throws: 12"))
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "a", throws=7, progress=False)
    more = run_experiment(exp, tmp_path / "a", throws=16, workers=2, progress=False)
    assert more.ran == 9
    run_experiment(exp, tmp_path / "b", throws=16, progress=False)
    assert rows(tmp_path / "a") == rows(tmp_path / "b")


SPRT = """
name: sprt-check
die:
  model: paper-d8
  com_offset: {toward_face: 1, fraction_of_r: FRAC}
throw: {height: [0.15, 0.35], speed: [0.2, 1.5], spin: [0, 25], orientation: uniform}
throws: 400
chunk_size: 10
seed: 1
"""


@pytest.mark.parametrize("frac,decision", [(0.2, "biased"), (0.0, "fair")])
def test_sprt_stops_at_the_same_throw_with_any_worker_count(tmp_path, capsys, frac, decision):
    from simulator.cli.main import main

    cfg = tmp_path / "exp.yaml"
    cfg.write_text(SPRT.replace("FRAC", str(frac)))
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        status = main(["fairness", "run", str(cfg), "--out", str(out), "--workers", workers,
                       "--stop", "sprt", "--p1", "0.25", "--face", "6", "--no-progress"])
        assert status == 0
        text = capsys.readouterr().out
        assert f": {decision} after " in text
        outs.append(out)
    a, b = rows(outs[0]), rows(outs[1])
    assert a == b
    store = Store.open(outs[0])
    stop = store.stop_decision()
    store.close()
    assert stop is not None and stop["decision"] == decision
    assert len(a) == stop["throws"] < 400  # throws run ahead in parallel are not kept
    assert a[-1].status == "on_table"  # the deciding throw is the last one kept


@pytest.mark.slow  # starts a Ray cluster
def _ray_run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`tabletop fairness ARGS` in a process of its own: Ray's client leaves a dozen gRPC
    threads running in the process that called ray.init, even after ray.shutdown(), and a
    later test's fork of this process (a calibration's workers, a vector environment's)
    would copy locks those threads hold."""
    return subprocess.run(cli(*args), cwd=REPO, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=180)


def test_ray_backend_gives_the_local_rows(tmp_path):
    """Without --ray-address the run starts its own cluster, even where RAY_ADDRESS (or a
    cluster running here) names another: ray.init() joined that one and refused num_cpus."""
    pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP.replace("throws: 120", "throws: 24").replace("chunk_size: 5", "chunk_size: 4"))
    run = _ray_run(["run", str(cfg), "--out", str(tmp_path / "ray"), "--workers", "2",
                    "--backend", "ray", "--no-progress"], {"RAY_ADDRESS": "127.0.0.1:9"})
    assert run.returncode == 0, run.stderr
    assert "24 throws stored" in run.stdout
    run_experiment(load_experiment(cfg), tmp_path / "local", workers=1, backend="local",
                   progress=False)
    assert rows(tmp_path / "ray") == rows(tmp_path / "local")


def test_a_ray_that_cannot_start_is_one_line_and_leaves_no_store(tmp_path):
    """Ray is started before the store is made: a local cluster that cannot start (here its
    temporary directory lies under a file) is one line naming --backend, exit status 2, and
    no results directory (it was an empty results.sqlite, and the line blamed --ray-address)."""
    pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    out = tmp_path / "out"
    run = _ray_run(["run", str(cfg), "--out", str(out), "--backend", "ray", "--no-progress"],
                   {"RAY_TMPDIR": str(blocker / "ray")})
    assert run.returncode == 2
    assert run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    assert "--backend: backend: cannot start a local Ray cluster: " in run.stderr
    assert "Not a directory" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()


@pytest.mark.slow  # starts a Ray head node (about 5 s)
def test_ray_address_of_a_token_cluster_works_without_ray_auth_mode(tmp_path):
    """`ray start --head` uses token authentication once a token is in ~/.ray/auth_token;
    the run, given its address and the same home but no RAY_AUTH_MODE, sends the token (it
    failed after 20 s: "cannot start or reach Ray", and left an empty results.sqlite)."""
    pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    import secrets
    import shutil
    import socket
    import tempfile

    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | {"HOME": str(home)}
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths are bounded
    head = subprocess.Popen([str(Path(sys.executable).with_name("ray")), "start", "--head",
                             f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
                             f"--temp-dir={temp}", "--block"],
                            env=env | {"RAY_AUTH_MODE": "token"}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and head.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        assert head.poll() is None, "the Ray head did not start"
        cfg = tmp_path / "exp.yaml"
        cfg.write_text(EXP.replace("throws: 120", "throws: 8").replace("chunk_size: 5",
                                                                       "chunk_size: 4"))
        run = subprocess.run(cli("run", str(cfg), "--out", str(tmp_path / "ray"), "--backend",
                                 "ray", "--ray-address", f"127.0.0.1:{port}", "--no-progress"),
                             cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert "8 throws stored" in run.stdout
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # the head and all it started (a throwaway
        head.wait()  # cluster: its GCS outlives SIGTERM for seconds)
        shutil.rmtree(temp, ignore_errors=True)
    run_experiment(load_experiment(cfg), tmp_path / "local", progress=False)
    assert rows(tmp_path / "ray") == rows(tmp_path / "local")


def test_a_worker_freezes_its_set_up_once_and_later_simulators_stay_collectable():
    """The lab's gc.freeze (dispatch.freeze_once): once a process, after a collection. A
    second simulator (the calibration makes one a trial) must not freeze again: what is
    frozen is never collected as a cycle."""
    code = (
        "import gc\n"
        "from simulator.experiments import load_experiment\n"
        "from simulator.experiments.dispatch import ThrowSimulator\n"
        "exp = load_experiment('benchmarks/experiments/fair-paper-d8.yaml')\n"
        "assert gc.get_freeze_count() == 0\n"
        "ThrowSimulator(exp)\n"
        "first = gc.get_freeze_count()\n"
        "junk = [[i] for i in range(1000)]\n"
        "second = ThrowSimulator(exp)\n"
        "print(first, gc.get_freeze_count())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    first, after = int(out[0]), int(out[1])
    assert first > 0 and after == first
