"""The settle loop, written once for every engine: a run's dice stepped until each rests
by the settle rule (settle.py: the hold with its jitter allowance, the poised restart, the
confinement rule), a die that leaves the table taken out of play as it falls, one that
tunnels or turns non-finite an error, the frames of a recorded run, NotSettledError past
max_time.

An engine's part is a `Run` (simulator/physics/bullet_steps.py, mujoco_steps.py): the
step-level contract. It reads a die's velocity and pose, says whether a falling die has
left the table (and takes it out of play), whether a still die is poised on an edge,
records a frame, and takes the next step: as sub-steps near a contact, coasting through
free flight, in a batch while every die is brisk, however that engine does it best. What
it decides there it decides from what the loop hands it (the dice's last velocities, the
fastest, their still counts, the next confinement check), so the rule is applied at
every step the engine's dice are read, the same way for every engine (docs/physics.md).

`settle` is the one loop, for any number of dice, recorded or not. The rule reads each die's
pose after a step once at most; a lone die's step is the engine's `advance_one` where it
has one (plain arguments, the velocity read after it handed back), which keeps the lab's
and the bench's lone throw as fast as a loop of its own (tests/test_mujoco_stepping.py
checks MuJoCo's against its `advance`, bit for bit)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from simulator.physics.common import MAX_POISED, Frame, NonFiniteError, NotSettledError
from simulator.physics.settings import CONFINE_CHECKS, PhysicsSettings
from simulator.physics.settle import Cage, jitter, rest_rule

Floats = Sequence[float]
Velocity = tuple[Floats, Floats]  # (linear m/s: its first 3, [2] the vertical; angular rad/s)
RawPose = tuple[Floats, Floats]  # (position m, quaternion x, y, z, w): what `jitter` compares


class Watch:
    """What the loop knows of a run's dice after the last step, for the engine's next step:
    the live dice, each die's velocity as read, its squared speed and spin (`v2s`, `w2s`)
    and steps of stillness, the largest squared speed, whether a die counted toward its
    hold (`resting`), and the step of the next confinement check (`check_at`; past
    max_steps for an engine without the rule)."""

    __slots__ = ("cages", "check_at", "fastest2", "live", "poses", "resting", "still", "v2s",
                 "vels", "w2s")

    def __init__(self, n: int, s: PhysicsSettings, confines: bool, check_at: int) -> None:
        self.live = list(range(n))
        self.vels: list[Velocity] = []
        self.v2s, self.w2s = [0.0] * n, [0.0] * n
        self.still = [0] * n
        self.poses: list[RawPose | None] = [None] * n
        self.cages = [Cage(s) for _ in range(n)] if confines else []
        self.fastest2 = 0.0
        self.resting = False
        self.check_at = check_at

    def restart(self, i: int) -> None:
        """Die i is a new body (a frozen die thawed): its watch starts afresh."""
        self.still[i] = 0
        if self.cages:
            self.cages[i].kept = 0


class Run(Protocol):
    """One run of an engine's dice to rest, as the settle loop drives it (dice 0..n-1)."""

    settings: PhysicsSettings
    names: list[str]
    floors: list[float]  # a descending die whose pose's z is below this may have left the table
    confines: bool  # the confinement rule applies (both engines' runs: True)
    velocity: list[Callable[[], Velocity]]  # each die's reader (replaced when its body is)
    pose: list[Callable[[], RawPose]]

    def left_table(self, i: int, step: int) -> bool:
        """Die i is below its floor, descending: off the table it has fallen off (taken out
        of play, True: its readers may read nothing after); inside it still being pushed
        out of the slab (False); through the slab TunnelError (settle.fell_off)."""

    def poised(self, i: int) -> bool:
        """Still for the hold, yet balanced on an edge or a point with nothing to lean on?"""

    def frame(self, t: float, which: list[int]) -> Frame:
        """The poses of dice `which` at time t (a recorded run)."""

    def advance(self, step: int, watch: Watch) -> int:
        """Take step `step` (or more, coasting or in a batch, never past watch.check_at);
        the step after which the dice are read."""

    # `advance` for a lone die (0) with plain arguments, where the engine has one for this run
    # (None: `advance`): from its last reading (step, lin, ang, v2, w2, still, resting,
    # check_at, its pose when the loop read it after the last step, else None, until), and
    # the die read after it: (the step it is read after, its velocity then). Before step
    # `until` (0 or check_at) it may go on past a step whose reading the loop would only
    # keep, the die's being brisk: finite, not slow by the settle speeds, not below its floor
    # descending (the loop passes 0 for a die that is still, may be confined or is recorded).
    advance_one: Callable[[int, Floats, Floats, float, float, int, bool, int, RawPose | None,
                           int], tuple[int, Velocity]] | None


