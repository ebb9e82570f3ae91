"""The five games as registered OpenSpiel (pyspiel) Python games.

    import simulator.ai.openspiel          # registers tabletop_diced, tabletop_dday, ...
    game = pyspiel.load_game("tabletop_diceland_hex", {"board": "compact", "seed": 3})

One game per entry of `rules.registry` (short name `tabletop_<name with underscores>`),
so a game plugged into the registry with a vocabulary and an encoder in
`simulator.ai.spaces` appears here without more code. Parameters: `players`, `seed` (the
setup stream of `rules.core.runner.streams`, so an OpenSpiel game and `tabletop play
--seed` start from the same state: a random board, Deep White Sea's first player), and
every option the registry declares (`board`, `map`, `crews`, `table`, ...; an int option
whose default is "the game works it out" takes -1 for that; two crews or tribes are
written `white+blue`, since OpenSpiel's game strings separate parameters with commas),
plus `dice` for the d6 games: `ideal` (fair dice, explicit outcomes of 1/6), a
fairness-lab results folder of a d6 (the measured share of each face) or a JSON file of
face probabilities (`{"d6": [p1, ..., p6]}`), which become the chance probabilities;
or the game rolls its own dice, `seeded` (as `tabletop play --seed` rolls them) or
`physics` (thrown in the PyBullet tray, `tabletop play --dice physics`), and is
sampled-stochastic: a chance node offers the one face rolled, each roll drawn in turn from
the seed's chance stream (`rules.core.runner.streams`), so a history replays exactly and
`write_log` names that roller: `tabletop replay --verify` re-rolls (or re-simulates) every
die and says "verified", where OpenSpiel's own sampler's dice (`ideal`, measured) can only
be taken as given. OpenSpiel cannot ask a Python game for its random state, so its
serialization check runs on the explicit settings; a sampled game's history replays to
the same state.

What OpenSpiel sees (`GameType`, `GameInfo`, decided once per setting, as OpenSpiel does):
- sequential, perfect information (every die and hand is on the table), terminal
  rewards of 1 for a winner and 0 for the others, a draw shared: constant-sum 1, except
  D-Day Dice, whose solo game is won or lost alone (general-sum);
- chance: each die of a roll is its own chance node (6 outcomes; `spaces.DiceBuffer`).
  Deep White Sea has no chance node: a throw is the player's action and the table decides
  it, bit for bit the same for the same throw (DESIGN.md), so it is deterministic; its
  throws are the game's discrete aimed throws per die (`rules.deep_white_sea.spaces`);
- integer actions from `spaces.vocabulary`; `action_to_string` is the engine's own text;
- observation and information-state tensors from `spaces.encode` (plus the dice rolled so
  far of a roll in progress and the observing seat); the information-state string is the
  action history followed by the observation;
- `max_game_length`: each game's own bound (`max_game_length` in its package) from its
  limits (rounds, turns, plies), counting chance nodes; re-rolled ties (a roll-off, the
  start rolls, a Surge die's skull) are counted up to `rules.core.spaces.TIE_ROLLS` times,
  beyond which the chance is below 2e-27.

Serialization is plain data: `state.serialize()` is JSON of the game's name, its parameters
and the history of action ids, and `game.deserialize_state(text)` replays it on a fresh
state, checking each id is legal there (bad data from anywhere: one ValueError naming the
field). OpenSpiel's C++ side (`pyspiel.serialize_game_and_state`, `random_sim_test`)
frames a Python state's attributes as a pickle, by its own design (python_games.cc); ours
pickle as that same JSON only, but OpenSpiel unpickles the framing before we see it, so
load through `deserialize_state` what you did not write yourself. The engine's own JSON
is reachable through `TabletopState.engine`. `write_log` turns a game played here into a
log that `tabletop replay --verify` accepts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import outfiles
from rules import registry
from rules.core.match import Match, streams
from rules.core.protocols import RulesError
from rules.core.rollers import FACES
from simulator.ai import require
from simulator.ai.spaces import DiceBuffer, Vocabulary, encode, vocabulary
from simulator.plugins import load_plugins, make_roller

pyspiel = require("pyspiel")

PREFIX = "tabletop_"
PHYSICS = "physics"  # the `dice` value that throws the dice in the physics tray
SEEDED = "seeded"  # the `dice` value that rolls them from the seed, as `tabletop play` does
ROLLED = (SEEDED, PHYSICS)  # `dice` values whose faces the game rolls itself (sampled chance)
LIST_SEP = "+"  # 'white+blue': OpenSpiel's game strings keep commas between parameters
UNSET = -1  # an int option's "the game works it out" (OpenSpiel parameters cannot be None)
DIE = "d6"  # what the games with chance nodes roll (D-Day Dice's coloured dice are d6)


def short_name(game: str) -> str:
    """OpenSpiel's name of a registered game: tabletop_deep_white_sea."""
    return PREFIX + game.replace("-", "_")


