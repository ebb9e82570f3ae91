"""A hand throw as a mixture of styles (issue 36, item 4; docs/impacts.md, "Throw styles"):
dropped, tossed, rolled out of the hand, shaken in a cup, each a throw distribution with a
weight, chosen in an experiment's `throw: {styles: ...}`."""

from __future__ import annotations

import copy
import hashlib
import math
import struct
from typing import Any

import pytest
import yaml

from dice_models import DataError
from simulator.experiments.config import (
    STYLE_PRESETS,
    draw_throw,
    parse_experiment,
)
from simulator.physics import die_shape

BASE: dict[str, Any] = {"name": "styles", "die": "d6", "throws": 10, "seed": 5}


def experiment(throw: dict[str, Any]) -> Any:
    return parse_experiment({**copy.deepcopy(BASE), "throw": throw}, "styles.yaml")


# benchmarks/experiments/cuboid-24mm.yaml before its throw became the lab's default, a
# person's roll (2026-12-04): an experiment that names the drop's numbers keeps its draws
CUBOID_24MM_DROP = """
name: cuboid-24mm
die:
  name: cuboid-16x16x24
  geometry: {kind: cuboid, sides: [0.016, 0.016, 0.024]}
  mass: 0.00675
  mass_model: solid
  values: [2, 5, 3, 4, 1, 6]
surface: felt
throw: {height: [0.10, 0.30], speed: [0.2, 1.5], elevation_deg: [-30, 30], spin: [0, 25],
        area: [0.1, 0.1], orientation: uniform}
throws: 1000
chunk_size: 50
seed: 1
alpha: 0.01
series: {name: cuboid, parameter: "long side / short side", value: 1.5, face: 1}
"""


def test_a_throw_without_styles_draws_as_before() -> None:
    # the single distribution's draws and fingerprint, recorded before styles existed
    exp = parse_experiment(yaml.safe_load(CUBOID_24MM_DROP), "benchmarks/experiments/cuboid-24mm.yaml")
    h = hashlib.sha256()
    for i in range(200):
        d = draw_throw(exp, i)
        t = d.throw
        h.update(struct.pack("<16d", *t.release, *t.velocity, *t.spin, *t.orientation,
                             d.height, d.speed, d.spin))
        h.update(struct.pack("<i", d.initial_down))
        h.update(struct.pack("<d", d.energy_j))
        assert d.style == ""
    assert h.hexdigest() == "69b97b51c758d28b992bcfab9af11089c05953567fcb0ef95e9d6c8e2868ecc3"
    assert exp.fingerprint() == "4f0a1214005c2aaf"
    assert "styles" not in exp.throw.to_json() and "roll" not in exp.throw.to_json()


def test_null_styles_and_roll_are_a_plain_throw() -> None:  # as docs/fairness.md shows them
    plain = experiment({"speed": [1.0, 2.0]})
    nulls = experiment({"speed": [1.0, 2.0], "styles": None, "roll": None})
    assert nulls.fingerprint() == plain.fingerprint()
    assert draw_throw(nulls, 3) == draw_throw(plain, 3)


def test_one_style_is_that_distribution() -> None:
    ranges = {"height": [0.2, 0.3], "speed": [1.0, 2.0], "spin": [5.0, 9.0]}
    alone = experiment(ranges)
    styled = experiment({"styles": {"mine": {"weight": 1, **ranges}}})
    for i in range(20):
        a, b = draw_throw(alone, i), draw_throw(styled, i)
        assert a.throw == b.throw and a.energy_j == b.energy_j
        assert b.style == "mine"
    assert styled.fingerprint() != alone.fingerprint()


def test_weights_give_the_shares() -> None:
    exp = experiment({"styles": {"dropped": {"weight": 1}, "tossed": {"weight": 3}}})
    n = 4000
    dropped = sum(draw_throw(exp, i).style == "dropped" for i in range(n))
    assert abs(dropped / n - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)


def test_presets_fill_the_ranges() -> None:
    exp = experiment({"area": [0.05, 0.05], "styles": {"cup": {"weight": 1},
                                                        "dropped": {"weight": 1, "speed": [0, 0]}}})
    for i in range(200):
        d = draw_throw(exp, i)
        preset = STYLE_PRESETS[d.style]
        lo, hi = preset["height"]
        assert lo <= d.height <= hi
        assert abs(d.throw.release[0]) <= 0.05 and abs(d.throw.release[1]) <= 0.05
        if d.style == "cup":
            assert preset["spin"][0] <= d.spin <= preset["spin"][1]
        else:
            assert d.speed == 0.0


