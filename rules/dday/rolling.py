"""Phase 1 of D-Day Dice, rolling, and the Officer's trade after it
(`rules.dday.game.DDayState`): setting two dice aside, the changes and re-rolls, the final
result, and the swap of two dice between units.
"""

from __future__ import annotations

from typing import Any

from rules.dday.flow import TurnFlow
from rules.dday.unit import Unit


class Rolling(TurnFlow):
    """The decisions of a unit rolling its dice (nodes `keep`, `rolling`) and trading them
    (node `trade`)."""

    # -- phase 1: rolling
    def _do_keep(self, u: Unit, a: tuple[Any, ...]) -> None:
        u.kept = [a[1], a[2]]
        self.events.append(f"unit {self.seat + 1} sets aside dice {a[1] + 1} and {a[2] + 1}")
        self.node = "rolling"

    def _do_rolling(self, u: Unit, a: tuple[Any, ...]) -> None:
        k = a[0]
        s = self.seat
        if k == "reroll":
            u.rerolls += 1
            self._ask_chance("reroll", len(a[1]), list(a[1]))
        elif k == "sergeant":
            u.sergeant_used = True
            self._ask_chance("reroll", 1, [a[1]])
        elif k == "backpack":
            u.items.remove("backpack")
            self._ask_chance("reroll", 1, [a[1]])
        elif k == "binoculars":
            u.items.remove("binoculars")
            u.dice[a[1]] = a[2]
            self.events.append(f"unit {s + 1} uses binoculars: die {a[1] + 1} shows {a[2]}")
            if self._medal_check(s):
                self._end_roll_step(s)
        elif k in ("terrain_map", "officer_colour"):
            if k == "terrain_map":
                u.items.remove("terrain_map")
            else:
                u.officer_used = True
            u.colours[a[1]] = a[2]
            self.events.append(f"unit {s + 1}: die {a[1] + 1} is now {a[2]}")
        elif k == "flak_jacket":
            u.items.remove("flak_jacket")
            u.flak = True
            self.events.append(f"unit {s + 1} puts on the flak jacket: skulls become soldiers")
        else:
            self.events.append(f"unit {s + 1} final result: {_dice_text(u)}")
            self._next_roller()

    def _do_trade(self, u: Unit, a: tuple[Any, ...]) -> None:
        s = self.seat
        if a[0] == "trade":
            i, q, j = a[1], a[2], a[3]
            o = self.units[q]
            u.dice[i], o.dice[j] = o.dice[j], u.dice[i]
            u.colours[i], o.colours[j] = o.colours[j], u.colours[i]
            u.traded = o.traded = True
            self.events.append(f"unit {s + 1}'s officer trades die {i + 1} for unit {q + 1}'s "
                               f"die {j + 1}")
            for p in (s, q):
                self._medal_check(p, in_trade=True)
        if self.queue:
            self.phase = "roll"
            self._next_roller()
        else:
            self._next_trader()


def _dice_text(u: Unit) -> str:
    return " ".join(f"{c[0].upper()}{v}" for v, c in zip(u.dice, u.colours, strict=False))
