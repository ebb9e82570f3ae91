"""The generic headless runner: plays any registered game with bots or humans, rolls its
chance nodes through a `DiceRoller`, tells the game as it goes, and writes a JSON-lines
log that `verify_log` can re-run.

Log format (one JSON object per line):

- header: `{"type": "header", "format": 2, "game", "players", "names", "seed", "options",
  "roller", "bots", "initial_digest"}` (`bots`: each bot kind's settings, so the bots can be
  re-run), plus `world` when the state describes its table
  (`world_info()`: the physics table's settings and versions). `roller` is one of
  `ROLLERS`. (Older versions wrote `resumed_from`, a saved state, for a game resumed from
  a save; such a log is checked from that state on but not verified, since nothing
  re-derives the state. A game resumed now writes the whole game's log from its header.)
- `{"type": "chance", "step", "kind", "n", "faces", "events", "digest"}`
- `{"type": "action", "step", "player", "action", "text", "events", "digest"}`, plus
  `results` when the state reports what its table did (`take_results()`: Deep White Sea
  throws with their outcome and physics settings), re-checked by `verify_log`
- `{"type": "end", "steps", "returns", "winners"}`

`digest` is a short hash of the state after the step. Every line is built by one function
(`header_line`, `chance_line`, `action_line`, `end_line`, in `rules.core.match`) and every
game is played through one loop, a `rules.core.match.Match`: by `play` here, the window's
sessions, the table server and the OpenSpiel log writer, and by `verify_log`, which re-plays
the game through a match (the bots' decisions included) and compares each line it would
write with the log's, byte for byte.

Seeds: one `SeedSequence(seed)` is spawned into setup, chance and one stream per seat
(`streams`), so the dice (seeded roller) depend only on the seed and the sequence of chance
requests, never on the bots' thinking.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dice_models.errors import DataError, is_finite_number, shown, shown_field
from dice_models.files import read_text
from rules.core.bots import Agent, make_agent
from rules.core.match import (
    LOG_FORMAT,
    LineSink,
    Match,
    action_line,
    chance_line,
    digest,
    digest_of,
    effective_bot_settings,
    end_line,
    from_json,
    header_line,
    new_state,
    streams,
    to_json,
)
from rules.core.protocols import Action, DiceRoller, GameModule, GameState, RulesError
from rules.core.rollers import FACES, SeededRoller
from rules.registry import GameSpec, did_you_mean, lookup

# The line builders, the streams and the digest live with the match (`rules.core.match`);
# they are named here too, where the log format is described.
__all__ = ["LOG_FORMAT", "GameRecord", "LineSink", "Match", "ReplayedGame", "VerifyResult",
           "action_line", "chance_line", "check_bot_settings", "digest", "digest_of",
           "effective_bot_settings", "end_line", "from_json", "header_line", "is_legal",
           "new_state", "play", "read_log", "replay_lines", "streams", "to_json", "verify_log"]


@dataclass
class GameRecord:
    game: str
    players: list[str]
    seed: int
    options: dict[str, Any]
    roller: str
    lines: list[dict[str, Any]] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # the log's lines as written


def play(game: str, players: Sequence[str], seed: int, options: dict[str, Any] | None = None,
         roller: DiceRoller | None = None, out: Callable[[str], None] | None = None,
         log: LineSink | None = None, agents: Sequence[Agent] | None = None,
         bot_settings: dict[str, dict[str, Any]] | None = None,
         max_steps: int = 200_000, resume: ReplayedGame | None = None,
         after_step: Callable[[GameState, list[str]], None] | None = None) -> GameRecord:
    """Play one whole game. `players` are kinds ('random', 'greedy', 'mcts', 'human');
    `agents` may replace the ones built from them. `out` receives the readable account,
    `log` the JSON lines (flushed per line, so an interrupted game keeps its log).
    `resume` is a game in progress re-derived from its log so far (`replay_lines`, e.g. a
    save's): the game plays on from where that log stops, with its random streams and bots
    as they stand there, and the log written is the whole game's from its first line (the
    same bytes as a game never interrupted), so it verifies like any other. The players,
    seed, options, roller and bot settings must then be the resumed game's (a `RulesError`
    line naming the field otherwise). `after_step(state, lines)` is called after every step
    with the log's lines so far as written (e.g. to save the game)."""
    spec = lookup(game)
    spec.check_players(len(players))
    for kind in players:
        if kind not in spec.bots and kind != "human":
            raise RulesError(f"unknown player {kind!r} for {game}"
                             + did_you_mean(kind, [*spec.bots, "human"]))
    roller = roller if roller is not None else SeededRoller()
    if resume is not None:
        resolved = spec.resolve_options(dict(options or {}))
        bots = effective_bot_settings(spec.module(), players, bot_settings)
        _check_resume(resume, spec.name, players, seed, resolved, roller.name, bots)
        match = resume.match
        match.roller, match.log = roller, log
        texts, match.lines, match.texts = match.texts, [], []
        for text in texts:  # the history, as it was written
            match.record(json.loads(text), text, count=False)
    else:
        match = Match.new(game, players, seed, options, roller=roller,
                          bot_settings=bot_settings, log=log)
    if agents is not None:
        match.agents = list(agents)
    else:  # a person at the terminal in each seat no bot plays
        match.agents = [agent if agent is not None else make_agent("human", match.module,
                                                                   match.seat_rngs[i])
                        for i, agent in enumerate(match.agents)]
    emit = out or (lambda _line: None)
    header = match.begin() if resume is None else match.lines[0]
    names = header["names"]
    source = (f"table: {header['world'].get('kind')}" if "world" in header
              else f"dice: {roller.name}")
    emit(f"{spec.title}: {', '.join(names)}; seed {seed}; {source}"
         + (f"; resumed after step {match.steps}" if resume is not None else ""))
    match.state.take_events()
    while not match.state.is_terminal():
        if match.steps >= max_steps:
            raise RulesError(f"{game}: no end after {max_steps} steps")
        line = match.step()
        if line["type"] == "action":
            emit(f"{names[line['player']]}: {line['text']}")
        for e in line["events"]:
            emit(f"  {e}")
        if after_step is not None:
            after_step(match.state, match.texts)
    if match.lines[-1].get("type") != "end":  # a resumed log may have ended already
        match.end()
    return _told_end(match, emit)


