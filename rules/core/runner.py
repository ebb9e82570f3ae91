"""The generic headless runner: plays any registered game with bots or humans, rolls its
chance nodes through a `DiceRoller`, tells the game as it goes, and writes a JSON-lines
log that `verify_log` can re-run.

Log format (one JSON object per line):

- header: `{"type": "header", "format": 2, "game", "players", "names", "seed", "options",
  "roller", "bots", "initial_digest"}` (`bots`: each bot kind's settings, so the bots can be
  re-run), plus `world` when the state describes its table
  (`world_info()`: the physics table's settings and versions), and `resumed_from` (the
  saved state) when the game was resumed from a save
- `{"type": "chance", "step", "kind", "n", "faces", "events", "digest"}`
- `{"type": "action", "step", "player", "action", "text", "events", "digest"}`, plus
  `results` when the state reports what its table did (`take_results()`: Deep White Sea
  throws with their outcome and physics settings), re-checked by `verify_log`
- `{"type": "end", "steps", "returns", "winners"}`

`digest` is a short hash of the state after the step. Every line is built by one function
here (`header_line`, `chance_line`, `action_line`, `end_line`), used by the runner, the
window's game session and `verify_log`, which re-plays the game (the bots' decisions
included) and compares each line it would write with the log's, byte for byte.

Seeds: one `SeedSequence(seed)` is spawned into setup, chance and one stream per seat, so
the dice (seeded roller) depend only on the seed and the sequence of chance requests,
never on the bots' thinking.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dice_models.errors import DataError
from dice_models.files import read_text
from rules.core.bots import Agent, make_agent
from rules.core.protocols import Action, DiceRoller, GameModule, GameState, RulesError
from rules.core.rollers import SeededRoller
from rules.registry import GameSpec, did_you_mean, lookup

LOG_FORMAT = 2  # 2: the header carries the bots' settings; verify re-runs them


class LineSink(Protocol):
    """Where the JSON lines go: an open text file, or anything that writes and flushes."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


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


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    steps: int
    message: str


def streams(seed: int, num_players: int) -> tuple[np.random.Generator, np.random.Generator,
                                                  list[np.random.Generator]]:
    """(setup rng, chance rng, one rng per seat) from one seed."""
    children = np.random.SeedSequence(seed).spawn(2 + num_players)
    gens = [np.random.default_rng(c) for c in children]
    return gens[0], gens[1], gens[2:]


def new_state(spec: GameSpec, num_players: int, options: dict[str, Any],
              setup_rng: np.random.Generator) -> GameState:
    spec.check_players(num_players)
    return spec.module().new_game(num_players, options, setup_rng)


def digest(state: GameState) -> str:
    return digest_of(state.serialize())


