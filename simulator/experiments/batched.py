"""Batched throws with MuJoCo Warp: one world per throw, many throws stepped at once on a
GPU (`fairness run --backend gpu`), or the same code on Warp's CPU device
(`--backend warp-cpu`: slow, for checking the code without a GPU).

Each throw is drawn exactly as the other backends draw it (`config.draw_throw`, seeded by
the experiment and its index, with the same symmetry break), simulated in its own world of
the MuJoCo model `MujocoWorld` builds (the same die, table, contact pairs and mapping), and
judged by the same rule: every step the host reads each world's velocities and applies
World's settle rule (below settle_linear and settle_angular for hold_time, a twitch within
jitter of its still spell's start forgiven, the hold restarted for a die poised on an edge
or a point; not the confinement rule, which is for Bullet's contact cycles: docs/engines.md),
a die below the surface off the table's footprint has fallen off, one through
the slab is a TunnelError row. Rows go to the same SQLite store, so a run resumes like any
other. The engine is recorded as `mujoco-warp` (part of the fingerprint): Warp computes in
float32 and steps every world with whole steps (no coasting, no sub-steps for dice over
fast_speed), so its rows are not the CPU MuJoCo world's rows; compare the two runs with
`tabletop fairness compare`. Same seed, same device and same batch give the same rows;
across devices or batch sizes they need not (docs/engines.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from dice_models import DataError
from simulator.experiments.config import DrawnThrow, Experiment, draw_throw
from simulator.experiments.dispatch import error_row, row_of
from simulator.experiments.store import ThrowRow
from simulator.physics import die_shape
from simulator.physics._bullet import quiet_fds as _quiet  # Warp prints its banner there
from simulator.physics.engines import import_warp
from simulator.physics.mujoco_world import MujocoWorld, free_position, free_velocity, pose_from_qpos
from simulator.physics.settle import poised
from simulator.physics.world import (
    MAX_POISED,
    TABLE_THICKNESS,
    Pose,
    _describe,
    symmetry_break,
    validate_throw,
)

BATCHED_BACKENDS = {"gpu": "cuda", "warp-cpu": "cpu"}
DEFAULT_BATCH = {"gpu": 8192, "warp-cpu": 32}
NCON_PER_WORLD = 16  # contact slots per world (a die on the table makes 3-8)
NJ_PER_WORLD = 96  # constraint rows per world (condim 4 elliptic: 4 rows a contact)


def device_for(backend: str) -> tuple[Any, Any, str]:
    """(warp, mujoco_warp, device) for a batched backend; one DataError line when the extra
    is missing or, for `gpu`, when there is no CUDA GPU."""
    with _quiet():
        wp, mjw = import_warp()
        wp.config.quiet = True
        wp.init()
        gpus = wp.get_cuda_device_count()
    device = BATCHED_BACKENDS[backend]
    if device == "cuda" and gpus == 0:
        raise DataError("--backend", "backend", "gpu needs a CUDA GPU and none was found (MuJoCo "
                        "Warp); run --backend local, or warp-cpu for the same code on the CPU",
                        show_value=False)
    return wp, mjw, device


class BatchedSimulator:
    """Throws of one experiment, `batch` worlds at a time, on one Warp device."""

    def __init__(self, exp: Experiment, backend: str, batch: int | None = None) -> None:
        self.exp = exp
        self.shape = die_shape(exp.die)
        self.batch = batch or DEFAULT_BATCH[backend]
        self.wp, self.mjw, self.device = device_for(backend)
        # The CPU world's model: the same MJCF, contact pairs and mapping.
        world = MujocoWorld(exp.table, exp.physics)
        self.mj_model = world._compile((self.shape,), frozenset([exp.die.contact_material]))
        self._world = world
        with _quiet(), self.wp.ScopedDevice(self.device):
            self.model = self.mjw.put_model(self.mj_model.model)

    def run(self, indices: list[int]) -> list[ThrowRow]:
        rows: list[ThrowRow] = []
        for lo in range(0, len(indices), self.batch):
            rows += self.run_batch([draw_throw(self.exp, i, self.shape) for i in indices[lo:lo + self.batch]])
        return rows

    def run_batch(self, drawn: list[DrawnThrow]) -> list[ThrowRow]:
        """Simulate these throws together, each in its own world, until each has rested."""
        wp, mjw, s, shape = self.wp, self.mjw, self.exp.physics, self.shape
        n = len(drawn)
        qpos0 = np.zeros((n, 7))
        qvel0 = np.zeros((n, 6))
        for k, d in enumerate(drawn):
            validate_throw(d.throw)
            simulated, _perturbation = symmetry_break(
                d.throw, None if self.exp.table.obstacles else shape)
            qpos0[k] = free_position(Pose(simulated.release, simulated.orientation))
            qvel0[k] = free_velocity(shape, simulated)
        dt = s.time_step
        hold = max(1, math.ceil(s.hold_time / dt - 1e-9))
        max_steps = math.ceil(s.max_time / dt)
        lin2, ang2 = s.settle_linear ** 2, s.settle_angular ** 2
        jitter_m2, jitter_cos = s.jitter_m ** 2, math.cos(math.radians(s.jitter_deg) / 2)
        floor = -shape.poly.circumradius
        still = np.zeros(n, dtype=int)
        restarts = np.zeros(n, dtype=int)
        anchor = qpos0.copy()
        done = np.zeros(n, dtype=bool)
        result: list[ThrowRow | None] = [None] * n
        with _quiet(), wp.ScopedDevice(self.device):
            data = mjw.make_data(self.mj_model.model, nworld=n, nconmax=NCON_PER_WORLD,
                                 njmax=NJ_PER_WORLD)
            data.qpos.assign(qpos0)
            data.qvel.assign(qvel0)
            mjw.forward(self.model, data)
            for step in range(1, max_steps + 1):
                mjw.step(self.model, data)
                qpos = data.qpos.numpy().astype(float)
                qvel = data.qvel.numpy().astype(float)
                live = ~done
                bad = live & ~np.isfinite(qpos).all(axis=1) | live & ~np.isfinite(qvel).all(axis=1)
                for k in np.flatnonzero(bad).tolist():
                    result[k], done[k] = error_row(drawn[k], "NonFiniteError"), True
                live &= ~bad
                # fallen off (off the footprint, below the surface) or through the slab
                low = live & (qpos[:, 2] < floor) & (qvel[:, 2] < -0.01)
                for k in np.flatnonzero(low).tolist():
                    x, y, z = qpos[k, :3]
                    if self.exp.table.contains_xy(x, y, inset=-1e-3):
                        if z < -TABLE_THICKNESS / 2:
                            result[k], done[k] = error_row(drawn[k], "TunnelError"), True
                        continue
                    result[k] = self._row(drawn[k], pose_from_qpos(qpos[k]), True, step)
                    done[k] = True
                live &= ~done
                v2 = (qvel[:, :3] ** 2).sum(axis=1)
                w2 = (qvel[:, 3:] ** 2).sum(axis=1)
                slow = (v2 < lin2) & (w2 < ang2)
                near = (still > 0) & _within_jitter(qpos, anchor, jitter_m2, jitter_cos)
                starting = live & slow & (still == 0)
                anchor[starting] = qpos[starting]
                still = np.where(live & (slow | near), still + 1, 0)
                for k in np.flatnonzero(live & (still == hold)).tolist():
                    pose = pose_from_qpos(qpos[k])
                    if restarts[k] < MAX_POISED and self._poised(pose):
                        restarts[k] += 1
                        still[k] = 0
                        continue
                    result[k], done[k] = self._row(drawn[k], pose, False, step), True
                if done.all():
                    break
        for k in np.flatnonzero(~done).tolist():
            result[k] = error_row(drawn[k], "NotSettledError")
        return [r for r in result if r is not None]

    def _row(self, drawn: DrawnThrow, pose: Pose, fell: bool, steps: int) -> ThrowRow:
        out = _describe("die", self.shape, pose, self.exp.table, False, fell)
        return row_of(drawn, self.shape, out, steps * self.exp.physics.time_step, steps)

    def _poised(self, pose: Pose) -> bool:
        """settle.poised for a lone die (nothing to lean on)."""
        return poised(self.shape, pose.rotation()[2], pose, self.exp.table, lambda: False)


def _within_jitter(qpos: np.ndarray, anchor: np.ndarray, max_m2: float, min_cos: float) -> np.ndarray:
    """world._jitter for every world at once (qpos rows: position, quaternion w x y z)."""
    d2 = ((qpos[:, :3] - anchor[:, :3]) ** 2).sum(axis=1)
    dot = np.abs((qpos[:, 3:7] * anchor[:, 3:7]).sum(axis=1))
    return (d2 < max_m2) & (dot > min_cos)


def batched_stream(exp: Experiment, chunks: list[list[int]], backend: str,
                   batch: int | None = None) -> Iterator[list[ThrowRow]]:
    """The dispatcher's stream for a batched backend: the chunks' throws in batches, each batch's
    rows as they come."""
    sim = BatchedSimulator(exp, backend, batch)
    todo = [i for chunk in chunks for i in chunk]
    for lo in range(0, len(todo), sim.batch):
        yield sim.run(todo[lo:lo + sim.batch])


__all__ = ["BATCHED_BACKENDS", "BatchedSimulator", "batched_stream", "device_for"]
