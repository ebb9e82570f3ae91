"""DiceWar: Light of Dragons, the rule engine (`../shared/rulebooks/dicewar.txt`).

Two players; player 0 plays the red dice, player 1 the black. The warlands are 7x7 fields,
row 0 is player 0's Supply Zone (back row), row 6 player 1's. A field holds 0 (empty),
+p (player 0's creature of power p) or -p (player 1's).

Decisions where the book is open (also in `rules/dicewar/README.md`):
- Field bonus: a creature defeated in the opposing half scores +1, +2, +3 on the
  opponent's third, second and back (Supply Zone) rows, for attacks and for spells alike.
- A player with no legal Standard Action loses. After `max_plies` war-phase turns the
  game ends: more victory points wins, equal is a draw.
- Upgrade stops at 6. The trigger-points bar runs 0 to 10.
- The Ruins option: three ruin fields across the middle row (b4, d4, f4).
- The glossary's abilities, as specialities (`rules/dicewar/tribe.py`): `immune_attacks`,
  `immune_specialities` (no opposing speciality acts on the creature: `threatening` does
  not hold it, `trigger_on_kill` gains nothing for it) and `virtual_vp` (counted with the
  bar's victory points toward the 10 and in the turn-limit comparison; the bar, `vp`,
  shows only those gained in combat). Victory is checked for both players at the end of
  every turn, the player on turn first, since a spell can change the other's virtual
  points (a weakened creature turns into another).

Phases: 'start' (chance: each player rolls a d6, ties re-roll), 'setup' (the starting
player, then the other, put dice from the Reserve in their Supply Zone until the powers
total 10), 'war' (one Standard Action per turn), 'over'.

Actions are tuples: ('place', col, power), ('move', src, dst) (a move or an attack),
('upgrade', src), ('spell', src, dst) (dst == src when the spell has no target).
"""

from __future__ import annotations

from typing import Any

from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, RulesError, StateBase
from rules.dicewar.actions import DiceWarActions
from rules.dicewar.board import (
    CELLS,
    DICE_PER_PLAYER,
    PLAYER_NAMES,
    RUINS,
    SETUP_POWER,
    SIZE,
    cell_name,
    field_bonus,
    home_row,
)
from rules.dicewar.board import WIN_VP as WIN_VP  # re-exported: imported from here elsewhere
from rules.dicewar.board import beats as beats  # re-exported, as WIN_VP
from rules.dicewar.board import parse_cell as parse_cell  # re-exported, as WIN_VP
from rules.dicewar.spec import GAME
from rules.dicewar.tribe import Tribe, parse_tribe


