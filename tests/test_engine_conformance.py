"""Every physics engine keeps the same contract (issue 35, item 3): the same throw twice gives
the same bits, a die placed on any face rests at the height its geometry gives, a foul
release is called foul with the reason every table shares (rules/core/throwing.py), a die
thrown off the edge is reported fell-off, a tip rolls a die on to a neighbouring face, and
the settle rule's confinement confines in every engine.

The tests read only the engine contract (simulator/physics/engine.py, `Engine`): `make_world`
and the public methods of the world it builds (place, settle, outcome_of, throw, tip,
remove, scene, released), and the step-level contract under it
(simulator/physics/stepping.py: the `Run` that `released` gives, its readers, `advance`,
`left_table`, `poised`, `frame`, driven by the one settle loop `stepping.settle`). A new
engine is added to WORLD_ENGINES and must pass this file unchanged (ARCHITECTURE.md,
"Adding an engine").
"""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from dice_models import load_die
from rules.core.protocols import ThrowSpec
from rules.core.throwing import foul_of
from simulator.physics import NonFiniteError, PhysicsSettings, TableSpec, TunnelError, die_shape
from simulator.physics.engine import WORLD_ENGINES
from simulator.physics.engines import make_world
from simulator.physics.settings import Obstacle
from simulator.physics.stepping import settle, watch_of
from simulator.physics.throws import random_throw


def _engine(name: str, module: str | None) -> object:
    missing = module is not None and importlib.util.find_spec(module) is None
    return pytest.param(name, id=name, marks=pytest.mark.skipif(
        missing, reason=f"{name} is not installed (pip install 'tabletop[engines]')"))


ENGINES = [_engine(name, {"mujoco": "mujoco"}.get(name)) for name in WORLD_ENGINES]
TABLE = TableSpec()
D6, D8, D20 = load_die("d6"), load_die("paper-d8"), load_die("d20")
# A die resting flat is at most this (m) off its geometric height: Bullet's collision margin
# (0.1 mm, a hull rests on it) and MuJoCo's soft contact (sinks 0.01-0.3 mm, SOLIMP).
REST_TOL = 0.0005


def _world(engine: str):
    return make_world(TABLE, PhysicsSettings(engine=engine))


def _bits(report) -> str:
    return json.dumps(report.to_json(), sort_keys=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_same_throw_twice_gives_the_same_bits(engine):
    """Two fresh worlds, a lone throw and then a throw among the dice it left: the same
    reports to the bit, and the same scene after."""
    runs = []
    for _ in range(2):
        world = _world(engine)
        world.place("r", D6, 3, 20.0, (0.05, 0.05))
        rng = np.random.default_rng(7)
        first = world.throw("a", D8, random_throw(TABLE, 1, rng))
        second = world.throw("b", D20, random_throw(TABLE, 2, rng), player=2)
        runs.append((_bits(first), _bits(second), sorted(world.scene)))
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[0][1]  # (two different throws: the comparison can fail)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("model", "faces"), [(D6, range(1, 7)), (D8, range(1, 9)), (D20, (1, 20))],
                         ids=["d6", "paper-d8", "d20"])
def test_a_die_placed_on_each_face_rests_at_its_geometric_height(engine, model, faces):
    """Placed flat and left to settle, the die still shows the face and its centre is its
    face's offset (dice_models.geometry) above the table, to the contact's tolerance."""
    shape = die_shape(model)
    world = _world(engine)
    for face in faces:
        world.place("a", model, face, 15.0, (0.1, -0.05))
        world.settle()
        pose = world.outcome_of("a")
        height = float(shape.poly.face_offsets[shape.shown_on.index(face)])
        assert (pose.status, pose.face) == ("on_table", face)
        assert abs(pose.position[2] - height) < REST_TOL, (face, pose.position)
        world.remove("a")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_die_dropped_flat_comes_to_rest_at_its_geometric_height(engine):
    """Let go 3 mm above the table in its resting orientation (a pure drop, tilted by the
    symmetry break): it falls, lands on that face and rests at the geometric height."""
    shape = die_shape(D6)
    world = _world(engine)
    flat = world.place("p", D6, 4, 30.0, (0.0, 0.0))
    world.remove("p")
    height = float(shape.poly.face_offsets[shape.shown_on.index(4)])
    throw = ThrowSpec(release=(0.2, 0.1, height + 0.003), velocity=(0.0, 0.0, 0.0),
                      spin=(0.0, 0.0, 0.0), orientation=flat.quaternion)
    report = world.throw("a", D6, throw)
    assert report.perturbation is not None and report.steps > 1
    assert (report.outcome.status, report.outcome.face) == ("on_table", 4)
    assert abs(report.outcome.position[2] - height) < REST_TOL


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("release", [(0.0, -TABLE.edge_y + 0.1, 0.1),   # in front of the line
                                     (0.1, -TABLE.edge_y - 0.1, 0.1)],  # in the foul zone
                         ids=["in-front", "foul-zone"])
