"""No die rests on a vertex or an edge with nothing to lean on (issue 13, item 3): a die let
go with no spin and no sideways speed, a vertex, an edge or a face straight down, is tilted
by the world's seeded symmetry break and comes to rest flat, on every shipped surface."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dice_models import available, load_die
from rules.core.protocols import ThrowSpec
from simulator.physics import World, die_shape
from simulator.physics.settings import SURFACES, TableSpec
from simulator.physics.world import SYMMETRY_TILT_DEG, _quat_from_matrix, symmetry_break


def _down(direction: np.ndarray) -> tuple[float, float, float, float]:
    """The orientation that points the body-frame `direction` straight down."""
    d = direction / np.linalg.norm(direction)
    target = np.array([0.0, 0.0, -1.0])
    v = np.cross(d, target)
    c = float(d @ target)
    if np.linalg.norm(v) < 1e-12:
        rot = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        rot = np.eye(3) + vx + vx @ vx * (1 / (1 + c))
    return _quat_from_matrix(rot)


def _features(die: str) -> list[tuple[str, np.ndarray]]:
    poly = die_shape(load_die(die)).poly
    out = [(f"vertex{i}", v) for i, v in enumerate(poly.vertices)]
    edges = set()
    for f in poly.faces:
        for a, b in zip(f, [*f[1:], f[0]], strict=True):
            edges.add((min(a, b), max(a, b)))
    out += [(f"edge{a}-{b}", (poly.vertices[a] + poly.vertices[b]) / 2) for a, b in sorted(edges)]
    out += [(f"face{i}", poly.normals[i]) for i in range(poly.n_faces)]
    return out


@pytest.mark.parametrize("surface", sorted(SURFACES))
@pytest.mark.parametrize("die", available())
def test_a_symmetric_drop_never_rests_on_a_point_or_an_edge(die, surface):
    model = load_die(die)
    world = World(TableSpec(surface=SURFACES[surface]))
    shape = die_shape(model)
    bad = []
    for name, direction in _features(die):
        for seed in (1, 2):
            throw = ThrowSpec((0.0, 0.0, shape.poly.circumradius + 0.02), (0.0, 0.0, 0.0),
                              orientation=_down(direction), seed=seed)
            report = world.throw("d", model, throw)
            world.remove("d")
            assert report.perturbation is not None
            assert SYMMETRY_TILT_DEG[0] <= report.perturbation["angle_deg"] <= SYMMETRY_TILT_DEG[1]
            if report.outcome.status != "on_table":
                bad.append((name, seed, report.outcome.reason))
    world.close()
    assert bad == []


def test_the_tilt_is_seeded_and_only_for_pure_drops():
    drop = ThrowSpec((0.0, 0.0, 0.1), (0.0, 0.0, -1.0), seed=5)
    a, pa = symmetry_break(drop)
    b, pb = symmetry_break(drop)
    c, pc = symmetry_break(ThrowSpec((0.0, 0.0, 0.1), (0.0, 0.0, -1.0), seed=6))
    assert a == b and pa == pb and a.orientation != c.orientation
    assert pa is not None and pc is not None
    q = np.array(a.orientation)
    angle = math.degrees(2 * math.acos(min(1.0, abs(q[3]))))
    assert angle == pytest.approx(pa["angle_deg"])
    assert abs(pa["axis"][2]) < 1e-12  # tilted about a horizontal axis
    moving = ThrowSpec((0.0, 0.0, 0.1), (0.1, 0.0, 0.0))
    rolling = ThrowSpec((0.0, 0.0, 0.1), (0.0, 0.0, 0.0), (1e-6, 0.0, 0.0))
    assert symmetry_break(moving) == (moving, None)  # (without the die: no mirror test)
    assert symmetry_break(rolling) == (rolling, None)
    # a spin about the vertical keeps a drop's symmetry about the vertical: tilted
    twirl = ThrowSpec((0.0, 0.0, 0.1), (0.0, 0.0, 0.0), (0.0, 0.0, 1e-6))
    assert symmetry_break(twirl)[1] is not None


def test_a_drop_spinning_about_the_vertical_rests_flat():
    """A d8 let go point down and spinning about the vertical kept its fourfold symmetry
    and stood on its point (spins 2, 5 and 10 rad/s)."""
    d8 = load_die("paper-d8")
    w = World()
    outcomes = []
    for wz in (2.0, 5.0, 10.0):
        r = w.throw("d", d8, ThrowSpec((0.0, 0.0, 0.1), (0.0, 0.0, -0.5), (0.0, 0.0, wz)))
        w.remove("d")
        assert r.perturbation is not None
        outcomes.append(r.outcome.status)
    w.close()
    assert outcomes == ["on_table"] * 3


def test_the_cli_drop_of_the_paper_d8_on_its_point_lands_on_a_face():
    """`tabletop throw --release 0 0 0.2 --velocity 0 0 0` once left it standing on its point."""
    w = World()
    r = w.throw("d", load_die("paper-d8"), ThrowSpec((0.0, 0.0, 0.2), (0.0, 0.0, 0.0)))
    assert r.outcome.status == "on_table" and r.perturbation is not None
    assert r.to_json()["perturbation"]["kind"] == "tilt"


def test_a_tilted_die_far_from_a_throw_does_not_hold_the_throw_up():
    """A die resting tilted (leaning on a die or an obstacle) stays static while a throw
    lands far from it, and must not be taken for poised: Bullet gives static bodies no
    contacts, so it would look poised at every hold, restarting it until MAX_POISED."""
    from dice_models.geometry import axis_angle
    from simulator.physics.world import PlacedDie, Pose
    from simulator.physics.world import _quat_from_matrix as quat

    d8 = load_die("paper-d8")
    poly = die_shape(d8).poly
    tilted = quat(axis_angle(np.array([1.0, 0.0, 0.0]), math.radians(30)) @ poly.rest_rotation(0, 0.0))
    flat = quat(poly.rest_rotation(2, 15.0))
    # set down from 1 cm, moving off every mirror plane of the die (a throw in one would be
    # tilted when alone on the table, and not beside the tilted die)
    throw = ThrowSpec((0.3, -0.2, 0.0305), (1e-4, 0.37e-4, 0.0), orientation=flat)
    w = World()
    w.scene["tilted"] = PlacedDie("tilted", d8, Pose((-0.3, 0.2, 0.03), tilted))
    near = w.throw("c", d8, throw)
    alone = World().throw("c", d8, throw)
    assert near.steps == alone.steps < 100
    assert w.scene["tilted"].pose.quaternion == tilted  # never thawed
    w.close()


def test_a_sideways_throw_in_a_mirror_plane_of_the_die_is_tilted_and_rests_flat():
    """Issue 13, item 3: "No die ever comes to rest on a vertex or an edge with nothing to
    lean on: where a throw is exactly symmetric, the world breaks the symmetry". `tabletop
    throw --release -0.2 0 0.1 --velocity 0.3 0 0` rolled the paper d8 (let go point down)
    on to an edge in the plane of its motion and left it balanced there, reported as
    leaning: the throw and the die were their own mirror images in that plane."""
    d8 = load_die("paper-d8")
    w = World()
    balanced = []
    for velocity in ((0.3, 0.0, 0.0), (0.0, -0.3, 0.0), (0.2, 0.2, 0.0)):
        for spin in ((0.0, 0.0, 0.0), tuple(5.0 * np.cross((0.0, 0.0, 1.0), velocity))):
            throw = ThrowSpec((-0.2, 0.0, 0.1), velocity, spin)
            r = w.throw("d", d8, throw)
            w.remove("d")
            assert r.perturbation is not None and "mirror_normal" in r.perturbation
            n = np.array(r.perturbation["mirror_normal"])
            assert abs(n @ np.array(velocity)) < 1e-12 and abs(n[2]) == 0.0
            assert abs(np.array(r.perturbation["axis"]) @ n) < 1e-12  # turned out of the plane
            if r.outcome.status != "on_table":
                balanced.append((velocity, spin, r.outcome.reason))
    w.close()
    assert balanced == []


def test_the_mirror_test_needs_the_motion_the_die_and_its_mass_all_symmetric():
    from dataclasses import replace

    shape = die_shape(load_die("paper-d8"))
    plain = ThrowSpec((0.0, 0.0, 0.1), (0.3, 0.0, 0.0))
    assert symmetry_break(plain, shape)[1] is not None
    assert symmetry_break(plain)[1] is None  # without the die nothing can be said
    # topspin (about the plane's normal) keeps the symmetry; a spin about the motion breaks it
    assert symmetry_break(replace(plain, spin=(0.0, 4.0, 0.0)), shape)[1] is not None
    assert symmetry_break(replace(plain, spin=(4.0, 0.0, 0.0)), shape)[1] is None
    # sideways speed off every mirror plane of the octahedron
    assert symmetry_break(replace(plain, velocity=(0.3, 0.01, 0.0)), shape)[1] is None
    # a die turned out of the plane by 0.01 deg is not its own mirror image
    q = _quat_from_matrix(np.array([[1.0, 0.0, 0.0],
                                    [0.0, math.cos(1.7e-4), -math.sin(1.7e-4)],
                                    [0.0, math.sin(1.7e-4), math.cos(1.7e-4)]]))
    assert symmetry_break(replace(plain, orientation=q), shape)[1] is None
    # the tampered d8's centre of mass lies off the plane of a throw along x or y
    tampered = die_shape(load_die("tampered-d8"))
    com = tampered.mass.com
    side = np.array([com[1], -com[0], 0.0])  # the motion along the diagonal square to it
    assert np.linalg.norm(side) > 0
    v = tuple(0.3 * side / np.linalg.norm(side))
    assert symmetry_break(replace(plain, velocity=v), tampered)[1] is None
    # a mass laid out otherwise than the shape (pips, a mesh's own triangles): the plane's
    # normal must be a principal axis of the inertia too
    i = shape.mass.inertia
    skew = 1e-3 * float(np.trace(i)) / 3 * np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0],
                                                    [0.0, 0.0, 0.0]])
    lopsided = replace(shape, mass=replace(shape.mass, inertia=i + skew))
    assert symmetry_break(plain, lopsided)[1] is None


def test_the_mirror_rule_is_only_for_a_lone_die_on_an_empty_table():
    """Another body on the table would have to be a mirror image of itself too: beside a
    resting die the same throw is simulated as given (a pure drop is tilted anywhere)."""
    from simulator.physics.world import PlacedDie, Pose

    d8 = load_die("paper-d8")
    w = World()
    w.scene["far"] = PlacedDie("far", d8, Pose((0.4, 0.3, 0.0205),
                                               _quat_from_matrix(die_shape(d8).poly.rest_rotation(0, 0.0))))
    beside = w.throw("d", d8, ThrowSpec((-0.2, 0.0, 0.1), (0.3, 0.0, 0.0)))
    w.remove("d")
    drop = w.throw("d", d8, ThrowSpec((-0.2, 0.0, 0.1), (0.0, 0.0, 0.0)))
    w.close()
    assert beside.perturbation is None and drop.perturbation is not None
