"""The table's rounded top edges (world.table_edges, docs/physics.md "Table edges"): the dice
that rocked for good across the sharp edge now rest, the edges carry the table's material,
and resting against an edge is resting on the table, not leaning on something."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from dice_models import load_die
from simulator.bench.bare import BareLoop
from simulator.physics import SURFACES, PhysicsSettings, TableSpec, World
from simulator.physics.contact import realize
from simulator.physics.dice import die_shape
from simulator.physics.throws import random_throw
from simulator.physics.world import EDGE_RADIUS

# The two throws traced to a die rocking across the sharp edge for the whole 20 s
# (NotSettledError before the edges were rounded): the stuck-dice run's tampered d8 on rubber,
# throw 7861 (its seed rule: [crc32(config name), i]), and tests/test_physics_fairness.py's
# tampered d8 on felt, seed [20261130, 4332].
STUCK = [("rubber", [zlib.crc32(b"tampered-d8/rubber"), 7861]), ("felt", [20261130, 4332])]


@pytest.mark.parametrize("surface,seed", STUCK)
def test_a_die_across_the_edge_comes_to_rest(surface: str, seed: list[int]) -> None:
    table = TableSpec(surface=SURFACES[surface], source="<test>")
    throw = random_throw(table, 1, np.random.default_rng(seed))
    w = World(table, PhysicsSettings())
    report = w.throw("die", load_die("tampered-d8"), throw)  # raised NotSettledError before
    assert report.steps < 2000, report.steps  # 394 and 302 steps of 1/240 s
    w.close()


def test_the_edges_are_inside_the_slab_with_the_tables_material() -> None:
    table = TableSpec(surface=SURFACES["vinyl"], width=1.2, depth=0.9)
    w = World(table)
    w.place("a", load_die("d6"), 1, 0.0, (0.0, 0.0))
    c = w._client
    assert len(w._edge_ids) == 4 and w._table_ids == {w._table_id, *w._edge_ids}
    k_t = realize([load_die("d6").contact_material], [table.surface]).bodies[table.surface.name]
    for bid in w._edge_ids:
        info = c.getDynamicsInfo(bid, -1)
        assert (info[1], info[5], info[6], info[7]) == pytest.approx(
            (k_t.friction, k_t.restitution, k_t.rolling_friction, k_t.spinning_friction))
        lo, hi = c.getAABB(bid)  # within the slab: the top stays flat, the edge is rounded
        assert hi[2] <= 1e-9 + 1e-3 and lo[2] >= -2 * EDGE_RADIUS - 1e-3  # AABB margins
        assert max(abs(lo[0]), abs(hi[0])) <= 0.6 + 1e-3 and max(abs(lo[1]), abs(hi[1])) <= 0.45 + 1e-3
    w.close()


def test_a_round_table_has_no_capsule_edges() -> None:
    w = World(TableSpec(shape="round", radius=0.6))
    w.place("a", load_die("d6"), 1, 0.0, (0.0, 0.0))
    assert w._edge_ids == [] and w._table_ids == {w._table_id}
    w.close()


def test_overhanging_on_the_edge_is_not_leaning() -> None:
    """The felt throw of STUCK ends with the die over the edge, on the edge capsule: that is
    the table, so with another die on the table (far away) it overhangs, it does not lean."""
    table = TableSpec(surface=SURFACES["felt"], source="<test>")
    w = World(table, PhysicsSettings())
    w.place("far", load_die("d6"), 1, 0.0, (-0.5, -0.35))
    throw = random_throw(table, 1, np.random.default_rng(STUCK[1][1]))
    report = w.throw("die", load_die("tampered-d8"), throw)
    assert (report.outcome.status, report.outcome.reason) == ("off_table", "overhang")
    bid = w._bodies["die"].bid
    assert any(cp[2] in w._edge_ids and cp[8] < 1e-3
               for cp in w._client.getContactPoints(bodyA=bid)), "it should lie on the edge"
    assert bid not in w._touching_ids() and not w._in_contact(bid)
    w.close()


def test_the_reference_loop_has_the_same_edges() -> None:
    """The bare loop (the speed reference) throws onto the same table: same face and steps
    as World on throws that end across an edge."""
    table = TableSpec(surface=SURFACES["rubber"], source="<test>")
    model = load_die("tampered-d8")
    bare = BareLoop(die_shape(model), table, PhysicsSettings())
    w = World(table, PhysicsSettings())
    throw = random_throw(table, 1, np.random.default_rng(STUCK[0][1]))
    report = w.throw("die", model, throw)
    face, steps = bare.throw(throw)
    assert (face, steps) == (report.outcome.face if report.outcome.status != "fell_off" else -1,
                             report.steps)
    w.close()
