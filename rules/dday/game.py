"""D-Day Dice, the rule engine (`../shared/rulebooks/dday-dice.txt`), solo or 2 to 4 players.

Phases are simultaneous in the book; the engine takes the players one after another
inside each phase (seat order), and keeps to the book's timing where one player's roll
could otherwise be known before another's choice:
- Rolling goes round by round: every unit makes its first roll, then each in turn its
  next step (set aside, changes, one re-roll or `done`), and so on. The game's one Medal
  of Honor thus goes to the unit that shows 1 to 6 first, not to whoever sits first and
  rolls all three times before the others roll at all (within one round, seat order).
- Combat (Phase 5) first collects every unit's choices made "BEFORE rolling for
  Machine-Gun Fire" (the Grenade, and with it Bangalore, Flamethrower and the radios),
  then rolls: a sector's one Machine-Gun roll is never known to a unit still choosing.
The Officer's trade has its own step after everyone's rolling. Every die roll is a chance
node `('d6', n)`; the six dice of a unit are, by position, red, red, white, white, blue,
blue.

Decisions where the book is open are listed in `rules/dday/README.md` and marked
"Decision:" below.

Actions are tuples of str/int:
  ('keep', i, j)               set dice i and j aside after the first roll
  ('reroll', (i, ...))         re-roll some of the four other dice (twice a turn)
  ('sergeant', i) / ('backpack', i)   a third re-roll of one of the four dice
  ('binoculars', i, v)         set die i to value v
  ('terrain_map', i, c) / ('officer_colour', i, c)   give die i colour c (solo Officer)
  ('flak_jacket',)             all skulls become soldiers this turn
  ('done',)                    this is the final result
  ('trade', i, q, j) / ('no_trade',)   Officer: swap my die i with player q's die j
  ('cancel', i)                a skull removes die i
  ('surge_colour', c)          colour of a Surge die
  ('star', specialist)         cross off a box of a Specialist
  ('buy', item) / ('use', item[, choice]) / ('end_items',)
  ('stay',) / ('move', sector) / ('move', sector, 'whistle')
  ('mine_detector',) / ('cross',)      before a minefield roll
  ('binoculars_fire', v) / ('accept_roll',)   Additional Rule: change an MG/mine roll
  ('use', item) / ('fight',)   before combat (Bangalore, Flamethrower, Grenade, radios)
  ('lose', 'soldier' | 'courage' | specialist)   take one casualty
"""

from __future__ import annotations

from typing import Any

from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, RulesError, StateBase
from rules.dday.battlemap import ITEMS, SPECIALISTS, BattleMap, parse_map
from rules.dday.legal import LegalActions
from rules.dday.unit import COLOURS as COLOURS  # re-exported: imported from here elsewhere
from rules.dday.unit import COMBAT_ITEMS as COMBAT_ITEMS  # re-exported, as COLOURS
from rules.dday.unit import (
    COURAGE,
    ITEM,
    SKULL,
    SOLDIER,
    SOLDIER_ITEMS,
    SOLDIERS2,
    STAR,
    START_COLOURS,
    SYMBOL_NAMES,
    Unit,
    equipment_points,
    rwb_triples,
)

BONUS_OF = {2: "surge", 3: "reinforcements", 4: "reinforcements", 5: "battle_cry",
            6: "lucky_find"}
MAX_PLAYERS = 4
STORM_VP, FIRST_VP, MEDAL_VP, SPECIALIST_VP, COURAGE_VP = 10, 10, 10, 3, 2


