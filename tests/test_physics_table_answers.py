"""The physics table keeps the World's answers for a table and its clones (issue 38, item 4:
adapters at the speed of the physics). The World gives the same bits for the same scene and
question whatever it did before, so an answer kept is the answer a fresh World gives; a
probe of a tip (`can_tip`) is the verdict of `World.tip` without the tipped pose; a scene
that differs in any bit is another question."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from rules.core.protocols import ThrowSpec
from simulator.physics.world import World
from simulator.physics_table import PhysicsTable

THROW = ThrowSpec((0.05, -0.75, 0.35), (0.0, 2.2, 0.5), (3.0, -2.0, 5.0),
                  (0.0, 0.0, 0.0, 1.0))


def _counting(table: PhysicsTable) -> dict[str, int]:
    """How many times the table's World simulates a throw or a tip from now on."""
    calls = {"throw": 0, "tip": 0}
    world = table.world
    for name in calls:
        original = getattr(world, name)

        def counted(*args: Any, _name: str = name, _original: Any = original,
                    **kwargs: Any) -> Any:
            calls[_name] += 1
            return _original(*args, **kwargs)
        setattr(world, name, counted)
    return calls


def _fresh(table: PhysicsTable) -> World:
    """A World of its own on `table`'s scene."""
    world = World(table.world.table, table.world.settings)
    world.scene = dict(table.scene)
    return world


def _scene(table: PhysicsTable) -> dict[str, Any]:
    return {n: (p.pose.position, p.pose.quaternion) for n, p in table.scene.items()}


def test_a_throw_tried_on_a_clone_then_played_is_simulated_once_and_is_a_fresh_worlds() -> None:
    table = PhysicsTable()
    table.place("a", 3, 20.0, (0.0, 0.05))
    table.place("b", 6, 75.0, (0.1, 0.12))
    world = _fresh(table)  # a World of its own on the scene before the throw
    calls = _counting(table)
    tried = table.clone().throw("t", THROW, player=1)
    played = table.throw("t", THROW, player=1)
    assert calls["throw"] == 1
    assert played == tried
    report = world.throw("t", table.model, THROW, player=1)
    world.close()
    assert (report.outcome, report.disturbed) == (played.outcome, played.disturbed)


def test_a_scene_that_differs_in_one_bit_is_another_question() -> None:
    table = PhysicsTable()
    table.place("a", 3, 20.0, (0.0, 0.05))
    calls = _counting(table)
    first = table.clone()
    first.throw("t", THROW, player=1)
    moved = table.clone()
    pose = moved.scene["a"].pose
    x = float(np.nextafter(pose.position[0], 1.0))
    moved.scene["a"] = replace(moved.scene["a"], pose=replace(
        pose, position=(x, *pose.position[1:])))
    moved.throw("t", THROW, player=1)
    again = table.clone()
    again.throw("t", THROW, player=2)  # another thrower: another question
    assert calls["throw"] == 3


def test_a_probe_is_the_verdict_of_a_fresh_worlds_tip() -> None:
    """Dice close enough to block each other's tips, and dice at the table's edge: every
    die and corner, `can_tip` (probes, kept answers) against `World.tip` in a World of its
    own; then the tips themselves."""
    rng = np.random.default_rng(3)
    verdicts: set[str | None] = set()
    for _ in range(4):
        table = PhysicsTable()
        spots = [(0.0, 0.0), (0.055, 0.01), (-0.01, 0.06), (0.57, -0.42)]
        for i, xy in enumerate(spots):
            table.place(f"d{i}", int(rng.integers(1, 9)), float(rng.uniform(0, 360)), xy)
        for die in sorted(table.scene):
            for corner in ("x", "y", "z"):
                got = table.can_tip(die, corner)
                assert table.clone().can_tip(die, corner) == got  # a kept answer
                world = _fresh(table)
                report = world.tip(die, corner)
                world.close()
                assert got == (None if report.rolled else report.blocked_by), (die, corner)
                verdicts.add(got if got in (None, "table_edge") else "die")
                tipped = table.clone()
                result = tipped.tip(die, corner)
                assert (result.rolled, result.pose, result.blocked_by) == (
                    report.rolled, report.pose, report.blocked_by)
                assert _scene(tipped) == {n: (p.pose.position, p.pose.quaternion)
                                          for n, p in world.scene.items()}
    assert verdicts == {None, "table_edge", "die"}  # every kind of answer was asked


