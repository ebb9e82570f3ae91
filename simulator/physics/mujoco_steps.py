"""The MuJoCo world's stepping: the settle loops (`steps_to_rest` for any scene, `run_alone`
for one unrecorded die alone) and `_Stepping`, the calls they share (coasting, sub-steps, a
call of BATCH_STEPS steps). Part of the MuJoCo backend (simulator/physics/mujoco_world.py);
the settle rule's engine-neutral parts are settle.py's."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dice_models.numerics import dot, norm
from simulator.physics.common import MAX_POISED, Frame, NonFiniteError, NotSettledError, Pose
from simulator.physics.settle import coast_steps, jitter, rest_rule

if TYPE_CHECKING:
    from simulator.physics.mujoco_world import MujocoWorld, _Model

# Steps a call while every die is brisk: faster than BRISK times settle_linear or spinning
# faster than BRISK times settle_angular, and none still (a forgiven twitch). The Python
# around each step cost half as much as the step; the settle rule needs to read the dice
# only when one may be still. A call is kept if every die is brisk after it too, none below
# its floor falling (fell off, tunnel) and none faster than fast_speed / 2; otherwise the
# state before it is put back and those steps are stepped one at a time, read after each.
# So the rule reads every step at which a die is slow: a die goes still, falls off, tunnels
# or turns non-finite at the same step, the same bits, as read every step. What a call could
# hide is a die that went from brisk to still and back to brisk within BATCH_STEPS steps,
# and no still spell that long (the hold) fits in one. A call starts only when every die is
# GATE times brisker than that, so that few are taken back (each costs BATCH_STEPS steps).
# Not when recording (frames at 60 Hz).
BATCH_STEPS = 4
BRISK = 10.0
GATE = 3.0


class _Stepping:
    """What both stepping loops share: the settle rule's numbers, MuJoCo's calls bound once
    (each loop is every throw's hot path: d.warning[...] cost 1.4 us a step, a bound view
    0.2 us) and the ways to take more than one step at a time: coasting, sub-steps and a
    call of BATCH_STEPS steps."""

    def __init__(self, world: MujocoWorld, mm: _Model, record: bool):
        mj, m, d, s = world._mj, mm.model, mm.data, world.settings
        self.world, self.mm, self.m, self.d, self.settings = world, mm, m, d, s
        self.dt = dt = s.time_step
        # the settle rule's numbers (settle.rest_rule; MuJoCo's loops have no confinement rule)
        (self.hold, self.max_steps, self.lin2, self.ang2, self.jitter_m2, self.jitter_cos,
         _every) = rest_rule(s)
        self.fast = s.fast_speed
        self.floors = [-sh.poly.circumradius for sh in mm.shapes]
        self.radii = [sh.base_radius for sh in mm.shapes]
        # the farthest a point of die i reaches from its geometric centre, and one step more
        self.reach = [sh.poly.circumradius + norm(sh.mass.com) + s.fast_speed * dt
                      for sh in mm.shapes]
        self.top = max([0.0, *((ob.size[2] if ob.kind == "box" else ob.size[1])
                               for ob in world.table.obstacles)])
        self.slack = s.gravity * dt * dt
        self.corners = [[tuple(v) for v in sh.poly.vertices.tolist()] for sh in mm.shapes]
        self.coms = [tuple(sh.mass.com.tolist()) for sh in mm.shapes]
        self.obstacles = bool(world.table.obstacles)
        self.mj_step = mj.mj_step
        self.bad_qacc = d.warning[mj.mjtWarning.mjWARN_BADQACC]
        self.flags = m.opt.disableflags
        self.no_constraint = int(mj.mjtDisableBit.mjDSBL_CONSTRAINT)
        # The argument for calls (BATCH_STEPS' note) needs a hold longer than a call and a
        # brisk die's step to leave the jitter allowance; settings where either fails (a long
        # time step, a tiny one, a wide allowance) read every step.
        safe = (self.hold > world.batch_steps and BRISK * s.settle_linear * dt > s.jitter_m
                and math.degrees(BRISK * s.settle_angular * dt) > s.jitter_deg)
        self.batch = world.batch_steps if safe and not record else 1
        self.brisk_v2, self.brisk_w2 = self.lin2 * BRISK ** 2, self.ang2 * BRISK ** 2
        self.gate_v2, self.gate_w2 = self.brisk_v2 * GATE ** 2, self.brisk_w2 * GATE ** 2
        self.spec = mj.mjtState.mjSTATE_INTEGRATION
        self.saved = np.empty(mj.mj_stateSize(m, self.spec))
        self.get_state, self.set_state = mj.mj_getState, mj.mj_setState
        self.watch_to = 0  # step every step up to here (a call that ended in a slow die)

    def coast_steps(self, i: int, step: int) -> int:
        """Steps lone die i may coast (settle.coast_steps); asked only when it is clear of
        everything by its whole reach, as the bound costs more than a step."""
        qpos, qvel = self.d.qpos, self.d.qvel
        if qpos[7 * i + 2] - self.reach[i] <= self.top:
            return 0
        # The die's rotation from its quaternion, and the bound's inputs, in plain floats
        # (numpy's small-array calls cost 8 us of this): the lowest corner, the centre of
        # mass's height and velocity, the spin in the table frame.
        z, w, x, y, zq = qpos[7 * i + 2:7 * i + 7].tolist()
        n = 1.0 / math.sqrt(w * w + x * x + y * y + zq * zq)
        w, x, y, zq = w * n, x * n, y * n, zq * n
        r0 = (1 - 2 * (y * y + zq * zq), 2 * (x * y - w * zq), 2 * (x * zq + w * y))
        r1 = (2 * (x * y + w * zq), 1 - 2 * (x * x + zq * zq), 2 * (y * zq - w * x))
        r2 = (2 * (x * zq - w * y), 2 * (y * zq + w * x), 1 - 2 * (x * x + y * y))
        low = z + min(a * r2[0] + b * r2[1] + c * r2[2] for a, b, c in self.corners[i]) - self.slack
        cx, cy, cz = self.coms[i]
        com = [r[0] * cx + r[1] * cy + r[2] * cz for r in (r0, r1, r2)]
        vx, vy, vz, bx, by, bz = qvel[6 * i:6 * i + 6].tolist()
        spin = [r[0] * bx + r[1] * by + r[2] * bz for r in (r0, r1, r2)]
        com_v = [vx + spin[1] * com[2] - spin[2] * com[1], vy + spin[2] * com[0] - spin[0] * com[2],
                 vz + spin[0] * com[1] - spin[1] * com[0]]
        return coast_steps(self.settings, z + com[2], low, com_v, spin, self.radii[i],
                           self.mm.shapes[i].spin_ratio, self.top, self.obstacles,
                           self.max_steps - step + 1, self.slack)

    def coast(self, n: int) -> None:
        """n steps with constraints off: nothing is near enough to touch (coast_steps), so
        MuJoCo would find no contact; the same bits, 0.45 of a flight step's 2 us saved."""
        m = self.m
        m.opt.disableflags = self.flags | self.no_constraint
        try:
            self.mj_step(m, self.d, n)
        finally:
            m.opt.disableflags = self.flags

    def substeps(self, split: int) -> None:
        """One step in `split` sub-steps, for a die faster than fast_speed, with the stiffest
        contact MuJoCo allows at that sub-step (time constant 2 sub-steps). At 1/60 s a d8
        thrown down at 50 m/s sank 0.25 m into the table before the contact stopped it."""
        m, dt = self.m, self.dt
        timeconsts = m.pair_solref[:, 0].copy()
        m.opt.timestep = dt / split
        m.pair_solref[:, 0] = 2 * dt / split
        try:
            self.mj_step(m, self.d, split)
        finally:
            m.opt.timestep = dt
            m.pair_solref[:, 0] = timeconsts

    def take(self, step: int, coast: int, split: int, brisk: bool, live: list[int]) -> int:
        """Take step `step` and say which step the dice are read after: `coast` steps
        coasting, one step in `split` sub-steps, while every die is `brisk` a call of
        `batch` steps (stepped again one at a time up to its end if it is taken back), or
        one step."""
        if coast:
            self.coast(coast)
            return step + coast - 1
        if split > 1:
            self.substeps(split)
            return step
        if brisk and step > self.watch_to and step + self.batch <= self.max_steps:
            if self.call(live):
                return step + self.batch - 1
            self.watch_to = step + self.batch - 1
            return step
        self.mj_step(self.m, self.d)
        return step

    def call(self, live: list[int]) -> bool:
        """`batch` steps in one call (BATCH_STEPS), kept if every die is brisk after it too
        (True); if not, the state before it is put back and one step taken (False)."""
        m, d = self.m, self.d
        self.get_state(m, d, self.saved, self.spec)
        self.mj_step(m, d, self.batch)
        if _brisk(d.qpos, d.qvel, live, self.floors, self.brisk_v2, self.brisk_w2,
                  self.fast * self.fast / 4):
            return True
        self.set_state(m, d, self.saved, self.spec)
        self.bad_qacc.number = 0  # (a non-finite step is met again, at its step)
        self.mj_step(m, d)
        return False


