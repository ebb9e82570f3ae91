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
face probabilities (`{"d6": [p1, ..., p6]}`), which become the chance probabilities, or
`physics`: the dice are thrown in the PyBullet tray (`tabletop play --dice physics`) and
the game is sampled-stochastic: a chance node offers the one face the tray shows (the
tray's throw seeded by `seed` and the move number, so a history replays exactly).
OpenSpiel cannot ask a Python game for its random state, so its serialization check runs
on the other settings; a physics game's history replays to the same state.

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

Serialization is OpenSpiel's own (the history of action ids, replayed); the engine's JSON
is reachable through `TabletopState.engine`. `write_log` turns a game played here into a
log that `tabletop replay --verify` accepts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import outfiles
from rules import registry
from rules.core.protocols import RulesError
from rules.core.rollers import FACES
from rules.core.runner import action_line, chance_line, end_line, header_line, streams
from simulator.ai import require
from simulator.ai.spaces import DiceBuffer, Vocabulary, encode, vocabulary
from simulator.plugins import load_plugins

pyspiel = require("pyspiel")

PREFIX = "tabletop_"
PHYSICS = "physics"  # the `dice` value that throws the dice in the physics tray
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
        self.roller = _Shared(physics_roller() if dice == PHYSICS else None)
        self.probabilities = None if dice == PHYSICS else dice_probabilities(dice)
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

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TabletopObserver:
        if params:
            raise ValueError(f"{short_name(self.spec.name)}: observation parameters are not "
                             f"supported (got {params})")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TabletopObserver(self, recall)


class TabletopState(pyspiel.State):  # type: ignore[misc,name-defined]
    """An engine state seen through OpenSpiel: ids for actions, one die per chance node."""

    def __init__(self, game: TabletopGame, engine: Any) -> None:
        super().__init__(game)
        self.name = game.spec.name
        self.vocab = game.vocab
        self._held = _Held(engine)
        self.dice = DiceBuffer(game.probabilities)
        self._roller, self._seed = game.roller, game.seed
        self._thrown: list[int] = []  # faces of the tray's throw of the roll in progress
        self._skip_empty_rolls()

    @property
    def engine(self) -> Any:
        """Our engine's state (`serialize()` gives its JSON)."""
        return self._held.engine

    def current_player(self) -> int:
        if self.engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.engine.is_chance_node():
            return int(pyspiel.PlayerId.CHANCE)
        return int(self.engine.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        return self.vocab.legal_ids(self.engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.engine.is_chance_node():
            raise ValueError(f"{self.name}: chance_outcomes at a player's decision")
        kind, n = self.engine.chance_request()
        if self._roller.value is None:
            return self.dice.outcomes(kind)
        if not self._thrown:  # the tray throws all n dice, seeded by the move number
            rng = np.random.default_rng([self._seed, len(self.history())])
            self._thrown = [int(f) for f in self._roller.value.roll(kind, n, rng)]
        return [(self._thrown[len(self.dice.faces)] - 1, 1.0)]

    def _apply_action(self, action: int) -> None:
        if self.engine.is_chance_node():
            kind, n = self.engine.chance_request()
            self.dice.faces.append(int(action) + 1)
            if len(self.dice.faces) == n:
                faces, self.dice.faces, self._thrown = tuple(self.dice.faces), [], []
                self.engine.apply_chance(faces)
        else:
            self.engine.apply_action(self.vocab.engine_action(self.engine, int(action)))
        self.engine.take_events()
        self._skip_empty_rolls()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind, n = self.engine.chance_request()
            return f"die {len(self.dice.faces) + 1} of {n} ({kind}) shows {int(action) + 1}"
        return str(self.engine.action_to_string(self.vocab.engine_action(self.engine,
                                                                         int(action))))

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal())

    def returns(self) -> list[float]:
        return [float(r) for r in self.engine.returns()]

    def __str__(self) -> str:
        text = str(self.engine.render())
        if self.dice.faces:
            text += f"\nrolled so far: {self.dice.faces}"
        return text

    def _skip_empty_rolls(self) -> None:
        """A roll of no dice (a defence of 0 dice alone, say) is no chance node."""
        while self.engine.is_chance_node() and self.engine.chance_request()[1] == 0:
            self.engine.apply_chance(())
            self.engine.take_events()


class _Held:
    """The engine inside a `TabletopState`. OpenSpiel clones a Python state with
    `copy.deepcopy`; this makes that the engine's own `clone()`, which shares the immutable
    game data (crews, tribes, maps) instead of copying it (deepcopy spent half of a random
    simulation copying a tribe)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.engine.clone())


class _Shared:
    """A value that clones of a state share instead of copying (the physics roller)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


def physics_roller() -> Any:
    """The tray roller of `tabletop play --dice physics` (PyBullet)."""
    from simulator.physics.roller import PhysicsRoller

    return PhysicsRoller()


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
    log, atomically: the history of ids is replayed on a fresh engine and each step is
    written by the runner's own line builders. OpenSpiel's agents are none of our bots, so
    every seat is logged as `human` (replay --verify checks each move is legal) and the
    dice as rolled by OpenSpiel (roller `openspiel`: the log's faces are taken as given)."""
    game: TabletopGame = state.get_game()
    spec = game.spec
    engine = game.fresh_engine()
    players = ["human"] * game.players
    lines = [header_line(spec.name, players, game.seed, game.options, "openspiel", {},
                         engine, resumed=False)]
    engine.take_events()
    rolled: list[int] = []
    step = 0
    for action in state.history():
        if engine.is_chance_node():
            rolled.append(int(action) + 1)
        else:
            step += 1
            player = engine.current_player()
            move = game.vocab.engine_action(engine, int(action))
            text = engine.action_to_string(move)
            engine.apply_action(move)
            lines.append(action_line(step, player, move, text, engine.take_events(), engine))
        # A roll is complete (an empty one at once, as the runner rolls it).
        while engine.is_chance_node() and len(rolled) == engine.chance_request()[1]:
            step += 1
            kind, n = engine.chance_request()
            engine.apply_chance(tuple(rolled))
            lines.append(chance_line(step, kind, n, rolled, engine.take_events(), engine))
            rolled = []
    if engine.is_terminal():
        lines.append(end_line(step, engine))
    outfiles.write_text(path, "".join(json.dumps(line) + "\n" for line in lines))


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
