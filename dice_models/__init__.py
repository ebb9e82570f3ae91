"""Die models as YAML data, with a loader that validates on load.

A die file names its geometry (octahedron, cube, cuboid, tetrahedron, dodecahedron,
icosahedron, trapezohedron, convex vertices or a mesh file), its mass or its material's
density, its mass model (solid; shell, thin card or with walls; 3D-printed with infill;
dice_models/mass.py) with optional drilled pips or engraved numbers, its face values and how
the die is read (`reading`: the top face, the bottom face or the top vertex), an optional
centre-of-mass offset (tampering), and its contact material (dice_models/materials.py; card
for shells and plastic for solids when it names none). Errors name the file, the field and
the bad value in one line; a field the loader does not know is refused, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dice_models.errors import DataError, is_finite_number
from dice_models.files import read_yaml, resolve_named
from dice_models.mass import MASS_KINDS, PIP_SHAPES, Engraving, MassSpec, Pips
from dice_models.materials import Material, check_fields, default_material, material_from
from dice_models.mesh import SUFFIXES, UNITS

DICE_DIR = Path(__file__).parent / "dice"
# The smallest die edge (m): Bullet's 0.1 mm collision margin and contact thresholds are
# sized for dice; a 50 nm d8 from the fuzz suite never came to rest (exit 3).
MIN_SIZE = 0.001
GEOMETRY_KINDS = ("octahedron", "cube", "cuboid", "tetrahedron", "dodecahedron", "icosahedron",
                  "trapezohedron", "convex", "mesh")
MASS_MODELS = MASS_KINDS
READINGS = ("top_face", "bottom_face", "top_vertex")
DIE_FIELDS = ("name", "geometry", "mass", "density", "mass_model", "values", "reading",
              "com_offset", "pips", "engraving", "material")
GEOMETRY_FIELDS = {"octahedron": ("kind", "edge"), "cube": ("kind", "side"),
                   "cuboid": ("kind", "sides"), "convex": ("kind", "vertices"),
                   "tetrahedron": ("kind", "edge"), "dodecahedron": ("kind", "edge"),
                   "icosahedron": ("kind", "edge"),
                   "trapezohedron": ("kind", "faces", "height", "width"),
                   "mesh": ("kind", "file", "units")}
MASS_MODEL_FIELDS = {"solid": ("kind",), "shell": ("kind", "wall"),
                     "printed": ("kind", "wall", "infill")}
MAX_DENSITY = 25000.0  # kg/m^3: above osmium (22,590); a die denser than that is a typo


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
    geometry: dict[str, Any]  # a mesh's `file` is resolved to a path on loading
    mass: float  # kg; computed from `density` when the data gives that instead
    mass_model: str  # solid, shell or printed
    values: tuple[int, ...] | None = None
    com_offset: ComOffset | None = None
    source: str = "<inline>"
    material: Material | None = None  # None: the default for its mass model (default_material)
    density: float | None = None  # kg/m^3 of the wall material, when the data gives it
    wall: float | None = None  # m: a shell's or print's wall; None for a thin card shell
    infill: float | None = None  # printed: share of the inside filled
    pips: Pips | None = None
    engraving: Engraving | None = None
    reading: str = "top_face"  # what the die shows: READINGS

    @property
    def mass_spec(self) -> MassSpec:
        return MassSpec(self.mass_model, self.wall, self.infill or 0.0, self.pips,
                        self.engraving)

    @property
    def contact_material(self) -> Material:
        """The die's material: the one its data names, else card for shells, plastic for solids."""
        if self.material is not None:
            return self.material
        return material_from(default_material(self.mass_model), self.source)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "geometry": self.geometry}
        if self.density is not None:
            out["density"] = self.density
        else:
            out["mass"] = self.mass
        if self.wall is None:
            out["mass_model"] = self.mass_model
        else:
            out["mass_model"] = {"kind": self.mass_model, "wall": self.wall}
            if self.infill is not None:
                out["mass_model"]["infill"] = self.infill
        if self.values is not None:
            out["values"] = list(self.values)
        if self.reading != "top_face":
            out["reading"] = self.reading
        if self.pips is not None:
            out["pips"] = self.pips.to_json()
        if self.engraving is not None:
            out["engraving"] = self.engraving.to_json()
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
    return parse_die(read_yaml(path), str(path), Path(path).parent)