D8S = ("d8", "paper-d8", "solid-d8", "tampered-d8")


def test_the_last_pose_of_a_tip_is_the_same_for_one_sample_as_for_24() -> None:
    """`can_tip` (a die with nothing near: only the edge) takes the tip's end pose from
    `tip_poses(..., samples=1)`, `World.tip` from 24 samples: the same bits, because the
    last sample's angle TIP_ANGLE * 24 / 24 is TIP_ANGLE exactly. Every shipped d8, every
    face and corner, at rest flat and tilted as a settled throw leaves a die."""
    from dice_models import load_die
    from dice_models.geometry import TIP_ANGLE, axis_angle
    from simulator.physics import TableSpec, die_shape
    from simulator.physics.common import Pose, quat_from_matrix
    from simulator.physics.placing import flat_pose, tip_poses

    assert TIP_ANGLE * 24 / 24 == TIP_ANGLE
    rng = np.random.default_rng(0)
    for name in D8S:
        shape = die_shape(load_die(name))
        for face in range(1, 9):
            flat = flat_pose("d", shape, face, float(rng.uniform(0, 360)), (0.1, -0.2),
                             TableSpec())
            tilt = axis_angle(rng.normal(size=3) / np.sqrt(3), float(rng.uniform(0, 0.02)))
            tilted = Pose(flat.position, quat_from_matrix(tilt @ flat.rotation()))
            for pose in (flat, tilted):
                for corner in ("x", "y", "z"):
                    one = tip_poses(shape, pose, corner, samples=1)[-1]
                    many = tip_poses(shape, pose, corner, samples=24)[-1]
                    bits = [v.hex() for v in (*one.position, *one.quaternion)]
                    assert bits == [v.hex() for v in (*many.position, *many.quaternion)], \
                        (name, face, corner)


def test_the_same_dice_in_another_order_are_another_question() -> None:
    """An answer's `disturbed` and the scene after a throw follow the scene's order, so a
    scene of the same bits in another order gets a fresh World's answer, not the one kept."""
    table = PhysicsTable()
    table.place("a", 3, 20.0, (0.0, 0.05))
    table.place("b", 6, 75.0, (0.03, 0.11))
    table.place("c", 2, 5.0, (-0.05, 0.0))
    spec = ThrowSpec((0.0, -0.75, 0.35), (0.0, 2.6, 0.3), (3.0, -2.0, 5.0))
    reordered = {n: table.scene[n] for n in ("c", "b", "a")}
    world = _fresh(table)
    world.scene = dict(reordered)
    fresh = world.throw("t", table.model, spec, player=1)
    world.close()
    table.clone().throw("t", spec, player=1)  # kept for the scene in its first order
    other = table.clone()
    other.scene = dict(reordered)
    answer = other.throw("t", spec, player=1)
    assert [b.die for b, _ in answer.disturbed] == [b.die for b, _ in fresh.disturbed]
    assert list(other.scene) == list(world.scene)


def test_another_material_file_in_force_is_another_question() -> None:
    """The World's contact values follow the materials in force (a loaded file, a
    calibration's overlay), so the answers kept before are not given under others."""
    from dice_models.materials import MaterialLibrary, overlay

    table = PhysicsTable()
    table.place("a", 3, 20.0, (0.0, 0.05))
    calls = _counting(table)
    table.clone().throw("t", THROW, player=1)
    table.clone().throw("t", THROW, player=1)
    assert calls["throw"] == 1
    with overlay(MaterialLibrary({}, {})):
        table.clone().throw("t", THROW, player=1)
    assert calls["throw"] == 2
