"""Random legal throws: a seeded draw of a release behind the thrower's edge (outside the
foul zone), a ballistic velocity toward a point on the table, spin and orientation."""

from __future__ import annotations

import numpy as np

from dice_models.numerics import norm
from rules.core.protocols import ThrowSpec
from rules.core.throwing import GRAVITY
from simulator.physics.settings import TableSpec
from simulator.physics.world import FOOT

# Throw energy ranges of a person tossing a paper die underhand: flight 0.45-0.8 s,
# spin up to 25 rad/s per axis (about 4 turns a second).
FLIGHT_TIME = (0.45, 0.8)
SPIN_MAX = 25.0


def random_throw(table: TableSpec, player: int, rng: np.random.Generator,
                 spin_max: float = SPIN_MAX,
                 flight_time: tuple[float, float] = FLIGHT_TIME,
                 gravity: float = GRAVITY) -> ThrowSpec:
    """A legal throw from `player`'s side aimed at the middle 60% of the table."""
    half_w = table.width / 2 if table.shape == "rect" else table.radius * 0.7
    if rng.random() < 0.5:  # from well back, at any height up to shoulder-ish
        back = rng.uniform(FOOT + 0.01, FOOT + 0.3)
        z = rng.uniform(0.05, 0.4)
    else:  # close to the edge but above the foul zone
        back = rng.uniform(0.02, FOOT + 0.3)
        z = rng.uniform(FOOT + 0.01, 0.5)
    x = rng.uniform(-0.6 * half_w, 0.6 * half_w)
    edge = table.edge_y
    release = np.array([x, -edge - back, z])
    target = np.array([rng.uniform(-0.6 * half_w, 0.6 * half_w),
                       rng.uniform(-0.6 * edge, 0.6 * edge), 0.03])
    t = rng.uniform(*flight_time)
    vel = (target - release) / t
    vel[2] += 0.5 * gravity * t
    spin = rng.uniform(-spin_max, spin_max, size=3)
    q = rng.normal(size=4)
    q /= norm(q)
    if player == 2:  # mirror through the table's x axis: y -> -y
        release[1], vel[1] = -release[1], -vel[1]
    return ThrowSpec(release=_t3(release), velocity=_t3(vel), spin=_t3(spin),
                     orientation=(float(q[0]), float(q[1]), float(q[2]), float(q[3])))


def _t3(a: np.ndarray) -> tuple[float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]))


__all__ = ["FLIGHT_TIME", "SPIN_MAX", "random_throw"]
