"""A smooth stand-in for the simulator's outcome shares over a few fitted parameters.

A thrown die is chaotic: a small change of friction re-randomizes most throws, so the
simulated share of an outcome at one parameter point carries the full sampling noise of
its throws, and an objective built on single points (calibrate's `search` method) is
piecewise constant with a noise of several X^2 units. Here every object's outcome shares are
instead modelled across all the simulated points at once: a multinomial logit whose linear
predictor is a full quadratic in the parameters (scaled to [0, 1]), fitted by maximum
likelihood to the simulated counts of every design point. The thousands of throws behind it
pin the shares down far better than one point's few hundred, its covariance says how well
(the delta method carries it to each share), and its deviance against the points' own
shares (lack of fit) says whether a quadratic is enough over the region it was fitted on.

Pure numpy and scipy; no physics. Used by `simulator.experiments.calibrate`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import optimize
from scipy import stats as sps

RIDGE = 1e-3  # a weak pull of every coefficient toward 0: keeps a group never seen finite
P_FLOOR = 1e-9  # shares are kept inside [P_FLOOR, 1 - P_FLOOR] where they are divided by


def features(u: np.ndarray, centre: float = 0.5) -> np.ndarray:
    """(n, k) points -> (n, F) columns: 1, each d_i, each d_i d_j (i <= j), with
    d = u - centre (the middle of [0, 1]^k by default)."""
    u = np.atleast_2d(np.asarray(u, dtype=float))
    d = u - centre
    k = d.shape[1]
    cols = [np.ones(len(d))] + [d[:, i] for i in range(k)]
    cols += [d[:, i] * d[:, j] for i in range(k) for j in range(i, k)]
    return np.array(cols).T


def n_features(k: int) -> int:
    return 1 + k + k * (k + 1) // 2


@dataclass(frozen=True)
class LogitSurface:
    """Outcome shares p_g(u) = exp(eta_g) / sum_h exp(eta_h), eta_g = x(u) . beta_g for the
    first G - 1 groups and eta = 0 for the last."""

    beta: np.ndarray  # (G - 1, F)
    cov: np.ndarray  # ((G - 1) F, (G - 1) F): inverse observed information
    deviance: float  # lack of fit against the design points' own shares
    df: int  # design points x (G - 1) less the coefficients
    points: int
    throws: int  # simulated throws counted (on the table) over all design points

    @property
    def lack_of_fit_p(self) -> float | None:
        return float(sps.chi2.sf(self.deviance, self.df)) if self.df > 0 else None

    def probs(self, u: np.ndarray) -> np.ndarray:
        """(n, G) shares at (n, k) points."""
        eta = features(u) @ self.beta.T
        return _softmax(eta)

    def probs_cov(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Shares (n, G) and the covariance (n, G - 1, G - 1) of the first G - 1 of them
        that the coefficients' uncertainty gives (delta method)."""
        x = features(u)
        p = _softmax(x @ self.beta.T)
        g1 = self.beta.shape[0]
        pf = p[:, :g1]
        # dp_g / d beta_h = p_g (delta_gh - p_h) x, for g, h < G - 1
        jac = (pf[:, :, None] * (np.eye(g1)[None] - pf[:, None, :]))  # (n, g, h)
        full = (jac[:, :, :, None] * x[:, None, None, :]).reshape(len(x), g1, -1)
        return p, np.einsum("ngi,ij,nhj->ngh", full, self.cov, full)


