"""Physics settings, surface presets and table descriptions, all recorded in every result."""

from __future__ import annotations

import functools
import math
import platform
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import DataError
from dice_models.errors import is_finite_number
from dice_models.files import read_yaml
from dice_models.materials import Material, check_fields, library, material_from
from rules.core.throwing import GRAVITY

# A table surface is a contact material (dice_models/materials.yaml): the effective values
# of a die on it come from the pair table or the rule there, realized per world by
# simulator/physics/contact.py and recorded in every result.
Surface = Material
SURFACE_PRESETS = ("felt", "slick", "hardwood", "vinyl", "neoprene", "rubber")
SURFACES = {name: library().materials[name] for name in SURFACE_PRESETS}

# Bullet's own default damping (velocity x (1 - 0.04)^dt, about 4% a second): air drag on a
# light card die is of that order, and with no damping at all a d6 on the tray floor rocked
# in a limit cycle (a 1 rad/s kick every 22 steps, for ever) instead of coming to rest.
DICE_DAMPING = 0.04
# Bullet's default convex margin (0.04 in its internal units, about 1 mm for small hulls
# here) makes a 50 mm octahedron rest visibly high; 0.1 mm keeps the resting height within
# the 0.5 mm the tests demand while contacts stay stable (checked on every face of every
# shipped die by tests/test_die_models.py, test_resting_on_each_face_sits_at_geometric_height).
COLLISION_MARGIN = 0.0001
# mujoco-warp: MuJoCo Warp's batched throws (fairness run --backend gpu or warp-cpu only)
ENGINES = ("pybullet", "mujoco", "mujoco-warp")
CONFINE_CHECKS = 10  # checks of the confinement rule in confine_time (PhysicsSettings)


