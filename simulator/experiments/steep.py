"""The steep ends of the cuboid curve (issue 36, item 2): the 15 steel square cuboids of
`budden_square_cuboids.yaml` thrown under a variant of the physics or the throw, scored as
the issue judges a model (docs/calibration.md, "What steepens the curve").

A variant is `impacts.throw_shares`' keywords: `params` (friction, restitution, throw_scale,
spinning_friction), `throw` (throw-model fields replaced after the throw scale, `styles`
among them), `table`, `max_spin` and PhysicsSettings fields. `curve` throws every cuboid
(one process per cuboid, `workers` at a time); `score` says how many of the 15 points are
inside (the measured and simulated 95% Wilson intervals overlap, the measured counts taken
binomially or weighed as N / phi, the dataset's own scatter estimated without the
simulator), the MAE of the shares, the end points and the binomial X^2.

`python -m simulator.experiments.steep NAME [--throws N] [--seed S[,S...]] [--workers W]`
prints one named variant's judgement (VARIANTS); with several seeds, one line a seed and one
for their counts pooled (`pooled`: N throws at each of k seeds judged as k x N throws).
"""

from __future__ import annotations

import argparse
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from simulator.experiments import impacts as im
from simulator.experiments.stats import homogeneity, wilson

# The issue's end points: x/y 0.47, 0.63 and every cuboid of 1.44 and above.
END_POINTS = ("c047", "c063", "c144", "c155", "c160", "c171", "c187", "c212", "c265")


def _names() -> tuple[str, ...]:
    from simulator.experiments.calibrate import load_dataset

    return tuple(o.name for o in load_dataset(im.DATASET).objects)


def _one(args: tuple[str, int, int, dict[str, Any]]) -> tuple[str, tuple[int, int, int]]:
    name, throws, seed, variant = args
    return name, im.throw_shares((name,), throws, seed=seed, **variant)[name]


def curve(variant: dict[str, Any], throws: int, seed: int = 23, workers: int = 2,
          names: Sequence[str] | None = None) -> dict[str, tuple[int, int, int]]:
    """Per cuboid (square face up, on the table, thrown) under `variant`."""
    tasks = [(n, throws, seed, variant) for n in (names or _names())]
    if workers > 1:
        # (an executor: a worker that dies is an error here, never a wait for ever)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return dict(pool.map(_one, tasks))
    return dict(_one(t) for t in tasks)


@dataclass(frozen=True)
class Score:
    inside_binomial: int
    inside_phi: int
    objects: int
    mae: float
    ends_binomial: tuple[str, ...]  # the end points outside, binomially
    ends_phi: tuple[str, ...]  # ... and with the counts weighed as N / phi
    chi2: float  # binomial homogeneity X^2 summed over the objects
    shares: dict[str, float]

    def line(self) -> str:
        def ends(xs: tuple[str, ...]) -> str:
            return "all inside" if not xs else "out: " + " ".join(xs)

        return (f"inside {self.inside_binomial}/{self.objects} binomially ({ends(self.ends_binomial)}), "
                f"{self.inside_phi}/{self.objects} with phi ({ends(self.ends_phi)}), "
                f"MAE {self.mae:.4f}, X^2 {self.chi2:.1f} on {self.objects} df")


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.low <= b.high and b.low <= a.high)


def score(counts: dict[str, tuple[int, int, int]]) -> Score:
    """The issue's judgement of simulated counts (square up, on the table, thrown)."""
    from simulator.experiments.calibrate import load_dataset

    ds = load_dataset(im.DATASET)
    ib = ip = 0
    out_b: list[str] = []
    out_p: list[str] = []
    errs: list[float] = []
    chi2 = 0.0
    shares: dict[str, float] = {}
    for o in ds.objects:
        if o.name not in counts:
            continue
        k, n, _ = counts[o.name]
        assert o.counts is not None and o.n is not None
        g = [gname for gname, _ in o.groups].index("square")
        p_m = o.measured_p(g)
        sim = wilson(k, n)
        meas_b = wilson(o.counts[g], o.n)
        meas_p = wilson(o.counts[g] / o.dispersion, o.n / o.dispersion)
        if _overlap(sim, meas_b):
            ib += 1
        elif o.name in END_POINTS:
            out_b.append(o.name)
        if _overlap(sim, meas_p):
            ip += 1
        elif o.name in END_POINTS:
            out_p.append(o.name)
        shares[o.name] = k / n
        errs.append(abs(k / n - p_m))
        chi2 += homogeneity([o.counts[g], o.n - o.counts[g]], [k, n - k]).statistic
    return Score(ib, ip, len(errs), sum(errs) / len(errs), tuple(out_b), tuple(out_p), chi2, shares)