class DDayState(StateBase, LegalActions):
    """The whole game: the map, the units, the turn, the phase and the node waiting. The
    legal actions are listed by `LegalActions` (rules/dday/legal.py), the unit and its dice
    are `Unit` (rules/dday/unit.py)."""

    def __init__(self, battle_map: BattleMap, num_players: int,
                 options: dict[str, Any] | None = None) -> None:
        if not 1 <= num_players <= MAX_PLAYERS:
            raise RulesError(f"dday takes 1 to {MAX_PLAYERS} players, got {num_players}")
        self.map = battle_map
        self.options = {"dead_mans_chest_ep": 20, "binoculars_on_fire": False,
                        **(options or {})}
        self.units = [Unit(battle_map.start, battle_map.soldiers) for _ in range(num_players)]
        self.turn = 0
        self.phase = "roll"
        self.node = ""
        self.seat = 0
        self.queue: list[int] = []
        self.trade_queue: list[int] = []
        self.trading = False
        self.chance: list[Any] = []  # [purpose, n, indices]
        self.medal_awarded = False
        self.first_storm_turn = 0
        self.mg_rolls: dict[str, int] = {}  # this turn's machine-gun roll per sector
        self.events: list[str] = []
        self._start_turn()

    # ---- OpenSpiel-style interface -------------------------------------------------
    def num_players(self) -> int:
        return len(self.units)

    def player_name(self, seat: int) -> str:
        return f"unit {seat + 1}"

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL_PLAYER
        if self.node == "chance":
            return CHANCE_PLAYER
        return self.seat

    def chance_request(self) -> tuple[str, int]:
        if self.node != "chance":
            raise ValueError("not a chance node")
        return ("d6", int(self.chance[1]))

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], float]]:
        """Every face combination with its probability (6**n of them, n <= 6). A Surge die
        re-rolls ones, so its outcome here still lists 1; the engine asks again."""
        if self.node != "chance":
            raise ValueError("not a chance node")
        n = int(self.chance[1])
        p = 1.0 / 6 ** n
        out: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
        for _ in range(n):
            out = [(f + (v,), 1.0) for f, _ in out for v in range(1, 7)]
        return [(f, p) for f, _ in out]

    def returns(self) -> list[float]:
        if self.phase != "over":
            return [0.0] * len(self.units)
        if len(self.units) == 1:
            return [1.0 if self.units[0].status == "won" else 0.0]
        best = max(u.vp for u in self.units)
        top = [i for i, u in enumerate(self.units) if u.vp == best]
        return [1.0 / len(top) if i in top else 0.0 for i in range(len(self.units))]

    def victory_points(self) -> list[int]:
        return [u.vp for u in self.units]

    def clone(self) -> DDayState:
        s = DDayState.__new__(DDayState)
        s.map = self.map
        s.options = self.options
        s.units = [u.clone() for u in self.units]
        s.turn = self.turn
        s.phase = self.phase
        s.node = self.node
        s.seat = self.seat
        s.queue = self.queue[:]
        s.trade_queue = self.trade_queue[:]
        s.trading = self.trading
        s.chance = [list(c) if isinstance(c, list) else c for c in self.chance]
        s.medal_awarded = self.medal_awarded
        s.first_storm_turn = self.first_storm_turn
        s.mg_rolls = dict(self.mg_rolls)
        s.events = []
        return s

    def take_events(self) -> list[str]:
        out, self.events = self.events, []
        return out

    def serialize(self) -> dict[str, Any]:
        return {
            "game": "dday",
            "map": self.map.raw,
            "options": dict(self.options),
            "units": [u.to_json() for u in self.units],
            "turn": self.turn,
            "phase": self.phase,
            "node": self.node,
            "seat": self.seat,
            "queue": self.queue[:],
            "trade_queue": self.trade_queue[:],
            "trading": self.trading,
            "chance": self.chance,
            "medal_awarded": self.medal_awarded,
            "first_storm_turn": self.first_storm_turn,
            "mg_rolls": dict(self.mg_rolls),
        }

    def render(self) -> str:
        from rules.dday.view import render_state

        return render_state(self)

    # ---- applying actions ------------------------------------------------------------
    def apply_action(self, action: Any) -> None:
        if isinstance(action, list):
            action = tuple(tuple(a) if isinstance(a, list) else a for a in action)
        if self.phase == "over" or self.node == "chance" or action not in self.legal_actions():
            raise RulesError(f"dday: illegal action {action!r} at {self.node or self.phase}")
        self.apply_legal(action)

    def apply_legal(self, action: tuple[Any, ...]) -> None:
        """Apply an action known to be legal (bots' search skips the check)."""
        getattr(self, f"_do_{self.node}")(self.units[self.seat], action)

    def action_to_string(self, action: Any) -> str:
        a = tuple(action)
        k = a[0]
        u = self.units[self.seat]

        def die(i: int) -> str:
            return f"die {i + 1} ({u.colours[i]} {u.dice[i]})" if u.dice else f"die {i + 1}"

        if k == "keep":
            return f"set aside {die(a[1])} and {die(a[2])}"
        if k == "reroll":
            return "re-roll " + ", ".join(die(i) for i in a[1])
        if k in ("sergeant", "backpack"):
            return f"{k}: re-roll {die(a[1])}"
        if k == "binoculars":
            return f"binoculars: {die(a[1])} becomes {a[2]}"
        if k in ("terrain_map", "officer_colour"):
            return f"{k.replace('_', ' ')}: {die(a[1])} becomes {a[2]}"
        if k == "trade":
            other = self.units[a[2]]
            return (f"officer: trade {die(a[1])} for unit {a[2] + 1}'s die {a[3] + 1} "
                    f"({other.colours[a[3]]} {other.dice[a[3]] if other.dice else '?'})")
        if k == "cancel":
            return f"skull cancels {die(a[1])}"
        if k == "move":
            t = self.map.sectors[a[1]].title
            return f"move to {t}" + (" using the whistle" if len(a) > 2 else "")
        if k == "use":
            return "use " + " ".join(str(x).replace("_", " ") for x in a[1:])
        if k == "buy":
            return f"buy {a[1].replace('_', ' ')} ({ITEMS[a[1]]} EP)"
        if k == "star":
            return f"star to {a[1]}"
        if k == "lose":
            return f"casualty: {a[1]}"
        if k == "binoculars_fire":
            return f"binoculars: the roll becomes {a[1]}"
        return " ".join(str(x).replace("_", " ") for x in a)

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

    # ---- chance ----------------------------------------------------------------------
    def apply_chance(self, faces: tuple[int, ...]) -> None:
        if self.node != "chance":
            raise ValueError("not a chance node")
        faces = tuple(int(f) for f in faces)
        purpose, n, idx = self.chance
        if len(faces) != n or not all(1 <= f <= 6 for f in faces):
            raise RulesError(f"dday: the roll needs {n} d6 faces, got {list(faces)}")
        s = self.seat
        u = self.units[s]
        if purpose == "roll":
            u.dice = list(faces)
            u.kept, u.rerolls, u.sergeant_used = [], 0, False
            self.events.append(f"unit {s + 1} rolls {_dice_text(u)}")
            self._medal_check(s)
            self._end_roll_step(s)
        elif purpose == "reroll":
            for i, f in zip(idx, faces, strict=True):
                u.dice[i] = f
            self.events.append(f"unit {s + 1} re-rolls: {_dice_text(u)}")
            self._medal_check(s)
            self._end_roll_step(s)
        elif purpose == "surge":
            if faces[0] == SKULL:
                self.events.append(f"unit {s + 1}: the Surge die shows a skull, roll again")
                return
            u.surge_value = faces[0]
            self.node = "surge_colour"
        else:
            if purpose == "mg":
                self.mg_rolls[u.sector] = faces[0]
            self._fire_roll(u, faces[0], purpose)

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

    def _ask_chance(self, purpose: str, n: int, idx: list[int]) -> None:
        self.node = "chance"
        self.chance = [purpose, n, idx]

    # ---- flow ------------------------------------------------------------------------
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