def digest_of(data: dict[str, Any]) -> str:
    """The digest of a serialized state (a network client checks the state it was sent
    against the line's digest with this)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play(game: str, players: Sequence[str], seed: int, options: dict[str, Any] | None = None,
         roller: DiceRoller | None = None, out: Callable[[str], None] | None = None,
         log: LineSink | None = None, agents: Sequence[Agent] | None = None,
         bot_settings: dict[str, dict[str, Any]] | None = None,
         max_steps: int = 200_000, resume: GameState | None = None,
         after_step: Callable[[GameState], None] | None = None) -> GameRecord:
    """Play one whole game. `players` are kinds ('random', 'greedy', 'mcts', 'human');
    `agents` may replace the ones built from them. `out` receives the readable account,
    `log` the JSON lines (flushed per line, so an interrupted game keeps its log).
    `resume` is a saved game in progress (a state) to play on from, instead of a new game
    (its log header carries it as `resumed_from`, so the log still verifies);
    `after_step(state)` is called after every step (e.g. to save the game)."""
    spec = lookup(game)
    spec.check_players(len(players))
    for kind in players:
        if kind not in spec.bots and kind != "human":
            raise RulesError(f"unknown player {kind!r} for {game}"
                             + did_you_mean(kind, [*spec.bots, "human"]))
    resolved = spec.resolve_options(dict(options or {}))
    roller = roller if roller is not None else SeededRoller()
    setup_rng, chance_rng, seat_rngs = streams(seed, len(players))
    module = spec.module()
    bots = effective_bot_settings(module, players, bot_settings)
    if agents is None:
        agents = [make_agent(kind, module, seat_rngs[i], **bots.get(kind, {}))
                  for i, kind in enumerate(players)]
    state = new_state(spec, len(players), resolved, setup_rng) if resume is None else resume
    record = GameRecord(game, list(players), seed, resolved, roller.name)
    emit = out or (lambda _line: None)

    def write(line: dict[str, Any]) -> None:
        record.lines.append(line)
        if log is not None:
            log.write(json.dumps(line) + "\n")
            log.flush()

    header = header_line(game, players, seed, resolved, roller.name, bots, state,
                         resumed=resume is not None)
    names = header["names"]
    write(header)
    source = (f"table: {header['world'].get('kind')}" if "world" in header
              else f"dice: {roller.name}")
    emit(f"{spec.title}: {', '.join(names)}; seed {seed}; {source}")
    state.take_events()
    step = 0
    while not state.is_terminal():
        if step >= max_steps:
            raise RulesError(f"{game}: no end after {max_steps} steps")
        step += 1
        if state.is_chance_node():
            line = chance_step(state, roller, chance_rng, step)
        else:
            player = state.current_player()
            line = action_step(state, player, agents[player].step(state), step)
            emit(f"{names[player]}: {line['text']}")
        for e in line["events"]:
            emit(f"  {e}")
        write(line)
        if after_step is not None:
            after_step(state)
    end = end_line(step, state)
    record.returns, record.winners = end["returns"], end["winners"]
    write(end)
    if not record.winners:
        emit(f"Winner: none after {step} steps")
    elif len(record.winners) == 1:
        emit(f"Winner: {names[record.winners[0]]} after {step} steps")
    else:
        emit(f"Draw between {', '.join(names[w] for w in record.winners)} after {step} steps")
    return record


def chance_step(state: GameState, roller: DiceRoller, chance_rng: np.random.Generator,
                step: int) -> dict[str, Any]:
    """Roll the chance node `state` is at and apply it; its log line. The one way a step
    of chance is taken, by the runner and by the table server."""
    kind, n = state.chance_request()
    faces = tuple(int(f) for f in roller.roll(kind, n, chance_rng))
    state.apply_chance(faces)
    return chance_line(step, kind, n, faces, state.take_events(), state)


def action_step(state: GameState, player: int, action: Action, step: int) -> dict[str, Any]:
    """Apply `player`'s `action` (already chosen, and legal); its log line. The one way an
    action step is taken, by the runner and by the table server."""
    text = state.action_to_string(action)
    state.apply_action(action)
    return action_line(step, player, action, text, state.take_events(), state)


def verify_log(path: str | Path) -> VerifyResult:
    """Re-play a log through the engine and compare, byte for byte, every line the game
    would write with the log's: the header (names, options, world, bots' settings and the
    initial state, all rebuilt from the game), every step (the bots' decisions re-run from
    the seed, human moves checked for legality, dice re-rolled from the seed with the seeded
    roller, the table's outcomes re-simulated, events, text and state digests), and the end
    line (steps, returns, winners), with nothing after it. A log that cannot be read raises
    `RulesError` (one line); a doctored one is a mismatch naming its first differing line."""
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
    header = lines[0]
    spec = lookup(str(header.get("game")))  # no game: "unknown game 'None'", one line
    players = header.get("players")
    seed = header.get("seed")
    bots = header.get("bots")
    if (not isinstance(players, list) or not all(isinstance(p, str) for p in players)
            or not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(bots, dict)):
        raise RulesError(f"{path}: line 1: bad header field 'players', 'seed' or 'bots'")
    module = spec.module()
    try:
        spec.check_players(len(players))
        options = spec.resolve_options(dict(header.get("options") or {}))
        setup_rng, chance_rng, seat_rngs = streams(seed, len(players))
        if "resumed_from" in header:
            state = module.deserialize(header["resumed_from"])
        else:
            state = new_state(spec, len(players), options, setup_rng)
        agents = [None if kind == "human" else make_agent(kind, module, seat_rngs[i], **bots.get(kind, {}))
                  for i, kind in enumerate(players)]
    except (RulesError, TypeError, ValueError) as exc:
        return VerifyResult(False, 0, f"line 1: the header does not describe a game ({exc})")
    # The bots' settings as the runner would record them for these players (the defaults
    # filled in, kinds nobody plays dropped); their effect is checked by re-running them.
    ours = header_line(spec.name, players, seed, options, str(header.get("roller")),
                       effective_bot_settings(module, players, bots), state,
                       resumed="resumed_from" in header)
    if json.dumps(ours) != raw[0]:
        differ = [k for k in dict.fromkeys([*ours, *header]) if ours.get(k) != header.get(k)]
        what = ", ".join(repr(k) for k in differ) or "its layout"
        return VerifyResult(False, 0, f"line 1: the header differs from the game it starts "
                            f"({what})")
    reroll = header.get("roller") == "seeded"
    roller = SeededRoller()
    state.take_events()
    steps = 0
    for number, line in enumerate(lines[1:], start=2):
        kind = line.get("type")
        where = f"line {number}"
        try:
            if state.is_terminal():
                if kind != "end":
                    return VerifyResult(False, steps, f"{where}: the game is over, the log "
                                        "goes on")
                if json.dumps(end_line(steps, state)) != raw[number - 1]:
                    return VerifyResult(False, steps, f"{where}: the end line differs from the "
                                        f"game's end (steps, returns or winners)")
                if number != len(lines):
                    return VerifyResult(False, steps, f"line {number + 1}: lines after the end")
                return VerifyResult(True, steps, f"{steps} steps identical")
            if kind == "chance":
                if not state.is_chance_node():
                    return VerifyResult(False, steps, f"{where}: log rolls dice but the game "
                                        f"waits for player {state.current_player() + 1}")
                request = state.chance_request()
                if [request[0], request[1]] != [line["kind"], line["n"]]:
                    return VerifyResult(False, steps, f"{where}: game asks for {request}, "
                                        f"log rolled {line['kind']} x{line['n']}")
                faces = line["faces"]
                if not isinstance(faces, list) or not all(
                        isinstance(f, int) and not isinstance(f, bool) for f in faces):
                    return VerifyResult(False, steps, f"{where}: faces: not a list of whole "
                                        "numbers")
                faces = tuple(faces)
                if reroll:
                    again = roller.roll(request[0], request[1], chance_rng)
                    if tuple(again) != faces:
                        return VerifyResult(False, steps, f"{where}: seed {seed} rolls "
                                            f"{list(again)}, log has {list(faces)}")
                state.apply_chance(faces)
                ours = chance_line(steps + 1, request[0], request[1], faces, state.take_events(),
                                   state)
            elif kind == "action":
                if state.is_chance_node():
                    return VerifyResult(False, steps, f"{where}: log has an action but the "
                                        "game is at a roll")
                player = state.current_player()
                if player != line["player"]:
                    return VerifyResult(False, steps, f"{where}: log says player "
                                        f"{line['player'] + 1} moves, game says {player + 1}")
                action = from_json(line["action"])
                if not is_legal(state, action):
                    return VerifyResult(False, steps, f"{where}: illegal action {line['text']!r}")
                agent = agents[player]
                if agent is not None:  # a bot: it must choose the logged action again
                    chosen = agent.step(state)
                    if to_json(chosen) != line["action"]:
                        return VerifyResult(False, steps, f"{where}: player {player + 1} "
                                            f"({players[player]}, seed {seed}) plays "
                                            f"{state.action_to_string(chosen)!r}, the log "
                                            f"has {state.action_to_string(action)!r}")
                text = state.action_to_string(action)
                state.apply_action(action)
                ours = action_line(steps + 1, player, action, text, state.take_events(), state)
                if ours.get("results", []) != line.get("results", []):
                    return VerifyResult(False, steps, f"{where}: the table's outcome of "
                                        f"{line['text']!r} differs from the log")
            elif kind == "end":
                return VerifyResult(False, steps, f"{where}: log ends, game goes on")
            else:
                raise RulesError(f"{path}: {where}: unknown line type {kind!r}")
        except (KeyError, TypeError) as exc:
            raise RulesError(f"{path}: {where}: missing or bad field {exc}") from None
        steps += 1
        if json.dumps(ours) != raw[number - 1]:
            differ = [k for k in dict.fromkeys([*ours, *line]) if ours.get(k) != line.get(k)]
            if "digest" in differ:
                return VerifyResult(False, steps, f"{where}: state after step {steps} "
                                    "differs from the log")
            what = ", ".join(repr(k) for k in differ) or "its layout"
            return VerifyResult(False, steps, f"{where}: step {steps} differs from the log "
                                f"({what})")
    return VerifyResult(False, steps, f"log ends after {steps} steps without an end line")


def effective_bot_settings(module: GameModule, players: Sequence[str],
                           bot_settings: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """Each bot kind's settings as its agent gets them (the game's defaults overridden by
    `bot_settings`), through JSON so a log's header carries exactly what re-runs it."""
    defaults = getattr(module, "BOT_SETTINGS", {})
    given = bot_settings or {}
    settings = {kind: {**defaults.get(kind, {}), **given.get(kind, {})}
                for kind in dict.fromkeys(players) if kind != "human"}
    return dict(json.loads(json.dumps(settings)))


