"""The MuJoCo world's stepping: its part of the settle loop (`MujocoRun`, the
`simulator.physics.stepping.Run` contract): its dice's readers, and the ways it takes more
than one step at a time (coasting, sub-steps, a call of BATCH_STEPS steps). Part of the
MuJoCo backend (simulator/physics/mujoco_world.py); the loop and the settle rule are
engine-neutral (stepping.py, settle.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from dice_models.numerics import dot, norm
from simulator.physics.common import Frame, NonFiniteError, Pose
from simulator.physics.settings import CONFINE_CHECKS
from simulator.physics.settle import coast_steps, rest_rule
from simulator.physics.stepping import Floats, RawPose, Velocity, Watch

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


class MujocoRun:
    """The MuJoCo world's part of a settle run: the settle rule's numbers, MuJoCo's calls
    bound once (the loop is every throw's hot path: d.warning[...] cost 1.4 us a step, a
    bound view 0.2 us), each die's readers, and the ways to take more than one step at a
    time: coasting, sub-steps and a call of BATCH_STEPS steps. Made once a model and
    recording (`begin` starts each run)."""

    # The confinement rule applies (settle.Cage): a coast or a call of `batch` steps never
    # runs past the next check (watch.check_at), and no call is made while a die is confined
    # (its cage is then read after every step), so the rule reads what every step read would.
    confines = True

    def __init__(self, world: MujocoWorld, mm: _Model, record: bool):
        mj, m, d, s = world._mj, mm.model, mm.data, world.settings
        self.world, self.mm, self.m, self.d, self.settings = world, mm, m, d, s
        self.dt = dt = s.time_step
        self.record = record
        # the settle rule's numbers (settle.rest_rule)
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
        # (MuJoCo resets the data on a non-finite velocity: the die would restart inside
        # the table and read as a tunnel, so the warning is read too)
        self.bad_qvel = d.warning[mj.mjtWarning.mjWARN_BADQVEL]
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
        self.velocity = [_velocity(d.qvel, i) for i in range(len(mm.shapes))]
        self.pose = [_pose(d.qpos, i) for i in range(len(mm.shapes))]
        self.names: list[str] = []
        self.removed: dict[int, Pose] = {}
        self.lone_advance = _lone_advance(self) if len(mm.shapes) == 1 and not record else None
        self.advance_one = self.lone_advance

    def begin(self, names: list[str], removed: dict[int, Pose]) -> MujocoRun:
        """This run's dice (`names`, in the model's order) and where the dice that leave the
        table are kept (`removed`, by index)."""
        self.names, self.removed, self.watch_to = names, removed, 0
        self.advance_one = self.lone_advance if self.world.lone_steps else None
        return self

    # -- the loop's questions -----------------------------------------------------------

    def left_table(self, i: int, step: int) -> bool:
        return self.world._fall_off(self.mm, self.names, i, step, self.removed)

    def poised(self, i: int) -> bool:
        return self.world._poised(self.mm, self.names, i, self.removed)

    def frame(self, t: float, which: list[int]) -> Frame:
        return self.world._frame(self.mm, self.names, t, which)

    def advance(self, step: int, w: Watch) -> int:
        """Take step `step`: coasting a lone die in free flight, in sub-steps for a die
        faster than fast_speed, while every die is brisk a call of `batch` steps; the step
        after which the dice are read."""
        live, still = w.live, w.still
        if step == 1:  # (its first step is split by the dice's speeds summed, as it always was)
            qvel = self.d.qvel
            fastest = math.sqrt(sum(dot(qvel[6 * i:6 * i + 3], qvel[6 * i:6 * i + 3])
                                    for i in live))
        else:
            fastest = math.sqrt(w.fastest2)
        fast = self.fast
        split = math.ceil(fastest / fast) if fastest > fast else 1
        coast = 0
        if (len(live) == 1 and self.world.coast and not self.record and split == 1
                and still[live[0]] == 0):
            coast = self.coast_steps(live[0], step, w.check_at)
        brisk = (step > 1 and self.batch > 1 and not w.resting
                 and _all_brisk(w.v2s, w.w2s, live, self.gate_v2, self.gate_w2)
                 and not any(cage.kept > CONFINE_CHECKS for cage in w.cages))
        return self.checked(self.take(step, coast, split, brisk and fastest < fast / 2, live,
                                      w.check_at))

    def checked(self, step: int) -> int:
        """`step`, unless MuJoCo found its state non-finite in it (NonFiniteError)."""
        if self.bad_qacc.number:
            raise NonFiniteError(f"MuJoCo's accelerations turned non-finite at step {step}")
        if self.bad_qvel.number:
            raise NonFiniteError(f"MuJoCo's velocities turned non-finite at step {step}")
        return step

    def coast_steps(self, i: int, step: int, check_at: int) -> int:
        """Steps lone die i may coast (settle.coast_steps), never past the step of the next
        check (`check_at`); asked only when it is clear of everything by its whole reach, as
        the bound costs more than a step."""
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
                           min(self.max_steps, check_at) - step + 1, self.slack)

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

    def take(self, step: int, coast: int, split: int, brisk: bool, live: list[int],
             check_at: int) -> int:
        """Take step `step` and say which step the dice are read after: `coast` steps
        coasting, one step in `split` sub-steps, while every die is `brisk` a call of
        `batch` steps ending at the next check (`check_at`) at the latest (stepped again one
        at a time up to its end if it is taken back), or one step."""
        if coast:
            self.coast(coast)
            return step + coast - 1
        if split > 1:
            self.substeps(split)
            return step
        if (brisk and step > self.watch_to and step + self.batch <= self.max_steps
                and step + self.batch - 1 <= check_at):
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
        self.bad_qacc.number = self.bad_qvel.number = 0  # (a non-finite step is met again, at its step)
        self.mj_step(m, d)
        return False


def _velocity(qvel: Any, i: int) -> Callable[[], Velocity]:
    """Die i's reader of its free joint's velocity (the body origin's, and its spin; the
    linear part is the first three of all six, as the loop reads it)."""
    values = qvel[6 * i:6 * i + 6].tolist  # (a view of MjData's own array, made once)

    def read() -> Velocity:
        v = values()
        return v, v[3:6]

    return read


def _pose(qpos: Any, i: int) -> Callable[[], RawPose]:
    """Die i's reader of its pose as settle.jitter reads one (position, quaternion x, y, z,
    w): MuJoCo orders its quaternion w first."""
    values = qpos[7 * i:7 * i + 7].tolist  # (a view of MjData's own array, made once)

    def read() -> RawPose:
        q = values()
        return q[0:3], [q[4], q[5], q[6], q[3]]

    return read


def _all_brisk(v2s: list[float], w2s: list[float], live: list[int], gate_v2: float,
               gate_w2: float) -> bool:
    """Every live die, as last read, moving or spinning at least GATE times brisk."""
    return not any(v2s[i] < gate_v2 and w2s[i] < gate_w2 for i in live)


def _lone_advance(run: MujocoRun) -> Callable[[int, Floats, Floats, float, float, int, bool, int,
                                               RawPose | None, int], tuple[int, Velocity]]:
    """`MujocoRun.advance` for its one die and its reading after, with plain locals (an
    unrecorded lone die's step; a plain step without `take`'s call)."""
    fast, half_fast, gate_v2, gate_w2 = run.fast, run.fast / 2, run.gate_v2, run.gate_w2
    batch, clear, qpos, bad_qacc, bad_qvel = (run.batch, run.top + run.reach[0], run.d.qpos,
                                              run.bad_qacc, run.bad_qvel)
    take, coast_steps_of, world, live = run.take, run.coast_steps, run.world, [0]
    mj_step, m, d, values = run.mj_step, run.m, run.d, run.d.qvel[0:6].tolist
    sqrt, ceil = math.sqrt, math.ceil

    def advance_one(step: int, lin: Floats, ang: Floats, v2: float, w2: float, still: int,
                    resting: bool, check_at: int, pose: RawPose | None,
                    until: int) -> tuple[int, Velocity]:
        fastest = sqrt(v2)  # (one step or call a time: its batch gate is its own, not `until`)
        split = ceil(fastest / fast) if fastest > fast else 1
        coast = 0
        if world.coast and split == 1 and still == 0 and qpos[2] > clear:  # (coast_steps' test)
            coast = coast_steps_of(0, step, check_at)
        brisk = step > 1 and batch > 1 and not resting and not (v2 < gate_v2 and w2 < gate_w2)
        if coast or split > 1 or brisk and fastest < half_fast:
            step = take(step, coast, split, brisk and fastest < half_fast, live, check_at)
        else:
            mj_step(m, d)  # (what take does then)
        if bad_qacc.number or bad_qvel.number:
            run.checked(step)
        v = values()
        return step, (v, v[3:6])

    return advance_one


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
