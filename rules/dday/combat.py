"""Phase 4 and 5 of D-Day Dice (`rules.dday.game.DDayState`): a unit's move to another
sector (its costs, requirements and minefield), and combat (the choices before the
Machine-Gun roll, Enemy Fire and Machine-Gun Fire, the casualties taken).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.dday.flow import TurnFlow
from rules.dday.unit import Unit


class Combat(TurnFlow):
    """A unit moving (nodes `move`, `mine`) and under fire (nodes `combat`,
    `fire_binoculars`, `losses`)."""

    if TYPE_CHECKING:  # a combat item is used as in phase 3
        def _use_item(self, s: int, u: Unit, a: tuple[Any, ...]) -> None: ...  # resolution.py

    # -- phase 4: movement
    def _do_move(self, u: Unit, a: tuple[Any, ...]) -> None:
        s = self.seat
        if a[0] == "stay":
            self._next_in_phase()
            return
        dest = a[1]
        border, advance = next((b, adv) for t, b, adv in self.map.exits(u.sector) if t == dest)
        target = self.map.sectors[dest]
        cost = border.courage if advance else 0
        how = ""
        if u.battle_cry:
            cost, how = 0, " with a Battle Cry"
        elif len(a) > 2:
            u.items.remove("whistle")
            cost, how = 0, " on the whistle"
        u.courage -= cost
        if advance:
            u.last_advance = cost
        u.sector = dest
        u.visited.append(dest)
        u.turns_here = 0
        self.events.append(f"unit {s + 1} {'advances' if advance else 'moves sideways'} to "
                           f"{target.title}{how} ({cost} Courage)")
        if not u.battle_cry:
            for r in target.requirements:
                if r.kind == "sacrifice":
                    u.specialists.remove(r["specialist"])
                    u.dead.append(r["specialist"])
                    self.events.append(f"unit {s + 1} sacrifices the {r['specialist']}")
                elif r.kind == "sacrifice_soldiers":
                    u.soldiers -= r["amount"]
                    self.events.append(f"unit {s + 1} sacrifices {r['amount']} soldier(s)")
        for r in target.instructions:
            if r.kind == "on_entry":
                attr = r["resource"]
                setattr(u, attr, max(0, getattr(u, attr) + r["amount"]))
                self.events.append(f"unit {s + 1} on entering: {r.describe()}")
        if u.strength == 0:
            self._destroy(s, "lost its last soldiers entering the sector")
            self._next_in_phase()
            return
        if border.minefield:
            if u.has("sapper"):
                self.events.append(f"unit {s + 1}'s sapper clears the minefield")
            elif "mine_detector" in u.items and self._items_ok(u):
                self.node = "mine"
                return
            else:
                self._ask_chance("mine", 1, [])
                return
        self._next_in_phase()

    def _do_mine(self, u: Unit, a: tuple[Any, ...]) -> None:
        if a[0] == "mine_detector":
            u.items.remove("mine_detector")
            self.events.append(f"unit {self.seat + 1} crosses the minefield with the detector")
            self._next_in_phase()
        else:
            self._ask_chance("mine", 1, [])

    def _do_fire_binoculars(self, u: Unit, a: tuple[Any, ...]) -> None:
        if a[0] == "binoculars_fire":
            u.items.remove("binoculars")
            u.fire_roll = a[1]
            self.events.append(f"unit {self.seat + 1} uses binoculars: the roll is {a[1]}")
        self._fire_rolled()

    # -- phase 5: combat
    def _do_combat(self, u: Unit, a: tuple[Any, ...]) -> None:
        """Phase 5's choices before any roll; `fight` ends this unit's."""
        if a[0] == "use":
            self._use_item(self.seat, u, a)
            return
        self._next_fighter()

    def _open_fire(self, u: Unit) -> None:
        """Phase 5's fire on one unit, once every unit has made its choices: the sector's
        Machine-Gun roll (one per sector and turn) unless a Grenade silenced it."""
        sec = self.map.sectors[u.sector]
        if sec.machine_gun and not u.grenade:
            if u.sector in self.mg_rolls:  # one roll per sector and turn, for every unit there
                self._fire_roll(u, self.mg_rolls[u.sector], "mg", shared=True)
            else:
                self._ask_chance("mg", 1, [])
        else:
            if sec.machine_gun:
                self.events.append(f"unit {self.seat + 1}'s grenade silences the machine gun")
            u.fire_roll, u.fire_kind = 0, "mg"
            self._fire_rolled()

    def _do_losses(self, u: Unit, a: tuple[Any, ...]) -> None:
        what = a[1]
        if what == "soldier":
            u.soldiers -= 1
        elif what == "courage":
            u.courage -= 1
        else:
            u.specialists.remove(what)
            u.dead.append(what)
            u.forced_specialist = False
            self.events.append(f"unit {self.seat + 1} loses the {what}")
        u.losses -= 1
        self._continue_losses(u)

    def _fire_roll(self, u: Unit, value: int, kind: str, shared: bool = False) -> None:
        u.fire_roll, u.fire_kind = value, kind
        what = "machine-gun fire" if kind == "mg" else "the minefield"
        verb = "faces the sector's roll of" if shared else "rolls"
        self.events.append(f"unit {self.seat + 1} {verb} {value} for {what}")
        if (self.options["binoculars_on_fire"] and "binoculars" in u.items
                and self._items_ok(u)):
            self.node = "fire_binoculars"
        else:
            self._fire_rolled()

    def _fire_rolled(self) -> None:
        """Losses from the minefield roll, or from Enemy Fire plus Machine-Gun Fire."""
        s = self.seat
        u = self.units[s]
        if u.fire_kind == "mine":
            u.losses = u.fire_roll
            u.forced_specialist = False
            self.events.append(f"unit {s + 1} loses {u.losses} to the minefield")
        else:
            sec = self.map.sectors[u.sector]
            ef = sec.enemy_fire
            if u.bangalore:
                ef = 0
                self.events.append(f"unit {s + 1}'s Bangalore torpedo: Enemy Fire 0")
            if u.flamethrower:
                ef = max(0, ef - 10)
                self.events.append(f"unit {s + 1}'s flamethrower: bunker fire {ef}")
            u.losses = ef + u.fire_roll
            u.forced_specialist = u.fire_roll in sec.mg_specialist_on
            mg = f" + {u.fire_roll} machine gun = {u.losses}" if sec.machine_gun else ""
            self.events.append(f"unit {s + 1} takes Enemy Fire {ef}{mg}")
        if u.losses > 0 and u.has("medic") and u.soldiers > 0:
            u.losses -= 1
            self.events.append(f"unit {s + 1}'s medic saves a soldier")
        self._continue_losses(u)

    def _continue_losses(self, u: Unit) -> None:
        """Take casualties: one decision each while there is a choice; plain soldiers
        alone are taken at once."""
        s = self.seat
        while u.losses > 0:
            acts = self._actions_losses(u)
            if not acts:
                u.losses = 0
                break
            if acts == [("lose", "soldier")]:
                u.soldiers -= min(u.losses, u.soldiers)
                u.losses = 0
                break
            self.node = "losses"
            return
        if u.strength == 0:
            self._destroy(s, "has no soldiers left")
        elif u.fire_kind != "mine" and self.map.sectors[u.sector].bunker:
            u.status = "won"
            u.storm_turn = self.turn
            self.events.append(f"unit {s + 1} STORMS THE BUNKER with {u.strength} soldier(s)")
        elif u.fire_kind != "mine":
            u.turns_here += 1
        if u.fire_kind == "mine":
            u.fire_kind = ""
            self._next_mover()
        else:
            self._next_fighter()