@dataclass(frozen=True)
class PhysicsSettings:
    # 1/240 s. With the contact sub-steps below (max_travel, max_turn_deg) the outcome
    # distributions do not depend on the step (2000 throws a variant: the paper d8 on felt
    # fell off 12.1 / 13.7 / 13.0% at 1/240 / 1/480 / 1/960, p = 0.64; all 108 die and surface
    # pairs pass, docs/convergence-run.txt), so a longer one would do for flight, but
    # dice resting on a face need it: Bullet meets a hull on the table with one contact point a
    # step, and at 1/120 a paper d8 rocked on its face for over 20 s in 1 of 300 throws and
    # another paused on an edge long enough to be taken for at rest (none of 300 at 1/240).
    time_step: float = 1.0 / 240.0
    solver_iterations: int = 50
    gravity: float = GRAVITY
    # Settle rule: every moving die below both speeds for hold_time seconds.
    settle_linear: float = 0.005  # m/s
    settle_angular: float = 0.1  # rad/s
    # 0.025 s: chosen by `python -m benchmarks.settle_hold` (4000 random legal throws of the 7
    # shipped dice on felt and slick, with the contact model and step here): the resting face
    # and status matched a 1 s hold in all 4000 throws at 0.025, 0.05, 0.1 and 0.25 s; the
    # rule is the shortest hold with at least 99.9%. 261 steps a throw against 295 at the old
    # 0.25 s. Re-measured with jitter_deg 0.2 on today's 18 dice: 3999 of 4000 at 0.025 s;
    # with max_turn_deg 1: 4000 of 4000 at every hold.
    hold_time: float = 0.025  # s
    # ... where a brief twitch over those speeds that leaves a die within jitter_m and
    # jitter_deg of where its still spell began does not restart the hold. 0.2 deg: a d12
    # lying on a pentagon has five corners on the table and Bullet's contact manifold holds
    # four, so the fifth is dropped and re-added every few steps; the die rocks 0.14 deg
    # (22 um at its centre) in a 5-step cycle that never dies out (d12 on vinyl, throw 1765
    # of `benchmarks.bench_stuck`, rocked so for 20 s under 0.05 deg). Over 200 throws of each
    # of the 108 stuck-dice throw configurations, 0.2 against 0.05 changed no face or status and
    # the step count of 55 in 21,600 (docs/physics.md, cause 7).
    jitter_m: float = 5e-5  # m
    jitter_deg: float = 0.2  # deg
    # A die can also be held in a cycle that never slows to those speeds: Bullet meets a hull
    # with one new contact point a step, and a die lying on a face can trade its points in a
    # cycle (d00 on vinyl, throw 7804 of `benchmarks.bench_stuck`: 0.19-0.55 rad/s every
    # step for 20 s, its poses within 0.013 mm and 0.1 deg), or rock for good over the table
    # edge (tampered d8 on vinyl, throw 9430: up to 2.4 rad/s, within 1 mm and 3 deg), since
    # Bullet never gives a contact where a hull's face crosses that edge (docs/physics.md,
    # Known limits). Such a die is confined: at CONFINE_CHECKS + 1 checks confine_time /
    # CONFINE_CHECKS apart it spins slower than confine_spin and lies within confine_m and
    # confine_deg of its pose at the first, and it is then at rest as after the hold (the
    # poised check included). 0 s turns the rule off. The cage must be narrower than the way
    # a die goes in confine_time while it keeps moving one way at the settle speeds
    # (settle_linear x confine_time = 5 mm, settle_angular x confine_time = 5.7 deg): at 0.5 s
    # (2.5 mm, 2.9 deg) a paper d8 on felt tipping slowly off the table's edge (throw 5245 of
    # the stuck-dice run) stayed inside it and was taken for at rest as an overhang, 76 steps
    # before it fell off.
    confine_time: float = 1.0  # s
    confine_m: float = 0.002  # m
    confine_deg: float = 5.0  # deg
    confine_spin: float = 5.0  # rad/s
    max_time: float = 20.0  # s of simulated time before NotSettledError
    collision_margin: float = COLLISION_MARGIN
    fast_speed: float = 20.0  # m/s: faster dice are stepped in time_step / ceil(v / fast_speed)
    # The contact model (docs/physics.md). Bullet keeps a contact point while it is within
    # contact_breaking_threshold x the shape's size; at its default 0.02 (1.2 mm for the
    # paper d8) a die falling faster than that per step lost its contact points and was
    # found millimetres deep in the table, pushed out with energy it never had: fell-off
    # shares of the paper d8 on felt were 16.2 / 11.8 / 9.2% at dt 1/240 / 1/480 / 1/960,
    # and a d6 on slick balanced on one corner 2.5 mm deep, wobbling for 20 s. At 0.2, with
    # the rest of the contact model below, every shipped die on every surface passes the
    # convergence test (docs/convergence-run.txt) and that d6 rests.
    contact_breaking_threshold: float = 0.2
    # Contacts are solved once they are within 0.1 mm (contactProcessingThreshold on the dice,
    # the collision margin): with Bullet's speculative contacts at any distance a die is
    # stopped a step before it touches and its restitution acts on what little speed is
    # left, so a pair restitution of 0.32 bounced 0.26 / 0.19 / 0.06 / 0.0 at dt 1/240 ...
    # 1/1920; solved only on touching (0 m), a die resting across the table edge lost its
    # contact, fell free for a step and rocked for 20 s (tampered-d8, 1 of 5600 throws);
    # at 0.1 mm the bounce is the restitution (tests/test_materials.py) and that die rests.
    contact_processing_threshold: float = 0.0001  # m
    # A penetration is pushed out with time constant contact_recovery_time: Bullet's contact
    # ERP is set to (step / this) for every step and sub-step. Dice are Bullet multibodies,
    # which get no split impulse, so the push stays in the die as velocity (depth / this):
    # with PyBullet's fixed ERP of 0.2 a step, a drop with restitution 0 still bounced 0.19
    # of its impact speed from the push alone, and the push per second grew as sub-steps
    # shrank; at a fixed ERP of 0.02, resting dice stayed 0.6 mm deep after a 0.05 s hold.
    contact_recovery_time: float = 0.02  # s

    def contact_erp(self, step: float | None = None) -> float:
        """Bullet's contact ERP for a (sub-)step of `step` seconds (default: time_step)."""
        return min(1.0, (self.time_step if step is None else step) / self.contact_recovery_time)

    # Near a contact, no die moves more than this toward it in one sub-step (world._near_split).
    # Like a step, it must not show in the results: the paper d8 on felt fell off 11.3-11.5%
    # at 0.5 mm and 11.6-12.6% at 2 mm over dt 1/240 ... 1/960 (1000 throws each); bounding the
    # whole reach instead, 4 mm was the first size that differed (12.1% against 10.5-10.8%).
    max_travel: float = 0.002  # m
    # ... and while a die touches the table top, no sub-step turns it more than this about a
    # horizontal axis (world._near_split). Bullet moves a body's centre of mass on a straight
    # line over a step, so a die pivoting on an edge lifts the edge about w^2 r dt^2 / 2 off
    # the table each step and meets it again plastically: the long cuboid standing on hardwood
    # lost 7.9 / 4.5 / 2.5% of its energy going over the edge at dt 1/240 / 1/480 / 1/960, and
    # steel cuboids (restitution 0.69) landed square face up 64.0 / 56.1 / 57.7% (c075). At
    # 1 deg: 3.9 / 3.2 / 2.5%, and c075 54.0 / 56.2 / 57.0% (docs/physics.md, "Pivoting",
    # with what is left); 0.5 deg: 2.4% at 1/240 (0 disables the bound). A die whose resting
    # faces lie closer together than the icosahedron's gets less (world.turn_bound;
    # docs/physics.md, "Many-sided dice").
    max_turn_deg: float = 1.0  # deg
    frame_rate: float = 60.0  # trajectory recording, Hz
    # The physics engine: PyBullet (the default, and the referee for games) or MuJoCo on the
    # CPU (simulator/physics/mujoco_world.py; docs/engines.md maps the settings above onto
    # it). Recorded in every result and in an experiment's fingerprint, so stores of the two
    # engines never mix.
    engine: str = "pybullet"

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise DataError("physics", "engine", f"must be one of {', '.join(ENGINES)}", self.engine)

    def confine_rule(self) -> tuple[int, float, float, float]:
        """The confinement rule in a settle loop's terms: (steps between checks, largest squared
        move in m^2, least |quaternion dot|, largest squared spin); the steps are more than
        max_time's when confine_time is 0 (no check is ever made)."""
        if self.confine_time <= 0:
            every = math.ceil(self.max_time / self.time_step) + 1
        else:
            every = max(1, round(self.confine_time / CONFINE_CHECKS / self.time_step))
        return (every, self.confine_m ** 2, math.cos(math.radians(self.confine_deg) / 2),
                self.confine_spin ** 2)

    @property
    def max_turn(self) -> float:
        """max_turn_deg in radians (infinite when 0: no bound)."""
        return math.radians(self.max_turn_deg) if self.max_turn_deg > 0 else math.inf

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["versions"] = dict(versions())
        if self.engine != "pybullet":
            d["versions"]["mujoco"] = _version("mujoco")
            if self.engine == "mujoco-warp":
                d["versions"]["mujoco-warp"] = _version("mujoco-warp")
                d["versions"]["warp-lang"] = _version("warp-lang")
        return d

    def with_(self, **changes: Any) -> PhysicsSettings:
        return replace(self, **changes)