def perfect_model_mae(throws: int, on_table: float = 0.86, draws: int = 20_000,
                      seed: int = 1) -> tuple[float, float, float, float]:
    """The MAE a model whose shares are the measured ones would show: the measured shares
    drawn about it with the counts' own scatter (normal, variance phi p (1 - p) / N), the
    simulated ones binomially from `throws` x `on_table` throws. (mean, 5%, 95%, the share
    of draws at most 0.02.)"""
    import numpy as np

    from simulator.experiments.calibrate import load_dataset

    objs = load_dataset(im.DATASET).objects
    p = np.array([o.measured_p([g for g, _ in o.groups].index("square")) for o in objs])
    n = np.array([o.n for o in objs], dtype=float)
    phi = np.array([o.dispersion for o in objs])
    rng = np.random.default_rng(seed)
    k = int(throws * on_table)
    meas = p + rng.standard_normal((draws, len(p))) * np.sqrt(phi * p * (1 - p) / n)
    sim = rng.binomial(k, p, size=(draws, len(p))) / k
    mae = np.abs(meas - sim).mean(axis=1)
    lo, hi = np.quantile(mae, [0.05, 0.95])
    return float(mae.mean()), float(lo), float(hi), float((mae <= 0.02).mean())


def pooled(runs: Sequence[dict[str, tuple[int, int, int]]]) -> dict[str, tuple[int, int, int]]:
    """The counts of several runs of the same cuboids added up: independent seeds of one
    variant are one larger sample of it."""
    names = list(runs[0])
    if any(list(r) != names for r in runs):
        raise ValueError("pooled: the runs hold different cuboids")
    return {n: (sum(r[n][0] for r in runs), sum(r[n][1] for r in runs),
                sum(r[n][2] for r in runs)) for n in names}


def table_row(label: str, counts: dict[str, tuple[int, int, int]]) -> str:
    """A markdown row: the variant, the 15 shares, inside (binomial / phi), MAE, X^2."""
    s = score(counts)
    cells = " | ".join(f"{s.shares[n]:.3f}" for n in s.shares)
    return (f"| {label} | {cells} | {s.inside_binomial} / {s.inside_phi} | {s.mae:.4f} | "
            f"{s.chi2:.1f} | {' '.join(s.ends_binomial) or '-'} |")


def header() -> str:
    names = _names()
    return ("| variant | " + " | ".join(names) + " | inside (binomial / phi) | MAE | X^2 (15) | "
            "ends out (binomial) |\n|" + " --- |" * (len(names) + 5))


# The lab's hand throw until 2026-12-03 (benchmarks/experiments/cuboid-24mm.yaml's): released
# 10-30 cm over the table's middle, 0.2-1.5 m/s in any direction. Its share of a flat tile
# is set by its slow horizontal speed (docs/calibration.md, "Why the lab's hand throw was flat").
LAB_DROP = {"height": (0.10, 0.30), "speed": (0.2, 1.5), "elevation_deg": (-30.0, 30.0),
            "spin": (0.0, 25.0), "area": (0.1, 0.1)}
# The lab's hand throw on its default 1.2 m x 0.9 m table, of hardwood (the issue's second
# target): a person's roll. The dataset's roll as calibrated (released 5-10 cm up, elevation
# +-30 deg, spin 0-60 rad/s times the calibrated throw scale), made by a thrower at player 1's
# edge: released 5 cm inside it (y -0.40 +- 0.02 m, x +- 0.1 m), rolled toward the far side
# (+-20 deg), at the calibrated roll's speeds that stop on a 0.9 m deep table (its lowest,
# 0.6 x 1.6512 = 0.99 m/s, to 2.5 m/s). The pair is the calibration's; nothing is refitted.
ROLL_SPEED = (0.6 * im.CALIBRATED["throw_scale"], 2.5)
LAB_THROW = {"height": (0.05, 0.10), "speed": ROLL_SPEED, "elevation_deg": (-30.0, 30.0),
             "spin": (0.0, 60.0 * im.CALIBRATED["throw_scale"]), "area": (0.1, 0.02),
             "origin": (0.0, -0.40), "direction_deg": (70.0, 110.0)}


def lab_hand(scale: float = 1.0, drop: bool = False, **params: float) -> dict[str, Any]:
    """The variant of the lab's hand throw (`drop`: the one before 2026-12-03) on its default
    table at the calibrated pair (`params` replace friction, restitution, ...), its speed and
    spin times `scale` (the throw is already the calibrated thrower's: 1 unless asked)."""
    from simulator.physics.settings import SURFACES, TableSpec

    p = {**im.CALIBRATED, "throw_scale": 1.0, **params}
    throw: dict[str, Any] = dict(LAB_DROP if drop else LAB_THROW)
    for k in ("speed", "spin"):
        throw[k] = (throw[k][0] * scale, throw[k][1] * scale)
    return {"params": p, "throw": throw, "table": TableSpec(surface=SURFACES["hardwood"])}


