"""What the benchmark suites measure: their sizes, the physics environment (settings and
surfaces, with the user's `--set` overrides), the fingerprint that decides whether golden
throws must match bit for bit, and the golden throw cases themselves.

Golden throws are computed with plain IEEE arithmetic from a Weyl sequence (fractional parts
of square roots of primes), not from NumPy's random streams, so a NumPy upgrade cannot move
the inputs: only the physics can move the outputs.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, fields, replace
from typing import Any

from dice_models import DataError
from rules.core.throwing import GRAVITY
from simulator.bench.names import GROUPS as GROUPS  # re-exported: simulator.bench.baseline
from simulator.bench.names import SUITE_NAMES
from simulator.physics import SURFACES, PhysicsSettings, Surface, TableSpec, ThrowSpec
from simulator.physics.settings import Obstacle, versions
from simulator.physics.tray import tray_table
from simulator.physics.world import FOOT

# The d20 stands for the polyhedral set (issue 17): twenty faces, the most of any die here,
# and the die people most often ask to have checked.
DICE = ("paper-d8", "tampered-d8", "solid-d8", "d6", "paper-d6", "cuboid-d6-long", "bipyramid-d10",
        "d20")
# Convergence variants as (share of the suite's time step, share of its solver iterations):
# the step, half and a quarter of it, and twice the iterations; the first is the reference.
CONVERGENCE_VARIANTS = ((1.0, 1.0), (0.5, 1.0), (0.25, 1.0), (1.0, 2.0))


def convergence_variants(settings: PhysicsSettings) -> list[tuple[float, int]]:
    """(time step s, solver iterations) of each convergence variant for these settings."""
    return [(settings.time_step * a, round(settings.solver_iterations * b))
            for a, b in CONVERGENCE_VARIANTS]


@dataclass(frozen=True)
class SuiteSpec:
    name: str
    golden_singles: int  # random single throws per (die, surface) on the rect table
    drift: tuple[tuple[str, str], ...]  # (die, surface) configurations
    drift_throws: int  # per configuration
    convergence: tuple[tuple[str, str], ...]
    convergence_throws: int  # per configuration and variant
    sanity_throws: int  # per die, for resting heights
    speed_throws: int
    speed_rounds: int
    alpha: float = 0.01  # family-wise false-alarm rate of each statistical check (Bonferroni)


SUITES = {
    # The CI suite: every check, sized to run in well under a minute on two cores.
    "smoke": SuiteSpec(
        name="smoke", golden_singles=1,
        drift=(("paper-d8", "felt"), ("tampered-d8", "felt"), ("cuboid-d6-long", "felt"),
               ("d6", "slick"), ("d20", "felt")),
        drift_throws=200,
        convergence=(("paper-d8", "felt"),),
        convergence_throws=150,
        sanity_throws=8, speed_throws=200, speed_rounds=4),
    # For people who changed the physics: every die on both surfaces, samples large enough
    # to see a 5-point shift in a face's share; convergence of every die on every surface
    # preset with 2000 throws a variant (an hour or more on two cores).
    "full": SuiteSpec(
        name="full", golden_singles=3,
        drift=tuple((d, s) for d in DICE for s in ("felt", "slick")),
        drift_throws=1000,
        convergence=tuple((d, s) for d in DICE for s in SURFACES),
        convergence_throws=2000,
        sanity_throws=40, speed_throws=2000, speed_rounds=10),
}


if tuple(SUITES) != SUITE_NAMES:  # the command line offers SUITE_NAMES without importing this
    raise AssertionError(f"simulator.bench.names.SUITE_NAMES must be {tuple(SUITES)}")


def suite_by_name(name: str) -> SuiteSpec:
    if name not in SUITES:
        raise DataError("--suite", "suite", f"unknown suite {name!r}{_did_you_mean(name, SUITES)}",
                        show_value=False)
    return SUITES[name]


# -- the physics environment --------------------------------------------------------------

SURFACE_FIELDS = ("friction", "restitution", "rolling_friction", "spinning_friction")
SETTING_FIELDS = tuple(f.name for f in fields(PhysicsSettings))
# The settings that make two runs' bits comparable (with the library versions and platform).
FINGERPRINT_SETTINGS = ("time_step", "solver_iterations", "collision_margin", "gravity",
                        "settle_linear", "settle_angular", "hold_time", "jitter_m", "jitter_deg",
                        "max_time",
                        "contact_breaking_threshold", "contact_processing_threshold",
                        "contact_recovery_time", "max_travel", "max_turn_deg",
                        "confine_time", "confine_m", "confine_deg", "confine_spin")


@dataclass(frozen=True)
class BenchEnv:
    settings: PhysicsSettings
    surfaces: dict[str, Surface]
    overrides: dict[str, float]

    def table(self, kind: str, surface: str) -> TableSpec:
        sf = self.surfaces[surface]
        if kind == "rect":
            return TableSpec(surface=sf, source="<bench:rect>")
        if kind == "round":
            return TableSpec(shape="round", radius=0.6, surface=sf, source="<bench:round>")
        if kind == "obstacles":
            obstacles = (Obstacle("crate", "box", (0.15, 0.05), (0.12, 0.08, 0.06)),
                         Obstacle("tower", "cylinder", (-0.2, 0.1), (0.04, 0.1)))
            return TableSpec(surface=sf, obstacles=obstacles, source="<bench:obstacles>")
        if kind == "tray":
            return tray_table().with_surface(sf)
        raise ValueError(f"unknown bench table {kind!r}")

    def fingerprint(self) -> dict[str, Any]:
        v = versions()
        # No CPU class: the geometry and physics inputs are computed with machine-independent
        # arithmetic (dice_models.numerics, docs/determinism.md), so the golden throws are the
        # same bits on every x86-64 machine whichever SIMD and BLAS kernels it picks.
        fp: dict[str, Any] = {"pybullet": v["pybullet"], "numpy": v["numpy"], "platform": v["platform"]}
        for key in FINGERPRINT_SETTINGS:
            fp[key] = getattr(self.settings, key)
        if self.settings.engine != "pybullet":  # (baselines before issue 20 are all PyBullet's)
            fp["engine"] = self.settings.engine
            fp["engine_versions"] = self.settings.to_json()["versions"]
        # The effective contact values of every shipped die's material on every surface.
        from dice_models import load_die
        from simulator.physics.contact import realize

        materials = {load_die(d).contact_material for d in DICE}
        pairs: dict[str, Any] = {}
        for name in sorted(self.surfaces):
            for m in sorted(materials, key=lambda m: m.name):
                model = realize([m], [self.surfaces[name]])
                for (a, b), values in model.realized.items():
                    if self.surfaces[name].name in (a, b):
                        pairs[f"{m.name}/{name}"] = [round(v, 12) for v in values.values()]
        fp["contact"] = pairs
        return fp


def make_env(overrides: list[str] | None = None, engine: str = "pybullet") -> BenchEnv:
    """The default physics on `engine` with `key=value` overrides: a PhysicsSettings field, a
    surface field for every surface (`friction=0.3`) or one surface (`felt.friction=0.3`)."""
    settings = PhysicsSettings(engine=engine)
    surfaces = dict(SURFACES)
    applied: dict[str, float] = {}
    for item in overrides or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise DataError("--set", "(argument)", "expected KEY=VALUE, e.g. friction=0.3", item)
        value = _number(raw.strip(), key)
        surface_name, dot, field_name = key.rpartition(".")
        if key in SETTING_FIELDS:
            settings = _set_setting(settings, key, value)
        elif field_name in SURFACE_FIELDS and (not dot or surface_name in surfaces):
            if not 0.0 <= value <= (1.0 if field_name == "restitution" else 5.0):
                raise DataError("--set", key, "must be in [0, 1] (restitution) or [0, 5]", value)
            targets = [surface_name] if dot else list(surfaces)
            for name in targets:
                surfaces[name] = replace(surfaces[name], **{field_name: value})  # type: ignore[arg-type]
        else:
            known = [*SETTING_FIELDS, *SURFACE_FIELDS,
                     *(f"{s}.{f}" for s in SURFACES for f in SURFACE_FIELDS)]
            raise DataError("--set", key, f"unknown setting{_did_you_mean(key, known)}",
                            show_value=False)
        applied[key] = value
    return BenchEnv(settings, surfaces, applied)


def _set_setting(settings: PhysicsSettings, key: str, value: float) -> PhysicsSettings:
    if key == "solver_iterations":
        if value != int(value) or not 1 <= value <= 1000:
            raise DataError("--set", key, "must be a whole number from 1 to 1000", value)
        return settings.with_(solver_iterations=int(value))
    if key == "time_step" and not 1e-5 <= value <= 0.02:
        raise DataError("--set", key, "must be between 1e-5 and 0.02 s (e.g. 1/480)", value)
    if key in ("max_turn_deg", "confine_deg"):
        if not (0 if key == "max_turn_deg" else 1e-9) <= value <= 180:
            raise DataError("--set", key, "must be from 0 (no bound) to 180 degrees"
                            if key == "max_turn_deg" else "must be over 0, up to 180 degrees", value)
    elif key == "confine_time":
        if not 0 <= value <= 60:
            raise DataError("--set", key, "must be from 0 (no confinement rule) to 60 s", value)
    elif value <= 0:
        raise DataError("--set", key, "must be positive", value)
    return settings.with_(**{key: value})


def _number(raw: str, key: str) -> float:
    try:
        if "/" in raw:
            num, den = raw.split("/", 1)
            value = float(num) / float(den)
        else:
            value = float(raw)
    except (ValueError, ZeroDivisionError):
        raise DataError("--set", key, "must be a number or a fraction like 1/480", raw) from None
    if not math.isfinite(value):
        raise DataError("--set", key, "must be finite", raw)
    return value


def _did_you_mean(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {close[0]}?" if close else ""


# -- golden throws ------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """A die resting on the table before the throw (world.place arguments)."""

    name: str
    die: str
    face: int
    yaw_deg: float
    xy: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "die": self.die, "face": self.face, "yaw_deg": self.yaw_deg,
                "xy": list(self.xy)}


@dataclass(frozen=True)
class GoldenCase:
    name: str
    table: str  # a BenchEnv.table kind
    surface: str
    scene: tuple[Placement, ...]
    throws: tuple[tuple[str, str, ThrowSpec], ...]  # (die name, die model, throw), thrown together

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "table": self.table, "surface": self.surface,
                "scene": [p.to_json() for p in self.scene],
                "throws": [{"name": n, "die": d, **t.to_json()} for n, d, t in self.throws]}


def golden_cases(spec: SuiteSpec) -> list[GoldenCase]:
    """Single throws of every die on both surfaces, then scenes with several dice: knocks,
    a die knocked off the far edge, dice leaning on dice and obstacles, falls off the edge,
    a round table, a tray of d6 and a handful of d8 thrown at once."""
    cases: list[GoldenCase] = []
    k = 0
    for die in DICE:
        for surface in ("felt", "slick"):
            for _ in range(spec.golden_singles):
                cases.append(GoldenCase(f"single/{die}/{surface}/{k}", "rect", surface, (),
                                        (("t", die, _weyl_throw(TableSpec(), k)),)))
                k += 1
    for i in range(2):
        cases.append(GoldenCase(f"round/paper-d8/felt/{i}", "round", "felt", (),
                                (("t", "paper-d8", _weyl_throw(TableSpec(shape="round"), 100 + i)),)))
    cases.extend(_scene_cases())
    return cases


def _scene_cases() -> list[GoldenCase]:
    cluster = (Placement("a", "paper-d8", 1, 0.0, (0.0, 0.10)),
               Placement("b", "paper-d8", 2, 30.0, (0.075, 0.10)),
               Placement("c", "paper-d8", 3, 60.0, (-0.075, 0.10)))
    return [
        # A low fast throw skimming into a cluster of resting d8s: knocks and turns.
        GoldenCase("scene/knock-cluster", "rect", "felt", cluster,
                   (("t", "paper-d8", ThrowSpec((0.0, -0.8, 0.06), (0.0, 3.2, 0.9), (0.0, 8.0, 0.0))),)),
        # A heavy solid d8 driven at a d8 resting near the far edge knocks it off.
        GoldenCase("scene/knock-off-edge", "rect", "felt",
                   (Placement("a", "paper-d8", 5, 10.0, (0.0, 0.39)),),
                   (("t", "solid-d8", ThrowSpec((0.0, -0.8, 0.05), (0.0, 4.2, 0.8))),)),
        # A d6 dropped onto the top face of a resting d8 rests on it: leaning.
        GoldenCase("scene/lean-on-die", "rect", "felt",
                   (Placement("a", "paper-d8", 1, 0.0, (0.0, 0.0)),),
                   (("t", "d6", ThrowSpec((0.005, 0.0, 0.07), (0.0, 0.0, 0.0))),)),
        # A d6 dropped into the gap between two d8s wedges there, leaning on both.
        GoldenCase("scene/wedge", "rect", "felt",
                   (Placement("a", "paper-d8", 1, 0.0, (-0.0325, 0.0)),
                    Placement("b", "paper-d8", 1, 180.0, (0.0325, 0.0))),
                   (("t", "d6", ThrowSpec((0.0, 0.0, 0.07), (0.0, 0.0, 0.0))),)),
        # A long cuboid dropped tilted toward a crate comes to lean on it (sin/cos of 25 deg).
        GoldenCase("scene/lean-on-obstacle", "obstacles", "felt", (),
                   (("t", "cuboid-d6-long", ThrowSpec((0.075, 0.05, 0.025), (0.0, 0.0, 0.0),
                                                      orientation=(0.0, 0.42261826174069944, 0.0,
                                                                   0.9063077870366499))),)),
        # A d6 dropped astride the far edge rests overhanging it.
        GoldenCase("scene/overhang", "rect", "felt", (),
                   (("t", "d6", ThrowSpec((0.0, 0.44, 0.03), (0.0, 0.0, 0.0))),)),
        # Overthrown: the die flies past the far edge.
        GoldenCase("scene/fall-off-far", "rect", "slick", (),
                   (("t", "paper-d8", ThrowSpec((0.2, -0.8, 0.3), (0.0, 6.0, 2.0), (5.0, 0.0, 3.0))),)),
        # Five d8s of a crew thrown at once from one hand.
        GoldenCase("scene/crew-of-five", "rect", "felt", (),
                   tuple((f"t{i}", "paper-d8", _from_hand(_weyl_throw(TableSpec(), 200 + i),
                                                          (0.09 * i - 0.18, -0.8, 0.35)))
                         for i in range(5))),
        # Three d6 into the walled tray (dice may end cocked against a wall).
        GoldenCase("scene/tray-three-d6", "tray", "felt", (),
                   tuple((f"t{i}", "d6", ThrowSpec((-0.06 + 0.06 * i, -0.03, 0.05 + 0.03 * i),
                                                   (0.3 - 0.25 * i, 0.4, -0.3), (12.0, -9.0, 4.0 * i)))
                         for i in range(3))),
        # A throw into the obstacle table: hits the crate or the tower on the way.
        GoldenCase("scene/obstacles", "obstacles", "felt",
                   (Placement("a", "paper-d8", 8, 45.0, (0.0, -0.05)),),
                   (("t", "paper-d8", ThrowSpec((0.0, -0.8, 0.08), (0.45, 3.0, 1.0), (0.0, 0.0, 15.0))),)),
    ]


# Fractional parts of sqrt(prime): irrational steps of a Weyl sequence. math.sqrt is correctly
# rounded by IEEE 754, so these, and every throw built from them, are the same bits everywhere.
_STEPS = tuple(math.sqrt(p) % 1.0 for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41))


def _weyl(i: int) -> list[float]:
    return [(0.5 + (i + 1) * a) % 1.0 for a in _STEPS]


def _from_hand(throw: ThrowSpec, release: tuple[float, float, float]) -> ThrowSpec:
    return replace(throw, release=release)


def _weyl_throw(table: TableSpec, i: int) -> ThrowSpec:
    """A legal throw for player 1 much like physics.throws.random_throw draws, from the
    i-th point of the sequence."""
    u = _weyl(i)
    half_w = table.width / 2 if table.shape == "rect" else table.radius * 0.7
    edge = table.edge_y
    if u[0] < 0.5:
        back, z = FOOT + 0.01 + 0.29 * u[1], 0.05 + 0.35 * u[2]
    else:
        back, z = 0.02 + (FOOT + 0.28) * u[1], FOOT + 0.01 + 0.19 * u[2]
    release = (-0.6 * half_w + 1.2 * half_w * u[3], -edge - back, z)
    target = (-0.6 * half_w + 1.2 * half_w * u[4], -0.6 * edge + 1.2 * edge * u[5], 0.03)
    t = 0.45 + 0.35 * u[6]
    vel = ((target[0] - release[0]) / t, (target[1] - release[1]) / t,
           (target[2] - release[2]) / t + 0.5 * GRAVITY * t)
    spin = tuple(-25.0 + 50.0 * x for x in u[7:10])
    # Shoemake's uniform random rotation from three uniforms.
    a, b, c = u[10], u[11], u[12]
    s1, s2 = math.sqrt(1 - a), math.sqrt(a)
    q = (s1 * math.sin(2 * math.pi * b), s1 * math.cos(2 * math.pi * b),
         s2 * math.sin(2 * math.pi * c), s2 * math.cos(2 * math.pi * c))
    return ThrowSpec(release, vel, spin, q)  # type: ignore[arg-type]
