"""The reference for speed benchmarks: the leanest correct loop we can write for one throw of
one die onto an empty table, straight against PyBullet, with the same die, table, contact
coefficients, settings and settle rule as `simulator.physics.World`.

Lean means no work the result does not need: the Bullet world, the table and the die's
collision shape are made once; each throw creates the die body, steps, and removes it. In
the air it steps unwatched for as long as `coast_steps` shows nothing can happen (World
does the same: the bounds cost a few microseconds, a watched step about three). Per watched
step it reads only the velocities; the pose, once a step at most (the confinement check
reads its own), only when the die is descending (to see a fall below the table), when it
could reach the table top within the step (to split it), when a still streak starts (the
anchor of the jitter rule), when a still die twitches and at the confinement rule's checks
(every `confine_time / 10`); it reads and steps through PyBullet's functions with the
client id passed positionally (`fast_reads`), not the BulletClient's keyword partials. A
coast ends at the next confinement check, and one refused is asked again only `COAST_MIN`
steps on (`coast_steps`). Steps are split while the die is faster than `fast_speed`, as
World does, since without that a fast die can go through the table, and while the die near
the table could move more than `max_travel` in a step, or the die touching it turn more
than its turn bound (World's `turn_bound`, `_near_split`): that is part of the contact model, not
bookkeeping.
The face is read once, at rest. Benchmarks print our throughput as a ratio of this one's.

It lives in the package (not under benchmarks/) so that `tabletop bench` works from an
installed copy; `benchmarks/bare_pybullet.py` re-exports it for the plain scripts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rules.core.protocols import ThrowSpec
from simulator.physics._bullet import direct_client, fast_reads, pybullet
from simulator.physics.contact import realize
from simulator.physics.dice import DieShape
from simulator.physics.settings import DICE_DAMPING, PhysicsSettings, TableSpec
from simulator.physics.world import (
    COAST_MIN,
    FLAT_DEG,
    MAX_POISED,
    TABLE_THICKNESS,
    Cage,
    Stepper,
    _jitter,
    _near_split,
    coast_steps,
    collision_shape,
    configure_engine,
    die_box,
    symmetry_break,
    turn_bound,
)


class BareLoop:
    def __init__(self, shape: DieShape, table: TableSpec, settings: PhysicsSettings) -> None:
        self.shape, self.table, self.s = shape, table, settings
        self.cos_flat = math.cos(math.radians(FLAT_DEG))
        c = self.c = direct_client()
        s, t = settings, table
        configure_engine(c, s)
        contact = realize([shape.model.contact_material], [t.surface])
        k_t, self.k_die = contact.bodies[t.surface.name], contact.bodies[shape.model.contact_material.name]
        col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[t.width / 2, t.depth / 2,
                                                                      TABLE_THICKNESS / 2])
        tid = c.createMultiBody(0, col, -1, [0, 0, -TABLE_THICKNESS / 2])
        lo, hi = c.getAABB(tid)
        self.table_box = (*lo, *hi)
        c.changeDynamics(tid, -1, lateralFriction=k_t.friction, restitution=k_t.restitution,
                         rollingFriction=k_t.rolling_friction, spinningFriction=k_t.spinning_friction)
        self.die_col = collision_shape(c, shape)
        self.stepper = Stepper(c, settings)

    def throw(self, throw: ThrowSpec) -> tuple[int, int]:
        """(face value up, or -1 if the die fell off; steps to rest)."""
        c, s, sh, k = self.c, self.s, self.shape, self.k_die
        throw, _tilt = symmetry_break(throw, sh)  # a lone die on an empty table
        did = c.createMultiBody(sh.mass.mass, self.die_col, -1, list(throw.release),
                                list(throw.orientation),
                                baseInertialFramePosition=sh.mass.com.tolist(),
                                baseInertialFrameOrientation=list(sh.inertial_quaternion))
        c.changeDynamics(did, -1, localInertiaDiagonal=sh.principal_moments.tolist())
        c.changeDynamics(did, -1, lateralFriction=k.friction, restitution=k.restitution,
                         rollingFriction=k.rolling_friction, spinningFriction=k.spinning_friction,
                         collisionMargin=s.collision_margin, ccdSweptSphereRadius=0.8 * sh.inradius,
                         activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING,
                         linearDamping=DICE_DAMPING, angularDamping=DICE_DAMPING,
                         contactProcessingThreshold=s.contact_processing_threshold)
        c.resetBaseVelocity(did, list(throw.velocity), list(throw.spin))
        try:
            return self._run(did)
        finally:
            self.stepper.reset()
            c.removeBody(did)

    def _constants(self) -> tuple[Any, ...]:
        """What the settle loop reads of the settings, the die and the table, as its locals:
        hold, lin2, ang2, fast2, dt, radius, max_travel, max_turn, local, slack, floor,
        jitter_m2, jitter_cos, max_steps, ratio, top."""
        s, sh = self.s, self.shape
        hold = max(1, math.ceil(s.hold_time / s.time_step - 1e-9))
        lin2, ang2 = s.settle_linear ** 2, s.settle_angular ** 2
        fast2 = s.fast_speed ** 2
        dt, radius, max_travel = s.time_step, sh.base_radius, s.max_travel
        max_turn = turn_bound(s, sh)
        local, slack = sh.base_points, s.collision_margin + s.gravity * dt * dt
        floor = -sh.poly.circumradius
        jitter_m2 = s.jitter_m ** 2
        jitter_cos = math.cos(math.radians(s.jitter_deg) / 2)
        max_steps = math.ceil(s.max_time / s.time_step)
        ratio = sh.spin_ratio
        top = self.table_box[5]
        return (hold, lin2, ang2, fast2, dt, radius, max_travel, max_turn, local, slack, floor,
                jitter_m2, jitter_cos, max_steps, ratio, top)

    def _run(self, did: int) -> tuple[int, int]:
        c, s = self.c, self.s
        (hold, lin2, ang2, fast2, dt, radius, max_travel, max_turn, local, slack, floor,
         jitter_m2, jitter_cos, max_steps, ratio, top) = self._constants()
        still = restarts = 0  # restarts: holds restarted for a poised die (World's MAX_POISED)
        anchor: Any = None
        pose: Any = None
        cage, next_check = Cage(s), s.confine_rule()[0]
        every = next_check
        get_pose, get_vel, _step = fast_reads(c)
        stepper = self.stepper
        statics = [self.table_box]
        lin, ang = get_vel(did)
        v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
        w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
        step = retry = 0
        while step < max_steps:
            step += 1
            split = math.ceil(math.sqrt(v2) / s.fast_speed) if v2 > fast2 else 1
            # near the table top: at most max_travel a sub-step toward it, and touching it at
            # most max_turn of tumbling (World's _near_split)
            w_xy = math.sqrt(ang[0] * ang[0] + ang[1] * ang[1])
            drop, tilt = dt * (max(0.0, -lin[2]) + w_xy * radius), dt * w_xy
            coast = 0
            if drop > max_travel or tilt > max_turn:
                pose = pose or get_pose(did)
                box = die_box(pose, local, radius, slack)
                n = _near_split(box, drop, drop, statics, max_travel, tilt, max_turn)
                if n > split:
                    split = n
                elif split == 1 and still == 0 and step >= retry:  # in the air: World's coast
                    coast = coast_steps(s, pose[0][2], box[2], lin, ang, radius, ratio, top, False,
                                        min(max_steps, next_check) - step + 1, slack)
                    if not coast:  # asked again COAST_MIN steps on (coast_steps)
                        retry = min(step + COAST_MIN, next_check + 1)
            if coast:
                stepper(1, coast)
                step += coast - 1
            else:
                stepper(split)
            lin, ang = get_vel(did)
            pose = None  # the pose after this step, read once at most (Cage.check reads its own)
            if lin[2] < -0.01:
                pose = get_pose(did)
                pos = pose[0]
                if pos[2] < floor and not self.table.contains_xy(pos[0], pos[1], inset=-1e-3):
                    return -1, step
            v2 = lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]
            w2 = ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]
            if step >= next_check:  # the confinement rule (PhysicsSettings.confine_time)
                next_check = step - step % every + every
                confined = cage.check(w2, get_pose, did)
                if confined is not None:
                    face = self._face_at_rest(confined, restarts >= MAX_POISED)
                    if face is not None:
                        return face, step
                    restarts += 1
                    cage.kept = 0
            if v2 < lin2 and w2 < ang2:
                if still == 0:
                    anchor = pose = pose or get_pose(did)
            elif not (still and _jitter(pose := pose or get_pose(did), anchor, jitter_m2,
                                        jitter_cos)):
                still = 0
                continue
            still += 1
            if still >= hold:
                face = self._face_at_rest(pose or get_pose(did), restarts >= MAX_POISED)
                if face is not None:
                    return face, step
                restarts += 1
                still = 0
        raise RuntimeError("bare loop: die did not settle")

    def _face_at_rest(self, pose: Any, accept_poised: bool = False) -> int | None:
        """The face a die at rest in this pose shows; -1 when its centre is below the table
        top (caught on the table's edge on its way down: World reads it as fallen off); None
        when it is poised on an edge or a point wholly over the table (an unstable balance,
        as World's _poised: not at rest), unless `accept_poised` (after MAX_POISED restarts
        World takes the tilted rest)."""
        sh = self.shape
        pos, orn = pose
        rot = np.array(pybullet.getMatrixFromQuaternion(orn)).reshape(3, 3)
        rot = rot @ sh.principal_axes.T  # the geometric frame (Bullet's is the inertial one)
        centre = np.array(pos) - rot @ sh.mass.com
        if centre[2] < 0:
            return -1
        heights = sh.poly.normals @ rot[2]
        lying = -float(heights.min()) >= self.cos_flat  # on a face: read by its reading
        if not lying:  # tilted: poised on an edge or a point?
            corners = sh.poly.vertices @ rot.T + centre
            if not accept_poised and all(self.table.contains_xy(v[0], v[1])
                                         for v in corners.tolist()):
                return None
        return sh.value_shown(int(np.argmin(heights)), int(np.argmax(heights)), lying)
