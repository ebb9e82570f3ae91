"""Arithmetic whose last bits do not depend on the machine: small products, norms and the
eigen-decomposition of an inertia tensor, computed so that every x86-64 CPU gives the same
bits whichever SIMD kernels numpy and its BLAS dispatch to (docs/determinism.md).

numpy's `@`, `np.dot`, `np.linalg.norm` of a vector, `eigh` and `det` go to OpenBLAS,
which picks its kernels by CPU (Haswell, SkylakeX, Sandybridge, ...): they sum in other
orders and fuse other multiply-adds, so the same product differs in its last bits from one
CPU class to the next (a greedy Deep White Sea bot then chose another throw, and two
equal principal moments of the tampered d8 gave principal axes 22 degrees apart). numpy's
own SIMD loops differ too, for the transcendental functions (np.exp, np.arccos, np.arctan2,
np.tan, np.power: AVX-512 and AVX2 loops round otherwise than the C library).

What is left is element-wise arithmetic (+, -, *, /, sqrt), which IEEE 754 rounds
correctly on every kernel, and sums whose order is written out here or fixed by numpy's
reduction code (a sum over an axis of length 3 adds in index order). Transcendental
functions of a float are taken from `math` (the C library), never from numpy's loops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Vec = NDArray[np.float64]


def matmul(a: Vec | Sequence[float], b: Vec | Sequence[float]) -> Vec:
    """a @ b for a (..., k) and b (k, m) or (k,): each entry the products added in the
    order of k, rounded after every operation. k is small here (3 or 4), so this costs a
    few element-wise passes."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    k = a.shape[-1]
    if b.shape[0] != k:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not chain")
    if k == 3:  # the usual case, written out: ((a0 b0 + a1 b1) + a2 b2)
        if b.ndim == 1:
            return a[..., 0] * b[0] + a[..., 1] * b[1] + a[..., 2] * b[2]
        return a[..., 0, None] * b[0] + a[..., 1, None] * b[1] + a[..., 2, None] * b[2]
    if b.ndim == 1:
        out = a[..., 0] * b[0]
        for j in range(1, k):
            out = out + a[..., j] * b[j]
        return out
    out = a[..., 0, None] * b[0]
    for j in range(1, k):
        out += a[..., j, None] * b[j]
    return out


def rows_by(rows: Sequence[Sequence[float]], m: Sequence[Sequence[float]]) -> list[list[float]]:
    """matmul(rows, m) of a few 3-vectors by a 3x3 matrix, as lists: the same products
    added in the same order, ((a0 b0j + a1 b1j) + a2 b2j), in Python floats (for a handful of
    rows numpy's passes cost more than the arithmetic)."""
    (b00, b01, b02), (b10, b11, b12), (b20, b21, b22) = m
    return [[x * b00 + y * b10 + z * b20, x * b01 + y * b11 + z * b21,
             x * b02 + y * b12 + z * b22] for x, y, z in rows]


def rows_dot(rows: Sequence[Sequence[float]], v: Sequence[float]) -> list[float]:
    """matmul(rows, v) of a few 3-vectors by a 3-vector, as a list (as rows_by)."""
    v0, v1, v2 = v
    return [x * v0 + y * v1 + z * v2 for x, y, z in rows]


def dot(a: Vec | Sequence[float], b: Vec | Sequence[float]) -> float:
    """a . b of two vectors, added in index order."""
    total = 0.0
    for x, y in zip(np.asarray(a, dtype=float).tolist(), np.asarray(b, dtype=float).tolist(),
                    strict=True):
        total += x * y
    return total


def norm(a: Vec | Sequence[float]) -> float:
    """The length of a vector: sqrt of its squares added in index order."""
    total = 0.0
    for x in np.asarray(a, dtype=float).ravel().tolist():
        total += x * x
    return math.sqrt(total)


def norms(a: Vec) -> Vec:
    """The length of each row of a (N, k) array (a reduction over an axis of length k)."""
    a = np.asarray(a, dtype=float)
    return np.sqrt((a * a).sum(axis=-1))


