"""Calibration datasets: measured outcome counts of thrown objects, read and checked
(`load_dataset`; the format is in docs/calibration.md). Split from `calibrate`, which
re-exports these names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from dice_models import DataError, DieModel, parse_die
from dice_models.materials import (
    Material,
    check_fields,
    material_from,
)
from simulator.experiments.config import ThrowDistribution, parse_throw
from simulator.experiments.dispersion import MIN_OBJECTS as MIN_SERIES_OBJECTS
from simulator.experiments.dispersion import Dispersion, series_dispersion
from simulator.physics import TableSpec, die_shape
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
# A throw model of styles (`styles:`, docs/calibration.md "Throw styles") is fitted by the
# styles' shares: `share.NAME` for every style but the last, each the share of the throws
# left after the styles before it (stick-breaking: k - 1 numbers in [0, 1] reach every mixture).
SHARE = "share."


def bounds(name: str) -> tuple[float, float]:
    """A fitted parameter's search range: PARAMETERS', or [0, 1] for a style's share."""
    if name.startswith(SHARE) and len(name) > len(SHARE):
        return (0.0, 1.0)
    return PARAMETERS[name]


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
    for field, t in ([("speed", throw)] if not throw.styles else
                     [(f"styles.{st.name}.speed", st.throw) for st in throw.styles]):
        if t.speed[1] * PARAMETERS["throw_scale"][1] > MAX_SPEED:
            raise DataError(source, f"{where}.throw.model.{field}", f"times the largest "
                            f"throw_scale {PARAMETERS['throw_scale'][1]} must stay under "
                            f"{MAX_SPEED} m/s", list(t.speed))
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
