"""Diceland, the hex-tile game: two players (Red and Blue) fight with dice as armies.

Rules from `rulebooks/diceland-hex-nl.txt` as summarised in `rulebooks/CLARIFICATIONS.md`:

- Board: an even number of tiles, 8 to 36, one connected area (`rules.diceland_hex.board`).
  Each player gets tiles/2 + 2 dice.
- Setup: each player rolls all their dice; the players alternately place one die, keeping
  its rolled value, on an empty tile until the board is full. Each keeps two spare dice.
  The player whose two spares show the higher total starts (tie: the spares are re-rolled).
- A turn: attack, then move.
- Attack, mandatory when one of your armies borders an enemy army: one of your armies
  attacks an adjacent enemy army and rolls one spare die.
  - Roll <= attacker's value: the rolled die replaces the attacking die (the old one becomes
    a spare) and the defender is lowered by the roll. Book: red 5 attacks blue 3, rolls 2:
    red becomes 2, blue 1.
  - Roll > attacker's value: the attacker is lowered by 1; the defender is unchanged.
  - A die lowered below 1 is beaten and leaves the game; when the defender is beaten, the
    attacking army moves onto its tile.
- Combined attack: two of your armies that touch each other and the same enemy army roll
  two spares; the attacker then chooses which roll and which of the two armies to resolve
  it with (the German book; the English "must use the higher roll" is an error).
- Move: one army may move one tile to an empty adjacent tile, but not an army that borders
  an enemy army, and not the army that just moved in after a win.
- End: a player has no armies left; or two turns in a row pass with no attack, and then the
  player with more armies wins, ties broken by total pips, then a draw.
- Terrain variant (option): the board's terrain letters count. City (the book): at the end
  of its owner's turn the army on a city goes up by 1 (to at most 6). House rules of this
  project for the others: forest: a defender there loses one pip less from a successful
  attack (at least 1); hill: an army attacking from a hill succeeds on a roll up to its value
  plus 1; mountain: an army attacking from a mountain is not lowered when its roll is too
  high. Plain: nothing.

Decisions of this engine where the books are silent:
- Red (seat 0) rolls and places first.
- Spares keep no value between attacks: a spare is rolled whenever it is used, so only the
  setup spares' values (who starts) are kept.
- A move phase with no legal move passes by itself; the move phase offers 'stay'.
- House limit (`max_rounds`, default 200): after that many rounds the game ends as it does
  after two turns without an attack.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, Action, RulesError, StateBase
from rules.diceland_hex.board import Board, board_from_json, draw, load_board, random_board
from rules.diceland_hex.spec import GAME

COLOURS = ("Red", "Blue")
LETTERS = ("R", "B")
SPARES = 2

SETUP_ROLL = "setup_roll"  # chance: the player `placer` rolls all their dice
PLACE = "place"  # the player `placer` places one die
START_ROLL = "start_roll"  # chance: spares re-rolled after a tie (2 Red, then 2 Blue)
ATTACK = "attack"  # the player on turn chooses an attack
ATTACK_ROLL = "attack_roll"  # chance: one die (two for a combined attack)
CHOOSE = "choose"  # combined attack: which roll, which army
MOVE = "move"  # the player on turn may move one army
OVER = "over"
PHASES = (SETUP_ROLL, PLACE, START_ROLL, ATTACK, ATTACK_ROLL, CHOOSE, MOVE, OVER)



class HexState(StateBase):
    """The whole game; mutable, `clone()` for search. Tiles are numbered as on the board."""

    def __init__(self, board: Board, terrain: bool = False,
                 max_rounds: int = GAME.default("max_rounds")) -> None:
        self.board = board
        self.terrain_rules = terrain
        self.max_rounds = max_rounds
        self.owner = [-1] * board.size
        self.value = [0] * board.size
        self.hands: list[list[int]] = [[], []]  # rolled dice not yet placed, then spares
        self.phase = SETUP_ROLL
        self.placer = 0
        self.turn = -1
        self.turns_played = 0
        self.quiet_turns = 0  # turns in a row without an attack
        self.moved_in = -1  # tile of the army that just moved in after a win
        self.attackers: tuple[int, ...] = ()
        self.target = -1
        self.rolls: tuple[int, ...] = ()
        self.winner = -1  # seat, 2 for a draw, -1 while playing
        self._events: list[str] = []

    # --- the OpenSpiel-style vocabulary -------------------------------------------------

    def num_players(self) -> int:
        return 2

    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL_PLAYER
        if self.phase in (SETUP_ROLL, START_ROLL, ATTACK_ROLL):
            return CHANCE_PLAYER
        if self.phase == PLACE:
            return self.placer
        return self.turn

    def dice_per_player(self) -> int:
        return self.board.size // 2 + SPARES

    def chance_request(self) -> tuple[str, int]:
        if self.phase == SETUP_ROLL:
            return ("d6", self.dice_per_player())
        if self.phase == START_ROLL:
            return ("d6", 2 * SPARES)
        if self.phase == ATTACK_ROLL:
            return ("d6", len(self.attackers))
        raise ValueError(f"diceland-hex: not a chance node (phase {self.phase})")

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], float]]:
        """Every roll of an attack (6 or 36 outcomes); setup rolls are too many to list."""
        kind, n = self.chance_request()
        if self.phase != ATTACK_ROLL:
            raise ValueError(f"diceland-hex: {n} dice are too many outcomes to list")
        if n == 1:
            return [((r,), 1 / 6) for r in range(1, 7)]
        return [((a, b), 1 / 36) for a in range(1, 7) for b in range(1, 7)]

    def apply_chance(self, faces: tuple[int, ...]) -> None:
        kind, n = self.chance_request()
        if len(faces) != n or any(not 1 <= f <= 6 for f in faces):
            raise RulesError(f"diceland-hex: expected {n} d6 faces, got {list(faces)}")
        faces = tuple(int(f) for f in faces)
        if self.phase == SETUP_ROLL:
            self.hands[self.placer] = sorted(faces)
            self._say(f"{COLOURS[self.placer]} rolls {_show(faces)}")
            if self.placer == 0:
                self.placer = 1
            else:
                self.placer = 0
                self.phase = PLACE
        elif self.phase == START_ROLL:
            self.hands = [sorted(faces[:SPARES]), sorted(faces[SPARES:])]
            self._say(f"spares re-rolled: Red {_show(faces[:SPARES])}, "
                      f"Blue {_show(faces[SPARES:])}")
            self._decide_start()
        else:
            self.rolls = faces
            self._say(f"{COLOURS[self.turn]} rolls {_show(faces)}")
            if len(faces) == 1:
                self._resolve(self.attackers[0], faces[0])
            else:
                self.phase = CHOOSE

    def legal_actions(self) -> list[Action]:
        if self.phase == PLACE:
            empty = [t for t in range(self.board.size) if self.owner[t] < 0]
            return [("place", v, t) for v in sorted(set(self.hands[self.placer]))
                    for t in empty]
        if self.phase == ATTACK:
            return self._attacks()
        if self.phase == CHOOSE:
            return [("use", r, a) for r in sorted(set(self.rolls)) for a in self.attackers]
        if self.phase == MOVE:
            return [("stay",), *self._moves()]
        raise ValueError(f"diceland-hex: no player decision in phase {self.phase}")

    def apply_action(self, action: Action) -> None:
        if not self._is_legal(action):
            raise RulesError(f"diceland-hex: illegal action {action!r} in phase {self.phase}")
        verb = action[0]
        if verb == "place":
            value, tile = int(action[1]), int(action[2])
            self.hands[self.placer].remove(value)
            self.owner[tile], self.value[tile] = self.placer, value
            self._say(f"{COLOURS[self.placer]} places a {value} on tile {tile}")
            if all(o >= 0 for o in self.owner):
                self._decide_start()
            else:
                self.placer = 1 - self.placer
        elif verb in ("attack", "combined"):
            self.attackers = tuple(int(a) for a in action[1:-1])
            self.target = int(action[-1])
            self.quiet_turns = 0
            self.phase = ATTACK_ROLL
        elif verb == "use":
            self._resolve(int(action[2]), int(action[1]))
        elif verb == "move":
            src, dst = int(action[1]), int(action[2])
            self.owner[dst], self.value[dst] = self.owner[src], self.value[src]
            self.owner[src], self.value[src] = -1, 0
            self._say(f"{COLOURS[self.turn]} moves from tile {src} to tile {dst}")
            self._end_turn()
        else:  # stay
            self._end_turn()

    def returns(self) -> list[float]:
        if self.winner == 2:
            return [0.5, 0.5]
        if self.winner in (0, 1):
            return [1.0 if p == self.winner else 0.0 for p in (0, 1)]
        return [0.0, 0.0]

    def action_to_string(self, action: Action) -> str:
        verb = action[0]
        if verb == "place":
            return f"place a {action[1]} on tile {action[2]}"
        if verb == "attack":
            return (f"attack tile {action[2]} ({self._army(action[2])}) from tile {action[1]} "
                    f"({self._army(action[1])})")
        if verb == "combined":
            return (f"combined attack on tile {action[3]} ({self._army(action[3])}) from tiles "
                    f"{action[1]} ({self._army(action[1])}) and {action[2]} "
                    f"({self._army(action[2])})")
        if verb == "use":
            return f"use the {action[1]} with the army on tile {action[2]}"
        if verb == "move":
            return f"move the army on tile {action[1]} to tile {action[2]}"
        return "do not move"

    def player_name(self, seat: int) -> str:
        return COLOURS[seat]

    # --- queries ------------------------------------------------------------------------

    def armies(self, seat: int) -> list[int]:
        return [t for t in range(self.board.size) if self.owner[t] == seat]

    def pips(self, seat: int) -> int:
        return sum(self.value[t] for t in range(self.board.size) if self.owner[t] == seat)

    def borders_enemy(self, tile: int) -> bool:
        me = self.owner[tile]
        return any(self.owner[u] == 1 - me for u in self.board.neighbours[tile])

    def take_events(self) -> list[str]:
        events, self._events = self._events, []
        return events

    def render(self) -> str:
        """ASCII view: each tile shows its number and the army on it (R5 = Red 5)."""
        labels = []
        for t in range(self.board.size):
            army = (f"{LETTERS[self.owner[t]]}{self.value[t]}" if self.owner[t] >= 0
                    else "..")
            terrain = self.board.terrain[t].lower() if self.terrain_rules else ""
            labels.append(f"{t:>2}{army}{terrain}")
        lines = [draw(self.board, labels, width=6 if self.terrain_rules else 5)]
        legend = "tile number, then R5 = a Red army of 5, B = Blue, .. = empty"
        if self.terrain_rules:
            legend += "; terrain p plain, f forest, m mountain, h hill, c city"
        lines.append(f"({legend})")
        for seat in (0, 1):
            hand = ""
            if self.phase in (SETUP_ROLL, PLACE, START_ROLL):
                hand = f"; dice in hand {_show(tuple(self.hands[seat]))}"
            count = len(self.armies(seat))
            lines.append(f"{COLOURS[seat]}: {count} arm{'y' if count == 1 else 'ies'}, "
                         f"{self.pips(seat)} pips{hand}")
        if self.phase == CHOOSE:
            lines.append(f"rolled {_show(self.rolls)} for the attack on tile {self.target}")
        return "\n".join(lines)

    # --- copy and save --------------------------------------------------------------------

    def clone(self) -> HexState:
        c = HexState.__new__(HexState)
        c.__dict__.update(self.__dict__)
        c.owner = list(self.owner)
        c.value = list(self.value)
        c.hands = [list(self.hands[0]), list(self.hands[1])]
        c._events = []
        return c

    def serialize(self) -> dict[str, Any]:
        return {
            "game": "diceland-hex", "version": 1, "board": self.board.to_json(),
            "terrain_rules": self.terrain_rules, "max_rounds": self.max_rounds,
            "owner": list(self.owner), "value": list(self.value),
            "hands": [list(self.hands[0]), list(self.hands[1])], "phase": self.phase,
            "placer": self.placer, "turn": self.turn, "turns_played": self.turns_played,
            "quiet_turns": self.quiet_turns, "moved_in": self.moved_in,
            "attackers": list(self.attackers), "target": self.target,
            "rolls": list(self.rolls), "winner": self.winner,
        }

    # --- rules ----------------------------------------------------------------------------

    def _attacks(self) -> list[Action]:
        me = self.turn
        nb = self.board.neighbours
        out: list[Action] = []
        for a in range(self.board.size):
            if self.owner[a] != me:
                continue
            for t in nb[a]:
                if self.owner[t] == 1 - me:
                    out.append(("attack", a, t))
        for a in range(self.board.size):
            if self.owner[a] != me:
                continue
            for b in nb[a]:
                if b <= a or self.owner[b] != me:
                    continue
                for t in nb[a]:
                    if self.owner[t] == 1 - me and t in nb[b]:
                        out.append(("combined", a, b, t))
        return out

    def _moves(self) -> list[Action]:
        me = self.turn
        out: list[Action] = []
        for a in range(self.board.size):
            if self.owner[a] != me or a == self.moved_in or self.borders_enemy(a):
                continue
            out += [("move", a, u) for u in self.board.neighbours[a] if self.owner[u] < 0]
        return out

    def _is_legal(self, action: Action) -> bool:
        if not isinstance(action, tuple) or not action:
            return False
        verb = action[0]
        try:
            if self.phase == PLACE and verb == "place" and len(action) == 3:
                return action[1] in self.hands[self.placer] and self._empty(action[2])
            if self.phase == ATTACK and verb in ("attack", "combined"):
                return self._is_attack(action)
            if self.phase == CHOOSE and verb == "use" and len(action) == 3:
                return action[1] in self.rolls and action[2] in self.attackers
            if self.phase == MOVE:
                return action == ("stay",) or action in self._moves()
        except TypeError:
            return False
        return False

    def _is_attack(self, action: Action) -> bool:
        """The structural test behind `_attacks` (one attack, without listing them all)."""
        n, me, nb = self.board.size, self.turn, self.board.neighbours
        tiles = action[1:]
        if not all(isinstance(t, int) and 0 <= t < n for t in tiles):
            return False
        *mine, target = tiles
        if self.owner[target] != 1 - me or any(self.owner[a] != me or target not in nb[a]
                                               for a in mine):
            return False
        if action[0] == "attack":
            return len(mine) == 1
        return len(mine) == 2 and mine[0] < mine[1] and mine[1] in nb[mine[0]]

    def _empty(self, tile: Any) -> bool:
        return isinstance(tile, int) and 0 <= tile < self.board.size and self.owner[tile] < 0

    def _decide_start(self) -> None:
        red, blue = sum(self.hands[0]), sum(self.hands[1])
        self._say(f"spares: Red {_show(tuple(self.hands[0]))} = {red}, "
                  f"Blue {_show(tuple(self.hands[1]))} = {blue}")
        if red == blue:
            self._say("tie: both re-roll their spares")
            self.phase = START_ROLL
            return
        first = 0 if red > blue else 1
        self._say(f"{COLOURS[first]} starts")
        self._start_turn(first)

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        self.moved_in = -1
        self.attackers, self.target, self.rolls = (), -1, ()
        if any(self.borders_enemy(t) for t in self.armies(seat)):
            self.phase = ATTACK
        else:
            self.quiet_turns += 1
            self._say(f"{COLOURS[seat]} has no army next to an enemy: no attack")
            self._move_phase()

    def _move_phase(self) -> None:
        if self._moves():
            self.phase = MOVE
        else:
            self._end_turn()

    def _resolve(self, army: int, roll: int) -> None:
        """Resolve an attack from `army` on `self.target` with the chosen roll."""
        me, target = self.turn, self.target
        a, d = self.value[army], self.value[target]
        new_a, new_d = attack_outcome(a, d, roll, self._terrain(army), self._terrain(target))
        head = (f"{COLOURS[me]} {a} on tile {army} attacks {COLOURS[1 - me]} {d} on tile "
                f"{target} with a {roll}: ")
        if new_d < d:
            text = head + f"{COLOURS[me]} becomes {roll}, "
            if new_d < 1:
                self.owner[target], self.value[target] = me, roll
                self.owner[army], self.value[army] = -1, 0
                self.moved_in = target
                text += f"{COLOURS[1 - me]} is beaten; the army moves onto tile {target}"
            else:
                self.value[army], self.value[target] = roll, new_d
                text += f"{COLOURS[1 - me]} becomes {new_d}"
        elif new_a == a:
            text = head + "too high, the mountain holds: no loss"
        elif new_a < 1:
            self.owner[army], self.value[army] = -1, 0
            text = head + f"too high, {COLOURS[me]}'s army is beaten"
        else:
            self.value[army] = new_a
            text = head + f"too high, {COLOURS[me]} drops to {new_a}"
        self._say(text)
        self.attackers, self.rolls = (), ()
        for seat in (0, 1):
            if not self.armies(seat):
                self._finish(1 - seat, f"{COLOURS[seat]} has no armies left")
                return
        self._move_phase()

    def _end_turn(self) -> None:
        me = self.turn
        if self.terrain_rules:
            for t in self.armies(me):
                if self.board.terrain[t] == "C" and self.value[t] < 6:
                    self.value[t] += 1
                    self._say(f"the city on tile {t} raises {COLOURS[me]} to {self.value[t]}")
        self.turns_played += 1
        if self.quiet_turns >= 2:
            self._finish_by_count("two turns in a row without an attack")
        elif self.turns_played >= 2 * self.max_rounds:
            self._finish_by_count(f"round limit {self.max_rounds} reached")
        else:
            self._start_turn(1 - me)

    def _finish_by_count(self, why: str) -> None:
        counts = [len(self.armies(s)) for s in (0, 1)]
        pips = [self.pips(s) for s in (0, 1)]
        if counts[0] != counts[1]:
            self._finish(0 if counts[0] > counts[1] else 1, f"{why}; more armies")
        elif pips[0] != pips[1]:
            self._finish(0 if pips[0] > pips[1] else 1, f"{why}; equal armies, more pips")
        else:
            self._finish(2, f"{why}; equal armies and pips")

    def _finish(self, winner: int, why: str) -> None:
        self.winner = winner
        self.phase = OVER
        result = "a draw" if winner == 2 else f"{COLOURS[winner]} wins"
        self._say(f"game over ({why}): {result}")

    def _say(self, text: str) -> None:
        self._events.append(text)

    def _terrain(self, tile: int) -> str:
        return self.board.terrain[tile] if self.terrain_rules else "P"

    def _army(self, tile: int) -> str:
        return f"{COLOURS[self.owner[tile]]} {self.value[tile]}" if self.owner[tile] >= 0 \
            else "empty"


def attack_outcome(a: int, d: int, roll: int, att_terrain: str = "P",
                   def_terrain: str = "P") -> tuple[int, int]:
    """The attack rule on its own: (attacker's new value, defender's new value) when an
    army of value `a` attacks one of value `d` with `roll`; below 1 means beaten. A
    successful roll replaces the attacking die, so the attacker's new value is the roll."""
    reach = a + (1 if att_terrain == "H" else 0)
    if roll <= reach:
        loss = max(1, roll - 1) if def_terrain == "F" else roll
        return roll, d - loss
    if att_terrain == "M":
        return a, d
    return a - 1, d