def parse_die(data: Any, source: str = "<inline>", base_dir: Path | None = None) -> DieModel:
    """Validate a die mapping (from YAML or an experiment's inline geometry). A mesh file
    is found relative to `base_dir` (the die file's folder)."""
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
    geo = dict(geo)
    if kind == "mesh":
        geo = _check_mesh(source, geo, base_dir)
    n_faces = _check_geometry(source, kind, geo)
    mass_model, wall, infill = _parse_mass_model(source, data.get("mass_model", "solid"))
    reading = data.get("reading", "top_face")
    if reading not in READINGS:
        raise DataError(source, "reading", f"must be one of {', '.join(READINGS)}", reading)
    pips = _parse_pips(source, data.get("pips"), wall)
    engraving = _parse_engraving(source, data.get("engraving"), wall)
    if mass_model == "shell" and wall is None and (pips or engraving):
        raise DataError(source, "mass_model", "a thin card shell has no material to drill or "
                        "engrave: give the shell a wall", show_value=False)
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
    model = DieModel(name=name, geometry=geo, mass=0.0, mass_model=mass_model,
                     values=values, com_offset=com, source=source, material=material,
                     wall=wall, infill=infill, pips=pips, engraving=engraving, reading=reading)
    return _with_mass(source, data, model)


def _with_mass(source: str, data: dict[str, Any], model: DieModel) -> DieModel:
    """The model checked whole against its shape (its reading, and whether its walls, pips
    and engraving fit: so `dice check` answers what a throw would), with its mass: given,
    or its material's density times what it holds."""
    from dice_models.mass import relative_mass
    from dice_models.shapes import mesh_of, polyhedron_of

    if ("mass" in data) == ("density" in data):
        raise DataError(source, "mass", "give the die's mass (kg) or its material's density "
                        "(kg/m^3), one of the two", data.get("mass"))
    poly = polyhedron_of(model.geometry, source)
    if model.values is not None and len(model.values) != poly.n_faces:
        raise DataError(source, "values", f"needs {poly.n_faces} values, one per face",
                        list(model.values))
    check_reading(model, poly)
    values = model.values if model.values is not None else tuple(range(1, poly.n_faces + 1))
    thin = model.mass_model == "shell" and model.wall is None
    relative = None
    if not thin and (model.mass_spec != MassSpec() or "density" in data):
        body = mesh_of(model.geometry, source).triangles if model.geometry["kind"] == "mesh" else None
        try:
            relative = relative_mass(poly, model.mass_spec, values, body)
        except ValueError as exc:  # a wall that fills the die, a pip value past 6
            raise DataError(source, "mass_model", str(exc), show_value=False) from None
        if relative <= 0:
            raise DataError(source, "mass_model", "nothing is left of the die after its pips "
                            "and engraving", show_value=False)
    if "mass" in data:
        return replace(model, mass=_positive(source, "mass", data["mass"]))
    density = _positive(source, "density", data["density"], upper=MAX_DENSITY)
    if relative is None:
        raise DataError(source, "density", "a thin card shell has no volume: give its mass",
                        density)
    return replace(model, mass=density * relative, density=density)


def check_reading(model: DieModel, poly: Any) -> None:
    """A die read by its top face needs a face that faces up when it rests on each face,
    within 60 deg of straight up (a d4's best is 70.5 deg off: it has a corner there); one
    read by its top vertex needs one corner farthest from each face (`Polyhedron.apex`)."""
    import numpy as np

    from dice_models.numerics import matmul

    for f in range(poly.n_faces):
        if model.reading == "top_face":
            if float(matmul(poly.normals, poly.normals[f]).min()) > -0.5:
                raise DataError(model.source, "reading", f"no face faces up when the die rests "
                                f"on face {f}: read it by top_vertex or bottom_face",
                                model.reading)
        elif model.reading == "top_vertex":
            height = np.sort(poly.face_offsets[f] - matmul(poly.vertices, poly.normals[f]))
            if height[-1] - height[-2] < 1e-6 * poly.circumradius:
                raise DataError(model.source, "reading", f"face {f} has no one corner opposite "
                                "it: read it by top_face or bottom_face", model.reading)


