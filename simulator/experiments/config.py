"""A fairness experiment as YAML: the die, the table, the throw distribution, how many
throws (or a sequential stopping rule), the seed and the physics settings.

Throw i of an experiment is drawn from its own generator, `default_rng([seed, i])`, so a
throw depends only on the experiment and its index: never on the chunk it ran in, the
backend, the worker count, or an interruption.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
from scipy.spatial.transform import Rotation

from dice_models import DataError, DieModel, load_die, parse_die
from dice_models.files import read_yaml
from dice_models.materials import check_fields
from simulator.physics import DieShape, PhysicsSettings, TableSpec, ThrowSpec, die_shape
from simulator.physics.contact import realize
from simulator.physics.settings import ENGINES, parse_table, surface_from
from simulator.physics.world import MAX_SPEED

TOP_LEVEL = ("name", "description", "die", "table", "surface", "throw", "throws", "chunk_size",
             "seed", "physics", "stop", "alpha", "series")
THROW_KEYS = ("height", "speed", "elevation_deg", "spin", "area", "orientation", "roll", "origin",
              "direction_deg", "styles")
# A hand throw as a mixture of styles (docs/impacts.md, "Throw styles"): each style a throw
# distribution and a weight. A preset's ranges fill what the experiment's style leaves out
# (and the throw's own keys what neither gives). `roll`: rolled out of the hand, the spin is
# this multiple of the rolling rate (horizontal speed / the die's inradius) about the
# horizontal axis across the motion, instead of `spin` about a random axis.
STYLE_KEYS = ("weight", "height", "speed", "elevation_deg", "spin", "area", "orientation", "roll",
              "origin", "direction_deg")
STYLE_PRESETS: dict[str, dict[str, Any]] = {
    "dropped": {"height": [0.10, 0.30], "speed": [0.0, 0.2], "elevation_deg": [-90.0, 90.0],
                "spin": [0.0, 5.0]},
    "tossed": {"height": [0.15, 0.35], "speed": [0.5, 2.0], "elevation_deg": [10.0, 60.0],
               "spin": [0.0, 30.0]},
    "rolled": {"height": [0.03, 0.06], "speed": [0.5, 2.5], "elevation_deg": [-10.0, 0.0],
               "roll": [0.5, 1.5]},
    "cup": {"height": [0.05, 0.15], "speed": [0.3, 1.2], "elevation_deg": [-60.0, 0.0],
            "spin": [20.0, 80.0]},
}
PHYSICS_KEYS = ("time_step", "solver_iterations", "gravity", "settle_linear", "settle_angular",
                "hold_time", "max_time", "engine")
MAX_THROWS = 100_000_000


# The lab's default hand throw (issue 36 item 2; docs/fairness.md, docs/calibration.md "The
# hand throw as a person rolls"): a person's roll across the table from player 1's edge. The
# calibrated roll of the steel cuboids (released 5-10 cm up, elevation +-30 deg, spin 0-60
# rad/s times the calibrated throw scale), released EDGE_INSET inside player 1's edge (x
# +-0.1 m, y +-0.02 m about it), toward the far side (70-110 deg), at the calibrated roll's
# lowest speed (0.6 x the scale, 0.99 m/s) to 2.5 m/s, the speeds that stop on the default
# 0.9 m deep table. On another table the release box follows player 1's edge (its centre
# EDGE_INSET inside it, x 0, or as little further in as a large die needs: person_roll); the
# speeds stay. steep.LAB_THROW is this throw on the default table.
THROW_SCALE = 1.6512  # impacts.CALIBRATED's throw_scale (a test checks they agree)
EDGE_INSET = 0.05  # m, the default release box's centre inside player 1's edge
ROLL_SPEED = (0.6 * THROW_SCALE, 2.5)
ROLL_SPIN = (0.0, 60.0 * THROW_SCALE)
ROLL_AREA = (0.1, 0.02)
ROLL_DIRECTION = (70.0, 110.0)


@dataclass(frozen=True)
class ThrowDistribution:
    """Where and how a die is released: the centre's height above the table (m), the speed
    (m/s) in a horizontal direction tilted by `elevation_deg`, the spin magnitude (rad/s)
    about a uniformly random axis, the release point uniform in the box |x - origin[0]| <=
    area[0], |y - origin[1]| <= area[1] (m), and the orientation: uniform over rotations or
    a fixed face down (value) with a random yaw. `origin` is the release box's centre (None:
    the table's), `direction_deg` bounds the horizontal direction (degrees from +x toward
    +y; None: uniformly random). The defaults are the lab's hand throw, a person's roll from
    player 1's edge of the default table (the note above); DROP is the throw before it."""

    height: tuple[float, float] = (0.05, 0.10)
    speed: tuple[float, float] = ROLL_SPEED
    elevation_deg: tuple[float, float] = (-30.0, 30.0)
    spin: tuple[float, float] = ROLL_SPIN
    area: tuple[float, float] = ROLL_AREA
    orientation: str | int = "uniform"
    roll: tuple[float, float] | None = None  # rolled out of the hand (THROW_KEYS' note)
    origin: tuple[float, float] | None = (0.0, -0.45 + EDGE_INSET)  # None: the table's centre
    # (the default: the default table's player 1 edge, for a die of circumradius up to 3 cm:
    # person_roll(table, circumradius) places it on another table or for a larger die)
    direction_deg: tuple[float, float] | None = ROLL_DIRECTION  # None: any direction
    styles: tuple[ThrowStyle, ...] = ()  # a mixture: each throw draws its style first

    def to_json(self) -> dict[str, Any]:
        """The throw's fields; `roll`, `origin`, `direction_deg` and `styles` only when given,
        so an experiment without them keeps its fingerprint."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("roll", "origin", "direction_deg") and v is None or f.name == "styles" and not v:
                continue
            if f.name == "styles":
                out["styles"] = [{"name": st.name, "weight": st.weight, **st.throw.to_json()}
                                 for st in v]
            else:
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True)
class ThrowStyle:
    """One style of a hand throw (STYLE_PRESETS): its name, its weight in the mixture and its
    own throw distribution (which has no styles)."""

    name: str
    weight: float
    throw: ThrowDistribution


# The lab's hand throw before 2026-12-04: a near-drop over the table's middle in any
# direction. A calibration dataset's throw model fills what it leaves out from this (its
# fits stay as they were), as does the unused top level of a throw of styles (its
# fingerprint stays).
DROP = ThrowDistribution(height=(0.15, 0.35), speed=(0.2, 1.5), spin=(0.0, 25.0), area=(0.1, 0.1),
                         origin=None, direction_deg=None)


@dataclass(frozen=True)
class StopRule:
    """Wald's sequential probability ratio test on one face: H0 p = 1/k against H1 p = p1,
    with error rates alpha (false alarm) and beta (miss); `throws` caps it."""

    face: int
    p1: float
    alpha: float = 0.01
    beta: float = 0.05
    rule: str = "sprt"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Series:
    """Where an experiment sits in a series: the parameter's name and value, and the face
    whose probability the series is expected to move."""

    name: str
    parameter: str
    value: float
    face: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    die: DieModel
    table: TableSpec
    throw: ThrowDistribution
    throws: int
    chunk_size: int
    seed: int
    physics: PhysicsSettings
    stop: StopRule | None = None
    alpha: float = 0.01
    series: Series | None = None
    description: str = ""

    @property
    def faces(self) -> tuple[int, ...]:
        return die_shape(self.die).values

    def identity(self) -> dict[str, Any]:
        """Everything that decides the throws' results (not their number, the chunking or
        the labels): two runs with the same identity give the same rows."""
        table = self.table.to_json()
        table.pop("source", None)
        physics = asdict(self.physics)
        statics = [self.table.surface, *(ob.material or self.table.surface for ob in self.table.obstacles)]
        return {
            "die": self.die.to_json(),
            "table": table,
            "contact": realize([self.die.contact_material], statics).to_json(),
            "throw": self.throw.to_json(),
            "seed": self.seed,
            "physics": physics,
            "stop": self.stop.to_json() if self.stop else None,
        }

    def fingerprint(self) -> str:
        text = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            **self.identity(),
            "throws": self.throws,
            "chunk_size": self.chunk_size,
            "alpha": self.alpha,
            "series": self.series.to_json() if self.series else None,
            "fingerprint": self.fingerprint(),
        }

    def with_(self, **changes: Any) -> Experiment:
        from dataclasses import replace

        return replace(self, **changes)


@dataclass(frozen=True)
class DrawnThrow:
    """One drawn throw and the facts about its release that the report bins by."""

    index: int
    throw: ThrowSpec
    initial_down: int  # face value pointing down at release
    height: float  # m
    speed: float  # m/s
    spin: float  # rad/s
    energy_j: float  # kinetic (translation + rotation) plus potential above the table, J
    style: str = ""  # the style drawn, for a throw of styles ("" for a single distribution)


def load_experiment(path: str | Path) -> Experiment:
    path = Path(path)
    return parse_experiment(read_yaml(path), str(path), base_dir=path.parent)


def parse_experiment(data: Any, source: str, base_dir: Path | None = None) -> Experiment:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping of experiment fields",
                        type(data).__name__)
    for key in data:
        if key not in TOP_LEVEL:
            raise DataError(source, str(key), f"unknown field{_hint(str(key), TOP_LEVEL)}",
                            show_value=False)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise DataError(source, "name", "must be a non-empty string", name)
    die = _parse_die(data.get("die"), source, base_dir)
    shape = die_shape(die)
    table = _parse_table(data.get("table"), data.get("surface"), source, base_dir)
    throw = _parse_throw(data.get("throw", {}), source, shape.values, shape.poly.circumradius, table)
    throws = _int(source, "throws", data.get("throws", 1000), 1, MAX_THROWS)
    chunk = _int(source, "chunk_size", data.get("chunk_size", 50), 1, 100_000)
    seed = _int(source, "seed", data.get("seed", 0), 0, 2**63 - 1)
    physics = _parse_physics(data.get("physics", {}), source)
    alpha = _prob(source, "alpha", data.get("alpha", 0.01))
    stop = None
    if data.get("stop") is not None:
        stop = parse_stop(data["stop"], source, shape.values)
    series = _parse_series(data.get("series"), source, shape.values)
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise DataError(source, "description", "must be a string", desc)
    return Experiment(name=name, source=source, die=die, table=table, throw=throw, throws=throws,
                      chunk_size=chunk, seed=seed, physics=physics, stop=stop, alpha=alpha,
                      series=series, description=desc.strip())


def parse_stop(raw: Any, source: str, faces: tuple[int, ...]) -> StopRule:
    if not isinstance(raw, dict):
        raise DataError(source, "stop", "must be a mapping {rule: sprt, face, p1, alpha, beta}", raw)
    rule = raw.get("rule", "sprt")
    if rule != "sprt":
        raise DataError(source, "stop.rule", "the only stopping rule is sprt", rule)
    face = raw.get("face", faces[0])
    if not isinstance(face, int) or face not in faces:
        raise DataError(source, "stop.face", f"must be one of the die's faces {list(faces)}", face)
    p1 = _prob(source, "stop.p1", raw.get("p1"))
    if abs(p1 - 1.0 / len(faces)) < 1e-9:
        raise DataError(source, "stop.p1", f"must differ from the fair 1/{len(faces)}", p1)
    alpha = _prob(source, "stop.alpha", raw.get("alpha", 0.01))
    beta = _prob(source, "stop.beta", raw.get("beta", 0.05))
    return StopRule(face=face, p1=p1, alpha=alpha, beta=beta)


def parse_throw(raw: Any, source: str, die: DieModel, table: TableSpec) -> ThrowDistribution:
    """A `throw:` mapping of an experiment (THROW_KEYS), validated against the die and the
    table as an experiment's is (the calibration datasets use the same throw model; the
    calibration's throw_scale scales every style's speed and spin, and fits the styles'
    shares as `share.NAME` where asked)."""
    shape = die_shape(die)
    return _parse_throw(raw, source, shape.values, shape.poly.circumradius, table, base=DROP)


def person_roll(table: TableSpec, circumradius: float = 0.0) -> ThrowDistribution:
    """The lab's default hand throw on `table`: the person's roll (ThrowDistribution's
    defaults) with its release box's centre EDGE_INSET inside player 1's edge (y = -edge_y),
    or, for a die too large (or a round table too curved) for that, the first millimetre
    further in where the whole box lies a die's circumradius inside the edge; where none
    does, EDGE_INSET in (and the parse's check names it)."""
    base = ThrowDistribution()
    ax, ay = base.area
    for mm in range(round(EDGE_INSET * 1000), round(table.edge_y * 1000) + 1):
        y = -table.edge_y + mm / 1000
        if all(table.contains_xy(sx * ax, y + sy * ay, inset=circumradius)
               for sx in (-1, 1) for sy in (-1, 1)):
            return replace(base, origin=(0.0, y))
    return replace(base, origin=(0.0, -table.edge_y + EDGE_INSET))


def draw_throw(exp: Experiment, index: int, shape: DieShape | None = None) -> DrawnThrow:
    """Throw `index` of the experiment, from its own generator (`shape`: the die's, if the
    caller has it at hand)."""
    d = exp.throw
    shape = shape or die_shape(exp.die)
    style = ""
    if d.styles:  # the style from a generator of its own: the throw's draws stay as they were
        d, style = _pick_style(d.styles, np.random.default_rng([exp.seed, index, 1]).random())
    rng = np.random.default_rng([exp.seed, index])
    # Two draws per throw, then arithmetic: numpy's per-call overhead is most of the cost.
    u = rng.random(8).tolist()
    g = rng.standard_normal(7).tolist()
    h = _lerp(d.height, u[0])
    speed = _lerp(d.speed, u[1])
    az = 2 * math.pi * u[2] if d.direction_deg is None else math.radians(_lerp(d.direction_deg, u[2]))
    el = math.radians(_lerp(d.elevation_deg, u[3]))
    x = d.area[0] * (2 * u[4] - 1)
    y = d.area[1] * (2 * u[5] - 1)
    if d.origin is not None:  # the same draws, the box moved (None: bit for bit as before)
        x, y = d.origin[0] + x, d.origin[1] + y
    spin_mag = _lerp(d.spin, u[6])
    vel = (speed * math.cos(el) * math.cos(az), speed * math.cos(el) * math.sin(az),
           speed * math.sin(el))
    if d.roll is None:
        norm = math.sqrt(g[0] ** 2 + g[1] ** 2 + g[2] ** 2) or 1.0
        spin = (g[0] / norm * spin_mag, g[1] / norm * spin_mag, g[2] / norm * spin_mag)
    else:  # rolled: topspin about z x (the horizontal direction of the motion)
        spin_mag = _lerp(d.roll, u[6]) * speed * math.cos(el) / shape.inradius
        spin = (-math.sin(az) * spin_mag, math.cos(az) * spin_mag, 0.0)
    if d.orientation == "uniform":  # a normalized Gaussian 4-vector: uniform over rotations
        qn = math.sqrt(g[3] ** 2 + g[4] ** 2 + g[5] ** 2 + g[6] ** 2)
        q = (g[3] / qn, g[4] / qn, g[5] / qn, g[6] / qn)
        rot = quat_rows(q)
    else:
        bottom = shape.values.index(int(d.orientation))
        rot_np = shape.poly.rest_rotation(bottom, 360.0 * u[7])
        qa = Rotation.from_matrix(rot_np).as_quat()
        q = (float(qa[0]), float(qa[1]), float(qa[2]), float(qa[3]))
        rot = rot_np.tolist()
    down = lowest_face(shape.poly.normals.tolist(), rot[2])  # face_down's, without its angle
    # The spin in the die's frame, b = R^T w, and its energy b . I b / 2; plain floats, as
    # numpy's per-call cost on 3-vectors was a quarter of a throw's drawing.
    b = [rot[0][j] * spin[0] + rot[1][j] * spin[1] + rot[2][j] * spin[2] for j in range(3)]
    inertia = shape.mass.inertia.tolist()
    spin_energy = sum(b[i] * inertia[i][j] * b[j] for i in range(3) for j in range(3))
    m = shape.mass.mass
    energy = (0.5 * m * (vel[0] ** 2 + vel[1] ** 2 + vel[2] ** 2)
              + 0.5 * spin_energy + m * exp.physics.gravity * h)
    throw = ThrowSpec(release=(x, y, h), velocity=vel, spin=spin, orientation=q)
    return DrawnThrow(index=index, throw=throw, initial_down=shape.values[down], height=h,
                      speed=speed, spin=spin_mag, energy_j=float(energy), style=style)


def _pick_style(styles: tuple[ThrowStyle, ...], u: float) -> tuple[ThrowDistribution, str]:
    """The style whose share of the summed weights holds u (uniform in [0, 1))."""
    total = sum(st.weight for st in styles)
    acc = 0.0
    for st in styles:
        acc += st.weight / total
        if u < acc:
            return st.throw, st.name
    return styles[-1].throw, styles[-1].name


def _lerp(r: tuple[float, float], u: float) -> float:
    return r[0] + (r[1] - r[0]) * u


def quat_rows(q: tuple[float, float, float, float]) -> list[list[float]]:
    """Rotation matrix of a unit quaternion (x, y, z, w), as rows of floats (the lab reads a
    few numbers of it per throw, where a numpy array costs more than the arithmetic)."""
    x, y, z, w = q
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]


