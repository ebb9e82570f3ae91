"""The engine contract: what every physics engine's table world offers (`Engine`, the type
`make_world` returns) and the engine-neutral half of one (`TableWorld`), which each backend
subclasses.

`TableWorld` is written once for every engine: the throw (`throw` is a group of one), the
symmetry break of exactly symmetric throws, the foul check and the reports, the tip (its
roll, the sweep through the other dice, the table edge), removal, and the contact values of
a set of die materials. A backend (simulator/physics/world.py for PyBullet,
mujoco_world.py for MuJoCo) builds the static scene (table, obstacles) and the dice, lets
them go as a step-level run (`released`, a `stepping.Run`: step, read poses and
velocities, the fall off the table, the poised test) that the one settle loop
(simulator/physics/stepping.py) drives to rest, reads contacts to classify each rest, and
answers the hooks below. Adding an engine: ARCHITECTURE.md, "Adding an engine";
tests/test_engine_conformance.py is the contract's test.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Protocol

from dice_models import DieModel
from dice_models.geometry import AXES
from dice_models.materials import library, material_from
from rules.core.protocols import DiePose, ThrowSpec
from simulator.physics.common import (
    Frame,
    PlacedDie,
    PlacementError,
    Pose,
    ThrowReport,
    TipReport,
    check_release,
    world_vertices,
)
from simulator.physics.contact import ContactModel, realize
from simulator.physics.dice import die_shape
from simulator.physics.placing import sweep_blocker, symmetry_break, tip_poses
from simulator.physics.settings import PhysicsSettings, TableSpec
from simulator.physics.stepping import Run

# The engines that simulate a table world one throw at a time (`make_world`); mujoco-warp
# throws in batches only (simulator/experiments/batched.py).
WORLD_ENGINES = ("pybullet", "mujoco")


class Engine(Protocol):
    """A table and the dice resting on it (`scene`), simulated by one engine: placements,
    throws to rest, tips and snapshots change or read the scene; the same inputs give the
    same bits, whatever was simulated before."""

    table: TableSpec
    settings: PhysicsSettings
    scene: dict[str, PlacedDie]
    confined: int  # dice that came to rest by the confinement rule, not the hold, so far

    def close(self) -> None: ...

    def physics_json(self) -> dict[str, Any]: ...

    def place(self, name: str, model: DieModel, face: int, yaw_deg: float,
              xy: tuple[float, float]) -> DiePose: ...

    def remove(self, name: str) -> None: ...

    def snapshot(self) -> list[DiePose]: ...

    def outcome_of(self, name: str) -> DiePose: ...

    def throw(self, name: str, model: DieModel, throw: ThrowSpec, player: int = 1,
              record: bool = False) -> ThrowReport: ...

    def throw_group(self, dice: list[tuple[str, DieModel, ThrowSpec]], player: int = 1,
                    record: bool = False) -> list[ThrowReport]: ...

    def settle(self) -> int: ...

    def tip(self, name: str, corner: str) -> TipReport: ...

    def released(self, dice: list[tuple[str, DieModel, ThrowSpec]], record: bool = False
                 ) -> AbstractContextManager[Run]:
        """The engine's world holding the scene and these dice let go at their throws
        exactly (no symmetry break, no foul check): the step-level contract, a `Run` that
        `stepping.settle` drives to rest (valid inside the with-block; the scene is not
        changed: the next operation builds the world from it again)."""
        ...


class TableWorld(ABC):
    """The engine-neutral half of a table world. A backend sets `table`, `settings` and
    `scene`, implements the public methods that step (place, snapshot, outcome_of,
    throw_group, settle, close, physics_json) and the tip's three hooks."""

    table: TableSpec
    settings: PhysicsSettings
    scene: dict[str, PlacedDie]
    # the contact values by set of die materials, and the material library they came from
    _contacts: dict[frozenset[Any], ContactModel]
    _contacts_library: Any = None

    # -- what every engine does the same way -------------------------------------------

    def remove(self, name: str) -> None:
        if name not in self.scene:
            raise PlacementError(f"die {name!r} is not on the table")
        del self.scene[name]

    def throw(self, name: str, model: DieModel, throw: ThrowSpec, player: int = 1,
              record: bool = False) -> ThrowReport:
        """Simulate a throw until every die rests; the thrown die joins the scene (dice that
        fell off the table leave it). Raises PhysicsError rather than report a bad face."""
        return self.throw_group([(name, model, throw)], player, record)[0]

    @abstractmethod
    def throw_group(self, dice: list[tuple[str, DieModel, ThrowSpec]], player: int = 1,
                    record: bool = False) -> list[ThrowReport]: ...

    def tip(self, name: str, corner: str) -> TipReport:
        """Roll a resting d8 over the bottom edge beneath its top face's `corner` ('x', 'y'
        or 'z'), checked by a sweep through the roll; blocked by a die or obstacle it would
        touch, or by the table edge if it would not land wholly on the table."""
        if name not in self.scene:
            raise PlacementError(f"die {name!r} is not on the table")
        placed = self.scene[name]
        shape = die_shape(placed.model)
        if shape.poly.kind != "octahedron":
            raise PlacementError(f"tips are defined for octahedral dice; {name!r} is "
                                 f"{shape.poly.kind}")
        before = self._resting(name)
        if before.status != "on_table":
            raise PlacementError(f"die {name!r} is not resting flat on the table "
                                 f"({before.reason})")
        if corner not in AXES:
            raise PlacementError(f"corner must be one of x, y, z (got {corner!r})")
        # Only the obstacles' check looks at the poses along the roll; without obstacles
        # the last is all a tip needs, the same bits for 1 sample as for 24
        # (tests/test_physics_table_answers.py).
        frames = tip_poses(shape, placed.pose, corner,
                           samples=24 if self.table.obstacles else 1)
        final = frames[-1]
        # Dice: the continuous 3D sweep the kinematic table uses (exact geometry, 0.01 mm
        # tolerance). Obstacles (a cylinder is no polyhedron): the engine, at 24 poses of
        # the roll, to its collision tolerance (TOUCH_M).
        blocker = sweep_blocker(self.scene, name, corner)
        if blocker is None:
            blocker = self._obstacle_in(name, frames)
        if blocker is None:
            bottom, _ = shape.poly.face_down(final.rotation())
            corners = world_vertices(shape, final)[list(shape.poly.faces[bottom])]
            if not all(self.table.contains_xy(c[0], c[1]) for c in corners):
                blocker = "table_edge"
        if blocker is not None:
            self._untipped(name, placed.pose)
            return TipReport(rolled=False, pose=before, blocked_by=blocker, die=name,
                             corner=corner, before=before)
        self.scene[name] = replace(placed, pose=final)
        return TipReport(rolled=True, pose=self._tipped(name, final), die=name, corner=corner,
                         before=before)

    # -- the tip's hooks ----------------------------------------------------------------

    @abstractmethod
    def _resting(self, name: str) -> DiePose:
        """Die `name` as it rests in the scene (the engine built around the scene)."""

    @abstractmethod
    def _obstacle_in(self, name: str, poses: list[Pose]) -> str | None:
        """'obstacle:NAME' for the first of these poses of die `name` that penetrates an
        obstacle deeper than TOUCH_M, else None."""

    @abstractmethod
    def _untipped(self, name: str, pose: Pose) -> None:
        """Die `name` back at its resting pose after a refused tip."""

    @abstractmethod
    def _tipped(self, name: str, pose: Pose) -> DiePose:
        """Die `name` moved to `pose` (the scene already says so), classified there."""

    # -- shared pieces of a throw -------------------------------------------------------

    def _simulated(self, dice: list[tuple[str, DieModel, ThrowSpec]]
                   ) -> tuple[list[ThrowSpec], dict[str, dict[str, Any] | None]]:
        """Each die's throw as simulated and the perturbation applied (`symmetry_break`:
        the mirror-plane test only for a lone die on an empty table without obstacles)."""
        lone = len(dice) == 1 and not self.scene and not self.table.obstacles
        simulated, perturbations = [], {}
        for name, model, throw in dice:
            as_thrown, perturbations[name] = symmetry_break(
                throw, die_shape(model) if lone else None)
            simulated.append(as_thrown)
        return simulated, perturbations

    def _reports(self, dice: list[tuple[str, DieModel, ThrowSpec]], player: int,
                 settled: bool, steps: int, outcomes: dict[str, DiePose],
                 disturbed: tuple[tuple[DiePose, DiePose], ...], frames: list[Frame] | None,
                 perturbations: dict[str, dict[str, Any] | None]) -> list[ThrowReport]:
        """One report per thrown die: the foul rule every table shares, the outcome, the
        disturbed dice, the physics record, the trajectory when recorded (`frames`)."""
        reports = []
        for name, _model, throw in dice:
            foul, why = check_release(self.table, player, throw)
            reports.append(ThrowReport(
                die=name, throw=throw, player=player, foul=foul, foul_reason=why,
                settled=settled, steps=steps, sim_time_s=steps * self.settings.time_step,
                outcome=outcomes[name], disturbed=disturbed, physics=self.physics_json(),
                trajectory=tuple(frames) if frames is not None else None,
                perturbation=perturbations[name]))
        return reports

    @abstractmethod
    def physics_json(self) -> dict[str, Any]: ...

    def _realized(self, key: frozenset[Any]) -> ContactModel:
        """The contact values (dice_models.materials' pairs) for dice of these materials on
        this table's surface and obstacles, cached until another material file is loaded."""
        lib = library()
        if lib is not self._contacts_library:  # a material file was loaded: pairs may differ
            self._contacts, self._contacts_library = {}, lib
        contact = self._contacts.get(key)
        if contact is None:
            statics = [self.table.surface, *(ob.material or self.table.surface
                                             for ob in self.table.obstacles)]
            dice = sorted(key, key=lambda m: m.name) or [material_from("card", "<default>")]
            contact = self._contacts[key] = realize(dice, statics)
        return contact


__all__ = ["WORLD_ENGINES", "Engine", "TableWorld"]
