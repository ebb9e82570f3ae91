"""Contact materials as data: named presets with their sources, a pair table, and the rule
that gives the effective values of any pair.

A die model and a table surface each name a material (`material: card`) or give one
(`{preset: felt, friction: 0.7}` or all four values). The effective values of a contact
between materials a and b are the pair table's entry for (a, b) when both are the presets
it names, else the rule:

- friction, restitution: the geometric mean sqrt(a * b);
- rolling and spinning friction (lever arms in m): the sum a + b.

A pair entry can state any measured value (restitution up to 1): the rule is a default, not
a cap. The physics realizes the effective values per world (simulator/physics/contact.py)
and records them in every result.

Other material files (a calibration's `materials.yaml`, written by `tabletop fairness
calibrate`) join the shipped presets when a die, table or experiment names one of their
materials: `material: {file: DIR/materials.yaml, preset: steel-cal}` (the same for a table's
`surface:`). Their materials and pairs are merged into `library()` for the rest of the
process; a name or pair already known with other values is refused, never overwritten.
"""

from __future__ import annotations

import difflib
import hashlib
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dice_models.errors import DataError

MATERIALS_FILE = Path(__file__).parent / "materials.yaml"
VALUE_FIELDS = ("friction", "restitution", "rolling_friction", "spinning_friction")
# Upper bounds of the values a material or a pair may take (lever arms in m).
BOUNDS = {"friction": 5.0, "restitution": 1.0, "rolling_friction": 0.05, "spinning_friction": 0.05}


@dataclass(frozen=True)
class Material:
    name: str
    friction: float
    restitution: float
    rolling_friction: float  # m: rolling resistance lever arm
    spinning_friction: float  # m: spinning resistance lever arm
    source: str = field(default="custom values", compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "friction": self.friction, "restitution": self.restitution,
                "rolling_friction": self.rolling_friction,
                "spinning_friction": self.spinning_friction}


@dataclass(frozen=True)
class PairValues:
    """Effective contact values of a pair of materials, and where they come from."""

    friction: float
    restitution: float
    rolling_friction: float
    spinning_friction: float
    source: str = field(default="rule", compare=False)

    def values(self) -> tuple[float, float, float, float]:
        return (self.friction, self.restitution, self.rolling_friction, self.spinning_friction)

    def to_json(self) -> dict[str, Any]:
        return {"friction": self.friction, "restitution": self.restitution,
                "rolling_friction": self.rolling_friction,
                "spinning_friction": self.spinning_friction, "source": self.source}


@dataclass(frozen=True)
class MaterialLibrary:
    materials: dict[str, Material]
    pairs: dict[tuple[str, str], dict[str, Any]]  # sorted name pair -> stated fields + source

    def get(self, name: str, source: str | Path, fieldname: str) -> Material:
        if name not in self.materials:
            close = difflib.get_close_matches(name, list(self.materials), n=1)
            hint = (f"; did you mean {close[0]}?" if close
                    else f"; presets: {', '.join(sorted(self.materials))}")
            raise DataError(source, fieldname, f"unknown material {name!r}{hint}", show_value=False)
        return self.materials[name]

    def pair(self, a: Material, b: Material) -> PairValues:
        """The effective values of a contact between `a` and `b` (symmetric)."""
        key = (a.name, b.name) if a.name <= b.name else (b.name, a.name)
        stated = self.pairs.get(key)
        if stated is not None and self.materials.get(a.name) == a and self.materials.get(b.name) == b:
            rule = combine(a, b)
            vals = {f: stated.get(f, getattr(rule, f)) for f in VALUE_FIELDS}
            return PairValues(**vals, source=stated["source"])
        return combine(a, b)


def combine(a: Material, b: Material) -> PairValues:
    """The stated rule: geometric mean of friction and restitution, sum of lever arms."""
    return PairValues(friction=math.sqrt(a.friction * b.friction),
                      restitution=math.sqrt(a.restitution * b.restitution),
                      rolling_friction=a.rolling_friction + b.rolling_friction,
                      spinning_friction=a.spinning_friction + b.spinning_friction,
                      source="rule")


@cache
def shipped_library() -> MaterialLibrary:
    """The shipped presets and pair table (dice_models/materials.yaml)."""
    from dice_models.files import read_yaml

    return parse_library(read_yaml(MATERIALS_FILE), str(MATERIALS_FILE))


# Material files loaded in this process (resolved path -> library), in load order, and the
# merged view library() returns; _OVERLAYS are the temporary pair values of overlay().
_FILES: dict[str, MaterialLibrary] = {}
_OVERLAYS: list[MaterialLibrary] = []
_MERGED: list[MaterialLibrary] = []