def test_a_foul_release_is_called_foul_with_the_shared_reason(engine, release):
    throw = ThrowSpec(release=release, velocity=(0.0, 1.0, 0.5), spin=(3.0, 1.0, 0.0),
                      orientation=(0.0, 0.0, 0.0, 1.0))
    foul, why = foul_of(throw, 1, TABLE.edge_y)
    assert foul and why
    report = _world(engine).throw("a", D8, throw)
    assert (report.foul, report.foul_reason) == (True, why)
    legal = ThrowSpec(release=(0.0, -TABLE.edge_y - 0.4, 0.2), velocity=(0.0, 2.0, 1.0),
                      spin=(3.0, 1.0, 0.0), orientation=(0.0, 0.0, 0.0, 1.0))
    assert (_world(engine).throw("a", D8, legal).foul_reason) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_die_thrown_off_the_edge_is_reported_fell_off(engine):
    """Thrown hard across the table, it leaves by the far edge: off the table, fell off,
    and no longer in the scene; the die resting on the table stays."""
    world = _world(engine)
    world.place("r", D6, 1, 0.0, (-0.4, 0.3))
    throw = ThrowSpec(release=(0.0, -TABLE.edge_y - 0.35, 0.4), velocity=(0.0, 8.0, 0.5),
                      spin=(0.0, 5.0, 0.0), orientation=(0.0, 0.0, 0.0, 1.0))
    report = world.throw("a", D8, throw)
    assert (report.outcome.status, report.outcome.reason) == ("off_table", "fell_off")
    assert report.outcome.position[2] < 0.0
    assert sorted(world.scene) == ["r"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_tip_rolls_the_die_on_to_a_neighbouring_face(engine):
    """A resting d8 tipped over the edge beneath a top corner lies on a face that shares an
    edge with the face it lay on, flat on the table; a die in the way blocks the tip."""
    shape = die_shape(D8)
    poly = shape.poly
    world = _world(engine)
    before = world.place("a", D8, 1, 0.0, (0.0, 0.0))
    report = world.tip("a", "x")
    assert report.rolled and report.blocked_by is None
    after = world.outcome_of("a")
    assert after.status == "on_table" and after.face != before.face
    old, new = shape.shown_on.index(before.face), shape.shown_on.index(after.face)
    assert len(set(poly.faces[old]) & set(poly.faces[new])) == 2  # one edge in common
    assert abs(after.position[2] - float(poly.face_offsets[new])) < REST_TOL
    # A die resting where the roll lands (beyond the rolling die, not touching it) blocks it.
    world = _world(engine)
    world.place("a", D8, 1, 0.0, (0.0, 0.0))
    world.place("b", D8, 1, 0.0, (1.8 * after.position[0], 1.8 * after.position[1]))
    blocked = world.tip("a", "x")
    assert (blocked.rolled, blocked.blocked_by) == (False, "b")
    assert world.outcome_of("a") == before


@pytest.mark.parametrize("engine", ENGINES)
def test_a_tip_into_an_obstacle_is_blocked_by_it(engine):
    """The d8 turned so that its x corner points at a crate a few cm off: the roll would
    enter the crate, so the tip is refused, naming it, and the die stays as it was."""
    table = TableSpec(obstacles=(Obstacle(kind="box", name="crate", position=(0.06, 0.0),
                                          size=(0.05, 0.2, 0.1)),))
    world = make_world(table, PhysicsSettings(engine=engine))
    for yaw in range(0, 360, 5):
        world.scene.clear()
        before = world.place("a", D8, 3, float(yaw), (0.0, 0.0))
        if before.top_corners["x"][0] > 0 and abs(before.top_corners["x"][1]) < 0.003:
            break
    report = world.tip("a", "x")
    assert (report.rolled, report.blocked_by) == (False, "obstacle:crate")
    assert world.outcome_of("a") == before
    # Square to it (the y corner), the same die rolls.
    assert world.tip("a", "y").rolled


# -- the step-level contract (stepping.Run) -------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_released_die_reads_as_thrown_and_falls_under_gravity(engine):
    """A die let go in the air reads its release and velocity; after the steps `advance`
    took (one at least, more if it coasts or batches) it has fallen as gravity says, and
    the resting die beside it reads still and not poised."""
    world = _world(engine)
    world.place("r", D6, 2, 0.0, (0.3, 0.2))
    s = world.settings
    throw = ThrowSpec(release=(0.0, 0.0, 0.3), velocity=(0.4, 0.0, 0.0), spin=(0.0, 0.0, 0.0),
                      orientation=(0.0, 0.0, 0.0, 1.0))
    with world.released([("a", D6, throw)]) as run:
        assert run.names == ["r", "a"]
        (lin, ang), (position, _q) = run.velocity[1](), run.pose[1]()
        # (the linear velocity is the first three a reader gives: stepping.Velocity)
        assert np.allclose(lin[:3], throw.velocity, atol=1e-9)
        assert np.allclose(ang, 0.0, atol=1e-9)
        assert np.allclose(position, throw.release, atol=1e-9)
        still, _spin = run.velocity[0]()
        assert np.allclose(still[:3], 0.0, atol=1e-6) and not run.poised(0)
        step = run.advance(1, watch_of(run))
        assert step >= 1
        t = step * s.time_step
        (lin, _ang), (position, _q) = run.velocity[1](), run.pose[1]()
        assert abs(lin[2] + s.gravity * t) < 0.01 * s.gravity * t + 1e-6
        assert abs(position[2] - (0.3 - 0.5 * s.gravity * t * t)) < 1e-3
        assert abs(position[0] - 0.4 * t) < 1e-3
    assert sorted(world.scene) == ["r"]  # (the scene is not changed by a run)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_settle_loop_over_a_released_group_is_the_worlds_throw(engine):
    """Among a resting die a throw is simulated as given (no symmetry break): the one settle
    loop driving the released run takes the steps the world's own throw reports."""
    rng = np.random.default_rng(3)
    throws = [random_throw(TABLE, 1, rng) for _ in range(3)]
    for throw in throws:
        world = _world(engine)
        world.place("r", D6, 3, 20.0, (0.05, 0.05))
        with world.released([("a", D8, throw)]) as run:
            rest = settle(run, False)
        assert rest.frames == [] and rest.steps > 1
        report = world.throw("a", D8, throw)
        assert report.perturbation is None and report.steps == rest.steps


@pytest.mark.parametrize("engine", ENGINES)
def test_a_die_leaving_the_table_is_taken_out_of_the_run(engine):
    """Thrown off the far edge, recorded: the loop ends although the die never rests (it
    left the table, `left_table`), and the frames after it fell no longer hold it."""
    world = _world(engine)
    throw = ThrowSpec(release=(0.0, -TABLE.edge_y - 0.35, 0.4), velocity=(0.0, 8.0, 0.5),
                      spin=(0.0, 5.0, 0.0), orientation=(0.0, 0.0, 0.0, 1.0))
    with world.released([("a", D8, throw)], record=True) as run:
        rest = settle(run, True)  # (past left_table the die's readers may read nothing)
    frames = rest.frames
    last = max(f.poses["a"][0][1] for f in frames if "a" in f.poses)
    assert last > TABLE.depth / 2 - 0.05  # (it was last seen at the far edge)
    assert "a" in frames[0].poses and frames[0].t == 0.0
    assert "a" not in frames[-1].poses and frames[-1].t == rest.steps * world.settings.time_step
    assert [f.t for f in frames] == sorted(f.t for f in frames)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("release", "velocity", "error", "match"), [
    ((0.0, 0.0, -0.3), (0.0, 0.0, 0.0), TunnelError, "passed through the table"),
    ((0.0, 0.0, 0.2), (float("nan"), 0.0, 0.0), NonFiniteError, "non-finite")],
    ids=["tunnel", "non-finite"])
