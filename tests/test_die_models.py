"""Die-model conformance, over every die shipped in dice_models/dice/ (found from the data
folder, so a die added there is checked without touching this file): its mass properties
agree with an independent Monte Carlo integral of the same body, it rests at its
geometric height on every face, and the same throw gives the same bits.

DESIGN.md: "Paper is a thin hollow shell ... Tampering = moving the centre of mass
(`baseInertialFramePosition`) and the parallel-axis term", and "Same throw + same world =
same result, bit for bit, on one machine."
"""

from __future__ import annotations

import numpy as np
import pytest

from dice_models import available, load_die
from simulator.physics import DiePose, ThrowSpec, World, die_shape
from simulator.physics.dice import DieShape

SHIPPED = available()


def _sampled_body(shape: DieShape, rng: np.random.Generator,
                  n: int) -> tuple[np.ndarray, np.ndarray]:
    """Points spread uniformly over the die's body with the density each carries: the
    surface of a thin card shell; else the volume, a point within `wall` of a face counting
    1, one deeper 1 (solid), 0 (a walled shell) or the infill share (a 3D print).
    Independent of the mass models' closed forms (no triangle or tetrahedron sums). Drilled
    pips and engraved numbers are left out: they move the inertia by well under the 1% the
    test allows."""
    poly, model = shape.poly, shape.model
    if model.mass_model == "shell" and model.wall is None:
        tris = poly.triangles()
        area = 0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                    axis=1)
        which = rng.choice(len(tris), size=n, p=area / area.sum())
        u, v = rng.random(n), rng.random(n)
        flip = u + v > 1
        u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
        t = tris[which]
        points = t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])
        return points, np.ones(n)
    lo, hi = poly.vertices.min(axis=0), poly.vertices.max(axis=0)
    points = lo + rng.random((n, 3)) * (hi - lo)
    depth = (poly.face_offsets - points @ poly.normals.T).min(axis=1)  # < 0: outside
    points, depth = points[depth >= 0], depth[depth >= 0]
    if model.mass_model == "solid":
        return points, np.ones(len(points))
    inside = model.infill or 0.0 if model.mass_model == "printed" else 0.0
    return points, np.where(depth < (model.wall or 0.0), 1.0, inside)


@pytest.mark.parametrize("name", SHIPPED)
def test_mass_properties_match_a_monte_carlo_integral(name: str) -> None:
    model = load_die(name)
    shape = die_shape(model)
    m = model.mass
    pts, w = _sampled_body(shape, np.random.default_rng(5), 400_000)
    com = (w[:, None] * pts).sum(axis=0) / w.sum()
    second = m * (pts.T @ (w[:, None] * pts)) / w.sum()  # integral of rho x x^T about the centre
    about_centre = np.trace(second) * np.eye(3) - second
    size = shape.poly.circumradius
    offset = np.zeros(3)
    if model.com_offset is not None:  # tampering moves the centre of mass, not the mass
        off = model.com_offset
        offset = (np.array(off.vector) if off.vector is not None
                  else shape.poly.normals[shape.values.index(off.toward_face)]
                  * off.fraction_of_r * size)
    d = shape.mass.com
    assert shape.mass.mass == m
    assert np.allclose(d, com + offset, atol=0.01 * size)
    # The simulated inertia is about the (moved) centre of mass; carried back to the
    # geometric centre by the parallel-axis term it is the body's.
    back = shape.mass.inertia + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    scale = np.abs(about_centre).max()
    assert np.allclose(back, about_centre, atol=0.01 * scale), (back, about_centre)
    assert np.allclose(shape.mass.inertia, shape.mass.inertia.T)
    assert shape.principal_moments.min() > 0


def _placed_and_settled(name: str) -> tuple[DieShape, list[DiePose]]:
    """Every value of the die placed up, side by side on one table, then settled."""
    model = load_die(name)
    shape = die_shape(model)
    world = World()
    for k, value in enumerate(shape.values):
        x, y = -0.45 + 0.1 * (k % 10), -0.2 + 0.15 * (k // 10)
        world.place(f"d{k}", model, value, 10.0 * k, (x, y))
    world.settle()
    return shape, [world.outcome_of(f"d{k}") for k in range(len(shape.values))]


def _has_parallel_faces(name: str) -> bool:
    poly = die_shape(load_die(name)).poly
    return all(np.isclose(poly.normals[f] @ poly.normals[poly.opposite_face(f)], -1.0)
               for f in range(poly.n_faces))


@pytest.mark.parametrize("name", SHIPPED)
def test_resting_on_each_face_sits_at_geometric_height(name: str) -> None:
    shape, outcomes = _placed_and_settled(name)
    for value, o in zip(shape.values, outcomes, strict=True):
        bottom = shape.poly.opposite_face(shape.values.index(value))
        assert o.status == "on_table", (value, o.status, o.reason)
        assert abs(o.position[2] - shape.poly.face_offsets[bottom]) < 0.0005, (value, o.position[2])


@pytest.mark.parametrize("name", SHIPPED)
def test_placing_a_value_up_shows_that_value(name: str) -> None:
    shape, outcomes = _placed_and_settled(name)
    assert [o.face for o in outcomes] == list(shape.values)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_same_throw_gives_the_same_bits(name: str) -> None:
    model = load_die(name)
    throw = ThrowSpec((0.05, -0.7, 0.3), (0.1, 1.6, 0.4), (9.0, -5.0, 3.0), (0.1, 0.2, 0.3, 0.927))
    first = World().throw("a", model, throw).to_json()
    again = World()
    again.throw("other", model, ThrowSpec((-0.2, -0.8, 0.4), (0.0, 1.5, 0.5)))
    again.scene.clear()
    assert again.throw("a", model, throw).to_json() == first
    assert first["outcome"]["status"] in ("on_table", "off_table")


@pytest.mark.parametrize("name", SHIPPED)
def test_every_value_can_come_up(name: str) -> None:
    """Each value is shown by the die lying on exactly one face: the bipyramid d10's faces
    each have two faces across at the same angle, and taking the first for every face left
    7 and 9 on no face a resting die could show."""
    shape = die_shape(load_die(name))
    assert sorted(shape.shown_on) == sorted(shape.values)
