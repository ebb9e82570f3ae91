"""The frozen dice's wake check passes over a moving die whose box misses the box around
every frozen die by more than its reach (bullet_steps._Frozen.woken with the loop's squared
speeds): at every step of throws into scenes of resting paper d8s it must wake exactly the
dice that reading every moving die wakes."""

from __future__ import annotations

import copy

import numpy as np

from dice_models import load_die
from rules.core.protocols import ThrowSpec
from simulator.physics import World, bullet_steps
from simulator.physics.settings import TableSpec
from simulator.physics.throws import random_throw

TABLE, D8 = TableSpec(), load_die("paper-d8")
SPOTS = [(0.0, 0.0), (0.07, 0.01), (-0.05, 0.07), (0.02, -0.08)]


def _scene(k: int, seed: int, base: int) -> tuple[World, np.random.Generator, tuple[float, float]]:
    """A World with k resting paper d8s, the throws' generator, the spot of one of them."""
    w = World(TABLE)
    for j in range(k):
        w.place(f"r{j}", D8, 1 + (j + seed) % 8, 17.0 * j, SPOTS[j])
    return w, np.random.default_rng(base + 10 * k + seed), SPOTS[seed % k]


def test_passing_over_dice_out_of_reach_wakes_the_dice_reading_every_die_wakes(monkeypatch):
    woken = bullet_steps._Frozen.woken
    calls, wakes = [0], [0]

    def checked(self, world, active, moving, v2s=None, w2s=None):
        ref = copy.copy(self)
        ref.boxes = dict(self.boxes)
        expected = woken(ref, world, active, moving)  # every moving die read
        got = woken(self, world, active, moving, v2s, w2s)
        assert v2s is not None and got == expected and self.boxes == ref.boxes
        calls[0] += 1
        wakes[0] += bool(got)
        return got

    monkeypatch.setattr(bullet_steps._Frozen, "woken", checked)
    for k in range(1, 5):
        for seed in range(3):
            w, rng, (x, y) = _scene(k, seed, 100)
            w.throw("t", D8, ThrowSpec((x + 0.01, y, 0.12), (0.0, 0.0, -0.5), (3.0, -2.0, 1.0),
                                       (0.0, 0.0, 0.0, 1.0)) if seed == 0
                    else random_throw(TABLE, 1 + seed % 2, rng))
            w.throw("u", D8, random_throw(TABLE, 2, rng))
            w.close()
    assert calls[0] > 1000 and wakes[0] >= 12  # every throw dropped onto a die woke one


def _scene_throws() -> list:
    """Every report and the scene after each of 24 throws into scenes of resting paper d8s."""
    out = []
    for k in range(1, 5):
        for seed in range(3):
            w, rng, (x, y) = _scene(k, seed, 200)
            drop = ThrowSpec((x, y + 0.01, 0.1), (0.1, 0.0, -0.3), (-2.0, 4.0, 0.0), (0.0, 0.0, 0.0, 1.0))
            out.append([(r.to_json(), r.trajectory) for r in w.throw_group(
                [("t", D8, drop if seed == 0 else random_throw(TABLE, 1, rng)),
                 ("u", D8, random_throw(TABLE, 2, rng))], record=seed == 1)])
            out.append({n: [list(pd.pose.position), list(pd.pose.quaternion)] for n, pd in w.scene.items()})
            w.close()
    return out


def test_passing_over_static_dice_after_their_hold_gives_the_bits_of_watching_every_die(monkeypatch):
    passed_over = _scene_throws()
    init = bullet_steps.BulletRun.__init__

    def watching_all(self, *args):
        init(self, *args)
        self.static = set()  # the settle loop watches the frozen dice at every step

    monkeypatch.setattr(bullet_steps.BulletRun, "__init__", watching_all)
    assert _scene_throws() == passed_over


def _lone_scene_throws(coast: bool) -> list:
    """Every report and the scene after 2 throws of one die each into each of 12 scenes of
    1-4 resting paper d8s (one a drop onto a die), with World.coast as given."""
    out = []
    for k in range(1, 5):
        for seed in range(3):
            w, rng, (x, y) = _scene(k, seed, 300)
            w.coast = coast
            drop = ThrowSpec((x, y - 0.01, 0.3), (0.0, 0.2, -0.2), (1.0, 0.0, 3.0), (0.0, 0.0, 0.0, 1.0))
            for t in range(2):
                spec = drop if seed == 0 and t == 0 else random_throw(TABLE, 1 + (t + seed) % 2, rng)
                reports = w.throw_group([(f"t{t}", D8, spec)])
                out.append([(r.to_json(), r.outcome.quaternion) for r in reports])
            out.append({n: [list(pd.pose.position), list(pd.pose.quaternion)] for n, pd in w.scene.items()})
            w.close()
    return out


def test_one_die_coasting_among_frozen_dice_gives_the_bits_of_watching_every_step(monkeypatch):
    coasted = [0]
    coast = bullet_steps.BulletRun._coast

    def counted(self, step, w):
        after = coast(self, step, w)
        coasted[0] += after - step
        return after

    monkeypatch.setattr(bullet_steps.BulletRun, "_coast", counted)
    watched = _lone_scene_throws(False)
    assert coasted[0] == 0, "with World.coast off no step goes unread"
    assert _lone_scene_throws(True) == watched
    assert coasted[0] > 24 * 40, f"the throws coasted only {coasted[0]} steps among the dice"


def test_a_scene_classified_once_is_not_built_again_and_reads_as_a_fresh_world(monkeypatch):
    builds = [0]
    build = World._build

    def counted(self, *args, **kwargs):
        builds[0] += 1
        return build(self, *args, **kwargs)

    monkeypatch.setattr(World, "_build", counted)
    kept, fresh = _scene(4, 1, 400)[0], _scene(4, 1, 400)[0]
    fresh.keep_table = False  # the reference: built around every question
    expected = [fresh.outcome_of(f"r{j}") for j in range(4)] + fresh.snapshot()
    builds[0] = 0
    got = [kept.outcome_of(f"r{j}") for j in range(4)]
    assert builds[0] == 1  # the first question built the scene; the others read what it found
    got += kept.snapshot()
    assert builds[0] == 1 and got == expected
    kept.throw("t", D8, ThrowSpec((0.3, 0.3, 0.1), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    assert builds[0] == 2  # the throw's run only: the dice before it were known
    fresh.close()
    kept.close()
