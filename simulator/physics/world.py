"""The PyBullet table world: throws to rest, resting outcomes, tips and placement.

Every operation rebuilds the Bullet world from the current scene (the poses of the dice
resting on the table), so a throw's result depends only on the scene, the table, the
settings and the throw: the same inputs give the same bits, in any process, whatever
was simulated before.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dice_models import DieModel
from dice_models.numerics import matmul
from rules.core.protocols import DiePose, ThrowSpec
from rules.core.throwing import FOOT as FOOT  # re-exported: the physics names it too
from rules.core.throwing import MAX_SPEED as MAX_SPEED
from simulator.physics import stepping
from simulator.physics._bullet import direct_client, pybullet
from simulator.physics.bullet_reads import BulletReads, _Grid, classes_of
from simulator.physics.bullet_steps import MAX_SPLIT as MAX_SPLIT
from simulator.physics.bullet_steps import Aabb as Aabb
from simulator.physics.bullet_steps import BulletRun, _Frozen
from simulator.physics.bullet_steps import Stepper as Stepper
from simulator.physics.bullet_steps import _approach_split as _approach_split
from simulator.physics.bullet_steps import _near_split as _near_split
from simulator.physics.bullet_steps import _overlap as _overlap
from simulator.physics.bullet_steps import die_box as die_box
from simulator.physics.bullet_steps import turn_bound as turn_bound

# Engine-neutral names defined here once, now in common, placing and settle, re-exported
# (X as X) for the modules that import them from the PyBullet world.
from simulator.physics.common import COS_FLAT as COS_FLAT
from simulator.physics.common import FLAT_DEG as FLAT_DEG
from simulator.physics.common import MAX_POISED as MAX_POISED
from simulator.physics.common import MOVED_M as MOVED_M
from simulator.physics.common import TABLE_THICKNESS as TABLE_THICKNESS
from simulator.physics.common import TOUCH_M as TOUCH_M
from simulator.physics.common import TURNED_DEG as TURNED_DEG
from simulator.physics.common import Frame as Frame
from simulator.physics.common import NonFiniteError as NonFiniteError
from simulator.physics.common import NotSettledError as NotSettledError
from simulator.physics.common import PhysicsError as PhysicsError
from simulator.physics.common import PlacedDie as PlacedDie
from simulator.physics.common import PlacementError as PlacementError
from simulator.physics.common import Pose as Pose
from simulator.physics.common import ThrowReport as ThrowReport
from simulator.physics.common import TipReport as TipReport
from simulator.physics.common import TunnelError as TunnelError
from simulator.physics.common import check_release as check_release
from simulator.physics.common import quat_from_matrix as _quat_from_matrix
from simulator.physics.common import validate_throw as validate_throw
from simulator.physics.contact import ContactModel
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.engine import TableWorld
from simulator.physics.placing import SYMMETRY_TILT_DEG as SYMMETRY_TILT_DEG
from simulator.physics.placing import check_group as check_group
from simulator.physics.placing import flat_pose as flat_pose
from simulator.physics.placing import sweep_blocker as sweep_blocker
from simulator.physics.placing import symmetry_break as symmetry_break
from simulator.physics.placing import tip_poses as tip_poses
from simulator.physics.settings import DICE_DAMPING, PhysicsSettings, TableSpec
from simulator.physics.settle import COAST_MIN as COAST_MIN
from simulator.physics.settle import Cage as Cage
from simulator.physics.settle import coast_steps as coast_steps
from simulator.physics.settle import describe as _describe
from simulator.physics.settle import fell_off
from simulator.physics.settle import jitter as _jitter  # noqa: F401 (re-exported)
from simulator.physics.settle import was_disturbed as _disturbed

# The table's collision slab is half a metre thick although a table top is a few cm: Bullet's
# Bodies with an inertial frame off their geometric frame get a collision shape each, which
# PyBullet cannot free ("Don't remove collision shape: it is used"); after this many the
# next build starts a fresh Bullet world, which gives the same bits (test_kept_table.py).
MAX_OWN_SHAPES = 256





def collision_shape(client: Any, shape: DieShape) -> int:
    """The die's Bullet collision shape: a box for cubes and cuboids, else its convex hull.

    Bullet meets a hull resting on the table with one contact point a step (GJK), placed
    wherever its search lands: a d6 put down flat at (-0.45, -0.2) m was pushed out of the
    margin's overlap at a point 7 mm off its centre and spun up to 4.6 rad/s, and at dt
    1/120 one rocked for seconds. A box meets the table box through Bullet's box-box
    detector, with the whole face's corners at once: 0.001 rad/s at every spot."""
    if shape.poly.kind in ("cube", "cuboid"):
        half = np.abs(shape.poly.vertices).max(axis=0)
        return int(client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=half.tolist()))
    return int(client.createCollisionShape(pybullet.GEOM_MESH, vertices=shape.vertex_list))


