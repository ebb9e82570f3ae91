"""From measurements (and a baseline's measurements) to checks: each a name, the measured
value, the baseline's value, the tolerance, pass or fail, and one line of why."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from simulator.bench.measure import (
    ENERGY_TOL,
    HEIGHT_TOL,
    REST_MOVE_TOL,
    REST_TURN_TOL,
)
from simulator.bench.suite import SuiteSpec

SPEED_RATIO_FLOOR = 0.7  # a run may be this share of the baseline's speed ratio, not less
STEPS_TOL = 0.10  # relative change of mean steps to rest
MEMORY_FACTOR, MEMORY_SLACK_MB = 1.5, 20.0
RARE = 10  # categories seen fewer times than this over both samples are pooled for the test


@dataclass(frozen=True)
class Check:
    name: str
    value: Any
    baseline: Any
    tolerance: str
    passed: bool | None  # None: a figure reported for information, never a failure
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": _plain(self.value), "baseline": _plain(self.baseline),
                "tolerance": self.tolerance, "passed": self.passed, "why": self.why}


def make_checks(spec: SuiteSpec, run: dict[str, Any], base: dict[str, Any] | None,
                fp_diff: list[str]) -> list[Check]:
    """All checks for the measured groups; `base` is the baseline's measurements (None when
    recording a baseline), `fp_diff` the fingerprint keys that differ from the baseline's."""
    m = run["measurements"]
    bm = base["measurements"] if base is not None else None
    checks: list[Check] = []
    if "golden" in m:
        checks.append(golden_check(spec, run, base, fp_diff))
    if "drift" in m and "drift" in run["groups"]:
        checks.extend(drift_checks(spec, m["drift"], bm["drift"] if bm else None))
    if "convergence" in m:
        checks.extend(convergence_checks(spec, m["convergence"],
                                         bm.get("convergence") if bm else None))
    if "sanity" in m:
        checks.extend(sanity_checks(m["sanity"], m.get("drift", {}), m.get("convergence", {})))
    if "speed" in m:
        checks.extend(speed_checks(m, bm))
    return checks


def passed(checks: list[Check]) -> bool:
    return all(c.passed is not False for c in checks)


# -- golden -------------------------------------------------------------------------------


def golden_check(spec: SuiteSpec, run: dict[str, Any], base: dict[str, Any] | None,
                 fp_diff: list[str]) -> Check:
    results = run["measurements"]["golden"]
    n = len(results)
    if base is None:
        return Check("golden.throws", f"{n} cases", None, "-", None, "recorded, nothing to compare")
    if base.get("golden_cases") is None:  # run.py found the definitions differ
        return Check("golden.throws", f"{n} cases", f"{len(base['measurements']['golden'])} cases",
                     "same case definitions", False,
                     "the suite's golden cases differ from the baseline's: record a new baseline")
    old = base["measurements"]["golden"]
    if not fp_diff:
        diffs = [d for d in (_case_diff(a, b) for a, b in zip(old, results, strict=True)) if d]
        why = (f"all {n} cases identical to the bit" if not diffs else
               f"{len(diffs)} of {n} cases differ; first: {diffs[0]}")
        return Check("golden.throws", f"{n - len(diffs)}/{n} identical", f"{n} cases",
                     "exact (same fingerprint)", not diffs, why)
    # Different versions, platform or time step: the same throw may land elsewhere, so ask
    # only whether the cases end in the same mix of states and spread over the table alike.
    p_status = homogeneity([_status_counts(old), _status_counts(results)])
    p_where = _ks([_distances(old), _distances(results)])
    p = min(p_status, p_where)
    floor = spec.alpha / 2
    same = sum(_case_diff(a, b) is None for a, b in zip(old, results, strict=True))
    return Check("golden.throws", p, f"{n} cases", f"p >= {floor:g} (fingerprint "
                 f"differs: {', '.join(fp_diff)})", p >= floor,
                 f"statistical: statuses p={p_status:.3f}, resting distance from centre "
                 f"p={p_where:.3f}; {same}/{n} cases still identical")