def _told_end(match: Match, emit: Callable[[str], None]) -> GameRecord:
    """The game's record, its winner told."""
    end = end_line(match.steps, match.state)
    record = GameRecord(match.spec.name, list(match.players), match.seed, match.options,
                        match.dice, match.lines, end["returns"], end["winners"], match.texts)
    names, step = match.lines[0]["names"], match.steps
    if not record.winners:
        emit(f"Winner: none after {step} steps")
    elif len(record.winners) == 1:
        emit(f"Winner: {names[record.winners[0]]} after {step} steps")
    else:
        emit(f"Draw between {', '.join(names[w] for w in record.winners)} after {step} steps")
    return record


def _check_resume(resume: ReplayedGame, game: str, players: Sequence[str], seed: int,
                  options: dict[str, Any], roller: str, bots: dict[str, Any]) -> None:
    """A resumed game goes on as its log began it: the same game, players and the rest."""
    asked = {"game": game, "players": list(players), "seed": seed, "options": options,
             "roller": roller, "bots": bots}
    had = {"game": resume.spec.name, "players": resume.players, "seed": resume.seed,
           "options": resume.options, "roller": resume.roller, "bots": resume.bots}
    for key, value in asked.items():
        if json.dumps(value) != json.dumps(had[key]):
            raise RulesError(f"{key}: a resumed game goes on as its log began it ("
                             f"{shown(had[key])}), not {shown(value)}")


# -- verifying: a log re-derived through the engine ----------------------------------------

