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
