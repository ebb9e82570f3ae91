"""The rules of a throw that every table shares, written once (DESIGN.md, "Throwing
Rules"): the foul zone of a release and the throws no person could make. The physics
world and the kinematic table both judge a throw with these, so they agree to the word.
Units: m, s, rad.
"""

from __future__ import annotations

import math

from dice_models.errors import DataError
from rules.core.protocols import RulesError, ThrowSpec

FOOT = 0.3048  # m: the foul zone is one foot back from the edge and one foot high (rulebook)
GRAVITY = 9.81  # m/s^2: what every layer's throws and falls are worked out with
MAX_SPEED = 50.0  # m/s: faster releases are refused as absurd
MAX_SPIN = 1000.0  # rad/s
_NUMBERS = (int, float)


class ThrowError(DataError, RulesError):
    """A throw no person could make: a `DataError` for the physics and the command line, a
    `RulesError` for the rule engines and the bots that search throws."""


def foul_of(throw: ThrowSpec, player: int, edge_y: float) -> tuple[bool, str | None]:
    """Foul or not, and why: a legal release is behind the thrower's edge line (player 1's
    at y = -edge_y, player 2's at y = +edge_y), and either more than a foot back from it or
    higher than a foot above the table surface."""
    _x, y, z = throw.release
    behind = (-edge_y - y) if player == 1 else (y - edge_y)
    if behind <= 0:
        return True, f"released {-behind:.3f} m in front of player {player}'s edge line"
    if behind < FOOT and z < FOOT:
        return True, (f"released in the foul zone: {behind:.3f} m behind the edge and "
                      f"{z:.3f} m above the table (a legal release is >= {FOOT} m back or "
                      f">= {FOOT} m high)")
    return False, None


def check_throw(throw: ThrowSpec, source: str = "throw") -> None:
    """Refuse, with one `ThrowError` line naming the field, a throw no person could make:
    values that are not finite numbers, absurd speeds or spins, a release at or below the
    table surface, an orientation that is not a unit quaternion."""
    for name, vec in (("release", throw.release), ("velocity", throw.velocity),
                      ("spin", throw.spin), ("orientation", throw.orientation)):
        for v in vec:  # (a loop, not all() of a generator: this runs before every throw)
            if not isinstance(v, _NUMBERS) or isinstance(v, bool) or not math.isfinite(v):
                raise ThrowError(source, name, "must be finite numbers", list(vec))
    speed = math.sqrt(sum(v * v for v in throw.velocity))
    if speed > MAX_SPEED:
        raise ThrowError(source, "velocity", f"speed {speed:.1f} m/s is over the "
                         f"{MAX_SPEED:.0f} m/s limit", list(throw.velocity))
    spin = math.sqrt(sum(w * w for w in throw.spin))
    if spin > MAX_SPIN:
        raise ThrowError(source, "spin", f"spin {spin:.0f} rad/s is over the {MAX_SPIN:.0f} "
                         "rad/s limit", list(throw.spin))
    if throw.release[2] <= 0:
        raise ThrowError(source, "release", "height z must be above the table surface (z > 0)",
                         list(throw.release))
    if not 0.5 < math.sqrt(sum(c * c for c in throw.orientation)) < 1.5:
        raise ThrowError(source, "orientation", "must be a unit quaternion (x, y, z, w)",
                         list(throw.orientation))
