"""The registry of games: which games exist, how many players they take, their options
and bots, and where their engine lives.

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

3. Register it with one `GameSpec` in `GAMES` below: name, title, player counts, package,
   options (each becomes a `tabletop play` flag, e.g. `--board`) and bot names. The
   generic bots `random`, `greedy` and `mcts` (`rules.core.bots`) and the terminal
   `human` player work on any game that follows this interface; the runner
   (`rules.core.runner`), `tabletop play`, `tabletop replay --verify` and `tabletop games`
   need nothing more.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rules.core.protocols import RulesError

GENERIC_BOTS = ("random", "greedy", "mcts")


@dataclass(frozen=True)
class OptionSpec:
    """A game option; on the command line it is `--<name with dashes>`.

    `kind` is int, str or bool. An int option's value lies in `minimum`..`maximum` (either
    may be None: unbounded) and is a multiple of `step` counted from `minimum`; a default of
    None means "the game works it out" (e.g. Diced's pool), and only such an option takes
    None as a value. Every value a game gets passes `check`, so a 0 where 0 means nothing is
    refused instead of quietly becoming the default.
    """

    name: str
    kind: type  # int, str or bool
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    step: int = 1

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, game: str, value: Any) -> Any:
        """`value` if it is a good value of this option; else one `RulesError` line naming
        the game, the option and the value."""
        where = f"{game}: option {self.flag}"
        if value is None and self.default is None:
            return None
        # bool is a subclass of int: `--max-plies True` is no number of turns.
        if not isinstance(value, self.kind) or (self.kind is not bool
                                                and isinstance(value, bool)):
            raise RulesError(f"{where}: must be {_KIND_WORDS[self.kind]} (got {_short(value)})")
        if self.choices is not None and value not in self.choices:
            raise RulesError(f"{where}: {_short(value)} is not one of "
                             f"{', '.join(map(str, self.choices))}")
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = self.minimum, self.maximum
            if (low is not None and value < low) or (high is not None and value > high):
                span = (f"from {low} to {high}" if low is not None and high is not None
                        else f"at least {low}" if low is not None else f"at most {high}")
                raise RulesError(f"{where}: must be {span} (got {value})")
            base = low or 0
            if self.step != 1 and (value - base) % self.step:
                rule = ("even" if self.step == 2 and base % 2 == 0
                        else f"{base} plus a multiple of {self.step}")
                raise RulesError(f"{where}: must be {rule} (got {value})")
        return value


_KIND_WORDS = {int: "a whole number", str: "a text", bool: "true or false"}


def _short(value: Any, limit: int = 60) -> str:
    """`repr(value)`, cut to `limit` characters: an error line names the value, whatever
    its size."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    min_players: int
    max_players: int
    package: str
    options: tuple[OptionSpec, ...] = ()
    bots: tuple[str, ...] = GENERIC_BOTS
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def module(self) -> ModuleType:
        """The game's package: the plug-in surface `rules.core.protocols.GameModule` (checked
        for every registered game by tests/test_registry_conformance.py). Typed as a module
        so a game's own code may reach its engine's own names through it."""
        return importlib.import_module(self.package)

    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            span = (f"{self.min_players}" if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            raise RulesError(f"{self.name} takes {span} players, got {n}")

    def resolve_options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Every option this game takes: the given ones checked (`OptionSpec.check`), the
        rest at their defaults. An option the game does not take is refused. The runner
        and every engine's `new_game` call this, so options are validated in one place."""
        known = {o.name: o for o in self.options}
        out = {o.name: o.default for o in self.options}
        for key, value in (given or {}).items():
            if key not in known:
                raise RulesError(
                    f"{self.name} does not take option --{str(key).replace('_', '-')}"
                    + did_you_mean(str(key).replace("_", "-"),
                                   [k.replace("_", "-") for k in known], prefix="--"))
            out[key] = known[key].check(self.name, value)
        return out


GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    if spec.name in GAMES:
        raise ValueError(f"game {spec.name!r} is registered twice")
    GAMES[spec.name] = spec
    return spec


def lookup(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r}" + did_you_mean(name, list(GAMES))) from None


def names() -> list[str]:
    return list(GAMES)


def game_options(name: str, given: dict[str, Any] | None) -> dict[str, Any]:
    """The options of game `name`, checked and filled with defaults: what every engine's
    `new_game` works from (see `GameSpec.resolve_options`)."""
    return lookup(name).resolve_options(given)


def option_default(game: str, name: str) -> Any:
    """The default of one option of a game, as declared in its `OptionSpec`: an engine's
    house limits default to it rather than to a number of their own."""
    return next(o.default for o in lookup(game).options if o.name == name)


def did_you_mean(name: str, known: list[str], prefix: str = "") -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    if close:
        return f"; did you mean {prefix}{close[0]}?"
    if known:
        return f"; known: {', '.join(prefix + k for k in sorted(known))}"
    return ""


# ---------------------------------------------------------------------------------------
# The games. One entry per implemented game.


register(GameSpec(
    name="diced",
    title="Diced",
    min_players=3,
    max_players=8,
    package="rules.diced",
    options=(
        OptionSpec("pool", int, None,
                   "dice in the pool at the start (default: 3 per player)"),
        OptionSpec("max_rounds", int, 200,
                   "house limit: after this many rounds the most dice wins", minimum=1),
    ),
))


register(GameSpec(
    name="dday",
    title="D-Day Dice",
    min_players=1,
    max_players=4,
    package="rules.dday",
    options=(
        OptionSpec("map", str, "greyrock-cove",
                   "battle map: a shipped map name or a map YAML file"),
        OptionSpec("dmc15", bool, False,
                   "Additional Rule: Dead Man's Chest gives 15 EP instead of 20"),
        OptionSpec("binoculars_on_fire", bool, False,
                   "Additional Rule: Binoculars may change a Machine-Gun or Minefield roll"),
    ),
    bots=("random", "greedy", "expectimax"),
))

register(GameSpec(
    name="dicewar",
    title="DiceWar: Light of Dragons",
    min_players=2,
    max_players=2,
    package="rules.dicewar",
    options=(
        OptionSpec("tribes", str, "emberfen",
                   "tribe for both players, or two separated by a comma (names or YAML files)"),
        OptionSpec("ruins", bool, False, "play the Location 'The Ruins'"),
        OptionSpec("max_plies", int, 400,
                   "house limit: after this many turns more victory points wins", minimum=1),
    ),
))

register(GameSpec(
    name="diceland-hex",
    title="Diceland (hex tiles)",
    min_players=2,
    max_players=2,
    package="rules.diceland_hex",
    options=(
        OptionSpec("board", str, "compact",
                   "preset board name, a board YAML file, or 'random'"),
        # The bounds of every board (rules.diceland_hex.board.MIN_TILES, MAX_TILES), kept
        # here as numbers so that listing the games imports no engine.
        OptionSpec("tiles", int, 20, "tile count of a random board (even, 8 to 36)",
                   minimum=8, maximum=36, step=2),
        OptionSpec("terrain", bool, False, "play the terrain variant"),
        OptionSpec("max_rounds", int, 200,
                   "house limit: after this many rounds the game ends as if no one attacked",
                   minimum=1),
    ),
))

register(GameSpec(
    name="deep-white-sea",
    title="Diceland: Deep White Sea",
    min_players=2,
    max_players=2,
    package="rules.deep_white_sea",
    options=(
        OptionSpec("crews", str, "white,blue",
                   "crew for both players, or two separated by a comma (names or YAML files)"),
        OptionSpec("table", str, "physics", "the table that adjudicates throws and tips",
                   choices=("physics", "kinematic")),
        OptionSpec("max_turns", int, 200,
                   "house limit: after this many turns the higher score wins", minimum=1),
        OptionSpec("first", int, None,
                   "the player who goes first, 1 or 2 (default: drawn with the seed)",
                   minimum=1, maximum=2),
    ),
    bots=("random", "greedy", "planner"),
))
