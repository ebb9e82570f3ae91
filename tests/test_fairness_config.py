"""Experiment YAML: every shipped example parses; bad input gets one clear line, exit
status 2, and leaves the output directory as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from simulator.cli.main import main
from simulator.experiments import load_experiment
from simulator.experiments.config import draw_throw

EXAMPLES = Path(__file__).resolve().parent.parent / "benchmarks" / "experiments"

SMALL = """
name: small
die: paper-d8
surface: felt
throw: {height: [0.15, 0.3], speed: [0.2, 1.0], spin: [0, 20], orientation: uniform}
throws: 6
chunk_size: 3
seed: 4
"""


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_examples_parse(path):
    exp = load_experiment(path)
    assert exp.throws >= 1000
    t = draw_throw(exp, 0)
    assert t.throw.release[2] > 0 and t.energy_j > 0


def test_shipped_series_are_complete():
    names = {p.stem for p in EXAMPLES.glob("*.yaml")}
    assert {"fair-paper-d8", "fair-d6", "slick-paper-d8"} <= names
    tamper = sorted(load_experiment(EXAMPLES / f"tamper-{p:02d}.yaml").series.value  # type: ignore[union-attr]
                    for p in (0, 5, 10, 20, 30))
    assert tamper == [0.0, 0.05, 0.1, 0.2, 0.3]
    assert len([n for n in names if n.startswith("energy-")]) >= 3
    assert len([n for n in names if n.startswith("cuboid-")]) >= 3


def test_throws_depend_only_on_seed_and_index(tmp_path):
    exp = load_experiment(write(tmp_path, SMALL))
    assert draw_throw(exp, 5) == draw_throw(exp, 5)
    assert draw_throw(exp, 5).throw != draw_throw(exp, 6).throw
    assert draw_throw(exp.with_(seed=5), 5).throw != draw_throw(exp, 5).throw


def test_fixed_face_down_is_the_initial_down_face(tmp_path):
    exp = load_experiment(write(tmp_path, SMALL.replace("orientation: uniform",
                                                        "orientation: {face_down: 3}")))
    assert {draw_throw(exp, i).initial_down for i in range(20)} == {3}


@pytest.mark.parametrize("text,needle", [
    ("name: [unclosed\n", "malformed YAML"),
    (SMALL.replace("die: paper-d8", "die: paper-d9"), "did you mean paper-d8?"),
    (SMALL.replace("height: [0.15, 0.3]", "height: [0.3, 0.15]"), "throw.height: low is above high"),
    (SMALL.replace("height: [0.15, 0.3]", "height: [0.01, 0.3]"), "must clear the die"),
    (SMALL.replace("speed: [0.2, 1.0]", "speed: [0.2, 90]"), "throw.speed"),
    (SMALL.replace("throws: 6", "throws: -3"), "throws: must be an integer"),
    (SMALL.replace("surface: felt", "surface: flet"), "did you mean felt?"),
    (SMALL.replace("seed: 4", "sede: 4"), "did you mean seed?"),
    (SMALL.replace("orientation: uniform", "orientation: {face_down: 9}"), "face_down"),
    (SMALL + "stop: {rule: sprt, p1: 0.125}\n", "must differ from the fair"),
    (SMALL.replace("die: paper-d8", "die: {model: paper-d8, com_offset: {toward_face: 1, "
                   "fraction_of_r: 1.5}}"), "fraction_of_r"),
    (SMALL.replace("die: paper-d8", "die: {geometry: {kind: cuboid, sides: [0.01, 0.01]}, "
                   "mass: 0.004}"), "geometry.sides"),
])
def test_bad_experiment_is_one_line_exit_2(tmp_path, capsys, text, needle):
    cfg = write(tmp_path, text)
    out_dir = tmp_path / "out"
    status, out, err = run_cli(capsys, "fairness", "run", str(cfg), "--out", str(out_dir),
                               "--no-progress")
    assert status == 2
    assert err.count("\n") == 1 and needle in err, err
    assert "Traceback" not in err
    assert not out_dir.exists()


def test_directory_of_another_experiment_is_refused_untouched(tmp_path, capsys):
    first = write(tmp_path, SMALL)
    out_dir = tmp_path / "out"
    status, _, _ = run_cli(capsys, "fairness", "run", str(first), "--out", str(out_dir),
                           "--no-progress")
    assert status == 0
    db = out_dir / "results.sqlite"
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    other = write(tmp_path, SMALL.replace("seed: 4", "seed: 5"), "other.yaml")
    status, _, err = run_cli(capsys, "fairness", "run", str(other), "--out", str(out_dir),
                             "--no-progress")
    assert status == 2
    assert err.count("\n") == 1 and "another experiment" in err and "'seed' differs" in err
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before
    assert sorted(p.name for p in out_dir.iterdir()) == ["results.sqlite"]


def test_directory_with_a_foreign_file_is_refused(tmp_path, capsys):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "results.sqlite").write_text("not a database at all, just text" * 10)
    before = (out_dir / "results.sqlite").read_bytes()
    status, _, err = run_cli(capsys, "fairness", "run", str(write(tmp_path, SMALL)), "--out",
                             str(out_dir), "--no-progress")
    assert status == 2 and err.count("\n") == 1 and "not a results database" in err
    assert (out_dir / "results.sqlite").read_bytes() == before


def test_bad_flags_and_missing_results(tmp_path, capsys):
    cfg = write(tmp_path, SMALL)
    status, _, err = run_cli(capsys, "fairness", "run", str(cfg), "--out", str(tmp_path / "o"),
                             "--stop", "sprt")
    assert status == 2 and "--p1" in err and err.count("\n") == 1
    status, _, err = run_cli(capsys, "fairness", "report", str(tmp_path / "nothing-here"))
    assert status == 2 and "holds no experiment results" in err
    status, _, err = run_cli(capsys, "fairness", "run", str(tmp_path / "missing.yaml"), "--out",
                             str(tmp_path / "o"))
    assert status == 2 and "cannot read" in err


def test_the_default_throw_is_a_persons_roll_from_player_1s_edge():
    """An experiment that names no throw rolls as a person does across the table from player
    1's edge (steep.LAB_THROW: docs/calibration.md, "The hand throw as a person rolls"); one
    that names the drop's numbers keeps them; the box follows the edge of another table, and
    a table too small for it is one line naming the field."""
    from dataclasses import replace

    from dice_models import DataError
    from simulator.experiments import steep
    from simulator.experiments.config import DROP, THROW_SCALE, parse_experiment
    from simulator.experiments.impacts import CALIBRATED

    assert CALIBRATED["throw_scale"] == THROW_SCALE
    exp = parse_experiment({"die": "d6", "surface": "felt"}, "roll.yaml")
    t = exp.throw
    assert {k: getattr(t, k) for k in steep.LAB_THROW} == steep.LAB_THROW
    for i in range(40):
        d = draw_throw(exp, i)
        x, y, _ = d.throw.release
        assert abs(x) <= 0.1 and -0.45 + 0.03 <= y <= -0.45 + 0.07  # 3-7 cm inside the edge
        assert 0.99 <= d.speed <= 2.5 and d.throw.velocity[1] > 0  # toward the far side
    old = {"height": [0.15, 0.35], "speed": [0.2, 1.5], "elevation_deg": [-30, 30],
           "spin": [0, 25], "area": [0.1, 0.1]}
    assert parse_experiment({"die": "paper-d8", "throw": old}, "drop.yaml").throw == DROP
    deep = parse_experiment({"die": "d6", "table": {"width": 1.0, "depth": 2.0}}, "deep.yaml")
    assert deep.throw == replace(t, origin=(0.0, -0.95))
    # the paper d8 (circumradius 3.5 cm) a millimetre past a die's size plus the box inside
    assert parse_experiment({"die": "paper-d8"}, "d8.yaml").throw == replace(t, origin=(0.0, -0.394))
    with pytest.raises(DataError, match=r"throw\.origin.*player 1's edge"):
        parse_experiment({"die": "d6", "table": {"width": 0.2, "depth": 0.9}}, "small.yaml")