def steps_to_rest(world: MujocoWorld, mm: _Model, names: list[str], removed: dict[int, Pose],
                   record: bool) -> tuple[int, list[Frame]]:
    """_run_to_rest's loop (one die alone: _run_alone)."""
    run = mm.runs.get((record, world.batch_steps))
    if run is None or run.settings is not world.settings:
        run = mm.runs[(record, world.batch_steps)] = _Stepping(world, mm, record)
    live = [i for i in range(len(names)) if i not in removed]
    if len(live) == 1 and not record and world.lone_loop:
        return world._run_alone(run, names, live[0], removed), []
    d = run.d
    dt, hold, max_steps, fast = run.dt, run.hold, run.max_steps, run.fast
    lin2, ang2, gate_v2, gate_w2 = run.lin2, run.ang2, run.gate_v2, run.gate_w2
    jitter_m2, jitter_cos, floors, batch = run.jitter_m2, run.jitter_cos, run.floors, run.batch
    frame_every = max(1, round(1.0 / (world.settings.frame_rate * dt)))
    n = len(names)
    still, restarts = [0] * n, [0] * n
    anchors: list[Any] = [None] * n
    frames = [world._frame(mm, names, 0.0, live)] if record else []
    qpos, qvel, bad_qacc = d.qpos, d.qvel, run.bad_qacc
    brisk = False  # every die brisk after the last step (then a call may take `batch`)
    run.watch_to = 0
    step = 0
    fastest = math.sqrt(sum(dot(qvel[6 * i:6 * i + 3], qvel[6 * i:6 * i + 3]) for i in live))
    while step < max_steps:
        step += 1
        split = math.ceil(fastest / fast) if fastest > fast else 1
        coast = 0
        if len(live) == 1 and world.coast and not record and split == 1 and still[live[0]] == 0:
            coast = run.coast_steps(live[0], step)
        step = run.take(step, coast, split, brisk and fastest < fast / 2, live)
        if bad_qacc.number:
            raise NonFiniteError(f"MuJoCo's accelerations turned non-finite at step {step}")
        settled = True
        brisk = batch > 1
        fastest = 0.0
        for i in list(live):
            v = qvel[6 * i:6 * i + 6]
            lx, ly, lz, wx, wy, wz = v.tolist()
            z = float(qpos[7 * i + 2])
            if lz < -0.01 and z < floors[i] and world._fall_off(mm, names, i, step, removed):
                live.remove(i)
                continue
            v2 = lx * lx + ly * ly + lz * lz
            w2 = wx * wx + wy * wy + wz * wz
            if not v2 + w2 < math.inf:
                raise NonFiniteError(f"die {names[i]} turned non-finite at step {step}: "
                                     f"velocity {[lx, ly, lz]}, spin {[wx, wy, wz]}")
            fastest = max(fastest, math.sqrt(v2))
            if v2 < gate_v2 and w2 < gate_w2:
                brisk = False
            if v2 < lin2 and w2 < ang2:
                if still[i] == 0:
                    anchors[i] = world._raw_pose(qpos, i)
            elif not (still[i] and jitter(world._raw_pose(qpos, i), anchors[i], jitter_m2,
                                           jitter_cos)):
                still[i] = 0
                settled = False
                continue
            still[i] += 1
            brisk = False  # (a forgiven twitch: brisk, yet still)
            if still[i] < hold:
                settled = False
            elif still[i] == hold and restarts[i] < MAX_POISED and world._poised(mm, names, i, removed):
                restarts[i] += 1
                still[i] = 0
                settled = False
        if record and step % frame_every == 0:
            frames.append(world._frame(mm, names, step * dt, [i for i in live if still[i] == 0]))
        if settled:
            if record:
                frames.append(world._frame(mm, names, step * dt, live))
            return step, frames
    restless = [names[i] for i in live if still[i] < hold]
    raise NotSettledError(f"dice {', '.join(restless)} did not come to rest within "
                          f"{world.settings.max_time:.1f} s of simulated time")