def lowest_face(normals: list[list[float]], up: list[float]) -> int:
    """Index of the face whose normal points most nearly down, given each face normal in
    the die's frame and the world's up axis in that frame (row 2 of the rotation): the
    first of equals, as numpy's argmin."""
    heights = [n[0] * up[0] + n[1] * up[1] + n[2] * up[2] for n in normals]
    return heights.index(min(heights))


# -- helpers ------------------------------------------------------------------------------


def _parse_die(raw: Any, source: str, base_dir: Path | None) -> DieModel:
    if raw is None:
        raise DataError(source, "die", "is missing: give a die name (e.g. paper-d8) or a mapping",
                        show_value=False)
    if isinstance(raw, str):
        path = Path(raw)
        if base_dir is not None and path.suffix in (".yaml", ".yml") and not path.is_absolute():
            path = base_dir / path
        try:
            return load_die(path if path.suffix in (".yaml", ".yml") else raw)
        except DataError as exc:
            if exc.source == "die":  # unknown name: say which experiment file asked for it
                raise DataError(source, "die", str(exc).split(": ", 2)[-1], show_value=False) from None
            raise
    if not isinstance(raw, dict):
        raise DataError(source, "die", "must be a die name or a mapping", raw)
    if "model" in raw:  # a shipped die with some fields changed (mass, mass model, tampering)
        base = _parse_die(raw["model"], source, base_dir).to_json()
        for key in MODEL_CHANGES:
            if key in raw:
                base[key] = raw[key]
        # a changed mass replaces the model's density and a density its mass (one of the two)
        for given, dropped in (("mass", "density"), ("density", "mass")):
            if given in raw and dropped not in raw:
                base.pop(dropped, None)
        check_fields(raw, ("model", *MODEL_CHANGES), source, "die")
        return parse_die(base, f"{source}: die", base_dir)
    return parse_die(raw, f"{source}: die", base_dir)


