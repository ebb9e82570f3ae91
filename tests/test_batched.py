"""Batched throws with MuJoCo Warp (issue 20, item 3): without a GPU `--backend gpu` fails
with one line and writes nothing; the same code runs on Warp's CPU device (`warp-cpu`),
stores rows seeded per throw like every backend, resumes, and gives the same rows for the
same throws and batch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco_warp", reason="batched throws need the engines extra "
                    "(pip install 'tabletop[engines]')")

from dice_models import DataError  # noqa: E402
from simulator.experiments import load_experiment, run_experiment  # noqa: E402
from simulator.experiments.config import draw_throw  # noqa: E402
from simulator.experiments.store import Store  # noqa: E402
from simulator.physics import PhysicsSettings, die_shape  # noqa: E402
from simulator.physics.engines import make_world  # noqa: E402

FAIR_D8 = Path(__file__).resolve().parent.parent / "benchmarks" / "experiments" / "fair-paper-d8.yaml"


def _has_gpu() -> bool:
    from simulator.experiments.batched import device_for

    try:
        device_for("gpu")
    except DataError:
        return False
    return True


def test_gpu_backend_without_a_gpu_is_one_line_and_writes_nothing(tmp_path):
    if _has_gpu():
        pytest.skip("this machine has a CUDA GPU")
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "simulator.cli.main", "fairness", "run", str(FAIR_D8),
                        "--out", str(out), "--backend", "gpu", "--throws", "10"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "tabletop fairness: error: --backend: backend: gpu needs a CUDA GPU and none was found "
        "(MuJoCo Warp); run --backend local, or warp-cpu for the same code on the CPU"]
    assert r.stdout == "" and not out.exists()


def test_the_batched_engine_is_not_a_world():
    with pytest.raises(DataError, match="throws in batches only"):
        make_world(None, PhysicsSettings(engine="mujoco-warp"))


@pytest.mark.slow
def test_warp_cpu_stores_resumes_and_repeats_its_rows(tmp_path):
    """The CPU path of the batched code (first use compiles Warp's kernels: about a minute)."""
    from simulator.experiments.batched import BatchedSimulator

    exp = load_experiment(FAIR_D8)
    out = tmp_path / "run"
    first = run_experiment(exp, out, throws=12, backend="warp-cpu", batch=6, progress=False)
    assert (first.stored, first.ran) == (12, 12)
    again = run_experiment(exp, out, throws=18, backend="warp-cpu", batch=6, progress=False)
    assert (again.stored, again.ran) == (18, 6)  # resumed: only the missing throws
    store = Store.open(out)
    try:
        rows = store.rows()
        physics = store.experiment_json()["physics"]
    finally:
        store.close()
    assert physics["engine"] == "mujoco-warp"
    assert sorted(r.idx for r in rows) == list(range(18))
    assert all(r.status in ("on_table", "off_table") for r in rows), [r.reason for r in rows]
    # Each row is its own seeded throw: the release facts match config.draw_throw's.
    shape = die_shape(exp.die)
    for r in rows:
        drawn = draw_throw(exp.with_(physics=exp.physics.with_(engine="mujoco-warp")), r.idx, shape)
        assert (r.initial_down, r.height_m, r.speed_ms) == (drawn.initial_down, drawn.height, drawn.speed)
    # Same throws, same device and batch: the same rows.
    on_warp = exp.with_(physics=exp.physics.with_(engine="mujoco-warp"))
    sim = BatchedSimulator(on_warp, "warp-cpu", batch=6)
    assert sim.run(list(range(6))) == sorted((r for r in rows if r.idx < 6), key=lambda r: r.idx)
