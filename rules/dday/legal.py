"""What a D-Day Dice player may do now: the legal actions at each decision node of
`rules.dday.game.DDayState`, and the two questions they share with the turn's flow (which
Specialists a star may hire, whether a unit may enter a sector). Read-only: a base class of
the state, so `state.legal_actions()` keeps its name while the rules that change the game
read apart from the ones that list choices.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from rules.dday.battlemap import ITEMS, SPECIALISTS, BattleMap, Sector
from rules.dday.unit import COLOURS, COMBAT_ITEMS, SKULL, SOLDIER_ITEMS, Unit


class DDayLegal:
    """The legal-action lists of a game in progress, from the map, the units, the seat
    to act, the phase and the decision node (`node`: which `_actions_<node>` answers)."""

    map: BattleMap
    units: list[Unit]
    seat: int
    phase: str
    node: str

    def legal_actions(self) -> list[tuple[Any, ...]]:
        if self.phase == "over" or self.node == "chance":
            return []
        u = self.units[self.seat]
        fn = getattr(self, f"_actions_{self.node}")
        return list(fn(u))

    def _items_ok(self, u: Unit) -> bool:
        return not self.map.sectors[u.sector].no_items()

    def _actions_keep(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("keep", i, j) for i, j in combinations(range(6), 2)]

    def _actions_rolling(self, u: Unit) -> list[tuple[Any, ...]]:
        free = [i for i in range(6) if i not in u.kept]
        out: list[tuple[Any, ...]] = [("done",)]
        if u.rerolls < 2:
            for k in range(1, 5):
                out.extend(("reroll", c) for c in combinations(free, k))
        else:
            if u.has("sergeant") and not u.sergeant_used:
                out.extend(("sergeant", i) for i in free)
            if "backpack" in u.items and self._items_ok(u):
                out.extend(("backpack", i) for i in free)
        items = self._items_ok(u)
        if "binoculars" in u.items and items:
            out.extend(("binoculars", i, v) for i in range(6) for v in range(1, 7)
                       if v != u.dice[i])
        if "terrain_map" in u.items and items:
            out.extend(("terrain_map", i, c) for i in range(6) for c in COLOURS
                       if c != u.colours[i])
        if len(self.units) == 1 and u.has("officer") and not u.officer_used:
            out.extend(("officer_colour", i, c) for i in range(6) for c in COLOURS
                       if c != u.colours[i])
        if "flak_jacket" in u.items and items and not u.flak:
            out.append(("flak_jacket",))
        return out

    def _actions_trade(self, u: Unit) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = [("no_trade",)]
        for q, other in enumerate(self.units):
            if q == self.seat or other.status != "active" or other.traded:
                continue
            out.extend(("trade", i, q, j) for i in range(6) for j in range(6))
        return out

    def _actions_cancel(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("cancel", i) for i, v in enumerate(u.dice)
                if v != SKULL and i not in u.cancelled]

    def _actions_surge_colour(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("surge_colour", c) for c in COLOURS]

    def _actions_stars(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("star", s) for s in self._hireable(u)]

    def _actions_items(self, u: Unit) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = [("end_items",)]
        if not u.bought_this_turn:
            out.extend(("buy", it) for it, cost in ITEMS.items()
                       if it not in u.bought and u.ep >= cost)
        if self._items_ok(u):
            out.extend(("use", it) for it in SOLDIER_ITEMS if it in u.items)
            if "medal" in u.items and u.soldiers > 0:
                out.extend(("use", "medal", s) for s in SPECIALISTS
                           if s not in u.specialists and s not in u.dead)
            if u.medal == "held":
                out.append(("use", "medal_of_honor", "courage"))
                if not u.has("hero") and "hero" not in u.dead:
                    out.append(("use", "medal_of_honor", "hero"))
        return out

    def _actions_move(self, u: Unit) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        here = self.map.sectors[u.sector]
        if u.turns_here < here.max_turns:
            out.append(("stay",))
        for dest, border, advance in self.map.exits(u.sector):
            if dest in u.visited or (not advance and here.has_instruction("leave_forward")):
                continue
            target = self.map.sectors[dest]
            if not u.battle_cry and not self._meets_requirements(u, target):
                continue
            cost = border.courage if advance and not u.battle_cry else 0
            if u.courage >= cost:
                out.append(("move", dest))
            if (cost > 0 and "whistle" in u.items
                    and not here.no_items() and not target.no_items()):
                out.append(("move", dest, "whistle"))
        return out

    def _actions_mine(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("mine_detector",), ("cross",)]

    def _actions_fire_binoculars(self, u: Unit) -> list[tuple[Any, ...]]:
        return [("accept_roll",)] + [("binoculars_fire", v) for v in range(1, 7)
                                     if v != u.fire_roll]

    def _actions_combat(self, u: Unit) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = [("fight",)]
        if not self._items_ok(u):
            return out
        sec = self.map.sectors[u.sector]
        for it in COMBAT_ITEMS:
            if it not in u.items:
                continue
            if it == "bangalore" and (sec.bunker or u.bangalore):
                continue
            if it == "flamethrower" and (not sec.bunker or u.flamethrower):
                continue
            if it == "grenade" and (not sec.machine_gun or u.grenade):
                continue
            out.append(("use", it))
        return out

    def _actions_losses(self, u: Unit) -> list[tuple[Any, ...]]:
        if u.forced_specialist and u.specialists:
            return [("lose", s) for s in u.specialists]
        out: list[tuple[Any, ...]] = []
        if u.soldiers > 0:
            out.append(("lose", "soldier"))
        if u.has("hero") and u.courage > 0:
            out.append(("lose", "courage"))
        out.extend(("lose", s) for s in u.specialists)
        return out

    def _hireable(self, u: Unit) -> list[str]:
        return [sp for sp in SPECIALISTS if sp not in u.specialists and sp not in u.dead]

    def _meets_requirements(self, u: Unit, target: Sector) -> bool:
        for r in target.requirements:
            if r.kind in ("have", "sacrifice") and not u.has(r["specialist"]):
                return False
            if r.kind == "sacrifice_soldiers" and u.soldiers < r["amount"]:
                return False
            if r.kind == "min_soldiers" and u.strength < r["amount"]:
                return False
        return True