MODEL_CHANGES = ("name", "mass", "density", "mass_model", "com_offset", "values", "reading",
                 "pips", "engraving", "material")


def _parse_table(raw: Any, surface: Any, source: str, base_dir: Path | None) -> TableSpec:
    if raw is None:
        table = TableSpec(source=source)
    elif isinstance(raw, str):
        path = Path(raw)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        table = parse_table(read_yaml(path), str(path))
    elif isinstance(raw, dict):
        table = parse_table(raw, f"{source}: table")
    else:
        raise DataError(source, "table", "must be a mapping of table fields or a table file", raw)
    if surface is not None:
        table = table.with_surface(surface_from(surface, source, "surface"))
    return table


def _parse_throw(raw: Any, source: str, faces: tuple[int, ...], circumradius: float,
                 table: TableSpec, where: str = "throw",
                 base: ThrowDistribution | None = None) -> ThrowDistribution:
    """`base` fills the ranges `raw` leaves out: None, an experiment's, for the lab's hand
    throw on this table (person_roll); DROP for a calibration dataset's throw model. The
    release place (area, origin, direction_deg) is one choice: a throw that names `area` or
    `origin` releases over the table's middle (or its origin) in any direction (or its
    direction_deg), as before 2026-12-04; one that names neither, from person_roll's box at
    player 1's edge toward the far side (its direction_deg, if named)."""
    if not isinstance(raw, dict):
        raise DataError(source, where, "must be a mapping of throw ranges", raw)
    keys = THROW_KEYS if where == "throw" else STYLE_KEYS
    for key in raw:
        if key not in keys:
            raise DataError(source, f"{where}.{key}", f"unknown field{_hint(str(key), keys)}",
                            show_value=False)
    if raw.get("styles") is not None:
        return _parse_styles(raw, source, faces, circumradius, table, base)
    person = base is None
    base = person_roll(table, circumradius) if base is None else base
    height = _range(source, f"{where}.height", raw.get("height", list(base.height)), 0.0, 5.0)
    if height[0] <= circumradius:
        raise DataError(source, f"{where}.height", f"the lowest release must clear the die: above "
                        f"its circumradius {circumradius:.4f} m", list(height))
    speed = _range(source, f"{where}.speed", raw.get("speed", list(base.speed)), 0.0, MAX_SPEED)
    elev = _range(source, f"{where}.elevation_deg", raw.get("elevation_deg", list(base.elevation_deg)),
                  -90.0, 90.0)
    spin = _range(source, f"{where}.spin", raw.get("spin", list(base.spin)), 0.0, 1000.0)
    placed = not person or "area" in raw or "origin" in raw
    area_raw = raw.get("area", list(DROP.area if person and placed else base.area))
    if (not isinstance(area_raw, list) or len(area_raw) != 2
            or not all(_finite(v) and float(v) >= 0 for v in area_raw)):
        raise DataError(source, f"{where}.area", "must be [half_x, half_y], non-negative lengths in m",
                        area_raw)
    area = (float(area_raw[0]), float(area_raw[1]))
    origin = None if placed else base.origin
    if raw.get("origin") is not None:
        o = raw["origin"]
        if not isinstance(o, list) or len(o) != 2 or not all(_finite(v) for v in o):
            raise DataError(source, f"{where}.origin", "must be [x, y], the release box's centre in m", o)
        origin = (float(o[0]), float(o[1]))
    ox, oy = origin or (0.0, 0.0)
    if not all(table.contains_xy(ox + sx * area[0], oy + sy * area[1], inset=circumradius)
               for sx in (-1, 1) for sy in (-1, 1)):
        if not placed:  # the default place does not fit this table
            raise DataError(source, f"{where}.origin", "the lab's hand throw releases "
                            f"{EDGE_INSET:g} m inside player 1's edge, within area {list(area)}, "
                            "which does not lie over this table a die's size inside its edge: "
                            "name throw.area and throw.origin",
                            {"area": list(area), "origin": [ox, oy]})
        raise DataError(source, f"{where}.area", "releases must lie over the table, a die's size "
                        "inside its edge", area_raw if raw.get("origin") is None else
                        {"area": area_raw, "origin": raw["origin"]})
    direction = None if placed else base.direction_deg
    if "direction_deg" in raw:
        direction = None if raw["direction_deg"] is None else _range(
            source, f"{where}.direction_deg", raw["direction_deg"], -360.0, 360.0)
    orient = raw.get("orientation", "uniform")
    if isinstance(orient, dict) and set(orient) == {"face_down"}:
        orient = orient["face_down"]
        if not isinstance(orient, int) or isinstance(orient, bool) or orient not in faces:
            raise DataError(source, f"{where}.orientation.face_down",
                            f"must be one of the die's faces {list(faces)}", orient)
    elif orient != "uniform":
        raise DataError(source, f"{where}.orientation", "must be 'uniform' or {face_down: VALUE}",
                        orient)
    roll = None
    if raw.get("roll") is not None:
        roll = _range(source, f"{where}.roll", raw["roll"], 0.0, 10.0)
    return ThrowDistribution(height=height, speed=speed, elevation_deg=elev, spin=spin,
                             area=area, orientation=orient, roll=roll, origin=origin,
                             direction_deg=direction)


