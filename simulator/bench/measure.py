"""The measurements behind the checks: golden throws, face distributions, convergence runs,
physical sanity probes and speed. Each returns plain JSON-ready data; `compare` turns it
into checks against a baseline."""

from __future__ import annotations

import contextlib
import math
import time
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from dice_models import load_die
from simulator.bench.bare import BareLoop
from simulator.bench.suite import DICE, BenchEnv, GoldenCase, SuiteSpec, convergence_variants
from simulator.physics import DiePose, PhysicsError, PhysicsSettings, ThrowSpec, die_shape
from simulator.physics._bullet import direct_client, pybullet
from simulator.physics.engines import make_world
from simulator.physics.throws import random_throw
from simulator.physics.world import MAX_SPEED, MOVED_M, TURNED_DEG

HEIGHT_TOL = 0.0005  # m: DESIGN.md's bound on a resting die's height error (collision margin)
ENERGY_TOL = 1e-3  # free-flight energy may not grow by more than this share of the launch energy
# A die placed at rest may not creep or turn as far as the World's own threshold for
# "disturbed" while the table is simulated around it.
REST_MOVE_TOL, REST_TURN_TOL = MOVED_M, TURNED_DEG
FREE_FLIGHT_S = 0.5


def measure_all(env: BenchEnv, spec: SuiteSpec, groups: Iterable[str],
                golden: list[GoldenCase]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups = set(groups)
    if "golden" in groups:
        out["golden"] = [run_golden_case(env, case) for case in golden]
    if "drift" in groups or "speed" in groups:
        out["drift"] = {f"{d}/{s}": distribution(env, env.settings, d, s, spec.drift_throws,
                                                 ("drift", d, s))
                        for d, s in spec.drift}
    if "convergence" in groups:
        out["convergence"] = convergence(env, spec)
    if "sanity" in groups:
        out["sanity"] = sanity(env, spec)
    if "speed" in groups:
        out["speed"] = speed(env, spec)
    return out


# -- golden throws ------------------------------------------------------------------------


def run_golden_case(env: BenchEnv, case: GoldenCase) -> dict[str, Any]:
    """Every die of the case at rest (status, reason, face, exact position), or the error."""
    world = make_world(env.table(case.table, case.surface), env.settings)
    try:
        for p in case.scene:
            world.place(p.name, load_die(p.die), p.face, p.yaw_deg, p.xy)
        reports = world.throw_group([(n, load_die(d), t) for n, d, t in case.throws])
    except PhysicsError as exc:
        return {"case": case.name, "error": f"{type(exc).__name__}: {exc}", "dice": []}
    finally:
        world.close()
    final: dict[str, DiePose] = {r.die: r.outcome for r in reports}
    for _before, after in reports[0].disturbed:
        final[after.die] = after
    disturbed = sorted(after.die for _b, after in reports[0].disturbed)
    dice: list[dict[str, Any]] = [{"die": o.die, "status": o.status, "reason": o.reason, "face": o.face,
             "position": list(o.position)} for o in (final[n] for n in sorted(final))]
    for p in case.scene:  # resting dice the throw never touched
        if p.name not in final:
            o = world.scene[p.name]
            dice.append({"die": p.name, "status": "undisturbed", "reason": None, "face": p.face,
                         "position": list(o.pose.position)})
    dice.sort(key=lambda d: str(d["die"]))
    return {"case": case.name, "error": None, "dice": dice, "disturbed": disturbed,
            "steps": reports[0].steps}


# -- distributions ------------------------------------------------------------------------


def category(o: DiePose) -> str:
    """A throw's outcome as one category: the face up if it rests on the table, else why not."""
    return str(o.face) if o.status == "on_table" else str(o.reason)


def distribution(env: BenchEnv, settings: PhysicsSettings, die: str, surface: str, n: int,
                 key: tuple[Any, ...]) -> dict[str, Any]:
    """n random legal throws (seeded by `key` and the throw's index) of one die on the rect
    table: category counts, steps to rest, resting height errors and physics errors."""
    model = load_die(die)
    shape = die_shape(model)
    table = env.table("rect", surface)
    world = make_world(table, settings)
    seed = [_stable_int(str(k)) for k in key]
    counts: Counter[str] = Counter()
    steps: list[int] = []
    height_err = 0.0
    errors: list[str] = []
    for i in range(n):
        throw = random_throw(table, 1, np.random.default_rng([*seed, i]),
                             gravity=settings.gravity)
        try:
            r = world.throw("die", model, throw)
        except PhysicsError as exc:
            counts["error"] += 1
            errors.append(f"throw {i}: {type(exc).__name__}: {exc}")
            continue
        finally:
            world.scene.clear()
        counts[category(r.outcome)] += 1
        steps.append(r.steps)
        if r.outcome.status == "on_table":
            height_err = max(height_err, abs(_height_error(shape, r.outcome)))
    world.close()
    faces = sorted({str(v) for v in shape.values}, key=int)
    return {"die": die, "surface": surface, "throws": n, "faces": faces,
            "counts": dict(sorted(counts.items())), "mean_steps": float(np.mean(steps)) if steps else 0.0,
            "max_height_error_m": height_err, "errors": errors[:5], "error_count": len(errors)}


def convergence(env: BenchEnv, spec: SuiteSpec) -> dict[str, Any]:
    """The same kind of throws at each (time step, solver iterations) variant, independent
    samples per variant so a homogeneity test is valid."""
    out: dict[str, Any] = {}
    for die, surface in spec.convergence:
        runs = {}
        for dt, iters in convergence_variants(env.settings):
            s = env.settings.with_(time_step=dt, solver_iterations=iters)
            label = variant_label(dt, iters)
            runs[label] = distribution(env, s, die, surface, spec.convergence_throws,
                                       ("convergence", die, surface, label))
        out[f"{die}/{surface}"] = runs
    return out


def variant_label(dt: float, iters: int) -> str:
    return f"dt=1/{round(1 / dt)},it={iters}"


# -- physical sanity ----------------------------------------------------------------------


def sanity(env: BenchEnv, spec: SuiteSpec) -> dict[str, Any]:
    heights = {d: distribution(env, env.settings, d, "felt", spec.sanity_throws,
                               ("sanity", d))["max_height_error_m"] for d in DICE}
    return {
        "resting_height_error_m": heights,
        "free_flight_energy_gain": {d: free_flight_energy_gain(env, d) for d in DICE},
        "tunnelling": {d: tunnelling(env, d) for d in DICE},
        "rest_stays": {d: rest_stays(env, d) for d in DICE},
    }


def free_flight_energy_gain(env: BenchEnv, die: str) -> float:
    """Largest change of total energy (kinetic + potential) over a launch's kinetic energy
    during FREE_FLIGHT_S of flight with no table, at the suite's time step (negative: only
    lost). The die spins about all three axes, so asymmetric dice test the gyroscopic terms."""
    shape = die_shape(load_die(die))
    s = env.settings
    c = direct_client()
    c.setPhysicsEngineParameter(fixedTimeStep=s.time_step, numSolverIterations=s.solver_iterations,
                                numSubSteps=0)
    c.setGravity(0, 0, -s.gravity)
    col = c.createCollisionShape(pybullet.GEOM_MESH, vertices=shape.poly.vertices.tolist())
    axes = Rotation.from_matrix(shape.principal_axes).as_quat().tolist()
    bid = c.createMultiBody(baseMass=shape.mass.mass, baseCollisionShapeIndex=col,
                            basePosition=[0, 0, 1.0], baseInertialFramePosition=shape.mass.com.tolist(),
                            baseInertialFrameOrientation=axes)
    c.changeDynamics(bid, -1, localInertiaDiagonal=shape.principal_moments.tolist(),
                     linearDamping=0.0, angularDamping=0.0,
                     activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING)
    c.resetBaseVelocity(bid, [1.5, 2.5, 3.0], [25.0, -18.0, 21.0])
    moments = shape.principal_moments
    m, g = shape.mass.mass, s.gravity

    def energy() -> tuple[float, float]:
        pos, orn = c.getBasePositionAndOrientation(bid)
        lin, ang = c.getBaseVelocity(bid)
        rot = np.array(pybullet.getMatrixFromQuaternion(orn)).reshape(3, 3)
        w_body = rot.T @ np.array(ang)
        kinetic = 0.5 * m * float(np.dot(lin, lin)) + 0.5 * float(w_body @ (moments * w_body))
        return kinetic + m * g * pos[2], kinetic

    e0, k0 = energy()
    gain = -math.inf
    for _ in range(math.ceil(FREE_FLIGHT_S / s.time_step)):
        c.stepSimulation()
        gain = max(gain, (energy()[0] - e0) / k0)
    return gain


def tunnelling(env: BenchEnv, die: str) -> dict[str, Any]:
    """Throws at the highest legal speed (MAX_SPEED) onto the table top: straight down on
    the middle (a foul release, which does not matter here), steeply down from a legal
    release and at a shallow angle from one. The die must end on or beside the table,
    never through it (World raises TunnelError when a die falls through inside the table)."""
    model = load_die(die)

    def at_speed(d: tuple[float, float, float]) -> tuple[float, float, float]:
        # a hair under the limit, so round-off cannot push it over
        k = MAX_SPEED * (1 - 1e-9) / math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
        return (d[0] * k, d[1] * k, d[2] * k)

    throws = {
        "straight_down": ThrowSpec((0.0, 0.0, 0.35), at_speed((0.0, 0.0, -1.0)), (0.0, 20.0, 0.0)),
        "steep": ThrowSpec((0.0, -0.8, 0.4), at_speed((0.0, 0.8, -0.4)), (0.0, 30.0, 0.0)),
        "shallow": ThrowSpec((0.1, -0.8, 0.35), at_speed((-0.1, 1.0, -0.35)), (40.0, 0.0, 10.0)),
    }
    result: dict[str, Any] = {}
    for surface in ("felt", "slick"):
        for name, throw in throws.items():
            world = make_world(env.table("rect", surface), env.settings)
            try:
                r = world.throw("die", model, throw)
                o = r.outcome
                through = o.position[2] < -die_shape(model).inradius and env.table(
                    "rect", surface).contains_xy(o.position[0], o.position[1])
                result[f"{surface}/{name}"] = "through" if through else category(o)
            except PhysicsError as exc:
                result[f"{surface}/{name}"] = f"{type(exc).__name__}: {exc}"
            finally:
                world.close()
    result["lowest_failing_speed"] = _lowest_failing_speed(env, model)
    return result


ONSET_SPEEDS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0)  # m/s


