"""Die models as YAML data, with a loader that validates on load.

A die file names its geometry (octahedron, cube, cuboid or convex vertices), its mass and
mass model (paper shell or solid), optional face values and an optional centre-of-mass
offset (tampering), and its contact material (dice_models/materials.py; card for shells and
plastic for solids when it names none). Errors name the file, the field and the bad value
in one line; a field the loader does not know is refused, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dice_models.errors import DataError, is_finite_number
from dice_models.files import read_yaml, resolve_named
from dice_models.materials import Material, check_fields, default_material, material_from

DICE_DIR = Path(__file__).parent / "dice"
# The smallest die edge (m): Bullet's 0.1 mm collision margin and contact thresholds are
# sized for dice; a 50 nm d8 from the fuzz suite never came to rest (exit 3).
MIN_SIZE = 0.001
GEOMETRY_KINDS = ("octahedron", "cube", "cuboid", "convex")
MASS_MODELS = ("shell", "solid")
DIE_FIELDS = ("name", "geometry", "mass", "mass_model", "values", "com_offset", "material")
GEOMETRY_FIELDS = {"octahedron": ("kind", "edge"), "cube": ("kind", "side"),
                   "cuboid": ("kind", "sides"), "convex": ("kind", "vertices")}


@dataclass(frozen=True)
class ComOffset:
    """Centre-of-mass offset: an explicit vector (m, body frame), or a fraction of the
    circumradius toward the centre of the face carrying value `toward_face`."""

    vector: tuple[float, float, float] | None = None
    toward_face: int | None = None
    fraction_of_r: float = 0.0

    def to_json(self) -> dict[str, Any]:
        if self.vector is not None:
            return {"vector": list(self.vector)}
        return {"toward_face": self.toward_face, "fraction_of_r": self.fraction_of_r}


@dataclass(frozen=True)
class DieModel:
    name: str
    geometry: dict[str, Any]
    mass: float
    mass_model: str
    values: tuple[int, ...] | None = None
    com_offset: ComOffset | None = None
    source: str = "<inline>"
    material: Material | None = None  # None: the default for its mass model (default_material)

    @property
    def contact_material(self) -> Material:
        """The die's material: the one its data names, else card for shells, plastic for solids."""
        if self.material is not None:
            return self.material
        return material_from(default_material(self.mass_model), self.source)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "geometry": self.geometry,
            "mass": self.mass,
            "mass_model": self.mass_model,
        }
        if self.values is not None:
            out["values"] = list(self.values)
        if self.com_offset is not None:
            out["com_offset"] = self.com_offset.to_json()
        if self.material is not None:
            out["material"] = self.material.to_json()
        return out


def available() -> list[str]:
    return sorted(p.stem for p in DICE_DIR.glob("*.yaml"))


def load_die(name_or_path: str | Path) -> DieModel:
    """A shipped die by name, or a die YAML file by path."""
    return load_die_file(resolve_named(name_or_path, DICE_DIR, "die"))


def load_die_file(path: str | Path) -> DieModel:
    return parse_die(read_yaml(path), str(path))


def parse_die(data: Any, source: str = "<inline>") -> DieModel:
    """Validate a die mapping (from YAML or an experiment's inline geometry)."""
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping of die fields", type(data).__name__)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise DataError(source, "name", "must be a non-empty string", name)
    geo = data.get("geometry")
    if not isinstance(geo, dict):
        raise DataError(source, "geometry", "must be a mapping with a 'kind'", geo)
    kind = geo.get("kind")
    if kind not in GEOMETRY_KINDS:
        raise DataError(source, "geometry.kind", f"must be one of {', '.join(GEOMETRY_KINDS)}", kind)
    check_fields(geo, GEOMETRY_FIELDS[kind], source, "geometry")
    n_faces = _check_geometry(source, kind, geo)
    mass = _positive(source, "mass", data.get("mass"))
    mass_model = data.get("mass_model", "solid")
    if mass_model not in MASS_MODELS:
        raise DataError(source, "mass_model", "must be shell or solid", mass_model)
    values = data.get("values")
    if values is not None:
        if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                   for v in values):
            raise DataError(source, "values", "must be a list of integers", values)
        if n_faces is not None and len(values) != n_faces:
            raise DataError(source, "values", f"needs {n_faces} values, one per face", values)
        values = tuple(values)
    com = _parse_com(source, data.get("com_offset"), values, n_faces)
    check_fields(data, DIE_FIELDS, source, "")
    material = material_from(data.get("material", default_material(mass_model)), source)
    return DieModel(name=name, geometry=dict(geo), mass=mass, mass_model=mass_model,
                    values=values, com_offset=com, source=source, material=material)


def _check_geometry(source: str, kind: str, geo: dict[str, Any]) -> int | None:
    if kind == "octahedron":
        _positive(source, "geometry.edge", geo.get("edge"), upper=1.0, lower=MIN_SIZE)
        return 8
    if kind == "cube":
        _positive(source, "geometry.side", geo.get("side"), upper=1.0, lower=MIN_SIZE)
        return 6
    if kind == "cuboid":
        sides = geo.get("sides")
        if not isinstance(sides, list) or len(sides) != 3:
            raise DataError(source, "geometry.sides", "must be a list of three lengths (m)", sides)
        for i, s in enumerate(sides):
            _positive(source, f"geometry.sides[{i}]", s, upper=1.0, lower=MIN_SIZE)
        return 6
    verts = geo.get("vertices")
    if not isinstance(verts, list) or len(verts) < 4:
        raise DataError(source, "geometry.vertices", "must list at least 4 points [x, y, z] (m)",
                        verts)
    for i, v in enumerate(verts):
        if (not isinstance(v, list) or len(v) != 3
                or not all(_is_finite_number(c) for c in v)):
            raise DataError(source, f"geometry.vertices[{i}]", "must be three finite numbers", v)
    return None


def _parse_com(source: str, raw: Any, values: tuple[int, ...] | None,
               n_faces: int | None) -> ComOffset | None:
    if raw is None:
        return None
    if isinstance(raw, list):
        if len(raw) != 3 or not all(_is_finite_number(c) for c in raw):
            raise DataError(source, "com_offset", "must be [x, y, z] in m", raw)
        return ComOffset(vector=(float(raw[0]), float(raw[1]), float(raw[2])))
    if isinstance(raw, dict):
        face = raw.get("toward_face")
        valid = list(values) if values is not None else (
            list(range(1, n_faces + 1)) if n_faces is not None else None)
        if not isinstance(face, int) or (valid is not None and face not in valid):
            raise DataError(source, "com_offset.toward_face", "must be one of the die's face values",
                            face)
        frac = raw.get("fraction_of_r")
        if not _is_finite_number(frac) or not 0 <= float(frac) < 1:
            raise DataError(source, "com_offset.fraction_of_r", "must be a number in [0, 1)", frac)
        return ComOffset(toward_face=face, fraction_of_r=float(frac))
    raise DataError(source, "com_offset", "must be [x, y, z] or {toward_face, fraction_of_r}", raw)


_is_finite_number = is_finite_number


def _positive(source: str, name: str, x: Any, upper: float | None = None,
              lower: float | None = None) -> float:
    if not _is_finite_number(x) or float(x) <= 0:
        raise DataError(source, name, "must be a positive finite number", x)
    if lower is not None and float(x) < lower:
        raise DataError(source, name, f"must be at least {lower} m", x)
    if upper is not None and float(x) > upper:
        raise DataError(source, name, f"must be at most {upper}", x)
    return float(x)
