"""How much more than binomial sampling measured shares scatter about a smooth trend.

A calibration compares each object's measured counts with simulated ones, and its tests take
the measured counts as binomial: k of N throws, variance N p (1 - p). Counts gathered by hand
(several throwers, dice cut one by one, a table that is not the same all day) can vary more
than that. Then every model is rejected, the true one too, and the tests say nothing about
the model.

Where a dataset's objects form a series (a shape ratio that changes from one object to the
next, and on which the outcome share depends smoothly), the measured counts alone tell how
much they scatter: fit smooth trends to the shares and compare the residuals with binomial
sampling. Each trend is a logistic regression of the counts on a polynomial in the log of the
series value, fitted by maximum likelihood, of degree 1 to MAX_DEGREE (as many as leave
MIN_DF degrees of freedom). Its Pearson X^2 over its degrees of freedom estimates the
dispersion factor phi (McCullagh and Nelder, Generalized Linear Models, 2nd ed. 1989,
section 4.5; Williams, Applied Statistics 31, 1982). The smallest of these is taken, and no
less than 1: the least scatter any of the trends leaves, so the factor is not inflated by a
trend too stiff for the data.

The calibration then weighs each measured count as if N / phi throws had been made (the
design-effect correction of Rao and Scott, JASA 76, 1981): measured variances grow by phi,
the simulation's own stay binomial. phi is an estimate on the chosen trend's df degrees of
freedom, so a weighed X^2 on k degrees of freedom is judged as X^2 / k against F(k, df), and
a profile interval by the rise F(1, df) at 95% (`x2_p`, `rise95`), not by chi-square.

phi is only as good as the trend: counts with no trend in the series (shuffled across the
objects, say) scatter about any smooth curve by hundreds of times the binomial variance, and
weighing them by that would let every model pass. So phi applies only where the trend is
real: the quasi-likelihood F test of the chosen trend against one share for all, (deviance
of one share - deviance of the trend) / degree / phi on (degree, df) degrees of freedom,
must give p < TREND_ALPHA / (the number of trends tried: the chosen one is the best of
them, so its F is a selected one; Bonferroni); else phi is 1 and the report says why. On
the cuboids' counts dealt at random to the cuboids, 5,000 times, 7 passed (0.14%; 19 at
0.001 without the correction), each with phi of 48 or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

from simulator.experiments import surrogate as sg

MAX_DEGREE = 4  # the most flexible trend tried: a quartic in log(series)
MIN_DF = 2  # a trend is tried only where it leaves at least this many degrees of freedom
MIN_OBJECTS = 2 + MIN_DF  # a straight line (2 coefficients) and MIN_DF degrees of freedom
TREND_ALPHA = 0.001  # the series' trend must be this significant (over the trends tried)
P_FLOOR = 1e-9


@dataclass(frozen=True)
class TrendFit:
    degree: int
    chi2: float  # Pearson X^2 of the counts about the trend
    df: int
    p: float  # under binomial sampling

    @property
    def phi(self) -> float:
        return self.chi2 / self.df


@dataclass(frozen=True)
class Dispersion:
    series: str  # the name of the number the objects vary in (their as_published field)
    objects: tuple[str, ...]
    fits: tuple[TrendFit, ...]
    chosen: TrendFit  # the trend with the least scatter
    trend_f: float  # quasi-likelihood F of the chosen trend against one share for all
    trend_p: float  # on (chosen.degree, chosen.df) degrees of freedom

    @property
    def trend_level(self) -> float:
        """The level the chosen trend's F test must pass: TREND_ALPHA over the trends tried."""
        return TREND_ALPHA / len(self.fits)

    @property
    def trend(self) -> bool:
        """Whether the series carries a trend (phi applies only then)."""
        return self.trend_p < self.trend_level

    @property
    def phi(self) -> float:
        """The factor the measured variances are scaled by (at least 1; 1 with no trend)."""
        return max(1.0, self.chosen.phi) if self.trend else 1.0

    @property
    def df(self) -> int | None:
        """The degrees of freedom phi is estimated on, where it applies (None: phi is 1, the
        binomial variance, known)."""
        return self.chosen.df if self.phi > 1.0 else None

    def to_json(self) -> dict[str, Any]:
        return {"series": self.series, "objects": list(self.objects), "phi": self.phi,
                "phi_df": self.df,
                "scatter": self.chosen.phi, "chosen_degree": self.chosen.degree,
                "trend_f": self.trend_f, "trend_p": self.trend_p, "trend": self.trend,
                "trend_alpha": self.trend_level,
                "trends": [{"degree": f.degree, "chi2": f.chi2, "df": f.df, "phi": f.phi,
                            "p": f.p} for f in self.fits],
                "method": "Pearson X^2 / df of the counts about logistic trends, polynomial in "
                          f"log({self.series}), degree 1 to {MAX_DEGREE} (leaving at least "
                          f"{MIN_DF} df); the smallest, at least 1; applied where the trend's "
                          f"quasi-likelihood F test against one share gives p < {TREND_ALPHA:g} "
                          f"/ {len(self.fits)} (the trends tried)"}