class DiceWarState(StateBase, DiceWarActions):
    """The whole game: board, reserve, exile, victory and trigger points, phase. What is
    where and what may be done is asked of its base `DiceWarLegal` (rules/dicewar/legal.py),
    what an action does is `DiceWarActions` (actions.py); the warlands' geometry and the game's
    numbers are in board.py. Here: the game's interface."""

    __slots__ = ("tribes", "ruins", "max_plies", "board", "reserve", "exile", "vp", "tp",
                 "phase", "player", "first", "setup_done", "plies", "winner", "events",
                 "start_rolls")

    def __init__(self, tribes: tuple[Tribe, Tribe], ruins: bool = False,
                 max_plies: int = GAME.default("max_plies")) -> None:
        self.tribes = tribes
        self.ruins = ruins
        self.max_plies = max_plies
        self.board = [0] * CELLS
        self.reserve = [DICE_PER_PLAYER, DICE_PER_PLAYER]
        self.exile = [0, 0]
        self.vp = [0, 0]
        self.tp = [0, 0]
        self.phase = "start"
        self.player = 0
        self.first = 0
        self.setup_done = [False, False]
        self.plies = 0
        self.winner: int | None = None  # -1 for a draw once over
        self.events: list[str] = []
        self.start_rolls: list[list[int]] = []

    # ---- OpenSpiel-style interface -------------------------------------------------
    def num_players(self) -> int:
        return 2

    def player_name(self, seat: int) -> str:
        return PLAYER_NAMES[seat]

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL_PLAYER
        if self.phase == "start":
            return CHANCE_PLAYER
        return self.player

    def chance_request(self) -> tuple[str, int]:
        if self.phase != "start":
            raise ValueError("not a chance node")
        return ("d6", 2)

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], float]]:
        if self.phase != "start":
            raise ValueError("not a chance node")
        return [((a, b), 1 / 36) for a in range(1, 7) for b in range(1, 7)]

    def apply_chance(self, faces: tuple[int, ...]) -> None:
        if self.phase != "start":
            raise ValueError("not a chance node")
        if len(faces) != 2 or not all(1 <= f <= 6 for f in faces):
            raise RulesError(f"dicewar: start roll needs two d6 faces, got {faces!r}")
        a, b = int(faces[0]), int(faces[1])
        self.start_rolls.append([a, b])
        if a == b:
            self.events.append(f"start roll: red {a}, black {b}: tied, roll again")
            return
        self.first = 0 if a > b else 1
        self.player = self.first
        self.phase = "setup"
        self.events.append(f"start roll: red {a}, black {b}: {PLAYER_NAMES[self.first]} starts")

    def returns(self) -> list[float]:
        if self.phase != "over":
            return [0.0, 0.0]
        if self.winner in (0, 1):
            return [1.0 if self.winner == p else 0.0 for p in (0, 1)]
        return [0.5, 0.5]

    def legal_actions(self) -> list[tuple[Any, ...]]:
        if self.phase == "setup":
            return self._setup_actions()
        if self.phase == "war":
            return self._war_actions(self.player)
        return []

    def apply_action(self, action: Any) -> None:
        action = _as_tuple(action)
        if not self._is_legal(action):
            raise RulesError(f"dicewar: illegal action {action!r} in phase {self.phase}")
        self.apply_legal(action)

    def _is_legal(self, action: tuple[Any, ...]) -> bool:
        """Same answer as `action in legal_actions()`, without listing them all."""
        if self.phase == "setup":
            return action in self._setup_actions()
        if self.phase != "war" or len(action) < 2 or not isinstance(action[1], int):
            return False
        src = action[1]
        if not 0 <= src < CELLS or self.owner(src) != self.player:
            return False
        if action[0] == "move" and len(action) == 3:
            moves, attacks = self.targets_of_movement(src)
            return action[2] in moves or action[2] in attacks
        if action[0] == "upgrade" and len(action) == 2:
            return abs(self.board[src]) < 6
        if action[0] == "spell" and len(action) == 3:
            return action[2] in self._spell_targets(self.player, src)
        return False

    def apply_legal(self, action: tuple[Any, ...]) -> None:
        """Apply an action known to be legal (bots' search skips the check)."""
        p = self.player
        kind = action[0]
        if kind == "place":
            self._place(p, home_row(p) * SIZE + action[1], action[2], "sets up")
            if self._setup_power(p) == SETUP_POWER:
                self.setup_done[p] = True
                self.events.append(f"{PLAYER_NAMES[p]} finishes the setup")
                if all(self.setup_done):
                    self.phase = "war"
                    self.player = self.first
                else:
                    self.player = 1 - p
            return
        if kind == "move":
            self._move(p, action[1], action[2])
        elif kind == "upgrade":
            v = self.board[action[1]]
            self.board[action[1]] = v + (1 if v > 0 else -1)
            self.events.append(f"{PLAYER_NAMES[p]} upgrades {cell_name(action[1])} "
                               f"from {abs(v)} to {abs(v) + 1}")
        else:
            self._spell(p, action[1], action[2])
        self._end_turn(p)

    def action_to_string(self, action: Any) -> str:
        action = _as_tuple(action)
        kind = action[0]
        if kind == "place":
            cell = home_row(self.player) * SIZE + action[1]
            return f"place power {action[2]} on {cell_name(cell)}"
        if kind == "upgrade":
            return f"upgrade {cell_name(action[1])}"
        src, dst = action[1], action[2]
        if kind == "move":
            verb = "attack" if self.board[dst] != 0 else "move"
            return f"{verb} {cell_name(src)}-{cell_name(dst)}"
        spell = self.creature_at(src).spell
        name = spell.kind if spell else "spell"
        return f"{name} {cell_name(src)}" + ("" if dst == src else f" on {cell_name(dst)}")

    def clone(self) -> DiceWarState:
        s = DiceWarState.__new__(DiceWarState)
        s.tribes = self.tribes
        s.ruins = self.ruins
        s.max_plies = self.max_plies
        s.board = self.board[:]
        s.reserve = self.reserve[:]
        s.exile = self.exile[:]
        s.vp = self.vp[:]
        s.tp = self.tp[:]
        s.phase = self.phase
        s.player = self.player
        s.first = self.first
        s.setup_done = self.setup_done[:]
        s.plies = self.plies
        s.winner = self.winner
        s.events = []
        s.start_rolls = [r[:] for r in self.start_rolls]
        return s

    def take_events(self) -> list[str]:
        out, self.events = self.events, []
        return out

    def serialize(self) -> dict[str, Any]:
        return {
            "game": "dicewar",
            "tribes": [t.raw for t in self.tribes],
            "ruins": self.ruins,
            "max_plies": self.max_plies,
            "board": self.board[:],
            "reserve": self.reserve[:],
            "exile": self.exile[:],
            "vp": self.vp[:],
            "tp": self.tp[:],
            "phase": self.phase,
            "player": self.player,
            "first": self.first,
            "setup_done": self.setup_done[:],
            "plies": self.plies,
            "winner": self.winner,
            "start_rolls": self.start_rolls,
        }

    def render(self) -> str:
        return render_board(self)


def _as_tuple(action: Any) -> tuple[Any, ...]:
    if isinstance(action, list):
        return tuple(action)
    if not isinstance(action, tuple):
        raise RulesError(f"dicewar: an action is a tuple, got {action!r}")
    return action