def test_a_die_through_the_table_or_non_finite_is_an_error(engine, release, velocity, error,
                                                           match):
    """A die below the table inside its footprint has gone through it; a non-finite state
    is never reported as a rest."""
    world = _world(engine)
    throw = ThrowSpec(release=release, velocity=velocity, spin=(0.0, 0.0, 0.0),
                      orientation=(0.0, 0.0, 0.0, 1.0))
    with world.released([("a", D8, throw)]) as run, pytest.raises(error, match=match):
        settle(run, False)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_confinement_rule_applies_in_every_engine(engine):
    """The settle rule's confinement (docs/physics.md "The settle rule") is the loop's, for
    every engine's run: with a cage of 10 cm and 180 deg at up to 100 rad/s for 0.15 s,
    wide enough to hold a die still rolling, lone throws rest confined (Rest.confined)
    rather than by the hold; with the rule off (confine_time 0) none does."""
    confined = {}
    for time in (0.15, 0.0):
        s = PhysicsSettings(engine=engine, confine_m=0.1, confine_deg=180.0, confine_spin=100.0,
                            confine_time=time)
        world = make_world(TABLE, s)
        confined[time] = 0
        for i in range(6):
            throw = random_throw(TABLE, 1, np.random.default_rng([5, i]))
            with world.released([("a", D8, throw)]) as run:
                confined[time] += settle(run, False).confined
    assert confined[0.15] >= 3 and confined[0.0] == 0, confined
