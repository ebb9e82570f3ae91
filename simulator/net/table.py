"""One table of the table server: a game of any registered game, its seats, its log and its
autosave. Plain synchronous Python (no sockets): the server calls it from one worker thread.

A table is made with its seats: each is "open" (waiting for a person), "human" once a
person holds it (with a secret token; only its SHA-256 is kept) or a bot kind. The game
starts when no seat is open: the log's header is written then, with every person's seat as
a `human` player, so `tabletop replay --verify` re-runs the bots and checks the people's
moves for legality like any other log; a seat a client played with its own bot (`join`'s
`kind`, `tabletop join --auto`) is named so in the header's `played_by`. Steps are taken
through a `rules.core.match.Match`, the loop `tabletop play` plays through.

On disk, in `<games dir>/<table id>/`:

- `game.jsonl`: the log (`rules.core.runner`'s format), a line appended and flushed per
  step;
- `table.json`: the autosave, rewritten atomically (`dice_models.outfiles`) after every
  step: the seats, the state (`serialize()`), the number of log lines it stands at, and the
  state of every random stream (chance and each seat's bot), so that a server restarted on
  the same folder goes on exactly where it stood and the whole log still verifies. A log
  line written just before a crash, whose autosave was not, is cut on loading. Loading
  re-derives the log through the engine and refuses (one line naming the field) an
  autosave that does not say what its log does: game, seed, options, dice, seats, state
  and streams; the table then plays on from the re-derived game.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from dice_models.errors import DataError, shown_field
from dice_models.files import parse_json, read_text
from dice_models.outfiles import OutputError, ensure_dir, reason, write_json, write_text
from rules import registry
from rules.core import RulesError, TableError
from rules.core.bots import Agent
from rules.core.match import Match, from_json, streams
from rules.core.protocols import DiceRoller, GameState
from rules.core.runner import is_legal, replay_lines
from simulator.plugins import load_plugins, make_roller

TABLE_FILE = "table.json"
LOG_FILE = "game.jsonl"
TABLE_TYPE = "tabletop-table"
TABLE_FORMAT = 1
OPEN = "open"
HUMAN = "human"


class StepFailed(Exception):
    """The engine failed on an action with an error of our own (a bug, not a refusal):
    the table's state was put back as it was before the action, and nothing was logged."""


@dataclass
class Seat:
    kind: str  # OPEN, HUMAN or a bot kind
    name: str = ""
    token_sha256: str = ""
    played_by: str = ""  # a HUMAN seat: what plays it on the client (HUMAN or a bot kind)

    def public(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name}
        if self.played_by and self.played_by != self.kind:
            out["played_by"] = self.played_by
        return out


@dataclass(frozen=True)
class Step:
    """What one step of the game did, as the server tells the clients: the log line
    (`index`: its line number from 0, the header being 0), the state after it, the seat a
    person must act for next (None: the server's turn, or the end) and, for a throw on the
    physics table, its recorded trajectory."""

    index: int
    line: dict[str, Any]
    state: dict[str, Any]
    to_move: int | None
    trajectory: dict[str, Any] | None = None
    autosave: dict[str, Any] | None = None  # to be written before it is told (defer_saves)


