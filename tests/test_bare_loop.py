"""The speed reference (`simulator.bench.bare.BareLoop`) must do World's job step for step:
the same face (or fell off) at the same step, or its speed says nothing about World's."""

from __future__ import annotations

import numpy as np
import pytest

from dice_models import load_die
from dice_models.materials import material_from
from rules.core.protocols import ThrowSpec
from simulator.bench.bare import BareLoop
from simulator.physics import die_shape
from simulator.physics.settings import SURFACES, PhysicsSettings, TableSpec
from simulator.physics.throws import random_throw
from simulator.physics.world import MAX_POISED, World


def _face(report: object) -> int:
    out = report.outcome  # type: ignore[attr-defined]
    return -1 if out.reason == "fell_off" else int(out.face)


@pytest.mark.parametrize(("die", "surface"), [("paper-d8", "felt"), ("tampered-d8", "vinyl"),
                                              ("d6", "slick")])
def test_the_reference_loop_gives_worlds_face_at_worlds_step(die: str, surface: str) -> None:
    table = TableSpec(surface=SURFACES[surface], source="<test>")
    model = load_die(die)
    world, bare = World(table), BareLoop(die_shape(model), table, PhysicsSettings())
    fell = 0
    for i in range(80):
        throw = random_throw(table, 1, np.random.default_rng([5, i]))
        report = world.throw("d", model, throw)
        world.scene.clear()
        assert bare.throw(throw) == (_face(report), report.steps), i
        fell += _face(report) == -1
    assert 0 < fell < 80  # both ways of ending a throw were compared


# Drops from rest that pause poised on an edge or a point (tests/test_kept_table.py).
POISED_DROPS = [
    ("solid-d8", 0.08767456686569088,
     (0.7756018051631892, -0.29666993958889004, 0.2048514154976904, -0.5181357779004645)),
    ("bipyramid-d10", 0.09062329813859724,
     (0.19999512188755883, -0.2898709342877638, 0.6437848249309729, -0.6793510814482568)),
]


@pytest.mark.parametrize(("die", "z", "q"), POISED_DROPS)
def test_a_die_truly_held_on_an_edge_rests_tilted_after_max_poised_restarts_in_both(
        die: str, z: float, q: tuple[float, float, float, float],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rolling-friction lever arm (5 mm, custom surface data) truly holds a die on an edge
    or a point: World restarts the hold MAX_POISED times and then takes the tilted rest
    (leaning); the reference loop does the same at the same step, where it used to step on
    until it gave up."""
    sticky = material_from({"preset": "felt", "rolling_friction": 0.005, "name": "sticky"},
                           "<test>", "surface")
    table = TableSpec(surface=sticky, source="<test>")
    model = load_die(die)
    throw = ThrowSpec((0.0, 0.0, z), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), q)
    poised: list[bool] = []
    real = World._poised

    def seen(self: World, body: object) -> bool:
        poised.append(real(self, body))  # type: ignore[arg-type]
        return poised[-1]

    monkeypatch.setattr(World, "_poised", seen)
    report = World(table).throw("d", model, throw)
    assert sum(poised) == MAX_POISED
    assert report.outcome.reason == "leaning"
    assert BareLoop(die_shape(model), table, PhysicsSettings()).throw(throw) == (
        report.outcome.face, report.steps)
