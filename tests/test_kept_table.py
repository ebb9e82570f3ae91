"""World keeps the table between operations and rebuilds only the dice (issue 13, item 5):
the results must be the bits a fresh Bullet world gives, throw after throw, with and
without resting dice, for every shipped die. Likewise a lone die in the air is stepped
unwatched (world.coast_steps): the results must be those of reading every step."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import numpy as np
import pytest

from dice_models import available, load_die
from rules.core.protocols import ThrowSpec
from simulator.physics import PhysicsError, World, bullet_steps
from simulator.physics.settings import Obstacle, TableSpec
from simulator.physics.throws import random_throw
from simulator.physics.tray import _tray_throw as tray_throw
from simulator.physics.tray import tray_table


def _digest(reports: list) -> str:
    blob = json.dumps([[r.to_json() for r in rs] for rs in reports], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _play(keep: bool, table: TableSpec, script: list, coast: bool = True) -> list:
    """Run a script of operations on one World; every result, in order."""
    w = World(table)
    w.keep_table = keep
    w.coast = coast
    out = []
    for op in script:
        try:
            if op[0] == "throw":
                out.append(w.throw_group(op[1]))
            elif op[0] == "place":
                out.append([_Out(w.place(*op[1]))])
            elif op[0] == "tip":
                t = w.tip(*op[1])
                out.append([_Out(t.before), _Out(t.pose), _Err(ValueError(t.blocked_by))])
            elif op[0] == "remove":
                w.remove(op[1])
            elif op[0] == "snapshot":
                out.append([_Out(o) for o in w.snapshot()])
            elif op[0] == "clear":
                for name in list(w.scene):
                    w.remove(name)
        except (PhysicsError, ValueError) as exc:
            out.append([_Err(exc)])
    out.append([_Scene(w)])
    w.close()
    return out


class _Err:
    def __init__(self, exc: Exception) -> None:
        self.text = f"{type(exc).__name__}: {exc}"

    def to_json(self) -> str:
        return self.text


class _Out:
    """An outcome with its quaternion (DiePose.to_json leaves it out)."""

    def __init__(self, o) -> None:
        self.o = o

    def to_json(self) -> dict:
        return {**self.o.to_json(), "quaternion": list(self.o.quaternion)}


class _Scene:
    def __init__(self, w: World) -> None:
        self.poses = {n: [list(pd.pose.position), list(pd.pose.quaternion)] for n, pd in w.scene.items()}

    def to_json(self) -> dict:
        return self.poses


def test_single_throws_of_every_die_match_a_fresh_world_bit_for_bit(monkeypatch):
    # A fresh Bullet world every 3 tampered dice (it frees their collision shapes).
    monkeypatch.setattr("simulator.physics.world.MAX_OWN_SHAPES", 3)
    table = TableSpec()
    rng = np.random.default_rng(13)
    script = []
    for i in range(200):  # dice of both materials, one after another in one world
        die = available()[i % len(available())]
        script.append(("throw", [(f"t{i}", load_die(die), random_throw(table, 1 + i % 2, rng))]))
        script.append(("clear",))
    kept, fresh = _play(True, table, script), _play(False, table, script)
    assert _digest(kept) == _digest(fresh)


def test_throws_into_a_crowded_scene_match_a_fresh_world_bit_for_bit():
    table = TableSpec()
    rng = np.random.default_rng(7)
    d8 = load_die("paper-d8")
    script = [("place", ("a", d8, 1, 0.0, (0.0, 0.0))), ("place", ("b", d8, 2, 30.0, (0.08, 0.0))),
              ("place", ("c", d8, 5, 60.0, (-0.1, 0.1)))]
    for i in range(40):  # throws accumulate: dice knock each other over and fall off
        script.append(("throw", [(f"t{i}", d8, random_throw(table, 1 + i % 2, rng))]))
    kept, fresh = _play(True, table, script), _play(False, table, script)
    assert _digest(kept) == _digest(fresh)


def test_placing_many_dice_matches_a_world_built_around_each_one_bit_for_bit():
    """Placements add one body to the world as it stands and ask Bullet only about the dice
    near them (issue 15, item 18); the reference rebuilds the world around every placement
    and checks every die. Every shipped die (materials, tampered), refusals by dice and an
    obstacle, dice that touch, removes and tips between them, then throws into the crowd."""
    block = Obstacle("block", "box", (0.1, 0.05), (0.12, 0.08, 0.1))
    table = TableSpec(obstacles=(block,))
    dice = [load_die(d) for d in available()]
    rng = np.random.default_rng(18)
    script: list = []
    spots = []
    for i in range(100):
        model = dice[i % len(dice)] if i % 3 else dice[available().index("paper-d8")]
        face = 1 + i % 6
        xy = (float(rng.uniform(-0.55, 0.55)), float(rng.uniform(-0.4, 0.4)))
        spots.append(xy)
        script.append(("place", (f"p{i}", model, face, float(rng.uniform(-180, 180)), xy)))
        if i % 20 == 17:  # a die taken away, another put where it was
            script.append(("remove", f"p{i - 3}"))  # (if it was refused, an error)
            script.append(("place", (f"q{i}", model, face, 0.0, spots[i - 3])))
        if i % 25 == 24:
            script.append(("tip", (f"p{i - i % 3}", "xyz"[i % 3])))  # paper d8s
            script.append(("tip", ("p0", "xyz"[i % 3])))
            script.append(("snapshot",))
    for i in range(2):
        script.append(("throw", [(f"t{i}", dice[4], random_throw(table, 1 + i % 2, rng))]))
    script.append(("snapshot",))
    kept, fresh = _play(True, table, script), _play(False, table, script)
    refused = sum(1 for rs in kept for r in rs if isinstance(r, _Err) and "overlap" in r.text)
    placed = len(kept[-1][0].poses)
    assert refused > 15 and placed > 50, (refused, placed)  # a crowded table, both kinds
    assert _digest(kept) == _digest(fresh)


def test_placing_n_dice_creates_n_bodies_and_asks_about_neighbours_only():
    """Placing N dice one after another was O(N^2): the world was rebuilt with every die
    for each placement (twice) and each new die checked against every other. Counted, not
    timed: Bullet bodies created and closest-point queries (benchmarks/bench_place.py
    times it)."""
    n = 300
    w = World(TableSpec(width=2.0, depth=2.0))
    calls = {"createMultiBody": 0, "getClosestPoints": 0}
    for fn in calls:
        real = getattr(w._client, fn)

        def counted(*args, _real=real, _fn=fn, **kwargs):
            calls[_fn] += 1
            return _real(*args, **kwargs)

        setattr(w._client, fn, counted)
    d8 = load_die("paper-d8")
    side = 25
    for i in range(n):  # 70 mm apart: clear of each other, but within the grid's reach
        w.place(f"d{i}", d8, 1 + i % 8, 5.0 * i, (-0.9 + 0.07 * (i % side), -0.9 + 0.07 * (i // side)))
    assert len(w.scene) == n
    assert calls["createMultiBody"] <= n + 2, calls  # the table, and each die once
    # A placement and its touch check ask about the (at most 2) neighbours placed before.
    assert n <= calls["getClosestPoints"] <= 4 * n, calls


@pytest.mark.parametrize("n", [1, 3, 6])
def test_tray_groups_match_a_fresh_world_bit_for_bit(n):
    tray = tray_table()
    rng = np.random.default_rng(n)
    d6 = load_die("d6")
    script = []
    for r in range(12):
        script.append(("throw", [(f"d{k}", d6, tray_throw(tray, k, n, rng)) for k in range(n)]))
        if r % 3 == 2:
            script.append(("clear",))
    kept, fresh = _play(True, tray, script), _play(False, tray, script)
    assert _digest(kept) == _digest(fresh)


TABLES = (TableSpec(), TableSpec(obstacles=(Obstacle("block", "box", (0.1, 0.05), (0.12, 0.08, 0.1)),)))


def _lone_throws(table: TableSpec, rng: np.random.Generator, at_0: dict, at_5: dict) -> list:
    """60 throws of one die each onto an empty table, cycling through the shipped dice; throws
    0, 10, 20, ... changed by `at_0` and 5, 15, ... by `at_5`."""
    script: list = []
    for i in range(60):
        die = available()[i % len(available())]
        throw = random_throw(table, 1 + i % 2, rng)
        if i % 10 in (0, 5):
            throw = replace(throw, **(at_0 if i % 10 == 0 else at_5))
        script.append(("throw", [(f"t{i}", load_die(die), throw)]))
        script.append(("clear",))
    return script


def test_coasting_through_the_air_gives_the_bits_of_watching_every_step(monkeypatch):
    coasts: list[int] = []
    real = bullet_steps.coast_steps  # (the PyBullet world's settle loops)

    def counted(*args, **kwargs):
        k = real(*args, **kwargs)
        coasts.append(k)
        return k

    monkeypatch.setattr(bullet_steps, "coast_steps", counted)
    rng = np.random.default_rng(31)
    for table in TABLES:
        # every tenth a drop straight down from rest, every tenth a lob straight up
        script = _lone_throws(table, rng, dict(release=(0.0, 0.0, 0.3), velocity=(0.0, 0.0, 0.0),
                                               spin=(0.0, 0.0, 0.0)),
                              dict(release=(0.05, -0.1, 0.05), velocity=(0.0, 0.0, 3.0)))
        coasts.clear()
        watched = _play(True, table, script, coast=False)
        assert not coasts, "with coast off no step goes unwatched"
        coasted = _play(True, table, script, coast=True)
        assert sum(coasts) > 60 * 40, f"the throws coasted only {sum(coasts)} steps"
        assert _digest(coasted) == _digest(watched)


# Drops from rest found (by search) to pause poised on an edge or a point before falling.
POISED_DROPS = [
    ("solid-d8", 0.08767456686569088,
     (0.7756018051631892, -0.29666993958889004, 0.2048514154976904, -0.5181357779004645)),
    ("bipyramid-d10", 0.09062329813859724,
     (0.19999512188755883, -0.2898709342877638, 0.6437848249309729, -0.6793510814482568)),
]


# The digest of the script below at 504aadf, whose lone unrecorded die ran in a loop of its
# own (stepping._settle_one), the general loop written again with plain locals.
LONE_LOOP_DIGEST = "254599619c6ab666d292f9a80d3a1122af8ac0dd823482e76f80dee4a89b787e"


def test_a_lone_die_in_the_one_settle_loop_gives_the_bits_of_its_own_loop(monkeypatch):
    """One settle loop for every run (stepping.settle): a lone unrecorded die is stepped by
    the engine's advance_one, and every report and the final scene are those its own loop
    gave at 504aadf, on a bare table and among obstacles, for every shipped die, drops, lobs
    and throws straight off the edge included, and drops that pause poised on an edge."""
    calls: list[int] = []
    real = bullet_steps._lone_advance

    def counted(run):
        calls.append(1)
        return real(run)

    monkeypatch.setattr(bullet_steps, "_lone_advance", counted)
    poised: list[bool] = []
    real_poised = World._poised

    def seen(self, body):
        poised.append(real_poised(self, body))
        return poised[-1]

    monkeypatch.setattr(World, "_poised", seen)
    rng = np.random.default_rng(47)
    digests = []
    for table in TABLES:
        # every tenth a drop from rest, every tenth straight off the edge
        script = _lone_throws(table, rng, dict(release=(0.0, 0.0, 0.2), velocity=(0.0, 0.0, 0.0),
                                               spin=(0.0, 0.0, 0.0), orientation=(0.0, 0.0, 0.0, 1.0)),
                              dict(release=(0.55, 0.0, 0.1), velocity=(3.0, 0.0, 0.0)))
        for die, z, q in POISED_DROPS:  # drops that pause on an edge or a point (World._poised)
            script.append(("throw", [("poised", load_die(die), ThrowSpec((0.0, 0.0, z), (0.0, 0.0, 0.0),
                                                                         (0.0, 0.0, 0.0), q))]))
            script.append(("clear",))
        calls.clear()
        digests.append(_digest(_play(True, table, script)))
        assert len(calls) == 60 + len(POISED_DROPS)
    assert sum(poised) >= 2 * len(TABLES) * len(POISED_DROPS), "the poised drops must pause poised"
    assert hashlib.sha256(" ".join(digests).encode()).hexdigest() == LONE_LOOP_DIGEST


def test_outcomes_read_from_one_contact_query_are_those_read_die_by_die():
    """A throw and a snapshot classify every die from one query of all contact points
    (asking die by die was O(N^2)); the answer per die must be the same, leaning included."""
    table = TableSpec(obstacles=(Obstacle("block", "box", (0.1, 0.05), (0.12, 0.08, 0.1)),))
    w = World(table)
    d8 = load_die("paper-d8")
    rng = np.random.default_rng(5)
    for i in range(12):
        w.place(f"p{i}", d8, 1 + i % 8, 30.0 * i, (-0.4 + 0.075 * (i % 6), -0.1 * (i // 6)))
    touched = set()
    for i in range(25):
        w.throw(f"t{i}", d8, random_throw(table, 1 + i % 2, rng))
        w._build(w.scene)
        ids = w._touching_ids()
        for name in w.scene:
            bid = w._bodies[name].bid
            assert (bid in ids) == w._in_contact(bid), name
            assert w._classify(name, ids) == w._classify(name), name
            touched |= {name} if bid in ids else set()
    assert len(touched) > 5, touched  # dice resting against each other or the block