class GameTable:
    """A table's game (see the module docstring). `folder` None keeps it in memory only."""

    def __init__(self, table_id: str, game: str, seats: list[Seat], seed: int,
                 options: dict[str, Any], dice: str, folder: Path | None) -> None:
        self.id = table_id
        self.spec = registry.lookup(game)
        load_plugins()
        self.module = self.spec.module()
        self.seats = seats
        self.seed = seed
        self.options = options
        self.dice = dice
        self.folder = folder
        self.roller: DiceRoller = make_roller(dice)
        # The game (state, streams, agents, log lines): made by `create` or `load`.
        self.match: Match = None  # type: ignore[assignment]
        self.error: str | None = None  # the table stopped: the physics failed a bot's throw
        # False: each step writes its autosave at once. The server sets True and writes a
        # step's `Step.autosave` itself, in a thread of its own, before telling anyone of
        # the step: the fsyncs (about 14 ms a save here) then hold up only this table.
        self.defer_saves = False
        self._log: TextIO | None = None

    # -- making and loading ---------------------------------------------------------------

    @classmethod
    def create(cls, table_id: str, game: str, seats: list[str], seed: int,
               options: dict[str, Any], dice: str, games_dir: Path | None) -> GameTable:
        """A new table; a bad game, seat count, bot kind or option is a `RulesError` line
        naming the field."""
        try:
            spec = registry.lookup(game)
        except RulesError as exc:
            raise RulesError(f"game: {exc}") from None
        try:
            spec.check_players(len(seats))
        except RulesError as exc:
            raise RulesError(f"seats: {exc}") from None
        for kind in seats:
            if kind != OPEN and kind not in spec.bots:
                raise RulesError(f"seats: unknown bot {kind!r} for {spec.name}"
                                 + registry.did_you_mean(kind, [OPEN, *spec.bots]))
        try:
            resolved = spec.resolve_options(options)
        except RulesError as exc:
            raise RulesError(f"options: {exc}") from None
        folder = None if games_dir is None else games_dir / table_id
        table = cls(table_id, spec.name, [Seat(k) for k in seats], seed, resolved, dice, folder)
        try:
            table.match = table._fresh_match()
        except RulesError as exc:
            raise RulesError(f"options: {exc}") from None
        if folder is not None:
            ensure_dir(folder, "--games-dir")
        table._start_if_full()
        table.save()
        return table

    @classmethod
    def load(cls, folder: Path) -> GameTable:
        """The table autosaved in `folder`; a damaged autosave is one `RulesError` line
        naming the file."""
        path = folder / TABLE_FILE
        data = parse_json(read_text(path), path, "autosave")
        try:
            if data.get("type") != TABLE_TYPE or data.get("format") != TABLE_FORMAT:
                raise RulesError(f"not a table autosave of format {TABLE_FORMAT}")
            seats = [Seat(str(s["kind"]), str(s["name"]), str(s["token_sha256"]))
                     for s in data["seats"]]
            table = cls(str(data["id"]), str(data["game"]), seats, int(data["seed"]),
                        dict(data["options"]), str(data["dice"]), folder)
            for number, (seat, saved) in enumerate(zip(seats, data["seats"], strict=True)):
                seat.played_by = _played_by(table.spec, seat, saved, number)
            table.error = data.get("error")
            # The state, streams and bots are re-derived from the log, never taken on trust.
            _resume_checked(table, data, int(data["log_lines"]))
        except RulesError as exc:
            raise RulesError(f"{path}: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError, DataError) as exc:
            raise RulesError(f"{path}: autosave: bad or missing field ({exc})") from None
        return table

    # -- seats ---------------------------------------------------------------------------------

    def take_seat(self, seat: int, name: str, played_by: str = HUMAN) -> str:
        """Give open `seat` to a client, played there by `played_by` (a person, or a bot
        kind of the game); the secret token that proves it is theirs."""
        if played_by != HUMAN and played_by not in self.spec.bots:
            raise RulesError(f"join: kind: not a player of {self.spec.name} (got "
                             f"{played_by!r})"
                             + registry.did_you_mean(played_by, [HUMAN, *self.spec.bots]))
        self._open_seat(seat)
        token = secrets.token_urlsafe(24)
        self.seats[seat] = Seat(HUMAN, name, _hash(token), played_by)
        self._start_if_full()
        self.save()
        return token

    def put_bot(self, seat: int, kind: str) -> None:
        self._open_seat(seat)
        if kind not in self.spec.bots:
            raise RulesError(f"bot: kind: unknown bot {kind!r} for {self.spec.name}"
                             + registry.did_you_mean(kind, list(self.spec.bots)))
        self.seats[seat] = Seat(kind, kind)
        self._start_if_full()
        self.save()

    def owns(self, seat: int, token: str) -> bool:
        """Is `token` the secret of `seat`? (Compared in constant time.)"""
        if not 0 <= seat < len(self.seats) or not self.seats[seat].token_sha256:
            return False
        return hmac.compare_digest(self.seats[seat].token_sha256, _hash(token))

    # -- the game (its match) ----------------------------------------------------------------

    @property
    def state(self) -> Any:  # Any: the game's own state class
        return self.match.state

    @state.setter
    def state(self, value: GameState) -> None:
        self.match.state = value

    @property
    def chance_rng(self) -> Any:
        return self.match.chance_rng

    @property
    def seat_rngs(self) -> list[Any]:
        return self.match.seat_rngs

    @property
    def agents(self) -> list[Agent | None]:
        return self.match.agents

    @property
    def lines(self) -> list[dict[str, Any]]:
        """The log's lines so far (the header first, once every seat is taken)."""
        return self.match.lines

    # -- playing -------------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return bool(self.lines)

    @property
    def finished(self) -> bool:
        return bool(self.lines) and self.lines[-1].get("type") == "end"

    def to_move(self) -> int | None:
        """The seat a person must act for now; None when it is the server's turn (dice,
        a bot) or the game has not started or is over."""
        if not self.started or self.finished or self.error or self.state.is_terminal() \
                or self.state.is_chance_node():
            return None
        seat = int(self.state.current_player())
        return seat if self.agents[seat] is None else None

    def server_turn(self) -> bool:
        """Must the server take the next step (roll, let a bot act, or end the game)?"""
        return self.started and not self.finished and not self.error and self.to_move() is None

    def auto_step(self) -> Step:
        """Take the server's step: the end line, a roll, or a bot's action."""
        if self.state.is_terminal():
            return self._record(self.match.end(), None)
        if self.state.is_chance_node():
            return self._record(self.match.roll(), None)
        seat = int(self.state.current_player())
        agent = self.agents[seat]
        assert agent is not None
        try:
            return self._act(seat, agent.step(self.state))
        except TableError as exc:
            # The physics failed a bot's throw: nothing can re-run it; the table stops.
            self.error = f"the table stopped: {exc}"
            self.save()
            raise

    def person_step(self, seat: int, action_json: Any) -> Step:
        """Apply a person's action (as JSON); an illegal one, or one the engine refuses, is
        a `RulesError` line naming the field and changes nothing. A physics failure
        (`TableError`) and a failure of our own (`StepFailed`) leave the game as it was."""
        if self.to_move() != seat:
            raise RulesError(f"act: seat: seat {seat} is not to move")
        action = from_json(action_json)
        try:
            legal = is_legal(self.state, action)
        except (TypeError, ValueError, RulesError):
            legal = False
        except Exception as exc:  # our bug, in the legality check: nothing has changed
            raise StepFailed(f"{type(exc).__name__}: {exc}") from exc
        if not legal:
            why = "not a legal action"
            if action in self.state.legal_actions():  # e.g. Deep White Sea's ("throw", die)
                why = "listed by the game only as a placeholder: send it with its parameters"
            raise RulesError(f"act: action: {why} at step {len(self.lines) - 1}: "
                             f"{_short(action_json)}")
        try:
            return self._act(seat, action)
        except RulesError as exc:  # legal by its check, refused by the rules themselves
            raise RulesError(f"act: action: the rules refuse it: {exc}") from None

    def history(self) -> list[dict[str, Any]]:
        return list(self.lines)

    def snapshot(self) -> dict[str, Any]:
        """The state as plain JSON data sharing nothing with the game: a game's
        `serialize()` may hand out its own lists (Deep White Sea's stack), which the next
        step would change while the server still sends them."""
        return dict(json.loads(json.dumps(self.state.serialize())))

    @property
    def status(self) -> str:
        """'stopped', 'over', 'playing' or 'waiting' (for every seat to be taken)."""
        return ("stopped" if self.error else "over" if self.finished
                else "playing" if self.started else "waiting")

    def summary(self) -> dict[str, Any]:
        status = self.status
        return {"table": self.id, "game": self.spec.name, "seed": self.seed,
                "options": self.options, "dice": self.dice, "status": status,
                "seats": [s.public() for s in self.seats], "steps": max(0, len(self.lines) - 1),
                "error": self.error}

    # -- saving --------------------------------------------------------------------------------

    def save(self) -> None:
        """Write the autosave atomically (a no-op for a table kept in memory)."""
        self.write_autosave(self.autosave())

    def autosave(self) -> dict[str, Any] | None:
        """The autosave as data (None for a table kept in memory). Taken in the game's
        thread; `write_autosave` may write it from another while the next table plays."""
        if self.folder is None:
            return None
        return {
            "type": TABLE_TYPE, "format": TABLE_FORMAT, "id": self.id, "game": self.spec.name,
            "seed": self.seed, "options": self.options, "dice": self.dice,
            "seats": [{"kind": s.kind, "name": s.name, "token_sha256": s.token_sha256,
                       **({"played_by": s.played_by} if s.played_by else {})}
                      for s in self.seats],
            "log_lines": len(self.lines), "error": self.error,
            "rng": {"chance": self.chance_rng.bit_generator.state,
                    "seats": [r.bit_generator.state for r in self.seat_rngs]},
            "state": self.snapshot(),
        }

    def write_autosave(self, data: dict[str, Any] | None) -> None:
        """Make the log's lines durable, then write `data` over the autosave (temporary
        file, fsync, rename): the autosave never counts a log line a crash could lose."""
        if data is None or self.folder is None:
            return
        if self._log is not None:
            try:
                os.fsync(self._log.fileno())
            except OSError as exc:
                raise OutputError(self.folder / LOG_FILE, "game log", reason(exc)) from None
        write_json(self.folder / TABLE_FILE, data, "autosave")

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- helpers -------------------------------------------------------------------------------

    def _act(self, seat: int, action: Any) -> Step:
        """Take `seat`'s action. Whatever goes wrong before the step is recorded leaves the
        state as it was: the rules refusing it or the table failing (re-raised as they
        are), or an error of our own (`StepFailed`, naming it)."""
        backup = self.state.clone()
        try:
            trajectory = self._trajectory(seat, action)
            line = self.match.apply_action(action)
        except (TableError, RulesError):  # the table refused or failed: nothing happened
            self.state = backup
            raise
        except Exception as exc:
            self.state = backup
            raise StepFailed(f"{type(exc).__name__}: {exc}") from exc
        return self._record(self.match.record(line), trajectory)

    def _trajectory(self, seat: int, action: Any) -> dict[str, Any] | None:
        """A throw on the physics table, recorded at 60 Hz for the clients to play back
        (the window's own recorder: `simulator.render.deep_white_sea.session.record_throw`)."""
        if not (isinstance(action, tuple) and len(action) == 3 and action[0] == "throw"):
            return None
        from simulator.physics.world import PhysicsError, PlacementError
        from simulator.render.deep_white_sea.session import record_throw

        try:
            _throw, report, _s = record_throw(self.state, action[1], action[2], seat + 1)
        except (PhysicsError, PlacementError):  # the engine's own throw says the same next
            return None
        if report is None or not report.trajectory:
            return None
        return {"hz": 60, "frames": [{"t": round(f.t, 6),
                                      "poses": {n: [[round(v, 6) for v in p], [round(v, 7) for v in q]]
                                                for n, (p, q) in sorted(f.poses.items())}}
                                     for f in report.trajectory]}

    def _record(self, line: dict[str, Any], trajectory: dict[str, Any] | None) -> Step:
        """Write out a line the match has just recorded, and tell its step."""
        self._append(line)
        data = self.autosave()
        if not self.defer_saves:
            self.write_autosave(data)
        return Step(len(self.lines) - 1, line, self.snapshot(), self.to_move(), trajectory,
                    data if self.defer_saves else None)

    def _start_if_full(self) -> None:
        if self.started or any(s.kind == OPEN for s in self.seats):
            return
        self.match.seat([s.kind for s in self.seats])
        self._append(self.match.begin(played_by=[s.played_by or s.kind for s in self.seats]))

    def _fresh_match(self) -> Match:
        """The game at its start (seats not yet played: `_start_if_full` seats them)."""
        setup_rng, chance_rng, seat_rngs = streams(self.seed, len(self.seats))
        state = self.module.new_game(len(self.seats), self.options, setup_rng)
        state.take_events()
        return Match(self.spec, state, [HUMAN] * len(self.seats), self.seed, self.options,
                     dice=self.roller.name, roller=self.roller, rngs=(chance_rng, seat_rngs))

    def _open_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise RulesError(f"seat: table {self.id} has seats 0 to {len(self.seats) - 1} "
                             f"(got {seat})")
        if self.seats[seat].kind != OPEN:
            raise RulesError(f"seat: seat {seat} of table {self.id} is taken")

    def _append(self, line: dict[str, Any]) -> None:
        """Append one line to the log, flushed (the autosave that follows records it)."""
        if self.folder is None:
            return
        path = self.folder / LOG_FILE
        try:
            if self._log is None:
                if len(self.lines) > 1:  # loaded: the log holds exactly the earlier lines
                    write_text(path, "".join(json.dumps(x) + "\n" for x in self.lines[:-1]),
                               "game log")
                self._log = open(path, "a" if len(self.lines) > 1 else "w",  # noqa: SIM115
                                 encoding="utf-8")
            self._log.write(json.dumps(line) + "\n")
            self._log.flush()
        except OSError as exc:
            raise OutputError(path, "game log", reason(exc)) from None


def _resume_checked(table: GameTable, data: dict[str, Any], count: int) -> None:
    """Put the table where its log's first `count` lines leave the game, re-derived through
    the engine as `tabletop replay --verify` does (the bots re-run, the dice re-rolled or
    re-simulated), after checking that the autosave says the same: its game, seed, options,
    dice, seats, state and random streams. A waiting table (no log yet) must hold the
    game's start. Any difference is one `RulesError` line naming the field."""
    if not count:
        table.match = table._fresh_match()
        _same_state(table.state, data["state"], "not the game's start, as its seed and "
                    "options make it")
        return
    path = table.folder / LOG_FILE if table.folder is not None else Path(LOG_FILE)
    texts = _read_texts(path, count)
    result, replay = replay_lines(texts, str(path), make_roller)
    if replay is None:
        raise RulesError(f"log: {path.name} does not re-derive the game ({result.message})")
    for key, ours, logged in (("game", table.spec.name, replay.spec.name),
                              ("seed", table.seed, replay.seed),
                              ("options", table.options, replay.options),
                              ("dice", table.dice, replay.roller)):
        if json.dumps(ours) != json.dumps(logged):
            raise RulesError(f"{key}: the log's is {_short(logged)}, the autosave says "
                             f"{_short(ours)}")
    if len(replay.players) != len(table.seats):
        raise RulesError(f"seats: the log has {len(replay.players)} players, the autosave "
                         f"{len(table.seats)} seats")
    for number, (seat, player) in enumerate(zip(table.seats, replay.players, strict=True)):
        people = (HUMAN, getattr(seat, "played_by", "") or HUMAN)
        if (player != seat.kind if seat.kind != HUMAN else player not in people):
            raise RulesError(f"seats: the log's players are {_short(replay.players)}, the "
                             f"autosave's seat {number} is {_short(seat.kind)}")
    played_by = replay.match.lines[0].get("played_by", replay.players)
    for number, seat in enumerate(table.seats):
        if seat.kind == HUMAN and played_by[number] != (seat.played_by or HUMAN):
            raise RulesError(f"seats.{number}.played_by: the log's header says "
                             f"{_short(played_by[number])}, the autosave "
                             f"{_short(seat.played_by or HUMAN)}")
    _same_state(replay.state, data["state"], f"not the state its log {LOG_FILE} reaches "
                f"after {replay.steps} steps")
    streams = {"rng.chance": (replay.chance_rng, data["rng"]["chance"])}
    if len(data["rng"]["seats"]) != len(replay.seat_rngs):
        raise RulesError("rng.seats: one stream per seat expected")
    for i, (rng, saved) in enumerate(zip(replay.seat_rngs, data["rng"]["seats"], strict=True)):
        streams[f"rng.seats.{i}"] = (rng, saved)
    for key, (rng, saved) in streams.items():
        if json.loads(json.dumps(rng.bit_generator.state)) != saved:
            raise RulesError(f"{key}: not where its log {LOG_FILE} leaves this random stream")
    replay.match.roller = table.roller
    replay.match.lines[:] = [json.loads(text) for text in texts]
    table.match = replay.match


def _played_by(spec: registry.GameSpec, seat: Seat, saved: dict[str, Any], number: int) -> str:
    """A seat's `played_by` as its autosave says: what a client plays a person's seat
    with (HUMAN or a bot of the game); none for any other seat."""
    played_by = saved.get("played_by", "")
    if played_by == "":
        return ""
    if seat.kind != HUMAN:
        raise RulesError(f"seats.{number}.played_by: only a person's seat is played by a "
                         f"client (this one is {_short(seat.kind)})")
    if played_by != HUMAN and played_by not in spec.bots:
        raise RulesError(f"seats.{number}.played_by: not a player of {spec.name} (got "
                         f"{_short(played_by)})")
    return str(played_by)


def _same_state(state: Any, saved: Any, why: str) -> None:
    reached = json.loads(json.dumps(state.serialize()))
    if reached != saved:
        keys = sorted(set(reached) | set(saved if isinstance(saved, dict) else {}), key=str)
        differ = [k for k in keys if not isinstance(saved, dict) or reached.get(k) != saved.get(k)]
        raise RulesError(f"{', '.join(f'state.{shown_field(str(k))}' for k in differ[:5]) or 'state'}: "
                         f"{why}")


def _read_texts(path: Path, count: int) -> list[str]:
    """The first `count` lines of a table's log as written (a line past the autosave is cut)."""
    raw = read_text(path).split("\n")
    if len(raw) - 1 < count:
        raise RulesError(f"{path}: the log has {len(raw) - 1} lines, the autosave {count}")
    return raw[:count]


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


