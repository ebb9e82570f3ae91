"""One match: a game being played, step by step, and its log. The one game loop: the runner
(`tabletop play`, a resumed save, `replay --verify`'s re-play), the window's sessions, the
table server's tables and the OpenSpiel log writer all play through a `Match`.

A match holds the state, the agent of each seat (None: a person, or a player outside, whose
moves are given), the dice roller that rolls its chance nodes, the seeded random streams,
and the lines of its log (kept, and written to `log` as they are made, flushed per line).
The lines are built by the functions below (`header_line`, `chance_line`, `action_line`,
`end_line`); `rules.core.runner` describes the format and `replay --verify` re-builds each
line through a match and compares it with the log's, byte for byte.

Seeds: one `SeedSequence(seed)` is spawned into setup, chance and one stream per seat
(`streams`), so the dice depend only on the seed and the sequence of chance requests,
never on the bots' thinking.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from rules.core.bots import Agent, make_agent
from rules.core.protocols import Action, DiceRoller, GameModule, GameState, RulesError
from rules.registry import GameSpec, lookup

if TYPE_CHECKING:
    from rules.core.runner import RollerSource, VerifyResult

LOG_FORMAT = 2  # 2: the header carries the bots' settings; verify re-runs them


class LineSink(Protocol):
    """Where the JSON lines go: an open text file, or anything that writes and flushes."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class Match:
    """One game in play (module docstring). `players` are the seats' kinds as the log names
    them ('human' or a bot of the game); `dice` the log's roller; `roller` rolls the chance
    nodes `roll()` is not given faces for; `bots` each bot kind's settings as the log
    records them. `steps` counts the steps taken; `lines` and `texts` are the log so far
    (as data, and as written)."""

    def __init__(self, spec: GameSpec, state: GameState, players: Sequence[str], seed: int = 0,
                 options: dict[str, Any] | None = None, *, dice: str = "none",
                 roller: DiceRoller | None = None, bots: dict[str, Any] | None = None,
                 rngs: tuple[np.random.Generator, list[np.random.Generator]] | None = None,
                 agents: Sequence[Agent | None] | None = None,
                 log: LineSink | None = None) -> None:
        self.spec, self.module = spec, spec.module()
        self.state = state
        self.players = list(players)
        self.seed = seed
        self.options = dict(options or {})
        self.dice, self.roller = dice, roller
        self.bots = dict(bots or {})
        if rngs is None:
            _setup, chance_rng, seat_rngs = streams(seed, len(self.players))
            rngs = (chance_rng, seat_rngs)
        self.chance_rng, self.seat_rngs = rngs
        self.agents: list[Agent | None] = (list(agents) if agents is not None
                                           else [None] * len(self.players))
        self.log = log
        self.steps = 0
        self.lines: list[dict[str, Any]] = []
        self.texts: list[str] = []

    @classmethod
    def new(cls, game: str, players: Sequence[str], seed: int,
            options: dict[str, Any] | None = None, *, dice: str | None = None,
            roller: DiceRoller | None = None, bot_settings: dict[str, dict[str, Any]] | None = None,
            log: LineSink | None = None, state: GameState | None = None) -> Match:
        """A game starting from `seed`: its options resolved (a `RulesError` line naming a bad
        one), its state set up from the seed's setup stream (or `state`, an adapter's own
        fresh engine), a bot in each seat whose kind is one (`seat`), nothing logged yet
        (`begin`). `dice` is the log's roller name (default: `roller`'s, else 'none')."""
        spec = lookup(game)
        spec.check_players(len(players))
        resolved = spec.resolve_options(dict(options or {}))
        setup_rng, chance_rng, seat_rngs = streams(seed, len(players))
        if state is None:
            state = new_state(spec, len(players), resolved, setup_rng)
        name = dice if dice is not None else roller.name if roller is not None else "none"
        match = cls(spec, state, players, seed, resolved, dice=name, roller=roller,
                    rngs=(chance_rng, seat_rngs), log=log)
        match.seat(players, bot_settings)
        return match

    def seat(self, players: Sequence[str], bot_settings: dict[str, dict[str, Any]] | None = None
             ) -> None:
        """Who plays each seat, before the game begins: a bot of the game (built with its
        settings, on its seat's stream) or 'human' (no agent: its moves are given)."""
        self.players = list(players)
        self.bots = effective_bot_settings(self.module, self.players, bot_settings)
        self.agents = [None if kind == "human" else
                       make_agent(kind, self.module, self.seat_rngs[i], **self.bots.get(kind, {}))
                       for i, kind in enumerate(self.players)]

    # -- the log ---------------------------------------------------------------------------

    def header(self, resumed: bool = False, played_by: Sequence[str] | None = None
               ) -> dict[str, Any]:
        return header_line(self.spec.name, self.players, self.seed, self.options, self.dice,
                           self.bots, self.state, resumed=resumed, played_by=played_by)

    def begin(self, played_by: Sequence[str] | None = None) -> dict[str, Any]:
        """Write the header (the game's start); the events of the setup are dropped."""
        line = self.record(self.header(played_by=played_by), count=False)
        self.state.take_events()
        return line

    def record(self, line: dict[str, Any], text: str | None = None,
               count: bool = True) -> dict[str, Any]:
        """Keep a line of the log and write it (`text`: as written before, for a game's
        history); a step's line counts a step."""
        text = json.dumps(line) if text is None else text
        self.lines.append(line)
        self.texts.append(text)
        if count:
            self.steps += 1
        if self.log is not None:
            self.log.write(text + "\n")
            self.log.flush()
        return line

    # -- steps -----------------------------------------------------------------------------

    def apply_chance(self, faces: Sequence[int] | None = None) -> dict[str, Any]:
        """Roll the chance node the state is at (or take `faces`, rolled elsewhere: the
        window's tray, OpenSpiel's sampler, a log) and apply it; its line, not yet recorded."""
        kind, n = self.state.chance_request()
        if faces is None:
            if self.roller is None:
                raise RulesError(f"{self.spec.name}: the game asks for a roll, and this match "
                                 "has no dice roller")
            faces = self.roller.roll(kind, n, self.chance_rng)
        faces = tuple(int(f) for f in faces)
        self.state.apply_chance(faces)
        return chance_line(self.steps + 1, kind, n, faces, self.state.take_events(), self.state)

    def apply_action(self, action: Action) -> dict[str, Any]:
        """Apply the player to move's `action` (already chosen, and legal); its line, not yet
        recorded."""
        player = self.state.current_player()
        text = self.state.action_to_string(action)
        self.state.apply_action(action)
        return action_line(self.steps + 1, player, action, text, self.state.take_events(),
                           self.state)

    def roll(self, faces: Sequence[int] | None = None) -> dict[str, Any]:
        return self.record(self.apply_chance(faces))

    def act(self, action: Action) -> dict[str, Any]:
        return self.record(self.apply_action(action))

    def step(self) -> dict[str, Any]:
        """One step: the dice rolled, or the agent of the seat to move asked for its action."""
        if self.state.is_chance_node():
            return self.roll()
        agent = self.agents[self.state.current_player()]
        if agent is None:
            raise RulesError(f"{self.spec.name}: seat {self.state.current_player() + 1} has "
                             "no agent; its move must be given")
        return self.act(agent.step(self.state))

    def end(self) -> dict[str, Any]:
        """The end line (returns and winners), recorded."""
        return self.record(end_line(self.steps, self.state), count=False)

    @staticmethod
    def verify(path: str | Path, rollers: RollerSource | None = None) -> VerifyResult:
        """`replay --verify`: the log re-played through a match (`rules.core.runner`)."""
        from rules.core.runner import verify_log  # the runner builds on this module

        return verify_log(path, rollers)