def game_type(spec: registry.GameSpec, sampled: bool = False) -> Any:
    """The game's facts; `sampled`: its dice are thrown in the physics tray, so chance
    outcomes are sampled, not listed with probabilities."""
    params: dict[str, Any] = {"players": spec.min_players, "seed": 0}
    deterministic = spec.chance == "none"  # declared by the game (rules/<game>/spec.py)
    if not deterministic:
        params["dice"] = "ideal"
    for opt in spec.options:
        default = opt.default
        if isinstance(default, str):
            default = default.replace(",", LIST_SEP)
        params[opt.name] = UNSET if default is None else default
    return pyspiel.GameType(
        short_name=short_name(spec.name),
        long_name=spec.title,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.DETERMINISTIC if deterministic
                     else pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC if sampled
                     else pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.GENERAL_SUM if spec.utility == "general-sum"
                 else pyspiel.GameType.Utility.CONSTANT_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)


class TabletopGame(pyspiel.Game):  # type: ignore[misc,name-defined]
    """One of our games with one setting; `fresh_engine()` is its engine's initial state.
    Each registered game is a subclass naming its `SPEC` (see `register`)."""

    SPEC: registry.GameSpec

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        spec = self.spec = self.SPEC
        self.players = int(params.get("players", spec.min_players))
        self.seed = int(params.get("seed", 0))
        given = {o.name: params[o.name] for o in spec.options if o.name in params}
        for opt in spec.options:
            if opt.default is None and given.get(opt.name) == UNSET:
                given[opt.name] = None
            elif opt.kind is str and isinstance(given.get(opt.name), str):
                given[opt.name] = given[opt.name].replace(LIST_SEP, ",")
        spec.check_players(self.players)
        self.options = spec.resolve_options(given)
        load_plugins()  # e.g. Deep White Sea's physics table
        dice = str(params.get("dice", "ideal"))
        self.dice = dice if dice in ROLLED else "openspiel"  # the roller a log names
        self.roller = _Shared(make_roller(dice) if dice in ROLLED else None)
        self.probabilities = None if dice in ROLLED else dice_probabilities(dice)
        self._engine = self.fresh_engine()
        self.vocab: Vocabulary = vocabulary(spec.name, self._engine)
        self.shapes = {k: v.shape for k, v in encode(spec.name, self._engine).items()}
        general = spec.utility == "general-sum"
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.vocab),
            max_chance_outcomes=0 if spec.chance == "none" else FACES[DIE],
            num_players=self.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None if general else 1.0,
            max_game_length=spec.module().max_game_length(self._engine))
        super().__init__(game_type(spec, sampled=self.roller.value is not None), info, params)

    def fresh_engine(self) -> Any:
        setup, _, _ = streams(self.seed, self.players)
        return self.spec.module().new_game(self.players, dict(self.options), setup)

    def new_initial_state(self) -> TabletopState:
        return TabletopState(self, self._engine.clone())

    def deserialize_state(self, text: str) -> TabletopState:
        """A state from `TabletopState.serialize()` (JSON: this game's name and parameters,
        the history of ids): replayed on a fresh state, each id checked legal first. Bad
        data, from anywhere, is one ValueError naming the field, never code run."""
        ids = parse_serialized(self, text)
        state = self.new_initial_state()
        for i, a in enumerate(ids):
            try:
                state.core.check(a)
                state.apply_action(a)
            except (ValueError, RulesError) as exc:
                raise ValueError(f"{short_name(self.spec.name)}: serialized state: "
                                 f"history[{i}]: {exc}") from None
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TabletopObserver:
        if params:
            raise ValueError(f"{short_name(self.spec.name)}: observation parameters are not "
                             f"supported (got {params})")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TabletopObserver(self, recall)


