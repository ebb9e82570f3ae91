"""The measured counts' scatter about a smooth trend (issue 13, item 4): estimated from the
counts alone, about 1 for binomial counts and about the true factor for counts that vary more,
and applied by the calibration as counts weighed at N / phi."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats as sps

from dice_models import DataError
from simulator.cli.main import main
from simulator.experiments import calibrate as cal
from simulator.experiments.dispersion import rise95, series_dispersion, trend_fits, x2_p
from simulator.experiments.stats import homogeneity, wilson

DATASETS = Path(__file__).resolve().parent.parent / "dice_models" / "datasets"
MARKED = {f: "synthetic: the test's own model" for f in cal.MARKED}


def _series(seed: int, phi: float, objects: int = 30, n: int = 600):
    """Counts of `objects` objects along a smooth logistic trend in log x; beta-binomial with
    dispersion factor `phi` (1 + (n - 1) rho), binomial at phi 1."""
    rng = np.random.default_rng(seed)
    x = np.exp(np.linspace(-0.7, 0.9, objects))
    p = 1 / (1 + np.exp(-(0.4 - 3.0 * np.log(x))))
    if phi > 1:
        rho = (phi - 1) / (n - 1)
        a = p * (1 / rho - 1)
        p = rng.beta(a, (1 - p) * (1 / rho - 1))
    k = rng.binomial(n, p)
    return x, k, np.full(objects, n)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_binomial_counts_show_no_dispersion(seed):
    x, k, n = _series(seed, 1.0)
    d = series_dispersion("x", [f"o{i}" for i in range(len(x))], x, k, n)
    assert d.phi <= 1.5
    assert [f.degree for f in d.fits] == [1, 2, 3, 4]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counts_that_vary_four_times_as_much_are_measured_as_such(seed):
    x, k, n = _series(seed, 4.0)
    d = series_dispersion("x", [f"o{i}" for i in range(len(x))], x, k, n)
    assert 2.3 <= d.phi <= 6.0
    assert d.chosen.phi == min(f.phi for f in d.fits)


def test_an_estimated_dispersion_is_judged_by_f_and_a_known_one_by_chi_square():
    """phi from 10 df is itself uncertain: X^2 / k against F(k, 10), profiles rise F(1, 10)."""
    assert x2_p(17.34, 5, None) == pytest.approx(sps.chi2.sf(17.34, 5))
    assert x2_p(17.34, 5, 10) == pytest.approx(sps.f.sf(17.34 / 5, 5, 10))
    assert x2_p(17.34, 5, None) < 0.01 < x2_p(17.34, 5, 10)  # the cuboids' 2,000-throw X^2
    assert rise95(None) == pytest.approx(3.8415, abs=1e-4)
    assert rise95(10) == pytest.approx(4.9646, abs=1e-4)
    assert x2_p(3.0, 0, 10) == 1.0


def test_a_trend_leaves_at_least_two_degrees_of_freedom():
    x, k, n = _series(1, 1.0, objects=5)
    assert [(f.degree, f.df) for f in trend_fits(x, k, n)] == [(1, 3), (2, 2)]


def test_the_steel_cuboids_scatter_about_every_smooth_trend_beyond_binomial_counts():
    """Table 1's 15 shares against logistic trends in log x/y of degree 1-4: each is
    rejected at 0.01; the least scatter is the quartic's, X^2 27.76 on 10 df."""
    ds = cal.load_dataset(DATASETS / "budden_square_cuboids.yaml")
    d = ds.dispersion
    assert d is not None and d.series == "x_over_y" and len(d.objects) == 15
    assert all(f.p < 0.01 for f in d.fits)
    assert d.chosen.degree == 4 and d.chosen.df == 10
    assert d.chosen.chi2 == pytest.approx(27.76, abs=0.01)
    assert d.phi == pytest.approx(2.776, abs=0.001) and d.df == 10
    assert all(o.dispersion == d.phi for o in ds.objects)
    assert all(o.dispersion == 1.0 for o in ds.binomial().objects)
    # the cylinders name no series: their counts (none) stay as they are
    assert cal.load_dataset(DATASETS / "dicephysics_cylinders_glass.yaml").dispersion is None