class Rest(NamedTuple):
    """A run at rest: the steps it took, the frames when recorded, and how many dice came
    to rest by the confinement rule rather than the hold."""

    steps: int
    frames: list[Frame]
    confined: int


def _not_settled(run: Run, dice: list[int]) -> NotSettledError:
    return NotSettledError(f"dice {', '.join(run.names[i] for i in dice)} did not come to rest "
                           f"within {run.settings.max_time:.1f} s of simulated time")


def _non_finite(run: Run, i: int, step: int, lin: Floats, ang: Floats) -> NonFiniteError:
    return NonFiniteError(f"die {run.names[i]} turned non-finite at step {step}: "
                          f"velocity {lin[:3]}, spin {ang}")


def watch_of(run: Run) -> Watch:
    """The loop's watch over a run about to start: every die live, its velocity read. Its
    checks are on the grid of every-th steps; a coast ends at a check (its limit), so every
    check reads the state it would with every step watched, and coasting or not confines a
    die at the same step."""
    s = run.settings
    _hold, max_steps, _lin2, _ang2, _m2, _cos, every = rest_rule(s)
    w = Watch(len(run.names), s, run.confines, every if run.confines else max_steps + 1)
    for i in w.live:
        lin, ang = read = run.velocity[i]()
        w.vels.append(read)
        w.v2s[i] = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
        w.w2s[i] = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
    w.fastest2 = max([0.0, *w.v2s])
    return w




def _watched(live: list[int], static: set[int] | frozenset[int], still: list[int],
             hold: int) -> list[int]:
    """The live dice the loop reads. A run's static dice (BulletRun.static: frozen resting
    dice, velocity zero and pose fixed until the run thaws one, takes it out and restarts
    its watch) are watched for their hold only: one that held it finds the same at each
    later look (still, not poised, not confined past its hold; its cage's count is reset on
    a thaw), so it is passed over (tests/test_settle_reach.py checks it against watching
    every die)."""
    return [i for i in live if i not in static or still[i] < hold]


def _confined(run: Run, i: int, cage: Cage, w2: float, holding: bool, check: bool,
              restarts: list[int]) -> bool:
    """The confinement rule for die i after a step (squared spin w2; `holding`: not yet at
    rest by the hold; `check`: a step of the rule's checks): confined, at rest whatever the
    hold says, while it stays in its cage (its pose read between checks only for a die that
    may need it; between checks a cage that has not held its count confines nothing, and the
    loop does not ask). A die poised at the check that would confine it restarts its cage (up
    to MAX_POISED restarts with the hold's)."""
    if (check and cage.check(w2, run.pose[i]) is not None and holding
            and restarts[i] < MAX_POISED and run.poised(i)):  # (a die at rest by the hold
        restarts[i] += 1  # needs no second look)
        cage.kept = 0
    return (cage.kept > CONFINE_CHECKS and holding and w2 < cage.spin2
            and (check or cage.holds(run.pose[i]())))


def _lone_steps(one: Callable[..., tuple[int, Velocity]], step: int, w: Watch,
                record: bool) -> tuple[int, Velocity]:
    """The engine's advance_one from the lone die's last reading: up to the next check it
    may take the steps after which the loop would only keep the reading of a brisk die
    (none while the die is still, may be confined or is recorded: `until` 0)."""
    lin, ang = w.vels[0]
    free = not (w.still[0] or record or w.cages and w.cages[0].kept > CONFINE_CHECKS)
    return one(step + 1, lin, ang, w.v2s[0], w.w2s[0], w.still[0], w.resting, w.check_at,
               w.poses[0], w.check_at if free else 0)