def _case_diff(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    name = new["case"]
    if old.get("error") != new.get("error"):
        return f"{name}: error {old.get('error')!r} -> {new.get('error')!r}"
    before = {d["die"]: d for d in old["dice"]}
    after = {d["die"]: d for d in new["dice"]}
    if sorted(before) != sorted(after):
        return f"{name}: dice {sorted(before)} -> {sorted(after)}"
    for die in sorted(after):
        a, b = before[die], after[die]
        if (a["status"], a["reason"]) != (b["status"], b["reason"]):
            return (f"{name}: die {die} {a['status']}/{a['reason']} -> "
                    f"{b['status']}/{b['reason']}")
        if a["face"] != b["face"]:
            return f"{name}: die {die} face {a['face']} -> {b['face']}"
        if a["position"] != b["position"]:
            moved = float(np.linalg.norm(np.subtract(a["position"], b["position"])))
            return f"{name}: die {die} rests {moved * 1000:.3g} mm from its baseline position"
    return None


def _status_counts(results: list[dict[str, Any]]) -> dict[str, int]:
    c: Counter[str] = Counter()
    for r in results:
        if r.get("error"):
            c["error"] += 1
        for d in r["dice"]:
            c[d["reason"] or d["status"]] += 1
    return dict(c)


def _distances(results: list[dict[str, Any]]) -> list[float]:
    return [math.hypot(d["position"][0], d["position"][1]) for r in results for d in r["dice"]]


# -- distributions ------------------------------------------------------------------------


def drift_checks(spec: SuiteSpec, now: dict[str, Any], base: dict[str, Any] | None) -> list[Check]:
    out = []
    floor = spec.alpha / max(1, len(now))
    for key, dist in now.items():
        name = f"drift.{key}"
        if base is None:
            out.append(Check(name, f"n={dist['throws']}", None, "-", None, "recorded"))
            continue
        old = base[key]
        p = homogeneity([old["counts"], dist["counts"]])
        out.append(Check(name, p, f"n={old['throws']}", f"p >= {floor:.4g}", p >= floor,
                         _largest_shift(old["counts"], dist["counts"])))
    return out


def convergence_checks(spec: SuiteSpec, now: dict[str, Any],
                       base: dict[str, Any] | None) -> list[Check]:
    out = []
    floor = spec.alpha / max(1, len(now))
    for key, runs in now.items():
        labels = list(runs)
        p_all = homogeneity([runs[k]["counts"] for k in labels])
        ref = runs[labels[0]]["counts"]
        pair = ", ".join(f"{k}: p={homogeneity([ref, runs[k]['counts']]):.3f}" for k in labels[1:])
        old = None
        if base is not None and key in base:
            old = homogeneity([base[key][k]["counts"] for k in base[key]])
        why = (f"{labels[0]} vs {pair}" if p_all >= floor else
               f"time step or iterations change outcomes ({_largest_spread(runs)}); vs {labels[0]}: {pair}")
        out.append(Check(f"convergence.{key}", p_all, old, f"p >= {floor:.4g}",
                         p_all >= floor, why))
    return out


def homogeneity(samples: list[dict[str, int]]) -> float:
    """p-value of a chi-square test that the samples share one category distribution.
    Rare categories are pooled; identical samples or a single category give 1.0."""
    cats = sorted({k for s in samples for k in s})
    table = np.array([[s.get(k, 0) for k in cats] for s in samples], dtype=float)
    common = table.sum(axis=0) >= RARE
    pooled = table[:, ~common].sum(axis=1, keepdims=True)
    table = np.hstack([table[:, common], pooled]) if (~common).any() else table[:, common]
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table == table[0]).all():
        return 1.0
    return float(stats.chi2_contingency(table, correction=False)[1])


