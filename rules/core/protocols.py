"""The two small protocols through which rule engines see the world, and the state API.

- `DiceRoller` for the d6 games: the seeded roller (`rules.core.rollers`) or the physics
  roller of the simulator layer that throws dice into a tray.
- `Table` for Deep White Sea: implemented by the PyBullet table
  of the simulator layer and by a kinematic table for tests and bot search
  (`rules.deep_white_sea.kinematic`).
- `GameState`: the OpenSpiel-style vocabulary every engine follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4


class RulesError(ValueError):
    """A user-caused rules problem (illegal action, corrupt save): one clear line."""


class TableError(RuntimeError):
    """The table could not say what happened (a physics simulation that failed to settle,
    tunnelled or blew up). Bots searching ahead skip such candidates."""


@runtime_checkable
class DiceRoller(Protocol):
    name: str

    def roll(self, kind: str, n: int, rng: np.random.Generator) -> tuple[int, ...]:
        """Roll n dice of `kind` ('d6', 'd8', 'd6:red', ...) and return their up faces."""
        ...


@dataclass(frozen=True)
class ThrowSpec:
    """A throw as data, the one type for it in every layer (the rules, the physics, the lab,
    the window). Release position of the die's centre in m (z above the table surface),
    velocity in m/s, spin in rad/s, orientation as a quaternion (x, y, z, w), all in table
    coordinates. `seed` seeds the physics' symmetry-breaking tilt of a pure drop
    (the physics world's symmetry break); 0 unless a caller sets it."""

    release: tuple[float, float, float]
    velocity: tuple[float, float, float]
    spin: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "release": list(self.release),
            "velocity": list(self.velocity),
            "spin": list(self.spin),
            "orientation": list(self.orientation),
        }
        if self.seed:
            out["seed"] = self.seed
        return out

    @staticmethod
    def from_json(d: dict[str, Any]) -> ThrowSpec:
        return ThrowSpec(
            release=tuple(d["release"]),  # type: ignore[arg-type]
            velocity=tuple(d["velocity"]),  # type: ignore[arg-type]
            spin=tuple(d.get("spin", (0.0, 0.0, 0.0))),  # type: ignore[arg-type]
            orientation=tuple(d.get("orientation", (0.0, 0.0, 0.0, 1.0))),  # type: ignore[arg-type]
            seed=int(d.get("seed", 0)),
        )


@dataclass(frozen=True)
class DiePose:
    """Where a die is and how it lies, the one type for it in every layer (what a rule
    engine sees and what the physics reports). `status` is 'on_table' or 'off_table';
    `reason` is None on the table, else 'fell_off', 'leaning' or 'overhang'. `face` is the
    value the die shows; `top_corners` maps corner axis name ('x', 'y', 'z' for the d8) to
    the (x, y) table position of that top-face corner, in m. `quaternion` (x, y, z, w) is
    the physics' full orientation (the kinematic table, which reasons in faces and yaw,
    leaves the identity); `to_json` leaves it out, as game logs always have."""

    die: str
    status: str
    reason: str | None
    face: int
    position: tuple[float, float, float]
    yaw_deg: float
    top_corners: dict[str, tuple[float, float]] = field(default_factory=dict)
    quaternion: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "die": self.die,
            "status": self.status,
            "reason": self.reason,
            "face": self.face,
            "position": list(self.position),
            "yaw_deg": self.yaw_deg,
            "top_corners": {k: list(v) for k, v in self.top_corners.items()},
        }


@dataclass(frozen=True)
class ThrowResult:
    """Outcome of a throw: foul flag and reason, the thrown die's pose, and for every other
    die it disturbed a (before, after) pair. The physics' `ThrowReport` is this with what
    only the physics knows added (steps, trajectory, ...)."""

    foul: bool
    foul_reason: str | None
    outcome: DiePose
    disturbed: tuple[tuple[DiePose, DiePose], ...] = ()
    # What simulated it (physics settings, versions, table), recorded in game logs.
    physics: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "foul": self.foul,
            "foul_reason": self.foul_reason,
            "outcome": self.outcome.to_json(),
            "disturbed": [{"before": b.to_json(), "after": a.to_json()}
                          for b, a in self.disturbed],
            "physics": self.physics,
        }