def library() -> MaterialLibrary:
    """The presets and pairs in force: the shipped file, every material file loaded since
    (load_file), and any overlay() in effect."""
    if not _MERGED:
        merged = shipped_library()
        for lib in [*_FILES.values(), *_OVERLAYS]:
            merged = MaterialLibrary({**merged.materials, **lib.materials},
                                     {**merged.pairs, **lib.pairs})
        _MERGED.append(merged)
    return _MERGED[0]


def load_file(path: str | Path) -> MaterialLibrary:
    """Read a material file (the format of dice_models/materials.yaml) and merge its
    materials and pairs into library(). A material or pair already known under the same
    name with other values is refused (one line naming the file and the entry); loading the
    same values again is a no-op."""
    path = Path(path)
    key = str(path.resolve())
    if key in _FILES:
        return _FILES[key]
    from dice_models import read_yaml  # the package imports this module first

    lib = parse_library(read_yaml(path), str(path))
    known = library()
    for name, m in lib.materials.items():
        old = known.materials.get(name)
        if old is not None and old != m:
            raise DataError(path, f"materials.{name}", f"{name!r} is already a material with other "
                            f"values ({old.source[:60]}): choose another name", show_value=False)
    for (a, b), stated in lib.pairs.items():
        old_pair = known.pairs.get((a, b))
        if old_pair is not None and {f: old_pair.get(f) for f in VALUE_FIELDS} != {
                f: stated.get(f) for f in VALUE_FIELDS}:
            raise DataError(path, f"pairs {a}/{b}", "is already a pair with other values: "
                            "rename its materials", show_value=False)
    _FILES[key] = lib
    _MERGED.clear()
    return lib


@contextmanager
def overlay(lib: MaterialLibrary) -> Iterator[None]:
    """Within the block, `lib`'s materials and pairs take precedence over every other (no
    clash check): the trial pair values of a calibration, one evaluation at a time."""
    _OVERLAYS.append(lib)
    _MERGED.clear()
    try:
        yield
    finally:
        _OVERLAYS.remove(lib)
        _MERGED.clear()


