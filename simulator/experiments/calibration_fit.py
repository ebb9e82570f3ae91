"""Calibration's fitting methods: the noisy-objective search (`fit`) and the surrogate
(`fit_surrogate`), with their designs and the quadratic. Split from `calibrate` (its
docstring describes both methods), which re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize
from scipy import stats as sps
from scipy.stats import qmc

from simulator.experiments import surrogate as sg
from simulator.experiments.calibration_sim import Simulator, base_parameters, chi_square, phi_df
from simulator.experiments.datasets import LOCAL, MAX_STAGES, NEAR_BOUND, STEP, DataObject, bounds
from simulator.experiments.dispersion import rise95, x2_p


@dataclass
class FitResult:
    names: tuple[str, ...]
    values: dict[str, float]  # every parameter: fitted ones at the optimum, others at base
    sigma: dict[str, float | None]
    chi2: float
    df: int
    p: float
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    method: str = ""
    noise_sd: float | None = None  # the quadratic's residual sd, X^2 units
    # The surrogate method's profile intervals (may be asymmetric; None: open) and its record.
    intervals: dict[str, list[float] | None] | None = None
    surrogate: dict[str, Any] | None = None


def _unit_point(base: dict[str, float], names: Sequence[str], lo: np.ndarray,
                hi: np.ndarray) -> Callable[[np.ndarray], dict[str, float]]:
    """The parameters at a point of the unit box (each searched range scaled to 0..1, the
    others at `base`)."""

    def point(u: np.ndarray) -> dict[str, float]:
        x = lo + np.clip(u, 0.0, 1.0) * (hi - lo)
        return {**base, **{n: float(v) for n, v in zip(names, x, strict=True)}}

    return point


def fit(objects: Sequence[DataObject], sim: Simulator, names: Sequence[str], seed: int,
        grid: int = 3, refine: int = 24, log: Callable[[str], None] = lambda s: None,
        at: dict[str, float] | None = None) -> FitResult:
    """Grid, then Nelder-Mead, then the curvature design (module docstring)."""
    base = {**base_parameters(objects[0]), **(at or {})}  # `at`: values held, not fitted
    lo = np.array([bounds(n)[0] for n in names])
    hi = np.array([bounds(n)[1] for n in names])
    k = len(names)
    evals: list[dict[str, Any]] = []
    seen: dict[tuple[float, ...], float] = {}
    point = _unit_point(base, names, lo, hi)

    def f(u: np.ndarray) -> float:
        uk = tuple(round(float(v), 6) for v in np.clip(u, 0.0, 1.0))
        if uk in seen:
            return seen[uk]
        params = point(np.array(uk))
        sims = sim.run(objects, params, seed)
        x2, df = chi_square(objects, sims)
        seen[uk] = x2
        evals.append({**{n: params[n] for n in names}, "chi2": x2})
        log(f"  eval {len(evals):3d}: " + ", ".join(f"{n} {params[n]:.4f}" for n in names)
            + f"  X^2 {x2:.2f}")
        return x2

    if k == 0:
        sims = sim.run(objects, base, seed)
        x2, df = chi_square(objects, sims)
        return FitResult((), base, {}, x2, df, x2_p(x2, df, phi_df(objects)),
                         [], "no parameter fitted")
    best = _search(f, seen, k, grid, refine)
    q = _Quadratic.near(seen, best, k)
    values = point(q.best)
    sims = sim.run(objects, values, seed)
    x2, df = chi_square(objects, sims)
    df_fit = max(df - k, 1)
    method = (f"grid {grid}^{k}, Nelder-Mead (at most {refine} evaluations), an axial and "
              f"diagonal design at +-{STEP:g}; a quadratic fitted by least squares to X^2 at the "
              f"{q.n_near} evaluated points within {q.radius:g} of the best (ranges scaled "
              f"to 1; residual sd {q.resid_sd:.2f} X^2 units: the objective's noise); estimate: "
              f"{q.chosen}; sigma from the quadratic's curvature, cov = 2 H^-1"
              + ("" if q.ok else " (not convex jointly: per-axis curvature, conditional on the rest)"))
    return FitResult(tuple(names), values, q.sigma(names, hi - lo), x2, df_fit,
                     x2_p(x2, df_fit, phi_df(objects)), evals, method, q.resid_sd)


def _search(f: Callable[[np.ndarray], float], seen: dict[tuple[float, ...], float], k: int,
            grid: int, refine: int) -> np.ndarray:
    """The search method's evaluations (`f` records each in `seen`): the grid, Nelder-Mead
    from its best point, and the curvature design around the best; the best point."""
    axes = [(np.arange(grid) + 0.5) / grid for _ in range(k)]
    for u in np.array(np.meshgrid(*axes, indexing="ij")).reshape(k, -1).T:
        f(u)
    best = np.array(min(seen, key=lambda t: seen[t]))
    if refine > 0:
        simplex = np.array([best] + [np.clip(best + np.eye(k)[i] * (0.5 / grid)
                                             * (1 if best[i] < 0.5 else -1), 0, 1)
                                     for i in range(k)])
        res = optimize.minimize(f, best, method="Nelder-Mead",
                                options={"initial_simplex": simplex, "maxfev": refine,
                                         "xatol": 0.01, "fatol": 0.5})
        cand = np.clip(res.x, 0, 1)
        f(cand)
        best = np.array(min(seen, key=lambda t: seen[t]))
    # The curvature design: axial +-STEP and one diagonal per pair of parameters.
    centre = np.clip(best, STEP, 1 - STEP)
    design = [centre]
    for i in range(k):
        for sgn in (1, -1):
            design.append(centre + sgn * STEP * np.eye(k)[i])
    for i in range(k):
        for j in range(i + 1, k):
            design.append(centre + STEP * (np.eye(k)[i] + np.eye(k)[j]))
    for u in design:
        f(u)
    return np.array(min(seen, key=lambda t: seen[t]))


@dataclass
class _Quadratic:
    """The search method's quadratic through the evaluated points near the best one, and
    the estimate it gives."""

    best: np.ndarray  # the estimate, in the unit box
    chosen: str  # which point the estimate is
    hess: np.ndarray
    resid_sd: float  # X^2 units: the objective's noise
    ok: bool  # convex in every direction
    n_near: int  # the points it was fitted to
    radius: float  # ... within this distance of the best point (unit box)

    @classmethod
    def near(cls, seen: dict[tuple[float, ...], float], best: np.ndarray, k: int) -> _Quadratic:
        # The quadratic: through the evaluated points near the best one, the region widened
        # until it holds twice as many points as the quadratic has coefficients (the objective's
        # noise of several X^2 units needs them).
        n_coef = 1 + k + k * (k + 1) // 2
        all_u = np.array(list(seen))
        all_y = np.array([seen[t] for t in seen])
        for radius in (2 * STEP, 0.25, 0.5, 1.0):
            near = np.max(np.abs(all_u - best), axis=1) <= radius + 1e-9
            if near.sum() >= 2 * n_coef:
                break
        grad, hess, resid_sd = _quadratic(all_u[near] - best, all_y[near])
        ok = bool(np.all(np.linalg.eigvalsh(hess) > 0))
        chosen = "the best evaluated point"
        if ok:  # the quadratic's minimum, where it lies in the region and the box
            u_min = best - np.linalg.solve(hess, grad)
            if np.max(np.abs(u_min - best)) <= radius and np.all((u_min >= 0) & (u_min <= 1)):
                best, chosen = u_min, "the quadratic's minimum"
        return cls(best, chosen, hess, resid_sd, ok, int(near.sum()), radius)

    def sigma(self, names: Sequence[str], scale: np.ndarray) -> dict[str, float | None]:
        """Each parameter's sigma from the quadratic's curvature, in its own units."""
        hess = self.hess
        sigma: dict[str, float | None] = {n: None for n in names}
        if self.ok:
            cov_u = 2.0 * np.linalg.inv(hess)
            for i, n in enumerate(names):
                var = float(cov_u[i, i]) * float(scale[i]) ** 2
                sigma[n] = math.sqrt(var) if var > 0 else None
        else:  # the quadratic is not convex in every direction: per-axis curvature where it is
            for i, n in enumerate(names):
                if hess[i, i] > 0:
                    sigma[n] = math.sqrt(2.0 / hess[i, i]) * float(scale[i])
        return sigma


def fit_surrogate(objects: Sequence[DataObject], sim: Simulator, names: Sequence[str], seed: int,
                  design: int = 24, alpha: float = 0.01, stages: int = MAX_STAGES,
                  log: Callable[[str], None] = lambda s: None,
                  at: dict[str, float] | None = None) -> FitResult:
    """Designs of `design` points (the first over the ranges, up to `stages - 1` more around
    the estimate), each point simulated with its own seeds; a quadratic logit per object
    through them (`simulator.experiments.surrogate`); the minimum of the summed X^2 of those
    surfaces against the measured counts; profile intervals (docs/calibration.md)."""
    k = len(names)
    if k == 0:
        return fit(objects, sim, names, seed, log=log, at=at)
    base = {**base_parameters(objects[0]), **(at or {})}  # `at`: values held, not fitted
    lo = np.array([bounds(n)[0] for n in names])
    hi = np.array([bounds(n)[1] for n in names])
    point = _unit_point(base, names, lo, hi)
    d = _Designs(objects, sim, names, seed, design, lo, hi, point, log)
    unit = (np.zeros(k), np.ones(k))
    d.simulate(qmc.LatinHypercube(d=k, seed=seed).random(design), 1)
    parts, pts = d.surfaces(unit)
    centre, x2 = d.best_of(parts, unit, pts)
    best, estimates = centre, [centre]
    # Then designs of as many points in +-LOCAL of the estimate, the surfaces refitted on
    # every point within +-2 LOCAL of it, the estimate sought only in the +-LOCAL box where
    # the points are dense (never extrapolated), until it lies inside that box (or on a
    # search bound) or `stages` designs are thrown.
    max_stages, stages, on_edge = stages, 1, False  # the first box's edges are the bounds
    for stage in range(2, max_stages + 1):
        box = (np.clip(centre - LOCAL, 0, 1), np.clip(centre + LOCAL, 0, 1))
        lhs = qmc.LatinHypercube(d=k, seed=seed + stage).random(design)
        d.simulate(box[0] + lhs * (box[1] - box[0]), stage)
        region = (np.clip(centre - 2 * LOCAL, 0, 1), np.clip(centre + 2 * LOCAL, 0, 1))
        parts, pts = d.surfaces(region)
        best, x2 = d.best_of(parts, box, pts)
        on_edge = bool(np.any(((best <= box[0] + 1e-6) & (box[0] > 0))
                              | ((best >= box[1] - 1e-6) & (box[1] < 1))))
        stages = stage
        if not on_edge:
            break
        centre = best
        estimates.append(centre)
    # The profile runs over the box the surfaces' points span (and the estimate, which may lie
    # on a search bound a little past the outermost point).
    region = (np.minimum(pts.min(axis=0), best), np.maximum(pts.max(axis=0), best))
    f = sg.objective(parts, best)  # the surfaces' uncertainty at the estimate (sg.estimate)
    level = rise95(phi_df(objects))
    intervals, sigma, open_ends = d.intervals(f, best, region, level)
    df_fit = max(sum(len(o.groups) - 1 for o in objects) - k, 1)
    record = d.record(parts, pts, region, estimates, stages, alpha, open_ends, on_edge)
    return FitResult(tuple(names), point(best), sigma, float(x2), df_fit,
                     x2_p(x2, df_fit, phi_df(objects)), d.evals,
                     _surrogate_method(design, stages, len(pts), level), None, intervals,
                     record)


class _Designs:
    """The surrogate method's design points as they are thrown (in the unit box), their
    counts per object, the evaluations' record, and the surfaces and estimates from them."""

    def __init__(self, objects: Sequence[DataObject], sim: Simulator, names: Sequence[str],
                 seed: int, design: int, lo: np.ndarray, hi: np.ndarray,
                 point: Callable[[np.ndarray], dict[str, float]],
                 log: Callable[[str], None]) -> None:
        self.objects, self.sim, self.names, self.seed = objects, sim, names, seed
        self.design, self.lo, self.hi, self.point, self.log = design, lo, hi, point, log
        self.us: list[np.ndarray] = []
        self.counts: list[list[tuple[int, ...]]] = []  # per design point, per object
        self.evals: list[dict[str, Any]] = []
        self.unsettled: list[int] = []  # designs whose estimate kept moving (sg.estimate)

    def simulate(self, pts: np.ndarray, stage: int) -> None:
        objects, names, us = self.objects, self.names, self.us
        for u in pts:
            i = len(us)
            params = self.point(u)
            sims = self.sim.run(objects, params, design_seed(self.seed, i))
            x2, _ = chi_square(objects, sims)
            us.append(np.clip(u, 0.0, 1.0))
            self.counts.append([c.counts for c in sims])
            self.evals.append({**{n: params[n] for n in names}, "chi2": x2, "stage": stage})
            self.log(f"  design {stage}, point {i + 1:3d}: " + ", ".join(
                f"{n} {params[n]:.4f}" for n in names) + f"  X^2 {x2:.2f} (this point's throws)")

    def surfaces(self, region: tuple[np.ndarray, np.ndarray]) -> tuple[list[Any], np.ndarray]:
        us, counts = self.us, self.counts
        inside = np.array([bool(np.all((u >= region[0] - 1e-9) & (u <= region[1] + 1e-9)))
                           for u in us])
        pts = np.array(us)[inside]
        out = []
        for j, o in enumerate(self.objects):
            c = np.array([counts[i][j] for i in range(len(us)) if inside[i]])
            assert o.counts is not None
            out.append((sg.fit_logit(pts, c), o.effective_counts()))
        return out, pts

    def best_of(self, parts: list[Any], region: tuple[np.ndarray, np.ndarray],
                pts: np.ndarray) -> tuple[np.ndarray, float]:
        ys = sg.objective(parts, use_v=False)(pts)
        starts = [pts[i] for i in np.argsort(ys)[:4]] + [(region[0] + region[1]) / 2]
        u, x2, settled = sg.estimate(parts, starts, region[0], region[1])
        if not settled:
            design = self.design
            self.unsettled.append(len(self.us) // design)
            self.log(f"  warning: the estimate of design {len(self.us) // design} kept moving "
                     f"between rounds of V held at it; its last point is used")
        return u, x2

    def intervals(self, f: Any, best: np.ndarray, region: tuple[np.ndarray, np.ndarray],
                  level: float) -> tuple[dict[str, list[float] | None],
                                         dict[str, float | None], list[str]]:
        """The profile intervals of the objective `f` about `best`, each parameter's sigma,
        and the parameters whose interval is open."""
        lo, scale = self.lo, self.hi - self.lo
        prof = sg.profile(f, best, region[0], region[1], level)
        intervals: dict[str, list[float] | None] = {}
        sigma: dict[str, float | None] = {}
        open_ends = []
        for i, n in enumerate(self.names):
            a, b, at_low, at_high = prof[i]
            # An end at the region's edge is open unless that edge is the search's bound.
            open_low = at_low and region[0][i] > NEAR_BOUND
            open_high = at_high and region[1][i] < 1 - NEAR_BOUND
            if open_low or open_high:
                intervals[n], sigma[n] = None, None
                open_ends.append(n)
            else:
                intervals[n] = [float(lo[i] + a * scale[i]), float(lo[i] + b * scale[i])]
                sigma[n] = (b - a) * float(scale[i]) / (2 * math.sqrt(level))
        return intervals, sigma, open_ends

    def record(self, parts: list[Any], pts: np.ndarray, region: tuple[np.ndarray, np.ndarray],
               estimates: list[np.ndarray], stages: int, alpha: float, open_ends: list[str],
               on_edge: bool) -> dict[str, Any]:
        """The fit's record: its designs, region, stages' centres and lack of fit."""
        names, lo, scale = self.names, self.lo, self.hi - self.lo
        u1 = estimates[0]
        lof = [{"object": o.name, "deviance": s.deviance, "df": s.df, "p": s.lack_of_fit_p,
                "throws": s.throws} for o, (s, _) in zip(self.objects, parts, strict=True)]
        lof_dev, lof_df = sum(x["deviance"] for x in lof), sum(x["df"] for x in lof)
        lof_p = float(sps.chi2.sf(lof_dev, lof_df)) if lof_df > 0 else None
        return {"design_points": len(self.us), "design_size": self.design,
                "fitted_on": int(len(pts)),
                "region": {n: [float(lo[i] + region[0][i] * scale[i]),
                               float(lo[i] + region[1][i] * scale[i])]
                           for i, n in enumerate(names)},
                "first_estimate": {n: float(lo[i] + u1[i] * scale[i]) for i, n in enumerate(names)},
                "stage_centres": [{n: float(lo[i] + c[i] * scale[i]) for i, n in enumerate(names)}
                                  for c in estimates[:stages - 1]],
                "lack_of_fit": {"deviance": lof_dev, "df": lof_df, "p": lof_p, "per_object": lof},
                "lack_of_fit_bad": lof_p is not None and lof_p < alpha,
                "open_intervals": open_ends,
                # False: after max_stages designs the estimate still lay on the last box's edge
                "converged": not on_edge,
                # designs whose estimate did not stop moving with V held at it (sg.estimate)
                "estimate_unsettled": self.unsettled}


def _surrogate_method(design: int, stages: int, n_points: int, level: float) -> str:
    """The surrogate method's description, for the report."""
    return (f"surrogate: a Latin hypercube of {design} points over the search ranges, then "
            f"{design} a stage in +-{LOCAL:g} of the estimate (ranges scaled to 1; "
            f"{stages - 1} such stage(s)), each point thrown with its own seeds; per "
            f"object a multinomial logit, quadratic in the parameters, fitted by maximum "
            f"likelihood to the {n_points} points within +-{2 * LOCAL:g} of the last stage's "
            f"centre; estimate: inside that stage's box, the minimum of the summed "
            f"Pearson X^2 of the measured counts against it, the surface's own covariance "
            f"at the estimate added to each measured share's (held there while the "
            f"estimate is sought); 95% intervals: profile of that X^2 "
            f"(rise {level:.2f}) over the box the points span, sigma = half the interval / "
            f"{math.sqrt(level):.2f}; an interval that reaches that box's edge (not a search "
            f"bound) is not determined")


def min_design(k: int) -> int:
    """The fewest design points for k parameters: twice the quadratic's coefficients."""
    return 2 * sg.n_features(k)


def design_seed(seed: int, i: int) -> int:
    """Seed of design point i: apart from the fit's `seed` and the report's `seed + 1`
    (throw j of object o at it: default_rng([1000 design_seed + o, j]))."""
    return 1000 * (seed + 2) + i


def _quadratic(d: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Least-squares quadratic y = c + g.d + d^T H d / 2 through the points: g, H and the
    residual standard deviation."""
    k = d.shape[1]
    a = sg.features(d, centre=0.0)  # 1, d_i, d_i d_j (i <= j)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    h = np.zeros((k, k))
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    for c, (i, j) in zip(coef[1 + k:], pairs, strict=True):
        h[i, j] = h[j, i] = 2.0 * c if i == j else c  # d_i^2 c = d_i^2 H_ii / 2
    resid = y - a @ coef
    dof = max(len(y) - len(coef), 1)
    return coef[1:1 + k], h, float(math.sqrt(float(resid @ resid) / dof))


# -- the whole command ----------------------------------------------------------------------