@dataclass(frozen=True)
class TipResult:
    """A tip over a corner: rolled (with the new pose) or blocked by what (the pose is then
    the unchanged one). The physics' `TipReport` adds the die, the corner and the pose
    before."""

    rolled: bool
    pose: DiePose
    blocked_by: str | None = None  # another die's name, 'obstacle:<name>' or 'table_edge'


class Table(Protocol):
    """The table as a rule engine sees it. `player` is the thrower's seat in table terms
    (1 at y = -depth/2, 2 at y = +depth/2); a die that ends off the table (fell off,
    leaning, overhanging) leaves the table, whether thrown or knocked. `can_tip` answers
    what `tip` would (None, or what blocks it) without moving anything. `clone` is an
    independent copy (for bots searching ahead); `to_json` / the implementation's
    `from_json` restore the exact scene; `describe` names the table and its settings."""

    def throw(self, die: str, spec: ThrowSpec, player: int = 1) -> ThrowResult: ...

    def tip(self, die: str, corner: str) -> TipResult: ...

    def can_tip(self, die: str, corner: str) -> str | None: ...

    def place(self, die: str, face: int, yaw_deg: float, xy: tuple[float, float]) -> DiePose: ...

    def remove(self, die: str) -> None: ...

    def snapshot(self) -> list[DiePose]: ...

    def clone(self) -> Table: ...

    def to_json(self) -> dict[str, Any]: ...

    def describe(self) -> dict[str, Any]: ...


# An action is a tuple of str and int (nested tuples allowed), so it goes into a JSON log
# as a list and comes back (rules.core.runner.to_json / from_json).
Action = tuple[Any, ...]


class GameState(Protocol):
    """OpenSpiel-style state: what the runner, the bots, `tabletop replay --verify`, the
    window's session and the network server ask of every game's state (rules/registry.py
    says each method's contract). Chance nodes have current_player() == CHANCE_PLAYER; they
    name what must be rolled with `chance_request()` -> (kind, n) and take the faces with
    `apply_chance(faces)`.

    Optional, asked for with getattr because a protocol cannot say "may have":
    `chance_outcomes()` -> [(faces, probability)] where enumeration is small,
    `is_legal(action)` for parametric actions, and on a physics table `take_results()`
    and `world_info()`."""

    def current_player(self) -> int: ...

    def is_chance_node(self) -> bool: ...

    def is_terminal(self) -> bool: ...

    def num_players(self) -> int: ...

    def player_name(self, seat: int) -> str: ...

    def chance_request(self) -> tuple[str, int]: ...

    def apply_chance(self, faces: tuple[int, ...]) -> None: ...

    def legal_actions(self) -> list[Action]: ...

    def apply_action(self, action: Action) -> None: ...

    def action_to_string(self, action: Action) -> str: ...

    def take_events(self) -> list[str]: ...

    def returns(self) -> list[float]: ...

    def clone(self) -> GameState: ...

    def serialize(self) -> dict[str, Any]: ...

    def render(self) -> str: ...


class StateBase:
    """The part of the contract every state derives from `current_player`: a state whose
    current player is CHANCE_PLAYER is a chance node, one whose current player is
    TERMINAL_PLAYER is over. Written once here so the three answers can never disagree
    (each engine used to answer all three from its phases separately)."""

    def current_player(self) -> int:
        raise NotImplementedError

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE_PLAYER

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL_PLAYER


class GameModule(Protocol):
    """A game package's plug-in surface (`rules/<game>/__init__.py`; rules/registry.py says
    what each function does). Optional, asked for with getattr: `candidate_actions`,
    `make_bot`, `OWN_PLAYERS`, `BOT_SETTINGS`."""

    def new_game(self, num_players: int, options: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None) -> GameState: ...

    def deserialize(self, data: dict[str, Any]) -> GameState: ...

    def heuristic(self, state: Any) -> list[float]: ...

    def greedy_action(self, state: Any, rng: np.random.Generator) -> Action: ...

    # For the game-AI adapters (rules/<game>/spaces.py): a bound of a game's moves, every
    # action numbered (a `rules.core.spaces.Vocabulary`), the state as named float arrays.
    def max_game_length(self, state: Any) -> int: ...

    def vocabulary(self, state: Any) -> Any: ...

    def encode(self, state: Any) -> dict[str, np.ndarray]: ...
