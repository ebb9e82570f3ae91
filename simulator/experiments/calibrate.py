"""Calibration: fit a die material's contact values on a surface, and the throw model's
speed scale, to measured outcome counts of thrown objects (`tabletop fairness calibrate`).

A dataset (dice_models/datasets/*.yaml, format in docs/calibration.md) lists objects: a die
geometry and mass, the die and surface materials, how the objects were thrown (the source's
words and the lab's throw model that stands in for them), outcome groups of face values,
and the measured counts (or a published proportion p and N, from which the counts are
derived as round(p * N) and flagged). Every model input says whether the source states it
or the dataset assumes it.

What is fitted (any subset, `fit=`):
- `friction`, `restitution`: the effective pair values of the fitted objects' die material
  on their surface (one pair for the whole fitted part); `spinning_friction`, the pair's
  spinning lever arm, when asked. The rolling lever arm stays the pair's data.
- `throw_scale`: a factor on the throw model's speed and spin ranges (heights, angles and
  release area as the dataset gives them), i.e. the throw's kinetic energy scale squared.

Methods: `surrogate` (the default) models each object's outcome shares as a smooth surface
through many parameter points (`fit_surrogate`, `simulator.experiments.surrogate`); `search`,
described next, works on the noisy objective itself.

The search method's objective: the sum over fitted objects of Pearson's homogeneity X^2
between the measured counts and the simulated counts (a 2 x k table per object, k outcome
groups), so both the measurement's and the simulation's sampling noise are in the
denominator. Every evaluation
throws the same seeds (common random numbers): throw i of object j is drawn from
`default_rng([1000 seed + j, i])` (the lab's draw_throw) whatever the parameters, so the
parameters change the physics and the speed scale, not the draws. Throws are chaotic, so
the objective is still piecewise constant with noise of a few X^2 units; the search is
therefore coarse: a grid (`grid` points per parameter), then
Nelder-Mead from the best grid point (at most `refine` evaluations), then an axial and
diagonal design at +-STEP around the best point; a full quadratic is fitted by least
squares to every evaluated point near the best one (the region widened until it holds
twice as many points as coefficients), and its minimum is the estimate where it lies in
that region (else the best evaluated point, whose X^2 is a lucky draw of the noise).

Uncertainty: the curvature of that quadratic. X^2 ~ -2 ln L + const, so the covariance is
2 H^-1 (H: the quadratic's Hessian); 95% intervals are +-1.96 sigma. A direction in which
the quadratic is not convex gets no interval ("not determined").

The report simulates every object once more at the fitted values with fresh seeds (seed+1),
so the comparison is not flattered by the fit's own noise.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import yaml
from scipy import optimize
from scipy import stats as sps
from scipy.stats import qmc

from dice_models import DataError, DieModel, parse_die
from dice_models.materials import (
    VALUE_FIELDS,
    Material,
    MaterialLibrary,
    check_fields,
    library,
    material_from,
    overlay,
)
from dice_models.outfiles import ensure_dir, write_bytes
from simulator.experiments import surrogate as sg
from simulator.experiments.config import Experiment, ThrowDistribution, parse_throw
from simulator.experiments.dispersion import MIN_OBJECTS as MIN_SERIES_OBJECTS
from simulator.experiments.dispersion import Dispersion, rise95, series_dispersion, x2_p
from simulator.experiments.stats import homogeneity, wilson
from simulator.physics import PhysicsSettings, TableSpec, die_shape
from simulator.physics.settings import parse_table
from simulator.physics.world import MAX_SPEED

# -- the dataset format -------------------------------------------------------------------

DATASET_FIELDS = ("name", "description", "source", "defaults", "dispersion", "objects")
DISPERSION_FIELDS = ("series",)
SOURCE_FIELDS = ("citation", "where_read", "doi", "measured", "caveats")
OBJECT_FIELDS = ("name", "geometry", "values", "mass", "mass_model", "material", "surface",
                 "table", "throw", "outcomes", "counts", "proportion", "where_read", "stated", "assumed",
                 "as_published")
# Each of these must say whether the source states it (stated:) or the dataset assumes it
# (assumed:), with the source's words or the reason; both where it is part of each.
MARKED = ("geometry", "mass", "mass_model", "material", "surface", "throw")
# `table:` (optional; a table file's fields, its surface replaced by `surface:`): the lab's
# default 1.2 m x 0.9 m open table otherwise.
THROW_FIELDS = ("as_described", "model")
PROPORTION_FIELDS = ("group", "p", "n")

# Fitted parameters: bounds of the search.
PARAMETERS: dict[str, tuple[float, float]] = {
    "friction": (0.1, 1.0),
    "restitution": (0.05, 0.95),
    "throw_scale": (0.3, 2.0),
    # the pair's spinning lever arm (m): Bullet's torsional friction, a torque of up to this
    # times the normal force about the contact normal (not fitted unless asked)
    "spinning_friction": (0.0, 0.002),
}
PAIR_PARAMETERS = ("friction", "restitution", "spinning_friction")
STEP = 0.08  # the curvature design's step, as a share of each parameter's range
LOCAL = 0.15  # the surrogate's later designs: +- this share of each range around the estimate
MAX_STAGES = 4  # the surrogate's designs at most by default (the first over the whole ranges)
NEAR_BOUND = 0.02  # design points this near a search bound (share of the range) reach it
METHODS = ("surrogate", "search")


@dataclass(frozen=True)
class DataObject:
    """One measured object: the die it is modelled as, its surface and throw model, its
    outcome groups and the measured counts (None where N is not published)."""

    name: str
    index: int  # its position in the dataset (the throw seeds' middle key)
    die: DieModel
    surface: Material
    table: TableSpec
    throw: ThrowDistribution
    throw_text: str
    groups: tuple[tuple[str, tuple[int, ...]], ...]
    counts: tuple[int, ...] | None
    n: int | None
    derived: bool  # counts = round(p * N) from a published proportion
    published: dict[str, Any] | None  # the proportion as published: group, p, n
    where_read: str
    stated: dict[str, str]
    assumed: dict[str, str]
    # The measured counts weigh as N / dispersion throws: their scatter beyond binomial
    # sampling, estimated from the dataset's series (simulator.experiments.dispersion).
    dispersion: float = 1.0
    dispersion_df: int | None = None  # the df it is estimated on (None: 1, known)

    @property
    def pair(self) -> tuple[Material, Material]:
        return (self.die.contact_material, self.surface)

    def effective_counts(self) -> np.ndarray:
        """The measured counts as the tests weigh them: counts / dispersion."""
        assert self.counts is not None
        return np.asarray(self.counts, dtype=float) / self.dispersion

    def measured_p(self, g: int) -> float:
        """The measured proportion of group g: the published p where counts are derived
        (the exact printed number), else counts / N."""
        if self.published is not None:  # two groups: the published one and the rest
            p = float(self.published["p"])
            return p if self.groups[g][0] == self.published["group"] else 1.0 - p
        assert self.counts is not None
        return self.counts[g] / sum(self.counts)


@dataclass(frozen=True)
class Dataset:
    name: str
    path: str
    citation: str
    where_read: str
    caveats: tuple[str, ...]
    objects: tuple[DataObject, ...]
    dispersion: Dispersion | None = None  # estimated where the dataset names a series

    def binomial(self) -> Dataset:
        """The dataset with its counts taken as binomial (no dispersion applied)."""
        return replace(self, objects=tuple(replace(o, dispersion=1.0, dispersion_df=None)
                                           for o in self.objects))

    def object(self, name: str) -> DataObject:
        for o in self.objects:
            if o.name == name:
                return o
        import difflib

        close = difflib.get_close_matches(name, [o.name for o in self.objects], n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise DataError(self.path, "objects", f"no object named {name!r}{hint}", show_value=False)


def load_dataset(path: str | Path) -> Dataset:
    from dice_models import read_yaml

    return parse_dataset(read_yaml(path), str(path))


def parse_dataset(data: Any, source: str) -> Dataset:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping with name, source, objects",
                        type(data).__name__)
    check_fields(data, DATASET_FIELDS, source, "")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise DataError(source, "name", "must be a non-empty string", name)
    src = data.get("source")
    if not isinstance(src, dict):
        raise DataError(source, "source", "must be a mapping {citation, where_read, ...}", src)
    check_fields(src, SOURCE_FIELDS, source, "source")
    citation = _text(src.get("citation"), source, "source.citation")
    where = _text(src.get("where_read"), source, "source.where_read")
    caveats = src.get("caveats", [])
    if not isinstance(caveats, list) or not all(isinstance(c, str) and c.strip() for c in caveats):
        raise DataError(source, "source.caveats", "must be a list of sentences", caveats)
    defaults = data.get("defaults", {}) or {}
    if not isinstance(defaults, dict):
        raise DataError(source, "defaults", "must be a mapping of object fields", defaults)
    check_fields(defaults, tuple(f for f in OBJECT_FIELDS if f != "name"), source, "defaults")
    raw_objects = data.get("objects")
    if not isinstance(raw_objects, list) or not raw_objects:
        raise DataError(source, "objects", "must be a non-empty list of objects", raw_objects)
    objects = []
    for i, raw in enumerate(raw_objects):
        where_i = f"objects[{i}]"
        if not isinstance(raw, dict):
            raise DataError(source, where_i, "must be a mapping of object fields", raw)
        check_fields(raw, OBJECT_FIELDS, source, where_i)
        merged = {**defaults, **raw}
        for key in ("stated", "assumed"):  # merged per field, the object's word winning
            if isinstance(defaults.get(key), dict) and isinstance(raw.get(key), dict):
                merged[key] = {**defaults[key], **raw[key]}
        objects.append(_parse_object(merged, i, source, where_i))
    names = [o.name for o in objects]
    for n in names:
        if names.count(n) > 1:
            raise DataError(source, "objects", f"object name {n!r} is used twice", show_value=False)
    disp = None
    if "dispersion" in data:
        disp = _dispersion(data["dispersion"], objects, raw_objects, source)
        objects = [replace(o, dispersion=disp.phi, dispersion_df=disp.df)
                   if o.counts is not None else o for o in objects]
    return Dataset(name=name, path=source, citation=citation, where_read=where,
                   caveats=tuple(" ".join(c.split()) for c in caveats), objects=tuple(objects),
                   dispersion=disp)


def _dispersion(raw: Any, objects: list[DataObject], raw_objects: list[Any],
                source: str) -> Dispersion:
    """The measured counts' scatter about smooth trends in the series `dispersion.series`
    names: a number every object with counts gives in its `as_published`."""
    if not isinstance(raw, dict):
        raise DataError(source, "dispersion", "must be {series: NAME} (a number of "
                        "as_published the objects vary in)", raw)
    check_fields(raw, DISPERSION_FIELDS, source, "dispersion")
    series = raw.get("series")
    if not isinstance(series, str) or not series:
        raise DataError(source, "dispersion.series", "must name a number of each object's "
                        "as_published", series)
    names, values, ks, ns = [], [], [], []
    for o, r in zip(objects, raw_objects, strict=True):
        if o.counts is None:  # validation only: no N, nothing to scatter
            continue
        where = f"objects[{o.index}] ({o.name})"
        if len(o.groups) != 2:
            raise DataError(source, f"{where}.outcomes", "a dataset with a dispersion series "
                            "needs two outcome groups per object", show_value=False)
        pub = r.get("as_published") if isinstance(r, dict) else None
        x = pub.get(series) if isinstance(pub, dict) else None
        if not _finite(x) or float(x) <= 0:
            raise DataError(source, f"{where}.as_published.{series}", "must be a positive "
                            "number (the dispersion series)", x)
        names.append(o.name)
        values.append(float(x))
        ks.append(o.counts[0])
        ns.append(sum(o.counts))
    if len(names) < MIN_SERIES_OBJECTS:
        raise DataError(source, "dispersion", f"a series needs at least {MIN_SERIES_OBJECTS} "
                        f"objects with counts, not {len(names)}", show_value=False)
    if len(set(values)) < MIN_SERIES_OBJECTS:
        raise DataError(source, "dispersion.series", f"needs at least {MIN_SERIES_OBJECTS} "
                        f"different values of {series}", show_value=False)
    return series_dispersion(series, names, values, ks, ns)


def _parse_object(raw: dict[str, Any], index: int, source: str, where: str) -> DataObject:
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise DataError(source, f"{where}.name", "must be a non-empty string", name)
    where = f"objects[{index}] ({name})"
    stated = _marks(raw.get("stated", {}), source, f"{where}.stated")
    assumed = _marks(raw.get("assumed", {}), source, f"{where}.assumed")
    for f in MARKED:
        if f not in stated and f not in assumed:
            raise DataError(source, f"{where}.{f}", "must be marked stated: (the source's words) "
                            "or assumed: (the reason), or both", show_value=False)
    die_fields: dict[str, Any] = {"name": name}
    for f in ("geometry", "values", "mass_model", "material"):
        if f in raw:
            die_fields[f] = raw[f]
    mass = raw.get("mass")
    if isinstance(mass, dict):
        check_fields(mass, ("density",), source, f"{where}.mass")
        rho = mass.get("density")
        if not _finite(rho) or not 10 <= float(rho) <= 30_000:
            raise DataError(source, f"{where}.mass.density", "must be a density in kg/m^3 "
                            "between 10 and 30000", rho)
        die_fields["mass"] = 1.0  # replaced below by density x volume
    else:
        die_fields["mass"] = mass
    die = parse_die(die_fields, f"{source}: {where}")
    if isinstance(mass, dict):
        volume = _volume(die)
        die = parse_die({**die_fields, "mass": float(mass["density"]) * volume},
                        f"{source}: {where}")
    if "surface" not in raw:
        raise DataError(source, f"{where}.surface", "is missing (a material preset or mapping)",
                        show_value=False)
    surface = material_from(raw["surface"], source, f"{where}.surface")
    table = TableSpec(surface=surface, source=source)
    if "table" in raw:
        table = parse_table(raw["table"], f"{source}: {where}.table").with_surface(surface)
    throw_raw = raw.get("throw")
    if not isinstance(throw_raw, dict):
        raise DataError(source, f"{where}.throw", "must be {as_described: TEXT, model: {...}}",
                        throw_raw)
    check_fields(throw_raw, THROW_FIELDS, source, f"{where}.throw")
    throw_text = _text(throw_raw.get("as_described"), source, f"{where}.throw.as_described")
    throw = parse_throw(throw_raw.get("model", {}), f"{source}: {where}", die, table)
    # Throw scales up to the top of the search must stay within the world's speed limit.
    if throw.speed[1] * PARAMETERS["throw_scale"][1] > MAX_SPEED:
        raise DataError(source, f"{where}.throw.model.speed", f"times the largest throw_scale "
                        f"{PARAMETERS['throw_scale'][1]} must stay under {MAX_SPEED} m/s",
                        list(throw.speed))
    groups = _groups(raw.get("outcomes"), die, source, f"{where}.outcomes")
    counts, n, published = _counts(raw, groups, source, where)
    where_read = _text(raw.get("where_read"), source, f"{where}.where_read")
    pub = raw.get("as_published")
    if pub is not None and not isinstance(pub, dict):
        raise DataError(source, f"{where}.as_published", "must be a mapping of the numbers as "
                        "printed", pub)
    return DataObject(name=name, index=index, die=die, surface=surface, table=table, throw=throw,
                      throw_text=throw_text, groups=groups, counts=counts, n=n,
                      derived=published is not None and counts is not None, published=published,
                      where_read=where_read, stated=stated, assumed=assumed)


def _marks(raw: Any, source: str, where: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise DataError(source, where, "must be a mapping of field: text", raw)
    check_fields(raw, MARKED + ("values", "outcomes", "counts", "table"), source, where)
    return {str(k): _text(v, source, f"{where}.{k}") for k, v in raw.items()}


def _groups(raw: Any, die: DieModel, source: str, where: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    values = die_shape(die).values
    if not isinstance(raw, dict) or len(raw) < 2:
        raise DataError(source, where, "must map at least two group names to lists of face values",
                        raw)
    seen: dict[int, str] = {}
    out = []
    for g, vals in raw.items():
        if not isinstance(vals, list) or not vals or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in vals):
            raise DataError(source, f"{where}.{g}", "must be a list of face values", vals)
        for v in vals:
            if v not in values:
                raise DataError(source, f"{where}.{g}", f"face value {v} is not on the die "
                                f"(its values: {sorted(set(values))})", vals)
            if v in seen:
                raise DataError(source, f"{where}.{g}", f"face value {v} is also in group "
                                f"{seen[v]}", vals)
            seen[v] = str(g)
        out.append((str(g), tuple(vals)))
    missing = sorted(set(values) - set(seen))
    if missing:
        raise DataError(source, where, f"face values {missing} are in no group", show_value=False)
    return tuple(out)


def _counts(raw: dict[str, Any], groups: tuple[tuple[str, tuple[int, ...]], ...], source: str,
            where: str) -> tuple[tuple[int, ...] | None, int | None, dict[str, Any] | None]:
    names = [g for g, _ in groups]
    if ("counts" in raw) == ("proportion" in raw):
        raise DataError(source, where, "give either counts: {group: count} or proportion: "
                        "{group, p, n}", show_value=False)
    if "counts" in raw:
        c = raw["counts"]
        if not isinstance(c, dict) or set(c) != set(names) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in c.values()):
            raise DataError(source, f"{where}.counts", f"must give a count >= 0 for each group "
                            f"({', '.join(names)})", c)
        counts = tuple(int(c[g]) for g in names)
        if sum(counts) == 0:
            raise DataError(source, f"{where}.counts", "are all zero", c)
        return counts, sum(counts), None
    p = raw["proportion"]
    if not isinstance(p, dict):
        raise DataError(source, f"{where}.proportion", "must be {group, p, n}", p)
    check_fields(p, PROPORTION_FIELDS, source, f"{where}.proportion")
    group = p.get("group")
    if group not in names:
        raise DataError(source, f"{where}.proportion.group", f"must be one of {', '.join(names)}",
                        group)
    if len(names) != 2:
        raise DataError(source, f"{where}.proportion", "a published proportion needs exactly two "
                        "outcome groups (the group and the rest)", show_value=False)
    prob = p.get("p")
    if not _finite(prob) or not 0 <= float(prob) <= 1:
        raise DataError(source, f"{where}.proportion.p", "must be a probability in [0, 1]", prob)
    n = p.get("n")
    published = {"group": group, "p": float(prob), "n": n}
    if n == "unknown":
        return None, None, published
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise DataError(source, f"{where}.proportion.n", "must be a positive integer, or "
                        "'unknown' where the source gives none", n)
    k = round(float(prob) * n)  # derived: the source prints only p and N
    counts = tuple(k if g == group else n - k for g in names)
    return counts, n, published


def _volume(die: DieModel) -> float:
    tris = die_shape(replace(die, com_offset=None)).poly.triangles()
    return float(abs(np.einsum("ti,ti->t", tris[:, 0], np.cross(tris[:, 1], tris[:, 2])).sum()) / 6.0)


def _text(x: Any, source: str, where: str) -> str:
    if not isinstance(x, str) or not x.strip():
        raise DataError(source, where, "must be a non-empty text", x)
    return " ".join(x.split())


def _finite(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(float(x))


# -- simulating objects at given parameters -----------------------------------------------


@dataclass(frozen=True)
class SimCounts:
    counts: tuple[int, ...]  # on-table throws per outcome group
    off_table: int  # fell off, cocked or overhanging: not counted
    errors: int  # physics errors: not counted

    @property
    def n(self) -> int:
        return sum(self.counts)


def base_parameters(obj: DataObject) -> dict[str, float]:
    pair = library().pair(*obj.pair)
    return {"friction": pair.friction, "restitution": pair.restitution, "throw_scale": 1.0,
            "spinning_friction": pair.spinning_friction}


def experiment_for(obj: DataObject, params: dict[str, float], seed: int,
                   engine: str = "pybullet", time_step: float | None = None) -> Experiment:
    s = params.get("throw_scale", 1.0)
    t = obj.throw
    throw = replace(t, speed=(t.speed[0] * s, t.speed[1] * s), spin=(t.spin[0] * s, t.spin[1] * s))
    # Throw i of object j: default_rng([seed', i]) with seed' = seed * 1000 + j (config's rule).
    return Experiment(name=obj.name, source=obj.die.source, die=obj.die,
                      table=obj.table, throw=throw,
                      throws=1, chunk_size=1, seed=seed * 1000 + obj.index,
                      physics=(PhysicsSettings(engine=engine) if time_step is None else
                               PhysicsSettings(engine=engine, time_step=time_step)))


def trial_library(obj: DataObject, params: dict[str, float]) -> MaterialLibrary:
    """The pair values of a trial as a library for overlay(): friction, restitution and the
    spinning lever arm as given, the rolling lever arm as the pair's data."""
    die, surface = obj.pair
    base = library().pair(die, surface)
    key = (die.name, surface.name) if die.name <= surface.name else (surface.name, die.name)
    stated = {"friction": params["friction"], "restitution": params["restitution"],
              "rolling_friction": base.rolling_friction,
              "spinning_friction": params.get("spinning_friction", base.spinning_friction),
              "source": "calibration trial"}
    return MaterialLibrary({die.name: die, surface.name: surface}, {key: stated})