def test_rolled_spins_about_the_axis_across_the_motion() -> None:
    exp = experiment({"styles": {"rolled": {"weight": 1}}})
    r = die_shape(exp.die).inradius
    lo, hi = STYLE_PRESETS["rolled"]["roll"]
    for i in range(100):
        d = draw_throw(exp, i)
        (vx, vy, _vz), (wx, wy, wz) = d.throw.velocity, d.throw.spin
        v_h = math.hypot(vx, vy)
        assert wz == 0.0
        assert abs(wx * vx + wy * vy) < 1e-9 * max(1.0, d.spin)  # square to the motion
        assert lo - 1e-9 <= d.spin * r / v_h <= hi + 1e-9  # a multiple of the rolling rate
        # forward topspin: the bottom point moves backward, w x (0, 0, -r) along -v
        assert (-wy * vx + wx * vy) * r < 0


@pytest.mark.parametrize("throw,field,says", [
    ({"styles": {"tossed": {"weight": 1, "spn": [0, 1]}}}, "throw.styles.tossed.spn",
     "did you mean spin"),
    ({"styles": {"tossed": {"weight": 0}}}, "throw.styles.tossed.weight", "positive"),
    ({"styles": {"tossed": {}}}, "throw.styles.tossed.weight", "positive"),
    ({"styles": {}}, "throw.styles", "mapping"),
    ({"styles": {"cup": {"weight": 1, "speed": [2, 1]}}}, "throw.styles.cup.speed", "low is above"),
    ({"styles": {"rolled": {"weight": 1, "roll": [-1, 1]}}}, "throw.styles.rolled.roll", "within"),
    ({"styles": {"cup": {"weight": 1, "styles": {}}}}, "throw.styles.cup.styles", "unknown"),
])
def test_bad_styles_are_one_line_naming_the_field(throw: dict[str, Any], field: str,
                                                  says: str) -> None:
    with pytest.raises(DataError) as err:
        experiment(throw)
    text = str(err.value)
    assert f"{field}:" in text and says in text and "\n" not in text
    assert text.index(field) < text.index(says)  # the field and reason before any value


def test_a_dataset_throw_model_of_styles_is_fitted_by_its_shares() -> None:
    # issue 36, item 4: the calibration scales every style's speed and spin and sets the
    # mixture's weights from its shares (stick-breaking: share.NAME of all but the last)
    from simulator.experiments.calibration_sim import (
        base_parameters,
        experiment_for,
        style_weights,
    )
    from simulator.experiments.datasets import bounds, parse_dataset

    styles = {"dropped": {"weight": 1}, "tossed": {"weight": 2}, "rolled": {"weight": 1}}
    ds = parse_dataset({
        "name": "mix", "source": {"citation": "test", "where_read": "test"},
        "objects": [{"name": "cube", "geometry": {"kind": "cube", "side": 0.016},
                     "mass": 0.006, "mass_model": "solid", "material": "plastic",
                     "surface": "hardwood", "outcomes": {"one": [1], "rest": [2, 3, 4, 5, 6]},
                     "counts": {"one": 10, "rest": 50}, "where_read": "test",
                     "throw": {"as_described": "test", "model": {"styles": styles}},
                     "assumed": {f: "test" for f in ("geometry", "mass", "mass_model",
                                                     "material", "surface", "throw")}}]},
        "mix.yaml")
    obj = ds.objects[0]
    base = base_parameters(obj)
    assert base["share.dropped"] == pytest.approx(0.25) and base["share.tossed"] == pytest.approx(2 / 3)
    assert "share.rolled" not in base and bounds("share.tossed") == (0.0, 1.0)
    assert style_weights(obj.throw, base) == pytest.approx([0.25, 0.5, 0.25])
    exp = experiment_for(obj, {**base, "throw_scale": 2.0, "share.dropped": 0.5,
                               "share.tossed": 0.0}, seed=3)
    assert [st.weight for st in exp.throw.styles] == pytest.approx([0.5, 0.0, 0.5])
    tossed = exp.throw.styles[1].throw
    assert tossed.speed == pytest.approx((1.0, 4.0)) and tossed.spin == pytest.approx((0.0, 60.0))
    drawn = {draw_throw(exp, i).style for i in range(200)}
    assert drawn == {"dropped", "rolled"}  # a share of 0 is never drawn


def test_a_styled_experiment_throws() -> None:
    from simulator.experiments.dispatch import ThrowSimulator

    exp = experiment({"styles": {"rolled": {"weight": 1}, "cup": {"weight": 1}}})
    sim = ThrowSimulator(exp)
    try:
        rows = sim.run(list(range(6)))
    finally:
        sim.world.close()
    assert len(rows) == 6 and all(r.status in ("on_table", "fell_off") for r in rows)