def _lowest_failing_speed(env: BenchEnv, model: Any) -> float | None:
    """The slowest straight-down drop onto the felt table's middle, from a ladder of speeds,
    that ends in a PhysicsError: where tunnelling starts, for the report."""
    for v in ONSET_SPEEDS:
        world = make_world(env.table("rect", "felt"), env.settings)
        try:
            world.throw("die", model, ThrowSpec((0.0, 0.0, 0.35), (0.0, 0.0, -v)))
        except PhysicsError:
            return v
        finally:
            world.close()
    return None


def rest_stays(env: BenchEnv, die: str) -> dict[str, Any]:
    """Place the die on every face across the table, then drop another die in a far corner
    and let the whole table run until everything rests (held a full second): how far did
    any resting die creep (m) or turn (deg)? The table runs through `World.settle`, which
    moves every die: a throw keeps dice it does not come near static, so it would not
    test them."""
    model = load_die(die)
    shape = die_shape(model)
    settings = env.settings.with_(hold_time=1.0)
    world = make_world(env.table("rect", "felt"), settings)
    spacing = 0.12
    for k, face in enumerate(shape.values):
        xy = (-0.45 + spacing * (k % 8), -0.2 + spacing * (k // 8))
        world.place(f"r{k}", model, face, 17.0 * k, xy)
    before = {n: pd.pose for n, pd in world.scene.items()}
    try:
        world.throw("probe", load_die("d6"), ThrowSpec((0.5, 0.35, 0.02), (0.0, 0.0, 0.0)))
        world.settle()
    except PhysicsError as exc:
        return {"max_move_m": math.inf, "max_turn_deg": math.inf,
                "error": f"{type(exc).__name__}: {exc}"}
    move = turn = 0.0
    for name, pose in before.items():
        after = world.scene.get(name)
        if after is None:  # fell off: the worst creep there is
            return {"max_move_m": math.inf, "max_turn_deg": math.inf}
        move = max(move, float(np.linalg.norm(np.subtract(after.pose.position, pose.position))))
        dot = min(1.0, abs(float(np.dot(after.pose.quaternion, pose.quaternion))))
        turn = max(turn, math.degrees(2 * math.acos(dot)))
    world.close()
    return {"max_move_m": move, "max_turn_deg": turn}


# -- speed --------------------------------------------------------------------------------


def speed(env: BenchEnv, spec: SuiteSpec) -> dict[str, Any]:
    """World.throw against the bare PyBullet loop on the same throws, interleaved in rounds
    so machine noise hits both alike; and the peak extra memory while throwing."""
    model = load_die("paper-d8")
    table = env.table("rect", "felt")
    throws = [random_throw(table, 1, np.random.default_rng([11, i]), gravity=env.settings.gravity)
              for i in range(spec.speed_throws)]
    world = make_world(table, env.settings)
    bare = BareLoop(die_shape(model), table, env.settings)
    rss0 = _reset_peak_rss()
    t_ours = t_bare = 0.0
    same = 0
    per_round = max(1, len(throws) // spec.speed_rounds)
    for start in range(0, len(throws), per_round):
        chunk = throws[start:start + per_round]
        t0 = time.perf_counter()
        bare_faces = [bare.throw(th)[0] for th in chunk]
        t1 = time.perf_counter()
        for th, bf in zip(chunk, bare_faces, strict=True):
            r = world.throw("die", model, th)
            world.scene.clear()
            same += (r.outcome.face if r.outcome.reason != "fell_off" else -1) == bf
        t2 = time.perf_counter()
        t_bare += t1 - t0
        t_ours += t2 - t1
    peak = _peak_rss_mb()
    world.close()
    n = len(throws)
    return {"throws": n, "bare_throws_per_s": n / t_bare, "world_throws_per_s": n / t_ours,
            "ratio": t_bare / t_ours, "same_face_share": same / n,
            "peak_extra_memory_mb": max(0.0, peak - rss0)}


# -- helpers ------------------------------------------------------------------------------


def _height_error(shape: Any, o: DiePose) -> float:
    rot = Rotation.from_quat(o.quaternion).as_matrix()
    bottom, _tilt = shape.poly.face_down(rot)
    return float(o.position[2] - shape.poly.face_offsets[bottom])


def _stable_int(text: str) -> int:
    """A seed from text that does not change between processes (unlike hash())."""
    return zlib.crc32(text.encode("utf-8"))


_STATUS = Path("/proc/self/status")


def _status_kb(field: str) -> float | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return float(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> float:
    """Resident memory now (MB), after resetting the kernel's high-water mark (Linux's
    clear_refs '5'); elsewhere the peak falls back to getrusage's lifetime maximum."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    rss = _status_kb("VmRSS")
    return rss / 1024 if rss is not None else _peak_rss_mb()


def _peak_rss_mb() -> float:
    hwm = _status_kb("VmHWM")
    if hwm is not None:
        return hwm / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

