"""The kinematic Deep White Sea table and the physics table are one die (issue 15): both
take their octahedron, rest rotations, corners and tips from `dice_models.geometry`, so
for every face, yaw and corner they report the same pose. The kinematic table once had its
own copy of the octahedron, rotated so that the up face pointed down: a mirror-image die
whose corners were off by up to 57.7 mm and whose arrows aimed 180 degrees off."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rules.deep_white_sea as dws
import simulator.physics_table  # noqa: F401  (registers the 'physics' table)
from rules.core.protocols import RulesError, ThrowSpec
from rules.deep_white_sea.geometry import SIGNS, Octahedron
from rules.deep_white_sea.kinematic import KinematicTable
from simulator.physics_table import PhysicsTable

YAWS = (-150.0, -61.5, 0.0, 37.0, 120.0, 180.0)
XY = (0.05, -0.1)
TOL = 1e-7  # m, deg: round-off (the physics pose goes through a quaternion)


def _same(a, b) -> None:  # two DiePose
    assert a.face == b.face
    assert abs((a.yaw_deg - b.yaw_deg + 180.0) % 360.0 - 180.0) < TOL
    assert set(a.top_corners) == set(b.top_corners) == {"x", "y", "z"}
    for k in a.top_corners:
        assert math.dist(a.top_corners[k], b.top_corners[k]) < TOL, k
    assert math.dist(a.position, b.position) < TOL


def test_the_up_face_points_up() -> None:
    # The bug: Octahedron().rotation(0, 0) @ SIGNS[0] / sqrt(3) had z = -1.
    oct_ = Octahedron()
    for face in range(8):
        normal = oct_.rotation(face, 0.0) @ np.array(SIGNS[face]) / math.sqrt(3.0)
        assert normal[2] == pytest.approx(1.0)


@pytest.mark.parametrize("face", range(1, 9))
def test_both_tables_agree_on_every_face_corner_and_yaw_and_tip(face: int) -> None:
    for yaw in YAWS:
        kin, phys = KinematicTable(), PhysicsTable()
        _same(kin.place("d", face, yaw, XY), phys.place("d", face, yaw, XY))
        for corner in ("x", "y", "z"):
            k2, p2 = kin.clone(), phys.clone()
            k, p = k2.tip("d", corner), p2.tip("d", corner)
            assert k.rolled and p.rolled
            _same(k.pose, p.pose)


def test_yaw_facing_points_the_arrow_corner_that_way_on_the_physics_table() -> None:
    s = dws.new_game(2, {"crews": "green,orange", "table": "physics", "first": 1})
    die = sorted(s.dice)[0]
    for side in range(1, 9):
        for corner in ("top", "left", "right"):
            for direction in (-90.0, 30.0, 135.0):
                s.table.remove(die)
                yaw = s.yaw_facing(die, side, corner, direction)
                pose = s.table.place(die, s.dice[die].crew.face_of_side(side) + 1, yaw, XY)
                x, y = pose.top_corners[s.dice[die].crew.corner_axis(side, corner)]
                aim = math.degrees(math.atan2(y - XY[1], x - XY[0]))
                assert abs((aim - direction + 180.0) % 360.0 - 180.0) < 1e-6


def test_both_tables_refuse_a_tip_that_only_brushes_a_die_and_allow_one_that_clears() -> None:
    # Rulebook, "Maneuvering": "Even if the die would only brush the obstacle, the move is
    # illegal." Both tables sweep the roll in 3D with the same code and a tolerance of only
    # 0.01 mm (the physics table allowed 0.2 mm before issue 15).
    from dice_models.geometry import SWEEP_TOLERANCE_M, tip_clearance

    assert SWEEP_TOLERANCE_M <= 1e-5
    oct_ = Octahedron()
    face, corner = 3, "x"  # protocol face 4, pressed at its corner on x
    rot, centre = oct_.rotation(face - 1, 0.0), oct_.centre((0.0, 0.0))
    _f, _y, end = oct_.tip_end(face - 1, 0.0, (0.0, 0.0), corner)
    unit = np.array(end) / np.hypot(*end)

    def clearance(dist: float) -> float:
        other = oct_.solid(0, 0.0, (float(unit[0] * dist), float(unit[1] * dist)))
        return tip_clearance(oct_.poly, rot, centre, corner, [other], SWEEP_TOLERANCE_M)[1]

    touch = 0.1
    for _ in range(8):  # the clearance grows slower than the distance: steps stay clear
        touch -= clearance(touch)
    assert abs(clearance(touch)) < 1e-9
    for gap, blocked in ((-4e-5, True), (4e-5, False)):
        xy = (float(unit[0] * (touch + gap)), float(unit[1] * (touch + gap)))
        for table in (KinematicTable(), PhysicsTable()):
            table.place("a", face, 0.0, (0.0, 0.0))
            table.place("b", 1, 0.0, xy)
            assert (table.can_tip("a", corner) == "b") is blocked, (type(table), gap)


# Issue 35, item 4: one home for each rule of the table. Both tables judge a release with
# rules.core.throwing, so a foul and a refused throw read the same on either.
FOUL_RELEASES = [((0.0, -0.3, 0.1), "in front of player 1's edge line"),
                 ((0.0, -0.5, 0.1), "in the foul zone"),
                 ((0.0, -0.5, 0.35), None)]
BAD_THROWS = [ThrowSpec((0.0, -0.8, 0.3), (float("nan"), 0.0, 0.0)),
              ThrowSpec((0.0, -0.8, 0.3), (0.0, 60.0, 0.0)),
              ThrowSpec((0.0, -0.8, 0.3), (0.0, 1.0, 0.0), (0.0, 0.0, 2000.0)),
              ThrowSpec((0.0, -0.8, -0.01), (0.0, 1.0, 0.0)),
              ThrowSpec((0.0, -0.8, 0.3), (0.0, 1.0, 0.0), orientation=(0.0, 0.0, 0.0, 3.0)),
              ThrowSpec((0.0, -0.8, "x"), (0.0, 1.0, 0.0))]  # type: ignore[arg-type]


@pytest.mark.parametrize(("release", "words"), FOUL_RELEASES)
def test_both_tables_call_the_same_foul_in_the_same_words(release, words) -> None:
    spec = ThrowSpec(release, (0.0, 1.2, 0.0))
    physics, kinematic = PhysicsTable(), KinematicTable()
    edge = physics.world.table.edge_y
    assert kinematic.depth / 2 == pytest.approx(edge)
    a = physics.throw("W1", spec, 1)
    b = kinematic.throw("W1", spec, 1)
    assert (a.foul, a.foul_reason) == (b.foul, b.foul_reason)
    assert a.foul == (words is not None)
    if words:
        assert words in str(a.foul_reason)


@pytest.mark.parametrize("spec", BAD_THROWS)
def test_both_tables_refuse_an_impossible_throw_in_the_same_words(spec) -> None:
    with pytest.raises(RulesError) as on_physics:
        PhysicsTable().throw("W1", spec, 1)
    with pytest.raises(RulesError) as on_kinematic:
        KinematicTable().throw("W1", spec, 1)
    assert str(on_physics.value) == str(on_kinematic.value)
    assert str(on_physics.value).startswith("throw: ")