class TabletopState(pyspiel.State):  # type: ignore[misc,name-defined]
    """An engine state seen through OpenSpiel: ids for actions, one die per chance node.

    Everything a state holds is one `_Core` (OpenSpiel copies a Python state's `__dict__`
    to clone it and pickles it to serialize it): cloned with the engine's own `clone()`,
    serialized as plain data (`serialize()`: JSON of the game, its parameters and the
    history of action ids; see `SERIALIZED`)."""

    def __init__(self, game: TabletopGame, engine: Any) -> None:
        super().__init__(game)
        self.name = game.spec.name
        self._core: _Core | _Pending = _Core(game, engine)

    @property
    def core(self) -> _Core:
        core = self._core
        if isinstance(core, _Pending):  # deserialized by OpenSpiel's C++: replay it now
            core = self._core = core.resolve(self.get_game(), list(self.history()))
        return core

    @property
    def engine(self) -> Any:
        """Our engine's state (`serialize()` gives its JSON)."""
        return self.core.engine

    @property
    def dice(self) -> DiceBuffer:
        return self.core.dice

    @property
    def vocab(self) -> Vocabulary:
        return self.core.game.vocab

    def current_player(self) -> int:
        engine = self.engine
        if engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if engine.is_chance_node():
            return int(pyspiel.PlayerId.CHANCE)
        return int(engine.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        engine = self.engine
        if player == pyspiel.PlayerId.CHANCE:
            kind, n = engine.chance_request()
            return f"die {len(self.dice.faces) + 1} of {n} ({kind}) shows {int(action) + 1}"
        return str(engine.action_to_string(self.vocab.engine_action(engine, int(action))))

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal())

    def returns(self) -> list[float]:
        return [float(r) for r in self.engine.returns()]

    def serialize(self) -> str:
        """The state as plain data: JSON of the game's name, its parameters and the history
        of action ids (`TabletopGame.deserialize_state` replays it, checking each id)."""
        return self.core.to_text()

    def __str__(self) -> str:
        text = str(self.engine.render())
        if self.dice.faces:
            text += f"\nrolled so far: {self.dice.faces}"
        return text


SERIALIZED = 1  # the `format` of a serialized state; any other is refused
MAX_SERIALIZED = 1 << 20  # characters: a serialized state longer than this is refused