def _parse_mass_model(source: str, raw: Any) -> tuple[str, float | None, float | None]:
    """(kind, wall in m or None, infill or None) of a `mass_model:` string or mapping."""
    if isinstance(raw, str):
        if raw not in MASS_MODELS:
            raise DataError(source, "mass_model", f"must be one of {', '.join(MASS_MODELS)}", raw)
        if raw == "printed":
            raise DataError(source, "mass_model", "a printed die needs its wall and infill: "
                            "{kind: printed, wall: m, infill: fraction}", raw)
        return raw, None, None
    if not isinstance(raw, dict) or raw.get("kind") not in MASS_MODELS:
        raise DataError(source, "mass_model", "must be solid, shell or a mapping {kind: shell "
                        "or printed, wall: m, infill: fraction}", raw)
    kind = raw["kind"]
    check_fields(raw, MASS_MODEL_FIELDS[kind], source, "mass_model")
    wall = None
    if kind != "solid":
        wall = _positive(source, "mass_model.wall", raw.get("wall"), upper=0.1)
    infill = None
    if kind == "printed":
        infill = raw.get("infill")
        if not _is_finite_number(infill) or not 0 <= float(infill) <= 1:
            raise DataError(source, "mass_model.infill", "must be a fraction in [0, 1]", infill)
        infill = float(infill)
    return kind, wall, infill


def _parse_pips(source: str, raw: Any, wall: float | None) -> Pips | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise DataError(source, "pips", "must be a mapping {diameter: m, depth: m, shape: "
                        "spherical or cylindrical}", raw)
    check_fields(raw, ("diameter", "depth", "shape", "spacing"), source, "pips")
    diameter = _positive(source, "pips.diameter", raw.get("diameter"), upper=0.1)
    depth = _positive(source, "pips.depth", raw.get("depth"), upper=wall or 0.1)
    shape = raw.get("shape", "spherical")
    if shape not in PIP_SHAPES:
        raise DataError(source, "pips.shape", f"must be one of {', '.join(PIP_SHAPES)}", shape)
    if shape == "spherical" and depth > diameter / 2:
        raise DataError(source, "pips.depth", "a spherical pip is at most half its diameter "
                        "deep", raw.get("depth"))
    spacing = raw.get("spacing")
    if spacing is not None:
        spacing = _positive(source, "pips.spacing", spacing, upper=0.1)
    return Pips(diameter, depth, shape, spacing)


def _parse_engraving(source: str, raw: Any, wall: float | None) -> Engraving | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise DataError(source, "engraving", "must be a mapping {depth: m, height: m}", raw)
    check_fields(raw, ("depth", "height"), source, "engraving")
    depth = _positive(source, "engraving.depth", raw.get("depth"), upper=wall or 0.1)
    height = _positive(source, "engraving.height", raw.get("height"), upper=0.1)
    return Engraving(depth, height)


def _check_mesh(source: str, geo: dict[str, Any], base_dir: Path | None) -> dict[str, Any]:
    """The mesh geometry with its file resolved against the die file's folder."""
    file = geo.get("file")
    if not isinstance(file, str) or not file:
        raise DataError(source, "geometry.file", "must name a mesh file (.stl, .obj, .gltf, "
                        ".glb)", file)
    if Path(file).suffix.lower() not in SUFFIXES:
        raise DataError(source, "geometry.file", f"must end in {', '.join(SUFFIXES)}", file)
    units = geo.get("units", "mm")
    if units not in UNITS:
        raise DataError(source, "geometry.units", f"must be one of {', '.join(UNITS)}", units)
    path = Path(file)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return {"kind": "mesh", "file": str(path.absolute()), "units": units}


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
    if kind in ("tetrahedron", "dodecahedron", "icosahedron"):
        _positive(source, "geometry.edge", geo.get("edge"), upper=1.0, lower=MIN_SIZE)
        return {"tetrahedron": 4, "dodecahedron": 12, "icosahedron": 20}[kind]
    if kind == "trapezohedron":
        faces = geo.get("faces")
        if not isinstance(faces, int) or isinstance(faces, bool) or faces % 2 or not 6 <= faces <= 100:
            raise DataError(source, "geometry.faces", "must be an even number of faces, 6..100",
                            faces)
        _positive(source, "geometry.height", geo.get("height"), upper=1.0, lower=MIN_SIZE)
        _positive(source, "geometry.width", geo.get("width"), upper=1.0, lower=MIN_SIZE)
        return faces
    if kind == "mesh":
        from dice_models.shapes import mesh_of

        return mesh_of(geo, source).hull.n_faces
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