def header_line(game: str, players: Sequence[str], seed: int, options: dict[str, Any],
                roller: str, bots: dict[str, Any], state: GameState, resumed: bool) -> dict[str, Any]:
    """The log's first line for a game starting (or resumed) at `state`."""
    header: dict[str, Any] = {"type": "header", "format": LOG_FORMAT, "game": game,
                              "players": list(players),
                              "names": [_player_label(state, i, k) for i, k in enumerate(players)],
                              "seed": seed, "options": options, "roller": roller, "bots": bots,
                              "initial_digest": digest(state)}
    world_info = getattr(state, "world_info", None)
    if world_info is not None:  # e.g. the physics table and its settings
        header["world"] = world_info()
    if resumed:
        header["resumed_from"] = state.serialize()
    return header


def chance_line(step: int, kind: str, n: int, faces: Sequence[int], events: list[str],
                state: GameState) -> dict[str, Any]:
    return {"type": "chance", "step": step, "kind": kind, "n": n, "faces": list(faces),
            "events": events, "digest": digest(state)}


def action_line(step: int, player: int, action: Action, text: str, events: list[str],
                state: GameState) -> dict[str, Any]:
    """An action's line; takes the state's table results (throws: outcome, physics
    settings) when it reports any."""
    line = {"type": "action", "step": step, "player": player, "action": to_json(action),
            "text": text, "events": events, "digest": digest(state)}
    results = _take_results(state)
    if results:
        line["results"] = results
    return line