# The dice rollers a log may name, and what becomes of each one's faces when it is verified.
ROLLERS: dict[str, str] = {
    "seeded": "re-rolled from the seed",
    "physics": "re-simulated in the physics tray from the seed",
    "openspiel": "chosen by OpenSpiel's chance sampler, taken as given",
    "none": "none: the game is played without dice",
}
# A bot's numeric settings are bounded, so a log cannot make verifying it endless.
SETTING_MAX = 1_000_000

RollerSource = Callable[[str], DiceRoller]
"""Makes the dice roller a log names other than 'seeded' (the physics tray): the program
that verifies provides it, since the rules have only the seeded roller. It may raise
`RulesError` when it cannot; the faces are then not re-derived, and the log not verified."""


@dataclass(frozen=True)
class VerifyResult:
    """`ok`: every line identical to what the game writes and every outcome in it re-derived
    (the game is proved). `given`: what was taken as given instead of re-derived, when
    nothing differs but some outcomes cannot be re-derived (dice chosen outside the game);
    such a log is `consistent` but not verified."""

    ok: bool
    steps: int
    message: str
    given: tuple[str, ...] = ()

    @property
    def consistent(self) -> bool:
        return self.ok or bool(self.given)


@dataclass
class ReplayedGame:
    """A log re-derived through the engine up to its last line: the game as it stands there
    (its match: state, random streams and bots), which a resumed game plays on from."""

    match: Match
    ended: bool = False

    @property
    def spec(self) -> GameSpec:
        return self.match.spec

    @property
    def players(self) -> list[str]:
        return self.match.players

    @property
    def seed(self) -> int:
        return self.match.seed

    @property
    def options(self) -> dict[str, Any]:
        return self.match.options

    @property
    def roller(self) -> str:
        return self.match.dice

    @property
    def bots(self) -> dict[str, Any]:
        return self.match.bots

    @property
    def state(self) -> GameState:
        return self.match.state

    @property
    def chance_rng(self) -> np.random.Generator:
        return self.match.chance_rng

    @property
    def seat_rngs(self) -> list[np.random.Generator]:
        return self.match.seat_rngs

    @property
    def agents(self) -> list[Agent | None]:  # None: a person's seat
        return self.match.agents

    @property
    def texts(self) -> list[str]:  # the log's lines as written
        return self.match.texts

    @property
    def steps(self) -> int:
        return self.match.steps

    def num_players(self) -> int:
        return len(self.players)


def verify_log(path: str | Path, rollers: RollerSource | None = None) -> VerifyResult:
    """Re-play a log through the engine and compare, byte for byte, every line the game
    would write with the log's: the header (names, options, world, bots' settings and the
    initial state, all rebuilt from the game), every step (the bots' decisions re-run from
    the seed, human moves checked for legality, dice re-rolled from the seed with the seeded
    roller or re-simulated with the physics roller that `rollers` makes, the table's
    outcomes re-simulated, events, text and state digests), and the end line (steps,
    returns, winners), with nothing after it. `ok` only if every outcome was re-derived
    (`VerifyResult`). A log that cannot be read, or names a roller, bot or bot setting this
    version does not know, raises `RulesError` (one line); a doctored one is a mismatch
    naming its first differing line."""
    lines = read_log(path)
    raw = read_text(path).split("\n")  # the same bytes read_log parsed, as written
    if raw[-1] != "":
        return VerifyResult(False, 0, f"line {len(raw)}: the log does not end with a new line")
    raw.pop()
    blank = next((i for i, r in enumerate(raw, start=1) if not r.strip()), None)
    if blank is not None:  # read_log skips blank lines; a game never writes one
        return VerifyResult(False, 0, f"line {blank}: a blank line")
    if len(raw) != len(lines):  # a line broken by a character other than \n (\r, \x1c...)
        return VerifyResult(False, 0, "the log's lines are not one JSON object per line")
    return _Replayer(str(path), lines, raw, rollers).run(whole=True)[0]


def replay_lines(texts: Sequence[str], source: str, rollers: RollerSource | None = None
                 ) -> tuple[VerifyResult, ReplayedGame | None]:
    """Re-derive the lines of a game's log so far (a save's or a table's history: from the
    header to any step, or to the end line) as `verify_log` does, and the game where they
    leave it (None unless the result is `ok`). `source` names them in errors."""
    lines = _parse_lines(enumerate(texts, start=1), source)
    return _Replayer(source, lines, list(texts), rollers).run(whole=False)