def _parse_styles(raw: dict[str, Any], source: str, faces: tuple[int, ...], circumradius: float,
                  table: TableSpec, base: ThrowDistribution | None) -> ThrowDistribution:
    """`throw: {styles: {NAME: {weight: W, ...ranges}}, ...ranges}`: each style's ranges are
    its own, else its preset's (STYLE_PRESETS, when NAME is one), else the throw's own keys,
    else the lab's defaults (`base`: _parse_throw's)."""
    styles_raw = raw["styles"]
    if not isinstance(styles_raw, dict) or not styles_raw:
        raise DataError(source, "throw.styles", "must be a mapping of style name: "
                        "{weight, ranges}", styles_raw)
    shared = {k: v for k, v in raw.items() if k != "styles"}
    styles = []
    for name, style in styles_raw.items():
        where = f"throw.styles.{name}"
        if not isinstance(name, str) or not name:
            raise DataError(source, "throw.styles", "style names must be non-empty strings", name)
        if not isinstance(style, dict):
            raise DataError(source, where, "must be a mapping {weight, ranges}", style)
        weight = style.get("weight")
        if not _finite(weight) or not float(weight) > 0:
            raise DataError(source, f"{where}.weight", "must be a positive number", weight)
        merged = {**shared, **STYLE_PRESETS.get(name, {}), **style}
        merged.pop("weight")
        if "spin" in style and "roll" not in style:
            merged.pop("roll", None)  # a spin given replaces a preset's roll
        styles.append(ThrowStyle(name, float(weight), _parse_throw(
            merged, source, faces, circumradius, table, where, base)))
    return replace(DROP, styles=tuple(styles))





