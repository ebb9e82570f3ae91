"""dice_models.numerics: machine-independent products, norms, eigen-decomposition and least
squares (docs/determinism.md). Each agrees with numpy/LAPACK/scipy to round-off and has
its order of operations written out, so its bits are those of plain IEEE arithmetic;
tests/test_kernels.py checks the results under other SIMD and BLAS kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import nnls as scipy_nnls

from dice_models import load_die
from dice_models.geometry import rest_yaw
from dice_models.numerics import det3, dot, eigh3, lstsq, matmul, nnls, norm, norms, rows_by, rows_dot
from simulator.physics.dice import die_shape


def test_matmul_adds_the_products_in_order_bit_for_bit() -> None:
    rng = np.random.default_rng(1)
    a, b, v = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=3)
    by_hand = [[(float(a[i, 0]) * float(b[0, j]) + float(a[i, 1]) * float(b[1, j]))
                + float(a[i, 2]) * float(b[2, j]) for j in range(4)] for i in range(5)]
    assert matmul(a, b).tolist() == by_hand
    assert matmul(a, v).tolist() == [(float(r[0]) * v[0] + float(r[1]) * v[1]) + float(r[2]) * v[2]
                                     for r in a]
    assert np.allclose(matmul(a, b), a @ b, rtol=1e-15, atol=1e-15)
    four, q = rng.normal(size=(2, 4)), rng.normal(size=(4, 3))
    assert matmul(four, q).tolist() == [
        [((float(r[0]) * q[0, j] + float(r[1]) * q[1, j]) + float(r[2]) * q[2, j])
         + float(r[3]) * q[3, j] for j in range(3)] for r in four]
    with pytest.raises(ValueError, match="do not chain"):
        matmul(a, rng.normal(size=(4, 2)))


def test_the_list_products_are_matmuls_bits() -> None:
    """rows_by / rows_dot (the classification's small products in Python floats) and
    rest_yaw's two entries give matmul's bits exactly."""
    rng = np.random.default_rng(2)
    for _ in range(50):
        a, m, v = rng.normal(size=(8, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
        assert rows_by(a.tolist(), m.tolist()) == matmul(a, m).tolist()
        assert rows_dot(a.tolist(), v.tolist()) == matmul(a, v).tolist()
    poly = die_shape(load_die("tampered-d8")).poly
    for seed in range(20):
        q = np.random.default_rng([3, seed]).normal(size=4)
        x, y, z, w = (q / np.linalg.norm(q)).tolist()
        rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        bottom = seed % len(poly.faces)
        m = matmul(rot, poly.rest_rotation(bottom, 0.0).T)
        yaw = math.degrees(math.atan2(m[1, 0], m[0, 0]))
        assert rest_yaw(poly, rot, bottom) == (yaw + 360.0 if yaw <= -180.0 else yaw)


def test_dot_and_norms() -> None:
    assert dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0
    assert norm([3.0, 4.0]) == 5.0
    assert norms(np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]])).tolist() == [5.0, 2.0]
    assert det3(np.diag([2.0, 3.0, 4.0])) == 24.0


@pytest.mark.parametrize("seed", range(40))
def test_eigh3_is_an_eigen_decomposition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(3, 3))
    m = m + m.T
    if seed % 4 == 0:  # two equal eigenvalues up to round-off (an axially symmetric die)
        m = np.diag([1.0, 1.0, 2.0]) + 1e-17 * m
    values, vectors = eigh3(m)
    assert values.tolist() == sorted(values.tolist())
    assert np.allclose(values, np.linalg.eigvalsh(m), rtol=0, atol=1e-14 * abs(m).max())
    assert np.allclose(vectors @ np.diag(values) @ vectors.T, m, atol=1e-14 * abs(m).max())
    assert np.allclose(vectors.T @ vectors, np.eye(3), atol=1e-15)
    assert det3(vectors) > 0


def test_eigh3_refuses_what_is_not_a_finite_3x3() -> None:
    with pytest.raises(ValueError, match="finite 3x3"):
        eigh3(np.eye(2))
    with pytest.raises(ValueError, match="finite 3x3"):
        eigh3(np.full((3, 3), math.nan))


def test_principal_axes_of_every_shipped_die_diagonalise_its_inertia() -> None:
    import dice_models

    for name in dice_models.available():
        shape = die_shape(load_die(name))
        axes, inertia = shape.principal_axes, shape.mass.inertia
        turned = axes.T @ inertia @ axes
        assert np.allclose(turned, np.diag(shape.principal_moments),
                           atol=1e-9 * abs(inertia).max()), name


@pytest.mark.parametrize("seed", range(30))
def test_lstsq_and_nnls_agree_with_lapack_and_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(4, 12)), int(rng.integers(1, 5))
    a = rng.normal(size=(m, n)) * rng.choice([1.0, 1e3], size=(m, 1))  # weighted rows
    b = rng.normal(size=m)
    assert np.allclose(lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-8, atol=1e-10)
    assert np.allclose(nnls(a, b), scipy_nnls(a, b)[0], rtol=1e-8, atol=1e-10)
    assert (nnls(a, b) >= 0).all()


def test_lstsq_refuses_dependent_columns() -> None:
    with pytest.raises(ValueError, match="not independent"):
        lstsq(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones(3))
