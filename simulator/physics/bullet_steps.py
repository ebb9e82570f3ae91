"""The PyBullet world's stepping: its part of the settle loop (`BulletRun`, the
`simulator.physics.stepping.Run` contract), the sub-steps a step needs near a contact, the
Stepper that takes them, and the frozen resting dice a moving die thaws. Part of the
PyBullet backend (simulator/physics/world.py); the loop and the settle rule are
engine-neutral (stepping.py, settle.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from dice_models.numerics import matmul
from simulator.physics._bullet import fast_reads, pybullet
from simulator.physics.common import Frame
from simulator.physics.dice import DieShape
from simulator.physics.settings import CONFINE_CHECKS, PhysicsSettings
from simulator.physics.settle import COAST_MIN, coast_steps, rest_rule
from simulator.physics.stepping import Floats, RawPose, Velocity, Watch

if TYPE_CHECKING:
    from simulator.physics.common import PlacedDie
    from simulator.physics.world import World, _Body


class _Frozen:
    """The resting dice of a throw, kept as static bodies until a moving die comes near.

    A resting die costs the solver about 45 us a step (its contacts with the table, at 50
    iterations) while it does nothing; nine of them made a throw 20 times dearer than onto
    an empty table. Bullet's own sleeping needs 2 s of stillness before it acts, longer than
    a throw. So before each step, every moving die's bounding box, grown by twice what it can
    move and turn in a step plus `MARGIN`, is checked against the frozen dice's boxes; a die
    it reaches is thawed (made a moving body again, at its resting pose) with every frozen die
    that touches it, since a die leaning on another must not be left hanging."""

    MARGIN = 0.002  # m
    TOUCH = 0.001  # m: frozen dice whose boxes come this close are thawed together

    def __init__(self, world: World, scene: dict[str, PlacedDie]) -> None:
        c = world._client
        self.boxes: dict[str, Aabb] = {}
        for name in scene:
            lo, hi = c.getAABB(world._bodies[name].bid)
            self.boxes[name] = (*lo, *hi)
        self.dt = world.settings.time_step
        self.union = _union(list(self.boxes.values()))

    def woken(self, world: World, active: list[_Body], moving: list[int],
              v2s: list[float] | None = None, w2s: list[float] | None = None) -> list[str]:
        """The frozen dice to thaw now (and forget), in a stable order.

        With the squared speeds and spins the loop read after the last step (`v2s`, `w2s`,
        the velocities this reads again), a die whose box, grown by a little more than its
        reach, misses the box around every frozen die (`union`) is passed over unread: it
        misses each of them by at least as much, so it wakes none (the same dice wake at the
        same steps; tests/test_settle_reach.py checks it against reading every die)."""
        c = world._client
        hit: list[str] = []
        union, dt2 = self.union, 2 * self.dt
        for i in moving:
            body = active[i]
            if body.removed:
                continue
            lo, hi = c.getAABB(body.bid)
            box = (*lo, *hi)
            if v2s is not None and w2s is not None and union is not None:
                # above the reach below by float rounding at most (** 2 against x * x)
                bound = (dt2 * (math.sqrt(v2s[i]) + math.sqrt(w2s[i]) * body.shape.poly.circumradius)
                         + self.MARGIN) * (1.0 + 1e-9) + 1e-12
                if not _overlap(box, union, bound):
                    continue
            lin, ang = c.getBaseVelocity(body.bid)
            reach = (2 * self.dt * (math.sqrt(lin[0] ** 2 + lin[1] ** 2 + lin[2] ** 2)
                                    + math.sqrt(ang[0] ** 2 + ang[1] ** 2 + ang[2] ** 2)
                                    * body.shape.poly.circumradius) + self.MARGIN)
            hit += [n for n, other in self.boxes.items()
                    if n not in hit and _overlap(box, other, reach)]
        woken: list[str] = []
        while hit:  # with every frozen die touching one thawed
            name = hit.pop()
            if name in self.boxes:
                box = self.boxes.pop(name)
                woken.append(name)
                hit += [n for n, other in self.boxes.items() if _overlap(box, other, self.TOUCH)]
        if woken:
            self.union = _union(list(self.boxes.values()))
        return sorted(woken)


def _union(boxes: list[Aabb]) -> Aabb | None:
    """The box around these boxes (None for none)."""
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), min(b[2] for b in boxes),
            max(b[3] for b in boxes), max(b[4] for b in boxes), max(b[5] for b in boxes))


Aabb = tuple[float, float, float, float, float, float]  # x, y, z low then x, y, z high


MAX_SPLIT = 64  # at most this many sub-steps in one step


class Stepper:
    """Steps one Bullet world by time_step, taken as `split` sub-steps when asked, with the
    contact ERP of the sub-step (contact_recovery_time is a time, not a share per step).

    The engine's step length and ERP are changed only when the split changes, not set and
    restored around every split step: one setPhysicsEngineParameter costs as much as a step
    of a falling die (3.5-5 us against 4.6 us), and a throw takes about 40 split steps in a
    row as its die rolls. Every stepSimulation still runs with the parameters of its own
    (sub-)step, so the results are the same bit for bit. `reset` puts the engine back to
    whole steps; call it before anything else steps or configures the world."""

    def __init__(self, client: Any, s: PhysicsSettings) -> None:
        self._set = client.setPhysicsEngineParameter
        self._step = self.one = fast_reads(client)[2]  # one stepSimulation, at the length set
        self._dt, self._s = s.time_step, s
        self.split = 1

    def __call__(self, split: int, steps: int = 1) -> None:
        """`steps` steps, each of `split` sub-steps."""
        if split != self.split:
            sub = self._dt / split
            self._set(fixedTimeStep=sub, contactERP=self._s.contact_erp(sub))
            self.split = split
        step = self._step
        for _ in range(split * steps):
            step()

    def reset(self) -> None:
        if self.split != 1:
            self._set(fixedTimeStep=self._dt, contactERP=self._s.contact_erp())
            self.split = 1


# PhysicsSettings.max_turn_deg was measured converged on the shipped dice, whose resting faces
# are at least the icosahedron's 41.8 deg apart. A die whose resting faces are closer (a prism
# of many sides, a coin's rim) turns at most max_turn x (its rest_turn / this)^2 a sub-step:
# docs/physics.md, "Many-sided dice".
ICOSAHEDRON_TURN = math.acos(math.sqrt(5.0) / 3.0)  # rad, 41.81 deg


def turn_bound(settings: PhysicsSettings, shape: DieShape) -> float:
    """The most a die touching the table top may turn about a horizontal axis in a sub-step
    (rad): settings.max_turn, less for a die whose resting faces lie closer together than
    the icosahedron's. Bullet meets the next face's edge one contact point a step (GJK) and
    only once it is the deepest point, so each new edge is found already in the table,
    about its approach in a step deep; pushing it out gives the die energy. Over big faces
    that is a small share of what each roll-over loses, but a 24-sided prism (15 deg
    apart) rolled at 0.1 m/s gained more than it lost and rolled for good at 1 deg; at the
    bound this gives it (0.129 deg) it rolls as far as at 0.046 deg (docs/physics.md)."""
    a = shape.rest_turn
    if a >= ICOSAHEDRON_TURN - 1e-9:
        return settings.max_turn
    return settings.max_turn * (a / ICOSAHEDRON_TURN) ** 2


def _near_split(box: Aabb, reach: float, drop: float, statics: list[Aabb], max_travel: float,
                tilt: float = 0.0, max_turn: float = math.inf) -> int:
    """Sub-steps one die needs against the table (statics[0]) and the obstacles: against the
    table top only its downward travel counts (`drop`: falling speed plus tumbling, not the
    slide or the spin about the vertical, which cannot take it into the top); against an
    obstacle its whole `reach`. While it touches the table top (its lowest point within the
    die_box slack), also no more than `max_turn` radians of tumbling a sub-step (`tilt`: the
    turn about a horizontal axis in a whole step; see PhysicsSettings.max_turn_deg). 0 when
    it is near nothing."""
    n = 0
    t = statics[0]
    if box[0] <= t[3] and t[0] <= box[3] and box[1] <= t[4] and t[1] <= box[4]:
        if drop > max_travel and box[2] - drop <= t[5]:
            n = math.ceil(drop / max_travel)
        if tilt > max_turn and box[2] <= t[5]:
            n = max(n, math.ceil(tilt / max_turn))
    for other in statics[1:]:
        if _overlap(box, other, reach):
            n = max(n, math.ceil(reach / max_travel))
            break
    return min(n, MAX_SPLIT)


def die_box(pose: Any, local: Any, radius: float, slack: float) -> Aabb:
    """A box around a die from its Bullet base pose (position, quaternion): from its true
    lowest point less `slack` up, and `radius` (its hull's farthest point from the centre of
    mass, DieShape.base_radius) every other way from the centre of mass.

    Not Bullet's AABB: for a hull that is the box around the hull's local box turned with
    the die, which reached 27-37 mm below a paper d8 and 54-73 mm below a tampered one, so
    a falling die was sub-stepped through its last 3-7 cm of free flight."""
    (x, y, z), (qx, qy, qz, qw) = pose
    row = (2.0 * (qx * qz - qw * qy), 2.0 * (qy * qz + qw * qx), 1.0 - 2.0 * (qx * qx + qy * qy))
    if isinstance(local, list):  # DieShape.base_points
        r0, r1, r2 = row
        low = z + min([a * r0 + b * r1 + c * r2 for a, b, c in local]) - slack
    else:
        low = z + float(matmul(local, row).min()) - slack
    return (x - radius, y - radius, low, x + radius, y + radius, z + radius)



def _approach_split(box_of: Callable[[int], Aabb], far: list[int], live: list[int],
                    reaches: list[float], drops: list[float], statics: list[Aabb],
                    max_travel: float, tilts: list[float], turns: list[float],
                    fixed: list[Aabb | None] | None = None) -> int:
    """Sub-steps for the next step so that no die near a contact moves more than max_travel
    toward it in one, nor one touching the table top turns more than its turn bound (turns,
    `turn_bound`) about a horizontal axis (1 for dice in free flight: their path is exact at
    any step).

    Bullet solves a contact only once the bodies are within contact_processing_threshold
    (0.1 mm), so a die meeting the table finds itself about as deep in it as it travelled in
    the step, and the contact's normal, points and push-out depend on that depth: the paper
    d8's fell-off share went 15.4 / 12.8 / 12.3% at dt 1/240 / 1/480 / 1/960 with whole
    steps and agreed at every step with sub-steps of at most max_travel (docs/physics.md).

    `fixed`: the boxes box_of keeps (a frozen die's), read here without calling it."""
    boxes: dict[int, Aabb] = {}
    split = 1
    for i in far:
        box = boxes[i] = box_of(i)
        reach = reaches[i]
        n = _near_split(box, reach, drops[i], statics, max_travel, tilts[i], turns[i])
        for j in live:
            if j == i:
                continue
            other = fixed[j] if fixed is not None else None
            if other is None:
                other = boxes.get(j)
                if other is None:
                    other = boxes[j] = box_of(j)
            if _overlap(box, other, reach + reaches[j]):
                n = max(n, min(MAX_SPLIT, math.ceil(reach / max_travel)))
                break
        split = max(split, n)
    return split


def _overlap(a: Aabb, b: Aabb, gap: float) -> bool:
    """Do the boxes overlap once `a` grows by `gap` on every side? (Plain floats: this runs
    every step for every moving die.)"""
    return (a[0] - gap <= b[3] and b[0] <= a[3] + gap and a[1] - gap <= b[4]
            and b[1] <= a[4] + gap and a[2] - gap <= b[5] and b[2] <= a[5] + gap)


class BulletRun:
    """The PyBullet world's part of a settle run (`simulator.physics.stepping.Run`): its
    dice's readers (PyBullet's own functions bound to each body and the client), the
    fall off the table, the poised test and frames through the world, and each step's
    sub-steps, coasting and thawing of frozen dice decided from the loop's `Watch`."""

    confines = True

    def __init__(self, world: World, record: bool, stepper: Stepper) -> None:
        self.world, self.record, self.stepper = world, record, stepper
        self.settings = s = world.settings
        self.dt = dt = s.time_step
        self.active = active = [b for b in world._bodies.values() if not b.removed]
        self.names = [b.name for b in active]
        self.floors = [-b.shape.poly.circumradius for b in active]
        self.frozen = frozen = world._frozen
        # the frozen dice (static bodies: velocity zero, pose fixed) until thawed (stepping.settle)
        self.static = ({i for i, b in enumerate(active) if b.name in frozen.boxes}
                       if frozen is not None else set())
        self.cid = cid = world._client._client
        self.velocity: list[Callable[[], Velocity]] = [
            partial(pybullet.getBaseVelocity, b.bid, cid) for b in active]
        self.pose: list[Callable[[], RawPose]] = [
            partial(pybullet.getBasePositionAndOrientation, b.bid, cid) for b in active]
        self.max_steps = rest_rule(s).max_steps
        # the box's slack: the margin, and gravity's gain in a step
        self.slack = s.collision_margin + s.gravity * dt * dt
        self.statics = statics = world._static_boxes()
        self.top = max(box[5] for box in statics)  # a lone die above this (by enough) is in the air
        self.obstacles = len(statics) > 1
        self.advance_one: Callable[..., tuple[int, Velocity]] | None = None
        if len(active) == 1 and self.frozen is None:  # a die alone: the loop steps it by this
            self.advance_one = _lone_advance(self)
        else:
            self._several()

    def _several(self) -> None:
        """What `advance` keeps for several dice (or one among frozen ones)."""
        s, active, slack, frozen, pose = self.settings, self.active, self.slack, self.frozen, self.pose
        self.index = {b.name: i for i, b in enumerate(active)}
        # A step is split while any die moves faster than fast_speed: Bullet's CCD does not
        # act on multibody dice, and a 16 mm d6 dropped at 40 m/s (0.17 m a step) went through.
        self.fast2 = s.fast_speed ** 2
        # ... and while a die near the table, an obstacle or another die could move more than
        # max_travel in it (see _approach_split): its reach in one step, speed plus spin.
        self.radii = radii = [b.shape.base_radius for b in active]
        locs = [b.shape.base_points for b in active]
        # A frozen die is a static body until it is thawed (a new body): its box, read once,
        # is the box of every step (the same pose, the same bits), and a throw among resting
        # dice asked for each of them at every step its die came near one.
        self.fixed: list[Aabb | None] = [None] * len(active)
        fixed = self.fixed

        def box_of(i: int) -> Aabb:
            box = fixed[i]
            if box is None:
                box = die_box(pose[i](), locs[i], radii[i], slack)
                if frozen is not None and active[i].name in frozen.boxes:
                    fixed[i] = box
            return box

        self.box_of = box_of
        n = len(active)
        self.reaches, self.drops, self.tilts = [0.0] * n, [0.0] * n, [0.0] * n  # see _approach_split
        self.turns = [turn_bound(s, b.shape) for b in active]  # each die's turn bound, rad
        # One die in flight among frozen dice may coast (_coast; World.coast False: the
        # reference, every step watched); `retry`: the first step to ask coast_steps again.
        self.coasting = self.world.coast and not self.record and frozen is not None
        self.hold, self.retry = rest_rule(s).hold, 0

    # -- the loop's questions -----------------------------------------------------------

    def left_table(self, i: int, step: int) -> bool:
        return self.world._fall_off(self.active[i], step)

    def poised(self, i: int) -> bool:
        """World._poised, but not for a die still frozen (static since before the throw:
        Bullet gives static bodies no contacts, so one leaning on a die would look poised
        for ever)."""
        if self.frozen is not None and self.active[i].name in self.frozen.boxes:
            return False
        return self.world._poised(self.active[i])

    def frame(self, t: float, which: list[int]) -> Frame:
        return self.world._frame(t, [self.active[i] for i in which])

    # -- stepping -----------------------------------------------------------------------

    def thaw(self, w: Watch) -> None:
        """Before a step: thaw the frozen dice a moving die could reach in it."""
        frozen, active, still = self.frozen, self.active, w.still
        assert frozen is not None
        moving = [i for i in w.live if still[i] == 0 and active[i].name not in frozen.boxes]
        for name in frozen.woken(self.world, active, moving, w.v2s, w.w2s):
            i = self.index[name]
            body = active[i] = self.world._thaw(name)
            self.velocity[i] = partial(pybullet.getBaseVelocity, body.bid, self.cid)
            self.pose[i] = partial(pybullet.getBasePositionAndOrientation, body.bid, self.cid)
            self.fixed[i] = None  # a moving body now
            self.static.discard(i)
            w.restart(i)

    def advance(self, step: int, w: Watch) -> int:
        """Take step `step` (thawing the frozen dice a moving die could reach in it first),
        split into the sub-steps it needs; the step the dice are read after. (A die alone
        is stepped by advance_one, which may coast.)"""
        live, vels, v2s, w2s = w.live, w.vels, w.v2s, w.w2s
        s, reaches, drops, tilts, turns, radii = (self.settings, self.reaches, self.drops,
                                                  self.tilts, self.turns, self.radii)
        dt, sqrt = self.dt, math.sqrt
        for i in live:  # how far each die can reach, drop and tumble in the step
            if v2s[i] == 0.0 and w2s[i] == 0.0 and not vels[i][0][2] < 0.0:
                # a frozen (static) die: the 0.0s the lines below give (its squares are 0.0
                # and it does not descend)
                reaches[i] = drops[i] = tilts[i] = 0.0
                continue
            lin, ang = vels[i]
            reaches[i] = dt * (sqrt(v2s[i]) + sqrt(w2s[i]) * radii[i])
            fall = -lin[2] if lin[2] < 0.0 else 0.0
            w_xy = sqrt(ang[0] * ang[0] + ang[1] * ang[1])
            drops[i] = dt * (fall + w_xy * radii[i])
            tilts[i] = dt * w_xy
        max_travel, fastest2 = s.max_travel, w.fastest2
        if self.frozen is not None and self.frozen.boxes:
            self.thaw(w)
        split = math.ceil(math.sqrt(fastest2) / s.fast_speed) if fastest2 > self.fast2 else 1
        far = [i for i in live if reaches[i] > max_travel or tilts[i] > turns[i]]
        if far:
            split = max(split, _approach_split(self.box_of, far, live, reaches, drops,
                                               self.statics, max_travel, tilts, turns,
                                               self.fixed))
        self.stepper(split)
        if split == 1 and self.coasting and step >= self.retry \
                and len(live) == len(self.static) + 1:
            return self._coast(step, w)
        return step

    def _coast(self, step: int, w: Watch) -> int:
        """After a whole step `step` of one moving die among frozen dice that have all held
        (so the loop reads that die alone), the steps that die can take unread: the step the
        loop reads it after.

        `coast_steps` bounds its flight above the table, the obstacles and every frozen die's
        box (the tops of `box_of`'s boxes, `_approach_split` comparing the whole reach), so
        over those steps no step would be split, no still spell start and it cannot fall;
        after each step its velocity is read as the loop reads it and the coast ends before a
        step at which the loop would see it slow or too fast or non-finite, or the frozen
        dice's wake check (`_Frozen.woken`, passing it over only if its box misses the box
        around them) would look at it: every step is the step of watching it, bit for bit
        (tests/test_settle_reach.py)."""
        still, live, static = w.still, w.live, self.static
        m = next(i for i in live if i not in static)
        if (not static or still[m] or step <= self.hold or w.cages[m].kept > CONFINE_CHECKS
                or any(still[i] < self.hold for i in static)):
            return step
        s, body, frozen = self.settings, self.active[m], self.frozen
        assert frozen is not None and frozen.union is not None
        shape = body.shape
        lin, ang = w.vels[m]  # the reading after step - 1, from which this step was decided
        pose = self.pose[m]()
        top = max(self.top, *(self.box_of(i)[5] for i in static))
        limit = min(self.max_steps, w.check_at) - step + 1
        base = die_box(pose, shape.base_points, shape.base_radius, self.slack)
        coast = coast_steps(s, pose[0][2], base[2], lin, ang, shape.base_radius,
                            shape.spin_ratio, top, True, limit, self.slack)
        if not coast:
            self.retry = min(step + COAST_MIN, w.check_at + 1)
            return step
        velocity, aabb, one = self.velocity[m], partial(pybullet.getAABB, body.bid,
                                                        physicsClientId=self.cid), self.stepper.one
        lin2, ang2, _m2, _cos = rest_rule(s)[2:6]
        union, dt2, circ, fast2 = frozen.union, 2 * self.dt, shape.poly.circumradius, self.fast2
        sqrt, inf, margin = math.sqrt, math.inf, frozen.MARGIN
        for j in range(step + 1, step + coast):
            # the loop's reading after step j - 1, and then advance(j)'s checks
            lin, ang = velocity()
            v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
            if not v2 + w2 < inf or (v2 < lin2 and w2 < ang2) or v2 > fast2:
                return j - 1
            lo, hi = aabb()
            bound = (dt2 * (sqrt(v2) + sqrt(w2) * circ) + margin) * (1.0 + 1e-9) + 1e-12
            if _overlap((*lo, *hi), union, bound):
                return j - 1
            one()
        return step + coast - 1


def _lone_advance(run: BulletRun) -> Callable[[int, Floats, Floats, float, float, int, bool, int,
                                               RawPose | None, int], tuple[int, Velocity]]:
    """`BulletRun.advance` for its one die, with plain locals: its sub-steps near the table
    or an obstacle or about to tumble, or the steps it may coast in the air; and, before
    step `until` (the loop's Run.advance_one), the next step while the die is brisk."""
    world, s = run.world, run.settings
    body = run.active[0]
    shape = body.shape
    fast2, fast, dt, max_travel = s.fast_speed ** 2, s.fast_speed, s.time_step, s.max_travel
    radius, local, ratio, max_turn = (shape.base_radius, shape.base_points, shape.spin_ratio,
                                      turn_bound(s, shape))
    slack, statics, top, obstacles = run.slack, run.statics, run.top, run.obstacles
    read_pose, read_vel, max_steps = run.pose[0], run.velocity[0], run.max_steps
    stepper, one = run.stepper, run.stepper.one
    sqrt, ceil, coasting, inf = math.sqrt, math.ceil, world.coast and not run.record, math.inf
    lin2, ang2, floor = rest_rule(s).lin2, rest_rule(s).ang2, run.floors[0]
    retry = 0  # the first step to ask coast_steps again after a refusal

    def advance_one(step: int, lin: Floats, ang: Floats, v2: float, w2: float, still: int,
                    resting: bool, check_at: int, pose: RawPose | None,
                    until: int) -> tuple[int, Velocity]:
        nonlocal retry
        last = min(until, max_steps)
        while True:
            coast = 0
            split = ceil(sqrt(v2) / fast) if v2 > fast2 else 1
            reach = dt * (sqrt(v2) + sqrt(w2) * radius) if obstacles else 0.0
            fall = -lin[2] if lin[2] < 0.0 else 0.0
            w_xy = sqrt(ang[0] * ang[0] + ang[1] * ang[1])
            drop, tilt = dt * (fall + w_xy * radius), dt * w_xy
            if drop > max_travel or tilt > max_turn or obstacles and reach > max_travel:
                pose = pose or read_pose()
                box = die_box(pose, local, radius, slack)
                n = _near_split(box, reach, drop, statics, max_travel, tilt, max_turn)
                if n > split:
                    split = n
                elif split == 1 and coasting and still == 0 and step >= retry:
                    coast = coast_steps(s, pose[0][2], box[2], lin, ang, radius, ratio, top,
                                        obstacles, min(max_steps, check_at) - step + 1, slack)
                    if not coast:
                        retry = min(step + COAST_MIN, check_at + 1)
            if coast:
                stepper(1, coast)
                step += coast - 1
            elif split == 1 and stepper.split == 1:
                one()  # (what stepper(1) does then, without its call)
            else:
                stepper(split)
            read = read_vel()
            if step >= last:
                return step, read
            # Before `until` the loop would do nothing with a brisk die's reading but keep it
            # (still 0, no check, nothing confined, no frame): finite, not slow, and not below
            # its floor descending. Such a step needs no reading by the loop: the next is taken
            # here from the same reading, as the loop would hand it (bit for bit).
            lin, ang = read
            v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
            if not v2 + w2 < inf or v2 < lin2 and w2 < ang2:
                return step, read
            pose = None
            if lin[2] < -0.01 and (pose := read_pose())[0][2] < floor:
                return step, read
            step += 1

    return advance_one
