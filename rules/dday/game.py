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
from rules.dday.battlemap import ITEMS, BattleMap, parse_map
from rules.dday.combat import Combat
from rules.dday.resolution import Resolution
from rules.dday.rolling import Rolling, _dice_text
from rules.dday.unit import COLOURS as COLOURS  # re-exported: imported from here elsewhere
from rules.dday.unit import COMBAT_ITEMS as COMBAT_ITEMS  # re-exported, as COLOURS
from rules.dday.unit import SKULL, Unit
from rules.dday.unit import SOLDIER_ITEMS as SOLDIER_ITEMS  # re-exported, as COLOURS
from rules.dday.unit import START_COLOURS as START_COLOURS  # re-exported, as COLOURS
from rules.dday.unit import SYMBOL_NAMES as SYMBOL_NAMES  # re-exported, as COLOURS
from rules.dday.unit import equipment_points as equipment_points  # re-exported, as COLOURS

MAX_PLAYERS = 4


class DDayState(StateBase, Rolling, Resolution, Combat):
    """The whole game: the map, the units, the turn, the phase and the node waiting. The
    legal actions are listed by `DDayLegal` (rules/dday/legal.py), the unit and its dice
    are `Unit` (rules/dday/unit.py). The rules that change the game are in parts of their
    own, its bases: the order of play in `TurnFlow` (rules/dday/flow.py), and the phases'
    decisions in `Rolling` (rolling.py: rolling and the trade), `Resolution`
    (resolution.py: the final result and the items) and `Combat` (combat.py: movement and
    fire). Here: the game's interface, the actions' texts and the chance nodes' faces."""

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
