"""What a Deep White Sea die sees, what is in its range and which continuous effects it is
under: the read-only questions the engine (`rules.deep_white_sea.game.DWSState`) and its
bots ask about the dice on the table (rulebook, "Sight Lines", "Range", "Special Effects",
"Colors and Immunity").

They were a third of `DWSState`; here they are a base class of it, so the state keeps its
public names (`state.sees(a, b)`, `state.in_range(...)`) while the rules that change the
game (the task stack, actions, damage, scoring) read apart from the rules that only look.
Nothing here changes the state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dice_models.crews import CrewDie, Side
from rules.core.protocols import DiePose
from rules.deep_white_sea.geometry import Octahedron, face_distance, sees_through

TIE_M = 1e-9  # m: distances closer than this are a tie (short range)

_OCT = Octahedron(0.05)  # yaw conventions only: they do not depend on the die's size


@dataclass(frozen=True)
class Die:
    id: str  # '<seat+1>-<slug>', unique on the table
    seat: int
    crew: CrewDie

    @property
    def label(self) -> str:
        return f"{self.crew.name} (P{self.seat + 1})"


class Sight:
    """The sight, range and effect queries of a game in progress, over the state's dice
    (`dice`), where they rest (`poses`), where the others are (`where`), the active
    continuous effects (`effects`) and the task stack (`stack`, for a pending Command)."""

    dice: dict[str, Die]
    poses: dict[str, DiePose]
    where: dict[str, str]
    effects: dict[str, dict[str, Any]]
    stack: list[dict[str, Any]]

    # -- reading the table --------------------------------------------------------------

    def seat_dice(self, seat: int) -> list[str]:
        return [d for d, die in self.dice.items() if die.seat == seat]

    def side_arrow_corner(self, die: str, side: int) -> str:
        """The corner of the first sight arrow on `side` ('top' if it has none)."""
        arrows = self.dice[die].crew.side(side).arrows
        return arrows[0].corner if arrows else "top"

    def yaw_facing(self, die: str, side: int, corner: str, direction_deg: float) -> float:
        """The yaw (deg) at which `die` resting on `side` points its `corner` (an arrow's
        corner) in `direction_deg` (counter-clockwise from +x)."""
        crew = self.dice[die].crew
        axis = crew.corner_axis(side, corner)
        corners = _OCT.top_corners(crew.face_of_side(side), 0.0, (0.0, 0.0))
        x, y = corners[axis]
        return direction_deg - math.degrees(math.atan2(y, x))

    def on_table(self, die: str) -> bool:
        return die in self.poses

    def side(self, die: str) -> Side:
        d = self.dice[die]
        return d.crew.side(d.crew.side_on_face(self.poses[die].face - 1))

    def sees(self, a: str, b: str) -> bool:
        """Does die `a` see die `b` (rulebook, "Sight Lines")? Never itself."""
        if a == b or a not in self.poses or b not in self.poses:
            return False
        corners, target = self.poses[a].top_corners, self.poses[b].top_corners
        crew = self.dice[a].crew
        number = self.side(a).number
        return any(sees_through(corners, crew.corner_axis(number, arrow.corner), target)
                   for arrow in self.side(a).arrows)

    def distance(self, a: str, b: str) -> float:
        return face_distance(self.poses[a].top_corners, self.poses[b].top_corners)

    def range_targets(self, src: str, pool: list[str]) -> dict[str, list[str]]:
        """Range -> the legal targets among `pool` of `src`'s arrows of that range, nearest
        first (rulebook, "Range"): short keeps the closest (all of them on an exact tie, for
        the shooter to choose), long and all keep every one. Each arrow counts with its own
        range; arrows of one range see together."""
        if src not in self.poses:
            return {}
        crew = self.dice[src].crew
        side = self.side(src)
        corners = self.poses[src].top_corners
        out: dict[str, list[str]] = {}
        for rng in ("short", "long", "all"):
            axes = [crew.corner_axis(side.number, a.corner) for a in side.arrows
                    if a.range == rng]
            if not axes:
                continue
            seen = sorted((self.distance(src, d), d) for d in pool
                          if d != src and d in self.poses
                          and any(sees_through(corners, axis, self.poses[d].top_corners)
                                  for axis in axes))
            if rng == "short" and seen:
                seen = [(dist, d) for dist, d in seen if dist - seen[0][0] <= TIE_M]
            out[rng] = [d for _dist, d in seen]
        return out

    def in_range(self, src: str, pool: list[str], rng: str | None = None) -> list[str]:
        """The legal targets among `pool`, nearest first: of the arrows of range `rng`, or
        of every arrow when it is None (see `range_targets`)."""
        groups = self.range_targets(src, pool)
        found = {d for r, ts in groups.items() if rng is None or r == rng for d in ts}
        return sorted(found, key=lambda d: (self.distance(src, d), d))

    def allies(self, die: str) -> list[str]:
        seat = self.dice[die].seat
        return [d for d in sorted(self.poses) if self.dice[d].seat == seat and d != die]

    def enemies(self, die: str) -> list[str]:
        seat = self.dice[die].seat
        return [d for d in sorted(self.poses) if self.dice[d].seat != seat]

    def held(self, die: str) -> bool:
        return self._affected(die, ("Hold", "Freeze"))

    def frozen(self, die: str) -> bool:
        return self._affected(die, ("Freeze",))

    def protection(self, die: str) -> int:
        return self._bonus(die, "Protection")

    def power_up(self, die: str) -> int:
        return self._bonus(die, "Power Up")

    def block(self, die: str) -> int | None:
        shield = self.side(die).shield
        return None if shield is None else shield.block + self.protection(die)

    def immune(self, die: str, colour: str) -> bool:
        shield = self.side(die).shield
        if shield is not None and shield.colour == colour:
            return True
        return colour == "dark blue" and self._commanding(die)

    def hit_value(self, src: str, target: str, mode: str, rng: str | None = None) -> int:
        """The hit of `src` on `target`: the best arrow (of range `rng`, if given) whose
        range makes `target` a legal target and that sees it."""
        side = self.side(src)
        if mode == "backstab":
            assert side.effect is not None and side.effect.amount is not None
            base = side.effect.amount
        else:
            crew = self.dice[src].crew
            corners = self.poses[src].top_corners
            legal = {r for r, ts in self.range_targets(src, [target]).items() if target in ts}
            hits = [a.hit for a in side.arrows if a.hit is not None
                    and a.range in legal and (rng is None or a.range == rng)
                    and sees_through(corners, crew.corner_axis(side.number, a.corner),
                                     self.poses[target].top_corners)]
            base = max(hits) if hits else max(a.hit or 0 for a in side.arrows)
        return base + self.power_up(src)

    def hand(self, seat: int) -> list[str]:
        return [d for d in self.seat_dice(seat) if self.where[d] == "hand"]

    def _affected(self, die: str, names: tuple[str, ...]) -> bool:
        return any(e["name"] in names and die in e["targets"] and src in self.poses
                   for src, e in self.effects.items())

    def _bonus(self, die: str, name: str) -> int:
        return sum(int(e["amount"]) for src, e in self.effects.items()
                   if e["name"] == name and die in e["targets"] and src in self.poses)

    def _commanding(self, die: str) -> bool:
        if die not in self.poses:
            return False
        side = self.side(die)
        if not side.arrows or side.arrows[0].effect != "Command":
            return False
        return any(t["t"] == "cmd" and t["src"] == die for t in self.stack)
