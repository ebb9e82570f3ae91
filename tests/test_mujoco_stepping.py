"""The MuJoCo world's stepping loop takes several steps a call while every die is brisk
(issue 20, item 4: speed), and gives the bits of reading every die after every step.

DESIGN.md: "Same throw + same world = same result, bit for bit, on one machine." The
settle rule (docs/physics.md) reads every die after every step: a still spell, a fall off
the table or a tunnel is met at its step. The reference here is a world that does exactly
that: batch_steps 1, no coasting (each step read, constraints on in free flight) and a
lone die stepped by `MujocoRun.advance` too (lone_steps False: not its advance_one).
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="the mujoco engine needs the engines extra "
                             "(pip install 'tabletop[engines]')")

from dice_models import load_die  # noqa: E402
from simulator.bench import stuck  # noqa: E402
from simulator.bench.engines import throws_for  # noqa: E402
from simulator.physics import PhysicsSettings, TableSpec  # noqa: E402
from simulator.physics.mujoco_world import MujocoWorld  # noqa: E402
from simulator.physics.throws import random_throw  # noqa: E402

MUJOCO = PhysicsSettings(engine="mujoco")


class _Counted:
    """MuJoCo itself, with its step and state calls counted (every call goes through)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        real = getattr(mujoco, name)
        if name in ("mj_step", "mj_setState"):
            def counted(*args: Any) -> Any:
                self.calls[name] += 1
                return real(*args)
            return counted
        return real


def _throws() -> list[tuple[Any, Any, list[Any]]]:
    """Lab throws and edge throws of the paper d8 (a few fall off), and the stuck-dice
    bench's d6 on the slick table (dice that rock and twitch before they rest)."""
    out = []
    for kind in ("lab", "table"):
        table, throws = throws_for(kind, "paper-d8", 30)
        out.append((table, load_die("paper-d8"), throws))
    config = next(c for c in stuck.all_configs()
                  if c.kind == "throw" and c.die == "d6" and c.surface == "slick")
    table = TableSpec(surface=stuck.SURFACES[config.surface], source="<bench_stuck>")
    key = zlib.crc32(config.name.encode())
    out.append((table, load_die("d6"),
                [random_throw(table, 1, np.random.default_rng([key, i])) for i in range(12)]))
    return out


def test_batched_steps_give_the_bits_of_reading_every_step():
    counted = _Counted()
    reasons: Counter[str] = Counter()
    reference_steps = 0
    for table, model, throws in _throws():
        fast = MujocoWorld(table, MUJOCO)
        fast._mj = counted
        every = MujocoWorld(table, MUJOCO)
        every.batch_steps, every.coast, every.lone_steps = 1, False, False
        for k, throw in enumerate(throws):
            group = [("die", model, throw)]
            if k % 3 == 1:  # a die resting on the table too (the general loop)
                for world in (fast, every):
                    world.place("rest", load_die("d6"), 1 + k % 6, 15.0 * k, (0.05, 0.1))
            elif k % 3 == 2:  # two dice thrown together (the general loop, batched)
                group.append(("other", load_die("d6"), throws[k - 1]))
            got = [r.to_json() for r in fast.throw_group(group)]
            want = [r.to_json() for r in every.throw_group(group)]
            fast.scene.clear()
            every.scene.clear()
            assert got == want
            reasons[str(want[0]["outcome"]["reason"])] += 1
            reference_steps += want[0]["steps"]
    # the comparison met dice falling off and the shortcut's way back (a call that ended
    # with a slow die, stepped again one step at a time)
    assert reasons["fell_off"] > 0 and counted.calls["mj_setState"] > 0
    # and the shortcuts were taken: far fewer calls than steps (a resting die is read
    # every step: a third of these throws is stepped one step at a time once it lands)
    assert counted.calls["mj_step"] < 0.7 * reference_steps


