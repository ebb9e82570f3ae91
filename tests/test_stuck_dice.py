"""Dice that never come to rest: the d6 tray re-throws them (counted apart from cocked
dice), a physics failure reaching the `tabletop` command is one line and exit status 3,
and the stuck-dice bench (simulator/bench/stuck.py) finds none."""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np
import pytest

from dice_models import load_die
from simulator.bench import stuck
from simulator.bench.bare import BareLoop
from simulator.cli.main import main
from simulator.physics import die_shape, stepping
from simulator.physics.settings import SURFACES, PhysicsSettings, TableSpec
from simulator.physics.throws import random_throw
from simulator.physics.tray import MAX_UNSETTLED, PhysicsRoller, roll_tray
from simulator.physics.world import NotSettledError, PhysicsError, TunnelError, World


@pytest.fixture(scope="module")
def d6() -> Any:
    return load_die("d6")


def _slow_first_throw(d6: Any) -> tuple[int, PhysicsSettings]:
    """A seed whose single die lands flat at the first throw, the slowest of a few to come
    to rest, and settings whose max_time stops one step short of that rest: the first throw
    of that seed raises NotSettledError (same draws, same physics up to the cut), and a
    re-throw, drawn afresh from the same generator, rests in time."""
    rolls = {seed: roll_tray(d6, 1, np.random.default_rng(seed)) for seed in range(8)}
    seed = max((s for s, r in rolls.items() if r.rethrows == 0 and r.unsettled == 0),
               key=lambda s: rolls[s].steps)
    base = PhysicsSettings()
    return seed, base.with_(max_time=(rolls[seed].steps - 1.5) * base.time_step)


def test_tray_rethrows_a_throw_that_never_comes_to_rest(d6: Any) -> None:
    seed, short = _slow_first_throw(d6)
    roll = roll_tray(d6, 1, np.random.default_rng(seed), short)
    assert roll.unsettled >= 1  # counted apart from the cocked re-throws
    assert len(roll.faces) == 1 and 1 <= roll.faces[0] <= 6
    # Deterministic: the same seed and settings give the same roll, re-throws included.
    assert roll_tray(d6, 1, np.random.default_rng(seed), short) == roll
    # The physics roller adds them up for the game.
    roller = PhysicsRoller(short)
    assert roller.roll("d6", 1, np.random.default_rng(seed)) == roll.faces
    assert roller.roll("d6:red", 1, np.random.default_rng(seed)) == roll.faces
    assert (roller.unsettled, roller.rethrows) == (2 * roll.unsettled, 2 * roll.rethrows)


def test_tray_gives_up_after_max_unsettled_rethrows(d6: Any) -> None:
    # Shorter than hold_time: no throw can ever be seen at rest.
    never = PhysicsSettings().with_(max_time=0.1)
    with pytest.raises(PhysicsError, match=f"{MAX_UNSETTLED + 1} times never came to rest") as info:
        roll_tray(d6, 2, np.random.default_rng(0), never)
    assert isinstance(info.value.__cause__, NotSettledError)


def _fail_first(monkeypatch: pytest.MonkeyPatch, calls: list[int], fail_on: set[int]) -> None:
    """The settle loop (stepping.settle) raises NotSettledError on the listed calls (1-based)."""
    original = stepping.settle

    def settle(run: Any, record: bool) -> Any:
        calls.append(1)
        if len(calls) in fail_on:
            raise NotSettledError("forced by the test")
        return original(run, record)

    monkeypatch.setattr(stepping, "settle", settle)