class _Core:
    """What a `TabletopState` holds: the engine, the dice of the roll in progress, the
    faces of the tray's throw of that roll (physics dice) and the history of ids. Cloned
    with the engine's own `clone()` (deepcopy spent half of a random simulation copying a
    tribe; the game, its vocabulary and the physics roller are shared); pickled (OpenSpiel's
    C++ serialization pickles a Python state's attributes) as the plain JSON of `to_text`
    only, which unpickles to a `_Pending` the state replays."""

    __slots__ = ("chance_rng", "dice", "engine", "game", "history", "thrown")

    def __init__(self, game: TabletopGame, engine: Any) -> None:
        self.game = game
        self.engine = engine
        self.dice = DiceBuffer(game.probabilities)
        self.thrown: list[int] = []  # faces the game's roller rolled for the roll in progress
        self.history: list[int] = []
        # The chance stream of `rules.core.runner.streams` (the game's own roller only):
        # each roll is drawn from it in order, as `tabletop play --seed` and `replay
        # --verify` roll them.
        self.chance_rng = (streams(game.seed, game.players)[1]
                           if game.roller.value is not None else None)
        self._skip_empty_rolls()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        c = _Core.__new__(_Core)
        c.game, c.engine = self.game, self.engine.clone()
        c.dice = DiceBuffer.__new__(DiceBuffer)
        c.dice.probabilities, c.dice.faces = self.dice.probabilities, list(self.dice.faces)
        c.thrown, c.history = list(self.thrown), list(self.history)
        c.chance_rng = None if self.chance_rng is None else copy.deepcopy(self.chance_rng)
        return c

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_pending, (self.to_text(),))

    def to_text(self) -> str:
        return json.dumps({"format": SERIALIZED, "game": short_name(self.game.spec.name),
                           "parameters": self.game.get_parameters(),
                           "history": self.history}, sort_keys=True, separators=(",", ":"))

    def legal_ids(self) -> list[int]:
        return self.game.vocab.legal_ids(self.engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        engine = self.engine
        if not engine.is_chance_node():
            raise ValueError(f"{self.game.spec.name}: chance_outcomes at a player's decision")
        kind, n = engine.chance_request()
        if self.game.roller.value is None:
            return self.dice.outcomes(kind)
        self._roll(kind, n)
        return [(self.thrown[len(self.dice.faces)] - 1, 1.0)]

    def _roll(self, kind: str, n: int) -> None:
        """The game's roller rolls all n dice of the roll, once, from the chance stream."""
        if not self.thrown and not self.dice.faces:
            roller = self.game.roller.value
            self.thrown = [int(f) for f in roller.roll(kind, n, self.chance_rng)]

    def apply(self, action: int) -> None:
        engine = self.engine
        if engine.is_chance_node():
            kind, n = engine.chance_request()
            if self.chance_rng is not None:
                self._roll(kind, n)  # drawn even when OpenSpiel did not ask for outcomes
            self.dice.faces.append(action + 1)
            if len(self.dice.faces) == n:
                faces, self.dice.faces, self.thrown = tuple(self.dice.faces), [], []
                engine.apply_chance(faces)
        else:
            engine.apply_action(self.game.vocab.engine_action(engine, action))
        self.history.append(action)
        engine.take_events()
        self._skip_empty_rolls()

    def check(self, action: int) -> None:
        """Refuse, in one line, an id (from elsewhere) that is not legal here."""
        if self.engine.is_terminal():
            raise ValueError("the game is over before this action")
        legal = ([a for a, _p in self.chance_outcomes()] if self.engine.is_chance_node()
                 else self.legal_ids())
        if action not in legal:
            raise ValueError(f"not a legal action here (got {action})")

    def _skip_empty_rolls(self) -> None:
        """A roll of no dice (a defence of 0 dice alone, say) is no chance node."""
        engine = self.engine
        while engine.is_chance_node() and engine.chance_request()[1] == 0:
            if self.chance_rng is not None:  # as the runner rolls it (a roll of no dice)
                self.game.roller.value.roll(engine.chance_request()[0], 0, self.chance_rng)
            engine.apply_chance(())
            engine.take_events()


class _Pending:
    """A serialized state unpickled by OpenSpiel's C++ `DeserializeState`, before its state
    replays it (the state's game is not known inside the unpickler)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def resolve(self, game: TabletopGame, history: list[int]) -> _Core:
        ids = parse_serialized(game, self.text)
        if ids != history:
            raise ValueError(f"{short_name(game.spec.name)}: serialized state: history: not "
                             "the history OpenSpiel restored")
        return replay(game, ids)


def _pending(text: Any) -> _Pending:
    if not isinstance(text, str):
        raise ValueError("serialized state: must be the JSON text of a state")
    return _Pending(text)


def parse_serialized(game: TabletopGame, text: Any) -> list[int]:
    """The history of ids in `text` (a `serialize()` of a state of `game`), checked: one
    line naming the field on any fault (the ids' legality is checked by replaying)."""
    name = short_name(game.spec.name)
    where = f"{name}: serialized state"
    if not isinstance(text, str):
        raise ValueError(f"{where}: must be JSON text (got {type(text).__name__})")
    if len(text) > MAX_SERIALIZED:
        raise ValueError(f"{where}: longer than {MAX_SERIALIZED} characters")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: must be a JSON object")
    unknown = sorted(set(data) - {"format", "game", "parameters", "history"})
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0][:40]!r}")
    if data.get("format") != SERIALIZED:
        raise ValueError(f"{where}: format: must be {SERIALIZED} "
                         f"(got {str(data.get('format'))[:40]})")
    if data.get("game") != name:
        raise ValueError(f"{where}: game: a state of another game "
                         f"(got {str(data.get('game'))[:60]})")
    if data.get("parameters") != game.get_parameters():
        raise ValueError(f"{where}: parameters: not this game's setting "
                         f"(got {str(data.get('parameters'))[:200]})")
    ids = data.get("history")
    if not isinstance(ids, list) or len(ids) > game.max_game_length():
        raise ValueError(f"{where}: history: must be a list of at most "
                         f"{game.max_game_length()} action ids")
    for i, a in enumerate(ids):
        if not isinstance(a, int) or isinstance(a, bool) or a < 0:
            raise ValueError(f"{where}: history[{i}]: must be an action id "
                             f"(got {str(a)[:40]})")
    return ids


