"""Physics core: geometry facts, resting heights, tips, fouls, outcomes, trays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dice_models import DataError, load_die, parse_die
from dice_models.geometry import TIP_ANGLE, cube, cuboid, octahedron
from simulator.physics import (
    FOOT,
    PlacementError,
    ThrowSpec,
    World,
    check_release,
    die_shape,
)
from simulator.physics.settings import TableSpec, parse_table
from simulator.physics.tray import roll_tray
from simulator.physics.world import _quat_from_matrix

D8 = load_die("paper-d8")


# -- geometry and mass ------------------------------------------------------------------

def test_octahedron_faces_are_sign_vectors_in_gray_order():
    o = octahedron(0.05)
    assert o.sign_vectors is not None
    for i, s in enumerate(o.sign_vectors):
        assert np.allclose(o.normals[i], np.array(s) / math.sqrt(3))
        if i:  # side i+1 and side i share an edge (differ in one sign)
            assert sum(a != b for a, b in zip(s, o.sign_vectors[i - 1], strict=True)) == 1
            assert i - 1 in o.adjacency[i]
        assert o.opposite_face(i) == o.sign_vectors.index(tuple(-v for v in s))


@pytest.mark.parametrize(("poly", "model", "expected"), [
    (octahedron(0.05), "shell", 0.003 * 0.05**2 / 6),  # DESIGN.md: m a^2 / 6
    (octahedron(0.05), "solid", 0.003 * 0.05**2 / 10),
    (cube(0.02), "shell", 5 * 0.003 * 0.02**2 / 18),
    (cube(0.02), "solid", 0.003 * 0.02**2 / 6),
])
def test_inertia_matches_closed_forms(poly, model, expected):
    props = poly.mass_properties(0.003, model)
    assert np.allclose(props.inertia, expected * np.eye(3), rtol=1e-9, atol=expected * 1e-9)
    assert np.allclose(props.com, 0, atol=1e-15)


def test_cuboid_solid_inertia():
    a, b, c = 0.01, 0.02, 0.03
    props = cuboid(a, b, c).mass_properties(2.0, "solid")
    assert np.allclose(np.diag(props.inertia), [2 / 12 * (b * b + c * c), 2 / 12 * (a * a + c * c),
                                                 2 / 12 * (a * a + b * b)])


def test_tampering_moves_com_and_applies_parallel_axis():
    shape = die_shape(load_die("tampered-d8"))
    r = shape.poly.circumradius
    face1 = shape.values.index(1)
    assert np.allclose(shape.mass.com, shape.poly.normals[face1] * 0.2 * r)
    d2 = float(shape.mass.com @ shape.mass.com)
    fair = 0.003 * 0.05**2 / 6
    # about the shifted centre: I = I0 - m(|d|^2 E - d d^T)
    expect = fair * np.eye(3) - 0.003 * (d2 * np.eye(3) - np.outer(shape.mass.com, shape.mass.com))
    assert np.allclose(shape.mass.inertia, expect)


def test_convex_die_from_vertices():
    shape = die_shape(load_die("bipyramid-d10"))
    assert shape.poly.n_faces == 10
    assert all(len(f) == 3 for f in shape.poly.faces)


def test_flat_convex_die_is_a_data_error():
    # refused on loading (issue 17: a die is checked whole against its shape when loaded)
    with pytest.raises(DataError, match="flat.yaml: geometry.vertices"):
        die_shape(parse_die({"name": "flat", "geometry": {"kind": "convex", "vertices": [
            [0, 0, 0], [0.01, 0, 0], [0, 0.01, 0], [0.01, 0.01, 0]]}, "mass": 0.001},
            "flat.yaml"))


# Resting heights on every face of every shipped die: tests/test_die_models.py.


# -- tips --------------------------------------------------------------------------------

def _predicted_up(shape, face_value, axis):
    s = list(shape.poly.sign_vectors[shape.values.index(face_value)])
    s[axis] = -s[axis]
    return shape.values[shape.poly.sign_vectors.index(tuple(s))]


@pytest.mark.parametrize("face", range(1, 9))
def test_every_tip_lands_on_the_predicted_face(face):
    shape = die_shape(D8)
    for axis, corner in enumerate("xyz"):
        world = World()
        before = world.place("a", D8, face, 20.0, (0.0, 0.0))
        rep = world.tip("a", corner)
        assert rep.rolled and rep.blocked_by is None
        assert rep.pose.face == _predicted_up(shape, face, axis)
        assert rep.pose.status == "on_table"
        assert abs(rep.pose.position[2] - shape.poly.face_offsets[0]) < 1e-9
        # The die rolls toward the pressed corner: its centre moves that way.
        cx, cy = before.top_corners[corner]
        toward = np.array([cx, cy]) - np.array(before.position[:2])
        moved = np.array(rep.pose.position[:2]) - np.array(before.position[:2])
        assert float(moved @ toward) > 0
        # The tipped die is at rest where the kinematic roll put it.
        world.settle()
        after = world.outcome_of("a")
        assert after.face == rep.pose.face
        assert np.linalg.norm(np.subtract(after.position, rep.pose.position)) < 0.0005


def test_tip_angle_is_supplement_of_dihedral():
    assert math.isclose(math.degrees(TIP_ANGLE), 70.528779, abs_tol=1e-5)


def _touching_neighbour(world, corner):
    """Place die b against die a, on the side of a's top corner `corner`."""
    a = world.outcome_of("a")
    d = np.array(a.top_corners[corner]) - np.array(a.position[:2])
    d /= np.linalg.norm(d)
    lo, hi = 0.0, 0.08
    for _ in range(30):  # bisection on the gap, down to ~0.1 um
        mid = (lo + hi) / 2
        try:
            world.place("probe", D8, 1, 0.0, tuple(np.array(a.position[:2]) + mid * d))
            world.remove("probe")
            hi = mid
        except PlacementError:
            lo = mid
    world.place("b", D8, 1, 0.0, tuple(np.array(a.position[:2]) + hi * d))