@dataclass(frozen=True)
class Obstacle:
    name: str
    kind: str  # 'box' or 'cylinder'
    position: tuple[float, float]  # (x, y) of its centre on the table, m
    size: tuple[float, ...]  # box: (sx, sy, sz); cylinder: (radius, height)
    yaw_deg: float = 0.0
    material: Material | None = None  # None: the table's surface material

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["material"] = self.material.to_json() if self.material is not None else None
        return d


TABLE_FIELDS = ("shape", "width", "depth", "radius", "height", "surface", "obstacles")
OBSTACLE_FIELDS = {"box": ("name", "kind", "position", "size", "yaw_deg", "material"),
                   "cylinder": ("name", "kind", "position", "radius", "height", "yaw_deg", "material")}


@dataclass(frozen=True)
class TableSpec:
    shape: str = "rect"  # 'rect' or 'round'
    width: float = 1.2  # x extent (rect), m
    depth: float = 0.9  # y extent (rect), m
    radius: float = 0.6  # round tables, m
    surface: Surface = SURFACES["felt"]
    obstacles: tuple[Obstacle, ...] = ()
    height: float = 0.75  # table top above the floor, m
    source: str = "<default>"

    @property
    def edge_y(self) -> float:
        """Distance from the centre to each player's edge line (y = -edge_y for player 1)."""
        return self.depth / 2 if self.shape == "rect" else self.radius

    def contains_xy(self, x: float, y: float, inset: float = 0.0) -> bool:
        if self.shape == "rect":
            return abs(x) <= self.width / 2 - inset and abs(y) <= self.depth / 2 - inset
        return math.hypot(x, y) <= self.radius - inset

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["surface"] = self.surface.to_json()
        d["obstacles"] = [o.to_json() for o in self.obstacles]
        return d

    def with_surface(self, surface: Surface) -> TableSpec:
        return replace(self, surface=surface)


@functools.cache
def versions() -> dict[str, str]:
    from simulator.physics._bullet import pybullet

    return {
        "pybullet": _pybullet_version(pybullet),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "platform": f"{platform.system()}-{platform.machine()}",
    }


