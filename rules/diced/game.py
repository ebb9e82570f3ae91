"""Diced: 3 to 8 players steal each other's dice (and the pool's) with sixes.

Rules from `rulebooks/diced.txt`, with the decisions of `rulebooks/CLARIFICATIONS.md`:

- Each player starts with one die; the rest form the pool. A roll-off (everyone rolls one
  die, ties roll again) decides who starts; play passes to the next seat.
- On their turn a player makes any number of attacks, each with k >= 1 of their dice that
  have not attacked yet this turn, on the pool or on one player. They may end the turn at
  any time; it ends when no die can attack any more.
- Pool attack: each six takes one die from the pool, never more than it holds. An empty
  pool is closed for the rest of the game.
- Player attack: the defender commits any number (0..all) of their dice; both roll. Sixes
  cancel in pairs; the side with surplus sixes takes that many dice from the other
  (symmetric, decision), never more than the other holds.
- Re-roll tokens: at the end of their turn a player gets one token per die that did not
  attack, at most 3. Tokens are spent only when defending, one die per token, and expire
  at the start of the owner's next turn. Re-rolling a six can never help, so the choice is
  how many non-six dice of the defence to re-roll; the defender may re-roll in several
  steps, looking at each result.
- Dice taken during a turn cannot attack until the taker's next turn (decision).
- A player without dice is out; the last player holding dice wins.

Decisions of this engine where the books are silent:
- When a player loses dice, the ones that can no longer attack this turn go first (the
  dice just rolled in the exchange, dice used earlier, dice captured this turn).
- The pool starts with 3 dice per player unless the `pool` option says otherwise; it holds
  at least one die per player (the book: "at minimum two per player").
- House limit (`max_rounds`, default 200): after that many rounds the player(s) with the
  most dice win, so games between passive bots end.
- Tokens come from the attack-ready dice left when the turn ends; captured dice, which
  could not attack, give none.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np

from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, Action, RulesError, StateBase
from rules.diced.spec import GAME

MAX_TOKENS = 3
POOL_PER_PLAYER = 3
POOL = -1  # target id of the pool in attack records

# Phases of a state.
ROLLOFF = "rolloff"  # chance: contenders roll one die each
TURN = "turn"  # the player on turn chooses an attack or ends the turn
DEFEND = "defend"  # the attacked player commits dice
ROLL = "roll"  # chance: attacker's and defender's dice (or the pool attack's)
REROLL_CHOICE = "reroll_choice"  # the defender may spend tokens
REROLL = "reroll"  # chance: the re-rolled defence dice
OVER = "over"
PHASES = (ROLLOFF, TURN, DEFEND, ROLL, REROLL_CHOICE, REROLL, OVER)



class DicedState(StateBase):
    """The whole game; mutable, `clone()` for search. Seats are 0..n-1."""

    def __init__(self, num_players: int, pool: int,
                 max_rounds: int = GAME.default("max_rounds")) -> None:
        self.n = num_players
        self.total = num_players + pool
        self.max_rounds = max_rounds
        self.dice = [1] * num_players
        self.pool = pool
        self.pool_open = pool > 0
        self.tokens = [0] * num_players
        self.phase = ROLLOFF
        self.contenders = list(range(num_players))
        self.turn = -1  # seat on turn
        self.ready = 0  # dice of the seat on turn that may still attack
        self.turns_played = 0
        self.target = POOL  # current attack: target seat or POOL
        self.k = 0  # attacking dice
        self.j = 0  # defending dice
        self.attack_faces: tuple[int, ...] = ()
        self.defence_faces: tuple[int, ...] = ()
        self.reroll_n = 0
        self.winners: list[int] = []
        self._events: list[str] = []

    # --- the OpenSpiel-style vocabulary -------------------------------------------------

    def num_players(self) -> int:
        return self.n

    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL_PLAYER
        if self.phase in (ROLLOFF, ROLL, REROLL):
            return CHANCE_PLAYER
        if self.phase == TURN:
            return self.turn
        return self.target

    def chance_request(self) -> tuple[str, int]:
        if self.phase == ROLLOFF:
            return ("d6", len(self.contenders))
        if self.phase == ROLL:
            return ("d6", self.k + self.j)
        if self.phase == REROLL:
            return ("d6", self.reroll_n)
        raise ValueError(f"diced: not a chance node (phase {self.phase})")

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], float]]:
        """Outcomes grouped by what the rules read (the count of sixes on each side), each
        group given by one representative roll: sixes first, then ones."""
        kind, n = self.chance_request()
        if self.phase == ROLLOFF:
            if n > 5:
                raise ValueError(f"diced: a roll-off of {n} dice is too large to enumerate")
            return [(faces, 6.0 ** -n) for faces in itertools.product(range(1, 7), repeat=n)]
        if self.phase == REROLL:
            return [(_representative(s, n), _binom(s, n)) for s in range(n + 1)]
        return [(_representative(a, self.k) + _representative(d, self.j),
                 _binom(a, self.k) * _binom(d, self.j))
                for a in range(self.k + 1) for d in range(self.j + 1)]

    def apply_chance(self, faces: tuple[int, ...]) -> None:
        kind, n = self.chance_request()
        if len(faces) != n or any(not 1 <= f <= 6 for f in faces):
            raise RulesError(f"diced: expected {n} d6 faces, got {list(faces)}")
        faces = tuple(int(f) for f in faces)
        if self.phase == ROLLOFF:
            self._rolloff(faces)
        elif self.phase == ROLL:
            self.attack_faces, self.defence_faces = faces[: self.k], faces[self.k:]
            if self.target == POOL:
                self._resolve_pool()
            else:
                self._say(f"{self.player_name(self.turn)} rolls {_show(self.attack_faces)}, "
                          f"{self.player_name(self.target)} rolls {_show(self.defence_faces)}")
                self._after_defence_roll()
        else:
            keep = sorted(self.defence_faces, reverse=True)  # sixes first; the rest re-rolled
            kept = tuple(keep[: len(keep) - self.reroll_n])
            self.tokens[self.target] -= self.reroll_n
            self.defence_faces = kept + faces
            self._say(f"{self.player_name(self.target)} re-rolls {self.reroll_n}: "
                      f"{_show(faces)}; defence now {_show(self.defence_faces)}")
            self._after_defence_roll()

    def legal_actions(self) -> list[Action]:
        if self.phase == TURN:
            actions: list[Action] = []
            if self.pool_open:
                actions += [("pool", k) for k in range(1, self.ready + 1)]
            for t in self.alive():
                if t != self.turn:
                    actions += [("attack", t, k) for k in range(1, self.ready + 1)]
            actions.append(("end",))
            return actions
        if self.phase == DEFEND:
            return [("defend", j) for j in range(self.dice[self.target] + 1)]
        if self.phase == REROLL_CHOICE:
            most = min(self.tokens[self.target], _non_sixes(self.defence_faces))
            return [("keep",)] + [("reroll", m) for m in range(1, most + 1)]
        raise ValueError(f"diced: no player decision in phase {self.phase}")

    def apply_action(self, action: Action) -> None:
        if action not in self.legal_actions():
            raise RulesError(f"diced: illegal action {action!r} in phase {self.phase}")
        verb = action[0]
        if verb == "end":
            self._say(f"{self.player_name(self.turn)} ends the turn")
            self._end_turn()
        elif verb == "pool":
            self.target, self.k, self.j = POOL, int(action[1]), 0
            self.ready -= self.k
            self.phase = ROLL
        elif verb == "attack":
            self.target, self.k = int(action[1]), int(action[2])
            self.ready -= self.k
            self.phase = DEFEND
        elif verb == "defend":
            self.j = int(action[1])
            self.phase = ROLL
        elif verb == "keep":
            self._resolve_players()
        else:  # reroll
            self.reroll_n = int(action[1])
            self.phase = REROLL

    def returns(self) -> list[float]:
        if self.phase != OVER:
            return [0.0] * self.n
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(self.n)]

    def action_to_string(self, action: Action) -> str:
        verb = action[0]
        if verb == "end":
            return "end the turn"
        if verb == "pool":
            return f"attack the pool with {_dice(action[1])}"
        if verb == "attack":
            return f"attack {self.player_name(action[1])} with {_dice(action[2])}"
        if verb == "defend":
            return f"defend with {_dice(action[1])}"
        if verb == "keep":
            return "keep the defence roll"
        return f"re-roll {_dice(action[1])} (spend {action[1]} token{'s' * (action[1] != 1)})"

    def player_name(self, seat: int) -> str:
        return f"P{seat + 1}"

    # --- queries ------------------------------------------------------------------------

    def alive(self) -> list[int]:
        return [p for p in range(self.n) if self.dice[p] > 0]

    def take_events(self) -> list[str]:
        events, self._events = self._events, []
        return events

    def render(self) -> str:
        rows = []
        for p in range(self.n):
            mark = ">" if p == self.turn else " "
            status = "out" if self.dice[p] == 0 else f"{self.dice[p]:2d} dice"
            extra = ""
            if p == self.turn and self.phase != OVER:
                extra = f", {self.ready} ready to attack"
            if self.tokens[p]:
                extra += f", {self.tokens[p]} re-roll token{'s' * (self.tokens[p] != 1)}"
            rows.append(f" {mark} {self.player_name(p)}: {status}{extra}")
        pool = f"{self.pool} dice" if self.pool_open else "closed"
        lines = [f"Pool: {pool}", *rows]
        if self.phase in (DEFEND, REROLL_CHOICE):
            lines.append(f"{self.player_name(self.turn)} attacks {self.player_name(self.target)}"
                         f" with {_dice(self.k)}")
        if self.phase == REROLL_CHOICE:
            lines.append(f"  attacker rolled {_show(self.attack_faces)}, "
                         f"defence rolled {_show(self.defence_faces)}")
        return "\n".join(lines)

    # --- copy and save --------------------------------------------------------------------

    def clone(self) -> DicedState:
        c = DicedState.__new__(DicedState)
        c.__dict__.update(self.__dict__)
        c.dice = list(self.dice)
        c.tokens = list(self.tokens)
        c.contenders = list(self.contenders)
        c.winners = list(self.winners)
        c._events = []
        return c

    def serialize(self) -> dict[str, Any]:
        return {
            "game": "diced", "version": 1, "players": self.n, "total": self.total,
            "max_rounds": self.max_rounds, "dice": list(self.dice), "pool": self.pool,
            "pool_open": self.pool_open, "tokens": list(self.tokens), "phase": self.phase,
            "contenders": list(self.contenders), "turn": self.turn, "ready": self.ready,
            "turns_played": self.turns_played, "target": self.target, "k": self.k, "j": self.j,
            "attack_faces": list(self.attack_faces),
            "defence_faces": list(self.defence_faces), "reroll_n": self.reroll_n,
            "winners": list(self.winners),
        }

    # --- rules ----------------------------------------------------------------------------

    def _rolloff(self, faces: tuple[int, ...]) -> None:
        best = max(faces)
        self._say("roll-off: " + ", ".join(f"{self.player_name(p)} {f}"
                                           for p, f in zip(self.contenders, faces, strict=True)))
        tied = [p for p, f in zip(self.contenders, faces, strict=True) if f == best]
        if len(tied) > 1:
            self.contenders = tied
            self._say("tie: " + ", ".join(self.player_name(p) for p in tied) + " roll again")
            return
        self._say(f"{self.player_name(tied[0])} starts")
        self._start_turn(tied[0])

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        if self.tokens[seat]:
            self._say(f"{self.player_name(seat)}'s {self.tokens[seat]} unused token(s) expire")
        self.tokens[seat] = 0  # the owner's tokens expire as their turn begins
        self.ready = self.dice[seat]
        self.phase = TURN

    def _end_turn(self) -> None:
        self.tokens[self.turn] = min(MAX_TOKENS, self.ready) if self.dice[self.turn] else 0
        if self.tokens[self.turn]:
            self._say(f"{self.player_name(self.turn)} holds {self.tokens[self.turn]} "
                      "re-roll token(s) for defence")
        self.turns_played += 1
        if self.turns_played >= self.max_rounds * self.n:
            most = max(self.dice)
            self._finish([p for p in range(self.n) if self.dice[p] == most],
                         f"round limit {self.max_rounds} reached")
            return
        seat = self.turn
        for _ in range(self.n):
            seat = (seat + 1) % self.n
            if self.dice[seat] > 0:
                break
        self._start_turn(seat)

    def _after_attack(self) -> None:
        alive = self.alive()
        if len(alive) == 1:
            self._finish(alive, "holds all the dice in play")
        elif self.dice[self.turn] == 0 or self.ready == 0:
            self._end_turn()
        else:
            self.phase = TURN

    def _resolve_pool(self) -> None:
        sixes = self.attack_faces.count(6)
        taken = min(sixes, self.pool)
        self.pool -= taken
        self.dice[self.turn] += taken
        text = (f"{self.player_name(self.turn)} rolls {_show(self.attack_faces)} at the pool: "
                f"takes {_dice(taken)}")
        if self.pool == 0:
            self.pool_open = False
            text += "; the pool is empty and closed"
        self._say(text)
        self._after_attack()

    def _after_defence_roll(self) -> None:
        if self.tokens[self.target] > 0 and _non_sixes(self.defence_faces) > 0:
            self.phase = REROLL_CHOICE
        else:
            self._resolve_players()

    def _resolve_players(self) -> None:
        a, d = self.attack_faces.count(6), self.defence_faces.count(6)
        att, dfn = self.turn, self.target
        if a > d:
            taken = min(a - d, self.dice[dfn])
            self.dice[dfn] -= taken
            self.dice[att] += taken  # captured dice cannot attack this turn
            text = f"{self.player_name(att)} takes {_dice(taken)} from {self.player_name(dfn)}"
        elif d > a:
            taken = min(d - a, self.dice[att])
            self.dice[att] -= taken
            self.ready = min(self.ready, self.dice[att])
            self.dice[dfn] += taken
            text = f"{self.player_name(dfn)} takes {_dice(taken)} from {self.player_name(att)}"
        else:
            text = "no surplus sixes; no dice change hands"
        if min(a, d) > 0:
            text = f"{min(a, d)} six(es) on each side cancel; " + text
        self._say(text)
        for p in (dfn, att):
            if self.dice[p] == 0:
                self.tokens[p] = 0
                self._say(f"{self.player_name(p)} has no dice left and is out")
        self.attack_faces, self.defence_faces, self.j = (), (), 0
        self._after_attack()

    def _finish(self, winners: list[int], why: str) -> None:
        self.winners = winners
        self.phase = OVER
        names = ", ".join(self.player_name(p) for p in winners)
        self._say(f"game over ({why}): {names} win{'s' * (len(winners) == 1)}")

    def _say(self, text: str) -> None:
        self._events.append(text)


# --- module-level interface (see rules.registry) -----------------------------------------


def new_game(num_players: int, options: dict[str, Any] | None,
             rng: np.random.Generator) -> DicedState:
    """A new game. The book's materials, "at minimum two [dice] per player", and its set-up,
    "each player receives one die, and all remaining dice are placed in a pool", make the
    smallest pool one die per player."""
    GAME.check_players(num_players)
    options = GAME.resolve_options(options)
    pool = options["pool"]
    if pool is None:
        pool = POOL_PER_PLAYER * num_players
    elif pool < num_players:
        raise RulesError(f"diced: option --pool must be at least {num_players} for "
                         f"{num_players} players: the book asks for at minimum two dice "
                         f"per player, one in hand and one in the pool (got {pool})")
    return DicedState(num_players, pool, options["max_rounds"])


def deserialize(data: Any, source: str = "diced save") -> DicedState:
    """Rebuild a state from `serialize()`; a corrupt dict raises one-line `RulesError`."""
    if not isinstance(data, dict) or data.get("game") != "diced":
        raise RulesError(f"{source}: field 'game': not a Diced state "
                         f"(got {data.get('game') if isinstance(data, dict) else data!r})")
    n = _field(data, "players", int, source)
    if not 3 <= n <= 8:
        raise RulesError(f"{source}: field 'players': 3 to 8 (got {n})")
    s = DicedState(n, 0, _field(data, "max_rounds", int, source))
    s.total = _field(data, "total", int, source)
    s.dice = _int_list(data, "dice", n, source, 0, s.total)
    s.pool = _field(data, "pool", int, source)
    s.pool_open = _field(data, "pool_open", bool, source)
    s.tokens = _int_list(data, "tokens", n, source, 0, MAX_TOKENS)
    s.phase = _field(data, "phase", str, source)
    if s.phase not in PHASES:
        raise RulesError(f"{source}: field 'phase': unknown phase (got {s.phase!r})")
    s.contenders = _int_list(data, "contenders", None, source, 0, n - 1)
    s.turn = _field(data, "turn", int, source)
    s.ready = _field(data, "ready", int, source)
    s.turns_played = _field(data, "turns_played", int, source)
    s.target = _field(data, "target", int, source)
    s.k = _field(data, "k", int, source)
    s.j = _field(data, "j", int, source)
    s.attack_faces = tuple(_int_list(data, "attack_faces", None, source, 1, 6))
    s.defence_faces = tuple(_int_list(data, "defence_faces", None, source, 1, 6))
    s.reroll_n = _field(data, "reroll_n", int, source)
    s.winners = _int_list(data, "winners", None, source, 0, n - 1)
    if sum(s.dice) + s.pool != s.total or s.pool < 0:
        raise RulesError(f"{source}: field 'dice': {sum(s.dice)} dice plus pool {s.pool} "
                         f"do not make the total {s.total}")
    if not -1 <= s.turn < n or not 0 <= s.ready <= max(s.dice) or not POOL <= s.target < n:
        raise RulesError(f"{source}: field 'turn'/'ready'/'target' out of range "
                         f"(got {s.turn}, {s.ready}, {s.target})")
    return s


def exact_steal_probability(k: int, j: int) -> float:
    """P(attacker's sixes exceed the defender's) for k attacking and j defending dice,
    no re-rolls: the binomial sum, the closed form the tests check against brute force."""
    return sum(_binom(a, k) * _binom(d, j) for a in range(k + 1) for d in range(j + 1) if a > d)


# --- helpers -----------------------------------------------------------------------------


def _binom(s: int, n: int) -> float:
    return comb(n, s) * (1 / 6) ** s * (5 / 6) ** (n - s)


def _representative(sixes: int, n: int) -> tuple[int, ...]:
    return (6,) * sixes + (1,) * (n - sixes)


def _non_sixes(faces: tuple[int, ...]) -> int:
    return sum(1 for f in faces if f != 6)


def _show(faces: tuple[int, ...]) -> str:
    return "[" + " ".join(map(str, faces)) + "]" if faces else "[]"


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def _field(data: dict[str, Any], name: str, kind: type, source: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RulesError(f"{source}: field {name!r}: expected {kind.__name__} (got {value!r})")
    return value


def _int_list(data: dict[str, Any], name: str, length: int | None, source: str,
              lo: int, hi: int) -> list[int]:
    value = data.get(name)
    if (not isinstance(value, list) or (length is not None and len(value) != length)
            or not all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
                       for v in value)):
        want = f"{length} " if length is not None else ""
        raise RulesError(f"{source}: field {name!r}: expected a list of {want}integers "
                         f"{lo}..{hi} (got {value!r})")
    return list(value)