def test_tip_toward_a_touching_die_is_blocked_but_away_rolls():
    world = World()
    world.place("a", D8, 5, 0.0, (0.0, 0.0))
    _touching_neighbour(world, "x")
    rep = world.tip("a", "x")
    assert not rep.rolled and rep.blocked_by == "b"
    assert world.outcome_of("a").face == 5  # unchanged
    # The other corners point away from b: those tips roll.
    assert world.tip("a", "y").rolled


def test_tip_over_the_table_edge_is_blocked():
    world = World()
    shape = die_shape(D8)
    # Put the die at the east edge with its top corner 'x' pointing east (+x).
    for yaw in range(0, 360, 5):
        world.scene.clear()
        o = world.place("a", D8, 3, float(yaw), (0.0, 0.0))
        d = np.array(o.top_corners["x"])
        if d[0] > 0 and abs(d[1]) < 0.003:
            break
    world.scene.clear()
    world.place("a", D8, 3, float(yaw), (0.6 - 0.03, 0.0))
    rep = world.tip("a", "x")
    assert not rep.rolled and rep.blocked_by == "table_edge"
    assert shape.poly.kind == "octahedron"


def test_tip_into_an_obstacle_names_it():
    table = parse_table({"obstacles": [{"kind": "box", "name": "crate", "position": [0.06, 0.0],
                                        "size": [0.05, 0.2, 0.1]}]}, "t.yaml")
    world = World(table)
    for yaw in range(0, 360, 5):
        world.scene.clear()
        o = world.place("a", D8, 3, float(yaw), (0.0, 0.0))
        if o.top_corners["x"][0] > 0 and abs(o.top_corners["x"][1]) < 0.003:
            break
    rep = world.tip("a", "x")
    assert not rep.rolled and rep.blocked_by == "obstacle:crate"


def test_place_refuses_overlap_and_off_table():
    world = World()
    world.place("a", D8, 1, 0.0, (0.0, 0.0))
    with pytest.raises(PlacementError, match="overlap a"):
        world.place("b", D8, 1, 0.0, (0.01, 0.0))
    with pytest.raises(PlacementError, match="wholly on the table"):
        world.place("c", D8, 1, 0.0, (0.599, 0.0))


