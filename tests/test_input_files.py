"""Every file the program reads is read the same bounded way (dice_models/files.py): a file
that is not UTF-8, too large, an alias bomb or nested too deeply is one error line and exit
status 2 from every loader, and an echoed bad value is short (issue 15, items 14, 15, 17)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dice_models import DataError, load_die
from dice_models.errors import MAX_SHOWN
from dice_models.files import MAX_YAML_NODES, parse_yaml
from simulator.cli.main import main

# Every loader, as the command line reaches it; {y} is a YAML file, {j} a JSON file.
LOADERS = {
    "die": ["throw", "--die", "{y}"],
    "table": ["throw", "--table", "{y}"],
    "scene": ["throw", "--scene", "{j}"],
    "experiment": ["fairness", "run", "{y}", "--out", "{out}"],
    "dataset": ["fairness", "calibrate", "{y}", "--out", "{out}"],
    "crew": ["dice", "check", "{y}"],
    "map": ["play", "dday", "--headless", "--map", "{y}"],
    "tribe": ["play", "dicewar", "--headless", "--tribes", "{y},{y}"],
    "board": ["play", "diceland-hex", "--headless", "--board", "{y}"],
    "crews of a game": ["play", "deep-white-sea", "--headless", "--crews", "{y},{y}"],
    "save": ["play", "diced", "--headless", "--load", "{j}"],
    "log": ["replay", "{j}"],
    "baseline": ["bench", "run", "--baseline", "{j}"],
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    return status, capsys.readouterr().err


def _argv(kind: str, yaml_file: Path, json_file: Path, out: Path) -> list[str]:
    return [a.format(y=yaml_file, j=json_file, out=out) for a in LOADERS[kind]]


@pytest.mark.parametrize("kind", list(LOADERS))
def test_a_file_that_is_not_utf8_is_one_line_naming_the_byte(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    yaml_file = tmp_path / "latin1.yaml"
    yaml_file.write_bytes("name: caf\u00e9\n".encode("latin-1"))  # 0xe9 at byte 9
    json_file = tmp_path / "latin1.json"
    json_file.write_bytes('{"name": "caf\u00e9"}\n'.encode("latin-1"))
    status, err = _run(_argv(kind, yaml_file, json_file, tmp_path / "out"), capsys)
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "latin1." in err and "not UTF-8" in err
    assert "Traceback" not in err


def _alias_bomb() -> str:
    """The classic "billion laughs": 9 levels of 9 aliases, about 400 bytes, 9**9 strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["die", "table", "experiment", "crew", "map", "tribe", "board"])
def test_a_yaml_alias_bomb_is_refused_at_once(kind: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # It took 74 s, 8.3 GB and wrote a 2.1 GB error line as a --die.
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_alias_bomb())
    start = time.perf_counter()
    status, err = _run(_argv(kind, bomb, bomb, tmp_path / "out"), capsys)
    assert time.perf_counter() - start < 10
    assert status == 2
    assert f"expands to over {MAX_YAML_NODES:,} nodes" in err
    assert len(err) < 300


def test_an_anchor_inside_itself_is_refused() -> None:
    with pytest.raises(DataError, match="expands to over"):
        parse_yaml("a: &a [1, *a]\n", "loop.yaml")


