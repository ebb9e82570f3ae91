"""The lab on the shipped experiments at their shipped throw counts: the tampering
series' 20% centre-of-mass offset (1000 throws) is flagged at alpha 0.01, and neither the
series' balanced die (tamper-00, 1000) nor fair-paper-d8 (2000) is; the report's JSON,
plots, the comparison and the series plot.

Why 1000 throws is enough (the report's power analysis): about 93% land flat, and a 20%
offset moves side 6 from 1/8 to about 0.28 and side 1 to about 0.05 (w^2 ~ 0.3), which
the chi-square test at alpha 0.01 detects with power 0.8 in under 100 on-table throws;
930 give power ~1. The balanced die is one fixed sample (seed 1): at alpha 0.01 a fair
die is flagged by chance with probability 0.01, and these samples are not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.cli.main import main
from simulator.experiments import load_experiment, run_experiment
from simulator.experiments import stats as st

# The shipped experiments are run once for the module (4000 throws): every test is slow.
pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parent.parent / "benchmarks" / "experiments"


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    out = {}
    for name in ("tamper-00", "tamper-20", "fair-paper-d8"):
        exp = load_experiment(EXAMPLES / f"{name}.yaml")
        assert exp.throws == (2000 if name == "fair-paper-d8" else 1000)  # the shipped counts
        d = tmp_path_factory.mktemp(name)
        run_experiment(exp, d, progress=False)
        out[name] = d
    return out


def report_json(capsys, d: Path, *extra: str) -> dict:
    assert main(["fairness", "report", str(d), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_tampered_die_is_flagged_and_fair_die_is_not(series, capsys):
    tampered = report_json(capsys, series["tamper-20"], "--no-plots")
    fair = report_json(capsys, series["tamper-00"], "--no-plots")
    fair_d8 = report_json(capsys, series["fair-paper-d8"], "--no-plots")
    assert fair_d8["throws"] == 2000
    assert fair_d8["verdict"] == "no evidence of bias" and fair_d8["chi2_p"] >= 0.01
    assert tampered["alpha"] == fair["alpha"] == 0.01
    assert tampered["verdict"] == "biased" and tampered["chi2_p"] < 0.01 and tampered["g_p"] < 0.01
    assert fair["verdict"] == "no evidence of bias" and fair["chi2_p"] >= 0.01
    # the bias is the expected one: side 1 is heavy, so it ends down and side 6 (opposite) up
    faces = {f["face"]: f for f in tampered["faces"]}
    assert faces[6]["ci_low"] > 1 / 8 and faces[1]["ci_high"] < 1 / 8
    # and the shipped count has the power the docstring claims
    p_hat = [faces[f]["p_hat"] for f in sorted(faces)]
    assert st.chi_square_power(tampered["on_table"], st.effect_size_w2(p_hat), 7, 0.01) > 0.99


def test_report_json_and_plots(series, capsys):
    rep = report_json(capsys, series["tamper-20"])
    for key in ("throws", "counts", "chi2", "chi2_p", "g", "g_p", "faces", "verdict", "power",
                "outcomes", "dynamics"):
        assert key in rep
    assert rep["throws"] == 1000
    assert sum(rep["counts"].values()) == rep["on_table"] == rep["outcome_counts"]["on_table"]
    assert sum(rep["outcome_counts"].values()) == 1000
    for f in rep["faces"]:
        assert f["ci_low"] <= f["p_hat"] <= f["ci_high"]
        assert f["p_hat"] == pytest.approx(rep["counts"][str(f["face"])] / rep["on_table"])
    assert rep["power"]["throws_needed"] == st.throws_needed(8, 1 / 32, 0.01)
    matrix = rep["dynamics"]["initial_down_to_final_up"]
    assert sum(map(sum, matrix)) == rep["on_table"]
    assert sum(b["throws"] for b in rep["dynamics"]["same_face_by_energy"]) == rep["on_table"]
    for p in rep["plots"]:
        data = Path(p).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_text_report_compare_and_series(series, capsys, tmp_path):
    assert main(["fairness", "report", str(series["tamper-00"]), "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert "Pearson chi-square" in text and "verdict at alpha 0.01: no evidence of bias" in text
    assert main(["fairness", "compare", str(series["tamper-00"]), str(series["tamper-20"]),
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == "different" and res["p"] < 1e-6 and res["df"] == 7
    assert main(["fairness", "compare", str(series["tamper-00"]), str(series["tamper-00"]),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p"] == pytest.approx(1.0)
    png = tmp_path / "series.png"
    assert main(["fairness", "series", str(series["tamper-20"]), str(series["tamper-00"]),
                 "--png", str(png)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "0" and "biased" in lines[1]
    assert png.read_bytes()[:4] == b"\x89PNG"
