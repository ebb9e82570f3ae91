"""The same bits under other SIMD and BLAS kernels (issue 38): the golden playthroughs, the
bench smoke golden throws and a replay verification of the shipped logs
(tests/data/logs/), each byte-identical to the shipped files natively, with numpy's SIMD
targets masked (NPY_DISABLE_CPU_FEATURES: AVX-512, then everything above the baseline,
AVX2 and FMA3 included) and on other OpenBLAS kernels (OPENBLAS_CORETYPE). Each setting
runs `tests/kernel_check.py` in a fresh process (numpy reads both at import); the kernels
in force are checked too, so a setting that did not take cannot pass unseen.
docs/determinism.md says what was found and fixed.

Only kernels this CPU can run are forced (a forced AVX2 kernel on a CPU without AVX2 would
die of an illegal instruction): Core2 (SSE3) always, Sandybridge with AVX (else Nehalem),
Haswell with AVX2 and FMA (else Nehalem). Four runs of about 4.5 s of CPU each, two at a
time."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "kernel_check.py"
# OPENBLAS_CORETYPE -> the core OpenBLAS reports (a build without a kernel of its own for a
# core runs the nearest older one: the wheels' OpenBLAS runs Core2 on its Katmai kernel).
BLAS = {"Core2": ("Core2", "Katmai", "Prescott"), "Nehalem": ("Nehalem",),
        "Sandybridge": ("Sandybridge",), "Haswell": ("Haswell",)}


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((x for x in text.splitlines() if x.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def _targets() -> list[str]:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]


def settings() -> dict[str, dict[str, str]]:
    """Name -> environment of each run: native, numpy's targets masked, other BLAS cores
    (two settings share a run where that halves the time: each one is still applied)."""
    flags = _cpu_flags()
    every = _targets()
    wide = [t for t in every if "512" in t or t.endswith("V4")]
    out: dict[str, dict[str, str]] = {"native": {}}
    out["numpy baseline only, BLAS Core2"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(every),
                                              "OPENBLAS_CORETYPE": "Core2"}
    second = "Sandybridge" if "avx" in flags else "Nehalem"
    out[f"numpy without AVX-512, BLAS {second}"] = {
        "NPY_DISABLE_CPU_FEATURES": " ".join(wide), "OPENBLAS_CORETYPE": second}
    third = "Haswell" if {"avx2", "fma"} <= flags else "Nehalem"
    if third != second:
        out[f"BLAS {third}"] = {"OPENBLAS_CORETYPE": third}
    for env in out.values():  # an empty mask is no setting
        if env.get("NPY_DISABLE_CPU_FEATURES") == "":
            del env["NPY_DISABLE_CPU_FEATURES"]
    return out


def _run(env: dict[str, str]) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    done = subprocess.run([sys.executable, str(SCRIPT)], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def reports() -> dict[str, tuple[dict[str, str], dict[str, Any]]]:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"the shipped goldens are x86-64's and OPENBLAS_CORETYPE names x86 cores; "
                    f"this is {platform.machine()} (docs/determinism.md, 'What still differs')")
    runs = settings()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(runs, pool.map(_run, runs.values()), strict=True))
    return {name: (runs[name], results[name]) for name in runs}


@pytest.mark.slow
def test_every_result_is_the_same_bits_under_every_kernel(
        reports: dict[str, tuple[dict[str, str], dict[str, Any]]]) -> None:
    assert len(reports) >= 4  # native, two masks, and at least two other BLAS cores
    cores = {env["OPENBLAS_CORETYPE"] for env, _r in reports.values() if "OPENBLAS_CORETYPE" in env}
    assert len(cores) >= 2
    for name, (env, report) in reports.items():
        assert report["logs_checked"] >= 2, name
        for part in ("playthroughs", "bench", "logs"):
            assert report[part] == [], f"{name} ({env}): {part} differ: {report[part]}"


@pytest.mark.slow
def test_the_settings_took(reports: dict[str, tuple[dict[str, str], dict[str, Any]]]) -> None:
    """A mask or a core that numpy or OpenBLAS ignored would leave the native kernels."""
    native = reports["native"][1]["kernels"]
    for name, (env, report) in reports.items():
        k = report["kernels"]
        masked = env.get("NPY_DISABLE_CPU_FEATURES", "").split()
        assert not set(masked) & set(k["simd"]), name
        assert set(k["simd"]) == set(native["simd"]) - set(masked), name
        if "OPENBLAS_CORETYPE" in env and native["blas_core"] is not None:
            assert k["blas_core"] in BLAS[env["OPENBLAS_CORETYPE"]], (name, k)