def simulate(obj: DataObject, params: dict[str, float], seed: int, indices: Sequence[int],
             engine: str = "pybullet", time_step: float | None = None) -> SimCounts:
    """Throw `obj` at `params` for the given throw indices on `engine` (at `time_step`, the
    default step when None); count on-table outcomes by group."""
    from simulator.experiments.dispatch import ThrowSimulator

    exp = experiment_for(obj, params, seed, engine, time_step)
    group_of = {v: gi for gi, (_, vals) in enumerate(obj.groups) for v in vals}
    counts = [0] * len(obj.groups)
    off = err = 0
    with overlay(trial_library(obj, params)):
        sim = ThrowSimulator(exp)  # a fresh world: its contact cache must see this trial
        try:
            rows = sim.run(list(indices))
        finally:
            sim.world.close()
    for r in rows:
        if r.status == "on_table" and r.face is not None:
            counts[group_of[r.face]] += 1
        elif r.status == "error":
            err += 1
        else:
            off += 1
    return SimCounts(tuple(counts), off, err)


_POOL_OBJECTS: dict[str, DataObject] = {}


def _init_worker(objects: list[DataObject]) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for o in objects:
        _POOL_OBJECTS[_key(o)] = o


def _key(o: DataObject) -> str:
    return f"{o.die.source}#{o.index}"