class _Replayer:
    """One log re-played through the engine (`verify_log`, `replay_lines`)."""

    def __init__(self, source: str, lines: list[dict[str, Any]], raw: list[str],
                 rollers: RollerSource | None) -> None:
        self.source, self.lines, self.raw, self.rollers = source, lines, raw, rollers
        self.rolls = self.rolled = self.bot_moves = self.person_moves = self.throws = 0

    def run(self, whole: bool) -> tuple[VerifyResult, ReplayedGame | None]:
        started = self._start(self.lines[0])
        if isinstance(started, str):
            return _mismatch(0, started)
        replay, resumed = ReplayedGame(started), "resumed_from" in self.lines[0]
        roller_name = started.dice
        dice, why_not = self._dice(roller_name)
        started.state.take_events()
        for number, line in enumerate(self.lines[1:], start=2):
            try:
                failed = self._step(replay, number, line, dice)
            except (KeyError, TypeError) as exc:
                raise RulesError(f"{self.source}: line {number}: missing or bad field {exc}") \
                    from None
            if failed is not None:
                return _mismatch(replay.steps, failed)
            if replay.ended:
                if number != len(self.lines):
                    return _mismatch(replay.steps, f"line {number + 1}: lines after the end")
                break
        if whole and not replay.ended:
            return _mismatch(replay.steps, f"log ends after {replay.steps} steps without an "
                             "end line")
        given = []
        if resumed:
            given.append("the state the game was resumed from (line 1: resumed_from, a save "
                         "of an older version) was taken as given")
        if self.rolls > self.rolled:
            given.append(f"the faces of {_count(self.rolls - self.rolled, 'roll')} were taken as given "
                         f"(roller {roller_name!r}: {why_not})")
        if given:
            return VerifyResult(False, replay.steps, f"{replay.steps} steps consistent, but "
                                f"not verified: {'; '.join(given)}", tuple(given)), None
        return VerifyResult(True, replay.steps, self._summary(replay, roller_name)), replay

    def _start(self, header: dict[str, Any]) -> Match | str:
        """The match the header starts, its header recorded; or why it starts none (a header
        this version cannot read at all raises `RulesError`)."""
        if header.get("type") != "header" or header.get("format") != LOG_FORMAT:
            raise RulesError(f"{self.source}: line 1: format: not a tabletop game log of "
                             f"format {LOG_FORMAT} (got {shown(header.get('format'))})")
        try:
            spec = lookup(str(header.get("game")))
        except RulesError as exc:  # no game: "unknown game 'None'"
            raise RulesError(f"{self.source}: line 1: game: {exc}") from None
        players = header.get("players")
        seed = header.get("seed")
        bots = header.get("bots")
        if (not isinstance(players, list) or not all(isinstance(p, str) for p in players)
                or not isinstance(seed, int) or isinstance(seed, bool)
                or not isinstance(bots, dict)):
            raise RulesError(f"{self.source}: line 1: bad header field 'players', 'seed' or "
                             "'bots'")
        roller_name = header.get("roller")
        if not isinstance(roller_name, str) or roller_name not in ROLLERS:
            raise RulesError(f"{self.source}: line 1: roller: not a dice roller this version "
                             f"knows ({', '.join(ROLLERS)}; got {shown(roller_name)})")
        for seat, kind in enumerate(players, start=1):
            if kind != "human" and kind not in spec.bots:
                raise RulesError(f"{self.source}: line 1: players: seat {seat}: not a player "
                                 f"of {spec.name} ({', '.join([*spec.bots, 'human'])}; got "
                                 f"{shown(kind)})")
        check_bot_settings(spec, spec.module(), bots, f"{self.source}: line 1")
        resumed = "resumed_from" in header
        try:
            spec.check_players(len(players))
            # The bots' settings as the runner would record them for these players (the
            # defaults filled in, kinds nobody plays dropped); their effect is checked by
            # re-running them.
            match = Match.new(spec.name, players, seed, header.get("options"), dice=roller_name,
                              bot_settings=bots, state=(spec.module().deserialize(
                                  header["resumed_from"]) if resumed else None))
        except (RulesError, TypeError, ValueError) as exc:
            return f"line 1: the header does not describe a game ({exc})"
        played_by = header.get("played_by", players)
        if not (isinstance(played_by, list) and len(played_by) == len(players)
                and all(b == p or (p == "human" and isinstance(b, str) and b in spec.bots)
                        for b, p in zip(played_by, players, strict=False))):
            return ("line 1: played_by: must say, seat by seat, what played it (a human "
                    "seat: human or a bot of the game; any other: its kind)")
        ours = match.header(resumed=resumed, played_by=played_by)
        if json.dumps(ours) != self.raw[0]:
            differ = [k for k in dict.fromkeys([*ours, *header]) if ours.get(k) != header.get(k)]
            what = ", ".join(repr(k) for k in differ) or "its layout"
            return f"line 1: the header differs from the game it starts ({what})"
        match.record(ours, self.raw[0], count=False)
        return match

    def _dice(self, roller_name: str) -> tuple[DiceRoller | None, str]:
        """The roller that re-derives the log's faces (None: they cannot be) and why not."""
        if roller_name == "seeded":
            return SeededRoller(), ""
        if roller_name != "physics":
            return None, ROLLERS[roller_name]
        if self.rollers is None:
            return None, ("the physics tray's dice, not re-simulated: no physics roller was "
                          "given to verify them (`tabletop replay --verify` re-simulates them)")
        try:
            return self.rollers(roller_name), ""
        except RulesError as exc:
            return None, f"the physics tray's dice, not re-simulated: {exc}"

    def _step(self, replay: ReplayedGame, number: int, line: dict[str, Any],
              dice: DiceRoller | None) -> str | None:
        """Re-derive one log line (after the header) through the match; what differs, or
        None."""
        match, kind, where = replay.match, line.get("type"), f"line {number}"
        if match.state.is_terminal():
            if kind != "end":
                return f"{where}: the game is over, the log goes on"
            if json.dumps(end_line(match.steps, match.state)) != self.raw[number - 1]:
                return (f"{where}: the end line differs from the game's end (steps, returns "
                        "or winners)")
            match.record(line, self.raw[number - 1], count=False)
            replay.ended = True
            return None
        if kind == "chance":
            ours = self._chance(match, where, line, dice)
        elif kind == "action":
            ours = self._action(match, where, line)
        elif kind == "end":
            return f"{where}: log ends, game goes on"
        else:
            raise RulesError(f"{self.source}: {where}: type: not a log line type (got "
                             f"{shown(kind)})")
        if isinstance(ours, str):
            return ours
        match.record(ours)
        if json.dumps(ours) != self.raw[number - 1]:
            differ = [k for k in dict.fromkeys([*ours, *line]) if ours.get(k) != line.get(k)]
            if "digest" in differ:
                return f"{where}: state after step {match.steps} differs from the log"
            what = ", ".join(repr(k) for k in differ) or "its layout"
            return f"{where}: step {match.steps} differs from the log ({what})"
        return None

    def _chance(self, match: Match, where: str, line: dict[str, Any],
                dice: DiceRoller | None) -> dict[str, Any] | str:
        """A logged roll checked (and re-rolled where `dice` can) and applied: its line as
        the game writes it, or what differs."""
        state = match.state
        if not state.is_chance_node():
            return (f"{where}: log rolls dice but the game waits for player "
                    f"{state.current_player() + 1}")
        request = state.chance_request()
        if [request[0], request[1]] != [line["kind"], line["n"]]:
            return f"{where}: game asks for {request}, log rolled {line['kind']} x{line['n']}"
        faces = line["faces"]
        sides = FACES.get(str(request[0]).split(":", 1)[0])
        if not isinstance(faces, list) or not all(
                isinstance(f, int) and not isinstance(f, bool) for f in faces):
            return f"{where}: faces: not a list of whole numbers"
        if len(faces) != request[1] or sides is None or not all(1 <= f <= sides for f in faces):
            return (f"{where}: faces: the game rolls {request[1]} {request[0]} (faces 1 to "
                    f"{sides}), the log has {shown(faces)}")
        if match.dice == "none":
            return f"{where}: the log's roller 'none' rolls no dice, the game asks for a roll"
        self.rolls += 1
        if dice is not None:
            try:
                again = tuple(int(f) for f in dice.roll(request[0], request[1],
                                                        match.chance_rng))
            except (RuntimeError, ValueError) as exc:  # e.g. the tray never came to rest
                return f"{where}: the {match.dice} roller could not roll again ({exc})"
            if again != tuple(faces):
                return (f"{where}: seed {match.seed} rolls {list(again)} ({match.dice}), "
                        f"log has {list(faces)}")
            self.rolled += 1
        return match.apply_chance(faces)

    def _action(self, match: Match, where: str, line: dict[str, Any]) -> dict[str, Any] | str:
        """A logged action checked (legal; a bot's chosen again) and applied: its line as
        the game writes it, or what differs."""
        state = match.state
        if state.is_chance_node():
            return f"{where}: log has an action but the game is at a roll"
        player = state.current_player()
        if player != line["player"]:
            return (f"{where}: log says player {line['player'] + 1} moves, game says "
                    f"{player + 1}")
        action = from_json(line["action"])
        if not is_legal(state, action):
            return f"{where}: illegal action {line['text']!r}"
        agent = match.agents[player]
        if agent is not None:  # a bot: it must choose the logged action again
            chosen = agent.step(state)
            if to_json(chosen) != line["action"]:
                return (f"{where}: player {player + 1} ({match.players[player]}, seed "
                        f"{match.seed}) plays {state.action_to_string(chosen)!r}, the log "
                        f"has {state.action_to_string(action)!r}")
            self.bot_moves += 1
        else:
            self.person_moves += 1
        ours = match.apply_action(action)
        if ours.get("results", []) != line.get("results", []):
            return f"{where}: the table's outcome of {line['text']!r} differs from the log"
        self.throws += len(ours.get("results", []))
        return ours

    def _summary(self, replay: ReplayedGame, roller_name: str) -> str:
        """What was re-derived: '107 steps identical (40 rolls re-rolled from the seed, ...)'."""
        parts = []
        if self.rolls:
            parts.append(f"{_count(self.rolls, 'roll')} {ROLLERS[roller_name]}")
        if self.throws:
            parts.append(f"{_count(self.throws, 'throw')} re-simulated on the table")
        if self.bot_moves:
            parts.append(f"{_count(self.bot_moves, 'bot decision')} re-run")
        if self.person_moves:
            parts.append(f"{_count(self.person_moves, 'move')} of people checked legal")
        return f"{replay.steps} steps identical" + (f" ({', '.join(parts)})" if parts else "")


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _mismatch(steps: int, message: str) -> tuple[VerifyResult, ReplayedGame | None]:
    return VerifyResult(False, steps, message), None


