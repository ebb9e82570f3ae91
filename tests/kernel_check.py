"""Run by tests/test_kernels.py in a fresh process whose environment picks other SIMD and
BLAS kernels (NPY_DISABLE_CPU_FEATURES, OPENBLAS_CORETYPE): the golden playthroughs, the
bench smoke golden throws and a replay verification of the shipped logs, each compared to
the shipped files byte for byte. Prints one JSON object: the kernels in force and what
differed (empty lists when everything is identical).

    python tests/kernel_check.py

The shipped logs were written with (re-record them only for a change you meant):

    tabletop play deep-white-sea --headless --players greedy,planner --seed 3 \
        --table physics --max-turns 4 --quiet --log tests/data/logs/deep-white-sea-physics.jsonl
    tabletop play diced --headless --players greedy,random,greedy --seed 4 --dice physics \
        --quiet --log tests/data/logs/diced-physics.jsonl
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def kernels() -> dict[str, Any]:
    """numpy's SIMD targets in force and the OpenBLAS core numpy's BLAS runs on."""
    import numpy as np
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    core = None
    libs = sorted((Path(np.__file__).parent.parent / "numpy.libs").glob("libscipy_openblas*.so"))
    for lib in libs:  # the wheels' OpenBLAS; another BLAS has no core to report
        so = ctypes.CDLL(str(lib))
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename"):
            if hasattr(so, name):
                fn = getattr(so, name)
                fn.restype = ctypes.c_char_p
                core = fn().decode()
                break
    return {"simd": [t for t in __cpu_dispatch__ if __cpu_features__.get(t)], "blas_core": core}


def playthroughs() -> list[str]:
    from rules import playthroughs as pt
    from rules.registry import names

    folder = ROOT / "tests" / "data" / "playthroughs"
    bad = []
    for game in names():
        expected = (folder / pt.file_name(game)).read_text().splitlines()
        got = pt.playthrough(game)
        if got != expected:
            line = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                        min(len(got), len(expected)))
            bad.append(f"{game}: line {line + 1}: {got[line] if line < len(got) else '(end)'}")
    return bad


def bench() -> list[str]:
    from simulator.bench.baseline import run_suite

    record, checks = run_suite("smoke", [], ["golden"],
                               ROOT / "benchmarks" / "baselines" / "smoke.json")
    golden = next(c for c in checks if c.name == "golden.throws")
    differs = record["baseline"]["fingerprint_differs"]
    return [] if golden.passed and "identical to the bit" in golden.why and not differs \
        else [f"golden.throws: {golden.why} (fingerprint differs: {differs})"]


def logs() -> list[str]:
    from simulator.cli.main import main

    bad = []
    for path in sorted((ROOT / "tests" / "data" / "logs").glob("*.jsonl")):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["replay", str(path), "--verify"])
        if status != 0 or "verified" not in out.getvalue():
            bad.append(f"{path.name}: exit {status}: {(out.getvalue() + err.getvalue()).strip()[:300]}")
    return bad


if __name__ == "__main__":
    report = {"kernels": kernels(), "playthroughs": playthroughs(), "bench": bench(),
              "logs": logs(),
              "logs_checked": len(list((ROOT / "tests" / "data" / "logs").glob("*.jsonl")))}
    print(json.dumps(report))
