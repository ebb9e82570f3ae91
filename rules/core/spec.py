"""What a game declares about itself, once, in its own package (`rules/<game>/spec.py`):
`GameSpec` (players, options, bots, chance, utility, golden setting, quick options) and
`OptionSpec` (each option's type, range and default). `rules.registry` lists the game
packages and reads their declarations; everything above the rules reads these fields
generically."""

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
            raise RulesError(f"{where}: must be one of {', '.join(map(str, self.choices))} "
                             f"(got {_short(value)})")
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
class Golden:
    """How a game's golden story is played: the players (bot kinds), seed and options.
    The players mix bots where a game between equal bots would only hit the house limit
    (two greedy DiceWar players draw after 400 turns)."""

    players: tuple[str, ...]
    seed: int = 11
    options: dict[str, Any] = field(default_factory=dict)


CHANCE_KINDS = ("dice", "none")
UTILITIES = ("constant-sum", "general-sum")


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
    # "dice": its chance nodes roll dice (`chance_request`), through the program's
    # `DiceRoller`; "none": it has no chance nodes (Deep White Sea: the table adjudicates).
    chance: str = "dice"
    # "constant-sum": the returns of a finished game sum to 1 (a winner, or a shared draw);
    # "general-sum": they need not (a solo game scores 0 or 1).
    utility: str = "constant-sum"
    # How its golden playthrough is played (rules/playthroughs.py).
    golden: Golden | None = None
    # Options that make a game short enough for the fuzz suite and smoke tests.
    quick: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.chance not in CHANCE_KINDS:
            raise ValueError(f"{self.name}: chance: {self.chance!r} is not one of {CHANCE_KINDS}")
        if self.utility not in UTILITIES:
            raise ValueError(f"{self.name}: utility: {self.utility!r} is not one of {UTILITIES}")
        for key in self.quick:
            self.option(key)

    def option(self, name: str) -> OptionSpec:
        """The option `name` as declared (a `RulesError` line for one it does not take)."""
        for o in self.options:
            if o.name == name:
                return o
        raise RulesError(f"{self.name} does not take option --{name.replace('_', '-')}"
                         + did_you_mean(name.replace("_", "-"),
                                        [o.name.replace("_", "-") for o in self.options],
                                        prefix="--"))

    def default(self, name: str) -> Any:
        """The declared default of option `name`: an engine's house limits default to it
        rather than to a number of their own."""
        return self.option(name).default

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


def did_you_mean(name: str, known: list[str], prefix: str = "") -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    if close:
        return f"; did you mean {prefix}{close[0]}?"
    if known:
        return f"; known: {', '.join(prefix + k for k in sorted(known))}"
    return ""