# --- module-level interface (see rules.registry) -----------------------------------------


def new_game(num_players: int, options: dict[str, Any] | None,
             rng: np.random.Generator) -> HexState:
    GAME.check_players(num_players)
    options = GAME.resolve_options(options)
    name = options["board"]
    board = random_board(options["tiles"], rng) if name == "random" else load_board(name)
    return HexState(board, terrain=options["terrain"], max_rounds=options["max_rounds"])


def deserialize(data: Any, source: str = "diceland-hex save") -> HexState:
    """Rebuild a state from `serialize()`; a corrupt dict raises one-line `RulesError`."""
    if not isinstance(data, dict) or data.get("game") != "diceland-hex":
        raise RulesError(f"{source}: field 'game': not a Diceland hex state "
                         f"(got {data.get('game') if isinstance(data, dict) else data!r})")
    board = board_from_json(data.get("board"), source)
    s = HexState(board, bool(data.get("terrain_rules")), _int(data, "max_rounds", source, 1))
    n = board.size
    s.owner = _ints(data, "owner", source, -1, 1, n)
    s.value = _ints(data, "value", source, 0, 6, n)
    for t in range(n):
        if (s.owner[t] < 0) != (s.value[t] == 0):
            raise RulesError(f"{source}: field 'value': tile {t} has owner {s.owner[t]} "
                             f"and value {s.value[t]}")
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != 2:
        raise RulesError(f"{source}: field 'hands': expected two lists (got {hands!r})")
    s.hands = [_ints({"h": h}, "h", f"{source} hands", 1, 6, None) for h in hands]
    phase = data.get("phase")
    if phase not in PHASES:
        raise RulesError(f"{source}: field 'phase': unknown phase (got {phase!r})")
    s.phase = str(phase)
    s.placer = _int(data, "placer", source, 0, 1)
    s.turn = _int(data, "turn", source, -1, 1)
    s.turns_played = _int(data, "turns_played", source, 0)
    s.quiet_turns = _int(data, "quiet_turns", source, 0)
    s.moved_in = _int(data, "moved_in", source, -1, n - 1)
    s.attackers = tuple(_ints(data, "attackers", source, 0, n - 1, None))
    s.target = _int(data, "target", source, -1, n - 1)
    s.rolls = tuple(_ints(data, "rolls", source, 1, 6, None))
    s.winner = _int(data, "winner", source, -1, 2)
    return s


# --- helpers -----------------------------------------------------------------------------


def _show(faces: tuple[int, ...]) -> str:
    return "[" + " ".join(map(str, faces)) + "]"


def _int(data: dict[str, Any], name: str, source: str, lo: int, hi: int | None = None) -> int:
    value = data.get(name)
    if (not isinstance(value, int) or isinstance(value, bool) or value < lo
            or (hi is not None and value > hi)):
        span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise RulesError(f"{source}: field {name!r}: expected an integer {span} (got {value!r})")
    return value


def _ints(data: dict[str, Any], name: str, source: str, lo: int, hi: int,
          length: int | None) -> list[int]:
    value = data.get(name)
    if (not isinstance(value, list) or (length is not None and len(value) != length)
            or not all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
                       for v in value)):
        want = f"{length} " if length is not None else ""
        raise RulesError(f"{source}: field {name!r}: expected a list of {want}integers "
                         f"{lo}..{hi} (got {value!r})")
    return list(value)
