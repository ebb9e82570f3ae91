"""Running a suite and reading baselines. A baseline is simply a run's JSON record (format
FORMAT); `tabletop bench baseline` writes one, `tabletop bench run` compares against one."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

import simulator
from dice_models import DataError
from dice_models.errors import is_finite_number
from dice_models.files import parse_json, read_text
from dice_models.outfiles import ensure_dir, write_text
from simulator.bench.compare import Check, make_checks, passed
from simulator.bench.measure import measure_all
from simulator.bench.suite import GROUPS, golden_cases, make_env, suite_by_name

FORMAT = "tabletop-bench/1"
BASELINE_DIR = Path("benchmarks") / "baselines"


def run_suite(suite: str, overrides: list[str] | None = None, groups: list[str] | None = None,
              baseline: Path | None = None, engine: str = "pybullet") -> tuple[dict[str, Any], list[Check]]:
    """Measure on `engine`, compare against `baseline` (a path; None records without
    comparing) and return the JSON record with its checks. User errors raise DataError
    before any work."""
    spec = suite_by_name(suite)
    env = make_env(overrides, engine)
    chosen = sorted(groups or GROUPS, key=GROUPS.index)
    base = load_baseline(baseline, spec.name, chosen) if baseline is not None else None
    cases = golden_cases(spec) if "golden" in chosen else []
    t0 = time.perf_counter()
    measurements = measure_all(env, spec, chosen, cases)
    record: dict[str, Any] = {
        "format": FORMAT,
        "suite": spec.name,
        "created_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "fingerprint": env.fingerprint(),
        "overrides": env.overrides,
        "groups": chosen,
        "golden_cases": [c.to_json() for c in cases],
        "measurements": measurements,
    }
    record = json.loads(json.dumps(record, allow_nan=True))  # exactly what a file would hold
    fp_diff = fingerprint_diff(base["fingerprint"], record["fingerprint"]) if base else []
    if base is not None and "golden" in chosen and not _same_cases(base["golden_cases"],
                                                                    record["golden_cases"]):
        base = {**base, "golden_cases": None}  # reported by the golden check
    elif base is not None:
        base = {**base, "golden_cases": record["golden_cases"]}
    checks = make_checks(spec, record, base, fp_diff)
    record["elapsed_s"] = round(time.perf_counter() - t0, 1)
    record["checks"] = [c.to_json() for c in checks]
    record["passed"] = passed(checks)
    record["baseline"] = None if base is None else {
        "path": str(baseline), "created_utc": base.get("created_utc"),
        "fingerprint": base["fingerprint"], "fingerprint_differs": fp_diff,
        "overrides": base.get("overrides", {}),
        "drift": base["measurements"].get("drift") if "drift" in chosen else None}
    return record, checks


def default_baseline(suite: str) -> Path:
    """benchmarks/baselines/<suite>.json under the working directory, else in the source
    tree this package was installed from (an editable install or a checkout)."""
    here = BASELINE_DIR / f"{suite}.json"
    if here.exists():
        return here
    tree = Path(simulator.__file__).resolve().parent.parent / here
    if tree.exists():
        return tree
    raise DataError(here, "file", "no baseline here or in the source tree; pass --baseline FILE "
                    "or record one with `tabletop bench baseline --out FILE`", show_value=False)


def fingerprint_diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def write_json(record: dict[str, Any], path: Path) -> None:
    ensure_dir(path.parent, "output")
    write_text(path, json.dumps(record, indent=1, allow_nan=True) + "\n", "output")


# -- reading a baseline --------------------------------------------------------------------


def load_baseline(path: Path, suite: str, groups: list[str]) -> dict[str, Any]:
    """The baseline's record, checked for the parts `groups` compare against; anything wrong
    is one DataError line naming the file and the field."""
    data = parse_json(read_text(path), path, "bench baseline JSON")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise DataError(path, "format", f"not a tabletop bench baseline (expected {FORMAT!r})", got)
    if data.get("suite") != suite:
        raise DataError(path, "suite", f"records the {data.get('suite')!r} suite, not {suite!r}; "
                        "compare like with like", show_value=False)
    _need(path, data, "fingerprint", dict)
    m = _need(path, data, "measurements", dict)
    missing = [g for g in groups if g not in m and g != "sanity"]
    if "speed" in groups and "drift" not in m:
        missing.append("drift")
    if missing:
        raise DataError(path, "measurements", f"has no {', '.join(sorted(set(missing)))} "
                        "measurements (recorded with --only?)", show_value=False)
    if "golden" in groups:
        _need(path, data, "golden_cases", list)
        for i, r in enumerate(_need(path, m, "golden", list, "measurements.")):
            where = f"measurements.golden[{i}]"
            _need(path, r, "case", str, where + ".")
            for j, d in enumerate(_need(path, r, "dice", list, where + ".")):
                w = f"{where}.dice[{j}]."
                for key, kind in (("die", str), ("status", str), ("face", int), ("position", list)):
                    _need(path, d, key, kind, w)
                if len(d["position"]) != 3 or not all(_number(v) for v in d["position"]):
                    raise DataError(path, w + "position", "must be 3 numbers", d["position"])
    if "drift" in m:
        for key, dist in _need(path, m, "drift", dict, "measurements.").items():
            _check_dist(path, dist, f"measurements.drift.{key}")
    if "convergence" in groups:
        for key, runs in _need(path, m, "convergence", dict, "measurements.").items():
            if not isinstance(runs, dict):
                raise DataError(path, f"measurements.convergence.{key}", "must be a mapping", runs)
            for label, dist in runs.items():
                _check_dist(path, dist, f"measurements.convergence.{key}.{label}")
    if "speed" in groups:
        sp = _need(path, m, "speed", dict, "measurements.")
        for key in ("ratio", "peak_extra_memory_mb"):
            if not _number(sp.get(key)):
                raise DataError(path, f"measurements.speed.{key}", "must be a number", sp.get(key))
    return data


def _check_dist(path: Path, dist: Any, where: str) -> None:
    if not isinstance(dist, dict):
        raise DataError(path, where, "must be a mapping", dist)
    counts = _need(path, dist, "counts", dict, where + ".")
    if not all(isinstance(v, int) and v >= 0 for v in counts.values()):
        raise DataError(path, where + ".counts", "must map categories to counts", counts)
    for key in ("throws", "error_count"):
        _need(path, dist, key, int, where + ".")
    if not _number(dist.get("mean_steps")):
        raise DataError(path, where + ".mean_steps", "must be a number", dist.get("mean_steps"))


def _need(path: Path, d: dict[str, Any], key: str, kind: type, prefix: str = "") -> Any:
    v = d.get(key) if isinstance(d, dict) else None
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise DataError(path, prefix + key, f"missing or not a {kind.__name__}",
                        v if not isinstance(v, dict | list) else type(v).__name__)
    return v


_number = is_finite_number  # (a 400-digit int in a baseline overflowed math.isfinite)


def _same_cases(a: Any, b: Any) -> bool:
    """Case definitions equal up to 1e-12 in their floats: the throws' orientations come
    from sin and cos, whose last bit may differ between C libraries."""
    if isinstance(a, float) or isinstance(b, float):
        return _number(a) and _number(b) and abs(a - b) <= 1e-12 * max(1.0, abs(a))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_cases(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_cases(a[k], b[k]) for k in a)
    return bool(a == b)