def _version(package: str) -> str:
    """An installed package's version ('missing' when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "missing"


def _pybullet_version(pybullet: Any) -> str:
    try:
        from importlib.metadata import version

        return version("pybullet")
    except Exception:  # pragma: no cover - metadata missing in odd installs
        return str(getattr(pybullet, "getAPIVersion", lambda: "unknown")())


def surface_from(name_or_mapping: Any, source: str, fieldname: str = "surface") -> Surface:
    """A material preset name, or a mapping: `preset:` with values changed, or all four values
    (see dice_models.materials.material_from)."""
    if isinstance(name_or_mapping, dict) and "preset" not in name_or_mapping and not all(
            k in name_or_mapping for k in ("friction", "restitution", "rolling_friction",
                                           "spinning_friction")):
        name_or_mapping = {"preset": "felt", **name_or_mapping}  # the default surface's values
    return material_from(name_or_mapping, source, fieldname)


def load_table(path: str | Path | None, surface: str | None = None) -> TableSpec:
    """The default table, or a table YAML; `surface` (a preset name) overrides the file's."""
    spec = TableSpec() if path is None else _parse_table_file(Path(path))
    if surface is not None:
        spec = spec.with_surface(surface_from(surface, "--surface", "surface"))
    return spec


def _parse_table_file(path: Path) -> TableSpec:
    return parse_table(read_yaml(path), str(path))


def parse_table(data: Any, source: str) -> TableSpec:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping of table fields", data)
    check_fields(data, TABLE_FIELDS, source, "")
    shape = data.get("shape", "rect")
    if shape not in ("rect", "round"):
        raise DataError(source, "shape", "must be rect or round", shape)
    kw: dict[str, Any] = {"shape": shape, "source": source}
    for key in ("width", "depth", "radius", "height"):
        if key in data:
            v = data[key]
            if not _finite(v) or not 0.1 <= float(v) <= 10.0:
                raise DataError(source, key, "must be a length in m between 0.1 and 10", v)
            kw[key] = float(v)
    if "surface" in data:
        kw["surface"] = surface_from(data["surface"], source)
    obstacles = []
    raw_obs = data.get("obstacles", []) or []
    if not isinstance(raw_obs, list):
        raise DataError(source, "obstacles", "must be a list", raw_obs)
    for i, o in enumerate(raw_obs):
        obstacles.append(_parse_obstacle(o, source, f"obstacles[{i}]"))
    kw["obstacles"] = tuple(obstacles)
    return TableSpec(**kw)


def _parse_obstacle(o: Any, source: str, where: str) -> Obstacle:
    if not isinstance(o, dict):
        raise DataError(source, where, "must be a mapping", o)
    kind = o.get("kind")
    if kind in ("box", "cylinder"):
        check_fields(o, OBSTACLE_FIELDS[kind], source, where)
    if kind not in ("box", "cylinder"):
        raise DataError(source, f"{where}.kind", "must be box or cylinder", kind)
    pos = o.get("position")
    if not isinstance(pos, list) or len(pos) != 2 or not all(_finite(c) for c in pos):
        raise DataError(source, f"{where}.position", "must be [x, y] in m", pos)
    if kind == "box":
        size = o.get("size")
        if not isinstance(size, list) or len(size) != 3 or not all(
                _finite(c) and float(c) > 0 for c in size):
            raise DataError(source, f"{where}.size", "must be [sx, sy, sz] positive, in m", size)
        dims = tuple(float(c) for c in size)
    else:
        r, h = o.get("radius"), o.get("height")
        if not _finite(r) or float(r) <= 0:
            raise DataError(source, f"{where}.radius", "must be a positive length in m", r)
        if not _finite(h) or float(h) <= 0:
            raise DataError(source, f"{where}.height", "must be a positive length in m", h)
        dims = (float(r), float(h))
    yaw = o.get("yaw_deg", 0.0)
    if not _finite(yaw):
        raise DataError(source, f"{where}.yaw_deg", "must be a number", yaw)
    material = material_from(o["material"], source, f"{where}.material") if "material" in o else None
    return Obstacle(name=str(o.get("name", f"{kind}{where}")), kind=kind,
                    position=(float(pos[0]), float(pos[1])), size=dims, yaw_deg=float(yaw),
                    material=material)


_finite = is_finite_number


__all__ = [
    "DICE_DAMPING",
    "ENGINES",
    "SURFACES",
    "SURFACE_PRESETS",
    "Obstacle",
    "PhysicsSettings",
    "Surface",
    "TableSpec",
    "load_table",
    "parse_table",
    "surface_from",
    "versions",
]
