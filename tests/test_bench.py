"""`tabletop bench`: the smoke suite against the committed baseline, a deliberately changed
setting, and bad baseline files. The smoke suite runs once per session (about 30 s)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from simulator.bench.baseline import run_suite, write_json
from simulator.bench.compare import homogeneity
from simulator.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "benchmarks" / "baselines" / "smoke.json"


def _checks(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in record["checks"]}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("smoke")
    status = main(["bench", "run", "--suite", "smoke", "--baseline", str(SMOKE),
                   "--json", str(out / "run.json"), "--markdown", str(out / "report.md")])
    return status, json.loads((out / "run.json").read_text()), out


@pytest.mark.slow
def test_smoke_record_and_report(smoke: tuple[int, dict[str, Any], Path]) -> None:
    status, record, out = smoke
    assert record["format"] == "tabletop-bench/1" and record["suite"] == "smoke"
    for key in ("pybullet", "numpy", "platform", "time_step", "solver_iterations"):
        assert key in record["fingerprint"]
    names = set(_checks(record))
    for group in ("golden.", "drift.", "convergence.", "sanity.", "speed."):
        assert any(n.startswith(group) for n in names), group
    for c in record["checks"]:
        assert {"name", "passed", "value", "baseline", "tolerance", "why"} <= set(c)
    # The exit status is the verdict of the gating checks, whatever they say today.
    assert status == (0 if all(c["passed"] is not False for c in record["checks"]) else 1)
    assert record["passed"] == (status == 0)
    report = (out / "report.md").read_text()
    assert "| golden.throws |" in report
    for plot in ("faces", "convergence", "speed"):
        assert (out / f"report-{plot}.png").stat().st_size > 1000
        assert f"report-{plot}.png" in report


@pytest.mark.slow
def test_unchanged_tree_passes(smoke: tuple[int, dict[str, Any], Path]) -> None:
    """Same code: golden throws identical to the bit on any x86-64 CPU, whichever SIMD and
    BLAS kernels numpy picks there (docs/determinism.md), distributions equal, and every
    check that is not a stopwatch reading passes (speed is left to the exit status above:
    no timed assertions in tests)."""
    _status, record, _out = smoke
    checks = _checks(record)
    assert record["baseline"]["fingerprint_differs"] == [], record["baseline"]
    assert "numpy_simd" not in record["fingerprint"]
    assert checks["golden.throws"]["why"] == "all 28 cases identical to the bit"
    for name, c in checks.items():
        if name not in ("speed.ratio", "speed.peak_memory"):
            assert c["passed"] is not False, f"{name}: {c['why']}"


@pytest.mark.slow
def test_changed_friction_fails_golden_and_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "run", "--only", "golden,drift", "--set", "friction=0.05",
                   "--baseline", str(SMOKE), "--json", str(tmp_path / "run.json"),
                   "--markdown", str(tmp_path / "report.md")])
    printed = capsys.readouterr().out
    assert status == 1
    checks = _checks(json.loads((tmp_path / "run.json").read_text()))
    golden = checks["golden.throws"]
    # The effective contact values are part of the fingerprint: golden throws are then
    # compared statistically (the same throws land elsewhere), and the drift group fails.
    assert "fingerprint differs: contact" in golden["tolerance"]
    assert golden["why"].startswith("statistical:")
    felt = [c for n, c in checks.items() if n.startswith("drift.") and n.endswith("/felt")]
    assert felt and all(c["passed"] is False for c in felt)
    # Less grip: far more dice slide off, and the report says so in words.
    assert all(c["why"].startswith("largest shift: fell_off") for c in felt)
    assert "overrides friction=0.05" in printed and "FAIL" in printed
    assert "**FAIL**" in (tmp_path / "report.md").read_text()


def test_time_step_change_compares_golden_statistically(tmp_path: Path) -> None:
    status = main(["bench", "run", "--only", "golden", "--set", "time_step=1/480",
                   "--baseline", str(SMOKE), "--json", str(tmp_path / "run.json")])
    golden = _checks(json.loads((tmp_path / "run.json").read_text()))["golden.throws"]
    assert golden["tolerance"] == "p >= 0.005 (fingerprint differs: time_step)"  # the CPU never
    assert golden["why"].startswith("statistical:")
    assert status == (0 if golden["passed"] else 1)


def test_recorded_baseline_compares_exactly(tmp_path: Path) -> None:
    record, _ = run_suite("smoke", ["felt.restitution=0.1"], ["golden"], None)
    write_json(record, tmp_path / "golden.json")
    status = main(["bench", "run", "--only", "golden", "--set", "felt.restitution=0.1",
                   "--baseline", str(tmp_path / "golden.json"), "--json", str(tmp_path / "r.json")])
    assert status == 0
    assert _checks(json.loads((tmp_path / "r.json").read_text()))["golden.throws"]["passed"]


def _bad_baselines(tmp: Path) -> dict[str, tuple[Path, str]]:
    good = json.loads(SMOKE.read_text())
    cases: dict[str, tuple[Path, str]] = {}
    corrupt = tmp / "corrupt.json"
    corrupt.write_text(SMOKE.read_text()[:5000])
    cases["corrupt"] = (corrupt, "malformed bench baseline JSON")
    foreign_yaml = tmp / "d6.yaml"
    shutil.copy(ROOT / "dice_models" / "dice" / "d6.yaml", foreign_yaml)
    cases["yaml"] = (foreign_yaml, "malformed bench baseline JSON")
    foreign = tmp / "other.json"
    foreign.write_text(json.dumps({"game": "diced", "moves": []}))
    cases["foreign"] = (foreign, "not a tabletop bench baseline")
    other_suite = tmp / "full.json"
    other_suite.write_text(json.dumps({**good, "suite": "full"}))
    cases["suite"] = (other_suite, "records the 'full' suite")
    broken = json.loads(json.dumps(good))
    broken["measurements"]["drift"]["paper-d8/felt"]["counts"] = "many"
    bad_field = tmp / "field.json"
    bad_field.write_text(json.dumps(broken))
    cases["field"] = (bad_field, "measurements.drift.paper-d8/felt.counts")
    binary = tmp / "binary.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    cases["binary"] = (binary, "not UTF-8 text (byte 0x89 at byte offset 0)")
    cases["missing"] = (tmp / "nowhere.json", "cannot read")
    return cases


@pytest.mark.parametrize("kind", ["corrupt", "yaml", "foreign", "suite", "field", "binary", "missing"])
def test_bad_baseline_is_one_line_and_exit_2(kind: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path, message = _bad_baselines(tmp_path)[kind]
    status = main(["bench", "run", "--baseline", str(path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1, err
    assert err.startswith("tabletop bench: error: ") and str(path) in err and message in err


@pytest.mark.parametrize("argv, message", [
    (["--set", "frictoin=0.3"], "did you mean friction?"),
    (["--set", "time_step=fast"], "must be a number or a fraction"),
    (["--set", "solver_iterations=2.5"], "whole number"),
    (["--set", "felt.restitution=3"], "must be in [0, 1]"),
    (["--set", "max_turn_deg=-1"], "from 0 (no bound) to 180 degrees"),
    (["--set", "confine_time=-0.5"], "from 0 (no confinement rule) to 60 s"),
    (["--set", "confine_deg=0"], "must be over 0, up to 180 degrees"),
    (["--set", "max_travel=0"], "must be positive"),
    (["--only", "golde"], "did you mean golden?"),
])
def test_bad_options_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "run", "--baseline", str(SMOKE), *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err, err


def test_homogeneity() -> None:
    a = {"1": 50, "2": 50, "fell_off": 20}
    assert homogeneity([a, dict(a)]) == 1.0
    assert homogeneity([a, {"1": 20, "2": 20, "fell_off": 80}]) < 1e-9
    # Rare categories are pooled rather than blowing up the statistic.
    p = homogeneity([{"1": 60, "2": 60, "error": 1}, {"1": 58, "2": 62, "leaning": 2}])
    assert 0.05 < p <= 1.0
