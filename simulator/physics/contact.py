"""From pair values to Bullet: the per-body coefficients that make Bullet's combining rules
give the effective pair values of dice_models.materials, and the record of what they give.

Bullet combines a contact between bodies 0 and 1 as (btManifoldResult, Bullet 3.x):
  friction    = f0 * f1                (clamped to 10)
  restitution = e0 * e1
  rolling     = r0 * f1 + r1 * f0      (and spinning the same way with s0, s1)
so each body carries coefficients, not the pair's values. For the pairs that can touch in a
world (die on die, die on the table or an obstacle; static bodies never touch each other)
we solve for the coefficients of each material present:
- friction and restitution: log f_a + log f_b = log F(a, b), exactly solvable whenever one
  die material is present (the usual world: a crew, a handful of d6, one lab die):
  f_die = sqrt(F(die, die)), f_static = F(die, static) / f_die;
- lever arms: linear in r given f, solved the same way.
With several die materials a pair table need not be reachable by products; then the values
come from a least-squares fit (die-on-static pairs weighted far above die-on-die ones), and
the record says `exact: false` with the values Bullet really uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_models.errors import DataError
from dice_models.materials import Material, MaterialLibrary, PairValues, library
from dice_models.numerics import lstsq, nnls

FIELDS = ("friction", "restitution", "rolling_friction", "spinning_friction")
TINY = 1e-12  # pair values are floored here before taking logs (a value of 0 stays ~0)
STATIC_WEIGHT = 1e3  # die-on-static pairs in the least-squares fit


@dataclass(frozen=True)
class BodyCoefficients:
    friction: float
    restitution: float
    rolling_friction: float
    spinning_friction: float


@dataclass(frozen=True)
class ContactModel:
    """Bullet coefficients per material name, and the pair values they realize."""

    bodies: dict[str, BodyCoefficients]
    wanted: dict[tuple[str, str], PairValues]
    realized: dict[tuple[str, str], PairValues]
    exact: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": "pair table, else sqrt(a*b) for friction and restitution, a+b for lever arms",
            "exact": self.exact,
            "pairs": {f"{a}/{b}": {**self.realized[(a, b)].to_json(),
                                   "source": self.wanted[(a, b)].source}
                      for a, b in sorted(self.realized)},
        }


def realize(dice: list[Material], statics: list[Material],
            lib: MaterialLibrary | None = None) -> ContactModel:
    """Coefficients for a world whose moving bodies are of materials `dice` and whose static
    bodies (table, obstacles) are of `statics`."""
    lib = lib or library()
    mats: dict[str, Material] = {}
    for m in [*dice, *statics]:
        if m.name in mats and mats[m.name] != m:
            raise DataError(m.source, "material", f"two different materials in one world are both "
                            f"named {m.name!r}: give one of them another name", show_value=False)
        mats[m.name] = m
    die_names = sorted({m.name for m in dice})
    static_names = sorted({m.name for m in statics} - set(die_names))
    pairs: list[tuple[str, str]] = []
    for i, a in enumerate(die_names):
        pairs += [(a, b) for b in die_names[i:]]
        pairs += [_key(a, s) for s in static_names]
    wanted = {p: lib.pair(mats[p[0]], mats[p[1]]) for p in pairs}
    names = [*die_names, *static_names]
    if len(die_names) == 1:
        coeffs = _one_die_material(die_names[0], static_names, wanted)
    else:
        coeffs = _fitted(names, set(die_names), pairs, wanted)
    for n in names:  # materials in no pair (none today) still get neutral coefficients
        coeffs.setdefault(n, BodyCoefficients(1.0, 1.0, 0.0, 0.0))
    realized = {p: _combined(coeffs[p[0]], coeffs[p[1]]) for p in pairs}
    exact = all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
                for p in pairs for x, y in zip(realized[p].values(), wanted[p].values(), strict=True))
    return ContactModel(coeffs, wanted, realized, exact)


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _combined(c0: BodyCoefficients, c1: BodyCoefficients) -> PairValues:
    """Bullet's combining rules (btManifoldResult) applied to two bodies' coefficients."""
    f = min(c0.friction * c1.friction, 10.0)
    return PairValues(
        friction=f, restitution=c0.restitution * c1.restitution,
        rolling_friction=min(c0.rolling_friction * c1.friction + c1.rolling_friction * c0.friction, 10.0),
        spinning_friction=min(c0.spinning_friction * c1.friction + c1.spinning_friction * c0.friction,
                              10.0),
        source="bullet")


def _one_die_material(d: str, statics: list[str],
                      wanted: dict[tuple[str, str], PairValues]) -> dict[str, BodyCoefficients]:
    """The closed form for one die material: every pair value is met exactly (lever arms
    too, unless a static material's would have to be negative: then it is 0)."""
    dd = wanted[(d, d)]
    f_d = math.sqrt(max(dd.friction, TINY))
    e_d = math.sqrt(max(dd.restitution, TINY))
    r_d = dd.rolling_friction / (2 * f_d)
    s_d = dd.spinning_friction / (2 * f_d)
    out = {d: BodyCoefficients(f_d, e_d, r_d, s_d)}
    for s in statics:
        ds = wanted[_key(d, s)]
        f_s = ds.friction / f_d
        out[s] = BodyCoefficients(
            friction=f_s, restitution=ds.restitution / e_d,
            rolling_friction=max(0.0, (ds.rolling_friction - r_d * f_s) / f_d),
            spinning_friction=max(0.0, (ds.spinning_friction - s_d * f_s) / f_d))
    return out


def _fitted(names: list[str], die_names: set[str], pairs: list[tuple[str, str]],
            wanted: dict[tuple[str, str], PairValues]) -> dict[str, BodyCoefficients]:
    """Least squares for several die materials (see the module docstring), solved in
    Python floats (dice_models.numerics: LAPACK's lstsq and scipy's nnls follow the CPU's
    BLAS kernels, np.exp its SIMD loops)."""
    idx = {n: i for i, n in enumerate(names)}
    a = np.zeros((len(pairs), len(names)))
    w = np.array([1.0 if (p[0] in die_names and p[1] in die_names) else STATIC_WEIGHT for p in pairs])
    for k, (p, q) in enumerate(pairs):
        a[k, idx[p]] += 1.0
        a[k, idx[q]] += 1.0
    logs = {}
    for f in ("friction", "restitution"):
        b = np.array([math.log(max(getattr(wanted[p], f), TINY)) for p in pairs])
        sol = lstsq(a * w[:, None], b * w)
        logs[f] = np.array([math.exp(v) for v in sol.tolist()])
    fr = logs["friction"]
    arms = {}
    for f in ("rolling_friction", "spinning_friction"):
        m = np.zeros((len(pairs), len(names)))
        for k, (p, q) in enumerate(pairs):
            m[k, idx[p]] += fr[idx[q]]
            m[k, idx[q]] += fr[idx[p]]
        b = np.array([getattr(wanted[p], f) for p in pairs])
        arms[f] = nnls(m * w[:, None], b * w)
    return {n: BodyCoefficients(float(fr[i]), float(logs["restitution"][i]),
                                float(arms["rolling_friction"][i]),
                                float(arms["spinning_friction"][i]))
            for n, i in idx.items()}


__all__ = ["BodyCoefficients", "ContactModel", "realize"]
