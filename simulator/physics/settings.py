"""Physics settings, surface presets and table descriptions, all recorded in every result."""

from __future__ import annotations

import functools
import math
import platform
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import yaml

from dice_models import DataError


@dataclass(frozen=True)
class Surface:
    """Contact properties of the table top. Effective restitution in Bullet is the product
    of the two bodies' values, so dice carry their own restitution too (DICE_RESTITUTION)."""

    name: str
    friction: float
    restitution: float
    rolling_friction: float
    spinning_friction: float


# Felt: a cloth-covered card table. Card on felt grips (friction 0.8) and a low restitution
# (0.2 x die 0.5 gives about 0.1 effective) damps the dice in two or three bounces.
# Rolling friction in Bullet is a lever arm in metres (combined over the two bodies, so about
# 1.3x the value here): at 0.002 it held 7% of 16 mm d6s balanced on an edge on an empty table
# (tabletop bench, full suite); at 0.0005 none of 300 d6 or paper-d8 throws rested cocked,
# and 28% of paper d8s thrown at random slid or rolled off the 1.2 x 0.9 m table
# (/tmp/sweep.py, 300 random legal throws each, 2026-11-30).
# Slick: lacquered wood or vinyl; low friction lets dice slide, more bounce. Spinning
# friction 0.0001 let 2% of d6s spin in place for over 20 s; 0.0003 stops them.
SURFACES = {
    "felt": Surface("felt", friction=0.8, restitution=0.2, rolling_friction=0.0005,
                    spinning_friction=0.0005),
    "slick": Surface("slick", friction=0.25, restitution=0.6, rolling_friction=0.0003,
                     spinning_friction=0.0003),
}

# Bullet's own default damping (velocity x (1 - 0.04)^dt, about 4% a second): air drag on a
# light card die is of that order, and with no damping at all a d6 on the tray floor rocked
# in a limit cycle (a 1 rad/s kick every 22 steps, for ever) instead of coming to rest.
DICE_DAMPING = 0.04
DICE_FRICTION = 0.5
DICE_RESTITUTION = 0.5
# Bullet's default convex margin (0.04 in its internal units, about 1 mm for small hulls
# here) makes a 50 mm octahedron rest visibly high; 0.1 mm keeps the resting height within
# the 0.5 mm the tests demand while contacts stay stable (checked by test_resting_heights).
COLLISION_MARGIN = 0.0001


@dataclass(frozen=True)
class PhysicsSettings:
    time_step: float = 1.0 / 240.0
    solver_iterations: int = 50
    gravity: float = 9.81
    # Settle rule: every moving die below both speeds for hold_time seconds.
    settle_linear: float = 0.005  # m/s
    settle_angular: float = 0.1  # rad/s
    hold_time: float = 0.25  # s
    # ... where a brief twitch over those speeds that leaves a die within jitter_m and
    # jitter_deg of where its still spell began does not restart the hold.
    jitter_m: float = 5e-5  # m
    jitter_deg: float = 0.05  # deg
    max_time: float = 20.0  # s of simulated time before NotSettledError
    collision_margin: float = COLLISION_MARGIN
    fast_speed: float = 20.0  # m/s: faster dice are stepped in time_step / ceil(v / fast_speed)
    frame_rate: float = 60.0  # trajectory recording, Hz

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["versions"] = dict(versions())
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
        d["obstacles"] = [asdict(o) for o in self.obstacles]
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


def _pybullet_version(pybullet: Any) -> str:
    try:
        from importlib.metadata import version

        return version("pybullet")
    except Exception:  # pragma: no cover - metadata missing in odd installs
        return str(getattr(pybullet, "getAPIVersion", lambda: "unknown")())


def surface_from(name_or_mapping: Any, source: str, fieldname: str = "surface") -> Surface:
    """A preset name, or a mapping with friction and restitution (and optional rolling and
    spinning friction); a mapping may start from a preset with `preset:`."""
    if isinstance(name_or_mapping, str):
        if name_or_mapping not in SURFACES:
            import difflib

            close = difflib.get_close_matches(name_or_mapping, list(SURFACES), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; presets: felt, slick"
            raise DataError(source, fieldname, f"unknown surface {name_or_mapping!r}{hint}",
                            show_value=False)
        return SURFACES[name_or_mapping]
    if not isinstance(name_or_mapping, dict):
        raise DataError(source, fieldname, "must be a preset name or a mapping", name_or_mapping)
    base = surface_from(name_or_mapping.get("preset", "felt"), source, f"{fieldname}.preset")
    values: dict[str, Any] = {"name": name_or_mapping.get("name", "custom")}
    for key, upper in (("friction", 5.0), ("restitution", 1.0), ("rolling_friction", 1.0),
                       ("spinning_friction", 1.0)):
        v = name_or_mapping.get(key, getattr(base, key))
        if not _finite(v) or not 0 <= float(v) <= upper:
            raise DataError(source, f"{fieldname}.{key}", f"must be a number in [0, {upper}]", v)
        values[key] = float(v)
    return Surface(**values)


def load_table(path: str | Path | None, surface: str | None = None) -> TableSpec:
    """The default table, or a table YAML; `surface` (a preset name) overrides the file's."""
    spec = TableSpec() if path is None else _parse_table_file(Path(path))
    if surface is not None:
        spec = spec.with_surface(surface_from(surface, "--surface", "surface"))
    return spec


def _parse_table_file(path: Path) -> TableSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(path, "file", f"cannot read: {exc.strerror}", show_value=False) from None
    except yaml.YAMLError as exc:
        raise DataError(path, "file", f"malformed YAML: {getattr(exc, 'problem', exc)}",
                        show_value=False) from None
    return parse_table(data, str(path))


def parse_table(data: Any, source: str) -> TableSpec:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping of table fields", data)
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
    return Obstacle(name=str(o.get("name", f"{kind}{where}")), kind=kind,
                    position=(float(pos[0]), float(pos[1])), size=dims, yaw_deg=float(yaw))


def _finite(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(float(x))


__all__ = [
    "DICE_DAMPING",
    "DICE_FRICTION",
    "DICE_RESTITUTION",
    "SURFACES",
    "Obstacle",
    "PhysicsSettings",
    "Surface",
    "TableSpec",
    "load_table",
    "parse_table",
    "surface_from",
    "versions",
]