def run_alone(world: MujocoWorld, run: _Stepping, names: list[str], i: int, removed: dict[int, Pose]) -> int:
    """`_run_to_rest` for one die alone (the others removed), unrecorded: the fairness
    lab's and the bench's throw. The same rule in the same order (tested bit for bit
    against `_run_to_rest` with `lone_loop = False`), written with plain locals: the
    general loop's per-die lists cost 2-6% of a lone die's throw."""
    mm, d = run.mm, run.d
    hold, max_steps, fast, half_fast = run.hold, run.max_steps, run.fast, run.fast / 2
    lin2, ang2, gate_v2, gate_w2 = run.lin2, run.ang2, run.gate_v2, run.gate_w2
    jitter_m2, jitter_cos, batch = run.jitter_m2, run.jitter_cos, run.batch
    floor, coasting, clear = run.floors[i], world.coast, run.top + run.reach[i]
    qpos, qvel, bad_qacc = d.qpos, d.qvel, run.bad_qacc
    sqrt, ceil, inf = math.sqrt, math.ceil, math.inf
    vel, zi = slice(6 * i, 6 * i + 6), 7 * i + 2
    live = [i]
    lx, ly, lz, wx, wy, wz = qvel[vel].tolist()
    fastest = sqrt(lx * lx + ly * ly + lz * lz)
    still, restarts = 0, 0
    anchor: Any = None
    brisk = False
    run.watch_to = 0
    step = 0
    while step < max_steps:
        step += 1
        split = ceil(fastest / fast) if fastest > fast else 1
        coast = 0
        if coasting and split == 1 and still == 0 and qpos[zi] > clear:  # (coast_steps' test)
            coast = run.coast_steps(i, step)
        step = run.take(step, coast, split, brisk and fastest < half_fast, live)
        if bad_qacc.number:
            raise NonFiniteError(f"MuJoCo's accelerations turned non-finite at step {step}")
        lx, ly, lz, wx, wy, wz = qvel[vel].tolist()
        if lz < -0.01 and float(qpos[zi]) < floor and world._fall_off(mm, names, i, step, removed):
            return step
        v2 = lx * lx + ly * ly + lz * lz
        w2 = wx * wx + wy * wy + wz * wz
        if not v2 + w2 < inf:
            raise NonFiniteError(f"die {names[i]} turned non-finite at step {step}: "
                                 f"velocity {[lx, ly, lz]}, spin {[wx, wy, wz]}")
        fastest = sqrt(v2)
        brisk = batch > 1 and not (v2 < gate_v2 and w2 < gate_w2)
        if v2 < lin2 and w2 < ang2:
            if still == 0:
                anchor = world._raw_pose(qpos, i)
        elif not (still and jitter(world._raw_pose(qpos, i), anchor, jitter_m2, jitter_cos)):
            still = 0
            continue
        still += 1
        brisk = False
        if still < hold:
            continue
        if restarts < MAX_POISED and world._poised(mm, names, i, removed):
            restarts += 1
            still = 0
            continue
        return step
    raise NotSettledError(f"dice {names[i]} did not come to rest within "
                          f"{world.settings.max_time:.1f} s of simulated time")


def _brisk(qpos: Any, qvel: Any, live: list[int], floors: list[float], v2_min: float,
           w2_min: float, v2_max: float) -> bool:
    """Every live die moving at least sqrt(v2_min) or spinning at least sqrt(w2_min), slower
    than sqrt(v2_max), and none falling below its floor (a non-finite one is not brisk)."""
    for i in live:
        lx, ly, lz, wx, wy, wz = qvel[6 * i:6 * i + 6].tolist()
        v2 = lx * lx + ly * ly + lz * lz
        if not ((v2 >= v2_min or wx * wx + wy * wy + wz * wz >= w2_min) and v2 < v2_max):
            return False
        if lz < -0.01 and qpos[7 * i + 2] < floors[i]:
            return False
    return True