def _softmax(eta: np.ndarray) -> np.ndarray:
    z = np.concatenate([eta, np.zeros((eta.shape[0], 1))], axis=1)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def logit_ml(x: np.ndarray, counts: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Maximum-likelihood multinomial logit through counts (n points x G groups) with the
    linear predictor x @ beta (x: n x f features; the last group the reference), a ridge of
    `ridge` on beta: the coefficients (G - 1, f) and the negative log likelihood's Hessian
    there (its inverse is their covariance)."""
    c = np.asarray(counts, dtype=float)
    n_pts, f = x.shape
    g1 = c.shape[1] - 1
    tot = c.sum(axis=1)

    def unpack(b: np.ndarray) -> np.ndarray:
        return b.reshape(g1, f)

    def nll(b: np.ndarray) -> float:
        p = np.clip(_softmax(x @ unpack(b).T), 1e-300, 1.0)
        return float(-(c * np.log(p)).sum() + 0.5 * ridge * b @ b)

    def grad(b: np.ndarray) -> np.ndarray:
        p = _softmax(x @ unpack(b).T)
        r = tot[:, None] * p[:, :g1] - c[:, :g1]  # (n, g1)
        return np.asarray((r.T @ x).ravel() + ridge * b)

    def hess(b: np.ndarray) -> np.ndarray:
        p = _softmax(x @ unpack(b).T)[:, :g1]
        w = tot[:, None, None] * p[:, :, None] * (np.eye(g1)[None] - p[:, None, :])  # (n, g, h)
        h = np.einsum("ngh,ni,nj->gihj", w, x, x).reshape(g1 * f, g1 * f)
        return np.asarray(h + ridge * np.eye(g1 * f))

    res = optimize.minimize(nll, np.zeros(g1 * f), jac=grad, hess=hess, method="trust-exact",
                            options={"gtol": 1e-8, "maxiter": 500})
    return unpack(res.x).copy(), hess(res.x)


def shares(x: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """(n, G) shares of a logit with features x (n x f) and coefficients beta (G - 1, f)."""
    return _softmax(x @ beta.T)


def deviance(counts: np.ndarray, p: np.ndarray) -> float:
    """The multinomial deviance of counts (n x G) about shares p (n x G)."""
    c = np.asarray(counts, dtype=float)
    tot = c.sum(axis=1)
    p = np.clip(p, 1e-300, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(c > 0, c * np.log(c / (tot[:, None] * p)), 0.0)
    return float(2.0 * terms.sum())


def fit_logit(u: np.ndarray, counts: np.ndarray) -> LogitSurface:
    """Maximum-likelihood multinomial logit, quadratic in u, through the counts (n points x
    G groups) simulated at the points u (n x k)."""
    u = np.atleast_2d(np.asarray(u, dtype=float))
    c = np.asarray(counts, dtype=float)
    x = features(u)
    n_pts, f = x.shape
    g1 = c.shape[1] - 1
    tot = c.sum(axis=1)
    b, h = logit_ml(x, c)
    dev = deviance(c, shares(x, b))
    return LogitSurface(b, np.linalg.inv(h), max(dev, 0.0), n_pts * g1 - g1 * f, n_pts,
                        int(tot.sum()))


def pearson(surface: LogitSurface, u: np.ndarray, measured: np.ndarray,
            v_at: np.ndarray | None = None, use_v: bool = True) -> np.ndarray:
    """X^2 at each of (n, k) points of one object's measured counts (G groups) against the
    surface's shares, with the surface's own uncertainty added to the multinomial covariance
    of the measured shares: (q - p)' (Sigma_meas(p) / N + V)^-1 (q - p) over the first
    G - 1 groups (G - 1 degrees of freedom). V is the surface's covariance at each point, or
    at the one point `v_at` for all of them (what an estimate is sought with: a V that moves
    with u would reward the points where the surface knows least); `use_v=False` leaves V out.
    """
    m = np.asarray(measured, dtype=float)
    n = m.sum()
    q = m[:-1] / n
    v: np.ndarray | float = 0.0
    if not use_v:
        p = surface.probs(u)
    elif v_at is None:
        p, v = surface.probs_cov(u)
    else:
        p = surface.probs(u)
        v = surface.probs_cov(np.atleast_2d(v_at))[1]
    pf = np.clip(p[:, :-1], P_FLOOR, 1 - P_FLOOR)
    g1 = pf.shape[1]
    s = (pf[:, :, None] * (np.eye(g1)[None] - pf[:, None, :])) / n + v
    d = q[None, :] - pf
    return np.asarray(np.einsum("ng,ng->n", d, np.linalg.solve(s, d[:, :, None])[:, :, 0]))


def minimize_box(f: Callable[[np.ndarray], np.ndarray], starts: list[np.ndarray], lo: np.ndarray,
                 hi: np.ndarray) -> tuple[np.ndarray, float]:
    """The lowest of bounded quasi-Newton runs of f from each start, inside [lo, hi]."""
    best_u, best_y = None, math.inf
    for s in starts:
        r = optimize.minimize(lambda v: float(f(v[None, :])[0]), np.clip(s, lo, hi),
                              method="L-BFGS-B", bounds=list(zip(lo, hi, strict=True)))
        if r.fun < best_y:
            best_u, best_y = np.clip(r.x, lo, hi), float(r.fun)
    assert best_u is not None
    return best_u, best_y


def objective(parts: list[tuple[LogitSurface, np.ndarray]], v_at: np.ndarray | None = None,
              use_v: bool = True) -> Callable[[np.ndarray], np.ndarray]:
    """The summed X^2 of several objects' (surface, measured counts), vectorized over points;
    each surface's own uncertainty taken at each point, at `v_at` for all, or left out
    (`pearson`)."""

    if v_at is not None:
        assert np.atleast_2d(v_at).shape[0] == 1, "v_at is one point"

    def f(u: np.ndarray) -> np.ndarray:
        u = np.atleast_2d(u)
        return np.asarray(sum(pearson(s, u, m, v_at, use_v) for s, m in parts))

    return f


GRID_POINTS = 4000  # about this many points of a grid over the box seed the minimization


def grid_starts(f: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray,
                n: int = 3) -> list[np.ndarray]:
    """The n lowest points of f on a regular grid over [lo, hi] (about GRID_POINTS points):
    starts for the quasi-Newton runs, which stop early in the flat valleys a weakly
    identified parameter makes (in a test case the run ended 0.13 X^2 above the valley's
    lowest point)."""
    k = len(lo)
    m = max(3, int(round(GRID_POINTS ** (1.0 / k))))
    axes = [np.linspace(a, b, m) for a, b in zip(lo, hi, strict=True)]
    pts = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, k)
    ys = f(pts)
    return [pts[i] for i in np.argsort(ys)[:n]]


FIXED_V_ROUNDS = 8  # rounds of V held at the last estimate, at most
SETTLED = 1e-4  # the estimate has stopped moving: no coordinate moved more (ranges scaled to 1)


def estimate(parts: list[tuple[LogitSurface, np.ndarray]], starts: list[np.ndarray],
             lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, float, bool]:
    """The minimum inside [lo, hi] of the summed X^2 with the surfaces' uncertainty held at
    the estimate: first without it, then with V taken at the last estimate, until the
    estimate stops moving. A V that moves with the point would pull the minimum to where the
    surfaces are least known (a corner of the box, a region few throws stayed on the table),
    since a large V shrinks every X^2 there; held fixed, V widens the X^2's yardstick but
    does not choose the point. Returns the estimate, the objective there with V taken
    there (what `objective(parts, best)` and `objective(parts)` give at that point), and
    whether it stopped moving within FIXED_V_ROUNDS (False: it kept moving, e.g. between
    two basins each of whose V favours the other; the last point is returned)."""
    f0 = objective(parts, use_v=False)
    best, _ = minimize_box(f0, [*starts, *grid_starts(f0, lo, hi)], lo, hi)
    settled = False
    for _ in range(FIXED_V_ROUNDS):
        f = objective(parts, best)
        new, _ = minimize_box(f, [best, *starts, *grid_starts(f, lo, hi)], lo, hi)
        moved = float(np.max(np.abs(new - best)))
        best = new
        if moved < SETTLED:
            settled = True
            break
    return best, float(objective(parts, best)(best[None, :])[0]), settled


def profile(f: Callable[[np.ndarray], np.ndarray], best: np.ndarray, lo: np.ndarray,
            hi: np.ndarray, level: float, steps: int = 41) -> list[tuple[float, float, bool, bool]]:
    """Per parameter: the profile interval {t : min over the others of f <= f(best) + level}
    (the connected part around the best value) scanned on `steps` values across [lo, hi],
    and whether it reaches the low and the high end of the box."""
    y0 = float(f(best[None, :])[0])
    out = []
    k = len(best)
    for i in range(k):
        ts = np.linspace(lo[i], hi[i], steps)
        prof = np.empty(steps)
        others = [j for j in range(k) if j != i]
        prev = best[others]
        for a, t in enumerate(ts):
            if not others:
                prof[a] = float(f(np.array([[t]]))[0])
                continue

            def g(v: np.ndarray, t: float = t, i: int = i, others: list[int] = others) -> np.ndarray:
                full = np.empty((v.shape[0], k))
                full[:, i] = t
                full[:, others] = v
                return f(full)

            u, y = minimize_box(g, [prev, best[others]], lo[others], hi[others])
            prof[a], prev = y, u
        ok = prof <= y0 + level
        centre = int(np.argmin(np.abs(ts - best[i])))
        ok[centre] = True
        a = b = centre
        while a > 0 and ok[a - 1]:
            a -= 1
        while b < steps - 1 and ok[b + 1]:
            b += 1
        # refine each end between the last point inside and the first outside (linear)
        low = ts[a] if a == 0 else _cross(ts[a - 1], ts[a], prof[a - 1], prof[a], y0 + level)
        high = ts[b] if b == steps - 1 else _cross(ts[b], ts[b + 1], prof[b], prof[b + 1], y0 + level)
        out.append((float(low), float(high), a == 0, b == steps - 1))
    return out


def _cross(t0: float, t1: float, y0: float, y1: float, level: float) -> float:
    if y1 == y0:
        return t0
    return t0 + (level - y0) * (t1 - t0) / (y1 - y0)