def test_counts_shuffled_across_the_series_carry_no_trend_and_get_no_dispersion(tmp_path):
    """Table 1's counts dealt to the wrong cuboids scatter about any trend by a hundred times
    the binomial variance; weighing them by that would let any model pass, so phi stays 1."""
    raw = yaml.safe_load((DATASETS / "budden_square_cuboids.yaml").read_text())
    real = cal.parse_dataset(raw, "real.yaml").dispersion
    assert real.trend and real.trend_p < 1e-6
    assert real.trend_level == pytest.approx(0.001 / 4)  # over the 4 trends tried
    rng = np.random.default_rng(0)
    for _ in range(5):
        props = [o["proportion"] for o in raw["objects"]]
        order = rng.permutation(len(props))
        for o, i in zip(raw["objects"], order, strict=True):
            o["proportion"] = props[i]
        d = cal.parse_dataset(raw, "shuffled.yaml").dispersion
        assert d.chosen.phi > 50 and not d.trend
        assert d.phi == 1.0
        assert all(o.dispersion == 1.0 for o in cal.parse_dataset(raw, "shuffled.yaml").objects)
        assert "not applied: no trend in x_over_y" in cal._dispersion_line(
            {**d.to_json(), "applied": True})


def test_the_tests_weigh_the_measured_counts_at_n_over_phi():
    ds = cal.load_dataset(DATASETS / "budden_square_cuboids.yaml")
    o = ds.objects[2]  # c075: 438 of 799
    sim = cal.SimCounts((180, 120), 0, 0)
    x2, df = cal.chi_square([o], [sim])
    assert (x2, df) == (pytest.approx(homogeneity([438 / o.dispersion, 361 / o.dispersion],
                                                  [180, 120]).statistic), 1)
    assert x2 < cal.chi_square([o], [sim], binomial=True)[0]
    row = cal._points(o, sim, "fitted", "pair + throw")[0]
    narrow = wilson(438, 799)
    assert row["measured_ci"][0] < narrow.low and row["measured_ci"][1] > narrow.high
    assert row["measured_ci"] == [pytest.approx(wilson(438 / o.dispersion, 799 / o.dispersion).low),
                                  pytest.approx(wilson(438 / o.dispersion, 799 / o.dispersion).high)]


def series_dataset(shares=(0.92, 0.80, 0.62, 0.58, 0.30, 0.22, 0.05, 0.04), n=1000) -> dict:
    """Eight slabs of a series in x_over_y whose shares fall steeply and wander about any
    smooth trend."""
    xs = (0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 1.8)
    objs = []
    for x, p in zip(xs, shares, strict=True):
        k = round(p * n)
        objs.append({"name": f"s{round(x * 100):03d}",
                     "geometry": {"kind": "cuboid", "sides": [0.016, 0.016, round(0.016 * x, 6)]},
                     "counts": {"square": k, "other": n - k},
                     "as_published": {"x_over_y": x},
                     "where_read": "tests/test_dispersion.py"})
    return {"name": "series", "source": {"citation": "tests/test_dispersion.py",
                                         "where_read": "made up for the test"},
            "dispersion": {"series": "x_over_y"},
            "defaults": {"values": [2, 5, 3, 4, 1, 6],
                         "outcomes": {"square": [1, 6], "other": [2, 3, 4, 5]},
                         "mass": 0.006, "mass_model": "solid", "material": "plastic",
                         "surface": "hardwood", "stated": dict(MARKED),
                         "throw": {"as_described": "dropped",
                                   "model": {"height": [0.05, 0.1], "speed": [0.3, 0.6]}}},
            "objects": objs}