@pytest.mark.slow  # generates counts and fits them (~1-2 min)
def test_the_calibration_recovers_the_share_of_a_style(tmp_path) -> None:
    # issue 36, item 4: "the calibration can fit the mix". Two dice thrown by a mixture of a
    # flat slide (face 1 down: the start face mostly stays down) and a drop at a uniform
    # orientation; counts generated at a slide share of 0.7 with seeds the fit never uses,
    # then `--fit share.slid` must find it.
    import json

    import yaml

    from simulator.cli.main import main
    from simulator.experiments import calibrate as cal

    true_share = 0.7
    marked = {f: "synthetic: the test's own model" for f in cal.MARKED}

    def dataset(counts: dict[str, tuple[int, int]] | None = None) -> dict[str, Any]:
        objs = [
            {"name": "cube", "geometry": {"kind": "cube", "side": 0.016},
             "outcomes": {"start": [6], "other": [1, 2, 3, 4, 5]}},
            {"name": "slab", "geometry": {"kind": "cuboid", "sides": [0.016, 0.016, 0.012]},
             "values": [2, 5, 3, 4, 1, 6], "outcomes": {"start": [6], "other": [1, 2, 3, 4, 5]}},
        ]
        for o in objs:
            k, n = (counts or {}).get(o["name"], (1, 2))
            o["counts"] = {"start": k, "other": n - k}
            o["where_read"] = "generated by the simulator"
        styles = {"slid": {"weight": true_share if counts is None else 0.5,
                           "height": [0.015, 0.02], "speed": [0.3, 0.8],
                           "elevation_deg": [-10, 0], "spin": [0, 5],
                           "orientation": {"face_down": 1}},
                  "dropped": {"weight": 1 - true_share if counts is None else 0.5,
                              "height": [0.1, 0.2], "speed": [0, 0.2], "spin": [0, 5]}}
        return {"name": "styles", "source": {"citation": "tests/test_throw_styles.py",
                                             "where_read": "generated"},
                "defaults": {"mass": 0.006, "mass_model": "solid", "material": "plastic",
                             "surface": "hardwood", "stated": dict(marked),
                             "throw": {"as_described": "slid or dropped",
                                       "model": {"styles": styles}}},
                "objects": objs}

    ds = cal.parse_dataset(dataset(), "styles.yaml")
    counts = {}
    for o in ds.objects:  # at the true share (the dataset's weights 0.7 / 0.3)
        s = cal.simulate(o, cal.base_parameters(o), 7, range(300))
        counts[o.name] = (s.counts[0], s.n)
    path = tmp_path / "styles.yaml"
    path.write_text(yaml.safe_dump(dataset(counts), sort_keys=False))  # weights 0.5 / 0.5
    out = tmp_path / "cal"
    status = main(["fairness", "calibrate", str(path), "--out", str(out), "--fit", "share.slid",
                   "--throws", "150", "--design", "8", "--holdout", "", "--workers", "2",
                   "--quiet"])
    rep = json.loads((out / "report.json").read_text())
    low, high = rep["interval95"]["share.slid"]
    assert low <= true_share <= high, (rep["values"], rep["interval95"])
    assert high - low < 0.3  # an interval that says something (0.58-0.74 when written)
    assert status == 0 and not rep["fit"]["bad_fit"]
    assert "share.slid" in (out / "report.md").read_text()


def test_a_throw_from_the_throwers_edge_keeps_its_draws_and_moves_its_box() -> None:
    # origin and direction_deg move the release box and bound the direction; every other
    # number of the throw is the plain throw's, and a throw that names its area alone
    # releases over the middle in any direction, as before the person's roll was the default
    plain = experiment({"speed": [1.0, 2.0], "area": [0.1, 0.1]})  # over the middle
    edge = experiment({"speed": [1.0, 2.0], "origin": [0.0, -0.38], "area": [0.1, 0.02],
                       "direction_deg": [70, 110]})
    assert "origin" not in plain.throw.to_json() and "direction_deg" not in plain.throw.to_json()
    assert edge.fingerprint() != plain.fingerprint()
    for i in range(50):
        a, b = draw_throw(plain, i), draw_throw(edge, i)
        assert (a.height, a.speed, a.spin, a.throw.spin, a.throw.orientation) == (
            b.height, b.speed, b.spin, b.throw.spin, b.throw.orientation)
        x, y, _ = b.throw.release
        assert abs(x) <= 0.1 and -0.40 <= y <= -0.36
        vx, vy, vz = b.throw.velocity
        assert 70 <= math.degrees(math.atan2(vy, vx)) <= 110 and vz == a.throw.velocity[2]
        assert math.hypot(vx, vy) == pytest.approx(math.hypot(*a.throw.velocity[:2]))


@pytest.mark.parametrize("throw,field", [
    ({"origin": [0.0, -0.44]}, "throw.area"),  # the box's near side off the 0.9 m table
    ({"origin": [0.0]}, "throw.origin"),
    ({"direction_deg": [110, 70]}, "throw.direction_deg"),
])
def test_a_bad_origin_or_direction_is_one_line_naming_the_field(throw: dict[str, Any],
                                                                field: str) -> None:
    with pytest.raises(DataError) as exc:
        experiment(throw)
    assert f"styles.yaml: {field}:" in str(exc.value) and "\n" not in str(exc.value)