PAIR_KEYS = ("friction", "restitution", "throw_scale", "spinning_friction", "rolling_friction")
# Each variant's changes from the calibration (docs/calibration.md, "What steepens the
# curve"): pair values and the throw scale go to `params`, the rest to `throw_shares`.
VARIANTS: dict[str, dict[str, Any]] = {
    "calibrated": {},
    "restitution-0.1": {"restitution": 0.1},
    "restitution-0.2": {"restitution": 0.2},
    "restitution-0.3": {"restitution": 0.3},
    "restitution-0.85": {"restitution": 0.85},
    "friction-0.1": {"friction": 0.1},
    "friction-0.2": {"friction": 0.2},
    "friction-0.8": {"friction": 0.8},
    "friction-1.0": {"friction": 1.0},
    "rolling-0.5mm": {"rolling_friction": 0.0005},
    "spinning-1mm": {"spinning_friction": 0.001},
    "turn-bound-off": {"max_turn_deg": 0.0},
    "dt-1/960": {"time_step": 1.0 / 960.0},
    "spin-clamp-1000": {"max_spin": 1000.0},
    "mujoco": {"engine": "mujoco"},
    "threshold-0": {"engine_params": {"restitutionVelocityThreshold": 0.0}},
    "threshold-0.05": {"engine_params": {"restitutionVelocityThreshold": 0.05}},
    "processing-1mm": {"contact_processing_threshold": 0.001},
    "square-face-down": {"throw": {"orientation": 1}},
    "side-face-down": {"throw": {"orientation": 2}},
    "released-2-4cm": {"throw": {"height": (0.02, 0.04)}},
    "released-50-70cm": {"throw": {"height": (0.5, 0.7)}},
}


def variant(name: str, lab: bool = False, lab_scale: float = 1.0,
            drop: bool = False) -> dict[str, Any]:
    """`throw_shares`' keywords of a named variant, on the dataset's roll or (`lab`) the
    lab's hand throw on its table (`drop`: the one before 2026-12-03; its speed and spin
    times `lab_scale`)."""
    changes = VARIANTS[name]
    v: dict[str, Any] = (lab_hand(lab_scale, drop) if lab or drop
                         else {"params": dict(im.CALIBRATED)})
    for k, x in changes.items():
        if k in PAIR_KEYS:
            v["params"][k] = x
        elif k == "throw":
            v["throw"] = {**v.get("throw", {}), **x}
        else:
            v[k] = x
    return v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simulator.experiments.steep")
    ap.add_argument("variant", nargs="+", choices=sorted(VARIANTS))
    ap.add_argument("--lab", action="store_true", help="the lab's hand throw on its table")
    ap.add_argument("--lab-drop", action="store_true", help="the lab's hand throw before "
                    "2026-12-03 (cuboid-24mm.yaml's drop over the middle) on its table")
    ap.add_argument("--lab-scale", type=float, default=1.0,
                    help="the lab's hand throw's speed and spin times this")
    ap.add_argument("--names", default="", help="cuboids, comma-separated (default all 15)")
    ap.add_argument("--throws", type=int, default=300)
    ap.add_argument("--seed", default="23", help="a seed, or several comma-separated: one "
                    "line each and one for their counts pooled")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--set", default="", help="pair values or throw_scale, e.g. "
                    "restitution=0.2,throw_scale=1.3 (over the variant's)")
    a = ap.parse_args(argv)
    names = [n for n in a.names.split(",") if n] or None
    sets = {k: float(x) for k, _, x in (kv.partition("=") for kv in a.set.split(",") if kv)}
    if set(sets) - set(PAIR_KEYS):
        ap.error(f"--set: only {', '.join(PAIR_KEYS)}")
    try:
        seeds = [int(x) for x in a.seed.split(",")]
    except ValueError:
        ap.error(f"--seed: not a whole number or a comma-separated list of them: {a.seed!r}")
    for name in a.variant:
        v = variant(name, a.lab, a.lab_scale, a.lab_drop)
        v["params"].update(sets)
        lab = (f" (lab hand throw{' before 2026-12-03' if a.lab_drop else ''} x {a.lab_scale:g})"
               if a.lab or a.lab_drop else "")
        label = f"{name}{lab}{' ' + a.set if a.set else ''}"
        runs = []
        for seed in seeds:
            runs.append(curve(v, a.throws, seed, a.workers, names))
            _report(f"{label}, seed {seed}", runs[-1], a.throws)
        if len(runs) > 1:
            _report(f"{label}, seeds {a.seed} pooled", pooled(runs), a.throws * len(runs))
    return 0


def _report(label: str, counts: dict[str, tuple[int, int, int]], throws: int) -> None:
    s = score(counts)
    print(f"{label}: " + " ".join(f"{k} {s.shares[k]:.3f}" for k in s.shares)
          + f" | on the table {min(c[1] for c in counts.values())}-"
          f"{max(c[1] for c in counts.values())} of {throws} | {s.line()}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