def check_bot_settings(spec: GameSpec, module: GameModule, bots: dict[str, Any],
                       where: str) -> None:
    """A log header's (or a save's) bot settings: each kind a bot of the game, each setting
    one its bot takes (a parameter with a default of its class, which the bot built with it
    keeps), of that default's type and at most `SETTING_MAX`. One `RulesError` line naming
    the field otherwise."""
    for kind, settings in bots.items():
        if kind not in spec.bots:
            raise RulesError(f"{where}: bots: not a bot of {spec.name} "
                             f"({', '.join(spec.bots)}; got {shown(kind)})")
        field_name = f"bots.{shown_field(kind)}"
        if not isinstance(settings, dict):
            raise RulesError(f"{where}: {field_name}: must be an object of settings (got "
                             f"{shown(settings)})")
        takes = bot_parameters(module, kind)
        for name, value in settings.items():
            at = f"{where}: {field_name}.{shown_field(name)}"
            if name not in takes:
                raise RulesError(f"{at}: not a setting of the {kind} bot (it takes "
                                 f"{', '.join(takes) or 'none'})")
            problem = _setting_problem(takes[name], value)
            if problem:
                raise RulesError(f"{at}: {problem} (got {shown(value)})")
        try:
            agent = make_agent(kind, module, np.random.default_rng(0), **settings)
        except (RulesError, TypeError, ValueError) as exc:
            raise RulesError(f"{where}: {field_name}: the bot refuses these settings "
                             f"({exc})") from None
        for name, value in settings.items():
            if getattr(agent, name, _MISSING) != value:
                raise RulesError(f"{where}: {field_name}.{shown_field(name)}: the {kind} bot "
                                 f"of {spec.name} does not use this setting (got {shown(value)})")


