"""The legal actions of a Deep White Sea game in progress
(`rules.deep_white_sea.game.DWSState`): every way a die can shoot or move now, and the
choices of the decision on top of the task stack. A base class of the state, over `Sight`
(what the dice see and reach); it only reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.protocols import Action, Table
from rules.deep_white_sea.sight import Sight

PLACE_YAWS = tuple(range(0, 360, 30))  # enumerated yaws of the first placement (any is legal)
CORNERS = ("top", "left", "right")


class DWSLegal(Sight):
    """The actions open to the player on top of the task stack (`stack`), on the table
    (`table`: whether a die can tip over a corner)."""

    table: Table
    is_terminal: Callable[[], bool]  # (the state's)

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

    def throws(self) -> list[Action]:
        """The throws open now, as `legal_actions` lists them (`("throw", die)`, the
        placeholder a spec completes), without asking the table what else is legal: the dice
        in hand at the main decision, the dice of a throw decision, else none."""
        if self.is_terminal():
            return []
        task = self.stack[-1]
        if task["t"] == "main":
            return [("throw", d) for d in self.hand(int(task["player"]))]
        if task["t"] == "throw":
            return [("throw", d) for d in task["dice"]]
        return []

    def _compute_legal(self) -> list[Action]:
        task = self.stack[-1]
        kind = task["t"]
        seat = int(task["player"])
        if kind == "place":
            return [("place", d, side, yaw) for d in self.hand(seat) for side in range(1, 9)
                    for yaw in PLACE_YAWS]
        if kind == "main":
            out = self.throws()
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
            return self.throws()
        if kind == "aim":
            return [("aim", task["src"], t) for t in task["cands"]]
        raise AssertionError(f"no decision at task {kind!r}")

    def _tip_options(self, task: dict[str, Any]) -> list[Action]:
        target = task["target"]
        crew = self.dice[target].crew
        number = self.side(target).number
        return [("tip", target, c) for c in CORNERS
                if self.table.can_tip(target, crew.corner_axis(number, c)) is None]


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
