"""Fairness statistics against hand-computed values, against scipy, and (for the power
formula and the SPRT) against Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from simulator.experiments import stats


def test_chi_square_and_g_by_hand():
    # counts 10, 20, 30 against a uniform 20 each:
    # X^2 = (100 + 0 + 100) / 20 = 10; df 2, whose tail is exp(-x/2), so p = exp(-5).
    chi = stats.chi_square([10, 20, 30])
    assert chi.statistic == pytest.approx(10.0)
    assert chi.df == 2
    assert chi.p == pytest.approx(math.exp(-5.0), rel=1e-12)
    # G = 2 (10 ln 0.5 + 20 ln 1 + 30 ln 1.5) = 10.4649...
    g = stats.g_test([10, 20, 30])
    assert g.statistic == pytest.approx(2 * (10 * math.log(0.5) + 30 * math.log(1.5)), rel=1e-12)
    assert g.statistic == pytest.approx(10.464962, abs=1e-6)
    assert g.p == pytest.approx(math.exp(-g.statistic / 2), rel=1e-12)


def test_chi_square_and_g_match_scipy():
    rng = np.random.default_rng(3)
    for k in (2, 6, 8, 10):
        counts = rng.multinomial(500, rng.dirichlet(np.ones(k) * 20))
        ours, theirs = stats.chi_square(counts), sps.chisquare(counts)
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
        assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9)
        g_ours = stats.g_test(counts)
        g_theirs = sps.power_divergence(counts, lambda_="log-likelihood")
        assert g_ours.statistic == pytest.approx(g_theirs.statistic, rel=1e-12)
        assert g_ours.p == pytest.approx(g_theirs.pvalue, rel=1e-9)
    # zero counts: the G term is 0 (the limit of x ln x)
    assert stats.g_test([0, 5, 7]).statistic == pytest.approx(
        sps.power_divergence([0, 5, 7], lambda_="log-likelihood").statistic)


def test_wilson_known_interval():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662
    # and 15/148 -> 0.0624 to 0.1605 (95%, score method without continuity correction).
    a = stats.wilson(81, 263, alpha=0.05)
    assert (round(a.low, 4), round(a.high, 4)) == (0.2553, 0.3662)
    b = stats.wilson(15, 148, alpha=0.05)
    assert (round(b.low, 4), round(b.high, 4)) == (0.0624, 0.1605)
    # 0 of 10 at 95%: [0, z^2 / (n + z^2)] = [0, 0.2775]
    c = stats.wilson(0, 10, alpha=0.05)
    assert c.low == 0.0
    assert c.high == pytest.approx(1.959964**2 / (10 + 1.959964**2), rel=1e-6)


@pytest.mark.parametrize("k,n,alpha,m", [(30, 200, 0.05, 1), (3, 40, 0.01, 8), (77, 77, 0.05, 6)])
def test_wilson_matches_scipy_with_bonferroni(k, n, alpha, m):
    ours = stats.wilson(k, n, alpha, comparisons=m)
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=1 - alpha / m, method="wilson")
    assert ours.low == pytest.approx(ci.low, abs=1e-12)
    assert ours.high == pytest.approx(ci.high, abs=1e-12)


def test_power_formula_by_hand_for_two_faces():
    # k = 2 is the two-sided test of one proportion: n ~ (z_{a/2} + z_b)^2 / (4 d^2)
    # = (1.95996 + 0.84162)^2 / 0.04 = 196.3 for d = 0.1, alpha 0.05, power 0.8.
    assert stats.throws_needed(2, 0.1, 0.05, 0.8) in (196, 197)
    # w^2 of one face moved by d on a k-sided die: d^2 k^2 / (k - 1)
    assert stats.effect_size_w2(stats.shift_alternative(8, 0.05)) == pytest.approx(0.05**2 * 64 / 7)


@pytest.mark.parametrize("shift", [0.05, 0.03, -0.03])
def test_power_formula_against_monte_carlo(shift):
    k, alpha = 8, 0.05
    n = stats.throws_needed(k, shift, alpha, power=0.8)
    rng = np.random.default_rng(2026)
    p1 = stats.shift_alternative(k, shift)
    crit = sps.chi2.isf(alpha, k - 1)
    trials = 20000

    def rejection_rate(size: int) -> float:
        counts = rng.multinomial(size, p1, size=trials)
        x2 = ((counts - size / k) ** 2 / (size / k)).sum(axis=1)
        return float((x2 > crit).mean())

    # Monte Carlo standard error sqrt(0.8 * 0.2 / 20000) = 0.003. The noncentral chi-square
    # is the large-n law of X^2 under the alternative; at these n it is off by up to ~0.035
    # (a face moved up by 0.05: 0.767 at the 628 throws it asks for; moved down: 0.83),
    # shrinking as the shift shrinks and n grows. A wrong w^2 or df misses by far more.
    assert rejection_rate(n) == pytest.approx(0.8, abs=0.04)
    assert rejection_rate(n // 2) < 0.6
    # and the inverse: the shift n throws detect is the shift asked for
    if shift > 0:
        assert stats.detectable_shift(k, n, alpha) == pytest.approx(shift, abs=2e-3)


def test_homogeneity_matches_scipy():
    a, b = [30, 25, 45, 20], [22, 31, 40, 35]
    ours = stats.homogeneity(a, b)
    chi2, p, dof, _ = sps.chi2_contingency(np.array([a, b]), correction=False)
    assert ours.statistic == pytest.approx(chi2, rel=1e-12)
    assert ours.p == pytest.approx(p, rel=1e-9)
    assert ours.df == dof
    # a face neither saw is dropped, not divided by zero
    assert stats.homogeneity([5, 0, 5], [4, 0, 6]).df == 1


def test_sprt_boundaries_and_a_stream_by_hand():
    s = stats.Sprt(1 / 8, 0.25, alpha=0.01, beta=0.05)
    assert s.upper == pytest.approx(math.log(95.0))
    assert s.lower == pytest.approx(math.log(0.05 / 0.99))
    # each hit adds ln(0.25 / 0.125) = ln 2: ln 95 / ln 2 = 6.57, so the 7th hit decides
    decisions = [s.update(True) for _ in range(7)]
    assert decisions == [None] * 6 + ["biased"]
    # each miss adds ln(0.75 / 0.875) = -0.1542: ln(0.0505) / -0.1542 = 19.4 -> 20 misses
    s2 = stats.Sprt(1 / 8, 0.25, alpha=0.01, beta=0.05)
    decisions = [s2.update(False) for _ in range(20)]
    assert decisions == [None] * 19 + ["fair"]


def test_sprt_error_rates_by_monte_carlo():
    rng = np.random.default_rng(5)
    alpha, beta = 0.05, 0.1

    def run(p: float) -> str:
        s = stats.Sprt(1 / 8, 0.2, alpha, beta)
        while True:
            verdict = s.update(bool(rng.random() < p))
            if verdict:
                return verdict

    fair = [run(1 / 8) for _ in range(1500)]
    biased = [run(0.2) for _ in range(1500)]
    # Wald's bounds: false alarm <= alpha / (1 - beta), miss <= beta / (1 - alpha), roughly
    assert fair.count("biased") / 1500 < alpha / (1 - beta) + 0.015
    assert biased.count("fair") / 1500 < beta / (1 - alpha) + 0.02


def test_series_evidence_survives_underflow():
    from simulator.experiments.plots import _neg_log10_sf

    # where scipy's log tail is finite the two agree; far out (p below 1e-308) the
    # asymptotic term takes over and keeps growing instead of turning infinite
    assert _neg_log10_sf(200.0, 7) == pytest.approx(-sps.chi2.logsf(200.0, 7) / math.log(10))
    assert _neg_log10_sf(1200.0, 7) == pytest.approx(-sps.chi2.logsf(1200.0, 7) / math.log(10),
                                                     rel=1e-4)
    far = _neg_log10_sf(7000.0, 7)
    assert math.isfinite(far) and far > _neg_log10_sf(1200.0, 7)


def test_no_memory_same_face_rate_comes_from_the_marginals():
    # Every throw starts with face 1 down (a fixed orientation) and a biased die rests on
    # face 1 60% of the time whatever happened in flight: no memory, yet a same-face rate of
    # 0.6, far from 1/8. The baseline must say 0.6, not 1/8.
    from simulator.experiments.report import _dynamics
    from simulator.experiments.store import ThrowRow

    faces = tuple(range(1, 9))
    rows = [ThrowRow(i, 1, 0.1, 1.0, 5.0, 0.01, "on_table", None, 9 - down, down, 1.0, 240)
            for i, down in enumerate([1] * 6 + [2] * 4)]
    dyn = _dynamics(rows, faces, 0.01)
    assert dyn["same_face_rate"] == pytest.approx(0.6)
    assert dyn["same_face_no_memory"] == pytest.approx(0.6)
    assert dyn["same_face_fair"] == pytest.approx(1 / 8)
    # Uniform starts: sum over f of (1/8) P(rest f) = 1/8 whatever the die does.
    rows = [ThrowRow(i, 1 + i % 8, 0.1, 1.0, 5.0, 0.01, "on_table", None, 8, 1, 1.0, 240)
            for i in range(80)]
    assert _dynamics(rows, faces, 0.01)["same_face_no_memory"] == pytest.approx(1 / 8)