def test_a_file_past_the_size_limit_is_not_read_whole(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _run(["throw", "--die", "/dev/zero"], capsys)
    assert status == 2
    assert "/dev/zero: file: too large" in err


@pytest.mark.parametrize("text", ["[" * 20000, "a:\n" + "".join(" " * i + "- \n" for i in range(1, 3000))])
def test_yaml_nested_past_the_stack_is_one_line(text: str) -> None:
    with pytest.raises(DataError, match="deep.yaml: "):
        parse_yaml(text, "deep.yaml")


def test_an_echoed_value_is_cut_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    die = tmp_path / "long.yaml"
    die.write_text("geometry: {kind: cube, side: 0.016}\nmass: " + "x" * 100_000 + "\n")
    status, err = _run(["throw", "--die", str(die)], capsys)
    assert status == 2
    assert "long.yaml: mass:" in err
    assert len(err) < MAX_SHOWN + 200


def test_an_echoed_huge_integer_is_not_converted_whole() -> None:
    # str() of an int past 4300 digits raises ValueError: the message must still be made.
    err = DataError("f.yaml", "mass", "must be a number", 10 ** 5000)
    assert "too long to show" in str(err)


def test_a_yaml_integer_too_long_to_read_is_one_line() -> None:
    with pytest.raises(DataError, match="an integer too long to read"):
        parse_yaml("mass: " + "9" * 5000, "f.yaml")


@pytest.mark.parametrize("text, value", [("3e-3", 0.003), ("1e3", 1000.0), ("2.5E+3", 2500.0),
                                         (".5e1", 5.0), ("1.0e-3", 0.001)])
def test_yaml_exponents_are_numbers(text: str, value: float) -> None:
    # YAML 1.1 (PyYAML) reads 3e-3 as a string; `mass: 3e-3` was refused as not a number.
    assert parse_yaml(f"mass: {text}", "f.yaml") == {"mass": value}


def test_a_die_mass_in_exponent_form_is_accepted(tmp_path: Path) -> None:
    die = tmp_path / "small.yaml"
    die.write_text("geometry: {kind: cube, side: 0.016}\nmass: 3e-3\n")
    assert load_die(die).mass == pytest.approx(0.003)


def test_a_directory_named_like_a_shipped_die_does_not_hide_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d6").mkdir()
    monkeypatch.chdir(tmp_path)
    assert load_die("d6").name == "d6"


def test_a_die_field_typo_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    die = tmp_path / "typo.yaml"
    die.write_text("geometry: {kind: cube, side: 0.016}\nmass: 0.004\nmassmodel: shell\n")
    status, err = _run(["throw", "--die", str(die)], capsys)
    assert status == 2
    assert "typo.yaml: massmodel: unknown field; did you mean mass_model?" in err


def test_a_table_field_typo_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "typo.yaml"
    table.write_text("widht: 1.0\n")
    status, err = _run(["throw", "--table", str(table)], capsys)
    assert status == 2
    assert "typo.yaml: widht: unknown field; did you mean width?" in err


@pytest.mark.parametrize("argv", [["throw"], ["play", "diced", "--headless"],
                                  ["render", "--out", "{tmp}/t.png"], ["demo", "--out", "{tmp}"]])
def test_a_negative_seed_is_a_usage_error(argv: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # numpy refuses negative seeds: throw, play and render gave a traceback.
    with pytest.raises(SystemExit) as stop:
        main([a.format(tmp=tmp_path) for a in argv] + ["--seed", "-1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].endswith("argument --seed: must be 0 or more (got -1)")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("option", ["--sprt-alpha", "--sprt-beta"])
def test_an_sprt_error_rate_of_zero_is_refused_not_replaced(
        option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `args.sprt_alpha or 0.01` turned 0 into the default.
    config = Path(__file__).parents[1] / "benchmarks" / "experiments" / "fair-d6.yaml"
    status, err = _run(["fairness", "run", str(config), "--stop", "sprt", "--p1", "0.2", option,
                        "0", "--throws", "1", "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    name = option.removeprefix("--sprt-")
    assert f"stop.{name}: must be a probability strictly between 0 and 1 (got 0.0)" in err
    assert not (tmp_path / "out").exists()


def test_dice_check_validates_a_physics_die_file(capsys: pytest.CaptureFixture[str]) -> None:
    # It checked every file as a crew die and answered "team: must name the team".
    d6 = Path(__file__).parents[1] / "dice_models" / "dice" / "d6.yaml"
    assert main(["dice", "check", str(d6)]) == 0
    assert "ok: physics die d6: cube" in capsys.readouterr().out


def test_dice_check_finds_an_error_in_a_physics_die_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    die = tmp_path / "light.yaml"
    die.write_text("geometry: {kind: cube, side: 0.016}\nmass: -1\n")
    status, err = _run(["dice", "check", str(die)], capsys)
    assert status == 2
    assert "light.yaml: mass:" in err and "team" not in err


# -- found by the fuzz suite (simulator/cli/fuzz.py) ----------------------------------------


@pytest.mark.parametrize("kind", ["table", "tribe", "map"])
def test_a_key_with_a_line_break_is_still_one_error_line(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The unknown key was echoed raw: `? "\n\n"` gave an error of three lines.
    bad = tmp_path / "key.yaml"
    bad.write_text('"\\n\\nwidth\\v": 1\n')
    status, err = _run(_argv(kind, bad, bad, tmp_path / "out"), capsys)
    assert status == 2
    assert len(err.splitlines()) == 1, err
    assert "\\n\\nwidth\\x0b: unknown field" in err


def test_a_log_line_with_null_events_is_one_error_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["play", "diced", "--headless", "--quiet", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    lines[1] = lines[1].replace('"events": [', '"events": null, "x": [')
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    status, err = _run(["replay", str(log)], capsys)  # it was a TypeError traceback
    assert status == 2
    assert f"{log}: line 2: events: must be a list (got None)" in err


@pytest.mark.parametrize("argv", [["throw", "--die", "n" * 300],
                                  ["fairness", "report", "{tmp}/" + "n" * 300]])
def test_a_name_too_long_for_the_system_is_one_error_line(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Path.is_file() raises ENAMETOOLONG instead of answering False.
    status, err = _run([a.format(tmp=tmp_path) for a in argv], capsys)
    assert status == 2
    assert len(err.splitlines()) == 1 and len(err) < 1000, err


STILL = ["--velocity", "0", "0", "0", "--spin", "0", "0", "0"]


@pytest.mark.parametrize("release, extra, inside", [
    (["0", "-0.3", "0.005"], [], "the table"),
    (["0", "0", "0.05"], ["--table", "{table}"], "obstacle crate"),
    (["0.3", "0", "0.05"], ["--table", "{table}"], "obstacle mug"),
    (["-0.3", "0", "0.05"], ["--scene", "{scene}"], "die a"),
])
def test_a_release_inside_a_solid_is_refused(release: list[str], extra: list[str], inside: str,
                                             tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # The paper d8 (circumradius 28 mm) released with its centre 5 mm above the felt, inside
    # a 10 cm crate or mug, or inside a resting d6 was thrown, and Bullet pushed it out.
    table = tmp_path / "table.yaml"
    table.write_text("obstacles:\n"
                     "  - {name: crate, kind: box, position: [0, 0], size: [0.1, 0.1, 0.1]}\n"
                     "  - {name: mug, kind: cylinder, position: [0.3, 0], radius: 0.04,"
                     " height: 0.1}\n")
    scene = tmp_path / "scene.json"
    scene.write_text('{"dice": [{"name": "a", "die": "d6", "face": 1, "yaw_deg": 0,'
                     ' "xy": [-0.3, 0.0]}]}')
    argv = ["throw", "--release", *release, *STILL,
            *[a.format(table=table, scene=scene) for a in extra]]
    status, err = _run(argv, capsys)
    assert status == 2
    assert f"throw: release: would start the die inside {inside}" in err


@pytest.mark.parametrize("release", [["0", "-0.6", "0.01"],  # beyond the edge, below its level
                                     ["0", "-0.3", "0.2"]])
def test_a_release_clear_of_every_solid_is_thrown(release: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["throw", "--release", *release, *STILL, "--json"]) == 0


def test_an_error_line_is_bounded_whatever_the_message_echoes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A game's own save checks echo values with a raw repr; the CLI cuts the line once.
    save = tmp_path / "game.json"
    assert main(["play", "diced", "--headless", "--quiet", "--save", str(save)]) == 0
    data = json.loads(save.read_text())
    data["state"]["phase"] = "x" * 100_000
    save.write_text(json.dumps(data))
    capsys.readouterr()
    status, err = _run(["play", "diced", "--headless", "--load", str(save)], capsys)
    assert status == 2
    assert "phase" in err and len(err) <= 2000 + len("tabletop play: error: \n")


def test_a_table_length_too_large_for_a_float_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "wide.yaml"
    table.write_text("width: 1" + "0" * 400 + "\n")  # float() overflowed: a traceback
    status, err = _run(["throw", "--table", str(table)], capsys)
    assert status == 2
    assert "wide.yaml: width: must be a length in m between 0.1 and 10" in err


def test_yaml_nested_past_a_hundred_levels_is_refused_at_once() -> None:
    start = time.perf_counter()
    with pytest.raises(DataError, match="YAML nested over 100 levels deep"):
        parse_yaml("[" * 5000, "deep.yaml")
    assert time.perf_counter() - start < 5


def test_verify_of_a_log_whose_faces_are_not_numbers_is_a_mismatch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["play", "diced", "--headless", "--quiet", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    chance = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "chance")
    entry = json.loads(lines[chance])
    entry["faces"] = "5:1"  # int(':') was a ValueError traceback
    lines[chance] = json.dumps(entry)
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(log), "--verify"]) == 1
    assert "faces: not a list of whole numbers" in capsys.readouterr().out


@pytest.mark.parametrize("field, value", [("xy", "[1" + "0" * 400 + ", 0]"),
                                          ("yaw_deg", "1" + "0" * 400)])
def test_a_scene_number_too_large_for_a_float_is_one_line(
        field: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # math.isfinite(10**400) raises OverflowError: it was a traceback.
    die = {"name": "a", "die": "paper-d8", "face": 3, "yaw_deg": "0", "xy": "[0, 0.1]"}
    die[field] = value
    scene = tmp_path / "scene.json"
    scene.write_text('{"dice": [{' + ", ".join(
        f'"{k}": {v}' if k != "name" and k != "die" else f'"{k}": "{v}"'
        for k, v in die.items()) + "}]}")
    status, err = _run(["throw", "--scene", str(scene)], capsys)
    assert status == 2
    assert f"dice[0].{field}: must be" in err


def test_a_die_smaller_than_a_millimetre_is_refused(tmp_path: Path) -> None:
    # A 50 nm d8 never came to rest: exit 3 after 20 s of simulated time.
    die = tmp_path / "dust.yaml"
    die.write_text("geometry: {kind: octahedron, edge: 5.0e-08}\nmass: 0.003\n")
    with pytest.raises(DataError, match="geometry.edge: must be at least 0.001 m"):
        load_die(die)


def test_verify_of_a_log_header_without_a_game_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["play", "diced", "--headless", "--quiet", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    del header["game"]  # header["game"] was a KeyError
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    capsys.readouterr()
    status = main(["replay", str(log), "--verify"])
    captured = capsys.readouterr()
    assert status in (1, 2) and "Traceback" not in captured.err
    assert len((captured.out + captured.err).strip().splitlines()) == 1


def test_a_baseline_number_too_large_for_a_float_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    smoke = Path(__file__).parents[1] / "benchmarks" / "baselines" / "smoke.json"
    data = json.loads(smoke.read_text())

    def first_float(node: object) -> tuple[object, object] | None:
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, float):
                return node, key
            found = first_float(value)
            if found is not None:
                return found
        return None

    found = first_float(data["measurements"])
    assert found is not None
    node, key = found
    node[key] = 10 ** 400  # type: ignore[index]
    baseline = tmp_path / "huge.json"
    baseline.write_text(json.dumps(data))
    status, err = _run(["bench", "run", "--baseline", str(baseline)], capsys)
    assert status == 2 and "huge.json: measurements." in err, err