def _parse_physics(raw: Any, source: str) -> PhysicsSettings:
    if not isinstance(raw, dict):
        raise DataError(source, "physics", "must be a mapping of physics settings", raw)
    known = {f.name for f in fields(PhysicsSettings)}
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in PHYSICS_KEYS or key not in known:
            raise DataError(source, f"physics.{key}", f"unknown setting{_hint(str(key), PHYSICS_KEYS)}",
                            show_value=False)
        if key == "solver_iterations":
            changes[key] = _int(source, f"physics.{key}", value, 1, 10_000)
        elif key == "engine":  # the physics engine (docs/engines.md)
            if value not in ENGINES:
                raise DataError(source, "physics.engine", f"must be one of {', '.join(ENGINES)}", value)
            changes[key] = value
        elif not _finite(value) or float(value) <= 0:
            raise DataError(source, f"physics.{key}", "must be a positive number", value)
        else:
            changes[key] = float(value)
    settings = PhysicsSettings(**changes)
    if settings.time_step > 0.02:
        raise DataError(source, "physics.time_step", "must be at most 0.02 s", settings.time_step)
    return settings


def _parse_series(raw: Any, source: str, faces: tuple[int, ...]) -> Series | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise DataError(source, "series", "must be a mapping {name, parameter, value, face}", raw)
    name, param, value = raw.get("name"), raw.get("parameter"), raw.get("value")
    if not isinstance(name, str) or not name:
        raise DataError(source, "series.name", "must be a non-empty string", name)
    if not isinstance(param, str) or not param:
        raise DataError(source, "series.parameter", "must be a non-empty string", param)
    if not _finite(value):
        raise DataError(source, "series.value", "must be a number", value)
    face = raw.get("face")
    if face is not None and (not isinstance(face, int) or face not in faces):
        raise DataError(source, "series.face", f"must be one of the die's faces {list(faces)}", face)
    return Series(name=name, parameter=param, value=float(value), face=face)


def _range(source: str, name: str, raw: Any, lo: float, hi: float) -> tuple[float, float]:
    if _finite(raw):
        raw = [raw, raw]
    if not isinstance(raw, list) or len(raw) != 2 or not all(_finite(v) for v in raw):
        raise DataError(source, name, "must be [low, high] (or one number)", raw)
    a, b = float(raw[0]), float(raw[1])
    if a > b:
        raise DataError(source, name, "low is above high", raw)
    if a < lo or b > hi:
        raise DataError(source, name, f"must lie within [{lo:g}, {hi:g}]", raw)
    return (a, b)


def _int(source: str, name: str, raw: Any, lo: int, hi: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not lo <= raw <= hi:
        raise DataError(source, name, f"must be an integer in [{lo}, {hi}]", raw)
    return raw


def _prob(source: str, name: str, raw: Any) -> float:
    if not _finite(raw) or not 0 < float(raw) < 1:
        raise DataError(source, name, "must be a probability strictly between 0 and 1", raw)
    return float(raw)


def _finite(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(float(x))


def _hint(word: str, choices: tuple[str, ...]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]}?" if close else f"; known: {', '.join(choices)}"
