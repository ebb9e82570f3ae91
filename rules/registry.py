"""The registry of games: the list of game packages (`GAME_PACKAGES`), each declaring itself
once in its `spec.py` (`GAME`, a `rules.core.spec.GameSpec`: players, options, bots,
chance, utility, golden setting, quick options). Adding a game is writing its package and
one line here.

How to plug a game in
=====================

1. Write a package `rules/<game>/` whose `__init__.py` exposes these module-level
   functions (pure: no PyBullet, no Panda3D, no `simulator` imports):

   - `new_game(num_players: int, options: dict, rng: numpy.random.Generator) -> State`
     The initial state. `options` holds every option the game declares (below), filled
     with defaults. `rng` may only be used for setup that is not a die roll (e.g. a random
     board); every die roll is a chance node of the state instead.
   - `deserialize(data: dict) -> State` from `State.serialize()`; a bad or corrupt dict
     raises `RulesError` naming the field and value.
   - `heuristic(state) -> list[float]`, one value in [0, 1] per player (how well each
     stands); the generic `mcts` judges unfinished playouts with it.
   - `greedy_action(state, rng) -> Action`: the game's one-step greedy choice; it is the
     `greedy` player, and `mcts` may use it as a prior (`prior_weight`) or in playouts
     (`rollout_greedy`).
   - optionally `candidate_actions(state) -> list[Action]`: a non-empty subset of the
     legal actions that `mcts` searches and plays out instead of all of them, for games
     where many legal moves are dominated or redundant (Diced's smaller defences).
   - optionally `make_bot(kind, rng, **settings) -> Agent` for players the game names in
     its `GameSpec.bots` beyond the generic ones (e.g. D-Day Dice's `expectimax`),
     `OWN_PLAYERS` (generic kinds the game replaces with its own, e.g. Deep White Sea's
     `random`, whose throws need specs), and `BOT_SETTINGS = {kind: {setting: value}}`
     for the generic players' defaults.

2. The state class follows `rules.core.protocols.GameState` (the runner, bots, session
   and server are typed with it) and derives from `rules.core.protocols.StateBase`, which
   answers `is_chance_node()` and `is_terminal()` from `current_player()`:

   - `current_player() -> int`: a seat 0..n-1, `CHANCE_PLAYER` at a chance node,
     `TERMINAL_PLAYER` when the game is over.
   - `chance_request() -> (kind, n)` (e.g. ('d6', 3)),
     `apply_chance(faces: tuple[int, ...])`, and optionally
     `chance_outcomes() -> list[(faces, probability)]` where enumeration is small.
   - `legal_actions() -> list[Action]`, `apply_action(action)`. Actions are tuples of
     str/int (nested tuples allowed), so they go into JSON logs as lists and back.
   - `action_to_string(action) -> str`: how a player would say it.
   - `returns() -> list[float]` (winner 1.0, others 0.0, a draw shares).
   - `clone()`, `serialize() -> dict` (plain JSON), `render() -> str` (a text view,
     e.g. the ASCII board a human player is shown).
   - `take_events() -> list[str]`: what happened since the last call, in plain words
     (the runner prints these as the readable account and writes them to the log).
   - `num_players() -> int`, `player_name(seat) -> str` ('Red').
   - optionally `is_legal(action)` for parametric
     actions that `legal_actions()` cannot list (a throw with its spec), and for games on
     the physics table `take_results()` and `world_info()` (logged and re-checked).

3. Declare it in `rules/<game>/spec.py` as `GAME = GameSpec(...)`: name, title, player
   counts, package, options (each becomes a `tabletop play` flag, e.g. `--board`), bot
   names, `chance` ("dice" or "none"), `utility` ("constant-sum" or "general-sum"), its
   golden playthrough (`Golden`) and `quick` options (a short game for the fuzz suite).
   The engine reads its own options from it (`GAME.resolve_options`, `GAME.default`).
   The package also exposes, for the game-AI adapters, `max_game_length(state)` (a bound
   of the moves of a game of that setting), `vocabulary(state)` (every action numbered,
   `rules.core.spaces.Vocabulary`) and `encode(state)` (the state as named float arrays).
   Then add the package to `GAME_PACKAGES` below. The generic bots `random`, `greedy` and
   `mcts` (`rules.core.bots`) and the terminal `human` player work on any game that
   follows this interface; the runner (`rules.core.runner`), `tabletop play`,
   `tabletop replay --verify`, `tabletop games`, the server, the fuzz suite and the
   OpenSpiel/PettingZoo adapters need nothing more.
"""

from __future__ import annotations

import importlib
from typing import Any

from rules.core.protocols import RulesError
from rules.core.spec import (
    CHANCE_KINDS,
    GENERIC_BOTS,
    UTILITIES,
    GameSpec,
    Golden,
    OptionSpec,
    did_you_mean,
)

__all__ = [
    "CHANCE_KINDS",
    "GAMES",
    "GAME_PACKAGES",
    "GENERIC_BOTS",
    "UTILITIES",
    "GameSpec",
    "Golden",
    "OptionSpec",
    "did_you_mean",
    "game_options",
    "lookup",
    "names",
    "option_default",
    "register",
    "register_package",
]

# The games: one package each, declaring itself in its `spec.py`.
GAME_PACKAGES = (
    "rules.diced",
    "rules.dday",
    "rules.dicewar",
    "rules.diceland_hex",
    "rules.deep_white_sea",
)

GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    if spec.name in GAMES:
        raise ValueError(f"game {spec.name!r} is registered twice")
    GAMES[spec.name] = spec
    return spec


def register_package(package: str) -> GameSpec:
    """Register the game declared by `<package>.spec` (its `GAME`)."""
    spec = importlib.import_module(f"{package}.spec").GAME
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{package}.spec.GAME is not a GameSpec")
    if spec.package != package:
        raise ValueError(f"{package}.spec.GAME names package {spec.package!r}")
    return register(spec)


def lookup(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r}" + did_you_mean(name, list(GAMES))) from None


def names() -> list[str]:
    return list(GAMES)


def game_options(name: str, given: dict[str, Any] | None) -> dict[str, Any]:
    """The options of game `name`, checked and filled with defaults (see
    `GameSpec.resolve_options`)."""
    return lookup(name).resolve_options(given)


def option_default(game: str, name: str) -> Any:
    """The default of one option of a game, as declared in its `OptionSpec`."""
    return lookup(game).default(name)


for _package in GAME_PACKAGES:
    register_package(_package)