def _ks(samples: list[list[float]]) -> float:
    a, b = samples
    if not a or not b or sorted(a) == sorted(b):
        return 1.0
    return float(stats.ks_2samp(a, b).pvalue)


def _share(counts: dict[str, int]) -> dict[str, float]:
    n = sum(counts.values()) or 1
    return {k: v / n for k, v in counts.items()}


def _largest_shift(old: dict[str, int], new: dict[str, int]) -> str:
    a, b = _share(old), _share(new)
    if a == b:
        return "same counts as the baseline"
    k = max(set(a) | set(b), key=lambda c: abs(b.get(c, 0.0) - a.get(c, 0.0)))
    return f"largest shift: {_cat(k)} {a.get(k, 0.0):.1%} -> {b.get(k, 0.0):.1%}"


def _largest_spread(runs: dict[str, Any]) -> str:
    shares = {lab: _share(r["counts"]) for lab, r in runs.items()}
    cats = {c for s in shares.values() for c in s}
    k = max(cats, key=lambda c: max(s.get(c, 0) for s in shares.values())
            - min(s.get(c, 0) for s in shares.values()))
    return f"{_cat(k)}: " + ", ".join(f"{lab} {s.get(k, 0.0):.1%}" for lab, s in shares.items())


def _cat(k: str) -> str:
    return f"face {k}" if k.isdigit() else k


# -- sanity -------------------------------------------------------------------------------


def sanity_checks(s: dict[str, Any], drift: dict[str, Any], conv: dict[str, Any]) -> list[Check]:
    out = []
    h = s["resting_height_error_m"]
    worst = max(h, key=h.get)
    out.append(Check("sanity.resting_height", f"{h[worst] * 1000:.3f} mm", None,
                     f"<= {HEIGHT_TOL * 1000:g} mm", h[worst] <= HEIGHT_TOL,
                     f"largest |centre height - face distance| at rest: {worst}"))
    e = s["free_flight_energy_gain"]
    worst = max(e, key=e.get)
    out.append(Check("sanity.free_flight_energy", f"{e[worst]:+.2e}", None, f"gain <= {ENERGY_TOL:g} "
                     "of launch KE", e[worst] <= ENERGY_TOL,
                     f"largest energy change in {FREE_FLIGHT_TEXT}: {worst} (negative: lost)"))
    t = s["tunnelling"]
    throws = {d: {k: v for k, v in r.items() if k != "lowest_failing_speed"} for d, r in t.items()}
    bad = [f"{d} {k}: {v}" for d, r in throws.items() for k, v in r.items()
           if v == "through" or "Error" in v]
    total = sum(len(r) for r in throws.values())
    onset = {d: r.get("lowest_failing_speed") for d, r in t.items()}
    failing = {d: v for d, v in onset.items() if v is not None}
    onset_text = ("; fails straight down from " + ", ".join(
        f"{d} {v:g} m/s" for d, v in sorted(failing.items(), key=lambda kv: kv[1])) if failing
        else "")
    out.append(Check("sanity.tunnelling", f"{len(bad)}/{total} bad", None, "0 through the table",
                     not bad, (bad[0] if bad else "every die at 50 m/s stayed on or beside the "
                               "table") + onset_text))
    r = s["rest_stays"]
    move = max(v["max_move_m"] for v in r.values())
    turn = max(v["max_turn_deg"] for v in r.values())
    worst = max(r, key=lambda d: r[d]["max_move_m"] / REST_MOVE_TOL + r[d]["max_turn_deg"] / REST_TURN_TOL)
    err = next((f"{d}: {v['error']}" for d, v in r.items() if v.get("error")), None)
    out.append(Check("sanity.rest_stays", f"{move * 1000:.3g} mm, {turn:.3g} deg", None,
                     f"<= {REST_MOVE_TOL * 1000:g} mm, <= {REST_TURN_TOL:g} deg",
                     move <= REST_MOVE_TOL and turn <= REST_TURN_TOL,
                     err or f"dice placed on every face, held 1 s while a die is dropped; "
                     f"worst {worst}"))
    # The drift throws are single dice on an empty table: nothing to lean on, so a die at
    # rest tilted ("leaning") is balanced on an edge, which a real die never is.
    alone = {k: d["counts"].get("leaning", 0) / d["throws"] for k, d in drift.items() if d["throws"]}
    cocked = sum(d["counts"].get("leaning", 0) for d in drift.values())
    worst_alone = sorted(((v, k) for k, v in alone.items() if v), reverse=True)[:3]
    out.append(Check("sanity.cocked_alone", f"{cocked}/{sum(d['throws'] for d in drift.values())}",
                     None, "reported", None,
                     ("dice at rest tilted on an empty table: " + ", ".join(
                         f"{k} {v:.1%}" for v, k in worst_alone)) if worst_alone else
                     "every die alone on the table came to rest flat"))
    errors = [(k, d) for k, d in drift.items() if d["error_count"]]
    errors += [(f"{k} {lab}", d) for k, runs in conv.items() for lab, d in runs.items()
               if d["error_count"]]
    n_err = sum(d["error_count"] for _k, d in errors)
    out.append(Check("sanity.physics_errors", n_err, None, "reported", None,
                     f"{errors[0][0]} {errors[0][1]['errors'][0]}" if errors else
                     "no throw raised a PhysicsError"))
    return out


