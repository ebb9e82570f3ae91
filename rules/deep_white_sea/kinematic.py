"""A kinematic table for Deep White Sea: the `Table` protocol without a physics engine.

Tips (a continuous 3D sweep of the roll against every die near enough to be met),
placement, sight and the edge are exact geometry (`geometry.py`, which is
`dice_models.geometry`, the physics table's own code); a throw is a
simple, deterministic model: a ballistic flight to the first touch of the table, a slide
along the throw's direction proportional to its horizontal speed, the face and yaw drawn
from a hash of the throw (so they look random but the same throw always gives the same
result), and a push for the first resting die the slide runs into (knocked off if pushed
past the edge). A die landing on top of another rests leaning and is off the table.

It serves the engine's tests and fast bot search; the physics table
(the simulator layer's) is the real thing. Units: m, s, degrees.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass
from typing import Any

from dice_models.geometry import Solid, signed_distance
from rules.core.protocols import DiePose, RulesError, ThrowResult, ThrowSpec, TipResult
from rules.core.throwing import GRAVITY, check_throw, foul_of
from rules.deep_white_sea.geometry import AXES, TOUCH_M, Octahedron

SLIDE_S = 0.08  # s: slide distance after touchdown = this x horizontal speed
DIE_RADIUS = 0.027  # m: contact radius of a resting die's footprint for throws
PUSH_SHARE = 0.7  # share of the remaining slide passed on to a die that is hit
TUMBLE_M = 0.05  # m: a die hit with more slide left than this tumbles to a new face
STEP_M = 0.004  # m: sampling step along a slide
NEAR_M = 0.15  # m: centres farther apart than this cannot touch during a tip
MODEL_VERSION = 1


@dataclass(frozen=True)
class Resting:
    face: int  # geometry face index up (0..7); the face value is face + 1
    yaw: float
    x: float
    y: float


class KinematicTable:
    """A rectangular table `width` x `depth` (m) with paper d8 of edge `edge` (m)."""

    def __init__(self, width: float = 1.2, depth: float = 0.9, edge: float = 0.05) -> None:
        self.width = width
        self.depth = depth
        self.edge = edge
        self.oct = Octahedron(edge)
        self.dice: dict[str, Resting] = {}
        self._gone: dict[str, DiePose] = {}  # knocked off during the current throw
        self._poses: dict[tuple[str, Resting], DiePose] = {}  # pose cache (poses are frozen)
        self._solids: dict[Resting, Solid] = {}  # resting dice as solids, for tip sweeps
        self._sweeps: dict[tuple[Any, ...], str | None] = {}  # tip sweep -> blocker

    # -- the Table protocol ---------------------------------------------------------------

    def throw(self, die: str, spec: ThrowSpec, player: int = 1) -> ThrowResult:
        check_throw(spec)  # the same rules and words as the physics table
        if die in self.dice:
            raise RulesError(f"die {die!r} is already on the table")
        foul, why = foul_of(spec, player, self.depth / 2)
        u = _hash_uniforms(spec, 3)
        face = int(u[0] * 8) % 8
        yaw = u[1] * 360.0 - 180.0
        rx, ry, rz = spec.release
        vx, vy, vz = spec.velocity
        h = self.oct.inradius
        disc = vz * vz + 2 * GRAVITY * max(rz - h, 0.0)
        t = (vz + math.sqrt(disc)) / GRAVITY
        land = (rx + vx * t, ry + vy * t)
        before = dict(self.dice)
        if not self._inside(land, 0.0):
            return self._result(die, Resting(face, yaw, *land), "fell_off", foul, why, before)
        under = self._nearest(land, 2 * DIE_RADIUS * 0.6)
        if under is not None:  # came down on top of a die: it rests leaning
            r = self.dice[under]
            self.dice[under] = Resting(r.face, _wrap(r.yaw + 40.0 * (u[2] - 0.5)), r.x, r.y)
            return self._result(die, Resting(face, yaw, *land), "leaning", foul, why, before)
        vh = math.hypot(vx, vy)
        slide = SLIDE_S * vh
        dx, dy = (vx / vh, vy / vh) if vh > 0 else (0.0, 0.0)
        # A spinning die curls sideways a little, as a real die's bounce does.
        curl = 0.15 * math.tanh(spec.spin[2] / 20.0)
        dx, dy = dx - curl * dy, dy + curl * dx
        norm = math.hypot(dx, dy) or 1.0
        dx, dy = dx / norm, dy / norm
        end, hit, left = self._slide(land, (dx, dy), slide, exclude=die)
        if hit is not None:
            self._push(hit, end, left, u[2])
        return self._result(die, Resting(face, yaw, *end), None, foul, why, before)

    def tip(self, die: str, corner: str) -> TipResult:
        blocker, final = self._tip(die, corner)
        if blocker is not None:
            return TipResult(False, self.pose(die), blocker)
        assert final is not None
        self.dice[die] = final
        return TipResult(True, self.pose(die), None)

    def can_tip(self, die: str, corner: str) -> str | None:
        return self._tip(die, corner)[0]

    def place(self, die: str, face: int, yaw_deg: float, xy: tuple[float, float]) -> DiePose:
        if die in self.dice:
            raise RulesError(f"die {die!r} is already on the table")
        r = Resting(face - 1, float(yaw_deg), float(xy[0]), float(xy[1]))
        if not self._on_table(r):
            raise RulesError(f"die {die!r} at ({xy[0]:.3f}, {xy[1]:.3f}) m would not rest "
                             "wholly on the table")
        hit = self._overlapping(die, self._solid(r))
        if hit is not None:
            raise RulesError(f"die {die!r} at ({xy[0]:.3f}, {xy[1]:.3f}) m would overlap {hit}")
        self.dice[die] = r
        return self.pose(die)

    def remove(self, die: str) -> None:
        self.dice.pop(die, None)

    def snapshot(self) -> list[DiePose]:
        return [self.pose(n) for n in sorted(self.dice)]

    def clone(self) -> KinematicTable:
        t = KinematicTable.__new__(KinematicTable)
        t.width, t.depth, t.edge, t.oct = self.width, self.depth, self.edge, self.oct
        t.dice = dict(self.dice)
        t._gone = {}
        t._poses = self._poses
        t._solids = self._solids  # shared: a solid depends only on the resting pose
        t._sweeps = self._sweeps  # shared: a sweep depends only on the poses in its key
        return t

    def to_json(self) -> dict[str, Any]:
        return {"kind": "kinematic", "width": self.width, "depth": self.depth,
                "edge": self.edge,
                "dice": {n: [r.face, r.yaw, r.x, r.y] for n, r in sorted(self.dice.items())}}

    @staticmethod
    def from_json(data: dict[str, Any]) -> KinematicTable:
        try:
            t = KinematicTable(float(data["width"]), float(data["depth"]), float(data["edge"]))
            for n, (face, yaw, x, y) in data["dice"].items():
                t.dice[str(n)] = Resting(int(face), float(yaw), float(x), float(y))
        except (KeyError, TypeError, ValueError) as exc:
            raise RulesError(f"kinematic table: bad saved scene ({exc})") from None
        return t

    def describe(self) -> dict[str, Any]:
        return {"kind": "kinematic", "model_version": MODEL_VERSION, "width": self.width,
                "depth": self.depth, "die_edge": self.edge, "slide_s": SLIDE_S,
                "push_share": PUSH_SHARE}

    # -- poses --------------------------------------------------------------------------

    def pose(self, die: str, status: str = "on_table", reason: str | None = None,
             r: Resting | None = None) -> DiePose:
        r = r if r is not None else self.dice[die]
        if status == "on_table":
            key = (die, r)
            cached = self._poses.get(key)
            if cached is None:
                if len(self._poses) > 4096:
                    self._poses.clear()
                cached = self._poses[key] = self._make_pose(die, status, reason, r)
            return cached
        return self._make_pose(die, status, reason, r)

    def _make_pose(self, die: str, status: str, reason: str | None, r: Resting) -> DiePose:
        return DiePose(die=die, status=status, reason=reason, face=r.face + 1,
                       position=(r.x, r.y, self.oct.inradius), yaw_deg=r.yaw,
                       top_corners=self.oct.top_corners(r.face, r.yaw, (r.x, r.y)))

    # -- helpers ------------------------------------------------------------------------

    def _result(self, die: str, r: Resting, reason: str | None, foul: bool, why: str | None,
                before: dict[str, Resting]) -> ThrowResult:
        if reason is None and not self._on_table(r):
            reason = "fell_off" if not self._inside((r.x, r.y), 0.0) else "overhang"
        if reason is None:
            self.dice[die] = r
            outcome = self.pose(die)
        else:
            outcome = self.pose(die, "off_table", reason, r)
        disturbed = []
        for n, b in before.items():
            if n not in self.dice:
                disturbed.append((self.pose(n, r=b), self._gone.pop(n)))
            elif self.dice[n] != b:
                disturbed.append((self.pose(n, r=b), self.pose(n)))
        return ThrowResult(foul, why, outcome, tuple(disturbed), self.describe())

    def _push(self, hit: str, at: tuple[float, float], left: float, u: float) -> None:
        r = self.dice[hit]
        dx, dy = r.x - at[0], r.y - at[1]
        norm = math.hypot(dx, dy) or 1.0
        dx, dy = dx / norm, dy / norm
        end, _, _ = self._slide((r.x, r.y), (dx, dy), PUSH_SHARE * left + 0.005, exclude=hit)
        face = r.face
        if left > TUMBLE_M:
            face = int(u * 8) % 8
        moved = Resting(face, _wrap(r.yaw + 90.0 * (u - 0.5)), end[0], end[1])
        if self._on_table(moved):
            self.dice[hit] = moved
            return
        reason = "fell_off" if not self._inside(end, 0.0) else "overhang"
        del self.dice[hit]
        self._gone[hit] = self.pose(hit, "off_table", reason, moved)

    def _slide(self, start: tuple[float, float], d: tuple[float, float], dist: float,
               exclude: str) -> tuple[tuple[float, float], str | None, float]:
        """Move from `start` along unit `d` by `dist`, stopping short of the first die it
        would touch: (end, die hit or None, distance left)."""
        n = max(1, int(dist / STEP_M))
        pos = start
        for i in range(1, n + 1):
            p = (start[0] + d[0] * dist * i / n, start[1] + d[1] * dist * i / n)
            hit = self._nearest(p, 2 * DIE_RADIUS, exclude)
            if hit is not None:
                return pos, hit, dist * (n - i + 1) / n
            if not self._inside(p, -0.05):
                return p, None, 0.0  # gone over the edge
            pos = p
        return pos, None, 0.0

    def _nearest(self, p: tuple[float, float], within: float,
                 exclude: str | None = None) -> str | None:
        best, best_d = None, within
        for n, r in self.dice.items():
            if n == exclude:
                continue
            d = math.hypot(r.x - p[0], r.y - p[1])
            if d < best_d:
                best, best_d = n, d
        return best

    def _tip(self, die: str, corner: str) -> tuple[str | None, Resting | None]:
        if die not in self.dice:
            raise RulesError(f"die {die!r} is not on the table")
        if corner not in AXES:
            raise RulesError(f"corner must be one of x, y, z (got {corner!r})")
        r = self.dice[die]
        face, yaw, xy = self.oct.tip_end(r.face, r.yaw, (r.x, r.y), corner)
        # Only a die within reach of the roll can block it: sweep against those alone.
        near = [n for n in sorted(self.dice)
                if n != die and math.hypot(self.dice[n].x - r.x, self.dice[n].y - r.y) < NEAR_M]
        if near:
            # Cached: bots and legal-action lists ask the same tip of the same scene again
            # and again, and a sweep near a neighbour costs milliseconds.
            key = (r, corner, tuple((n, self.dice[n]) for n in near))
            if key not in self._sweeps:
                if len(self._sweeps) > 4096:
                    self._sweeps.clear()
                hit = self.oct.tip_blocker(r.face, r.yaw, (r.x, r.y), corner,
                                           [self._solid(self.dice[n]) for n in near])
                self._sweeps[key] = None if hit is None else near[hit]
            if self._sweeps[key] is not None:
                return self._sweeps[key], None
        final = Resting(face, yaw, xy[0], xy[1])
        if not self._on_table(final):
            return "table_edge", None
        return None, final

    def _solid(self, r: Resting) -> Solid:
        solid = self._solids.get(r)
        if solid is None:
            if len(self._solids) > 4096:
                self._solids.clear()
            solid = self._solids[r] = self.oct.solid(r.face, r.yaw, (r.x, r.y))
        return solid

    def _overlapping(self, die: str, solid: Solid) -> str | None:
        """The first die (by name) that `solid` penetrates deeper than TOUCH_M, in 3D."""
        for n in sorted(self.dice):
            if n == die:
                continue
            r = self.dice[n]
            if abs(r.x - solid.vertices[0][0]) > 0.2 or abs(r.y - solid.vertices[0][1]) > 0.2:
                continue
            if signed_distance(solid, self._solid(r)) < -TOUCH_M:
                return n
        return None

    def _on_table(self, r: Resting) -> bool:
        return all(self._inside(c, 0.0)
                   for c in self.oct.bottom_corners(r.face, r.yaw, (r.x, r.y)))

    def _inside(self, p: tuple[float, float], inset: float) -> bool:
        return abs(p[0]) <= self.width / 2 - inset and abs(p[1]) <= self.depth / 2 - inset


def _hash_uniforms(spec: ThrowSpec, n: int) -> list[float]:
    data = struct.pack("<13d", *spec.release, *spec.velocity, *spec.spin, *spec.orientation)
    digest = hashlib.sha256(data).digest()
    return [int.from_bytes(digest[4 * i:4 * i + 4], "little") / 2**32 for i in range(n)]


def _wrap(yaw: float) -> float:
    return (yaw + 180.0) % 360.0 - 180.0
