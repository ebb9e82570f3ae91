"""A D-Day Dice unit: its Player Sheet (soldiers, Specialists, Courage, items, points) and
this turn's six dice, and the two small tables read off dice (Equipment Points, red-white-
blue triples). Pure data and arithmetic; the turn's rules are in `rules.dday.game`.
"""

from __future__ import annotations

from typing import Any

from rules.core.protocols import RulesError

SKULL, STAR, SOLDIER, SOLDIERS2, COURAGE, ITEM = 1, 2, 3, 4, 5, 6
COLOURS = ("red", "white", "blue")
START_COLOURS = ("red", "red", "white", "white", "blue", "blue")
SYMBOL_NAMES = {1: "skull", 2: "star", 3: "soldier", 4: "2 soldiers", 5: "courage",
                6: "item"}
# Items a player uses before combat (Phase 5) and in Phase 3.
COMBAT_ITEMS = ("bangalore", "flamethrower", "grenade", "radio", "mobile_radio")
SOLDIER_ITEMS = {"radio": 5, "mobile_radio": 2}


def equipment_points(symbols: int) -> int:
    """Equipment points for a number of Item symbols: 1, 3, 6, 12, 24, 48, then +24 each."""
    table = (0, 1, 3, 6, 12, 24, 48)
    if symbols <= 0:
        return 0
    if symbols < len(table):
        return table[symbols]
    return 48 + 24 * (symbols - 6)


def rwb_triples(dice: list[tuple[int, str]], value: int) -> int:
    """How many red-white-blue triples showing `value` the dice hold."""
    return min(sum(1 for v, c in dice if v == value and c == col) for col in COLOURS)


class Unit:
    """One player's unit and Player Sheet, plus this turn's dice."""

    __slots__ = ("sector", "visited", "turns_here", "soldiers", "specialists", "dead",
                 "progress", "courage", "ep", "items", "bought", "medal", "status", "vp",
                 "last_advance", "storm_turn", "dice", "colours", "kept", "rerolls",
                 "sergeant_used", "officer_used", "traded", "flak", "battle_cry", "extra",
                 "cancelled", "pending_cancels", "bonus_counts", "pending_surges",
                 "surge_value", "bonus_stars", "stars_left", "bought_this_turn", "grenade",
                 "bangalore", "flamethrower", "losses", "forced_specialist", "fire_roll",
                 "fire_kind", "vp_detail")

    def __init__(self, sector: str, soldiers: int) -> None:
        self.sector = sector
        self.visited = [sector]
        self.turns_here = 0
        self.soldiers = soldiers  # plain soldiers; Specialists are counted apart
        self.specialists: list[str] = []
        self.dead: list[str] = []
        self.progress: dict[str, int] = {}
        self.courage = 0
        self.ep = 0
        self.items: list[str] = []
        self.bought: list[str] = []
        self.medal = "none"  # Medal of Honor: none, held, used
        self.status = "active"  # active, won, defeated
        self.vp = 0
        self.last_advance = 0
        self.storm_turn = 0
        self.vp_detail: dict[str, int] = {}
        self.new_turn()

    def new_turn(self) -> None:
        self.dice: list[int] = []
        self.colours = list(START_COLOURS)
        self.kept: list[int] = []
        self.rerolls = 0
        self.sergeant_used = False
        self.officer_used = False
        self.traded = False
        self.flak = False
        self.battle_cry = False
        self.extra: list[list[Any]] = []  # Surge dice: [value, colour]
        self.cancelled: list[int] = []
        self.pending_cancels = 0
        self.bonus_counts: dict[str, int] = {}
        self.pending_surges = 0
        self.surge_value = 0
        self.bonus_stars = 0
        self.stars_left = 0
        self.bought_this_turn = False
        self.grenade = False
        self.bangalore = False
        self.flamethrower = False
        self.losses = 0
        self.forced_specialist = False
        self.fire_roll = 0
        self.fire_kind = ""

    @property
    def strength(self) -> int:
        return self.soldiers + len(self.specialists)

    def has(self, specialist: str) -> bool:
        return specialist in self.specialists

    def final_dice(self) -> list[tuple[int, str]]:
        """The dice that count: the six not cancelled by skulls, and Surge dice."""
        out = [(v, self.colours[i]) for i, v in enumerate(self.dice) if i not in self.cancelled]
        out.extend((int(v), str(c)) for v, c in self.extra)
        return out

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Unit:
        u = Unit.__new__(Unit)
        u.new_turn()
        for k in Unit.__slots__:
            if k not in d:
                raise RulesError(f"dday save: unit: missing field {k!r}")
            setattr(u, k, d[k])
        return u

    def clone(self) -> Unit:
        u = Unit.__new__(Unit)
        for k in Unit.__slots__:
            v = getattr(self, k)
            if isinstance(v, list):
                v = [x[:] if isinstance(x, list) else x for x in v]
            elif isinstance(v, dict):
                v = dict(v)
            setattr(u, k, v)
        return u