# -- setting up ----------------------------------------------------------------------------


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


def effective_bot_settings(module: GameModule, players: Sequence[str],
                           bot_settings: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """Each bot kind's settings as its agent gets them (the game's defaults overridden by
    `bot_settings`), through JSON so a log's header carries exactly what re-runs it."""
    defaults = getattr(module, "BOT_SETTINGS", {})
    given = bot_settings or {}
    settings = {kind: {**defaults.get(kind, {}), **given.get(kind, {})}
                for kind in dict.fromkeys(players) if kind != "human"}
    return dict(json.loads(json.dumps(settings)))


# -- the log's lines -----------------------------------------------------------------------


def digest(state: GameState) -> str:
    return digest_of(state.serialize())


def digest_of(data: dict[str, Any]) -> str:
    """The digest of a serialized state (a network client checks the state it was sent
    against the line's digest with this)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def header_line(game: str, players: Sequence[str], seed: int, options: dict[str, Any],
                roller: str, bots: dict[str, Any], state: GameState, resumed: bool,
                played_by: Sequence[str] | None = None) -> dict[str, Any]:
    """The log's first line for a game starting (or resumed) at `state`. `played_by`: what
    played each seat, where a `human` seat (its moves checked for legality only) was played
    by a bot on a network client (the table server's); written only where it differs from
    `players`."""
    played = list(players) if played_by is None else list(played_by)
    header: dict[str, Any] = {"type": "header", "format": LOG_FORMAT, "game": game,
                              "players": list(players),
                              **({"played_by": played} if played != list(players) else {}),
                              "names": [_player_label(state, i, k if k == p else f"{p}, client")
                                        for i, (k, p) in enumerate(zip(players, played,
                                                                       strict=True))],
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
