"""Diceland: Deep White Sea, the basic game (`shared/rulebooks/deep-white-sea.txt` with the
decisions of `CLARIFICATIONS.md`), adjudicated from what a `Table` reports.

The engine is an OpenSpiel-style state over a stack of tasks. A task is plain JSON: either
bookkeeping the engine runs by itself (start of turn, continuous effects, poison counters,
what follows a throw, end of turn) or a decision of one player (the first placement, the
turn's action, the opponent's choice after a foul, a die's shot after landing, each
commanded ally's action, a Repair or Confuse direction, the throw of a Called or Jumping
die, the target of a long-range continuous effect). Nested actions (Command, Call Ally,
Jump) push their tasks on top, so "follow through all the effects of that action before
moving on" is the stack order.

Actions are tuples: ('place', die, side, yaw_deg), ('throw', die, spec) with spec the 13
numbers of a `ThrowSpec` (release, velocity, spin, orientation; `legal_actions` lists the
placeholder ('throw', die)), ('move', die, corner), ('shoot', die, mode[, target]),
('tip', die, corner), ('aim', source, target), ('foul', 'allow'|'no_shot'|'remove'),
('decline',), ('pass',). Corners are the printed names: top, left, right.

Decisions this engine makes where the book is silent (also in README.md beside it):
- A side's sight is the union of its arrows' half-planes; against a target, the hit is the
  best arrow that sees it.
- Backstab is offered only against targets that cannot see the shooter; in an all-range
  Backstab a target that sees the shooter is not affected.
- Continuous effects take targets like shots; a long-range one, and a short-range one whose
  closest targets tie (CLARIFICATIONS: the shooter chooses), is aimed by its owner each time
  it is (re)checked.
- A side whose arrows have different ranges (dice_models/crews/FORMAT.md allows it): each
  range applies to what its own arrows see (arrows of one range share their sight, as an
  omnidirectional die's do); a shot picks a target of any of them, or fires every all-range
  arrow at once; a continuous effect takes every all-range target plus one chosen among the
  short- and long-range ones.
- A die that leaves play (killed, knocked off, picked up to Jump, sent to reserve) drops out
  of every continuous effect at once; coming back it is caught only when the effect is next
  re-checked, like any die landing in range.
- A Held or Frozen die's Repair still clears its Poison counter; it just cannot be moved.
- A commander is immune to dark blue while its Command is pending and it still shows a
  Command side (rulebook, "Colors and Immunity" and the Hart/Crane example).
- A die picked up to Jump is in its owner's hand until it is thrown.
- House limit `max_turns` (default 200): then the higher score wins, a tie is a draw.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dice_models import DataError
from dice_models.crews import Crew, load_crew
from dice_models.numerics import norm
from rules.core.protocols import (
    TERMINAL_PLAYER,
    Action,
    DiePose,
    RulesError,
    StateBase,
    Table,
    ThrowSpec,
)
from rules.core.tables import load_table, register_table
from rules.core.tables import make_table as _make_table
from rules.deep_white_sea.actions import DWSActions, _spec_parts, _xy
from rules.deep_white_sea.kinematic import KinematicTable
from rules.deep_white_sea.legal import PLACE_YAWS as PLACE_YAWS  # re-exported: spaces.py
from rules.deep_white_sea.sight import Die
from rules.deep_white_sea.spec import GAME
from rules.deep_white_sea.tasks import DECISIONS as DECISIONS  # re-exported, as PLACE_YAWS
from rules.deep_white_sea.tasks import WIN_POINTS

GAME_NAME = GAME.name
DEFAULT_MAX_TURNS: int = GAME.default("max_turns")  # the registry's
STATE_FORMAT = 1  # serialize() layout; deserialize refuses any other

# Table kinds (rules.core.tables): the engine ships 'kinematic'; the program that plays a
# game registers the others it provides (the physics table) when it loads its plug-ins.
register_table("kinematic", lambda _opts: KinematicTable(), KinematicTable.from_json)


def make_table(kind: str, options: dict[str, Any]) -> Table:
    return _make_table(GAME_NAME, kind, options)


def load_crews(spec: str) -> list[str]:
    names = [n.strip() for n in str(spec).split(",") if n.strip()]
    if len(names) == 1:
        names = names * 2
    if len(names) != 2:
        raise RulesError(f"deep-white-sea: --crews takes one or two crews, got {spec!r}")
    return names


class DWSState(StateBase, DWSActions):
    """A game of Deep White Sea in progress. See the module docstring for actions; what
    the dice see and what is in range is asked of `Sight` (rules/deep_white_sea/sight.py).
    The rest of the rules are its other bases, each over the one before: the legal actions
    (`DWSLegal`, legal.py), the task stack, continuous effects and scoring
    (`TaskStack`, tasks.py), and what each action does (`DWSActions`, actions.py). Here: the
    game's interface, setting up a position and the texts."""

    def __init__(self, crews: list[str], table: Table, table_kind: str, first: int,
                 max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.crew_names = list(crews)
        self.dice = _build_dice(crews)
        self.table = table
        self.table_kind = table_kind
        self.first = first
        self.max_turns = max_turns
        self.where = {d: "hand" for d in self.dice}
        self.scores = [0, 0]
        self.poison: dict[str, int] = {}  # poisoned die -> seat that made the counter
        self.effects: dict[str, dict[str, Any]] = {}  # source -> active continuous effect
        self.stack: list[dict[str, Any]] = [{"t": "end", "player": first},
                                            {"t": "place", "player": first}]
        self.turn = 1
        self.winner: int | None = None  # seat, or -1 for a draw at the house limit
        self.poses: dict[str, DiePose] = {p.die: p for p in table.snapshot()}
        self._events: list[str] = []
        self._results: list[dict[str, Any]] = []
        self._legal: list[Action] | None = None

    # -- OpenSpiel vocabulary -----------------------------------------------------------

    def num_players(self) -> int:
        return 2

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL_PLAYER
        return int(self.stack[-1]["player"])  # never CHANCE_PLAYER: throws are actions

    def chance_request(self) -> tuple[str, int]:
        raise ValueError("deep-white-sea has no chance nodes: throws are players' actions")

    def apply_chance(self, faces: tuple[int, ...]) -> None:
        raise ValueError("deep-white-sea has no chance nodes")

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        if self.winner < 0:
            return [0.5, 0.5]
        return [1.0 if s == self.winner else 0.0 for s in range(2)]

    @property
    def decision(self) -> str:
        return "" if self.is_terminal() else str(self.stack[-1]["t"])

    def legal_actions(self) -> list[Action]:
        if self.is_terminal():
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def is_legal(self, action: Action) -> bool:
        """Legal actions include every throw spec and every placement yaw, which
        `legal_actions` lists only as placeholders / samples (a throw without its spec is
        not legal)."""
        if self.is_terminal() or not isinstance(action, tuple) or not action:
            return False
        if action[0] == "throw":  # the listed ('throw', die) is a placeholder, not an action
            return len(action) == 3 and action[:2] in self.throws() and _spec_ok(action[2])
        legal = self.legal_actions()
        if action[0] == "place" and len(action) == 4:
            return (("place", action[1], action[2], 0) in legal
                    and isinstance(action[3], int | float) and math.isfinite(action[3]))
        return action in legal

    def apply_action(self, action: Action) -> None:
        action = _as_tuple(action)
        if not self.is_legal(action):
            raise RulesError(f"illegal action {action!r} at {self.decision!r} "
                             f"for player {self.current_player() + 1}")
        task = self.stack.pop()
        seat = int(task["player"])
        self._legal = None
        kind = task["t"]
        if kind == "place":
            self._place(action[1], int(action[2]), float(action[3]))
        elif kind == "foul":
            self._foul_choice(action[1])
        elif kind == "tip":
            if action[0] == "tip":
                self._tip(task, action[2])
            else:
                self._say(f"{self._label(task['target'])} is left where it is")
        elif kind == "aim":
            self._aim(task, action[2])
        else:
            if kind == "cmd":
                task["idx"] += 1
                self.stack.append(task)  # the command stays pending while the ally acts
            self._act(action, seat)
        self._run()

    def clone(self) -> DWSState:
        c = DWSState.__new__(DWSState)
        c.crew_names = self.crew_names
        c.dice = self.dice
        c.table = self.table.clone()
        c.table_kind = self.table_kind
        c.first = self.first
        c.max_turns = self.max_turns
        c.where = dict(self.where)
        c.scores = list(self.scores)
        c.poison = dict(self.poison)
        c.effects = {k: {**v, "targets": list(v["targets"])} for k, v in self.effects.items()}
        c.stack = [_copy_task(t) for t in self.stack]
        c.turn = self.turn
        c.winner = self.winner
        c.poses = dict(self.poses)
        c._events = []
        c._results = []
        c._legal = None if self._legal is None else list(self._legal)
        return c

    def clone_with_table(self, table: Table, kind: str) -> DWSState:
        """A copy of the game on another table holding the same dice (bots use a kinematic
        mirror of the physics table for a fast first look)."""
        c = self.clone()
        c.table = table
        c.table_kind = kind
        return c

    def serialize(self) -> dict[str, Any]:
        return {
            "game": "deep-white-sea", "format": STATE_FORMAT, "crews": self.crew_names,
            "table_kind": self.table_kind, "table": self.table.to_json(),
            "first": self.first, "max_turns": self.max_turns, "turn": self.turn,
            "where": dict(sorted(self.where.items())), "scores": list(self.scores),
            "poison": dict(sorted(self.poison.items())),
            "effects": {k: self.effects[k] for k in sorted(self.effects)},
            "stack": self.stack, "winner": self.winner,
        }

    def take_events(self) -> list[str]:
        out, self._events = self._events, []
        return out

    def take_results(self) -> list[dict[str, Any]]:
        """What the table reported since the last call (throws), for the game log."""
        out, self._results = self._results, []
        return out

    def world_info(self) -> dict[str, Any]:
        """The table and its settings, for the game log's header."""
        return self.table.describe()

    def player_name(self, seat: int) -> str:
        team = self.dice[self.seat_dice(seat)[0]].crew.team
        return f"P{seat + 1} {team}"

    def setup_position(self, placements: dict[str, tuple[int, float, tuple[float, float]]],
                       to_move: int, where: dict[str, str] | None = None) -> None:
        """Set up a position (tests, puzzles, tutorials): every die in `placements` rests
        on the table as (side, yaw_deg, (x, y)); the others are in hand unless `where`
        says 'reserve'. Then `to_move` starts a normal turn (continuous effects are checked
        as at any turn start)."""
        for d in list(self.poses):
            self.table.remove(d)
        self.poses.clear()
        self.poison.clear()
        self.effects.clear()
        for d in self.dice:
            self.where[d] = (where or {}).get(d, "hand")
        for d, (side, yaw, xy) in placements.items():
            crew = self.dice[d].crew
            self.poses[d] = self.table.place(d, crew.face_of_side(side) + 1, yaw, xy)
            self.where[d] = "play"
        self.winner = None
        self.stack = [{"t": "end", "player": to_move}, {"t": "main", "player": to_move},
                      {"t": "poison", "player": to_move}, {"t": "turn", "player": to_move}]
        self._legal = None
        self._run()


    # -- text -----------------------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        action = _as_tuple(action)
        kind = action[0]
        if kind == "place":
            return f"place {self._label(action[1])} side {action[2]} yaw {float(action[3]):.0f}"
        if kind == "throw":
            if len(action) < 3:
                return f"throw {self._label(action[1])}"
            s = ThrowSpec(*_spec_parts(action[2]))
            return (f"throw {self._label(action[1])} from ({s.release[0]:.2f}, "
                    f"{s.release[1]:.2f}, {s.release[2]:.2f}) m at "
                    f"{math.hypot(*s.velocity):.2f} m/s, spin {math.hypot(*s.spin):.1f} rad/s")
        if kind == "move":
            return f"move {self._label(action[1])} over its {action[2]} corner"
        if kind == "shoot":
            tail = f" at {self._label(action[3])}" if len(action) > 3 else ""
            return f"{self._label(action[1])}: {action[2]}{tail}"
        if kind == "tip":
            return f"roll {self._label(action[1])} over its {action[2]} corner"
        if kind == "aim":
            return f"aim {self._label(action[1])}'s effect at {self._label(action[2])}"
        if kind == "foul":
            return {"allow": "allow the foul", "no_shot": "foul: the die may not shoot",
                    "remove": "foul: the die goes to reserve"}[action[1]]
        return str(kind)

    def render(self) -> str:
        lines = [f"Deep White Sea, turn {self.turn}: P1 {self.scores[0]} - P2 {self.scores[1]}"
                 f" (first to {WIN_POINTS})"]
        for seat in range(2):
            lines.append(f"{self.player_name(seat)}:")
            for d in self.seat_dice(seat):
                die = self.dice[d]
                if d in self.poses:
                    side = self.side(d)
                    arrows = ", ".join(f"{a.corner} {a.range} {a.colour} "
                                       f"{a.label or a.effect}" for a in side.arrows)
                    shield = f"block {self.block(d)} {side.shield.colour}" if side.shield \
                        else "no block"
                    flags = [f for f, on in (("held", self.held(d) and not self.frozen(d)),
                                             ("frozen", self.frozen(d)),
                                             ("poisoned", d in self.poison)) if on]
                    eff = f" [{side.effect.text}]" if side.effect else ""
                    lines.append(f"  {die.crew.name:26s} side {side.number} at "
                                 f"{_xy(self.poses[d])}, {shield}; {arrows}{eff}"
                                 f"{' (' + ', '.join(flags) + ')' if flags else ''}")
                else:
                    lines.append(f"  {die.crew.name:26s} {self.where[d]}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Construction


def new_state(crews: list[str], table: Table, table_kind: str, first: int,
              max_turns: int = DEFAULT_MAX_TURNS) -> DWSState:
    state = DWSState(crews, table, table_kind, first, max_turns)
    state._say(f"P{first + 1} goes first and places one die in the centre")
    return state


def deserialize_state(data: dict[str, Any]) -> DWSState:
    try:
        if data.get("game") != "deep-white-sea":
            raise RulesError(f"not a deep-white-sea save (game {data.get('game')!r})")
        if data.get("format") != STATE_FORMAT:
            raise RulesError(f"state: format: unsupported state format {str(data.get('format'))[:40]} "
                             f"(this version reads {STATE_FORMAT})")
        kind = str(data["table_kind"])
        table = load_table(GAME_NAME, kind, data["table"])
        state = DWSState(list(data["crews"]), table, kind, int(data["first"]),
                         int(data["max_turns"]))
        for d, where in data["where"].items():
            if d not in state.where or where not in ("hand", "play", "reserve"):
                raise RulesError(f"save: where: bad entry {d!r}: {where!r}")
            state.where[d] = where
        state.scores = [int(s) for s in data["scores"]]
        state.poison = {str(k): int(v) for k, v in data["poison"].items()}
        state.effects = {str(k): dict(v) for k, v in data["effects"].items()}
        state.stack = [dict(t) for t in data["stack"]]
        state.turn = int(data["turn"])
        state.winner = None if data["winner"] is None else int(data["winner"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, RulesError):
            raise
        raise RulesError(f"deep-white-sea save: missing or bad field ({exc})") from None
    return state


def _build_dice(crews: list[str]) -> dict[str, Die]:
    dice: dict[str, Die] = {}
    for seat, name in enumerate(crews):
        for cd in _crew(name).dice:
            die_id = f"{seat + 1}-{cd.slug}"
            dice[die_id] = Die(die_id, seat, cd)
    return dice


@functools.lru_cache(maxsize=32)
def _crew(name: str) -> Crew:
    """Crews are read once per process (YAML parsing dominates a game's setup)."""
    try:
        return load_crew(name)
    except DataError as exc:
        raise RulesError(str(exc)) from None


# ---------------------------------------------------------------------------------------
# Helpers


def spec_to_tuple(spec: ThrowSpec) -> tuple[float, ...]:
    return tuple(float(v) for v in (*spec.release, *spec.velocity, *spec.spin,
                                    *spec.orientation))


def _spec_ok(values: Any) -> bool:
    if not isinstance(values, tuple | list) or len(values) != 13:
        return False
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
               for v in values):
        return False
    q = np.array(values[9:13], dtype=float)
    return values[2] > 0 and 0.5 < norm(q) < 1.5 \
        and math.hypot(*values[3:6]) <= 50.0


def _as_tuple(action: Any) -> Any:
    if isinstance(action, list | tuple):
        return tuple(_as_tuple(a) for a in action)
    return action


def _copy_task(t: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, list) else v) for k, v in t.items()}


