"""`tip_clearance` and `signed_distance` keep their neighbour's parts for a whole roll and
write the roll's small products out in Python floats; they must give the very bits of the
plain sweep they replaced, kept here as the reference (a die against resting d8s near,
touching face to face and pressed in, and against cubes and icosahedra)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dice_models.geometry import (
    TIP_ANGLE,
    Solid,
    _cross,
    _topology,
    axis_angle,
    cube,
    icosahedron,
    octahedron,
    signed_distance,
    tip_clearance,
    tip_hinge,
)
from dice_models.numerics import matmul, norm, norms


def plain_distance(a: Solid, b: Solid, exact: bool = True) -> float:
    """signed_distance as it was: every part derived from both solids at each call."""
    if not exact:
        reach = a.poly.circumradius + b.poly.circumradius
        gap = norm(a.vertices.mean(0) - b.vertices.mean(0)) - reach
        if gap > 0.1 * reach:
            return gap
    ta, tb = _topology(a.poly), _topology(b.poly)
    da = a.vertices[ta.edges[:, 1]] - a.vertices[ta.edges[:, 0]]
    db = b.vertices[tb.edges[:, 1]] - b.vertices[tb.edges[:, 0]]
    ua, ub = da[ta.axis_edges], db[tb.axis_edges]
    cross = _cross(ua[:, None, :], ub[None, :, :]).reshape(-1, 3)
    length = np.sqrt((cross * cross).sum(1))
    scale = float(np.sqrt((ua * ua).sum(1).max() * (ub * ub).sum(1).max()))
    cross = cross[length > 1e-9 * scale] / length[length > 1e-9 * scale, None]
    axes = np.concatenate([a.normals[ta.axis_faces], b.normals[tb.axis_faces], cross])
    both = matmul(np.concatenate([a.vertices, b.vertices]), axes.T)
    pa, pb = both[:len(a.vertices)], both[len(a.vertices):]
    depth = float((np.minimum(pa.max(0), pb.max(0)) - np.maximum(pa.min(0), pb.min(0))).min())
    if depth >= 0.0:
        return -depth
    p, d1 = a.vertices[ta.edges[:, 0]][:, None, :], da[:, None, :]
    q, d2 = b.vertices[tb.edges[:, 0]][None, :, :], db[None, :, :]
    r = p - q
    aa, e, bb = (d1 * d1).sum(-1), (d2 * d2).sum(-1), (d1 * d2).sum(-1)
    c, f = (d1 * r).sum(-1), (d2 * r).sum(-1)
    denom = aa * e - bb * bb
    par = denom <= 1e-12 * aa * e
    s = np.where(par, 0.0, np.clip((bb * f - c * e) / np.where(par, 1.0, denom), 0.0, 1.0))
    t = (bb * s + f) / e
    s = np.where(t < 0.0, np.clip(-c / aa, 0.0, 1.0),
                 np.where(t > 1.0, np.clip((bb - c) / aa, 0.0, 1.0), s))
    gap = r + s[..., None] * d1 - np.clip(t, 0.0, 1.0)[..., None] * d2
    least = float(np.sqrt((gap * gap).sum(-1).min()))
    for pts, sol in ((a.vertices, b), (b.vertices, a)):
        topo = _topology(sol.poly)
        corners, n = sol.vertices[topo.triangles], sol.normals[topo.triangle_face]
        h = ((pts[:, None, :] - corners[None, :, 0]) * n).sum(axis=-1)
        foot = pts[:, None, :] - h[..., None] * n[None]
        inside = np.ones(h.shape, dtype=bool)
        for k in range(3):
            inward = _cross(n, corners[:, (k + 1) % 3] - corners[:, k])
            inside &= ((foot - corners[None, :, k]) * inward).sum(axis=-1) >= 0.0
        if inside.any():
            least = min(least, float(np.abs(h[inside]).min()))
    return least


def plain_sweep(poly, rot, centre, corner, others, tolerance):  # type: ignore[no-untyped-def]
    """tip_clearance as it was: a fresh solid, turn and distance at every step."""
    e1, u = tip_hinge(poly, rot, centre, corner)
    rel = matmul(poly.vertices, rot.T) + centre - e1
    rho = float(norms(rel - np.outer(matmul(rel, u), u)).max())
    least = math.inf
    for index, other in enumerate(others):
        angle = 0.0
        allowed = tolerance + max(0.0, -plain_distance(Solid.at(poly, rot, centre), other))
        while True:
            angle = min(angle, TIP_ANGLE)
            turn = axis_angle(u, angle)
            g = plain_distance(Solid.at(poly, matmul(turn, rot), matmul(turn, centre - e1) + e1),
                               other, exact=False)
            if angle > 0.0:
                least = min(least, g)
                if g < -allowed:
                    return index, least
            if angle >= TIP_ANGLE:
                break
            step = (g + allowed) / rho
            if step < 1e-9:
                return index, least
            angle += step
    return None, least


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    w, x, y, z = rng.normal(size=4) / 1.0
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _neighbour(rng: np.random.Generator, poly, rot, centre):  # type: ignore[no-untyped-def]
    r, h = poly.circumradius, float(poly.face_offsets[0])
    kind = int(rng.integers(4))
    if kind == 0:  # face to face: touching, pressed in, just apart
        f = int(rng.integers(8))
        eps = (0.0, -1e-3, 1e-7, -2e-4)[int(rng.integers(4))]
        return Solid.at(poly, rot, centre + matmul(poly.normals, rot.T)[f] * (2 * h * (1 + eps)))
    other = (octahedron(0.05), octahedron(0.014), cube(0.02), icosahedron(0.02))[kind]
    a = float(rng.uniform(0, 2 * math.pi))
    d = float(rng.uniform(0.4, 2.5)) * (r + other.circumradius)
    at = centre + np.array([d * math.cos(a), d * math.sin(a), float(rng.uniform(-0.3, 0.3)) * r])
    return Solid.at(other, _random_rotation(rng), at)


@pytest.mark.parametrize("seed", range(6))
def test_sweep_gives_the_plain_sweeps_bits(seed: int) -> None:
    rng = np.random.default_rng(seed)
    poly = octahedron((0.05, 0.014)[seed % 2])
    for _ in range(3):
        rot = poly.rest_rotation(int(rng.integers(8)), float(rng.uniform(-180, 180)))
        centre = np.array([0.0, 0.0, float(poly.face_offsets[0])])
        others = [_neighbour(rng, poly, rot, centre) for _ in range(int(rng.integers(1, 3)))]
        corner = "xyz"[int(rng.integers(3))]
        hit, least = tip_clearance(poly, rot, centre, corner, others, 1e-5)
        want_hit, want_least = plain_sweep(poly, rot, centre, corner, others, 1e-5)
        assert (hit, least.hex()) == (want_hit, want_least.hex())


def test_distance_gives_the_plain_distances_bits() -> None:
    rng = np.random.default_rng(7)
    shapes = (octahedron(0.05), cube(0.02), icosahedron(0.02))
    apart = inside = 0
    for _ in range(150):
        a, b = (shapes[int(rng.integers(3))] for _ in range(2))
        sa = Solid.at(a, _random_rotation(rng), np.zeros(3))
        sb = Solid.at(b, _random_rotation(rng), rng.normal(size=3) * 0.6 * (a.circumradius + b.circumradius))
        for exact in (True, False):
            got = signed_distance(sa, sb, exact)
            assert got.hex() == plain_distance(sa, sb, exact).hex()
        apart, inside = apart + (got > 0), inside + (got < 0)
    assert apart > 20 and inside > 20  # both branches were asked
