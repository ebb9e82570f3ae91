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
from rules.deep_white_sea.kinematic import KinematicTable
from rules.deep_white_sea.sight import Die, Sight
from rules.deep_white_sea.spec import GAME

WIN_POINTS = 50
PLACE_YAWS = tuple(range(0, 360, 30))  # enumerated yaws of the first placement (any is legal)
CORNERS = ("top", "left", "right")
GAME_NAME = GAME.name
DEFAULT_MAX_TURNS: int = GAME.default("max_turns")  # the registry's
STATE_FORMAT = 1  # serialize() layout; deserialize refuses any other

# Which side of the table an effect works on (rulebook, "Special Effects").
ENEMY_EFFECTS = ("Hold", "Freeze", "Confuse")
DECISIONS = ("place", "main", "foul", "shoot", "cmd", "tip", "throw", "aim")

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


class DWSState(StateBase, Sight):
    """A game of Deep White Sea in progress. See the module docstring for actions; what
    the dice see and what is in range is asked of `Sight` (rules/deep_white_sea/sight.py)."""

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
        legal = self.legal_actions()
        if action[0] == "throw":  # the listed ('throw', die) is a placeholder, not an action
            return len(action) == 3 and action[:2] in legal and _spec_ok(action[2])
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

    # -- legal actions --------------------------------------------------------------------

    def shots(self, die: str) -> list[Action]:
        """Every way `die` can shoot now (empty if it cannot)."""
        if die not in self.poses or self.frozen(die):
            return []
        side = self.side(die)
        if not side.arrows or side.arrows[0].continuous:
            return []
        seat = self.dice[die].seat
        out: list[Action] = []
        eff = side.effect
        if side.arrows[0].hit is not None:
            foes = self.range_targets(die, self.enemies(die))
            out += _shot_actions(die, "attack", foes)
            if eff is not None and eff.optional and eff.name == "Backstab":
                blind = {r: [t for t in ts if not self.sees(t, die)] for r, ts in foes.items()}
                out += _shot_actions(die, "backstab", blind)
            if eff is not None and eff.optional and eff.name == "Repair":
                out += _shot_actions(die, "repair", self.range_targets(die, self.allies(die)))
            return out
        name = side.arrows[0].effect
        if name == "Command":
            pool = [a for a in self.allies(die) if not self.immune(a, "dark blue")]
            if self.in_range(die, pool):
                out.append(("shoot", die, "command"))
        elif name == "Repair":
            out += _shot_actions(die, "repair", self.range_targets(die, self.allies(die)))
        elif name == "Confuse":
            out += _shot_actions(die, "confuse", self.range_targets(die, self.enemies(die)))
        elif name == "Call Ally":
            if self.hand(seat):
                out.append(("shoot", die, "call"))
        elif name == "Jump":
            out.append(("shoot", die, "jump"))
        return out

    def moves(self, die: str) -> list[Action]:
        if die not in self.poses or self.held(die):
            return []
        side = self.side(die)
        crew = self.dice[die].crew
        return [("move", die, c) for c in side.green
                if self.table.can_tip(die, crew.corner_axis(side.number, c)) is None]

    def _compute_legal(self) -> list[Action]:
        task = self.stack[-1]
        kind = task["t"]
        seat = int(task["player"])
        if kind == "place":
            return [("place", d, side, yaw) for d in self.hand(seat) for side in range(1, 9)
                    for yaw in PLACE_YAWS]
        if kind == "main":
            out: list[Action] = [("throw", d) for d in self.hand(seat)]
            for d in self.seat_dice(seat):
                out += self.moves(d)
            for d in self.seat_dice(seat):
                out += self.shots(d)
            out.append(("pass",))
            return out
        if kind == "foul":
            return [("foul", "allow"), ("foul", "no_shot"), ("foul", "remove")]
        if kind == "shoot":
            return [*self.shots(task["die"]), ("decline",)]
        if kind == "cmd":
            ally = task["order"][task["idx"]]
            return [*self.moves(ally), *self.shots(ally), ("decline",)]
        if kind == "tip":
            return [*self._tip_options(task), ("decline",)]
        if kind == "throw":
            return [("throw", d) for d in task["dice"]]
        if kind == "aim":
            return [("aim", task["src"], t) for t in task["cands"]]
        raise AssertionError(f"no decision at task {kind!r}")

    def _tip_options(self, task: dict[str, Any]) -> list[Action]:
        target = task["target"]
        crew = self.dice[target].crew
        number = self.side(target).number
        return [("tip", target, c) for c in CORNERS
                if self.table.can_tip(target, crew.corner_axis(number, c)) is None]

    # -- running the task stack ----------------------------------------------------------

    def _run(self) -> None:
        while self.winner is None and self.stack:
            task = self.stack[-1]
            if task["t"] in DECISIONS:
                if self._decision_stands(task):
                    self._legal = None
                    return
                continue
            self.stack.pop()
            getattr(self, f"_do_{task['t']}")(task)
        self._legal = None

    def _decision_stands(self, task: dict[str, Any]) -> bool:
        """True if `task` needs a player; otherwise resolve or drop it (popping it)."""
        kind = task["t"]
        if kind == "shoot":
            if task["die"] in self.poses and self.shots(task["die"]):
                return True
        elif kind == "cmd":
            while task["idx"] < len(task["order"]):
                ally = task["order"][task["idx"]]
                if ally in self.poses and (self.moves(ally) or self.shots(ally)):
                    self._say(f"  command: {self._label(ally)} acts")
                    return True
                task["idx"] += 1
        elif kind == "tip":
            target = task["target"]
            if target in self.poses:
                if task["kind"] == "repair" and self.poison.pop(target, None) is not None:
                    self._say(f"{self._label(target)}'s poison counter is removed")
                if self.held(target):
                    self._say(f"{self._label(target)} is {'frozen' if self.frozen(target) else 'held'}"
                              f" and cannot be moved")
                elif self._tip_options(task):
                    return True
                else:
                    self._say(f"{self._label(target)} is pinned and cannot be moved")
        elif kind == "aim":
            cands = [c for c in task["cands"] if c in self.poses]
            if len(cands) > 1:
                task["cands"] = cands
                return True
            fixed = [t for t in task.get("fixed", []) if t in self.poses]
            self._set_targets(task["src"], fixed + cands)
        elif kind == "throw":
            task["dice"] = [d for d in task["dice"] if self.where[d] == "hand"]
            if task["dice"]:
                return True
        else:
            return True
        self.stack.pop()
        return False

    def _do_turn(self, task: dict[str, Any]) -> None:
        """Step 1: check every continuous effect in play."""
        for src in sorted(self.poses):
            self._recheck(src)

    def _do_poison(self, task: dict[str, Any]) -> None:
        """Step 2: this player's poison counters, starting at their edge of the table."""
        seat = int(task["player"])
        mine = [d for d, s in self.poison.items() if s == seat and d in self.poses]
        mine.sort(key=lambda d: (self.poses[d].position[1] * (1 if seat == 0 else -1), d))
        for d in reversed(mine):
            self.stack.append({"t": "poison1", "player": seat, "die": d})

    def _do_poison1(self, task: dict[str, Any]) -> None:
        die, seat = task["die"], int(task["player"])
        if die not in self.poses or self.poison.get(die) != seat:
            return
        self._say(f"poison counter on {self._label(die)} does damage")
        if self.immune(die, "green"):
            self._say(f"  {self._label(die)} is immune to green")
            return
        self._damage(die, seat, None, poison=False)

    def _do_after(self, task: dict[str, Any]) -> None:
        """After a throw lands: continuous effects switch on, and the die may shoot."""
        die = task["die"]
        if die not in self.poses:
            return
        self._recheck(die)  # pushes an aim decision on top if it needs one
        if task["shot"]:
            idx = next((i for i in range(len(self.stack)) if self.stack[i]["t"] == "aim"
                        and self.stack[i]["src"] == die), len(self.stack))
            self.stack.insert(idx, {"t": "shoot", "player": self.dice[die].seat, "die": die})

    def _do_end(self, task: dict[str, Any]) -> None:
        seat = int(task["player"])
        back = [d for d in self.seat_dice(seat) if self.where[d] == "reserve"]
        for d in back:
            self.where[d] = "hand"
        if back:
            self._say(f"back to P{seat + 1}'s hand from reserve: "
                      f"{', '.join(self.dice[d].crew.name for d in back)}")
        if self.turn >= self.max_turns:
            a, b = self.scores
            self.winner = 0 if a > b else 1 if b > a else -1
            self._say(f"house limit of {self.max_turns} turns reached")
            self.stack.clear()
            return
        self.turn += 1
        nxt = 1 - seat
        self._say(f"--- turn {self.turn}: P{nxt + 1} ({self.scores[0]}-{self.scores[1]})")
        self.stack += [{"t": "end", "player": nxt}, {"t": "main", "player": nxt},
                       {"t": "poison", "player": nxt}, {"t": "turn", "player": nxt}]

    # -- actions --------------------------------------------------------------------------

    def _act(self, action: Action, seat: int) -> None:
        kind = action[0]
        if kind == "pass":
            self._say(f"P{seat + 1} passes")
        elif kind == "decline":
            self._say("no shot")
        elif kind == "throw":
            self._throw(action[1], ThrowSpec(*_spec_parts(action[2])), seat)
        elif kind == "move":
            self._move(action[1], action[2])
        elif kind == "shoot":
            self._shoot(action)
        else:
            raise AssertionError(f"unexpected action {action!r}")

    def _place(self, die: str, side: int, yaw: float) -> None:
        crew = self.dice[die].crew
        pose = self.table.place(die, crew.face_of_side(side) + 1, yaw, (0.0, 0.0))
        self.where[die] = "play"
        self.poses[die] = pose
        self._say(f"{self._label(die)} is placed in the centre on side {side}, yaw {yaw:.0f} deg")
        self._recheck(die)

    def _throw(self, die: str, spec: ThrowSpec, seat: int) -> None:
        result = self.table.throw(die, spec, player=seat + 1)
        self._results.append({"die": die, "throw": spec.to_json(), **result.to_json()})
        self.where[die] = "play"
        out = result.outcome
        disturbed: list[str] = []
        for _before, after in result.disturbed:
            d = after.die
            if after.status != "on_table":
                self._knocked_off(d, after.reason, 1 - seat)
            else:
                self.poses[d] = after
                disturbed.append(d)
                self._say(f"  {self._label(d)} is knocked to side "
                          f"{self.side(d).number} at {_xy(after)}")
        if out.status != "on_table":
            self.where[die] = "hand"
            self._say(f"{self._label(die)} is thrown and lands off the table ({out.reason}); "
                      "back to hand")
        else:
            self.poses[die] = out
            self._say(f"{self._label(die)} is thrown and lands on side {self.side(die).number} "
                      f"at {_xy(out)}")
            self.stack.append({"t": "after", "player": seat, "die": die, "shot": True})
            if result.foul:
                self._say(f"  foul: {result.foul_reason}")
                self.stack.append({"t": "foul", "player": 1 - seat, "die": die})
        for d in disturbed:
            self._recheck(d)

    def _knocked_off(self, die: str, reason: str | None, scorer: int) -> None:
        self._leave_play(die, "hand")
        points = self.dice[die].crew.points
        self._say(f"  {self._label(die)} is knocked off the table ({reason}): back to hand, "
                  f"P{scorer + 1} scores {points}")
        self._score(scorer, points)

    def _foul_choice(self, choice: str) -> None:
        after = self.stack[-1]
        die = after["die"]
        if choice == "allow":
            self._say("the foul is allowed")
        elif choice == "no_shot":
            after["shot"] = False
            self._say(f"the foul is punished: {self._label(die)} may not shoot")
        else:
            self._leave_play(die, "reserve")
            self._say(f"the foul is punished: {self._label(die)} goes to reserve")

    def _move(self, die: str, corner: str) -> None:
        crew = self.dice[die].crew
        result = self.table.tip(die, crew.corner_axis(self.side(die).number, corner))
        if not result.rolled:
            raise RulesError(f"{self._label(die)} cannot move over its {corner} corner "
                             f"(blocked by {result.blocked_by})")
        self.poses[die] = result.pose
        self._say(f"{self._label(die)} maneuvers over its {corner} corner to side "
                  f"{self.side(die).number}")
        self._recheck(die)

    def _shoot(self, action: Action) -> None:
        die, mode = action[1], action[2]
        seat = self.dice[die].seat
        side = self.side(die)
        target = action[3] if len(action) > 3 else None
        # A shot at one target uses the arrows whose range allows it; one without a target
        # is every all-range arrow at once.
        rng = "all" if target is None else "/".join(
            r for r, ts in self.range_targets(die, [target]).items() if target in ts)
        if mode in ("attack", "backstab"):
            targets = [target] if target else self.in_range(die, self.enemies(die), "all")
            what = "Backstab" if mode == "backstab" else (
                "Poison" if side.effect and side.effect.name == "Poison" else "attack")
            self._say(f"{self._label(die)} shoots ({what}, {rng} range) at "
                      f"{', '.join(self._label(t) for t in targets)}")
            for t in targets:
                if self.winner is not None:
                    break
                if t in self.poses:
                    self._hit(die, t, mode, None if target else "all")
        elif mode in ("repair", "confuse"):
            pool = self.allies(die) if mode == "repair" else self.enemies(die)
            targets = [target] if target else self.in_range(die, pool, "all")
            self._say(f"{self._label(die)} uses {mode.capitalize()} on "
                      f"{', '.join(self._label(t) for t in targets)}")
            for t in reversed(targets):
                if mode == "confuse" and self.immune(t, "purple"):
                    self._say(f"  {self._label(t)} is immune to purple")
                    continue
                self.stack.append({"t": "tip", "player": seat, "src": die, "target": t,
                                   "kind": mode})
        elif mode == "command":
            pool = [a for a in self.allies(die) if not self.immune(a, "dark blue")]
            order = self.in_range(die, pool)
            self._say(f"{self._label(die)} issues a Command: "
                      f"{', '.join(self._label(a) for a in order)}")
            self.stack.append({"t": "cmd", "player": seat, "src": die, "order": order, "idx": 0})
        elif mode == "jump":
            self._say(f"{self._label(die)} Jumps")
            self._leave_play(die, "hand")
            self.stack.append({"t": "throw", "player": seat, "dice": [die], "why": "jump"})
        elif mode == "call":
            self._say(f"{self._label(die)} Calls an Ally")
            self.stack.append({"t": "throw", "player": seat, "dice": self.hand(seat),
                               "why": "call"})
        else:
            raise AssertionError(f"unknown shot mode {mode!r}")

    def _hit(self, src: str, target: str, mode: str, rng: str | None = None) -> None:
        side = self.side(src)
        if mode == "backstab":
            assert side.effect is not None
            colour = side.effect.colour
            if self.sees(target, src):
                self._say(f"  {self._label(target)} sees the shooter: the Backstab has no effect")
                return
        else:
            colour = side.arrows[0].colour
        poison = side.effect is not None and side.effect.name == "Poison"
        if self.immune(target, colour):
            self._say(f"  {self._label(target)} is immune to {colour}")
            return
        self._damage(target, self.dice[src].seat, self.hit_value(src, target, mode, rng),
                     poison)

    def _damage(self, target: str, scorer: int, hit: int | None, poison: bool) -> None:
        """One shot's or counter's damage to `target` (rulebook, "Hit, Block, and Damage")."""
        side = self.side(target)
        block = self.block(target)
        label = self._label(target)
        if side.number == 1:
            self._kill(target, scorer, "on its side 1")
            return
        if self.held(target):
            self._kill(target, scorer, "frozen" if self.frozen(target) else "held")
            return
        if hit is not None and block is not None and hit >= block:
            self._kill(target, scorer, f"hit {hit} >= block {block}")
            return
        crew = self.dice[target].crew
        assert side.red is not None
        result = self.table.tip(target, crew.corner_axis(side.number, side.red))
        if not result.rolled:
            self._kill(target, scorer, f"pinned by {result.blocked_by}")
            return
        self.poses[target] = result.pose
        why = f"hit {hit} < block {block}" if hit is not None else "damage"
        self._say(f"  {label}: {why}, damaged to side {self.side(target).number}")
        if poison and target not in self.poison and not self.immune(target, "green"):
            self.poison[target] = scorer
            self._say(f"  {label} is poisoned")
        self._recheck(target)

    def _kill(self, target: str, scorer: int, why: str) -> None:
        points = self.dice[target].crew.points
        self._leave_play(target, "reserve")
        self._say(f"  {self._label(target)} is killed ({why}): P{scorer + 1} scores {points}")
        self._score(scorer, points)

    def _tip(self, task: dict[str, Any], corner: str) -> None:
        target = task["target"]
        crew = self.dice[target].crew
        result = self.table.tip(target, crew.corner_axis(self.side(target).number, corner))
        if not result.rolled:
            raise RulesError(f"{self._label(target)} cannot roll over its {corner} corner")
        self.poses[target] = result.pose
        verb = "repaired" if task["kind"] == "repair" else "confused"
        self._say(f"  {self._label(target)} is {verb} over its {corner} corner to side "
                  f"{self.side(target).number}")
        self._recheck(target)

    def _aim(self, task: dict[str, Any], target: str) -> None:
        """The owner's choice of a continuous effect's target, joined to the all-range
        targets it has anyway."""
        fixed = [t for t in task.get("fixed", []) if t in self.poses and t != target]
        self._set_targets(task["src"], fixed + [target])

    # -- continuous effects -------------------------------------------------------------

    def _recheck(self, src: str) -> None:
        """Switch `src`'s continuous effect on, off or to new targets (rulebook,
        "Continuous Effects": at the start of a turn and whenever the source is disturbed)."""
        old = self.effects.pop(src, None)
        if src not in self.poses:
            return
        side = self.side(src)
        if not side.arrows or not side.arrows[0].continuous or side.effect is None:
            return
        eff = side.effect
        pool = self.enemies(src) if eff.name in ENEMY_EFFECTS else self.allies(src)
        pool = [t for t in pool if not self.immune(t, eff.colour)]
        groups = self.range_targets(src, pool)
        fixed = groups.get("all", [])
        cands = [t for t in self.in_range(src, pool)
                 if t not in fixed and (t in groups.get("short", [])
                                        or t in groups.get("long", []))]
        self.effects[src] = {"name": eff.name, "amount": eff.amount or 0, "colour": eff.colour,
                             "targets": [], "was": old["targets"] if old else []}
        if len(cands) > 1:  # long range, or a short-range tie: the owner chooses
            self.stack.append({"t": "aim", "player": self.dice[src].seat, "src": src,
                               "cands": cands, "fixed": fixed})
            return
        self._set_targets(src, fixed + cands)

    def _set_targets(self, src: str, targets: list[str]) -> None:
        if src not in self.effects:
            return
        eff = self.effects[src]
        eff["targets"] = list(targets)
        was = eff.pop("was", [])
        if targets and targets != was:
            amount = f" +{eff['amount']}" if eff["amount"] else ""
            self._say(f"  {self._label(src)}: {eff['name']}{amount} on "
                      f"{', '.join(self._label(t) for t in targets)}")

    # -- bookkeeping ----------------------------------------------------------------------

    def _leave_play(self, die: str, to: str) -> None:
        if die in self.poses:
            self.table.remove(die)
            del self.poses[die]
        self.where[die] = to
        self.poison.pop(die, None)
        self.effects.pop(die, None)
        # Out of play it is out of every continuous effect (a Held die that Jumps, a Frozen
        # die knocked off and Called back): one that catches it again does so when it is
        # next re-checked, like any die landing in range (rulebook, "Continuous Effects").
        for eff in self.effects.values():
            if die in eff["targets"]:
                eff["targets"] = [t for t in eff["targets"] if t != die]

    def _score(self, seat: int, points: int) -> None:
        self.scores[seat] += points
        if self.scores[seat] >= WIN_POINTS and self.winner is None:
            self.winner = seat
            self.stack.clear()
            self._say(f"P{seat + 1} reaches {self.scores[seat]} points and wins")

    def _say(self, text: str) -> None:
        self._events.append(text)

    def _label(self, die: str) -> str:
        return self.dice[die].label

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


def _shot_actions(die: str, mode: str, groups: dict[str, list[str]]) -> list[Action]:
    """One action per single target of the short- and long-range arrows, and one without a
    target for the all-range arrows, if they have targets."""
    out: list[Action] = []
    for rng in ("short", "long"):
        out += [("shoot", die, mode, t) for t in groups.get(rng, [])
                if ("shoot", die, mode, t) not in out]
    if groups.get("all"):
        out.append(("shoot", die, mode))
    return out


def spec_to_tuple(spec: ThrowSpec) -> tuple[float, ...]:
    return tuple(float(v) for v in (*spec.release, *spec.velocity, *spec.spin,
                                    *spec.orientation))


def _spec_parts(values: Any) -> tuple[tuple[float, float, float], tuple[float, float, float],
                                      tuple[float, float, float],
                                      tuple[float, float, float, float]]:
    v = [float(x) for x in values]
    return ((v[0], v[1], v[2]), (v[3], v[4], v[5]), (v[6], v[7], v[8]),
            (v[9], v[10], v[11], v[12]))


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


def _xy(pose: DiePose) -> str:
    return f"({pose.position[0]:+.3f}, {pose.position[1]:+.3f}) m"
