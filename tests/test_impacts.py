"""The last phase of a throw against mechanics (issue 36, item 1; docs/impacts.md): single
impacts of a steel cuboid and the rocking of a tile and a bar in PyBullet and MuJoCo, each
figure against Newton's restitution, Coulomb's friction, Housner's rocking block or the
static toppling tilt. Tolerances are the spread of the runs recorded in docs/impacts.md."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from simulator.experiments import impacts as im

HAS_MUJOCO = importlib.util.find_spec("mujoco") is not None
needs_mujoco = pytest.mark.skipif(not HAS_MUJOCO, reason="mujoco is not installed")

TILE = im.cuboid_die(im.TILE, "tile")
BAR = im.cuboid_die(im.BAR, "bar")
GAPS = im.GAPS[::2]  # four release heights: the push-out's phase, at half the cost


# -- the mechanics the figures are compared with -------------------------------------------------


def test_impulse_model_central_and_sliding() -> None:
    m, inertia = 0.015, np.diag([4e-7, 4e-7, 6e-7])
    v, w, stuck = im.impulse(m, inertia, (0, 0, 0), (0, 0, -1.0), (0, 0, 0), 0.6, 0.4)
    assert v[2] == pytest.approx(0.6) and stuck
    # sliding through: |dv_t| = mu (1 + e) v_n exactly; a slow slide stops instead
    v, w, stuck = im.impulse(m, inertia, (0, 0, 0), (0, 3.0, -1.0), (0, 0, 0), 0.6, 0.4)
    assert not stuck and 3.0 - v[1] == pytest.approx(0.4 * 1.6)
    v, w, stuck = im.impulse(m, inertia, (0, 0, 0), (0, 0.3, -1.0), (0, 0, 0), 0.6, 0.4)
    assert stuck and v[1] == pytest.approx(0.0, abs=1e-12)
    # off-centre: the contact point's normal velocity reverses by e, whatever the lever
    r = np.array([0.0, -0.005, -0.004])
    v, w, _ = im.impulse(m, inertia, r, (0, 0, -1.0), (0, 0, 0), 0.6, 0.4)
    assert (v + np.cross(w, r))[2] == pytest.approx(0.6)


def test_housner_rocking_block() -> None:
    # Housner (1963): r = 1 - 3/2 sin^2(alpha); a square section (alpha 45 deg) keeps a quarter
    assert im.housner_r(1.0, 1.0) == pytest.approx(0.25)
    bar = im.STANCES["bar on end"]
    assert math.degrees(bar.alpha) == pytest.approx(28.14, abs=0.01)
    assert im.housner_r(bar.b, bar.h) == pytest.approx(0.666, abs=0.001)
    a1 = im.housner_next(math.radians(16.88), bar.b, bar.h)
    assert im.measured_r(math.radians(16.88), a1, bar.b, bar.h) == pytest.approx(
        im.housner_r(bar.b, bar.h))
    assert im.housner_next(0.3, 0.008, 0.00376) == 0.0  # a flat tile (r < 0) cannot rock


# -- (a) single impacts --------------------------------------------------------------------------


@pytest.mark.parametrize("e", [0.3, im.RESTITUTION])
def test_bullet_flat_drop_restitution_is_the_set_value(e: float) -> None:
    # A face landing flat bounces with the set restitution: at 1 and 2 m/s the mean over the
    # release heights was 0.637 and 0.615 for 0.596 (Bullet's push-out of the penetration,
    # depth / 0.02 s, adds the rest); each height within 0.07 of the set value.
    for speed in (1.0, 2.0):
        s = im.drop_series(TILE, "flat", speed, im.Knobs(restitution=e), gaps=GAPS)
        assert abs(s.com_e[0] - e) < 0.05, (speed, s.com_e)
        assert s.com_e[1] > e - 0.03 and s.com_e[2] < e + 0.08, (speed, s.com_e)


def test_bullet_oblique_landing_obeys_coulomb() -> None:
    # sliding through the impact, the horizontal velocity change is mu times the normal one
    # (0.4324 measured to 3 decimals); a slow slide is stopped (less than mu)
    fast = im.drop_series(TILE, "flat", 1.0, slide=3.0, gaps=GAPS)
    assert fast.tangential[2] == pytest.approx(im.FRICTION, abs=0.002)
    assert fast.energy_lost[0] == pytest.approx(fast.energy_lost_predicted, abs=0.01)
    slow = im.drop_series(TILE, "flat", 1.0, slide=0.3, gaps=GAPS)
    assert slow.tangential[2] < im.FRICTION - 0.2


def test_bullet_eccentric_impacts_newton_but_for_the_spin_clamp() -> None:
    # A tile landing on an edge or a corner loses what Newton and Coulomb say at 1 m/s
    # (ratios 0.94 and 0.97), but more the faster it lands (1.29 and 1.36 times at 3 m/s,
    # its contact point keeping 0.22-0.34 of its normal speed for a set 0.596): Bullet
    # clamps a multibody's velocity coordinates at 100 (rad/s for the spin), and Newton's
    # impact would spin it faster. With the clamp at 1000 the loss is Newton's within 5%.
    for landing in ("edge", "corner"):
        slow = im.drop_series(TILE, landing, 1.0, gaps=GAPS)
        assert slow.energy_lost[0] / slow.energy_lost_predicted == pytest.approx(0.95, abs=0.05)
        fast = im.drop_series(TILE, landing, 3.0, gaps=GAPS)
        assert fast.energy_lost[0] / fast.energy_lost_predicted > 1.2, landing
        assert fast.point_e[0] < 0.4, landing
        free = im.drop_series(TILE, landing, 3.0, im.Knobs(max_spin=1000.0), gaps=GAPS)
        assert free.energy_lost[0] / free.energy_lost_predicted == pytest.approx(1.0, abs=0.05)
        assert free.point_e[0] == pytest.approx(im.RESTITUTION, abs=0.03)


@needs_mujoco
def test_mujoco_flat_drop_is_near_plastic() -> None:
    # MuJoCo's pair restitution is at most 0.20 (docs/engines.md): 0.16 at 2 m/s measured,
    # and a slow landing keeps nothing
    from simulator.physics.mujoco_world import realized_restitution

    fast = im.drop_series(TILE, "flat", 2.0, im.Knobs(engine="mujoco"), gaps=GAPS)
    assert fast.com_e[0] == pytest.approx(realized_restitution(im.RESTITUTION), abs=0.05)
    slow = im.drop_series(TILE, "flat", 0.3, im.Knobs(engine="mujoco"), gaps=GAPS)
    assert slow.com_e[2] < 0.02


# -- (b) rocking and toppling --------------------------------------------------------------------


@pytest.mark.parametrize("engine,stance,tol", [
    ("pybullet", "bar on end", 0.04),  # 0.643 measured, Housner 0.666
    ("pybullet", "tile on edge", 0.04),  # 0.711, Housner 0.729
    ("mujoco", "bar on end", 0.05),  # 0.700
])
def test_first_rocking_impact_is_housners(engine: str, stance: str, tol: float) -> None:
    if engine == "mujoco" and not HAS_MUJOCO:
        pytest.skip("mujoco is not installed")
    st = im.STANCES[stance]
    r = im.rock(st, 0.6 * math.degrees(st.alpha), 240, im.Knobs(engine=engine))
    assert not r.toppled
    assert r.r_measured[0] == pytest.approx(r.r_housner, abs=tol)


def test_bullet_flat_tile_does_not_rock() -> None:
    # alpha 64.8 deg > 54.7: Housner's block stops at its first impact (r < 0); Bullet's
    # tile, released at 38.9 deg, rocks back less than a degree
    r = im.rock(im.STANCES["tile flat"], 38.9, 240)
    assert r.r_housner < 0 and not r.toppled
    assert r.amplitudes[1] < 1.0


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_critical_tilt_is_the_geometric_one(engine: str) -> None:
    if engine == "mujoco" and not HAS_MUJOCO:
        pytest.skip("mujoco is not installed")
    st = im.STANCES["bar on end"]
    crit = im.critical_tilt(st, im.Knobs(engine=engine), tol_deg=0.1)
    assert crit == pytest.approx(math.degrees(st.alpha), abs=0.1)


# -- (c) a face landing flat ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_square_face_lands_on_four_points(engine: str) -> None:
    if engine == "mujoco" and not HAS_MUJOCO:
        pytest.skip("mujoco is not installed")
    for tilt in (0.0, 0.5):
        land = im.land_flat(TILE, 0.5, tilt, im.Knobs(engine=engine), steps=60)
        assert land.first_contacts == 4, (tilt, land.contacts)
        assert land.spin_after < 1.0
    if engine == "pybullet":  # and bounces back with its restitution (0.688 at 0.5 m/s)
        assert land.rebound == pytest.approx(im.RESTITUTION, abs=0.1)


@pytest.mark.parametrize("max_spin", [None, 1000.0])
def test_bullet_spin_clamp_and_the_hook_that_raises_it(max_spin: float | None) -> None:
    # Bullet's multibody clamp: a die set spinning at 300 rad/s in the air is cut to 100 a
    # coordinate at the first step; throw_shares' hook (_clamp_spin) lifts it per body
    from simulator.physics.dice import die_shape
    from simulator.physics.world import Pose, World

    world = World()
    try:
        if max_spin is not None:
            im._clamp_spin(world, max_spin)
        world._build({}, adding=(TILE,))
        body = world._add_body("d", die_shape(TILE), Pose((0.0, 0.0, 0.3), (0.0, 0.0, 0.0, 1.0)))
        world._client.resetBaseVelocity(body.bid, [0.0, 0.0, 0.0], [300.0, 0.0, 0.0])
        world._client.stepSimulation()
        spin = world._client.getBaseVelocity(body.bid)[1][0]
    finally:
        world.close()
    if max_spin is None:
        assert spin == pytest.approx(100.0, rel=0.02)
    else:  # only the lab's multibody damping (DICE_DAMPING w (1 + w) a second) slows it
        assert spin == pytest.approx(300.0 - 0.04 * 300.0 * 301.0 / 240.0, rel=0.01)