def test_tray_rethrow_keeps_the_dice_already_resting(d6: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A roll with cocked dice after its first throw; its second throw (the cocked dice
    # again) is made to fail: the third throw is the same dice again, onto the same scene.
    seed = next(s for s in range(20) if roll_tray(d6, 8, np.random.default_rng(s)).rethrows)
    seen: list[tuple[list[str], dict[str, Any]]] = []
    group = World.throw_group

    def throw_group(self: World, dice: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(([name for name, _m, _t in dice],
                     {n: pd.pose for n, pd in self.scene.items()}))
        return group(self, dice, *args, **kwargs)

    monkeypatch.setattr(World, "throw_group", throw_group)
    _fail_first(monkeypatch, [], {2})
    roll = roll_tray(d6, 8, np.random.default_rng(seed))
    assert len(roll.faces) == 8 and all(1 <= f <= 6 for f in roll.faces)
    (_all, _empty), (again, resting), (third, resting3) = seen[:3]
    assert resting and again and len(resting) + len(again) == 8
    assert third == again and resting3 == resting
    assert roll.unsettled == len(again)


def test_play_reports_dice_rethrown_after_an_unsettled_throw(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[int] = []
    _fail_first(monkeypatch, calls, {1})
    status = main(["play", "dicewar", "--headless", "--players", "random,random",
                   "--dice", "physics", "--seed", "0"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    last = [line for line in out if line.startswith("physics dice:")]
    assert len(last) == 1
    assert "cocked dice re-thrown" in last[0]
    assert "re-thrown after a throw that never came to rest" in last[0]


# -- limit cycles: the confinement rule -------------------------------------------------------

# Throws of `python -m benchmarks.bench_stuck` (seeded [crc32(configuration), index]) that
# never came to rest before the rule (docs/stuck-run.txt of 2026-12-01): the d00 lies on a
# face mid-table trading its contact points in a 3-step cycle at 0.19-0.55 rad/s; the
# tampered d8 rocks on the table's edge at up to 2.4 rad/s, within 1 mm and 3 deg.
LIMIT_CYCLES = [("d00", "vinyl", 7804, "on_table", 600),
                ("tampered-d8", "vinyl", 9430, "off_table", 528)]


def _bench_throw(die: str, surface: str, index: int) -> tuple[TableSpec, Any, Any]:
    table = TableSpec(surface=SURFACES[surface], source="<test>")
    key = zlib.crc32(f"{die}/{surface}".encode())
    return table, load_die(die), random_throw(table, 1, np.random.default_rng([key, index]))


@pytest.mark.parametrize(("die", "surface", "index", "status", "steps"), LIMIT_CYCLES)
def test_a_die_held_in_a_limit_cycle_rests_by_the_confinement_rule(
        die: str, surface: str, index: int, status: str, steps: int) -> None:
    table, model, throw = _bench_throw(die, surface, index)
    # Without the rule the throw never settles (what the rule is for) ...
    with pytest.raises(NotSettledError):
        World(table, PhysicsSettings(confine_time=0.0)).throw("d", model, throw)
    # ... with it the die rests, counted as confined, at the step the 11th check finds it
    # still in its cage: checks are every 24th step (docs/physics.md quotes these steps).
    world = World(table)
    report = world.throw("d", model, throw)
    assert (report.outcome.status, report.steps, world.confined) == (status, steps, 1)
    # Coasting (unwatched steps in the air, ended at the next check) moves no check: the
    # same steps when every step is watched (c4a8b33: 599 and 567 coasting).
    watched = World(table)
    watched.coast = False
    assert watched.throw("d", model, throw).steps == steps
    # The bench's reference loop applies the same rule at the same steps.
    bare = BareLoop(die_shape(model), table, PhysicsSettings())
    assert bare.throw(throw) == (report.outcome.face, report.steps)  # neither fell off


@pytest.mark.parametrize(("die", "surface"), [("d6", "hardwood"), ("paper-d8", "felt"),
                                              ("d12", "vinyl")])
def test_coasting_changes_no_confinement_even_in_a_cage_wide_enough_to_hold_a_die_in_flight(
        die: str, surface: str) -> None:
    """A coast (unwatched steps of a die in the air) ends at the next check of the rule, so
    every check reads the state it would with every step watched. With a cage of 10 cm and
    180 deg at up to 100 rad/s, 0.3 s (wide enough to hold a die in flight, and throws then
    rest confined), World coasting, World watching every step and the
    bench's reference loop give the same outcome at the same step in every throw; when a
    coast could run past a check (which was then made at the coast's end, another pose), 21
    of 300 such throws changed step."""
    table = TableSpec(surface=SURFACES[surface], source="<test>")
    model = load_die(die)
    s = PhysicsSettings(confine_m=0.1, confine_deg=180.0, confine_spin=100.0, confine_time=0.3)
    coasting, watched = World(table, s), World(table, s)
    watched.coast = False
    bare = BareLoop(die_shape(model), table, s)
    for i in range(40):
        throw = random_throw(table, 1, np.random.default_rng([3, i]))
        a = coasting.throw("d", model, throw)
        b = watched.throw("d", model, throw)
        watched.scene.clear()
        assert (b.outcome, b.steps) == (a.outcome, a.steps), i
        coasting.scene.clear()
        face = a.outcome.face if a.outcome.reason != "fell_off" else -1
        assert bare.throw(throw) == (face, a.steps), i
    # (A die whose 11th check falls on the step its hold ends rests by the hold in both.)
    assert coasting.confined == watched.confined > 0


def test_a_die_tipping_slowly_off_the_edge_is_not_confined() -> None:
    """The cage (2 mm, 5 deg) is narrower than the way a die goes in confine_time while it
    keeps moving one way at the settle speeds, so a slow topple leaves it. Throw 5245 of the
    stuck-dice run's paper d8 on felt slows to 0.10 rad/s with its centre on the table's edge
    and then tips off: with confine_time 0.45 s (a cage wider than the way at the settle
    speeds) it stays within the cage and is taken for at rest as an overhang at step 363;
    whether so short a cage catches it depends on where the checks fall (0.5 s misses it on
    the grid of checks, and caught it at 376 when checks were timed from the end of a
    coast). With 1 s it falls off at step 452 as without the rule."""
    table, model, throw = _bench_throw("paper-d8", "felt", 5245)
    s = PhysicsSettings()
    assert s.confine_m < s.settle_linear * s.confine_time
    assert s.confine_deg < math.degrees(s.settle_angular * s.confine_time)
    world = World(table)
    report = world.throw("d", model, throw)
    assert (report.outcome.reason, report.steps, world.confined) == ("fell_off", 452, 0)
    short = World(table, s.with_(confine_time=0.45))
    early = short.throw("d", model, throw)
    assert (early.outcome.reason, early.steps, short.confined) == ("overhang", 363, 1)


@pytest.mark.parametrize(("die", "surface"), [("paper-d8", "felt"), ("d6", "slick"),
                                              ("d12", "vinyl"), ("d4", "rubber")])
def test_the_confinement_rule_changes_no_ordinary_throw(die: str, surface: str) -> None:
    """A die that comes to rest by the hold is never confined first: 60 random throws give
    the same outcomes and steps with the rule as without it (the cage, 2 mm and 5 deg for
    1 s, is far wider than a resting die's jitter and narrower than a moving die's path).
    Over 324,000 throws of every die on every surface none differed with the rule's first
    version, 0.5 s (docs/physics.md)."""
    table = TableSpec(surface=SURFACES[surface], source="<test>")
    model = load_die(die)
    on, off = World(table), World(table, PhysicsSettings(confine_time=0.0))
    for i in range(60):
        throw = random_throw(table, 1, np.random.default_rng([7, i]))
        a, b = on.throw("d", model, throw), off.throw("d", model, throw)
        on.scene.clear()
        off.scene.clear()
        assert (a.outcome, a.steps) == (b.outcome, b.steps), i
    assert on.confined == 0
    assert PhysicsSettings(confine_time=0.0).confine_rule()[0] > math.ceil(
        PhysicsSettings().max_time / PhysicsSettings().time_step)


def test_the_confinement_rule_changes_no_tray_roll() -> None:
    """The general loop (several dice, some resting while others move, thawed dice) keeps
    the hold's results too: 12 rolls of 4 d6 into the tray, the same faces, re-throws and
    steps with the rule as without it, and none confined."""
    d6 = load_die("d6")
    for seed in range(12):
        on = roll_tray(d6, 4, np.random.default_rng(seed))
        off = roll_tray(d6, 4, np.random.default_rng(seed), PhysicsSettings(confine_time=0.0))
        assert (on.faces, on.rethrows, on.steps, on.unsettled) == (
            off.faces, off.rethrows, off.steps, off.unsettled), seed
        assert on.confined == 0


# -- the command: one line, exit status 3 ----------------------------------------------------


def _always(monkeypatch: pytest.MonkeyPatch, exc: type[PhysicsError]) -> None:
    def settle(run: Any, record: bool) -> Any:
        raise exc("forced by the test\nsecond line")

    monkeypatch.setattr(stepping, "settle", settle)


@pytest.mark.parametrize("argv", [
    ["throw", "--die", "d6"],
    ["throw", "--die", "d6", "--tray", "--count", "2"],
    ["play", "dicewar", "--headless", "--players", "random,random", "--dice", "physics"],
])
@pytest.mark.parametrize("exc", [NotSettledError, TunnelError])
def test_cli_physics_error_is_one_line_and_status_3(
        argv: list[str], exc: type[PhysicsError], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _always(monkeypatch, exc)
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"tabletop {argv[0]}: physics error: ")
    assert "Traceback" not in err


def test_cli_bad_input_is_still_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["throw", "--die", "d6", "--tray", "--count", "0"]) == 2
    assert capsys.readouterr().err.startswith("tabletop throw: error: ")


# -- the stuck-dice bench, 1,000 throws ----------------------------------------------------

# About 1,000 throws in all, spread over the bench's configurations (every shipped die on
# every surface, and trays of 1 to 6 d6: 48 configurations, 21 throws or rolls each, about
# 20 s on one core). 1,000 per configuration would take over 10 minutes on one core (the
# trays roll at 5-40 rolls/s), too long for the suite: python -m benchmarks.bench_stuck.
BENCH_THROWS = -(-1000 // len(stuck.all_configs()))
# Known exceptions (configuration name -> reason), expected to fail: none since the contact
# model of issue 13 (docs/physics.md); before it, bipyramid-d10/neoprene and
# cuboid-d6-long/neoprene rested on an edge of the empty table and 6 d6 in the tray never
# came to rest, in these first throws.
KNOWN_STUCK: dict[str, str] = {}


def _bench_params() -> list[Any]:
    return [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(reason=KNOWN_STUCK[c.name],
                                                                strict=False)]
                         if c.name in KNOWN_STUCK else [])
            for c in stuck.all_configs()]


@pytest.mark.slow
@pytest.mark.parametrize("config", _bench_params())
def test_stuck_dice_bench_finds_none(config: stuck.Config) -> None:
    totals = stuck.run([config], BENCH_THROWS)
    assert stuck.failures(totals) == []
