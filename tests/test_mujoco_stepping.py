"""The MuJoCo world's stepping loop takes several steps a call while every die is brisk
(issue 20, item 4: speed), and gives the bits of reading every die after every step.

DESIGN.md: "Same throw + same world = same result, bit for bit, on one machine." The
settle rule (docs/physics.md) reads every die after every step: a still spell, a fall off
the table or a tunnel is met at its step. The reference here is a world that does exactly
that: batch_steps 1 and no coasting (each step read, constraints on in free flight).
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
        every.batch_steps, every.coast = 1, False
        for throw in throws:
            got = fast.throw("die", model, throw).to_json()
            want = every.throw("die", model, throw).to_json()
            fast.scene.clear()
            every.scene.clear()
            assert got == want
            reasons[str(want["outcome"]["reason"])] += 1
            reference_steps += want["steps"]
    # the comparison met dice falling off and the shortcut's way back (a call that ended
    # with a slow die, stepped again one step at a time)
    assert reasons["fell_off"] > 0 and counted.calls["mj_setState"] > 0
    # and the shortcut was taken: far fewer calls than steps
    assert counted.calls["mj_step"] < reference_steps / 2


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