def logistic_trend(t: np.ndarray, k: np.ndarray, n: np.ndarray, degree: int) -> np.ndarray:
    """Maximum-likelihood shares of a logistic regression of k of n on a polynomial of the
    given degree in t (t standardized first; the surrogate's logit fit, without its ridge)."""
    x = _trend_features(t, degree)
    beta, _ = sg.logit_ml(x, _table(k, n), ridge=0.0)
    return np.asarray(np.clip(sg.shares(x, beta)[:, 0], P_FLOOR, 1 - P_FLOOR))


def _trend_features(t: np.ndarray, degree: int) -> np.ndarray:
    z = (t - t.mean()) / (t.std() or 1.0)
    return np.vander(z, degree + 1)


def _table(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Counts k of n as a (objects x 2) table: the group, the rest."""
    return np.stack([k, n - k], axis=1)


def x2_p(x2: float, df: int, phi_df: int | None) -> float:
    """The p-value of an X^2 on df degrees of freedom whose measured counts were weighed by
    a dispersion estimated on phi_df degrees of freedom: F(df, phi_df) of X^2 / df; chi-square
    where phi_df is None (the binomial variance, known)."""
    if df <= 0:
        return 1.0
    if phi_df is None:
        return float(sps.chi2.sf(x2, df))
    return float(sps.f.sf(x2 / df, df, phi_df))


def rise95(phi_df: int | None) -> float:
    """How far a one-parameter profile of such an X^2 rises at the ends of its 95% interval:
    chi-square's 3.84 with one degree of freedom, F(1, phi_df)'s quantile where phi is
    estimated."""
    if phi_df is None:
        return float(sps.chi2.ppf(0.95, 1))
    return float(sps.f.ppf(0.95, 1, phi_df))


def trend_fits(values: Sequence[float], k: Sequence[float], n: Sequence[float]) -> list[TrendFit]:
    """The Pearson X^2 of counts k of n about logistic trends in log(values), degree 1 up."""
    t = np.log(np.asarray(values, dtype=float))
    kk, nn = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    out = []
    for degree in range(1, MAX_DEGREE + 1):
        df = len(t) - (degree + 1)
        if df < MIN_DF:
            break
        q = logistic_trend(t, kk, nn, degree)
        x2 = float((((kk - nn * q) ** 2) / (nn * q * (1 - q))).sum())
        out.append(TrendFit(degree, x2, df, float(sps.chi2.sf(x2, df))))
    return out


def series_dispersion(series: str, names: Sequence[str], values: Sequence[float],
                      k: Sequence[float], n: Sequence[float]) -> Dispersion:
    """The dispersion of counts k of n of objects `names` in their `series` values (module
    docstring). Needs MIN_OBJECTS objects and positive values (the caller checks)."""
    fits = trend_fits(values, k, n)
    if not fits:
        raise ValueError(f"a series needs at least {MIN_OBJECTS} objects, not {len(names)}")
    chosen = min(fits, key=lambda f: f.phi)
    kk, nn = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    table = _table(kk, nn)
    flat_q = np.full(len(kk), kk.sum() / nn.sum())
    curve_q = logistic_trend(np.log(np.asarray(values, dtype=float)), kk, nn, chosen.degree)
    flat = sg.deviance(table, np.stack([flat_q, 1 - flat_q], axis=1))
    curve = sg.deviance(table, np.stack([curve_q, 1 - curve_q], axis=1))
    f = max(0.0, flat - curve) / chosen.degree / max(chosen.phi, 1e-12)
    p = float(sps.f.sf(f, chosen.degree, chosen.df))
    return Dispersion(series, tuple(names), tuple(fits), chosen, f, p)