# -- fouls -------------------------------------------------------------------------------

EPS = 1e-4


def _release(player, behind, z, table=None):
    table = table or TableSpec()
    y = -table.edge_y - behind if player == 1 else table.edge_y + behind
    return ThrowSpec((0.1, y, z), (0.0, 0.0, 0.0))


@pytest.mark.parametrize("player", [1, 2])
@pytest.mark.parametrize(("behind", "z", "foul"), [
    (EPS, 0.1, True),  # just behind the edge, low: in the zone
    (-EPS, 0.5, True),  # just in front of the edge line: over the table
    (FOOT - EPS, 0.1, True),  # just inside the back boundary
    (FOOT + EPS, 0.1, False),  # just outside it
    (0.1, FOOT - EPS, True),  # just under the top boundary
    (0.1, FOOT + EPS, False),  # just over it
    (FOOT + EPS, FOOT + EPS, False),
])
def test_foul_zone_boundaries(player, behind, z, foul):
    is_foul, why = check_release(TableSpec(), player, _release(player, behind, z))
    assert is_foul == foul
    assert (why is not None) == foul


def test_round_table_uses_the_same_edge_line():
    round_t = TableSpec(shape="round", radius=0.5)
    assert check_release(round_t, 1, _release(1, FOOT - EPS, 0.1, round_t))[0]
    assert not check_release(round_t, 1, _release(1, FOOT + EPS, 0.1, round_t))[0]


# -- outcomes ----------------------------------------------------------------------------

def _flat(face_index, yaw=0.0):
    return _quat_from_matrix(die_shape(D8).poly.rest_rotation(face_index, yaw))


def test_throw_aimed_off_the_table_falls_off():
    world = World()
    rep = world.throw("a", D8, ThrowSpec((0.3, -0.8, 0.4), (3.0, 2.0, 0.0), (5.0, 0.0, 0.0)))
    assert rep.outcome.status == "off_table" and rep.outcome.reason == "fell_off"
    assert "a" not in world.scene


def test_die_thrown_onto_a_resting_die_leans():
    world = World()
    world.place("a", D8, 1, 0.0, (0.0, 0.0))
    # A little sideways speed: a pure drop would get the symmetry-breaking tilt.
    rep = world.throw("b", D8, ThrowSpec((0.0, 0.0, 0.09), (1e-4, 0.0, 0.0), orientation=_flat(2, 15.0)))
    assert rep.outcome.status == "off_table" and rep.outcome.reason == "leaning"
    # (a die landing this softly need not move the one below it by MOVED_M: a thrown die
    # knocking others is test_frozen_scene's)


def test_die_resting_across_the_edge_overhangs():
    world = World()
    rep = world.throw("a", D8, ThrowSpec((0.59, 0.0, 0.025), (0.0, 0.0, 0.0), orientation=_flat(0)))
    assert rep.outcome.status == "off_table" and rep.outcome.reason == "overhang"


def test_knocked_die_is_reported_with_before_and_after():
    world = World()
    world.place("target", D8, 4, 0.0, (0.0, 0.0))
    rep = world.throw("hammer", D8, ThrowSpec((0.0, -0.6, 0.05), (0.0, 2.2, 0.5), (0.0, 0.0, 0.0)))
    moved = {b.die: float(np.linalg.norm(np.subtract(a.position, b.position))) for b, a in rep.disturbed}
    assert moved.get("target", 0.0) > 0.0005
    before, after = rep.disturbed[0]
    assert before.face == 4 and before.status == "on_table"
    assert after.die == "target"


def test_trajectory_is_recorded_at_60_hz():
    world = World()
    rep = world.throw("a", D8, ThrowSpec((0.0, -0.8, 0.4), (0.0, 1.5, 0.5), (3.0, 1.0, 0.0)), record=True)
    assert rep.trajectory is not None
    times = [f.t for f in rep.trajectory]
    assert times[0] == 0.0
    gaps = np.diff(times[:-1])
    assert np.allclose(gaps, 1 / 60, atol=1e-9)
    assert times[-1] == pytest.approx(rep.sim_time_s)


