"""The turn's flow of D-Day Dice (`rules.dday.game.DDayState`): who acts next and in which
phase, from the first roll of a turn through the trade, the resolution of the final
results, movement and combat to the end of the turn, where finished units tally their
Victory Points and share (module docstring of `rules.dday.game` for the order of play).

A base class of the state, beside `DDayLegal`; the phases' own rules are its other
bases (`rules/dday/rolling.py`, `resolution.py`, `combat.py`), which step the flow on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.dday.battlemap import ITEMS, BattleMap
from rules.dday.legal import DDayLegal
from rules.dday.unit import START_COLOURS, Unit

STORM_VP, FIRST_VP, MEDAL_VP, SPECIALIST_VP, COURAGE_VP = 10, 10, 10, 3, 2


class TurnFlow(DDayLegal):
    """The order of play over the state's units: the queue of seats still to act in this
    phase (`queue`, `trade_queue`), the chance node asked (`chance`), and the turn's end."""

    map: BattleMap
    options: dict[str, Any]
    units: list[Unit]
    turn: int
    queue: list[int]
    trade_queue: list[int]
    trading: bool
    chance: list[Any]  # [purpose, n, indices]
    medal_awarded: bool
    first_storm_turn: int
    mg_rolls: dict[str, int]  # this turn's machine-gun roll per sector
    events: list[str]

    if TYPE_CHECKING:  # the phases that the flow hands a unit to
        def _resolve_skulls(self, u: Unit) -> None: ...  # rules/dday/resolution.py

        def _open_fire(self, u: Unit) -> None: ...  # rules/dday/combat.py

    def _ask_chance(self, purpose: str, n: int, idx: list[int]) -> None:
        self.node = "chance"
        self.chance = [purpose, n, idx]

    def _active(self) -> list[int]:
        return [i for i, u in enumerate(self.units) if u.status == "active"]

    def _start_turn(self) -> None:
        self.turn += 1
        for i in self._active():
            self.units[i].new_turn()
        self.events.append(f"-- turn {self.turn} --")
        self.mg_rolls = {}
        self.phase = "roll"
        self.queue = self._active()
        self.trading = False
        self._next_roller()

    def _end_roll_step(self, s: int) -> None:
        """A unit's roll is made: it waits for its next step behind the others still
        rolling (the round-by-round rolling of the module docstring)."""
        self.queue.append(s)
        self._next_roller()

    def _next_roller(self) -> None:
        """The next unit still rolling takes its next step: its first roll (dice not
        rolled yet, or rolled again for the Medal of Honor), setting two aside, or its
        changes and re-rolls; units that said `done` have left the queue."""
        if self.queue:
            self.seat = self.queue.pop(0)
            u = self.units[self.seat]
            if not u.dice:
                self._ask_chance("roll", 6, [])
            else:
                self.node = "keep" if not u.kept else "rolling"
            return
        if len(self.units) > 1 and not self.trading:
            self.trading = True
            self.trade_queue = [i for i in self._active() if self.units[i].has("officer")]
        if self.trading:
            self._next_trader()
        else:
            self._start_resolve()

    def _next_trader(self) -> None:
        self.phase = "trade"
        while self.trade_queue:
            s = self.trade_queue.pop(0)
            u = self.units[s]
            if (u.status == "active" and u.has("officer") and not u.traded
                    and any(not o.traded for q, o in enumerate(self.units)
                            if q != s and o.status == "active")):
                self.seat = s
                self.node = "trade"
                return
        self._start_resolve()

    def _medal_check(self, s: int, in_trade: bool = False) -> bool:
        """Every number 1 to 6 showing: the game's one Medal of Honor, and the rolling
        phase starts again: the unit's dice are taken up, so its next step is a first roll
        (Decision: checked after every roll, re-roll, Binoculars and trade; the Surge die
        is not one of the six). True when the medal was awarded now."""
        u = self.units[s]
        if self.medal_awarded or sorted(u.dice) != [1, 2, 3, 4, 5, 6]:
            return False
        self.medal_awarded = True
        u.medal = "held"
        self.events.append(f"unit {s + 1} rolls 1 to 6: MEDAL OF HONOR! The rolling phase "
                           "starts again")
        u.dice, u.kept, u.rerolls, u.sergeant_used, u.cancelled = [], [], 0, False, []
        u.colours = list(START_COLOURS)
        if in_trade:
            self.queue.append(s)
        return True

    def _start_resolve(self) -> None:
        self.phase = "resolve"
        self.queue = self._active()
        self._next_resolver()

    def _next_resolver(self) -> None:
        if not self.queue:
            self.phase = "move"
            self.queue = self._active()
            self._next_mover()
            return
        self.seat = self.queue.pop(0)
        self._resolve_skulls(self.units[self.seat])

    def _next_in_phase(self) -> None:
        if self.phase == "resolve":
            self._next_resolver()
        elif self.phase == "move":
            self._next_mover()
        else:
            self._next_fighter()

    def _next_mover(self) -> None:
        while self.queue:
            self.seat = self.queue.pop(0)
            u = self.units[self.seat]
            acts = self._actions_move(u)
            if not acts:
                here = self.map.sectors[u.sector]
                self._destroy(self.seat, f"must leave {here.title} but cannot")
                continue
            if acts == [("stay",)]:
                continue
            self.node = "move"
            return
        self.phase = "combat"
        self.queue = self._active()
        self._next_fighter()

    def _next_fighter(self) -> None:
        """Phase 5, first every unit's choices (phase 'combat'), then the fire on each
        (phase 'fire'): nobody chooses knowing a Machine-Gun roll."""
        while self.phase == "combat" and self.queue:
            self.seat = self.queue.pop(0)
            self.node = "combat"
            if self._actions_combat(self.units[self.seat]) != [("fight",)]:
                return
        if self.phase == "combat":
            self.phase = "fire"
            self.queue = self._active()
        if not self.queue:
            self._end_turn()
            return
        self.seat = self.queue.pop(0)
        self._open_fire(self.units[self.seat])

    def _destroy(self, s: int, why: str) -> None:
        u = self.units[s]
        u.status = "defeated"
        u.soldiers = 0
        u.dead.extend(u.specialists)
        u.specialists = []
        self.events.append(f"unit {s + 1} is destroyed: {why}")

    def _end_turn(self) -> None:
        finished = [i for i, u in enumerate(self.units)
                    if u.status != "active" and not u.vp_detail]
        stormers = [i for i in finished if self.units[i].status == "won"]
        if stormers and not self.first_storm_turn:
            self.first_storm_turn = self.turn
        for i in finished:
            self._tally_vp(i)
        for i in finished:
            self._share(i)
        if not self._active():
            self.phase = "over"
            self.node = ""
            self.events.append("game over: " + ", ".join(
                f"unit {i + 1} {u.status} with {u.vp} VP" for i, u in enumerate(self.units)))
            return
        self._start_turn()

    def _tally_vp(self, s: int) -> None:
        u = self.units[s]
        d: dict[str, int] = {}
        if u.status == "won":
            d["storming"] = STORM_VP
            if u.storm_turn == self.first_storm_turn:
                d["first"] = FIRST_VP
            d["final advance"] = u.last_advance
        d["soldiers"] = u.soldiers
        d["specialists"] = SPECIALIST_VP * len(u.specialists)
        d["courage"] = COURAGE_VP * u.courage
        if u.medal != "none":
            d["medal of honor"] = MEDAL_VP
        u.vp_detail = {k: v for k, v in d.items() if v} or {"nothing": 0}
        u.vp = sum(d.values())
        self.events.append(f"unit {s + 1} tallies {u.vp} VP: " + ", ".join(
            f"{k} {v}" for k, v in u.vp_detail.items()))

    def _share(self, s: int) -> None:
        """Victory: half the soldiers and EP go to the others; defeat: half the Items.
        Decision: shared round-robin from the next seat; Items given most costly first,
        each to the next unit that does not hold it already."""
        u = self.units[s]
        others = [i for i in range(s + 1, len(self.units)) if self.units[i].status == "active"]
        others += [i for i in range(s) if self.units[i].status == "active"]
        if not others:
            return
        if u.status == "won":
            soldiers, ep = u.soldiers // 2, u.ep // 2
            u.soldiers -= soldiers
            u.ep -= ep
            for k in range(soldiers):
                self.units[others[k % len(others)]].soldiers += 1
            for k, i in enumerate(others):
                self.units[i].ep += ep // len(others) + (1 if k < ep % len(others) else 0)
            self.events.append(f"unit {s + 1} shares {soldiers} soldier(s) and {ep} EP")
            return
        give = sorted(u.items, key=lambda it: -ITEMS[it])[: len(u.items) // 2]
        turn = 0
        for it in give:
            u.items.remove(it)
            for k in range(len(others)):
                r = self.units[others[(turn + k) % len(others)]]
                if it not in r.items:
                    r.items.append(it)
                    if it not in r.bought:
                        r.bought.append(it)
                    self.events.append(f"unit {s + 1} gives the {it} to unit "
                                       f"{others[(turn + k) % len(others)] + 1}")
                    turn += k + 1
                    break
