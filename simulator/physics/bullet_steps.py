"""The PyBullet world's stepping: the settle loops (`run_steps` for any scene, `run_alone`
for one unrecorded die alone), the sub-steps a step needs near a contact, the Stepper that
takes them, and the frozen resting dice a moving die thaws. Part of the PyBullet backend
(simulator/physics/world.py); the settle rule's engine-neutral parts are settle.py's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dice_models.numerics import matmul
from simulator.physics._bullet import fast_reads
from simulator.physics.common import MAX_POISED, Frame, NonFiniteError, NotSettledError
from simulator.physics.dice import DieShape
from simulator.physics.settings import CONFINE_CHECKS, PhysicsSettings
from simulator.physics.settle import COAST_MIN, Cage, coast_steps, rest_rule
from simulator.physics.settle import jitter as _jitter

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

    def woken(self, world: World, active: list[_Body], moving: list[int]) -> list[str]:
        """The frozen dice to thaw now (and forget), in a stable order."""
        c = world._client
        hit: list[str] = []
        for i in moving:
            body = active[i]
            if body.removed:
                continue
            lin, ang = c.getBaseVelocity(body.bid)
            reach = (2 * self.dt * (math.sqrt(lin[0] ** 2 + lin[1] ** 2 + lin[2] ** 2)
                                    + math.sqrt(ang[0] ** 2 + ang[1] ** 2 + ang[2] ** 2)
                                    * body.shape.poly.circumradius) + self.MARGIN)
            lo, hi = c.getAABB(body.bid)
            hit += [n for n, box in self.boxes.items()
                    if n not in hit and _overlap((*lo, *hi), box, reach)]
        woken: list[str] = []
        while hit:  # with every frozen die touching one thawed
            name = hit.pop()
            if name in self.boxes:
                box = self.boxes.pop(name)
                woken.append(name)
                hit += [n for n, other in self.boxes.items() if _overlap(box, other, self.TOUCH)]
        return sorted(woken)


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
        self._step = fast_reads(client)[2]
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
                    max_travel: float, tilts: list[float], turns: list[float]) -> int:
    """Sub-steps for the next step so that no die near a contact moves more than max_travel
    toward it in one, nor one touching the table top turns more than its turn bound (turns,
    `turn_bound`) about a horizontal axis (1 for dice in free flight: their path is exact at
    any step).

    Bullet solves a contact only once the bodies are within contact_processing_threshold
    (0.1 mm), so a die meeting the table finds itself about as deep in it as it travelled in
    the step, and the contact's normal, points and push-out depend on that depth: the paper
    d8's fell-off share went 15.4 / 12.8 / 12.3% at dt 1/240 / 1/480 / 1/960 with whole
    steps and agreed at every step with sub-steps of at most max_travel (docs/physics.md)."""
    boxes: dict[int, Aabb] = {}
    split = 1
    for i in far:
        box = boxes[i] = box_of(i)
        reach = reaches[i]
        n = _near_split(box, reach, drops[i], statics, max_travel, tilts[i], turns[i])
        for j in live:
            if j == i:
                continue
            if j not in boxes:
                boxes[j] = box_of(j)
            if _overlap(box, boxes[j], reach + reaches[j]):
                n = max(n, min(MAX_SPLIT, math.ceil(reach / max_travel)))
                break
        split = max(split, n)
    return split


def _overlap(a: Aabb, b: Aabb, gap: float) -> bool:
    """Do the boxes overlap once `a` grows by `gap` on every side? (Plain floats: this runs
    every step for every moving die.)"""
    return (a[0] - gap <= b[3] and b[0] <= a[3] + gap and a[1] - gap <= b[4]
            and b[1] <= a[4] + gap and a[2] - gap <= b[5] and b[2] <= a[5] + gap)


class _Steps:
    """`run_steps`' state for one run: the settle rule's numbers and every die's values in
    parallel lists (the loop is the hot path of every throw: it binds them to locals)."""

    def __init__(self, world: World, record: bool) -> None:
        self.world, self.record = world, record
        self.s = s = world.settings
        (self.hold, self.max_steps, self.lin2, self.ang2, self.jitter_m2, self.jitter_cos,
         self.every) = rest_rule(s)
        self.frame_every = max(1, round(1.0 / (s.frame_rate * s.time_step)))
        self.dt = dt = s.time_step
        self.active = active = [b for b in world._bodies.values() if not b.removed]
        self.bids = bids = [b.bid for b in active]
        self.floors = [-b.shape.poly.circumradius for b in active]
        self.still = [0] * len(active)
        # Pose at the start of each die's still streak. A die resting across the table edge
        # twitched above 0.1 rad/s every 7th step for 20 s while moving 3e-8 m a step: a
        # twitch that leaves the die within jitter of this pose does not break the streak.
        self.anchors: list[Any] = [None] * len(active)
        self.frozen = world._frozen
        self.index = {b.name: i for i, b in enumerate(active)}
        # Bound once, PyBullet's own functions with the client id positional (fast_reads).
        self.get_pose, self.get_vel, _step = get_pose, get_vel, _ = fast_reads(world._client)
        # A step is split while any die moves faster than fast_speed: Bullet's CCD does not
        # act on multibody dice, and a 16 mm d6 dropped at 40 m/s (0.17 m a step) went through.
        self.fast2 = s.fast_speed ** 2
        # ... and while a die near the table, an obstacle or another die could move more than
        # max_travel in it (see _approach_split): its reach in one step, speed plus spin.
        self.radii = radii = [b.shape.base_radius for b in active]
        self.locs = locs = [b.shape.base_points for b in active]
        # the box's slack: the margin, and gravity's gain in a step
        self.slack = slack = s.collision_margin + s.gravity * dt * dt

        # A frozen die is a static body until it is thawed (a new body): its box, read once,
        # is the box of every step (the same pose, the same bits), and a throw among resting
        # dice asked for each of them at every step its die came near one.
        self.fixed: list[Aabb | None] = [None] * len(active)
        fixed, frozen = self.fixed, self.frozen

        def box_of(i: int) -> Aabb:
            box = fixed[i]
            if box is None:
                box = die_box(get_pose(bids[i]), locs[i], radii[i], slack)
                if frozen is not None and active[i].name in frozen.boxes:
                    fixed[i] = box
            return box

        self.box_of = box_of
        self.reaches = [0.0] * len(active)
        self.drops = [0.0] * len(active)  # ... and how far toward the table top (see _approach_split)
        self.tilts = [0.0] * len(active)  # ... and how far it tumbles, rad (see _near_split)
        self.turns = [turn_bound(s, b.shape) for b in active]  # each die's turn bound, rad
        self.vels: list[Any] = [None] * len(active)  # each die's last (velocity, spin)
        self.fastest2 = 0.0
        for i in range(len(active)):
            lin, ang = self.vels[i] = get_vel(bids[i])
            v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            self.fastest2 = max(self.fastest2, v2)
            self.reaches[i] = s.time_step * (math.sqrt(v2) + math.sqrt(
                ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]) * radii[i])
            w_xy = math.sqrt(ang[0] * ang[0] + ang[1] * ang[1])
            self.drops[i] = s.time_step * (max(0.0, -lin[2]) + w_xy * radii[i])
            self.tilts[i] = s.time_step * w_xy
        self.statics = statics = world._static_boxes()
        self.top = max(box[5] for box in statics)  # a lone die above this (by enough) is in the air
        self.spin_ratios = [b.shape.spin_ratio for b in active]
        self.alone = len(active) == 1 and self.frozen is None
        self.restarts = [0] * len(active)
        self.obstacles = len(statics) > 1
        self.need_reach = self.obstacles or not self.alone  # a lone die on a bare table needs only its drop
        # The confinement rule (PhysicsSettings.confine_time): each die's checks in a row within
        # the cage of its pose at the first; a die with more than CONFINE_CHECKS is at rest.
        self.spin2 = s.confine_spin ** 2
        self.cages = [Cage(s) for _ in active]

    def poised(self, i: int) -> bool:
        """Restart die i's hold: poised on an edge or a point (World._poised)? Not for a die
        still frozen (static since before the throw: Bullet gives static bodies no
        contacts, so one leaning on a die would look poised for ever), and not after
        MAX_POISED restarts (a rolling-friction lever arm in custom material data can
        truly hold a die on an edge: it then rests cocked)."""
        if self.frozen is not None and self.active[i].name in self.frozen.boxes:
            return False
        if self.restarts[i] >= MAX_POISED or not self.world._poised(self.active[i]):
            return False
        self.restarts[i] += 1
        return True

    def thaw(self, live: list[int]) -> None:
        """Before a step: thaw the frozen dice a moving die could reach in it."""
        frozen, active, still = self.frozen, self.active, self.still
        assert frozen is not None
        moving = [i for i in live if still[i] == 0 and active[i].name not in frozen.boxes]
        for name in frozen.woken(self.world, active, moving):
            i = self.index[name]
            active[i] = self.world._thaw(name)
            self.bids[i] = active[i].bid
            self.fixed[i] = None  # a moving body now
            still[i] = self.cages[i].kept = 0

    def alone_split(self, i: int, step: int, split: int, retry: int, next_check: int
                    ) -> tuple[int, int, int]:
        """(split, coast, retry) for die i alone, near the table or an obstacle or about to
        tumble: its sub-steps against them, or the steps it may coast in the air."""
        s, coast = self.s, 0
        pose = self.get_pose(self.bids[i])
        box = die_box(pose, self.locs[i], self.radii[i], self.slack)
        n = _near_split(box, self.reaches[i], self.drops[i], self.statics, s.max_travel,
                        self.tilts[i], self.turns[i])
        if n > split:
            split = n
        elif (split == 1 and self.world.coast and not self.record and self.still[i] == 0
              and step >= retry):  # in the air?
            v_lin, v_ang = self.vels[i]
            coast = coast_steps(s, pose[0][2], box[2], v_lin, v_ang, self.radii[i],
                                self.spin_ratios[i], self.top, self.obstacles,
                                min(self.max_steps, next_check) - step + 1, self.slack)
            if not coast:
                retry = min(step + COAST_MIN, next_check + 1)
        return split, coast, retry

    def advance(self, stepper: Stepper, step: int, live: list[int], fastest2: float, retry: int,
                next_check: int) -> tuple[int, int]:
        """Take step `step` (thawing the frozen dice a moving die could reach in it first),
        split into the sub-steps it needs or coasting; (the step the dice are read after,
        retry: the first step to ask coast_steps again after a refusal)."""
        coast, s, reaches, drops, tilts, turns = 0, self.s, self.reaches, self.drops, self.tilts, self.turns
        max_travel = s.max_travel
        if self.frozen is not None and self.frozen.boxes:
            self.thaw(live)
        split = math.ceil(math.sqrt(fastest2) / s.fast_speed) if fastest2 > self.fast2 else 1
        if self.alone:  # one die (recorded, or the reference of run_alone): checked inline
            if live and (drops[live[0]] > max_travel or tilts[live[0]] > turns[live[0]]
                         or self.obstacles and reaches[live[0]] > max_travel):
                split, coast, retry = self.alone_split(live[0], step, split, retry, next_check)
        else:
            far = [i for i in live if reaches[i] > max_travel or tilts[i] > turns[i]]
            if far:
                split = max(split, _approach_split(self.box_of, far, live, reaches, drops,
                                                   self.statics, max_travel, tilts, turns))
        if coast:
            stepper(1, coast)  # steps whose readings coast_steps has shown would change nothing
            return step + coast - 1, retry  # ... and the last one is read as any other
        stepper(split)
        return step, retry

    def frame(self, step: int, which: list[int]) -> Frame:
        return self.world._frame(step * self.s.time_step, [self.active[i] for i in which])

    def confined(self, live: list[int]) -> int:
        """The dice at rest by the confinement rule, not the hold."""
        return sum(1 for i in live if self.cages[i].kept > CONFINE_CHECKS and self.still[i] < self.hold)


def run_steps(world: World, record: bool, stepper: Stepper) -> tuple[int, bool, list[Frame]]:
    """Step the world's dice until each rests by the settle rule (the hold, the poised restart,
    the confinement rule): (steps, True, the frames when recorded); NotSettledError."""
    r = _Steps(world, record)
    s, hold, max_steps, dt, lin2, ang2 = r.s, r.hold, r.max_steps, r.dt, r.lin2, r.ang2
    jitter_m2, jitter_cos, spin2, every = r.jitter_m2, r.jitter_cos, r.spin2, r.every
    active, bids, floors, still, anchors, cages = r.active, r.bids, r.floors, r.still, r.anchors, r.cages
    radii, reaches, drops, tilts, vels, fastest2 = r.radii, r.reaches, r.drops, r.tilts, r.vels, r.fastest2
    get_pose, get_vel, poised, need_reach = r.get_pose, r.get_vel, r.poised, r.need_reach
    isfinite, sqrt = math.isfinite, math.sqrt
    live = list(range(len(active)))
    frames = [r.frame(0, live)] if record else []
    next_check = every
    step = retry = 0  # retry: the first step to ask coast_steps again after a refusal
    while step < max_steps:
        step, retry = r.advance(stepper, step + 1, live, fastest2, retry, next_check)
        settled = True
        fallen = None
        fastest2 = 0.0
        check = step >= next_check
        if check:  # on the grid of every-th steps; a coast ends at a check (its limit), so
            # every check reads the state it would with every step watched, and coasting
            # or not confines a die at the same step (tests/test_stuck_dice.py)
            next_check = step - step % every + every
        for i in live:
            lin, ang = vels[i] = get_vel(bids[i])
            # Only a descending die can have dropped below the table: ask for its position
            # then alone (a fall off the edge never turns upward; there is no floor).
            if (lin[2] < -0.01 and get_pose(bids[i])[0][2] < floors[i]
                    and world._fall_off(active[i], step)):
                fallen = i
                continue
            v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
            if v2 > fastest2:
                fastest2 = v2
            if need_reach:
                reaches[i] = dt * (sqrt(v2) + sqrt(w2) * radii[i])
            fall = -lin[2] if lin[2] < 0.0 else 0.0
            w_xy = sqrt(ang[0] * ang[0] + ang[1] * ang[1])
            drops[i] = dt * (fall + w_xy * radii[i])
            tilts[i] = dt * w_xy
            cage = cages[i]
            # (a die at rest by the hold needs no second look)
            if (check and cage.check(w2, get_pose, bids[i]) is not None and still[i] < hold
                    and poised(i)):
                cage.kept = 0
            # Confined: at rest whatever the hold says, while it stays in its cage (read
            # between checks only for a die that may need it; NaN fails the comparison).
            confined = (cage.kept > CONFINE_CHECKS and still[i] < hold and w2 < spin2
                        and (check or cage.holds(get_pose(bids[i]))))
            if v2 < lin2 and w2 < ang2:
                if still[i] == 0:
                    anchors[i] = get_pose(bids[i])
            elif not (isfinite(v2) and isfinite(w2)):  # (NaN fails every comparison above)
                raise NonFiniteError(f"die {active[i].name} turned non-finite at step {step}: "
                                     f"velocity {lin}, spin {ang}")
            elif not (still[i] and _jitter(get_pose(bids[i]), anchors[i], jitter_m2, jitter_cos)):
                if still[i] >= hold:
                    cage.kept = 0  # knocked out of its rest: a new cage, watched for confine_time
                still[i] = 0
                settled = settled and confined
                continue
            still[i] += 1  # still, or a solver twitch of a die that stays put: still at rest
            if still[i] < hold:
                settled = settled and confined
            elif still[i] == hold and poised(i):
                still[i] = 0  # paused on an edge or a point: it has not come to rest
                settled = settled and confined
        if fallen is not None:
            live = [i for i in live if not active[i].removed]
        if record and step % r.frame_every == 0:
            frames.append(r.frame(step, [i for i in live if still[i] == 0]))
        if settled:
            frames += [r.frame(step, live)] if record else []
            world.confined += r.confined(live)
            return step, True, frames
    restless = [active[i].name for i in live if still[i] < hold]
    raise NotSettledError(f"dice {', '.join(restless)} did not come to rest within "
                          f"{s.max_time:.1f} s of simulated time")


def _lone(world: World, body: _Body) -> tuple[Any, ...]:
    """What run_alone reads of a die and the table: (body id, floor, farthest reach, the
    points of die_box, spin ratio, turn bound, the box slack, static boxes, top, obstacles)."""
    s, shape = world.settings, body.shape
    statics = world._static_boxes()
    return (body.bid, -shape.poly.circumradius, shape.base_radius, shape.base_points,
            shape.spin_ratio, turn_bound(s, shape),
            s.collision_margin + s.gravity * s.time_step * s.time_step,
            statics, max(box[5] for box in statics), len(statics) > 1)


def _motion(lin: Any, ang: Any, radius: float, dt: float) -> tuple[float, float, float, float]:
    """A die's squared speed, and how far it can reach, drop and tumble in a step (as the
    loops reckon them after each step)."""
    v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
    w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
    w_xy = math.sqrt(ang[0] * ang[0] + ang[1] * ang[1])
    return (v2, dt * (math.sqrt(v2) + math.sqrt(w2) * radius),
            dt * (max(0.0, -lin[2]) + w_xy * radius), dt * w_xy)


def _lone_check(world: World, body: _Body, cage: Cage, w2: float, get_pose: Any,
                restarts: int) -> tuple[bool, int]:
    """A confinement check of the lone die: (confined now, restarts of its hold)."""
    if cage.check(w2, get_pose, body.bid) is None:
        return False, restarts
    if restarts < MAX_POISED and world._poised(body):
        cage.kept = 0
        return False, restarts + 1
    return True, restarts


def run_alone(world: World, body: _Body, stepper: Stepper) -> tuple[int, bool, list[Frame]]:
    """`run_steps` for one die alone in the world, unrecorded (the lab's and the bench's
    throw): the same rule in the same order (tested bit for bit against it, `lone_loop =
    False`) with plain locals, as the general loop's per-die lists cost a tenth of a throw."""
    s = world.settings
    hold, max_steps, lin2, ang2, jitter_m2, jitter_cos, every = rest_rule(s)
    fast2, fast, dt, max_travel = s.fast_speed ** 2, s.fast_speed, s.time_step, s.max_travel
    bid, floor, radius, local, ratio, max_turn, slack, statics, top, obstacles = _lone(world, body)
    get_pose, get_vel, _step = fast_reads(world._client)
    inf, sqrt, ceil, coasting = math.inf, math.sqrt, math.ceil, world.coast
    lin, ang = get_vel(bid)
    fastest2, reach, drop, tilt = _motion(lin, ang, radius, dt)
    anchor: Any = None
    pose: Any = None
    cage, next_check = Cage(s), every  # the confinement rule (settings)
    step = retry = still = restarts = 0  # retry: as in run_steps
    while step < max_steps:
        step += 1
        coast = 0
        split = ceil(sqrt(fastest2) / fast) if fastest2 > fast2 else 1
        if drop > max_travel or tilt > max_turn or obstacles and reach > max_travel:
            pose = pose or get_pose(bid)
            box = die_box(pose, local, radius, slack)
            n = _near_split(box, reach, drop, statics, max_travel, tilt, max_turn)
            if n > split:
                split = n
            elif split == 1 and coasting and still == 0 and step >= retry:
                coast = coast_steps(s, pose[0][2], box[2], lin, ang, radius, ratio, top,
                                    obstacles, min(max_steps, next_check) - step + 1, slack)
                if not coast:
                    retry = min(step + COAST_MIN, next_check + 1)
        if coast:
            stepper(1, coast)
            step += coast - 1
        else:
            stepper(split)
        lin, ang = get_vel(bid)
        pose = None  # the pose after this step, read once at most (the next step's split too)
        if lin[2] < -0.01:
            pose = get_pose(bid)
            if pose[0][2] < floor and world._fall_off(body, step):
                return step, True, []
        v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
        w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
        fastest2 = v2
        if obstacles:
            reach = dt * (sqrt(v2) + sqrt(w2) * radius)
        fall = -lin[2] if lin[2] < 0.0 else 0.0
        w_xy = sqrt(ang[0] * ang[0] + ang[1] * ang[1])
        drop, tilt = dt * (fall + w_xy * radius), dt * w_xy
        caged = False  # confined at this step's check: at rest after the hold's look
        if step >= next_check:  # on the grid, as in run_steps
            next_check = step - step % every + every
            caged, restarts = _lone_check(world, body, cage, w2, get_pose, restarts)
        if v2 < lin2 and w2 < ang2:
            if still == 0:
                anchor = pose = pose or get_pose(bid)
        elif not v2 + w2 < inf:  # NaN or infinity (NaN fails every comparison)
            raise NonFiniteError(f"die {body.name} turned non-finite at step {step}: "
                                 f"velocity {lin}, spin {ang}")
        elif not (still and _jitter(pose := pose or get_pose(bid), anchor, jitter_m2,
                                    jitter_cos)):
            still = 0
            if caged:
                world.confined += 1
                return step, True, []
            continue
        still += 1
        if still == hold:  # at rest by the hold (a die confined at this step too counts so,
            # as in run_steps; being confined, it is not poised)
            if not caged and restarts < MAX_POISED and world._poised(body):
                restarts += 1
                still = 0
                continue
            return step, True, []
        if caged:
            world.confined += 1
            return step, True, []
    raise NotSettledError(f"dice {body.name} did not come to rest within "
                          f"{s.max_time:.1f} s of simulated time")