def test_same_throw_same_bits_after_other_work():
    th = ThrowSpec((0.1, -0.8, 0.4), (0.0, 1.8, 0.5), (10.0, -4.0, 2.0), (0.1, 0.2, 0.3, 0.927))
    w1 = World()
    r1 = w1.throw("a", D8, th).to_json()
    w2 = World()
    w2.throw("z", D8, ThrowSpec((0.0, -0.8, 0.4), (0.0, 1.5, 0.5)))
    w2.scene.clear()
    assert w2.throw("a", D8, th).to_json() == r1


# -- d6 tray -------------------------------------------------------------------------------

def test_tray_roll_reads_every_die_flat_and_counts_rethrows():
    d6 = load_die("d6")
    total_rethrows = 0
    faces: list[int] = []
    for seed in range(12):
        roll = roll_tray(d6, 5, np.random.default_rng(seed))
        assert len(roll.faces) == 5 and all(1 <= f <= 6 for f in roll.faces)
        total_rethrows += roll.rethrows
        faces.extend(roll.faces)
    assert roll_tray(d6, 5, np.random.default_rng(3)) == roll_tray(d6, 5, np.random.default_rng(3))
    assert len(set(faces)) == 6
    assert total_rethrows > 0  # these seeds cock a die, so the sum below is tested (item 20)
    # The physics roller reports the same re-throws for the same rolls (it adds them up).
    from simulator.physics.tray import PhysicsRoller

    roller = PhysicsRoller()
    for seed in range(12):
        roller.roll("d6", 5, np.random.default_rng(seed))
    assert roller.rethrows == total_rethrows


def test_tray_rethrows_cocked_dice_until_all_lie_flat():
    """Dice that come to rest cocked (leaning on a wall or another die) are thrown again;
    over a few seeds that happens, and every reported face is then read off a flat die."""
    d6 = load_die("d6")
    rolls = [roll_tray(d6, 8, np.random.default_rng(seed)) for seed in range(10)]
    assert any(r.rethrows > 0 for r in rolls)
    assert all(len(r.faces) == 8 for r in rolls)


def test_die_on_a_die_in_the_tray_is_cocked():
    from simulator.physics.tray import tray_table

    d6 = load_die("d6")
    world = World(tray_table())
    world.place("a", d6, 1, 0.0, (0.0, 0.0))
    rep = world.throw("b", d6, ThrowSpec((0.001, 0.0, 0.026), (0.0, 0.0, 0.0)))
    assert rep.outcome.status == "off_table" and rep.outcome.reason == "leaning"


# -- typed failures ------------------------------------------------------------------------

def test_die_that_never_settles_raises():
    from simulator.physics import NotSettledError, PhysicsSettings

    world = World(settings=PhysicsSettings(max_time=0.2))
    with pytest.raises(NotSettledError, match="did not come to rest within 0.2 s"):
        world.throw("a", D8, ThrowSpec((0.0, -0.8, 0.4), (0.0, 1.5, 0.5), (3.0, 1.0, 0.0)))


# 0.036 m: the lowest release of the paper d8 (circumradius 35.4 mm, a corner straight down)
# that does not start inside the table; 0.02 did, and is refused since (test_input_files).
@pytest.mark.parametrize("height", [0.036, 0.05, 0.3, 0.5, 1.0])
def test_fastest_legal_throw_straight_down_does_not_tunnel(height):
    world = World()
    rep = world.throw("a", D8, ThrowSpec((0.0, 0.0, height), (0.0, 0.0, -49.9), (5.0, 3.0, 0.0)))
    assert rep.settled
    x, y, z = rep.outcome.position
    if rep.outcome.reason == "fell_off":  # it may bounce far, but over the edge, not through
        assert not TableSpec().contains_xy(x, y)
    else:
        assert z > 0


def _pose(position):
    from simulator.physics import Pose

    return Pose(position, (0.0, 0.0, 0.0, 1.0))


# -- toppling: the energy rule ------------------------------------------------------------

