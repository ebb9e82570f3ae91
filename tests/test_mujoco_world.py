"""The MuJoCo world (issue 20): the conformance tests of the PyBullet World, run on the
second engine: resting heights on every face of every shipped die, inertia as the die
models give it, determinism, no tunnelling at 50 m/s, no stuck dice, the four outcome
classes, and the engine recorded in every result.

DESIGN.md: "At rest a die is on the table only if it rests flat with all three bottom
corners on the table surface. Otherwise it is off the table, with a reason: fell off,
leaning (on another die or an obstacle), or overhanging the edge." "Same throw + same
world = same result, bit for bit, on one machine." "Paper is a thin hollow shell: inertia
about any axis through the centre is m·a²/6."
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("mujoco", reason="the mujoco engine needs the engines extra "
                    "(pip install 'tabletop[engines]')")

from dice_models import DataError, available, load_die  # noqa: E402
from simulator.bench import stuck  # noqa: E402
from simulator.physics import PhysicsSettings, TableSpec, ThrowSpec, die_shape  # noqa: E402
from simulator.physics.engines import make_world  # noqa: E402
from simulator.physics.mujoco_world import MujocoWorld, damping_ratio  # noqa: E402
from simulator.physics.world import World, _quat_from_matrix  # noqa: E402

MUJOCO = PhysicsSettings(engine="mujoco")
D8 = load_die("paper-d8")
D6 = load_die("d6")


def _flat(model, value_down_index: int, yaw: float = 0.0):
    return _quat_from_matrix(die_shape(model).poly.rest_rotation(value_down_index, yaw))


def test_the_engine_setting_picks_the_world_and_is_recorded():
    assert isinstance(make_world(None, MUJOCO), MujocoWorld)
    assert isinstance(make_world(None, PhysicsSettings()), World)
    rep = make_world(None, MUJOCO).throw("a", D8, ThrowSpec((0.0, -0.1, 0.2), (0.2, 0.5, 0.0),
                                                            (3.0, 1.0, 0.0)))
    assert rep.physics["engine"] == "mujoco"
    assert rep.physics["versions"]["mujoco"]


def test_an_unknown_engine_is_one_data_error():
    with pytest.raises(DataError, match="must be one of pybullet, mujoco"):
        PhysicsSettings(engine="havok")


def test_a_missing_mujoco_names_the_extra(monkeypatch):
    """Without the extra the import fails with one line naming it (None in sys.modules is
    how Python marks a module that cannot be imported)."""
    from simulator.physics.engines import import_mujoco

    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(DataError, match=r"tabletop\[engines\]"):
        import_mujoco()


@pytest.mark.parametrize("name", available())
def test_resting_on_each_face_sits_at_geometric_height(name):
    """Every value placed up, side by side, then settled by MuJoCo: each die stays on the
    table showing its value, its centre within 0.5 mm of its geometric height (the PyBullet
    test's tolerance)."""
    model = load_die(name)
    shape = die_shape(model)
    world = MujocoWorld(None, MUJOCO)
    for k, value in enumerate(shape.values):
        x, y = -0.45 + 0.1 * (k % 10), -0.2 + 0.15 * (k // 10)
        world.place(f"d{k}", model, value, 10.0 * k, (x, y))
    world.settle()
    for k, value in enumerate(shape.values):
        o = world.outcome_of(f"d{k}")
        bottom = shape.shown_on.index(value)
        assert (o.status, o.face) == ("on_table", value), (value, o.status, o.reason, o.face)
        assert abs(o.position[2] - shape.poly.face_offsets[bottom]) < 0.0005, (value, o.position[2])


@pytest.mark.parametrize("name", ["paper-d8", "tampered-d8", "d6", "cuboid-d6-long"])
def test_the_model_carries_the_dies_mass_centre_and_inertia(name):
    """MuJoCo's body gets the die model's mass, centre of mass and principal moments (the
    paper shell's m a^2 / 6, not MuJoCo's solid-mesh inertia)."""
    model = load_die(name)
    shape = die_shape(model)
    world = MujocoWorld(None, MUJOCO)
    world.place("a", model, shape.values[0], 0.0, (0.0, 0.0))
    mm = next(iter(world._models.values()))
    assert mm.model.body_mass[1] == pytest.approx(shape.mass.mass, rel=1e-12)
    np.testing.assert_allclose(mm.model.body_ipos[1], shape.mass.com, atol=1e-12)
    np.testing.assert_allclose(sorted(mm.model.body_inertia[1]), sorted(shape.principal_moments),
                               rtol=1e-9)
    if name == "paper-d8":
        a = 0.05
        assert shape.principal_moments == pytest.approx([shape.mass.mass * a * a / 6] * 3, rel=1e-6)


@pytest.mark.parametrize("name", ["paper-d8", "tampered-d8", "d6", "d20", "bipyramid-d10"])
def test_the_same_throw_gives_the_same_bits(name):
    model = load_die(name)
    throw = ThrowSpec((0.05, -0.7, 0.3), (0.1, 1.6, 0.4), (9.0, -5.0, 3.0), (0.1, 0.2, 0.3, 0.927))
    first = MujocoWorld(None, MUJOCO).throw("a", model, throw).to_json()
    again = MujocoWorld(None, MUJOCO)
    again.throw("other", model, ThrowSpec((-0.2, -0.8, 0.4), (0.0, 1.5, 0.5)))
    again.scene.clear()
    assert again.throw("a", model, throw).to_json() == first
    assert first["outcome"]["status"] in ("on_table", "off_table")


@pytest.mark.parametrize("height", [0.036, 0.3, 1.0])
def test_fastest_legal_throw_straight_down_does_not_tunnel(height):
    world = MujocoWorld(None, MUJOCO)
    rep = world.throw("a", D8, ThrowSpec((0.0, 0.0, height), (0.0, 0.0, -49.9), (5.0, 3.0, 0.0)))
    x, y, z = rep.outcome.position
    if rep.outcome.reason == "fell_off":  # it may bounce far, but over the edge, not through
        assert not TableSpec().contains_xy(x, y)
    else:
        assert z > 0


def test_throw_aimed_off_the_table_falls_off():
    world = MujocoWorld(None, MUJOCO)
    rep = world.throw("a", D8, ThrowSpec((0.3, -0.8, 0.4), (3.0, 2.0, 0.0), (5.0, 0.0, 0.0)))
    assert (rep.outcome.status, rep.outcome.reason) == ("off_table", "fell_off")
    assert "a" not in world.scene


def test_die_thrown_onto_a_resting_die_leans():
    world = MujocoWorld(None, MUJOCO)
    world.place("a", D8, 1, 0.0, (0.0, 0.0))
    rep = world.throw("b", D8, ThrowSpec((0.0, 0.0, 0.09), (1e-4, 0.0, 0.0), orientation=_flat(D8, 2, 15.0)))
    assert (rep.outcome.status, rep.outcome.reason) == ("off_table", "leaning")


def test_die_resting_across_the_edge_overhangs():
    world = MujocoWorld(None, MUJOCO)
    rep = world.throw("a", D8, ThrowSpec((0.59, 0.0, 0.025), (0.0, 0.0, 0.0), orientation=_flat(D8, 0)))
    assert (rep.outcome.status, rep.outcome.reason) == ("off_table", "overhang")


def test_knocked_die_is_reported_with_before_and_after():
    world = MujocoWorld(None, MUJOCO)
    world.place("target", D8, 4, 0.0, (0.0, 0.0))
    # slid flat straight at it (a tumbling throw's path differs between the engines)
    rep = world.throw("hammer", D8, ThrowSpec((0.0, -0.12, 0.021), (0.0, 1.5, 0.0), orientation=_flat(D8, 0)))
    before, after = next((b, a) for b, a in rep.disturbed if b.die == "target")
    assert before.face == 4 and before.status == "on_table"
    assert float(np.linalg.norm(np.subtract(after.position, before.position))) > 0.0005


def test_place_refuses_overlap():
    from simulator.physics import PlacementError

    world = MujocoWorld(None, MUJOCO)
    world.place("a", D8, 1, 0.0, (0.0, 0.0))
    with pytest.raises(PlacementError, match="would overlap a"):
        world.place("b", D8, 1, 0.0, (0.01, 0.0))
    assert sorted(world.scene) == ["a"]


def test_trajectory_is_recorded_at_60_hz():
    rep = MujocoWorld(None, MUJOCO).throw("a", D8, ThrowSpec((0.0, -0.1, 0.2), (0.2, 0.5, 0.0)), record=True)
    assert rep.trajectory is not None and len(rep.trajectory) > 5
    assert rep.trajectory[1].t == pytest.approx(1 / 60)


@pytest.mark.parametrize("restitution", [0.06, 0.1, 0.15, 0.2])
def test_a_flat_drop_bounces_back_the_pair_restitution(restitution):
    """DESIGN.md: "a pair rule or pair table gives the effective contact values". MuJoCo has
    no restitution: a die dropped flat at 2 m/s (a lab throw's impact speed) must bounce
    back with the pair's value within 0.03 through the damping-ratio table."""
    import mujoco

    from simulator.physics.settings import SURFACES

    table = TableSpec(surface=SURFACES["slick"])
    world = MujocoWorld(table, MUJOCO)
    world.place("a", D6, 1, 0.0, (0.0, 0.0))
    mm = next(iter(world._models.values()))
    mm.model.pair_solref[:, 1] = damping_ratio(restitution)
    mm.data.qpos[2] += 0.01
    mm.data.qvel[2] = -2.0
    bounce = 0.0
    for _ in range(60):
        mujoco.mj_step(mm.model, mm.data)
        bounce = max(bounce, float(mm.data.qvel[2]))
    assert bounce / 2.0 == pytest.approx(restitution, abs=0.03)


def test_restitution_past_the_table_is_clamped_and_recorded():
    """Slick's pair restitution 0.3 is past MuJoCo's 0.20 (RESTITUTION_TABLE): the record
    says what MuJoCo gives, and that the contact is not exact."""
    from simulator.physics.settings import SURFACES

    rep = MujocoWorld(TableSpec(surface=SURFACES["slick"]), MUJOCO).throw(
        "a", D6, ThrowSpec((0.0, -0.1, 0.2), (0.2, 0.5, 0.0), (3.0, 1.0, 0.0)))
    pair = next(v for k, v in rep.physics["contact"]["pairs"].items() if "slick" in k)
    assert pair["restitution"] == 0.3 and pair["mujoco"]["restitution_at_2_m_s"] == 0.2
    assert rep.physics["contact"]["exact"] is False


@pytest.mark.parametrize("config", [stuck.Config("throw", die, surface)
                                    for die in ("paper-d8", "d6", "bipyramid-d10", "cuboid-d6-long")
                                    for surface in ("felt", "slick")],
                         ids=lambda c: c.name)
def test_no_stuck_dice(config):
    """The stuck-dice bench's throws on MuJoCo: none fails to settle, tunnels or turns
    non-finite, and none rests cocked on the empty table."""
    _config, counts, _seconds = stuck.run_chunk(config, 0, 40, MUJOCO)
    assert {k: counts[k] for k in stuck.MUST_BE_ZERO if counts[k]} == {}
    assert counts["flat"] > 0
