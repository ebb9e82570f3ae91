"""The steep ends of the cuboid curve (issue 36, item 2; docs/calibration.md, "What steepens
the curve"): the issue's judgement of simulated counts, and the calibration's report on the
cuboid dataset at its documented calibration."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.experiments import impacts as im
from simulator.experiments import steep
from simulator.experiments.calibrate import calibrate, load_dataset


def _measured(scale: float = 10.0) -> dict[str, tuple[int, int, int]]:
    """Counts with the measured shares, `scale` times the measured N."""
    out = {}
    for o in load_dataset(im.DATASET).objects:
        assert o.n is not None and o.published is not None
        n = int(o.n * scale)
        out[o.name] = (round(o.published["p"] * n), n, n)
    return out


def test_the_measured_shares_score_inside_everywhere_and_a_flatter_curve_does_not() -> None:
    s = steep.score(_measured())
    assert (s.inside_binomial, s.inside_phi, s.objects) == (15, 15, 15)
    assert s.mae == pytest.approx(0.0, abs=2e-4) and s.chi2 < 0.1
    assert s.ends_binomial == () and s.ends_phi == ()
    # the curve the lab's hand throw gives (issue 36's table): flatter at both ends
    flat = {name: (k, n, t) for name, (k, n, t) in _measured().items()}
    for name, p in (("c047", 0.808), ("c063", 0.694), ("c160", 0.071), ("c187", 0.031)):
        n = flat[name][1]
        flat[name] = (round(p * n), n, n)
    f = steep.score(flat)
    assert {"c047", "c160", "c187"} <= set(f.ends_binomial)
    assert f.inside_binomial <= 12 and f.mae > 0.01
    # the scatter allowance widens the measured intervals only: phi never puts fewer inside
    assert f.inside_phi >= f.inside_binomial


def test_a_perfect_model_meets_the_mae_target_only_most_of_the_time() -> None:
    # the measured counts' own scatter (phi 2.78) sets a floor under any model's MAE
    mean, lo, hi, share = steep.perfect_model_mae(1000, draws=4000)
    assert 0.015 < mean < 0.02 and lo < mean < hi and 0.6 < share < 0.9
    assert steep.perfect_model_mae(300, draws=4000)[0] > mean  # fewer throws, more noise


@pytest.mark.slow  # 15 cuboids x 300 throws at the fit, 8 again at half the step (~2-4 min)
def test_the_calibration_report_on_the_cuboids_is_not_rejected_and_has_its_ends_inside(
        tmp_path: Path) -> None:
    ds = load_dataset(im.DATASET)
    rep = calibrate(ds, tmp_path / "cal", throws=300, fit_names=(), at=dict(im.CALIBRATED),
                    seed=5)
    assert rep["values"]["throw_scale"] == pytest.approx(im.CALIBRATED["throw_scale"])
    assert not rep["fit"]["bad_fit"], rep["fit"]
    for part in ("fitted", "held-out"):
        assert rep["fresh_throws"][part]["p"] >= 0.01, rep["fresh_throws"][part]
    points = {r["object"]: r for r in rep["points"] if r["part"] in ("fitted", "held-out")}
    assert len(points) == 15
    outside = [n for n in steep.END_POINTS if not points[n]["inside"]]
    assert outside == [], outside
    assert sum(r["inside"] for r in points.values()) >= 12
    # At 300 throws the two samples' noise alone (the measured counts scatter 2.78 times as
    # much as binomial ones) makes an MAE of about 0.02 (this seed: 0.032); at 1,000 throws
    # the calibration's is 0.018 and the lab's hand throw's 0.038 (docs/calibration.md)
    assert sum(r["abs_error"] for r in points.values()) / 15 <= 0.04