def configure_engine(client: Any, s: PhysicsSettings) -> None:
    """The engine parameters of a fresh Bullet world (the contact model: docs/physics.md)."""
    client.setPhysicsEngineParameter(
        fixedTimeStep=s.time_step, numSolverIterations=s.solver_iterations, numSubSteps=0,
        deterministicOverlappingPairs=1, contactBreakingThreshold=s.contact_breaking_threshold,
        contactERP=s.contact_erp())
    client.setGravity(0, 0, -s.gravity)



@dataclass
class _Body:
    name: str
    shape: DieShape
    bid: int
    removed: bool = False
    last_pos: np.ndarray = field(default_factory=lambda: np.zeros(3))
    last_orn: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)



class World(TableWorld, BulletReads):
    """A table and the dice resting on it; throws, tips and placements change the scene."""

    def __init__(self, table: TableSpec | None = None, settings: PhysicsSettings | None = None):
        self.table = table or TableSpec()
        self.settings = settings or PhysicsSettings()
        self.scene: dict[str, PlacedDie] = {}
        self._client = direct_client()
        self._bodies: dict[str, _Body] = {}
        self._obstacles: dict[int, str] = {}
        self._table_id = -1
        self._physics_json: tuple[ContactModel, dict[str, Any]] | None = None
        self._frozen: _Frozen | None = None
        self._contact: ContactModel | None = None
        self._contacts: dict[frozenset[Any], ContactModel] = {}
        self._contacts_library: Any = None  # the material library the cached models used
        self._collision_shapes: dict[bytes, int] = {}
        self._own_shapes = 0  # collision shapes made for one body each (tampered dice)
        self._statics: tuple[int, list[Aabb]] | None = None  # (table id, its and the obstacles' boxes)
        # The scene the Bullet world's dice are, as moving bodies not moved since they were
        # made (None when they are not), and their materials: `place` adds to it.
        self._mirror: dict[str, PlacedDie] | None = None
        self._mirror_key: frozenset[Any] = frozenset()
        self._still = False  # no die has moved since the last _build (their last_pos hold)
        self._grid: _Grid | None = None  # the dice by place, while _still (see _near)
        # Keep the table between operations (rebuild only the dice); False resets the whole
        # simulation every time, the reference that keeping is tested against bit for bit.
        self.keep_table = True
        # Step a lone die in the air without reading it (coast_steps); False reads every
        # step, the reference that coasting is tested against bit for bit.
        self.coast = True
        # Dice that came to rest by the confinement rule (PhysicsSettings.confine_time), not
        # the hold, since the world was made: the stuck-dice benchmark reports them.
        self.confined = 0
        # How the dice of a scene rest, by the scene's exact bits (bullet_reads.classes_of)
        self._rests: dict[tuple[Any, ...], tuple[tuple[Any, ...], dict[str, DiePose]]] = {}

    # -- public -------------------------------------------------------------------------

    def close(self) -> None:
        """Disconnect from Bullet now rather than when the world is collected."""
        client = self.__dict__.pop("_client", None)
        if client is not None:
            with contextlib.suppress(Exception):  # already disconnected
                client.disconnect()

    def physics_json(self) -> dict[str, Any]:
        """Settings, versions, table and the effective contact values of the dice last in
        this world (one shared dict per contact model: read, don't modify)."""
        contact = self._contact if self._contact is not None else self._contact_for([])
        self._contact = contact
        if self._physics_json is None or self._physics_json[0] is not contact:
            self._physics_json = (contact, {**self.settings.to_json(), "table": self.table.to_json(),
                                            "contact": contact.to_json()})
        return self._physics_json[1]

    def place(self, name: str, model: DieModel, face: int, yaw_deg: float,
              xy: tuple[float, float]) -> DiePose:
        """Put a die down flat with `face` up at `xy` (m) turned by `yaw_deg`; refuses a spot
        off the table or overlapping another die or an obstacle."""
        shape = die_shape(model)
        if name in self.scene:
            raise PlacementError(f"die {name!r} is already on the table")
        pose = flat_pose(name, shape, face, yaw_deg, xy, self.table)
        placed = PlacedDie(name, model, pose)
        material = model.contact_material
        if not self.keep_table:  # the reference: the world built around every placement
            self._build(dict(self.scene, **{name: placed}))
        else:
            # Dice placed one after another are added to the Bullet world as it stands, one
            # body each, rather than the world rebuilt with every die for each one (N
            # placements cost O(N^2) body creations): it is rebuilt only when it no longer
            # holds exactly the scene, or the new die's material changes the contact
            # coefficients. Throws, settles and tips rebuild the world from the scene as
            # always (tests/test_kept_table.py checks all of it against `keep_table = False`).
            if (self._mirror is None or self._mirror != self.scene
                    or self._contact_for_key(self._mirror_key | {material}) is not self._contact):
                self._build(self.scene, adding=(model,))
            self._add_body(name, shape, pose)
        hit = self._penetrating(name)
        if hit is not None:
            if self.keep_table:
                self._drop(name)  # the world holds the scene again
            raise PlacementError(f"die {name!r} at ({xy[0]:.3f}, {xy[1]:.3f}) m would overlap "
                                 f"{hit}")
        self.scene[name] = placed
        if not self.keep_table:
            return self.outcome_of(name)
        assert self._mirror is not None  # the world held the scene; now it holds this die too
        self._mirror[name] = placed
        self._mirror_key |= {material}
        # As _classify after a rebuild, asking Bullet only about the dice near this one.
        return _describe(name, shape, self._pose_of(self._bodies[name]), self.table,
                         self._touching(name), False)

    def snapshot(self) -> list[DiePose]:
        return list(classes_of(self, sorted(self.scene)).values())

    def outcome_of(self, name: str) -> DiePose:
        return classes_of(self, [name])[name]

    def throw_group(self, dice: list[tuple[str, DieModel, ThrowSpec]], player: int = 1,
                    record: bool = False) -> list[ThrowReport]:
        """Throw several dice at once (a handful into a tray); one report per thrown die,
        each listing the resting dice the group disturbed."""
        check_group(self.table, self.scene, dice)
        before = {}
        if self.scene:  # the resting dice as they lie
            before = classes_of(self, list(self.scene), tuple(model for _name, model, _throw in dice))
        simulated, perturbations = self._simulated(dice)
        as_simulated = [(name, model, sim) for (name, model, _t), sim in zip(dice, simulated,
                                                                              strict=True)]
        with self.released(as_simulated, record) as run:
            rest = stepping.settle(run, record)
        self.confined += rest.confined
        steps, settled, frames = rest.steps, True, rest.frames
        disturbed = []
        # (Only something to lean on makes a touch matter: see _classify.)
        touching = self._touching_ids() if self._obstacles or len(self._bodies) > 1 else set()
        for other, b in before.items():
            a = self._classify(other, touching)
            if _disturbed(b, a):
                disturbed.append((b, a))
        outcomes = {name: self._classify(name, touching) for name, _model, _throw in dice}
        reports = self._reports(dice, player, settled, steps, outcomes, tuple(disturbed),
                                frames if record else None, perturbations)
        thrown = {name: PlacedDie(name, model, Pose(t.release, t.orientation))
                  for name, model, t in dice}
        # Dice no moving die came near were static all along: they keep their poses exactly.
        still_frozen = set(self._frozen.boxes) if self._frozen is not None else set()
        self._commit_scene({**self.scene, **thrown}, keep=still_frozen)
        return reports

    @contextlib.contextmanager
    def released(self, dice: list[tuple[str, DieModel, ThrowSpec]], record: bool = False
                 ) -> Iterator[BulletRun]:
        """The Bullet world holding the scene (its dice static until a moving die comes near,
        see _Frozen) and these dice let go at their throws exactly: the step-level run the
        settle loop drives (Engine.released)."""
        adding = tuple(model for _name, model, _throw in dice)
        self._build(self.scene, frozen=bool(self.scene), adding=adding)
        for name, model, throw in dice:
            body = self._add_body(name, die_shape(model), Pose(throw.release, throw.orientation))
            self._client.resetBaseVelocity(body.bid, list(throw.velocity), list(throw.spin))
        with self._run(record) as run:
            yield run

    def settle(self) -> int:
        """Let the resting scene run until every die is at rest again; the steps it took.
        Dice placed exactly flat stay put: this checks placements and tips physically."""
        self._build(self.scene)
        with self._run(False) as run:
            rest = stepping.settle(run, False)
        self.confined += rest.confined
        self._commit_scene(dict(self.scene))
        return rest.steps

    # -- the tip's hooks (TableWorld.tip) ------------------------------------------------

    def _resting(self, name: str) -> DiePose:
        return classes_of(self, [name], build=True)[name]

    def _obstacle_in(self, name: str, poses: list[Pose]) -> str | None:
        """Bullet at each pose, whose collision margins need the coarser TOUCH_M."""
        body = self._bodies[name]
        for pose in poses:
            self._set_pose(body, pose)
            blocker = next((f"obstacle:{oname}" for bid, oname in self._obstacles.items()
                            if any(cp[8] < -TOUCH_M for cp in self._client.getClosestPoints(
                                body.bid, bid, distance=0.0))), None)
            if blocker is not None:
                return blocker
        return None

    def _untipped(self, name: str, pose: Pose) -> None:
        self._set_pose(self._bodies[name], pose)

    def _tipped(self, name: str, pose: Pose) -> DiePose:
        self._set_pose(self._bodies[name], pose)
        return self._classify(name)

    # -- building the Bullet world -------------------------------------------------------

    def _build(self, scene: dict[str, PlacedDie], frozen: bool = False,
               adding: tuple[DieModel, ...] = ()) -> None:
        """The Bullet world holding the table and `scene` (and ready for dice of `adding`);
        with `frozen` the scene's dice are static bodies that the run (BulletRun) thaws when a
        moving die comes near.

        The table and obstacles are built once and kept: only the dice are removed and
        created again, which gives the same bits as a fresh world (tested against
        `keep_table = False`, which resets the whole simulation every time)."""
        c = self._client
        self._frozen = None
        self._mirror, self._grid = None, None
        contact = self._contact_for([*(pd.model for pd in scene.values()), *adding])
        if self._table_id < 0 or not self.keep_table or self._own_shapes > MAX_OWN_SHAPES:
            self._build_table(contact)
        else:
            for body in self._bodies.values():
                if not body.removed:
                    self._remove_body(body)
            if contact is not self._contact:
                self._contact = contact
                self._apply_static(contact)
        self._bodies = {}
        for name in sorted(scene):
            pd = scene[name]
            self._add_body(name, die_shape(pd.model), pd.pose, static=frozen)
        if frozen and scene:
            self._frozen = _Frozen(self, scene)
        elif scene:  # contacts between resting dice, for classifying them before any step
            c.performCollisionDetection()
        if not frozen:
            self._mirror = dict(scene)
            self._mirror_key = frozenset(pd.model.contact_material for pd in scene.values())
        self._still = True

    def _contact_for(self, models: list[DieModel]) -> ContactModel:
        """The contact coefficients for dice of these models on this table (cached by the
        set of die materials)."""
        return self._contact_for_key(frozenset(m.contact_material for m in models))

    def _contact_for_key(self, key: frozenset[Any]) -> ContactModel:
        """The contact coefficients for dice of these materials on this table (cached)."""
        if not key and self._contact is not None:
            return self._contact  # an empty scene: whatever the last dice needed
        return self._realized(key)

    def _build_table(self, contact: ContactModel) -> None:
        """A fresh Bullet world with the table and obstacles."""
        c = self._client
        s = self.settings
        c.resetSimulation()
        configure_engine(c, s)
        self._collision_shapes = {}
        self._own_shapes = 0
        self._obstacles = {}
        self._statics = None
        t = self.table
        if t.shape == "rect":
            col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[t.width / 2, t.depth / 2,
                                                                          TABLE_THICKNESS / 2])
        else:
            col = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=t.radius,
                                         height=TABLE_THICKNESS)
        self._table_id = c.createMultiBody(0, col, -1, [0, 0, -TABLE_THICKNESS / 2])
        for ob in t.obstacles:
            if ob.kind == "box":
                col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[v / 2 for v in ob.size])
                z = ob.size[2] / 2
            else:
                col = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=ob.size[0],
                                             height=ob.size[1])
                z = ob.size[1] / 2
            orn = pybullet.getQuaternionFromEuler([0, 0, math.radians(ob.yaw_deg)])
            bid = c.createMultiBody(0, col, -1, [ob.position[0], ob.position[1], z], orn)
            self._obstacles[bid] = ob.name
        self._contact = contact
        self._apply_static(contact)

    def _apply_static(self, contact: ContactModel) -> None:
        """Give the table and obstacles their Bullet coefficients for these dice."""
        items = [(self._table_id, self.table.surface)]
        items += [(bid, ob.material or self.table.surface)
                  for bid, ob in zip(self._obstacles, self.table.obstacles, strict=True)]
        for bid, material in items:
            k = contact.bodies[material.name]
            self._client.changeDynamics(bid, -1, lateralFriction=k.friction, restitution=k.restitution,
                                        rollingFriction=k.rolling_friction,
                                        spinningFriction=k.spinning_friction)

    def _add_body(self, name: str, shape: DieShape, pose: Pose, static: bool = False) -> _Body:
        c = self._client
        key = shape.shape_key
        col = self._collision_shapes.get(key) if key is not None else None
        if col is None:
            col = collision_shape(c, shape)
            if key is not None:
                self._collision_shapes[key] = col
        inertial_orn = shape.inertial_quaternion
        # createMultiBody takes the link (geometric) frame; reset/getBasePosition... use the
        # inertial frame (checked against getBasePositionAndOrientation, PyBullet 3.2.7).
        bid = c.createMultiBody(
            baseMass=0.0 if static else shape.mass.mass, baseCollisionShapeIndex=col,
            basePosition=list(pose.position), baseOrientation=list(pose.quaternion),
            baseInertialFramePosition=shape.mass.com.tolist(),
            baseInertialFrameOrientation=list(inertial_orn))
        if not static:
            c.changeDynamics(bid, -1, localInertiaDiagonal=shape.principal_moments.tolist())
        assert self._contact is not None
        k = self._contact.bodies[shape.model.contact_material.name]
        c.changeDynamics(bid, -1, lateralFriction=k.friction, restitution=k.restitution,
                         rollingFriction=k.rolling_friction, spinningFriction=k.spinning_friction,
                         collisionMargin=self.settings.collision_margin,
                         ccdSweptSphereRadius=0.8 * shape.inradius,
                         activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING,
                         linearDamping=DICE_DAMPING, angularDamping=DICE_DAMPING,
                         contactProcessingThreshold=self.settings.contact_processing_threshold)
        if key is None:  # PyBullet cannot remove a shape once used: a fresh world frees them
            self._own_shapes += 1
        body = _Body(name, shape, bid, last_pos=np.array(pose.position), last_orn=pose.quaternion)
        self._bodies[name] = body
        if self._grid is not None:
            self._grid.add(name, pose.position[0], pose.position[1], self._reach(shape))
        return body

    def _drop(self, name: str) -> None:
        """Take a die's body out of the world (a placement refused)."""
        self._remove_body(self._bodies.pop(name))
        if self._grid is not None:
            self._grid.discard(name)

    def _remove_body(self, body: _Body) -> None:
        self._client.removeBody(body.bid)

    def _set_pose(self, body: _Body, pose: Pose) -> None:
        """Place the geometric frame at `pose`; Bullet's base frame is the inertial frame."""
        com, orn = _inertial_pose(body.shape, pose)
        self._client.resetBasePositionAndOrientation(body.bid, com, orn)
        body.last_pos = np.array(pose.position)
        body.last_orn = pose.quaternion
        self._mirror = None  # a die turned by hand is no longer the pose the scene says
        if self._grid is not None:
            self._grid.add(body.name, pose.position[0], pose.position[1], self._reach(body.shape))

    # -- stepping -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _run(self, record: bool) -> Iterator[BulletRun]:
        """The dice as built, as a run of the settle loop (stepping.py)."""
        self._mirror, self._grid, self._still = None, None, False  # the dice move
        stepper = Stepper(self._client, self.settings)
        try:
            yield BulletRun(self, record, stepper)
        finally:
            stepper.reset()  # whole steps again for whatever steps or configures next

    def _static_boxes(self) -> list[Aabb]:
        """Bounding boxes of the table and the obstacles (static while the table is kept)."""
        if self._statics is None or self._statics[0] != self._table_id:
            c = self._client
            boxes = []
            for bid in [self._table_id, *self._obstacles]:
                lo, hi = c.getAABB(bid)
                boxes.append((*lo, *hi))
            self._statics = (self._table_id, boxes)
        return self._statics[1]

    def _thaw(self, name: str) -> _Body:
        """Swap a frozen (static) resting die for a moving one at the same pose, at rest."""
        old = self._bodies[name]
        self._remove_body(old)
        return self._add_body(name, old.shape, self.scene[name].pose)

    def _fall_off(self, body: _Body, step: int) -> bool:
        """A die whose centre dropped below the table surface: off the edge it has fallen
        off (removed, True); inside the table's footprint it is either still being pushed
        out of the slab (False) or, past the slab's middle, through it (TunnelError)."""
        pose = self._pose_of(body)
        if not fell_off(self.table, body.name, pose.position, step):
            return False
        body.last_pos = np.array(pose.position)
        body.last_orn = pose.quaternion
        body.removed = True
        self._remove_body(body)
        return True

    def _frame(self, t: float, bodies: list[_Body]) -> Frame:
        poses = {}
        for b in bodies:
            p = self._pose_of(b)
            poses[b.name] = (p.position, p.quaternion)
        return Frame(t, poses)

    # -- reading outcomes ---------------------------------------------------------------

    def _commit_scene(self, scene: dict[str, PlacedDie], keep: set[str] | None = None) -> None:
        new = {}
        for name, pd in scene.items():
            body = self._bodies[name]
            if body.removed:
                continue  # fell off the table: it leaves the scene
            new[name] = pd if keep and name in keep else replace(pd, pose=self._pose_of(body))
        self.scene = new




def _inertial_pose(shape: DieShape, pose: Pose) -> tuple[list[float], list[float]]:
    """Bullet base pose (centre of mass, principal axes) of a die whose geometric frame is
    at `pose`; the pose itself for a balanced symmetric die."""
    if not shape.mass.com.any() and (shape.principal_axes == np.eye(3)).all():
        return list(pose.position), list(pose.quaternion)
    rot = pose.rotation()
    com = matmul(rot, shape.mass.com) + np.array(pose.position)
    return com.tolist(), list(_quat_from_matrix(matmul(rot, shape.principal_axes)))