def _task(args: tuple[str, dict[str, float], int, int, int, str, float | None]) -> SimCounts:
    key, params, seed, lo, hi, engine, time_step = args
    return simulate(_POOL_OBJECTS[key], params, seed, range(lo, hi), engine, time_step)


class Simulator:
    """Throws objects at parameter points, `throws` each, on `workers` processes; caches
    every (object, point, seed). Chunks of CHUNK throws keep both cores busy."""

    CHUNK = 50

    def __init__(self, objects: Sequence[DataObject], throws: int, workers: int = 1,
                 engine: str = "pybullet", time_step: float | None = None) -> None:
        self.throws = throws
        self.engine = engine
        self.time_step = time_step
        self.workers = workers
        self.cache: dict[tuple[str, tuple[tuple[str, float], ...], int], SimCounts] = {}
        self.evaluations = 0
        self.thrown = 0
        self._pool: Any = None
        self._objects = list(objects)

    def __enter__(self) -> Simulator:
        if self.workers > 1:
            ctx = multiprocessing.get_context("fork")
            self._pool = ctx.Pool(self.workers, initializer=_init_worker, initargs=(self._objects,))
        else:
            _init_worker(self._objects)
        return self

    def __exit__(self, *_: Any) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def run(self, objects: Sequence[DataObject], params: dict[str, float], seed: int) -> list[SimCounts]:
        pkey = tuple(sorted((k, round(v, 12)) for k, v in params.items()))
        todo = [o for o in objects if (_key(o), pkey, seed) not in self.cache]
        if todo:
            self.evaluations += 1
            tasks = [(_key(o), params, seed, lo, min(lo + self.CHUNK, self.throws), self.engine,
                      self.time_step)
                     for o in todo for lo in range(0, self.throws, self.CHUNK)]
            parts = (self._pool.map(_task, tasks, chunksize=1) if self._pool is not None
                     else [_task(t) for t in tasks])
            self.thrown += len(todo) * self.throws
            it = iter(parts)
            for o in todo:
                acc = [0] * len(o.groups)
                off = err = 0
                for _ in range(0, self.throws, self.CHUNK):
                    part = next(it)
                    acc = [a + b for a, b in zip(acc, part.counts, strict=True)]
                    off += part.off_table
                    err += part.errors
                self.cache[(_key(o), pkey, seed)] = SimCounts(tuple(acc), off, err)
        return [self.cache[(_key(o), pkey, seed)] for o in objects]


# -- the fit ------------------------------------------------------------------------------


def chi_square(objects: Sequence[DataObject], sims: Sequence[SimCounts],
               binomial: bool = False) -> tuple[float, int]:
    """Sum of the homogeneity X^2 of measured against simulated counts, and its degrees of
    freedom (groups seen in neither are dropped). The measured counts weigh as N / their
    dispersion (`binomial`: as N). An object no throw of which stayed on the table scores as
    if every group were missed by a wide margin."""
    total, df = 0.0, 0
    for o, s in zip(objects, sims, strict=True):
        assert o.counts is not None
        if s.n == 0:
            total += 1e4
            df += len(o.groups) - 1
            continue
        measured = list(o.counts) if binomial else list(o.effective_counts())
        res = homogeneity(measured, list(s.counts))
        total += res.statistic
        df += res.df
    return total, df


def phi_df(objects: Sequence[DataObject]) -> int | None:
    """The degrees of freedom of the dispersion the objects' counts are weighed by (the
    fewest, where they differ); None where every one is binomial."""
    dfs = [o.dispersion_df for o in objects if o.counts is not None and o.dispersion_df]
    return min(dfs) if dfs else None


@dataclass
class FitResult:
    names: tuple[str, ...]
    values: dict[str, float]  # every parameter: fitted ones at the optimum, others at base
    sigma: dict[str, float | None]
    chi2: float
    df: int
    p: float
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    method: str = ""
    noise_sd: float | None = None  # the quadratic's residual sd, X^2 units
    # The surrogate method's profile intervals (may be asymmetric; None: open) and its record.
    intervals: dict[str, list[float] | None] | None = None
    surrogate: dict[str, Any] | None = None