FREE_FLIGHT_TEXT = "0.5 s of spinning free flight"


# -- speed --------------------------------------------------------------------------------


def speed_checks(m: dict[str, Any], bm: dict[str, Any] | None) -> list[Check]:
    sp = m["speed"]
    old = bm["speed"] if bm else None
    out = []
    ratio = sp["ratio"]
    if old is None:
        out.append(Check("speed.ratio", round(ratio, 3), None, "-", None, "recorded"))
    else:
        floor = SPEED_RATIO_FLOOR * old["ratio"]
        out.append(Check("speed.ratio", round(ratio, 3), round(old["ratio"], 3),
                         f">= {SPEED_RATIO_FLOOR:g} x baseline", ratio >= floor,
                         f"World {sp['world_throws_per_s']:.0f} throws/s vs bare PyBullet "
                         f"{sp['bare_throws_per_s']:.0f} throws/s, same run"))
    steps = _mean_steps(m["drift"])
    if old is None or bm is None:
        out.append(Check("speed.steps_to_settle", round(steps, 1), None, "-", None, "recorded"))
    else:
        was = _mean_steps(bm["drift"])
        change = steps / was - 1 if was else 0.0
        out.append(Check("speed.steps_to_settle", round(steps, 1), round(was, 1),
                         f"within +-{STEPS_TOL:.0%}", abs(change) <= STEPS_TOL,
                         f"mean physics steps to rest over the drift throws ({change:+.1%})"))
    mem = sp["peak_extra_memory_mb"]
    if old is None:
        out.append(Check("speed.peak_memory", f"{mem:.1f} MB", None, "-", None, "recorded"))
    else:
        cap = MEMORY_FACTOR * old["peak_extra_memory_mb"] + MEMORY_SLACK_MB
        out.append(Check("speed.peak_memory", f"{mem:.1f} MB", f"{old['peak_extra_memory_mb']:.1f} MB",
                         f"<= {MEMORY_FACTOR:g} x baseline + {MEMORY_SLACK_MB:g} MB", mem <= cap,
                         f"peak resident memory added while throwing {sp['throws']} times"))
    return out


def _mean_steps(drift: dict[str, Any]) -> float:
    total = sum(d["mean_steps"] * (d["throws"] - d["error_count"]) for d in drift.values())
    n = sum(d["throws"] - d["error_count"] for d in drift.values())
    return total / n if n else 0.0


def _plain(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v
