"""Statistics of die fairness, written out so each formula can be checked by hand:
goodness of fit to the uniform distribution (Pearson chi-square, G-test), Wilson score
intervals with a Bonferroni correction over faces, the power of the chi-square test
(noncentral chi-square), homogeneity of two experiments, and Wald's SPRT.

scipy supplies only distribution functions (chi-square tail, normal quantile).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


@dataclass(frozen=True)
class TestResult:
    statistic: float
    df: int
    p: float


@dataclass(frozen=True)
class Interval:
    p_hat: float
    low: float
    high: float


def chi_square(counts: Sequence[int], expected_p: Sequence[float] | None = None) -> TestResult:
    """Pearson's X^2 = sum (O - E)^2 / E against `expected_p` (uniform by default)."""
    obs = np.asarray(counts, dtype=float)
    exp = _expected(obs, expected_p)
    stat = float(((obs - exp) ** 2 / exp).sum())
    df = len(obs) - 1
    return TestResult(stat, df, float(sps.chi2.sf(stat, df)))


def g_test(counts: Sequence[int], expected_p: Sequence[float] | None = None) -> TestResult:
    """The likelihood-ratio statistic G = 2 sum O ln(O / E) (terms with O = 0 are 0)."""
    obs = np.asarray(counts, dtype=float)
    exp = _expected(obs, expected_p)
    nz = obs > 0
    stat = float(2.0 * (obs[nz] * np.log(obs[nz] / exp[nz])).sum())
    df = len(obs) - 1
    return TestResult(stat, df, float(sps.chi2.sf(stat, df)))


def wilson(successes: float, n: float, alpha: float = 0.05, comparisons: int = 1) -> Interval:
    """Wilson score interval for a proportion at level 1 - alpha, Bonferroni-corrected over
    `comparisons` intervals (each gets alpha / comparisons, two-sided)."""
    if n <= 0:
        return Interval(float("nan"), 0.0, 1.0)
    z = float(sps.norm.ppf(1.0 - alpha / (2.0 * comparisons)))
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def shift_alternative(k: int, shift: float, face_index: int = 0) -> np.ndarray:
    """Face probabilities with one face moved by `shift` from 1/k and the others sharing the
    difference evenly: the alternative the power analysis is stated for."""
    p = np.full(k, (1.0 - (1.0 / k + shift)) / (k - 1))
    p[face_index] = 1.0 / k + shift
    if (p < 0).any() or (p > 1).any():
        raise ValueError(f"a shift of {shift} leaves the probabilities outside [0, 1]")
    return p


def effect_size_w2(p1: Sequence[float] | np.ndarray, p0: Sequence[float] | None = None) -> float:
    """Cohen's w^2 = sum (p1 - p0)^2 / p0; the chi-square noncentrality is n w^2."""
    a = np.asarray(p1, dtype=float)
    b = np.full(len(a), 1.0 / len(a)) if p0 is None else np.asarray(p0, dtype=float)
    return float(((a - b) ** 2 / b).sum())


def chi_square_power(n: int, w2: float, df: int, alpha: float) -> float:
    """Power of the chi-square test with n throws against an alternative of effect w^2."""
    crit = sps.chi2.isf(alpha, df)
    return float(sps.ncx2.sf(crit, df, n * w2))


def throws_needed(k: int, shift: float, alpha: float, power: float = 0.8) -> int:
    """Smallest number of (on-table) throws at which the chi-square test at `alpha` detects
    one face moved by `shift` (see shift_alternative) with at least `power`."""
    w2 = effect_size_w2(shift_alternative(k, shift))
    df = k - 1
    if w2 <= 0:
        raise ValueError("the shift must not be zero")
    lo, hi = 1, 2
    while chi_square_power(hi, w2, df, alpha) < power:
        lo, hi = hi, hi * 2
        if hi > 10**12:
            raise ValueError("the shift is too small to detect")
    while lo < hi:  # power grows with n: bisect for the first n that reaches it
        mid = (lo + hi) // 2
        if chi_square_power(mid, w2, df, alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


def detectable_shift(k: int, n: int, alpha: float, power: float = 0.8) -> float:
    """The smallest one-face shift that n throws detect with `power` (inverse of the above)."""
    if n <= 0:
        return float("nan")
    crit = sps.chi2.isf(alpha, k - 1)
    lo, hi = 0.0, 1.0 - 1.0 / k
    for _ in range(60):
        mid = (lo + hi) / 2
        w2 = effect_size_w2(shift_alternative(k, mid))
        if sps.ncx2.sf(crit, k - 1, n * w2) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def homogeneity(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Pearson chi-square test that two count vectors come from one distribution (a 2 x k
    contingency table; faces seen in neither are dropped)."""
    table = np.array([a, b], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    rows = table.sum(axis=1, keepdims=True)
    cols = table.sum(axis=0, keepdims=True)
    exp = rows * cols / table.sum()
    stat = float(((table - exp) ** 2 / exp).sum())
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    return TestResult(stat, df, float(sps.chi2.sf(stat, df)) if df > 0 else 1.0)


class Sprt:
    """Wald's sequential probability ratio test of H0 p = p0 against H1 p = p1 for one face
    (a Bernoulli stream: this face or another). Accept H1 (biased) when the log likelihood
    ratio reaches ln((1 - beta) / alpha), H0 (fair) when it falls to ln(beta / (1 - alpha))."""

    def __init__(self, p0: float, p1: float, alpha: float, beta: float) -> None:
        self.p0, self.p1 = p0, p1
        self.upper = math.log((1 - beta) / alpha)
        self.lower = math.log(beta / (1 - alpha))
        self.hit = math.log(p1 / p0)
        self.miss = math.log((1 - p1) / (1 - p0))
        self.llr = 0.0
        self.n = 0

    def update(self, is_face: bool) -> str | None:
        """Add one observation; 'biased', 'fair', or None while undecided."""
        self.n += 1
        self.llr += self.hit if is_face else self.miss
        if self.llr >= self.upper:
            return "biased"
        if self.llr <= self.lower:
            return "fair"
        return None


def _expected(obs: np.ndarray, expected_p: Sequence[float] | None) -> np.ndarray:
    n = obs.sum()
    if expected_p is None:
        return np.full(len(obs), n / len(obs))
    p = np.asarray(expected_p, dtype=float)
    return n * p / p.sum()