def fit(objects: Sequence[DataObject], sim: Simulator, names: Sequence[str], seed: int,
        grid: int = 3, refine: int = 24, log: Callable[[str], None] = lambda s: None) -> FitResult:
    """Grid, then Nelder-Mead, then the curvature design (module docstring)."""
    base = base_parameters(objects[0])
    lo = np.array([PARAMETERS[n][0] for n in names])
    hi = np.array([PARAMETERS[n][1] for n in names])
    k = len(names)
    evals: list[dict[str, Any]] = []
    seen: dict[tuple[float, ...], float] = {}

    def point(u: np.ndarray) -> dict[str, float]:
        x = lo + np.clip(u, 0.0, 1.0) * (hi - lo)
        return {**base, **{n: float(v) for n, v in zip(names, x, strict=True)}}

    def f(u: np.ndarray) -> float:
        uk = tuple(round(float(v), 6) for v in np.clip(u, 0.0, 1.0))
        if uk in seen:
            return seen[uk]
        params = point(np.array(uk))
        sims = sim.run(objects, params, seed)
        x2, df = chi_square(objects, sims)
        seen[uk] = x2
        evals.append({**{n: params[n] for n in names}, "chi2": x2})
        log(f"  eval {len(evals):3d}: " + ", ".join(f"{n} {params[n]:.4f}" for n in names)
            + f"  X^2 {x2:.2f}")
        return x2

    if k == 0:
        sims = sim.run(objects, base, seed)
        x2, df = chi_square(objects, sims)
        return FitResult((), base, {}, x2, df, x2_p(x2, df, phi_df(objects)),
                         [], "no parameter fitted")
    axes = [(np.arange(grid) + 0.5) / grid for _ in range(k)]
    for u in np.array(np.meshgrid(*axes, indexing="ij")).reshape(k, -1).T:
        f(u)
    best = np.array(min(seen, key=lambda t: seen[t]))
    if refine > 0:
        simplex = np.array([best] + [np.clip(best + np.eye(k)[i] * (0.5 / grid)
                                             * (1 if best[i] < 0.5 else -1), 0, 1)
                                     for i in range(k)])
        res = optimize.minimize(f, best, method="Nelder-Mead",
                                options={"initial_simplex": simplex, "maxfev": refine,
                                         "xatol": 0.01, "fatol": 0.5})
        cand = np.clip(res.x, 0, 1)
        f(cand)
        best = np.array(min(seen, key=lambda t: seen[t]))
    # The curvature design: axial +-STEP and one diagonal per pair of parameters.
    centre = np.clip(best, STEP, 1 - STEP)
    design = [centre]
    for i in range(k):
        for sgn in (1, -1):
            design.append(centre + sgn * STEP * np.eye(k)[i])
    for i in range(k):
        for j in range(i + 1, k):
            design.append(centre + STEP * (np.eye(k)[i] + np.eye(k)[j]))
    for u in design:
        f(u)
    best = np.array(min(seen, key=lambda t: seen[t]))
    # The quadratic: through the evaluated points near the best one, the region widened
    # until it holds twice as many points as the quadratic has coefficients (the objective's
    # noise of several X^2 units needs them).
    n_coef = 1 + k + k * (k + 1) // 2
    all_u = np.array(list(seen))
    all_y = np.array([seen[t] for t in seen])
    for radius in (2 * STEP, 0.25, 0.5, 1.0):
        near = np.max(np.abs(all_u - best), axis=1) <= radius + 1e-9
        if near.sum() >= 2 * n_coef:
            break
    grad, hess, resid_sd = _quadratic(all_u[near] - best, all_y[near])
    ok = bool(np.all(np.linalg.eigvalsh(hess) > 0))
    chosen = "the best evaluated point"
    if ok:  # the quadratic's minimum, where it lies in the region and the box
        u_min = best - np.linalg.solve(hess, grad)
        if np.max(np.abs(u_min - best)) <= radius and np.all((u_min >= 0) & (u_min <= 1)):
            best, chosen = u_min, "the quadratic's minimum"
    sigma: dict[str, float | None] = {n: None for n in names}
    scale = hi - lo
    if ok:
        cov_u = 2.0 * np.linalg.inv(hess)
        for i, n in enumerate(names):
            var = float(cov_u[i, i]) * float(scale[i]) ** 2
            sigma[n] = math.sqrt(var) if var > 0 else None
    else:  # the quadratic is not convex in every direction: per-axis curvature where it is
        for i, n in enumerate(names):
            if hess[i, i] > 0:
                sigma[n] = math.sqrt(2.0 / hess[i, i]) * float(scale[i])
    values = point(best)
    sims = sim.run(objects, values, seed)
    x2, df = chi_square(objects, sims)
    df_fit = max(df - k, 1)
    method = (f"grid {grid}^{k}, Nelder-Mead (at most {refine} evaluations), an axial and "
              f"diagonal design at +-{STEP:g}; a quadratic fitted by least squares to X^2 at the "
              f"{int(near.sum())} evaluated points within {radius:g} of the best (ranges scaled "
              f"to 1; residual sd {resid_sd:.2f} X^2 units: the objective's noise); estimate: "
              f"{chosen}; sigma from the quadratic's curvature, cov = 2 H^-1"
              + ("" if ok else " (not convex jointly: per-axis curvature, conditional on the rest)"))
    return FitResult(tuple(names), values, sigma, x2, df_fit, x2_p(x2, df_fit, phi_df(objects)),
                     evals, method, resid_sd)


