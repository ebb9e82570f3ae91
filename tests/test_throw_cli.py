"""`tabletop throw` as a user runs it: JSON fields, determinism across processes, exact
throws, scenes, tray rolls, and one-line errors with exit status 2 for bad input."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

TABLETOP = [sys.executable, "-m", "simulator.cli.main"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TABLETOP, *args], capture_output=True, text=True, timeout=120)


def test_seeded_throw_json_is_identical_in_two_processes():
    a = run("throw", "--die", "paper-d8", "--seed", "7", "--json")
    b = run("throw", "--die", "paper-d8", "--seed", "7", "--json")
    assert a.returncode == 0, a.stderr
    assert hashlib.sha256(a.stdout.encode()).hexdigest() == hashlib.sha256(b.stdout.encode()).hexdigest()
    out = json.loads(a.stdout)
    for key in ("die", "seed", "foul", "foul_reason", "settled", "steps", "sim_time_s", "physics",
                "outcome", "disturbed"):
        assert key in out
    assert out["die"] == "paper-d8" and out["seed"] == 7 and out["settled"] is True
    assert {"time_step", "solver_iterations", "versions"} <= set(out["physics"])
    assert {"status", "reason", "face", "position", "yaw_deg", "top_corners"} <= set(out["outcome"])
    assert a.stderr == ""


def test_exact_throw_lands_and_summary_reads(tmp_path: Path):
    args = ["throw", "--release", "0", "-0.8", "0.35", "--velocity", "0", "1.4", "0.5",
            "--spin", "4", "2", "0"]
    j = json.loads(run(*args, "--json").stdout)
    assert j["throw"]["release"] == [0.0, -0.8, 0.35]
    assert j["outcome"]["status"] == "on_table" and 1 <= j["outcome"]["face"] <= 8
    text = run(*args).stdout
    assert "legal release" in text and f"face {j['outcome']['face']} up" in text


def test_a_d4_is_reported_by_the_number_at_its_top_corner():
    """A die read at its top vertex has no face up: the summary says what it shows."""
    j = json.loads(run("throw", "--die", "d4", "--seed", "3", "--json").stdout)
    text = run("throw", "--die", "d4", "--seed", "3").stdout
    assert f"rests on the table: shows {j['outcome']['face']} (at its top corner) at (" in text


def test_player_two_and_foul_reported():
    j = json.loads(run("throw", "--player", "2", "--release", "0", "0.5", "0.1", "--velocity",
                       "0", "-1.5", "1", "--json").stdout)
    assert j["foul"] is True and "foul zone" in j["foul_reason"]
    j = json.loads(run("throw", "--player", "2", "--seed", "4", "--json").stdout)
    assert j["throw"]["release"][1] > 0.45 and j["foul"] is False


def test_scene_dice_are_disturbed(tmp_path: Path):
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps({"dice": [{"name": "target", "die": "paper-d8", "face": 4,
                                           "yaw_deg": 0, "xy": [0.0, 0.0]}]}))
    j = json.loads(run("throw", "--scene", str(scene), "--release", "0", "-0.6", "0.05",
                       "--velocity", "0", "2.2", "0.5", "--json").stdout)
    assert [d["die"] for d in j["disturbed"]] == ["target"]
    assert {"before", "after"} <= set(j["disturbed"][0])


def test_surface_and_table_files(tmp_path: Path):
    table = tmp_path / "t.yaml"
    table.write_text("shape: round\nradius: 0.7\nsurface: {preset: slick, friction: 0.3}\n")
    j = json.loads(run("throw", "--table", str(table), "--seed", "2", "--json").stdout)
    assert j["physics"]["table"]["shape"] == "round"
    assert j["physics"]["table"]["surface"]["friction"] == 0.3
    j = json.loads(run("throw", "--surface", "slick", "--seed", "2", "--json").stdout)
    assert j["physics"]["table"]["surface"]["name"] == "slick"


def test_tray_roll_json():
    j = json.loads(run("throw", "--die", "d6", "--count", "5", "--tray", "--seed", "3", "--json").stdout)
    assert len(j["faces"]) == 5 and all(1 <= f <= 6 for f in j["faces"])
    assert isinstance(j["rethrows"], int)


@pytest.mark.parametrize(("args", "needle"), [
    (["--die", "paper-d9"], "did you mean paper-d8"),
    (["--release", "0", "-0.9", "0.3", "--velocity", "nan", "0", "0"], "velocity: must be finite"),
    (["--release", "0", "-0.9", "0.3", "--velocity", "inf", "0", "0"], "velocity: must be finite"),
    (["--release", "0", "-0.9", "0.3", "--velocity", "0", "60", "0"], "over the 50 m/s limit"),
    (["--release", "0", "-0.9", "-0.01", "--velocity", "0", "1", "0"], "above the table surface"),
    (["--scene", "/nonexistent/scene.json"], "scene.json: file: cannot read"),
    (["--surface", "silk"], "did you mean slick"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    r = run("throw", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(("text", "needle"), [
    ("name: x\ngeometry: {kind: octahedron, edge: 0.05\n", "malformed YAML"),
    ("name: x\ngeometry: {kind: rhombicosidodecahedron}\nmass: 1\n", "geometry.kind"),
    ("name: x\ngeometry: {kind: dodecahedron}\nmass: 1\n", "geometry.edge"),  # issue 17: a kind now
    ("name: x\ngeometry: {kind: octahedron, edge: 0.05}\nmass: -3\n", "mass: must be a positive"),
    ("name: x\ngeometry: {kind: cube, side: 0.02}\nmass: 0.004\nvalues: [1, 2]\n", "values: needs 6"),
    ("name: x\ngeometry: {kind: octahedron, edge: 0.05}\nmass: 0.003\n"
     "com_offset: {toward_face: 9, fraction_of_r: 0.2}\n", "com_offset.toward_face"),
])
def test_bad_die_file_names_file_and_field(tmp_path: Path, text, needle):
    f = tmp_path / "mydie.yaml"
    f.write_text(text)
    r = run("throw", "--die", str(f))
    assert r.returncode == 2
    assert "mydie.yaml" in r.stderr and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unreadable_and_malformed_scene(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = run("throw", "--scene", str(bad))
    assert r.returncode == 2 and "bad.json: line 1: malformed JSON" in r.stderr
    overlap = tmp_path / "overlap.json"
    overlap.write_text(json.dumps([{"name": "a", "face": 1, "xy": [0, 0]},
                                   {"name": "b", "face": 1, "xy": [0.005, 0]}]))
    r = run("throw", "--scene", str(overlap))
    assert r.returncode == 2 and "overlap.json: dice[1]" in r.stderr and "overlap a" in r.stderr


def test_a_large_scene_loads_with_progress_and_reads_each_die_file_once(tmp_path: Path):
    """Issue 15, item 18: 1000 dice in a scene took 215 s with nothing shown. A scene of
    200 or more dice shows a progress bar on stderr (here not a terminal: its last state)."""
    table = tmp_path / "big.yaml"
    table.write_text("shape: rect\nwidth: 1.6\ndepth: 1.6\n")
    scene = tmp_path / "crowd.json"
    scene.write_text(json.dumps({"dice": [
        {"name": f"s{i}", "die": "paper-d8", "face": 1 + i % 8,
         "xy": [-0.7 + 0.07 * (i % 20), -0.7 + 0.07 * (i // 20)]} for i in range(200)]}))
    r = run("throw", "--table", str(table), "--scene", str(scene), "--release", "0", "0.75",
            "0.3", "--velocity", "0", "0", "0", "--json")
    assert r.returncode == 0, r.stderr
    assert "placing the dice of crowd.json" in r.stderr and "200/200" in r.stderr
    assert len(json.loads(r.stdout)["outcome"]) > 0
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"dice": [{"name": "a", "face": 1, "xy": [0.2, 0.2]}]}))
    small = run("throw", "--scene", str(one), "--seed", "3")
    assert small.returncode == 0 and small.stderr == ""  # below 200 dice: no bar