def parse_library(data: Any, source: str) -> MaterialLibrary:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping with materials and pairs",
                        type(data).__name__)
    check_fields(data, ("materials", "pairs"), source, "")
    raw = data.get("materials") or {}
    if not isinstance(raw, dict):
        raise DataError(source, "materials", "must be a mapping of name: values", type(raw).__name__)
    materials: dict[str, Material] = {}
    for name, values in raw.items():
        where = f"materials.{name}"
        if not isinstance(values, dict):
            raise DataError(source, where, "must be a mapping of material values",
                            type(values).__name__)
        check_fields(values, (*VALUE_FIELDS, "source"), source, where)
        for f in VALUE_FIELDS:
            if f not in values:
                raise DataError(source, f"{where}.{f}", "is missing", show_value=False)
        materials[str(name)] = Material(
            name=str(name), **{f: number(values[f], source, f"{where}.{f}") for f in VALUE_FIELDS},
            source=text(values.get("source"), source, f"{where}.source"))
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    raw_pairs = data.get("pairs") or []
    if not isinstance(raw_pairs, list):
        raise DataError(source, "pairs", "must be a list of {a, b, values..., source}",
                        type(raw_pairs).__name__)
    for i, p in enumerate(raw_pairs):
        where = f"pairs[{i}]"
        if not isinstance(p, dict):
            raise DataError(source, where, "must be a mapping", type(p).__name__)
        check_fields(p, ("a", "b", *VALUE_FIELDS, "source"), source, where)
        names = []
        for end in ("a", "b"):
            n = p.get(end)
            if not isinstance(n, str) or n not in materials:
                close = difflib.get_close_matches(str(n), list(materials), n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise DataError(source, f"{where}.{end}", f"must name a material of this file{hint}",
                                n)
            names.append(n)
        key = (min(names), max(names))
        if key in pairs:
            raise DataError(source, where, f"pair {key[0]}/{key[1]} is given twice", show_value=False)
        stated: dict[str, Any] = {f: number(p[f], source, f"{where}.{f}")
                                  for f in VALUE_FIELDS if f in p}
        stated["source"] = text(p.get("source"), source, f"{where}.source")
        pairs[key] = stated
    return MaterialLibrary(materials, pairs)


def material_from(raw: Any, source: str | Path, fieldname: str = "material") -> Material:
    """A preset name, or a mapping: `preset:` (optional) with any values changed, `name:`
    (optional), or all four values for a custom material; with `file:`, `preset:` names a
    material of that material file (its materials and pairs join library())."""
    lib = library()
    if isinstance(raw, str):
        return lib.get(raw, source, fieldname)
    if not isinstance(raw, dict):
        raise DataError(source, fieldname, "must be a material name or a mapping of values", raw)
    check_fields(raw, ("file", "preset", "name", *VALUE_FIELDS), source, fieldname)
    base = None
    if "file" in raw:
        base = _from_file(raw, source, fieldname)
        lib = library()
    elif "preset" in raw:
        if not isinstance(raw["preset"], str):
            raise DataError(source, f"{fieldname}.preset", "must be a material name", raw["preset"])
        base = lib.get(raw["preset"], source, f"{fieldname}.preset")
    values: dict[str, float] = {}
    for f in VALUE_FIELDS:
        if f in raw:
            values[f] = number(raw[f], source, f"{fieldname}.{f}")
        elif base is not None:
            values[f] = getattr(base, f)
        else:
            raise DataError(source, f"{fieldname}.{f}", "is missing (give all of "
                            f"{', '.join(VALUE_FIELDS)}, or a preset to start from)",
                            show_value=False)
    changed = base is None or any(values[f] != getattr(base, f) for f in VALUE_FIELDS)
    # Changed values get a name of their own (a short digest of the values), so two different
    # custom materials in one world never share a name.
    digest = hashlib.sha256(repr([values[f] for f in VALUE_FIELDS]).encode()).hexdigest()[:6]
    default_name = (f"custom-{digest}" if base is None
                    else (f"{base.name}*{digest}" if changed else base.name))
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise DataError(source, f"{fieldname}.name", "must be a non-empty string", name)
    if name in lib.materials and any(values[f] != getattr(lib.materials[name], f) for f in VALUE_FIELDS):
        raise DataError(source, f"{fieldname}.name", f"{name!r} is a preset with other values: "
                        "choose another name for changed values", show_value=False)
    src = base.source if base is not None and not changed else f"custom values ({source})"
    return Material(name=name, **values, source=src)


def _from_file(raw: dict[str, Any], source: str | Path, fieldname: str) -> Material:
    """`{file: PATH, preset: NAME}`: material NAME of a material file, whose materials and
    pairs join library(). A relative PATH is read from the directory of the file that names
    it, else from the current directory."""
    f = raw["file"]
    if not isinstance(f, str) or not f:
        raise DataError(source, f"{fieldname}.file", "must be the path of a material file", f)
    path = Path(f)
    if not path.is_absolute():
        naming = Path(str(source).split(": ", 1)[0])
        near = naming.parent / path
        if near.exists():
            path = near
    file_lib = load_file(path)
    name = raw.get("preset")
    if not isinstance(name, str) or name not in file_lib.materials:
        close = difflib.get_close_matches(str(name), list(file_lib.materials), n=1)
        hint = (f"; did you mean {close[0]}?" if close
                else f"; its materials: {', '.join(sorted(file_lib.materials))}")
        raise DataError(source, f"{fieldname}.preset", f"must name a material of {f} (the "
                        f"file's material goes under preset:){hint}", name)
    return file_lib.materials[name]


def check_fields(data: dict[Any, Any], allowed: tuple[str, ...], source: str | Path,
                 where: str) -> None:
    """Refuse any key not in `allowed`, naming it with a did-you-mean."""
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f"; did you mean {close[0]}?" if close else f"; known: {', '.join(allowed)}"
            if key in VALUE_FIELDS and "material" in allowed:
                hint = f"; contact values go under material: (material: {{preset: ..., {key}: ...}})"
            name = f"{where}.{key}" if where else str(key)
            raise DataError(source, name, f"unknown field{hint}", show_value=False)


def number(x: Any, source: str | Path, fieldname: str) -> float:
    f = fieldname.rsplit(".", 1)[-1]
    upper = BOUNDS.get(f, math.inf)
    if (not isinstance(x, int | float) or isinstance(x, bool) or not math.isfinite(float(x))
            or not 0 <= float(x) <= upper):
        raise DataError(source, fieldname, f"must be a number in [0, {upper:g}]", x)
    return float(x)


def text(x: Any, source: str | Path, fieldname: str) -> str:
    if not isinstance(x, str) or not x.strip():
        raise DataError(source, fieldname, "must say where the values come from (a citation, or "
                        "'estimate: ...')", x)
    return " ".join(x.split())


def default_material(mass_model: str) -> str:
    """The preset a die gets when its file names none: card for shells, plastic for solids."""
    return "card" if mass_model == "shell" else "plastic"


__all__ = ["BOUNDS", "MATERIALS_FILE", "VALUE_FIELDS", "Material", "MaterialLibrary", "PairValues",
           "check_fields", "combine", "default_material", "library", "load_file", "material_from",
           "overlay", "parse_library", "shipped_library"]