def settle(run: Run, record: bool) -> Rest:
    """Step the run's dice until each rests by the settle rule: the steps, the frames when
    recorded (60 Hz: the moving dice; at 0 and at rest: every die on the table)."""
    s = run.settings
    hold, max_steps, lin2, ang2, jitter_m2, jitter_cos, every = rest_rule(s)
    n = len(run.names)
    confines, w = run.confines, watch_of(run)
    live, still, cages, vels, v2s, w2s, poses = w.live, w.still, w.cages, w.vels, w.v2s, w.w2s, w.poses
    static: set[int] | frozenset[int] = getattr(run, "static", frozenset())
    watched, n_static, n_live = live, -1, -1
    velocity, pose, floors = run.velocity, run.pose, run.floors
    dt, inf = s.time_step, math.inf
    anchors: list[Any] = [None] * n
    restarts = [0] * n
    frame_every = max(1, round(1.0 / (s.frame_rate * s.time_step)))
    frames = [run.frame(0.0, live)] if record else []
    advance, left_table, poised = run.advance, run.left_table, run.poised
    one = run.advance_one if n == 1 else None
    step, check_at = 0, w.check_at
    while step < max_steps:
        if one is not None:  # (a lone die's steps, its velocity read after them: `fresh`)
            step, fresh = _lone_steps(one, step, w, record)
        else:
            step, fresh = advance(step + 1, w), None
        settled, resting, fastest2, fallen = True, False, 0.0, None
        if check := step >= check_at:  # on the grid of every-th steps, where a coast ends
            w.check_at = check_at = step - step % every + every
        if static and step > hold:
            if len(static) != n_static or len(live) != n_live:  # (both only shrink)
                watched, n_static, n_live = _watched(live, static, still, hold), len(static), len(live)
        else:
            watched = live
        for i in watched:
            lin, ang = vels[i] = fresh or velocity[i]()
            p = None  # die i's pose after this step, read once at most (advance's too)
            # Only a descending die can have left the table (a fall never turns upward)
            if lin[2] < -0.01 and (p := pose[i]())[0][2] < floors[i] and left_table(i, step):
                fallen = [*(fallen or ()), i]
                continue
            v2 = v2s[i] = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            w2 = w2s[i] = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
            if not v2 + w2 < inf:  # NaN or infinity (NaN fails every comparison)
                raise _non_finite(run, i, step, lin, ang)
            if v2 > fastest2:
                fastest2 = v2
            held = still[i]  # steps of stillness before this one
            confined = confines and (check or cages[i].kept > CONFINE_CHECKS) \
                and _confined(run, i, cages[i], w2, held < hold, check, restarts)
            if v2 < lin2 and w2 < ang2:
                if held == 0:
                    anchors[i] = p = p or pose[i]()
            elif not (held and jitter(p := p or pose[i](), anchors[i], jitter_m2, jitter_cos)):
                poses[i] = p
                if held >= hold and confines:
                    cages[i].kept = 0  # knocked out of its rest: a new cage, watched afresh
                still[i] = 0
                settled = settled and confined
                continue
            poses[i] = p
            held += 1  # still, or a solver twitch of a die that stays put: still at rest
            resting = True
            if held < hold:
                settled = settled and confined
            elif held == hold and restarts[i] < MAX_POISED and poised(i):
                restarts[i] += 1
                held = 0  # paused on an edge or a point: it has not come to rest
                settled = settled and confined
            still[i] = held
        resting = resting or watched is not live and len(watched) < len(live)  # (static: still)
        if fallen:
            live[:] = [i for i in live if i not in fallen]
        w.fastest2, w.resting = fastest2, resting
        if record and step % frame_every == 0:
            frames.append(run.frame(step * dt, [i for i in live if still[i] == 0]))
        if settled:
            frames += [run.frame(step * dt, live)] if record else []
            return Rest(step, frames, sum(1 for i in live if cages and still[i] < hold
                                          and cages[i].kept > CONFINE_CHECKS))
    raise _not_settled(run, [i for i in live if still[i] < hold])


__all__ = ["Rest", "Run", "Watch", "settle", "watch_of"]