def render_board(s: DiceWarState) -> str:
    """The 7x7 warlands as text: R3 is red's power-3 creature, B5 black's power 5, ()
    a ruin; black's Supply Zone (row 7) on top."""
    lines = [f"        black: VP {s.vp[1]:2d}  TP {s.tp[1]:2d}  reserve {s.reserve[1]:2d}  "
             f"exile {s.exile[1]:2d}{_virtual_text(s, 1)}"]
    lines.append("     a  b  c  d  e  f  g")
    for r in range(SIZE - 1, -1, -1):
        row = []
        for c in range(SIZE):
            i = r * SIZE + c
            v = s.board[i]
            if v > 0:
                row.append(f"R{v}")
            elif v < 0:
                row.append(f"B{-v}")
            else:
                row.append("()" if s.ruins and i in RUINS else " .")
        tag = {0: " red supply", SIZE - 1: " black supply"}.get(r, "")
        bonus = max(field_bonus(0, i), field_bonus(1, i))
        lines.append(f"  {r + 1} " + " ".join(row) + f"  +{bonus}{tag}" if bonus
                     else f"  {r + 1} " + " ".join(row) + tag)
    lines.append(f"        red:   VP {s.vp[0]:2d}  TP {s.tp[0]:2d}  reserve {s.reserve[0]:2d}  "
                 f"exile {s.exile[0]:2d}{_virtual_text(s, 0)}")
    lines.append("  R = red, B = black, digit = power; +n = field bonus for defeating the "
                 "owner of that half there")
    for p, tribe in enumerate(s.tribes if s.tribes[0] is not s.tribes[1] else s.tribes[:1]):
        who = "" if s.tribes[0] is s.tribes[1] else f"{PLAYER_NAMES[p]} "
        lines.append(f"  {who}{tribe.name}: " + ", ".join(
            f"{c.power} {c.name}" for c in tribe.creatures))
    if s.phase in ("setup", "war"):
        lines.append(f"  {PLAYER_NAMES[s.player]} to play ({s.phase})")
    return "\n".join(lines)


def _virtual_text(s: DiceWarState, p: int) -> str:
    """Virtual victory points beside the bar (the book: not displayed on it)."""
    virtual = s.virtual_vp(p)
    return f"  + virtual VP {virtual}" if virtual else ""


def new_state(tribes: tuple[Tribe, Tribe], ruins: bool = False,
              max_plies: int = GAME.default("max_plies")) -> DiceWarState:
    return DiceWarState(tribes, ruins=ruins, max_plies=max_plies)


def deserialize_state(data: Any) -> DiceWarState:
    """Rebuild a state from `serialize()`; any corrupt field raises one RulesError line."""
    if not isinstance(data, dict):
        raise RulesError(f"dicewar save: expected a mapping, got {type(data).__name__}")
    try:
        tribes = tuple(parse_tribe(t, "save:tribes") for t in data["tribes"])
        if len(tribes) != 2:
            raise RulesError(f"dicewar save: tribes: need 2, got {len(tribes)}")
        s = DiceWarState((tribes[0], tribes[1]), bool(data["ruins"]), int(data["max_plies"]))
        board = [int(v) for v in data["board"]]
        if len(board) != CELLS or any(abs(v) > 6 for v in board):
            raise RulesError(f"dicewar save: board: 49 fields of -6..6 expected, got {board!r}")
        s.board = board
        for key in ("reserve", "exile", "vp", "tp"):
            vals = [int(v) for v in data[key]]
            if len(vals) != 2 or any(v < 0 for v in vals):
                raise RulesError(f"dicewar save: {key}: two counts >= 0 expected, got {vals!r}")
            setattr(s, key, vals)
        for p in (0, 1):
            on_board = len(s.creatures_of(p))
            if s.reserve[p] + s.exile[p] + on_board != DICE_PER_PLAYER:
                raise RulesError(f"dicewar save: {PLAYER_NAMES[p]} dice do not add up to "
                                 f"{DICE_PER_PLAYER} (reserve {s.reserve[p]}, exile "
                                 f"{s.exile[p]}, on board {on_board})")
        phase = data["phase"]
        if phase not in ("start", "setup", "war", "over"):
            raise RulesError(f"dicewar save: phase: unknown phase {phase!r}")
        s.phase = phase
        s.player = int(data["player"])
        s.first = int(data["first"])
        if s.player not in (0, 1) or s.first not in (0, 1):
            raise RulesError(f"dicewar save: player: must be 0 or 1, got {s.player!r}")
        s.setup_done = [bool(v) for v in data["setup_done"]]
        s.plies = int(data["plies"])
        w = data["winner"]
        s.winner = None if w is None else int(w)
        s.start_rolls = [list(map(int, r)) for r in data.get("start_rolls", [])]
    except KeyError as exc:
        raise RulesError(f"dicewar save: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, RulesError):
            raise
        raise RulesError(f"dicewar save: bad value: {exc}") from None
    return s
