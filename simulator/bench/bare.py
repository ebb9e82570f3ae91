"""The reference for speed benchmarks: one throw of one die onto the default table written
directly against PyBullet, with the same die, table, settings and settle rule as
`simulator.physics.World`, but none of its bookkeeping (no scene, no classification beyond
reading the top face). Benchmarks print our throughput as a ratio of this one's.

It lives in the package (not under benchmarks/) so that `tabletop bench` works from an
installed copy; `benchmarks/bare_pybullet.py` re-exports it for the plain scripts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulator.physics._bullet import direct_client, pybullet
from simulator.physics.dice import DieShape
from simulator.physics.settings import (
    DICE_DAMPING,
    DICE_FRICTION,
    DICE_RESTITUTION,
    PhysicsSettings,
    TableSpec,
)
from simulator.physics.world import TABLE_THICKNESS, Throw, _jitter


class BareLoop:
    def __init__(self, shape: DieShape, table: TableSpec, settings: PhysicsSettings) -> None:
        self.shape, self.table, self.s = shape, table, settings
        self.c = direct_client()

    def throw(self, throw: Throw) -> tuple[int, int]:
        """(face value up, or -1 if the die fell off; steps to rest)."""
        c, s, t, sh = self.c, self.s, self.table, self.shape
        c.resetSimulation()
        c.setPhysicsEngineParameter(fixedTimeStep=s.time_step, numSolverIterations=s.solver_iterations,
                                    numSubSteps=0, deterministicOverlappingPairs=1)
        c.setGravity(0, 0, -s.gravity)
        col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[t.width / 2, t.depth / 2,
                                                                      TABLE_THICKNESS / 2])
        tid = c.createMultiBody(0, col, -1, [0, 0, -TABLE_THICKNESS / 2])
        c.changeDynamics(tid, -1, lateralFriction=t.surface.friction, restitution=t.surface.restitution,
                         rollingFriction=t.surface.rolling_friction,
                         spinningFriction=t.surface.spinning_friction)
        dcol = c.createCollisionShape(pybullet.GEOM_MESH, vertices=sh.poly.vertices.tolist())
        did = c.createMultiBody(sh.mass.mass, dcol, -1, list(throw.release), list(throw.orientation))
        c.changeDynamics(did, -1, localInertiaDiagonal=sh.principal_moments.tolist(),
                         lateralFriction=DICE_FRICTION, restitution=DICE_RESTITUTION,
                         rollingFriction=t.surface.rolling_friction,
                         spinningFriction=t.surface.spinning_friction,
                         collisionMargin=s.collision_margin, ccdSweptSphereRadius=0.8 * sh.inradius,
                         activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING,
                         linearDamping=DICE_DAMPING, angularDamping=DICE_DAMPING)
        c.resetBaseVelocity(did, list(throw.velocity), list(throw.spin))
        hold = max(1, math.ceil(s.hold_time / s.time_step - 1e-9))
        lin2, ang2 = s.settle_linear ** 2, s.settle_angular ** 2
        still = 0
        anchor: Any = None
        jitter_m2 = s.jitter_m ** 2
        jitter_cos = math.cos(math.radians(s.jitter_deg) / 2)
        step_sim, get_pose, get_vel = c.stepSimulation, c.getBasePositionAndOrientation, c.getBaseVelocity
        for step in range(1, math.ceil(s.max_time / s.time_step) + 1):
            step_sim()
            pos, orn = get_pose(did)
            if pos[2] < -sh.poly.circumradius:
                return -1, step
            lin, ang = get_vel(did)
            if (lin[0] ** 2 + lin[1] ** 2 + lin[2] ** 2 < lin2
                    and ang[0] ** 2 + ang[1] ** 2 + ang[2] ** 2 < ang2):
                if still == 0:
                    anchor = (pos, orn)
            elif not (still and _jitter((pos, orn), anchor, jitter_m2, jitter_cos)):
                still = 0
                continue
            still += 1
            if still >= hold:
                rot = np.array(pybullet.getMatrixFromQuaternion(orn)).reshape(3, 3)
                up = int(np.argmax(sh.poly.normals @ rot.T @ np.array([0.0, 0.0, 1.0])))
                return sh.values[up], step
        raise RuntimeError("bare loop: die did not settle")