_MISSING = object()


def bot_parameters(module: GameModule, kind: str) -> dict[str, Any]:
    """The settings the bot `kind` of a game takes, with their defaults: the parameters
    with a default of its class (other than its generator and game module)."""
    agent = make_agent(kind, module, np.random.default_rng(0))
    out = {}
    for name, param in inspect.signature(type(agent).__init__).parameters.items():
        if (name not in ("self", "rng", "module") and param.default is not param.empty
                and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)):
            out[name] = param.default
    return out


def _setting_problem(default: Any, value: Any) -> str:
    """Why `value` cannot stand for a setting whose default is `default` ('' if it can)."""
    if isinstance(default, bool):
        return "" if isinstance(value, bool) else "must be true or false"
    if isinstance(default, int | float):
        if isinstance(default, int) and (not isinstance(value, int) or isinstance(value, bool)):
            return "must be a whole number"
        if not is_finite_number(value):
            return "must be a finite number"
        if not 0 <= value <= SETTING_MAX:
            return f"must be from 0 to {SETTING_MAX}"
        return ""
    if isinstance(default, str):
        return "" if isinstance(value, str) and len(value) <= 100 else "must be a short text"
    return "is not a setting a log may give"


def read_log(path: str | Path) -> list[dict[str, Any]]:
    try:
        text = read_text(path)  # bounded and UTF-8 checked, like every file we read
    except DataError as exc:
        raise RulesError(f"{exc} (reading a game log)") from None
    numbered = [(n, raw) for n, raw in enumerate(text.splitlines(), start=1) if raw.strip()]
    return _parse_lines(numbered, str(path))