def fit_surrogate(objects: Sequence[DataObject], sim: Simulator, names: Sequence[str], seed: int,
                  design: int = 24, alpha: float = 0.01, stages: int = MAX_STAGES,
                  log: Callable[[str], None] = lambda s: None) -> FitResult:
    """Designs of `design` points (the first over the ranges, up to `stages - 1` more around
    the estimate), each point simulated with its own seeds; a quadratic logit per object
    through them (`simulator.experiments.surrogate`); the minimum of the summed X^2 of those
    surfaces against the measured counts; profile intervals (docs/calibration.md)."""
    k = len(names)
    if k == 0:
        return fit(objects, sim, names, seed, log=log)
    base = base_parameters(objects[0])
    lo = np.array([PARAMETERS[n][0] for n in names])
    hi = np.array([PARAMETERS[n][1] for n in names])
    us: list[np.ndarray] = []
    counts: list[list[tuple[int, ...]]] = []  # per design point, per object
    evals: list[dict[str, Any]] = []

    def point(u: np.ndarray) -> dict[str, float]:
        x = lo + np.clip(u, 0.0, 1.0) * (hi - lo)
        return {**base, **{n: float(v) for n, v in zip(names, x, strict=True)}}

    def simulate_design(pts: np.ndarray, stage: int) -> None:
        for u in pts:
            i = len(us)
            params = point(u)
            sims = sim.run(objects, params, design_seed(seed, i))
            x2, _ = chi_square(objects, sims)
            us.append(np.clip(u, 0.0, 1.0))
            counts.append([c.counts for c in sims])
            evals.append({**{n: params[n] for n in names}, "chi2": x2, "stage": stage})
            log(f"  design {stage}, point {i + 1:3d}: " + ", ".join(
                f"{n} {params[n]:.4f}" for n in names) + f"  X^2 {x2:.2f} (this point's throws)")

    def surfaces(region: tuple[np.ndarray, np.ndarray]) -> tuple[list[Any], np.ndarray]:
        inside = np.array([bool(np.all((u >= region[0] - 1e-9) & (u <= region[1] + 1e-9)))
                           for u in us])
        pts = np.array(us)[inside]
        out = []
        for j, o in enumerate(objects):
            c = np.array([counts[i][j] for i in range(len(us)) if inside[i]])
            assert o.counts is not None
            out.append((sg.fit_logit(pts, c), o.effective_counts()))
        return out, pts

    unsettled: list[int] = []  # designs whose estimate kept moving (sg.estimate)

    def best_of(parts: list[Any], region: tuple[np.ndarray, np.ndarray],
                pts: np.ndarray) -> tuple[np.ndarray, float]:
        ys = sg.objective(parts, use_v=False)(pts)
        starts = [pts[i] for i in np.argsort(ys)[:4]] + [(region[0] + region[1]) / 2]
        u, x2, settled = sg.estimate(parts, starts, region[0], region[1])
        if not settled:
            unsettled.append(len(us) // design)
            log(f"  warning: the estimate of design {len(us) // design} kept moving between "
                f"rounds of V held at it; its last point is used")
        return u, x2

    unit = (np.zeros(k), np.ones(k))
    simulate_design(qmc.LatinHypercube(d=k, seed=seed).random(design), 1)
    parts, pts = surfaces(unit)
    centre, x2 = best_of(parts, unit, pts)
    best, estimates = centre, [centre]
    # Then designs of as many points in +-LOCAL of the estimate, the surfaces refitted on
    # every point within +-2 LOCAL of it, the estimate sought only in the +-LOCAL box where
    # the points are dense (never extrapolated), until it lies inside that box (or on a
    # search bound) or `stages` designs are thrown.
    max_stages, stages, on_edge = stages, 1, False  # the first box's edges are the bounds
    for stage in range(2, max_stages + 1):
        box = (np.clip(centre - LOCAL, 0, 1), np.clip(centre + LOCAL, 0, 1))
        lhs = qmc.LatinHypercube(d=k, seed=seed + stage).random(design)
        simulate_design(box[0] + lhs * (box[1] - box[0]), stage)
        region = (np.clip(centre - 2 * LOCAL, 0, 1), np.clip(centre + 2 * LOCAL, 0, 1))
        parts, pts = surfaces(region)
        best, x2 = best_of(parts, box, pts)
        on_edge = bool(np.any(((best <= box[0] + 1e-6) & (box[0] > 0))
                              | ((best >= box[1] - 1e-6) & (box[1] < 1))))
        stages = stage
        if not on_edge:
            break
        centre = best
        estimates.append(centre)
    # The profile runs over the box the surfaces' points span (and the estimate, which may lie
    # on a search bound a little past the outermost point).
    region = (np.minimum(pts.min(axis=0), best), np.maximum(pts.max(axis=0), best))
    u1 = estimates[0]
    f = sg.objective(parts, best)  # the surfaces' uncertainty at the estimate (sg.estimate)
    level = rise95(phi_df(objects))
    prof = sg.profile(f, best, region[0], region[1], level)
    scale = hi - lo
    intervals: dict[str, list[float] | None] = {}
    sigma: dict[str, float | None] = {}
    open_ends = []
    for i, n in enumerate(names):
        a, b, at_low, at_high = prof[i]
        # An end at the region's edge is open unless that edge is the search's bound.
        open_low = at_low and region[0][i] > NEAR_BOUND
        open_high = at_high and region[1][i] < 1 - NEAR_BOUND
        if open_low or open_high:
            intervals[n], sigma[n] = None, None
            open_ends.append(n)
        else:
            intervals[n] = [float(lo[i] + a * scale[i]), float(lo[i] + b * scale[i])]
            sigma[n] = (b - a) * float(scale[i]) / (2 * math.sqrt(level))
    df_fit = max(sum(len(o.groups) - 1 for o in objects) - k, 1)
    lof = [{"object": o.name, "deviance": s.deviance, "df": s.df, "p": s.lack_of_fit_p,
            "throws": s.throws} for o, (s, _) in zip(objects, parts, strict=True)]
    lof_dev, lof_df = sum(x["deviance"] for x in lof), sum(x["df"] for x in lof)
    lof_p = float(sps.chi2.sf(lof_dev, lof_df)) if lof_df > 0 else None
    record = {"design_points": len(us), "design_size": design, "fitted_on": int(len(pts)),
              "region": {n: [float(lo[i] + region[0][i] * scale[i]),
                             float(lo[i] + region[1][i] * scale[i])] for i, n in enumerate(names)},
              "first_estimate": {n: float(lo[i] + u1[i] * scale[i]) for i, n in enumerate(names)},
              "stage_centres": [{n: float(lo[i] + c[i] * scale[i]) for i, n in enumerate(names)}
                                for c in estimates[:stages - 1]],
              "lack_of_fit": {"deviance": lof_dev, "df": lof_df, "p": lof_p, "per_object": lof},
              "lack_of_fit_bad": lof_p is not None and lof_p < alpha,
              "open_intervals": open_ends,
              # False: after max_stages designs the estimate still lay on the last box's edge
              "converged": not on_edge,
              # designs whose estimate did not stop moving with V held at it (sg.estimate)
              "estimate_unsettled": unsettled}
    method = (f"surrogate: a Latin hypercube of {design} points over the search ranges, then "
              f"{design} a stage in +-{LOCAL:g} of the estimate (ranges scaled to 1; "
              f"{stages - 1} such stage(s)), each point thrown with its own seeds; per "
              f"object a multinomial logit, quadratic in the parameters, fitted by maximum "
              f"likelihood to the {len(pts)} points within +-{2 * LOCAL:g} of the last stage's "
              f"centre; estimate: inside that stage's box, the minimum of the summed "
              f"Pearson X^2 of the measured counts against it, the surface's own covariance "
              f"at the estimate added to each measured share's (held there while the "
              f"estimate is sought); 95% intervals: profile of that X^2 "
              f"(rise {level:.2f}) over the box the points span, sigma = half the interval / "
              f"{math.sqrt(level):.2f}; an interval that reaches that box's edge (not a search "
              f"bound) is not determined")
    return FitResult(tuple(names), point(best), sigma, float(x2), df_fit,
                     x2_p(x2, df_fit, phi_df(objects)), evals, method, None, intervals, record)


def min_design(k: int) -> int:
    """The fewest design points for k parameters: twice the quadratic's coefficients."""
    return 2 * sg.n_features(k)


def design_seed(seed: int, i: int) -> int:
    """Seed of design point i: apart from the fit's `seed` and the report's `seed + 1`
    (throw j of object o at it: default_rng([1000 design_seed + o, j]))."""
    return 1000 * (seed + 2) + i


def _quadratic(d: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Least-squares quadratic y = c + g.d + d^T H d / 2 through the points: g, H and the
    residual standard deviation."""
    k = d.shape[1]
    a = sg.features(d, centre=0.0)  # 1, d_i, d_i d_j (i <= j)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    h = np.zeros((k, k))
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    for c, (i, j) in zip(coef[1 + k:], pairs, strict=True):
        h[i, j] = h[j, i] = 2.0 * c if i == j else c  # d_i^2 c = d_i^2 H_ii / 2
    resid = y - a @ coef
    dof = max(len(y) - len(coef), 1)
    return coef[1:1 + k], h, float(math.sqrt(float(resid @ resid) / dof))


# -- the whole command ----------------------------------------------------------------------


def split(ds: Dataset, holdout: Sequence[str] | None) -> tuple[list[DataObject], list[DataObject]]:
    """Fitted and held-out objects: `holdout` names (an empty list: none), else every second
    object (the 2nd, 4th, ...) is held out. Objects without a published N are never fitted."""
    if holdout is not None:
        held = {ds.object(n).name for n in holdout}
    else:
        held = {o.name for i, o in enumerate(ds.objects) if i % 2 == 1}
    held |= {o.name for o in ds.objects if o.counts is None}
    fitted = [o for o in ds.objects if o.name not in held]
    return fitted, [o for o in ds.objects if o.name in held]


def calibrate(dataset: Dataset, out: str | Path, throws: int = 300, workers: int = 1,
              fit_names: Sequence[str] = ("friction", "restitution", "throw_scale"),
              holdout: Sequence[str] | None = None, validate: Sequence[Dataset] = (),
              seed: int = 0, grid: int = 3, refine: int = 24, alpha: float = 0.01,
              log: Callable[[str], None] = lambda s: None, engine: str = "pybullet",
              method: str = "surrogate", design: int = 24,
              stages: int = MAX_STAGES, binomial: bool = False) -> dict[str, Any]:
    """Fit, simulate every object at the fit with fresh seeds, write DIR's four files; the
    report as a dict. `engine` simulates the throws (the fitted values are that engine's).
    The measured counts weigh as N / the dataset's dispersion, or as N (`binomial`)."""
    t0 = time.perf_counter()
    if binomial:
        dataset = dataset.binomial()
        validate = [v.binomial() for v in validate]
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if method == "surrogate" and design < min_design(len(fit_names)):
        raise ValueError(f"design must be at least {min_design(len(fit_names))} for "
                         f"{len(fit_names)} parameter(s), not {design}")
    for n in fit_names:
        if n not in PARAMETERS:
            raise DataError("--fit", "fit", f"unknown parameter {n!r}; known: "
                            f"{', '.join(PARAMETERS)}", show_value=False)
    fitted, held = split(dataset, holdout)
    if not fitted:
        raise DataError(dataset.path, "objects", "no object with counts is left to fit (objects "
                        "with n: unknown are for validation only)", show_value=False)
    die_m, surf_m = fitted[0].pair
    for o in fitted[1:]:
        if o.pair != (die_m, surf_m):
            raise DataError(dataset.path, f"objects ({o.name})", f"names material {o.pair[0].name} "
                            f"on {o.pair[1].name}, but {fitted[0].name} names {die_m.name} on "
                            f"{surf_m.name}: one fit calibrates one pair", show_value=False)
    everyone = [*fitted, *held, *(o for ds in validate for o in ds.objects)]
    with Simulator(everyone, throws, workers, engine) as sim:
        log(f"fitting {', '.join(fit_names) or 'nothing'} on {len(fitted)} objects of "
            f"{dataset.name}, {throws} throws each per evaluation, {workers} worker(s)")
        if method == "surrogate":
            res = fit_surrogate(fitted, sim, list(fit_names), seed, design, alpha, stages, log)
        else:
            res = fit(fitted, sim, list(fit_names), seed, grid, refine, log)
        fit_seconds = time.perf_counter() - t0
        log(f"fit done in {fit_seconds:.1f} s; checking every object at the fit with fresh seeds")
        rows = []
        fresh: dict[str, dict[str, Any]] = {}
        parts: list[tuple[str, Sequence[DataObject]]] = [("fitted", fitted), ("held-out", held)]
        parts += [(f"validation: {ds.name}", ds.objects) for ds in validate]
        for part, objs in parts:
            measured: list[tuple[DataObject, SimCounts]] = []
            for o in objs:
                applied, params = _applied(o, dataset, die_m, surf_m, res.values)
                s = sim.run([o], params, seed + 1)[0]
                rows.extend(_points(o, s, part, applied))
                if o.counts is not None:
                    measured.append((o, s))
            if measured:
                fresh[part] = fresh_test(measured, len(fit_names) if part == "fitted" else 0)
        log("checking the fitted objects at half the time step")
        step = step_check(fitted, dataset, die_m, surf_m, res.values, sim, seed + 1, alpha)
        thrown, evaluations = sim.thrown + step["throws_simulated"], sim.evaluations + 1
    seconds = time.perf_counter() - t0
    report = _report(dataset, validate, res, rows, fitted, held, throws, workers, seconds,
                     fit_seconds, thrown, evaluations, alpha, seed, die_m, surf_m, fit_names)
    report["settings"]["engine"] = engine  # the fitted values hold for this engine
    report["dispersion"] = (None if dataset.dispersion is None else
                            {**dataset.dispersion.to_json(), "applied": not binomial})
    report["step_check"] = step
    report["fresh_throws"] = fresh
    write_outputs(report, out, dataset, die_m, surf_m)
    return report


def fresh_test(measured: Sequence[tuple[DataObject, SimCounts]], fitted_k: int) -> dict[str, Any]:
    """The measured counts of a part against its fresh simulation at the fit (the report's
    seeds, none of them used by the fit): the summed homogeneity X^2, simulated noise
    included, on the degrees of freedom of the groups seen in either (`homogeneity`) less
    the fitted parameters for the fitted part (`fitted_k`), none for the others. Unlike the
    fit's X^2 this asks no surface. An object none of whose throws stayed on the table is
    left out and counted (`no_throws`); with no degree of freedom left, chi2 and p are None.
    The measured counts weigh as N / their dispersion (`chi2_binomial`: as N)."""
    kept = [(o, s) for o, s in measured if s.n > 0]
    x2, df = chi_square([o for o, _ in kept], [s for _, s in kept]) if kept else (0.0, 0)
    x2b = chi_square([o for o, _ in kept], [s for _, s in kept], binomial=True)[0] if kept else 0.0
    df -= fitted_k
    ok = kept and df >= 1
    return {"chi2": x2 if ok else None, "df": df if ok else None,
            "p": x2_p(x2, df, phi_df([o for o, _ in kept])) if ok else None,
            "objects": len(kept),
            "no_throws": len(measured) - len(kept), "phi_df": phi_df([o for o, _ in kept]),
            # the same with the measured counts taken as binomial (equal where no dispersion)
            "chi2_binomial": x2b if ok else None,
            "p_binomial": float(sps.chi2.sf(x2b, df)) if ok else None}


def step_check(fitted: Sequence[DataObject], ds: Dataset, die_m: Material, surf_m: Material,
               values: dict[str, float], sim: Simulator, seed: int,
               alpha: float) -> dict[str, Any]:
    """Do the fitted objects' outcomes at the fit depend on the time step? Each object's
    throws at the default step with `seed` (the report's) are compared with as many fresh
    ones (`seed + 1`) at half the step: outcome counts (every group, and the throws that left
    the table), Pearson's homogeneity test, the X^2 summed over the objects. Fresh draws
    keep the two samples independent, as the test assumes: the same draws at two steps give
    the same outcome wherever the two integrations agree, and such pairs would make the test
    pass more easily than its p says. A calibration is only as good as this: values fitted
    where the outcomes depend on the step are values of the integrator, not of the
    materials."""
    dt = PhysicsSettings().time_step
    half = Simulator(fitted, sim.throws, sim.workers, sim.engine, dt / 2)
    objects, total, df = [], 0.0, 0
    with half:
        for o in fitted:
            params = _applied(o, ds, die_m, surf_m, values)[1]
            a = sim.run([o], params, seed)[0]
            b = half.run([o], params, seed + 1)[0]
            ca, cb = [*a.counts, a.off_table], [*b.counts, b.off_table]
            t = homogeneity(ca, cb)
            total += t.statistic
            df += t.df
            objects.append({"object": o.name, "groups": [g for g, _ in o.groups] + ["off the table"],
                            "counts_step": ca, "counts_half_step": cb, "chi2": t.statistic,
                            "df": t.df, "p": t.p})
    p = float(sps.chi2.sf(total, df)) if df > 0 else 1.0
    return {"time_step": dt, "half_step": dt / 2, "throws": sim.throws, "seeds": [seed, seed + 1],
            "objects": objects,
            "chi2": total, "df": df, "p": p, "alpha": alpha, "depends_on_step": p < alpha,
            "throws_simulated": half.thrown}


def _applied(o: DataObject, ds: Dataset, die_m: Material, surf_m: Material,
             values: dict[str, float]) -> tuple[str, dict[str, float]]:
    """Which fitted values reach an object: the pair's where it is the fitted pair, the throw
    scale where it belongs to the fitted dataset (thrown the same way)."""
    params = base_parameters(o)
    same_pair = o.pair == (die_m, surf_m)
    same_throw = any(o is x for x in ds.objects)
    if same_pair:
        for n in PAIR_PARAMETERS:
            params[n] = values[n]
    if same_throw:
        params["throw_scale"] = values["throw_scale"]
    applied = ("pair + throw" if same_pair and same_throw else "pair" if same_pair
               else "throw" if same_throw else "none (own materials and throw)")
    return applied, params


def _points(o: DataObject, s: SimCounts, part: str, applied: str) -> list[dict[str, Any]]:
    out = []
    for g, (gname, vals) in enumerate(o.groups[:-1] if len(o.groups) > 1 else o.groups):
        p_m = o.measured_p(g)
        row: dict[str, Any] = {"object": o.name, "part": part, "group": gname, "faces": list(vals),
                               "calibrated": applied, "measured_p": p_m, "n": o.n,
                               "derived_counts": o.derived, "dispersion": o.dispersion}
        if o.counts is not None and o.n is not None:  # at N / dispersion throws
            ci = wilson(o.counts[g] / o.dispersion, o.n / o.dispersion)
            row["measured_count"] = o.counts[g]
            row["measured_ci"] = [ci.low, ci.high]
        else:
            row["measured_count"] = None
            row["measured_ci"] = None
        sim_ci = wilson(s.counts[g], s.n) if s.n else None
        row["sim_count"], row["sim_n"] = s.counts[g], s.n
        row["sim_off_table"], row["sim_errors"] = s.off_table, s.errors
        row["sim_p"] = s.counts[g] / s.n if s.n else None
        row["sim_ci"] = [sim_ci.low, sim_ci.high] if sim_ci else None
        if sim_ci is None:
            row["inside"] = False
        elif row["measured_ci"] is None:  # no N: the measured point inside the simulated interval
            row["inside"] = sim_ci.low <= p_m <= sim_ci.high
        else:  # the two 95% intervals overlap
            row["inside"] = row["measured_ci"][0] <= sim_ci.high and sim_ci.low <= row["measured_ci"][1]
        row["abs_error"] = abs(p_m - row["sim_p"]) if row["sim_p"] is not None else None
        out.append(row)
    return out


def _report(ds: Dataset, validate: Sequence[Dataset], res: FitResult, rows: list[dict[str, Any]],
            fitted: list[DataObject], held: list[DataObject], throws: int, workers: int,
            seconds: float, fit_seconds: float, thrown: int, evaluations: int, alpha: float,
            seed: int, die_m: Material, surf_m: Material, fit_names: Sequence[str]) -> dict[str, Any]:
    parts: dict[str, dict[str, Any]] = {}
    for r in rows:
        parts.setdefault(r["part"], {"points": 0, "inside": 0, "errors": []})
        p = parts[r["part"]]
        p["points"] += 1
        p["inside"] += int(r["inside"])
        if r["abs_error"] is not None:
            p["errors"].append(r["abs_error"])
    summary = {}
    for name, p in parts.items():
        objs = {r["object"] for r in rows if r["part"] == name}
        summary[name] = {"objects": len(objs), "points": p["points"], "inside": p["inside"],
                         "mae": float(np.mean(p["errors"])) if p["errors"] else None}
    intervals: dict[str, list[float] | None] = {}
    # z: 1.96, or Student's t on phi's degrees of freedom where the counts' dispersion is
    # estimated (the square root of the profile's rise)
    z = math.sqrt(rise95(phi_df(fitted)))
    for n in fit_names:  # the surrogate's profile intervals, else +-z sigma (curvature)
        s, v = res.sigma.get(n), res.values[n]
        intervals[n] = (res.intervals.get(n) if res.intervals is not None else
                        None if s is None else [v - z * s, v + z * s])
    sur = res.surrogate
    lof: dict[str, Any] = sur["lack_of_fit"] if sur else {}
    return {
        "dataset": {"name": ds.name, "path": ds.path, "citation": ds.citation,
                    "where_read": ds.where_read, "caveats": list(ds.caveats)},
        "validation": [{"name": v.name, "path": v.path, "citation": v.citation,
                        "caveats": list(v.caveats),
                        "dispersion": v.dispersion.to_json() if v.dispersion else None}
                       for v in validate],
        "pair": {"die": die_m.name, "surface": surf_m.name,
                 "before": library().pair(die_m, surf_m).to_json()},
        "fitted_parameters": list(fit_names),
        "values": {n: res.values[n] for n in PARAMETERS},
        "sigma": res.sigma,
        "interval95": intervals,
        "uncertainty_method": res.method,
        "objective_noise_sd": res.noise_sd,
        "surrogate": sur,
        "surrogate_warning": "; ".join(
            ([f"the quadratic surface misses the simulated shares (lack of fit deviance "
              f"{lof['deviance']:.1f} on {lof['df']} df, p {lof['p']:.3g}): its estimate and "
              "intervals are approximate; fit fewer parameters or narrow their ranges"]
             if sur and sur["lack_of_fit_bad"] else [])
            + ([f"after {sur['design_points'] // max(1, sur['design_size'])} designs the "
                "estimate still lies on the edge of the last "
                "one: the minimum may lie beyond it"] if sur and not sur["converged"] else [])
            + ([f"the estimate of design(s) {', '.join(map(str, sur['estimate_unsettled']))} "
                "kept moving with the surfaces' uncertainty held at it (two minima?)"]
               if sur and sur.get("estimate_unsettled") else [])
        ) or None,
        "noise_warning": (None if res.noise_sd is None or res.noise_sd <= 1.0 else
                          f"the objective's noise (sd {res.noise_sd:.1f} X^2 units) exceeds the "
                          "1 unit that defines a 1-sigma interval: the curvature intervals are "
                          "not reliable; more --throws lower the noise"),
        "fit": {"chi2": res.chi2, "df": res.df, "p": res.p, "alpha": alpha,
                "bad_fit": res.p < alpha, "objects": [o.name for o in fitted],
                # p from F(df, phi_df) of X^2 / df where the dispersion is estimated
                "phi_df": phi_df(fitted)},
        "held_out": [o.name for o in held],
        "inside_rule": "the measured and simulated 95% Wilson intervals overlap; where the "
                       "source gives no N, the measured proportion lies inside the simulated "
                       "interval",
        "summary": summary,
        "points": rows,
        "evaluations": res.evaluations,
        "settings": {"throws": throws, "workers": workers, "seed": seed,
                     "report_seed": seed + 1},
        "timing": {"seconds": seconds, "fit_seconds": fit_seconds, "throws_simulated": thrown,
                   "evaluations": evaluations,
                   "throws_per_s": thrown / seconds if seconds > 0 else 0.0},
        "date": _dt.date.today().isoformat(),
    }


# -- outputs ------------------------------------------------------------------------------


def write_outputs(report: dict[str, Any], out: str | Path, ds: Dataset, die_m: Material,
                  surf_m: Material) -> list[Path]:
    """report.json, report.md, calibration.png and materials.yaml in `out`, each written to
    a temporary file in `out` and renamed over the old one (never half-written)."""
    out = ensure_dir(out, "--out")
    paths = [out / "report.json", out / "report.md", out / "materials.yaml", out / "calibration.png"]
    mats = materials_yaml(report, ds, die_m, surf_m)
    report["materials_file"] = {"path": str(paths[2]), **mats["names"]}
    png = _plot_png(report)  # everything is made before the first file is replaced
    write_bytes(paths[0], (json.dumps(report, indent=2) + "\n").encode(), "--out")
    write_bytes(paths[1], render_markdown(report).encode(), "--out")
    write_bytes(paths[2], mats["text"].encode(), "--out")
    write_bytes(paths[3], png, "--out")
    return paths


def materials_yaml(report: dict[str, Any], ds: Dataset, die_m: Material,
                   surf_m: Material) -> dict[str, Any]:
    """A material file (the format of dice_models/materials.yaml): the die and surface
    materials under new names, and their fitted pair."""
    die_name, surf_name = f"{die_m.name}-cal", f"{surf_m.name}-cal"
    if die_name == surf_name:
        surf_name = f"{surf_m.name}-cal-surface"
    v = report["values"]
    mae = report["summary"]
    fitted_mae = mae.get("fitted", {}).get("mae")
    held_mae = mae.get("held-out", {}).get("mae")
    iv = report["interval95"]
    sig = ", ".join(f"{n} {v[n]:.4f} (95% [{iv[n][0]:.4f}, {iv[n][1]:.4f}])" if iv.get(n)
                    else f"{n} {v[n]:.4f} (interval not determined)"
                    for n in report["fitted_parameters"])
    when = f"calibrated by tabletop fairness calibrate {ds.path} on {report['date']}"
    how = "profile" if report.get("surrogate") else "curvature"
    pair_src = (f"{when}: MAE fitted {_fmt(fitted_mae)}, held-out {_fmt(held_mae)}; {sig} "
                f"({how}); fit X^2 {report['fit']['chi2']:.1f} on {report['fit']['df']} "
                f"df, p {report['fit']['p']:.3g}"
                + (f"; step check X^2 {report['step_check']['chi2']:.1f} on "
                   f"{report['step_check']['df']} df, p {report['step_check']['p']:.3g}"
                   if report.get("step_check") else "")
                + (f"; measured counts weighed as N / {_applied_phi(report):.2f} (their "
                   "scatter about a smooth trend)" if _applied_phi(report) > 1.0 else "")
                + f"; the lever arms not fitted from the {die_m.name}/{surf_m.name} pair")
    base = library().pair(die_m, surf_m)

    def entry(m: Material) -> dict[str, Any]:
        return {**{f: getattr(m, f) for f in VALUE_FIELDS},
                "source": f"{when}: the values of {m.name} (see its source there); only its "
                          f"pair with {surf_name if m is die_m else die_name} is fitted"}

    data = {"materials": {die_name: entry(die_m), surf_name: entry(surf_m)},
            "pairs": [{"a": die_name, "b": surf_name, "friction": round(v["friction"], 6),
                       "restitution": round(v["restitution"], 6),
                       "rolling_friction": base.rolling_friction,
                       "spinning_friction": round(v["spinning_friction"], 8),
                       "source": pair_src}]}
    head = (f"# Written by tabletop fairness calibrate from {ds.path} on {report['date']}.\n"
            f"# Name these materials with {{file: THIS_FILE, preset: {die_name}}} (a die's material)\n"
            f"# and {{file: THIS_FILE, preset: {surf_name}}} (a table's surface).\n")
    text = head + yaml.safe_dump(data, sort_keys=False, width=100)
    return {"text": text, "names": {"die": die_name, "surface": surf_name}}


def render_markdown(rep: dict[str, Any]) -> str:
    ds = rep["dataset"]
    lines = [f"# Calibration: {ds['name']}", "", f"Source: {ds['citation']}", "",
             f"Where read: {ds['where_read']}", ""]
    for c in ds["caveats"]:
        lines.append(f"- caveat: {c}")
    for v in rep["validation"]:
        lines += ["", f"Validation dataset: {v['name']} ({v['citation']})"]
        lines += [f"- caveat: {c}" for c in v["caveats"]]
    pair = rep["pair"]
    lines += ["", "## Fitted values", "",
              f"Pair {pair['die']} on {pair['surface']} (before: friction "
              f"{pair['before']['friction']:.4f}, restitution {pair['before']['restitution']:.4f}, "
              f"spinning lever arm {pair['before']['spinning_friction']:.6f} m, "
              f"{pair['before']['source']}); throw_scale before: 1.", "",
              "| parameter | value | sigma | 95% interval |", "| --- | --- | --- | --- |"]
    for n in PARAMETERS:
        if n in rep["fitted_parameters"]:
            s, iv = rep["sigma"][n], rep["interval95"][n]
            lines.append(f"| {n} | {rep['values'][n]:.4f} | {_fmt(s)} | "
                         + (f"[{iv[0]:.4f}, {iv[1]:.4f}]" if iv else "not determined") + " |")
        else:
            lines.append(f"| {n} | {rep['values'][n]:.4f} | not fitted | - |")
    f = rep["fit"]
    lines += ["", f"Uncertainty: {rep['uncertainty_method']}.", ""]
    if rep["noise_warning"]:
        lines += [f"WARNING: {rep['noise_warning']}.", ""]
    sur = rep.get("surrogate")
    if sur:
        lof = sur["lack_of_fit"]
        lines += [f"Surrogate: {sur['design_points']} design points, the surface fitted on the "
                  f"{sur['fitted_on']} in " + ", ".join(
                      f"{n} [{a:.4f}, {b:.4f}]" for n, (a, b) in sur["region"].items())
                  + f"; lack of fit: deviance {lof['deviance']:.1f} on {lof['df']} df"
                  + (f", p {lof['p']:.3g}" if lof["p"] is not None else "") + ".", "",
                  "| object | lack-of-fit deviance | df | p | throws on the table |",
                  "| --- | --- | --- | --- | --- |"]
        for x in lof["per_object"]:
            lines.append(f"| {x['object']} | {x['deviance']:.1f} | {x['df']} | "
                         f"{_fmt(x['p'])} | {x['throws']} |")
        lines.append("")
    if rep.get("surrogate_warning"):
        lines += [f"WARNING: {rep['surrogate_warning']}.", ""]
    d = rep.get("dispersion")
    lines += ["## Measured scatter", "", _dispersion_line(d) + "."]
    if d:
        lines += ["", f"Method: {d['method']}. Each measured count is then weighed as if N / phi "
                  "throws had been made (the design-effect correction of Rao and Scott): its "
                  "variance grows by phi in every X^2, interval and profile below, the "
                  "simulation's stays binomial (docs/calibration.md).", "",
                  "| trend degree | X^2 | df | X^2 / df | p (binomial) |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [f"| {t['degree']} | {t['chi2']:.2f} | {t['df']} | {t['phi']:.2f} | {t['p']:.3g} |"
                  for t in d["trends"]]
    lines += [""]
    lines += [f"Fit: X^2 {f['chi2']:.2f} on {f['df']} df, p {f['p']:.3g}{_ref(f)} -> "
              + ("BAD FIT (p < alpha " + f"{f['alpha']:g})" if f["bad_fit"] else
                 f"not rejected at alpha {f['alpha']:g}"), "",
              f"Inside rule: {rep['inside_rule']}.", ""]
    st = rep.get("step_check")
    if st:
        lines += ["## Step check", "", _step_line(st) + ". Each fitted object's throws at the default "
                  "step (the points' below) against as many fresh throws at half the step, at "
                  "the fitted values: outcome "
                  "counts (every group, and the throws that left the table) compared by "
                  "Pearson's homogeneity test. Values fitted where the outcomes depend on the "
                  "step belong to the integrator, not to the materials.", "",
                  "| object | counts at dt | counts at dt/2 | X^2 | df | p |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for x in st["objects"]:
            lines.append(f"| {x['object']} | {x['counts_step']} | {x['counts_half_step']} | "
                         f"{x['chi2']:.2f} | {x['df']} | {x['p']:.3g} |")
        lines.append("")
    lines += ["## Points (at the fitted values, fresh seeds)", "",
              "| object | part | group | N | measured p [95%] | simulated p [95%] (n sim) | inside | "
              "calibrated |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rep["points"]:
        meas = (f"{r['measured_p']:.3f} [{r['measured_ci'][0]:.3f}, {r['measured_ci'][1]:.3f}]"
                if r["measured_ci"] else f"{r['measured_p']:.3f} (no N)")
        if r["derived_counts"]:
            meas += " (count derived)"
        simp = (f"{r['sim_p']:.3f} [{r['sim_ci'][0]:.3f}, {r['sim_ci'][1]:.3f}] ({r['sim_n']})"
                if r["sim_ci"] else "no throw on the table")
        lines.append(f"| {r['object']} | {r['part']} | {r['group']} | {r['n'] or 'unknown'} | "
                     f"{meas} | {simp} | {'yes' if r['inside'] else 'NO'} | {r['calibrated']} |")
    lines += ["", "## Summary", "", "Fresh-throw X^2: each part's measured counts against its "
              "simulation above (homogeneity, the simulation's noise included), df less the "
              "fitted parameters for the fitted part; the measured counts weighed as N / "
              "phi, and as binomial counts (N).", "",
              "| part | objects | points inside | MAE | fresh-throw X^2 | df | p | X^2 as "
              "binomial | p as binomial |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    fresh = rep.get("fresh_throws") or {}
    for name, s in rep["summary"].items():
        x = fresh.get(name)
        lines.append(f"| {name} | {s['objects']} | {s['inside']}/{s['points']} | {_fmt(s['mae'])} | "
                     + (f"{x['chi2']:.2f} | {x['df']} | {x['p']:.3g} | {x['chi2_binomial']:.2f} | "
                        f"{x['p_binomial']:.3g} |" if x and x["chi2"] is not None
                        else "- | - | - | - | - |"))
    t = rep["timing"]
    lines += ["", f"Wall time {t['seconds']:.1f} s (fit {t['fit_seconds']:.1f} s), "
              f"{t['throws_simulated']} throws in {t['evaluations']} evaluations "
              f"({t['throws_per_s']:.0f} throws/s, {rep['settings']['workers']} worker(s), "
              f"{rep['settings']['throws']} throws per object per evaluation).", ""]
    return "\n".join(lines)


def render_summary(rep: dict[str, Any]) -> str:
    """The lines the command prints."""
    v, s = rep["values"], rep["sigma"]
    out = []
    for n in rep["fitted_parameters"]:
        iv = rep["interval95"][n]
        out.append(f"{n}: {v[n]:.4f}" + (f" +- {s[n]:.4f} (95% [{iv[0]:.4f}, {iv[1]:.4f}])"
                                          if iv else " (interval not determined)"))
    if rep["noise_warning"]:
        out.append(f"warning: {rep['noise_warning']}")
    sur = rep.get("surrogate")
    if sur:
        lof = sur["lack_of_fit"]
        out.append(f"surrogate: {sur['design_points']} design points, fitted on "
                   f"{sur['fitted_on']}; lack of fit deviance {lof['deviance']:.1f} on "
                   f"{lof['df']} df" + (f", p {lof['p']:.3g}" if lof["p"] is not None else ""))
    if rep.get("surrogate_warning"):
        out.append(f"warning: {rep['surrogate_warning']}")
    out.append(_dispersion_line(rep.get("dispersion")))
    f = rep["fit"]
    out.append(f"fit: X^2 {f['chi2']:.2f} on {f['df']} df, p {f['p']:.3g}{_ref(f)}"
               + (f"  BAD FIT (p < {f['alpha']:g})" if f["bad_fit"] else ""))
    if rep.get("step_check"):
        out.append(_step_line(rep["step_check"]))
    fresh = rep.get("fresh_throws") or {}
    for name, p in rep["summary"].items():
        x = fresh.get(name)
        out.append(f"{name}: {p['objects']} objects, {p['inside']}/{p['points']} points inside, "
                   f"MAE {_fmt(p['mae'])}"
                   + (f"; fresh throws X^2 {x['chi2']:.2f} on {x['df']} df, p {x['p']:.3g}{_ref(x)}"
                      if x and x["chi2"] is not None else "")
                   + (f" (as binomial counts: X^2 {x['chi2_binomial']:.2f}, p {x['p_binomial']:.3g})"
                      if x and x["chi2"] is not None and _applied_phi(rep) > 1.0 else ""))
    t = rep["timing"]
    out.append(f"wall time {t['seconds']:.1f} s (fit {t['fit_seconds']:.1f} s), "
               f"{t['throws_simulated']} throws, {t['evaluations']} evaluations")
    return "\n".join(out)


def _ref(t: dict[str, Any]) -> str:
    """How a weighed X^2's p was found, where not by chi-square."""
    return f" (X^2/df against F({t['df']}, {t['phi_df']}))" if t.get("phi_df") else ""


def _applied_phi(rep: dict[str, Any]) -> float:
    d = rep.get("dispersion")
    return float(d["phi"]) if d and d["applied"] else 1.0


def _dispersion_line(d: dict[str, Any] | None) -> str:
    if d is None:
        return ("dispersion: not estimated (the dataset names no series): the measured counts "
                "are taken as binomial")
    c = next(t for t in d["trends"] if t["degree"] == d["chosen_degree"])
    line = (f"dispersion: the {len(d['objects'])} measured shares scatter about smooth trends in "
            f"log {d['series']} {c['phi']:.2f} times as much as binomial counts at least (degree "
            f"{c['degree']}: X^2 {c['chi2']:.2f} on {c['df']} df, p {c['p']:.3g}; the trend's F "
            f"{d['trend_f']:.1f}, p {d['trend_p']:.3g}); ")
    if not d["trend"]:
        return line + (f"not applied: no trend in {d['series']} (F test p >= "
                       f"{d['trend_alpha']:g}), so the scatter cannot be told from a misfit; "
                       "the measured counts are taken as binomial")
    if not d["applied"]:
        return line + "not applied (--binomial): the measured counts are taken as binomial"
    return line + (f"the measured counts weigh as N / {d['phi']:.2f}, and the tests take phi "
                   f"as estimated on {d['phi_df']} df (F, not chi-square)")


def _step_line(st: dict[str, Any]) -> str:
    return (f"step check: the fitted objects at dt 1/{1 / st['time_step']:.0f} and "
            f"1/{1 / st['half_step']:.0f} s, {st['throws']} throws each: X^2 {st['chi2']:.2f} on "
            f"{st['df']} df, p {st['p']:.3g}"
            + (f"  DEPENDS ON THE STEP (p < {st['alpha']:g})" if st["depends_on_step"] else ""))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def _bar(p: float, ci: list[float]) -> list[list[float]]:
    return [[max(0.0, p - ci[0])], [max(0.0, ci[1] - p)]]  # Wilson's ends, round-off clipped


def _plot_png(rep: dict[str, Any]) -> bytes:
    """Measured against simulated proportions with their intervals, by part."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 6.0))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, zorder=0)
    styles = {"fitted": ("o", "C0", "fitted"), "held-out": ("s", "C1", "held out")}
    labelled: set[str] = set()
    for r in rep["points"]:
        if r["sim_p"] is None:
            continue
        marker, colour, label = styles.get(r["part"], ("^", "C2", r["part"]))
        xerr = None
        if r["measured_ci"]:
            xerr = _bar(r["measured_p"], r["measured_ci"])
        yerr = _bar(r["sim_p"], r["sim_ci"])
        ax.errorbar([r["measured_p"]], [r["sim_p"]], xerr=xerr, yerr=yerr, fmt=marker, color=colour,
                    mfc=colour if r["part"] == "fitted" else "white", ms=6, capsize=2, lw=1,
                    label=None if label in labelled else label)
        labelled.add(label)
    ax.set_xlabel("measured proportion (95% Wilson)")
    ax.set_ylabel("simulated proportion at the fit (95% Wilson)")
    s = rep["summary"]
    ax.set_title(f"{rep['dataset']['name']}: MAE fitted {_fmt(s.get('fitted', {}).get('mae'))}, "
                 f"held out {_fmt(s.get('held-out', {}).get('mae'))}", fontsize=9)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=110)
    finally:
        plt.close(fig)
    return buf.getvalue()


__all__ = ["PARAMETERS", "DataObject", "Dataset", "FitResult", "SimCounts", "Simulator",
           "calibrate", "chi_square", "fit", "load_dataset", "materials_yaml", "parse_dataset",
           "render_markdown", "render_summary", "simulate", "split", "write_outputs"]