def det3(m: Vec) -> float:
    """The determinant of a 3x3 matrix, expanded along its first row."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(m, dtype=float).tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


JACOBI_SWEEPS = 60


def eigh3(m: Vec) -> tuple[Vec, Vec]:
    """Eigenvalues (ascending) and eigenvectors (columns, a right-handed rotation) of a
    symmetric 3x3 matrix, by cyclic Jacobi rotations in Python floats (Numerical Recipes,
    `jacobi`): the same bits on every machine, where LAPACK's `eigh` follows the BLAS
    kernels. Equal eigenvalues (a die symmetric about an axis) get whatever axes the
    rotations reach, but the same ones everywhere."""
    a = np.asarray(m, dtype=float)
    if a.shape != (3, 3) or not np.isfinite(a).all():
        raise ValueError("eigh3 needs a finite 3x3 matrix")
    s = [[float(a[i, j]) if i <= j else float(a[j, i]) for j in range(3)] for i in range(3)]
    v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    for sweep in range(JACOBI_SWEEPS):
        if s[0][1] == 0.0 and s[0][2] == 0.0 and s[1][2] == 0.0:
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            apq = s[p][q]
            if apq == 0.0:
                continue
            app, aqq = s[p][p], s[q][q]
            g = 100.0 * abs(apq)
            if sweep > 3 and abs(app) + g == abs(app) and abs(aqq) + g == abs(aqq):
                s[p][q] = s[q][p] = 0.0  # below the round-off of both diagonal entries
                continue
            h = aqq - app
            if abs(h) + g == abs(h):
                t = apq / h
            else:
                theta = 0.5 * h / apq
                t = 1.0 / (abs(theta) + math.sqrt(1.0 + theta * theta))
                if theta < 0.0:
                    t = -t
            c = 1.0 / math.sqrt(1.0 + t * t)
            sn = t * c
            tau = sn / (1.0 + c)
            s[p][p] = app - t * apq
            s[q][q] = aqq + t * apq
            s[p][q] = s[q][p] = 0.0
            r = 3 - p - q  # the third index
            arp, arq = s[r][p], s[r][q]
            s[r][p] = s[p][r] = arp - sn * (arq + tau * arp)
            s[r][q] = s[q][r] = arq + sn * (arp - tau * arq)
            for row in v:
                vp, vq = row[p], row[q]
                row[p] = vp - sn * (vq + tau * vp)
                row[q] = vq + sn * (vp - tau * vq)
    order = sorted(range(3), key=lambda k: (s[k][k], k))
    values = np.array([s[k][k] for k in order])
    vectors = np.array([[row[k] for k in order] for row in v])
    if det3(vectors) < 0.0:
        vectors[:, 0] = -vectors[:, 0]
    return values, vectors


def lstsq(a: Vec, b: Vec) -> Vec:
    """The least-squares solution of a x = b for a (m, n) of full column rank, m >= n, by
    Householder reflections in Python floats (np.linalg.lstsq is LAPACK on the BLAS
    kernels). A column that is a combination of the others raises ValueError."""
    rows = np.asarray(a, dtype=float).tolist()
    y = np.asarray(b, dtype=float).tolist()
    m, n = len(rows), len(rows[0]) if rows else 0
    if m < n or len(y) != m:
        raise ValueError(f"lstsq: needs as many equations as unknowns, got {m} for {n}")
    scale = max((abs(x) for r in rows for x in r), default=0.0)
    for k in range(n):
        col = [rows[i][k] for i in range(k, m)]
        size = math.sqrt(sum(x * x for x in col))
        if size <= 1e-13 * scale:
            raise ValueError("lstsq: the columns are not independent")
        alpha = -size if col[0] > 0.0 else size
        v = col
        v[0] -= alpha
        vv = sum(x * x for x in v)
        for j in range(k, n):
            f = 2.0 * sum(v[i] * rows[k + i][j] for i in range(len(v))) / vv
            for i in range(len(v)):
                rows[k + i][j] -= f * v[i]
        f = 2.0 * sum(v[i] * y[k + i] for i in range(len(v))) / vv
        for i in range(len(v)):
            y[k + i] -= f * v[i]
    x = [0.0] * n
    for k in range(n - 1, -1, -1):
        x[k] = (y[k] - sum(rows[k][j] * x[j] for j in range(k + 1, n))) / rows[k][k]
    return np.array(x)


def nnls(a: Vec, b: Vec) -> Vec:
    """min |a x - b| subject to x >= 0 (Lawson and Hanson's active set), on `lstsq`:
    the same bits everywhere, where scipy.optimize.nnls calls its BLAS."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    m, n = a.shape
    tol = 10.0 * 2.220446049250313e-16 * float(np.abs(a).sum(axis=0).max()) * max(m, n)
    x = np.zeros(n)
    passive: list[int] = []
    for _ in range(3 * n + 3):
        w = matmul(b - matmul(a, x), a)  # a^T (b - a x)
        free = [j for j in range(n) if j not in passive]
        if not free or max(float(w[j]) for j in free) <= tol:
            break
        passive.append(max(free, key=lambda j: (float(w[j]), -j)))
        while True:
            s = np.zeros(n)
            s[passive] = lstsq(a[:, passive], b)
            if all(float(s[j]) > 0.0 for j in passive):
                break
            alpha = min(float(x[j] / (x[j] - s[j])) for j in passive if s[j] <= 0.0)
            x = x + alpha * (s - x)
            passive = [j for j in passive if x[j] > tol]
            x[[j for j in range(n) if j not in passive]] = 0.0
        x = s
    return x