def _dice_text(u: Unit) -> str:
    return " ".join(f"{c[0].upper()}{v}" for v, c in zip(u.dice, u.colours, strict=False))


def deserialize_state(data: Any) -> DDayState:
    """Rebuild a state from `serialize()`; a corrupt save raises one RulesError line."""
    if not isinstance(data, dict):
        raise RulesError(f"dday save: expected a mapping, got {type(data).__name__}")
    try:
        bm = parse_map(data["map"], "save:map")
        units = data["units"]
        if not isinstance(units, list) or not 1 <= len(units) <= MAX_PLAYERS:
            raise RulesError(f"dday save: units: 1 to {MAX_PLAYERS} expected")
        s = DDayState.__new__(DDayState)
        s.map = bm
        s.options = dict(data["options"])
        s.units = [Unit.from_json(u) for u in units]
        for i, u in enumerate(s.units):
            if u.sector not in bm.sectors:
                raise RulesError(f"dday save: units[{i}].sector: unknown sector {u.sector!r}")
            if not isinstance(u.soldiers, int) or u.soldiers < 0:
                raise RulesError(f"dday save: units[{i}].soldiers: bad value {u.soldiers!r}")
        s.turn = int(data["turn"])
        s.phase = str(data["phase"])
        s.node = str(data["node"])
        if s.node and s.node != "chance" and not hasattr(s, f"_actions_{s.node}"):
            raise RulesError(f"dday save: node: unknown node {s.node!r}")
        s.seat = int(data["seat"])
        if not 0 <= s.seat < len(s.units):
            raise RulesError(f"dday save: seat: bad value {s.seat!r}")
        s.queue = [int(q) for q in data["queue"]]
        s.trade_queue = [int(q) for q in data["trade_queue"]]
        s.trading = bool(data["trading"])
        s.chance = list(data["chance"])
        s.medal_awarded = bool(data["medal_awarded"])
        s.first_storm_turn = int(data["first_storm_turn"])
        s.mg_rolls = {str(k): int(v) for k, v in data["mg_rolls"].items()}
        s.events = []
    except KeyError as exc:
        raise RulesError(f"dday save: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, RulesError):
            raise
        raise RulesError(f"dday save: bad value: {exc}") from None
    return s