@pytest.mark.slow  # two small surrogate fits (about 10 s)
def test_the_command_reports_and_applies_the_dispersion_and_binomial_turns_it_off(tmp_path, capsys):
    """The surrogate fit, the fresh throws and the validation dataset all weigh the counts
    by phi and judge by F; --binomial turns all of it off."""
    path = tmp_path / "series.yaml"
    path.write_text(yaml.safe_dump(series_dataset(), sort_keys=False))
    d = cal.load_dataset(path).dispersion
    phi, phi_df = d.phi, d.df
    assert phi > 3 and phi_df
    reps = {}
    for extra, applied in (([], True), (["--binomial"], False)):
        out = tmp_path / ("bin" if extra else "phi")
        main(["fairness", "calibrate", str(path), "--out", str(out), "--throws", "10",
              "--fit", "throw_scale", "--design", "6", "--stages", "1", "--validate", str(path),
              "--holdout", "s060,s080,s100,s150", "--quiet", *extra])
        text = capsys.readouterr().out
        assert "dispersion: the 8 measured shares scatter about smooth trends in log x_over_y" in text
        rep = reps[applied] = json.loads((out / "report.json").read_text())
        assert rep["dispersion"]["applied"] is applied
        assert rep["dispersion"]["phi"] == pytest.approx(phi)
        weighed = [r["dispersion"] for r in rep["points"]]
        assert weighed == [pytest.approx(phi if applied else 1.0)] * 16  # validation too
        f = rep["fit"]
        assert f["phi_df"] == (phi_df if applied else None)
        assert f["p"] == pytest.approx(x2_p(f["chi2"], f["df"], f["phi_df"]))
        for part in ("fitted", "held-out", "validation: series"):
            x = rep["fresh_throws"][part]
            assert x["p"] == pytest.approx(x2_p(x["chi2"], x["df"], x["phi_df"]))
            assert x["p_binomial"] == pytest.approx(sps.chi2.sf(x["chi2_binomial"], x["df"]))
            if applied:
                assert x["chi2"] < x["chi2_binomial"] and x["phi_df"] == phi_df
            else:
                assert x["chi2"] == pytest.approx(x["chi2_binomial"]) and x["phi_df"] is None
        if applied:
            assert f"the measured counts weigh as N / {phi:.2f}" in text
            assert f"(X^2/df against F({f['df']}, {phi_df}))" in text
            assert "(as binomial counts: X^2" in text
            md = (out / "report.md").read_text()
            assert "| trend degree | X^2 | df | X^2 / df | p (binomial) |" in md
            assert f"(rise {rise95(phi_df):.2f})" in rep["uncertainty_method"]
        else:
            assert "not applied (--binomial)" in text
            assert "(rise 3.84)" in rep["uncertainty_method"]
    # the surrogate saw the weighed counts: its X^2 at its estimate is the smaller
    assert reps[True]["fit"]["chi2"] < reps[False]["fit"]["chi2"]


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(dispersion={"serie": "x_over_y"}),
     r"series\.yaml: dispersion\.serie: unknown field; did you mean series\?"),
    (lambda d: d.update(dispersion="x_over_y"), r"series\.yaml: dispersion: must be \{series"),
    (lambda d: d["objects"][4].pop("as_published"),
     r"series\.yaml: objects\[4\] \(s100\)\.as_published\.x_over_y: must be a positive number"),
    (lambda d: d["objects"][3]["as_published"].update(x_over_y=-0.8),
     r"objects\[3\] \(s080\)\.as_published\.x_over_y: must be a positive number"),
    (lambda d: d.update(objects=d["objects"][:3]),
     r"series\.yaml: dispersion: a series needs at least 4 objects with counts, not 3"),
    (lambda d: [o["as_published"].update(x_over_y=0.5 + 0.1 * (i % 3))
                for i, o in enumerate(d["objects"])],
     r"series\.yaml: dispersion\.series: needs at least 4 different values of x_over_y"),
    (lambda d: d["defaults"].update(outcomes={"one": [1], "six": [6], "other": [2, 3, 4, 5]})
     or [o.update(counts={"one": 400, "six": 400, "other": 200}) for o in d["objects"]],
     r"objects\[0\] \(s050\)\.outcomes: a dataset with a dispersion series needs two outcome "
     r"groups"),
])
def test_a_bad_dispersion_series_is_one_line_and_exit_status_2(tmp_path, capsys, change, message):
    d = series_dataset()
    change(d)
    path = tmp_path / "series.yaml"
    path.write_text(yaml.safe_dump(d, sort_keys=False))
    with pytest.raises(DataError, match=message):
        cal.load_dataset(path)
    assert main(["fairness", "calibrate", str(path), "--out", str(tmp_path / "o"),
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("as_published" in err[0] or "dispersion" in err[0])
    assert not (tmp_path / "o").exists()