def end_line(steps: int, state: GameState) -> dict[str, Any]:
    """The last line: returns and winners (a lost solo game, D-Day Dice, has none: every
    return is 0)."""
    returns = [float(r) for r in state.returns()]
    best = max(returns)
    winners = [i for i, r in enumerate(returns) if r == best] if best > 0 else []
    return {"type": "end", "steps": steps, "returns": returns, "winners": winners}


def read_log(path: str | Path) -> list[dict[str, Any]]:
    try:
        text = read_text(path)  # bounded and UTF-8 checked, like every file we read
    except DataError as exc:
        raise RulesError(f"{exc} (reading a game log)") from None
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RulesError(f"{path}: line {number}: not JSON ({exc.msg})") from None
        except (RecursionError, ValueError):  # absurd nesting; an int past 4300 digits
            raise RulesError(f"{path}: line {number}: not a log line (nested too deeply "
                             "or a number too long)") from None
        if not isinstance(obj, dict):
            raise RulesError(f"{path}: line {number}: expected a JSON object")
        lines.append(obj)
    if not lines or lines[0].get("type") != "header":
        raise RulesError(f"{path}: line 1: not a tabletop game log (no header)")
    if lines[0].get("format") != LOG_FORMAT:
        raise RulesError(f"{path}: line 1: log format {lines[0].get('format')!r} "
                         f"is not {LOG_FORMAT}")
    return lines


def is_legal(state: GameState, action: Action) -> bool:
    """A game with parametric actions (a throw carrying its spec) says itself what is legal
    (`is_legal`); otherwise the action must be one of `legal_actions()`."""
    check = getattr(state, "is_legal", None)
    if check is not None:
        return bool(check(action))
    return action in state.legal_actions()


def _take_results(state: GameState) -> list[Any]:
    take = getattr(state, "take_results", None)
    # Through JSON, so fresh results compare equal to the ones read back from a log.
    return [] if take is None else list(json.loads(json.dumps(list(take()))))


def to_json(action: Any) -> Any:
    if isinstance(action, tuple):
        return [to_json(a) for a in action]
    return action


def from_json(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(from_json(a) for a in data)
    return data


def _player_label(state: GameState, seat: int, kind: str) -> str:
    return f"{state.player_name(seat)} ({kind})"