def test_euler_integrates_what_implicitfast_would():
    """Nothing in the model depends on velocity but the contacts (no joint damping, no
    actuators), so implicitfast's implicit term is zero: Euler integrates the same equations
    without its factorization, and the same throws end on the same faces (rounding apart)."""
    table, throws = throws_for("lab", "paper-d8", 30)
    model = load_die("paper-d8")
    euler, implicit = MujocoWorld(table, MUJOCO), MujocoWorld(table, MUJOCO)
    for world in (euler, implicit):
        world.throw("die", model, throws[0])
        world.scene.clear()
    (compiled,) = [mm.model for mm in euler._models.values()]
    assert compiled.opt.integrator == mujoco.mjtIntegrator.mjINT_EULER
    assert compiled.nu == 0 and not compiled.dof_damping.any()
    for mm in implicit._models.values():
        mm.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    for throw in throws:
        a = euler.throw("die", model, throw).outcome
        b = implicit.throw("die", model, throw).outcome
        euler.scene.clear()
        implicit.scene.clear()
        assert (a.status, a.reason, a.face) == (b.status, b.reason, b.face)
        assert a.position == pytest.approx(b.position, abs=1e-3)


def test_mujocos_profiling_timers_are_off_while_a_world_steps():
    """MuJoCo's docs: the timers run only while mjcb_time is installed, and "most of the
    time the user does not need timing"; the Python bindings install one with every MjData
    (its clock reads cost 12% of a lab throw). A throw steps untimed and leaves the
    callback as it found it."""
    from simulator.physics.mujoco_world import _profiler_clock

    clock = _profiler_clock(mujoco)
    assert clock is not None and clock.value  # the bindings' timer, installed
    before = clock.value
    table, throws = throws_for("lab", "paper-d8", 1)
    world = MujocoWorld(table, MUJOCO)
    world.throw("die", load_die("paper-d8"), throws[0])
    (mm,) = world._models.values()
    step = mm.data.timer[mujoco.mjtTimer.mjTIMER_STEP]
    assert step.number > 0 and step.duration == 0.0
    assert clock.value == before


@pytest.mark.parametrize(("changes", "batched"), [
    ({}, True),  # the defaults: hold 6 steps, a brisk step 0.21 mm and 0.24 deg
    ({"hold_time": 0.015}, False),  # a hold of 4 steps fits in one call of 4
    ({"time_step": 1 / 2000}, False),  # a brisk step (0.025 mm) within the 0.05 mm allowance
    ({"jitter_deg": 0.5}, False),  # a brisk turn (0.24 deg) within the allowance
])
def test_calls_of_several_steps_only_where_their_argument_holds(changes, batched):
    """Review of the 4-step calls: the argument that they give the bits of reading every
    step needs a hold longer than a call and a brisk die's step beyond the jitter allowance;
    experiment files may set the step, the hold and the allowance."""
    settings = PhysicsSettings(engine="mujoco", **changes)
    world = MujocoWorld(None, settings)
    throw = random_throw(world.table, 1, np.random.default_rng(3))
    world.throw("die", load_die("paper-d8"), throw)
    (run,) = [r for (record, _k), r in next(iter(world._models.values())).runs.items()
              if not record]
    assert (run.batch > 1) == batched


def test_the_confinement_rule_confines_a_mujoco_die_at_the_checks_of_every_step_read():
    """MuJoCo applies the settle rule's confinement (docs/physics.md "The settle rule") as
    PyBullet does. With a cage of 10 cm and 180 deg at up to 100 rad/s, 0.3 s (wide enough to
    hold a die in flight, so throws rest confined), the world with its coasts and calls of
    several steps confines at the steps the world reading every step does: a coast or a call
    ends at a check, none is made while a die is confined. Before, MuJoCo never confined."""
    s = PhysicsSettings(engine="mujoco", confine_m=0.1, confine_deg=180.0, confine_spin=100.0,
                        confine_time=0.15)
    table = TableSpec()
    fast, every = MujocoWorld(table, s), MujocoWorld(table, s)
    every.batch_steps, every.coast, every.lone_steps = 1, False, False
    d8, d6 = load_die("paper-d8"), load_die("d6")
    for i in range(12):
        rng = np.random.default_rng([5, i])
        group = [("a", d8, random_throw(table, 1, rng))]
        if i % 3 == 2:  # two dice: one may wait confined while the other moves
            group.append(("b", d6, random_throw(table, 2, rng)))
        got = [r.to_json() for r in fast.throw_group(group)]
        want = [r.to_json() for r in every.throw_group(group)]
        fast.scene.clear()
        every.scene.clear()
        assert got == want, i
    assert fast.confined == every.confined > 6
