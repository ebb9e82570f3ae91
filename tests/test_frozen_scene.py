"""Resting dice stay static during a throw until a moving die comes near (World's _Frozen):
the result must be what physics says, not what the shortcut allows."""

from __future__ import annotations

from dice_models import load_die
from rules.core.protocols import ThrowSpec
from simulator.physics import World
from simulator.physics.settings import TableSpec
from simulator.physics.world import MOVED_M

D8 = load_die("paper-d8")


def _world() -> World:
    return World(TableSpec())


def test_a_throw_far_from_resting_dice_lands_as_on_an_empty_table():
    throw = ThrowSpec((0.3, 0.2, 0.15), (0.3, 0.1, 0.0), (5.0, -3.0, 2.0))
    alone = _world().throw("t", D8, throw)
    w = _world()
    w.place("far", D8, 3, 10.0, (-0.3, -0.2))
    w.place("far2", D8, 5, 40.0, (-0.2, -0.25))
    before = {n: pd.pose for n, pd in w.scene.items()}
    crowded = w.throw("t", D8, throw)
    assert crowded.outcome == alone.outcome and crowded.steps == alone.steps
    assert crowded.disturbed == ()
    assert {n: w.scene[n].pose for n in before} == before


def test_a_die_thrown_into_a_resting_die_knocks_it_and_the_next_one():
    w = _world()
    w.place("a", D8, 1, 0.0, (0.0, 0.0))
    w.place("b", D8, 2, 0.0, (0.08, 0.0))  # 80 mm on, in line: a pushed into b
    w.place("far", D8, 3, 0.0, (-0.3, -0.2))
    before = {n: pd.pose.position for n, pd in w.scene.items()}
    report = w.throw("t", D8, ThrowSpec((-0.2, 0.0, 0.045), (3.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    moved = {b.die for b, _a in report.disturbed}
    assert {"a", "b"} <= moved and "far" not in moved
    for name in ("a", "b"):
        if name in w.scene:  # still on the table: it has moved
            shift = [p - q for p, q in zip(w.scene[name].pose.position, before[name], strict=True)]
            assert sum(x * x for x in shift) ** 0.5 > MOVED_M
    assert w.scene["far"].pose.position == before["far"]


def test_a_die_dropped_onto_a_resting_die_moves_it():
    w = _world()
    w.place("a", D8, 1, 0.0, (0.0, 0.0))
    start = w.scene["a"].pose.position
    report = w.throw("t", D8, ThrowSpec((0.015, 0.005, 0.15), (0.0, 0.0, -1.5), (5.0, -4.0, 1.0),
                                        (0.3, 0.0, 0.1, 0.948)))
    assert [b.die for b, _a in report.disturbed] == ["a"]
    if "a" in w.scene:
        end = w.scene["a"].pose.position
        assert sum((p - q) ** 2 for p, q in zip(end, start, strict=True)) ** 0.5 > 0.005


def test_frozen_dice_that_touch_thaw_together():
    # White-box: a die leaning on another cannot be placed, so the grouping is checked on
    # the frozen world itself. b's box starts 0.5 mm past a's (closer than _Frozen.TOUCH).
    from simulator.physics.dice import die_shape
    from simulator.physics.world import Pose

    w = _world()
    w.place("a", D8, 1, 0.0, (0.0, 0.0))
    w._build(w.scene)
    lo, hi = w._client.getAABB(w._bodies["a"].bid)
    w.place("b", D8, 1, 0.0, (hi[0] - lo[0] + 0.0005, 0.0))
    w.place("c", D8, 1, 0.0, (-0.3, -0.2))
    w._build(w.scene, frozen=True)
    frozen = w._frozen
    assert frozen is not None and set(frozen.boxes) == {"a", "b", "c"}
    # A still probe just beside a (1 mm, inside the 2 mm margin) and nowhere near b or c.
    probe = w._add_body("p", die_shape(D8), Pose((lo[0] - 0.001 - (hi[0] - lo[0]) / 2, 0.0,
                                                  w.scene["a"].pose.position[2]),
                                                 w.scene["a"].pose.quaternion))
    assert frozen.woken(w, [probe], [0]) == ["a", "b"]
    assert set(frozen.boxes) == {"c"}