def _topple_face(die_name: str, surface: str, k: float, settings=None) -> int | None:
    """Stand the die on its -z face (face 1 up), set it pivoting about the bottom edge at
    y = -b/2 with k times the critical angular speed, and return the face it rests on.
    Energy rule for a block pivoting on an edge without slip:
    1/2 I_edge w_c^2 = m g (R - h/2), I_edge = m (b^2 + h^2) / 3, R = sqrt(b^2 + h^2) / 2."""
    from simulator.physics import PhysicsSettings
    from simulator.physics.settings import SURFACES

    die = load_die(die_name)
    geo = die.geometry
    b, _, h = geo["sides"] if "sides" in geo else [geo["side"]] * 3
    r = math.hypot(b, h) / 2
    wc = math.sqrt(6 * PhysicsSettings().gravity * (r - h / 2) / (b * b + h * h))
    w = k * wc
    world = World(table=TableSpec(surface=SURFACES[surface]), settings=settings)
    # centre velocity w x (centre - pivot): the pivot edge is at rest
    rep = world.throw("a", die, ThrowSpec((0.0, 0.0, h / 2 + 1e-5), (0.0, -w * h / 2, w * b / 2),
                                          (w, 0.0, 0.0)))
    world.close()
    return rep.outcome.face


@pytest.mark.parametrize("surface", ["felt", "hardwood", "rubber"])
@pytest.mark.parametrize("die_name", ["d6", "cuboid-d6-long"])
def test_a_standing_die_topples_by_the_energy_rule(die_name, surface):
    """A die set pivoting on a bottom edge topples only if its kinetic energy about that edge
    exceeds the rise of its centre (rigid-body energy rule). Below the critical speed it falls
    back: the contact must not add energy. At 1.1 times it topples: the pivot may lose at most
    17% of the energy (measured at dt 1/240: 3.9% for the long cuboid on hardwood, 3.2% at
    1/480, 2.5% at 1/960, an integration loss of the velocity-level contact; docs/physics.md).
    Not on slick: the pivot needs a friction ratio of about 0.2-0.3 at these speeds, and
    plastic on slick has 0.125, so the base slides and the rule does not apply."""
    below = _topple_face(die_name, surface, 0.97)
    above = _topple_face(die_name, surface, 1.1)
    assert below == 1, (die_name, surface, below)
    assert above not in (1, 6), (die_name, surface, above)


def _topple_speed(die_name: str, surface: str, settings) -> float:
    """The least multiple of the critical speed that topples the die, to 0.2%."""
    lo, hi = 0.95, 1.15
    while hi - lo > 0.002:
        k = (lo + hi) / 2
        if _topple_face(die_name, surface, k, settings) in (1, 6):
            lo = k
        else:
            hi = k
    return hi


@pytest.mark.parametrize("die_name, surface", [("cuboid-d6-long", "hardwood"), ("d6", "felt")])
def test_the_speed_that_topples_a_die_does_not_depend_on_the_step(die_name, surface):
    """The energy a die needs to go over an edge is the die's and the table's, not the
    integrator's. Bullet moves a body's centre on a straight line over a step, so a die
    pivoting on an edge lifts it off the table each step and meets it again plastically: a
    loss in proportion to the turn per step. Without a bound on that turn the long cuboid on
    hardwood needed 1.042 x the critical speed at dt 1/240 and 1.012 x at 1/960 (the d6 on
    felt 1.047 and 1.013); with max_turn_deg 1 (the default) 1.020 and 1.012. The two steps
    must agree within 1.2% of the speed (2.4% of the energy)."""
    from simulator.physics import PhysicsSettings

    coarse = _topple_speed(die_name, surface, PhysicsSettings())
    fine = _topple_speed(die_name, surface, PhysicsSettings(time_step=1 / 960))
    assert fine >= 1.0 and fine - 0.004 <= coarse <= fine + 0.012, (die_name, surface, coarse, fine)
    unbounded = _topple_speed(die_name, surface, PhysicsSettings(max_turn_deg=0.0))
    assert unbounded > fine + 0.02, (die_name, surface, unbounded, fine)  # the loss is there