def replay(game: TabletopGame, ids: list[int]) -> _Core:
    """A fresh state of `game` with `ids` applied, each checked legal first."""
    core = _Core(game, game._engine.clone())
    for i, a in enumerate(ids):
        try:
            core.check(a)
            core.apply(a)
        except (ValueError, RulesError) as exc:
            raise ValueError(f"{short_name(game.spec.name)}: serialized state: "
                             f"history[{i}]: {exc}") from None
    return core


class _Shared:
    """A value that clones of a state share instead of copying (the physics roller)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class TabletopObserver:
    """OpenSpiel's Python observer: `tensor` (flat), `dict` (named views), strings."""

    def __init__(self, game: TabletopGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        pieces = [("observer", (game.players,)), *game.shapes.items(),
                  ("rolled_so_far", (FACES[DIE],))]
        self.tensor = np.zeros(sum(int(np.prod(s)) for _, s in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: TabletopState, player: int) -> None:
        self.tensor.fill(0.0)
        self.dict["observer"][player] = 1.0
        for name, values in encode(state.name, state.engine).items():
            self.dict[name][...] = values
        for face in state.dice.faces:
            self.dict["rolled_so_far"][face - 1] += 1.0

    def string_from(self, state: TabletopState, player: int) -> str:
        view = json.dumps(state.engine.serialize(), sort_keys=True, separators=(",", ":"))
        text = f"seat {player}: {view} rolled {state.dice.faces}"
        if self.perfect_recall:
            text = f"history {state.history()} {text}"
        return text


# ---------------------------------------------------------------------------------------
# Parameters and bounds


def dice_probabilities(source: str) -> dict[str, list[float]] | None:
    """None for ideal dice; else measured face probabilities: a fairness-lab results folder
    (`tabletop fairness run --out DIR` of a d6: each face's share of the throws that came to
    rest on the table) or a JSON file `{"d6": [p1, ..., p6]}`. One line naming the file and
    the field on any fault."""
    if source == "ideal":
        return None
    from dice_models.files import parse_json, read_text

    path = Path(source)
    if path.is_dir():
        return {"d6": _measured(path)}
    data = parse_json(read_text(path), path, "face probabilities")
    if not isinstance(data, dict) or not data:
        raise RulesError(f"{path}: must map a die kind (d6, d8) to face probabilities")
    out = {}
    for kind, probs in data.items():
        faces = FACES.get(str(kind))
        if faces is None:
            raise RulesError(f"{path}: {kind!r}: not a die kind; known: "
                             f"{', '.join(sorted(FACES))}")
        if (not isinstance(probs, list) or len(probs) != faces
                or not all(isinstance(p, int | float) and not isinstance(p, bool)
                           and 0.0 <= p <= 1.0 for p in probs)
                or abs(sum(probs) - 1.0) > 1e-9):
            raise RulesError(f"{path}: {kind}: must be {faces} probabilities from 0 to 1 "
                             f"summing to 1 (got {str(probs)[:80]})")
        out[str(kind)] = [float(p) for p in probs]
    return out


def _measured(folder: Path) -> list[float]:
    """Face shares of a fairness-lab run of a d6 (faces valued 1..6)."""
    from simulator.experiments.report import build_report

    counts = build_report(folder)["counts"]
    if sorted(counts) != [str(f) for f in range(1, FACES[DIE] + 1)]:
        raise RulesError(f"{folder}: dice: the experiment's die is not a d6 (faces "
                         f"{', '.join(sorted(counts))})")
    n = sum(counts.values())
    if n == 0:
        raise RulesError(f"{folder}: dice: no throw of the experiment came to rest on the "
                         "table")
    return [counts[str(f)] / n for f in range(1, FACES[DIE] + 1)]


# ---------------------------------------------------------------------------------------
# A game played here, as our log


def write_log(state: Any, path: str | Path) -> None:
    """Write the game that led to `state` (a `TabletopState`) as the runner's JSON-lines
    log, atomically: the history of ids is replayed on a fresh engine, each step taken
    through a `rules.core.match.Match` (the runner's loop and line builders). OpenSpiel's
    agents are none of our bots, so every seat is logged as `human` (replay --verify checks
    each move is legal). A game
    whose dice it rolls itself (`dice` `seeded` or `physics`) names that roller, and
    `replay --verify` re-derives every die: verified. Otherwise the dice are OpenSpiel's
    sampler's (roller `openspiel`), which nothing can re-derive: `replay --verify` finds
    the log consistent, every step checked, but not verified (a game without dice, Deep
    White Sea, verifies)."""
    game: TabletopGame = state.get_game()
    match = Match.new(game.spec.name, ["human"] * game.players, game.seed, game.options,
                      dice=game.dice, state=game.fresh_engine())
    match.begin()
    engine = match.state
    rolled: list[int] = []
    for action in state.history():
        if engine.is_chance_node():
            rolled.append(int(action) + 1)
        else:
            match.act(game.vocab.engine_action(engine, int(action)))
        # A roll is complete (an empty one at once, as the runner rolls it).
        while engine.is_chance_node() and len(rolled) == engine.chance_request()[1]:
            match.roll(rolled)
            rolled = []
    if engine.is_terminal():
        match.end()
    outfiles.write_text(path, "".join(text + "\n" for text in match.texts))


def register() -> list[str]:
    """Register every game of the registry that `spaces` knows (once per process); the
    OpenSpiel names registered."""
    known = set(pyspiel.registered_names())
    out = []
    for spec in registry.GAMES.values():
        name = short_name(spec.name)
        if name not in known:
            # A class, not a closure: pyspiel keeps the factory until the process ends and
            # drops it without the GIL, which a closure (freed then) turns into an abort.
            cls = type(f"Game_{name}", (TabletopGame,), {"SPEC": spec})
            pyspiel.register_game(game_type(spec), cls)
        out.append(name)
    return out


def load(game: str, params: dict[str, Any] | None = None) -> Any:
    """`pyspiel.load_game` of one of our games by its registry name ('diceland-hex')."""
    return pyspiel.load_game(short_name(registry.lookup(game).name), params or {})


register()
