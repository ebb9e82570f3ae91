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
    table, d8 = TableSpec(), load_die("paper-d8")
    spots = [(0.0, 0.0), (0.07, 0.01), (-0.05, 0.07), (0.02, -0.08)]
    for k in range(1, 5):
        for seed in range(3):
            rng = np.random.default_rng(100 + 10 * k + seed)
            w = World(table)
            for j in range(k):
                w.place(f"r{j}", d8, 1 + (j + seed) % 8, 17.0 * j, spots[j])
            x, y = spots[seed % k]
            w.throw("t", d8, ThrowSpec((x + 0.01, y, 0.12), (0.0, 0.0, -0.5), (3.0, -2.0, 1.0),
                                       (0.0, 0.0, 0.0, 1.0)) if seed == 0
                    else random_throw(table, 1 + seed % 2, rng))
            w.throw("u", d8, random_throw(table, 2, rng))
            w.close()
    assert calls[0] > 1000 and wakes[0] >= 12  # every throw dropped onto a die woke one
