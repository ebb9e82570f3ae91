"""Phase 2 and 3 of D-Day Dice (`rules.dday.game.DDayState`): the final result resolved
(skulls and what they cancel, the red-white-blue bonuses and Surge dice, the symbols
tallied, stars to Specialists) and the items bought and used.
"""

from __future__ import annotations

from typing import Any

from rules.dday.battlemap import ITEMS, SPECIALISTS
from rules.dday.flow import TurnFlow
from rules.dday.unit import (
    COURAGE,
    ITEM,
    SKULL,
    SOLDIER,
    SOLDIER_ITEMS,
    SOLDIERS2,
    STAR,
    SYMBOL_NAMES,
    Unit,
    equipment_points,
    rwb_triples,
)

BONUS_OF = {2: "surge", 3: "reinforcements", 4: "reinforcements", 5: "battle_cry",
            6: "lucky_find"}


class Resolution(TurnFlow):
    """A unit's final result turned into soldiers, Courage, stars and Equipment Points
    (nodes `cancel`, `surge_colour`, `stars`), then its items (node `items`)."""

    # -- resolution of the final result
    def _do_cancel(self, u: Unit, a: tuple[Any, ...]) -> None:
        u.cancelled.append(a[1])
        u.pending_cancels -= 1
        self.events.append(f"unit {self.seat + 1}: a skull cancels die {a[1] + 1} "
                           f"({SYMBOL_NAMES[u.dice[a[1]]]})")
        if u.pending_cancels > 0 and len(self._actions_cancel(u)) > u.pending_cancels:
            return
        self._cancel_rest(u)
        self._bonuses()

    def _do_surge_colour(self, u: Unit, a: tuple[Any, ...]) -> None:
        u.extra.append([u.surge_value, a[1]])
        self.events.append(f"unit {self.seat + 1}: the Surge die shows {u.surge_value}, "
                           f"taken as {a[1]}")
        self._bonuses()

    def _do_stars(self, u: Unit, a: tuple[Any, ...]) -> None:
        spec = a[1]
        u.progress[spec] = u.progress.get(spec, 0) + 1
        u.stars_left -= 1
        if u.progress[spec] >= SPECIALISTS[spec]:
            u.specialists.append(spec)
            u.progress.pop(spec)
            self.events.append(f"unit {self.seat + 1} hires the {spec}")
        if u.stars_left > 0 and self._hireable(u):
            return
        if u.stars_left > 0:
            self.events.append(f"unit {self.seat + 1}: {u.stars_left} star(s) unused")
            u.stars_left = 0
        self._enter_items(u)

    # -- phase 3: items
    def _do_items(self, u: Unit, a: tuple[Any, ...]) -> None:
        s = self.seat
        if a[0] == "buy":
            u.ep -= ITEMS[a[1]]
            u.items.append(a[1])
            u.bought.append(a[1])
            u.bought_this_turn = True
            self.events.append(f"unit {s + 1} buys the {a[1].replace('_', ' ')} "
                               f"({u.ep} EP left)")
        elif a[0] == "use":
            self._use_item(s, u, a)
        else:
            self._next_in_phase()

    def _use_item(self, s: int, u: Unit, a: tuple[Any, ...]) -> None:
        it = a[1]
        if it == "medal_of_honor":
            u.medal = "used"
            if a[2] == "hero":
                u.specialists.append("hero")
                self.events.append(f"unit {s + 1} takes the Hero for the Medal of Honor")
            else:
                u.courage += 5
                self.events.append(f"unit {s + 1} takes 5 Courage for the Medal of Honor")
            return
        u.items.remove(it)
        if it in SOLDIER_ITEMS:
            u.soldiers += SOLDIER_ITEMS[it]
            self.events.append(f"unit {s + 1} uses the {it.replace('_', ' ')}: "
                               f"+{SOLDIER_ITEMS[it]} soldiers")
        elif it == "medal":
            u.soldiers -= 1
            u.specialists.append(a[2])
            u.progress.pop(a[2], None)
            self.events.append(f"unit {s + 1} uses the medal: a soldier becomes the {a[2]}")
        else:
            setattr(u, it, True)
            self.events.append(f"unit {s + 1} uses the {it}")

    # -- the final result, in order
    def _resolve_skulls(self, u: Unit) -> None:
        s = self.seat
        sec = self.map.sectors[u.sector]
        skulls = [i for i, v in enumerate(u.dice) if v == SKULL]
        if u.flak:
            u.soldiers += len(skulls)
            u.cancelled = list(skulls)  # skulls count for nothing else
            if skulls:
                self.events.append(f"unit {s + 1}: flak jacket turns {len(skulls)} skull(s) "
                                   "into soldiers")
            self._bonuses()
            return
        dice = [(v, u.colours[i]) for i, v in enumerate(u.dice)]
        dmc = rwb_triples(dice, SKULL)
        active_skulls = len(skulls)
        if dmc:
            if sec.bonus_blocked("dead_mans_chest"):
                self.events.append(f"unit {s + 1}: Dead Man's Chest is not possible here")
            else:
                gain = dmc * int(self.options["dead_mans_chest_ep"])
                u.ep += gain
                active_skulls -= 3 * dmc
                self._veteran(u, dmc)
                u.bonus_counts["dead_mans_chest"] = dmc
                self.events.append(f"unit {s + 1}: DEAD MAN'S CHEST, +{gain} EP; those skulls "
                                   "are ignored")
        if u.has("sniper") and active_skulls > 0:
            active_skulls -= 1
            self.events.append(f"unit {s + 1}'s sniper ignores a skull")
        u.cancelled = list(skulls)  # skulls themselves give no symbol
        u.pending_cancels = active_skulls
        targets = self._actions_cancel(u)
        if active_skulls > 0 and len(targets) > active_skulls:
            self.node = "cancel"
            return
        self._cancel_rest(u)
        self._bonuses()

    def _cancel_rest(self, u: Unit) -> None:
        """Skulls left over when every remaining die must go anyway."""
        if u.pending_cancels <= 0:
            return
        for _k, i in zip(range(u.pending_cancels), [a[1] for a in self._actions_cancel(u)],
                         strict=False):
            u.cancelled.append(i)
        self.events.append(f"unit {self.seat + 1}: skulls cancel the remaining dice")
        u.pending_cancels = 0

    def _bonuses(self) -> None:
        """Grant every RWB triple not yet granted (values 2 to 6), roll Surge dice, then
        tally the symbols."""
        s = self.seat
        u = self.units[s]
        sec = self.map.sectors[u.sector]
        dice = [d for d in u.final_dice() if d[0] != SKULL]
        for value in (2, 3, 4, 5, 6):
            key = f"rwb{value}"
            have = rwb_triples(dice, value)
            new = have - u.bonus_counts.get(key, 0)
            if new <= 0:
                continue
            u.bonus_counts[key] = have
            bonus = BONUS_OF[value]
            if sec.bonus_blocked(bonus):
                self.events.append(f"unit {s + 1}: {bonus.replace('_', ' ')} is not possible "
                                   "here")
                continue
            self._veteran(u, new)
            if value == 2:
                u.pending_surges += new
                self.events.append(f"unit {s + 1}: SURGE, a seventh die")
            elif value in (3, 4):
                u.soldiers += 6 * new
                self.events.append(f"unit {s + 1}: REINFORCEMENTS, +{6 * new} soldiers")
            elif value == 5:
                u.battle_cry = True
                self.events.append(f"unit {s + 1}: BATTLE CRY")
            else:
                u.bonus_stars += 2 * new
                self.events.append(f"unit {s + 1}: LUCKY FIND, +{2 * new} stars")
        if u.pending_surges > 0:
            u.pending_surges -= 1
            self._ask_chance("surge", 1, [])
            return
        self._tally(u)

    def _veteran(self, u: Unit, n: int) -> None:
        if u.has("veteran"):
            u.soldiers += n
            self.events.append(f"unit {self.seat + 1}'s veteran: +{n} soldier(s)")

    def _tally(self, u: Unit) -> None:
        s = self.seat
        sec = self.map.sectors[u.sector]
        dice = [v for v, _c in u.final_dice()]
        stars = max(0, dice.count(STAR) + u.bonus_stars + sec.symbol_change("star"))
        soldiers = max(0, dice.count(SOLDIER) + 2 * dice.count(SOLDIERS2)
                       + sec.symbol_change("soldier"))
        courage = max(0, dice.count(COURAGE) + sec.symbol_change("courage"))
        symbols = max(0, dice.count(ITEM) + (1 if u.has("scout") else 0)
                      + sec.symbol_change("item"))
        ep = equipment_points(symbols)
        u.soldiers += soldiers
        u.courage += courage
        u.ep += ep
        u.stars_left = stars
        u.bonus_stars = 0
        self.events.append(f"unit {s + 1} gains {soldiers} soldier(s), {courage} Courage, "
                           f"{stars} star(s), {symbols} item symbol(s) = {ep} EP")
        if stars > 0 and self._hireable(u):
            self.node = "stars"
        else:
            u.stars_left = 0
            self._enter_items(u)

    def _enter_items(self, u: Unit) -> None:
        """Phase 3; skipped when there is nothing to buy or use."""
        self.node = "items"
        if self._actions_items(u) == [("end_items",)]:
            self._next_in_phase()