def _parse_lines(numbered: Iterable[tuple[int, str]], source: str) -> list[dict[str, Any]]:
    """A log's lines (numbered from 1) parsed, the first a header of this format."""
    lines: list[dict[str, Any]] = []
    for number, raw in numbered:
        if not isinstance(raw, str):
            raise RulesError(f"{source}: line {number}: not a log line (a text expected)")
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RulesError(f"{source}: line {number}: not JSON ({exc.msg})") from None
        except (RecursionError, ValueError):  # absurd nesting; an int past 4300 digits
            raise RulesError(f"{source}: line {number}: not a log line (nested too deeply "
                             "or a number too long)") from None
        if not isinstance(obj, dict):
            raise RulesError(f"{source}: line {number}: expected a JSON object")
        lines.append(obj)
    if not lines or lines[0].get("type") != "header":
        raise RulesError(f"{source}: line 1: not a tabletop game log (no header)")
    if lines[0].get("format") != LOG_FORMAT:
        raise RulesError(f"{source}: line 1: format: this version reads game logs of format "
                         f"{LOG_FORMAT} (got {shown(lines[0].get('format'))})")
    return lines


def is_legal(state: GameState, action: Action) -> bool:
    """A game with parametric actions (a throw carrying its spec) says itself what is legal
    (`is_legal`); otherwise the action must be one of `legal_actions()`."""
    check = getattr(state, "is_legal", None)
    if check is not None:
        return bool(check(action))
    return action in state.legal_actions()
