"""Tables by kind: the implementations of `rules.core.protocols.Table` a game may be played
on, each with a maker (from the game's options) and a loader (from its `to_json`).

A game's engine registers the tables it ships (Deep White Sea: `kinematic`); a layer above
the rules registers the ones it provides (the physics table) through its plug-in loader,
so that no rules module names, imports or depends on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.protocols import RulesError, Table

TableMaker = Callable[[dict[str, Any]], Table]
TableLoader = Callable[[dict[str, Any]], Table]

_KINDS: dict[str, tuple[TableMaker, TableLoader]] = {}


def register_table(kind: str, make: TableMaker, load: TableLoader) -> None:
    """Make `kind` a table games can be played on (a second registration replaces the
    first: a lazy stand-in gives way to the module it stands for)."""
    _KINDS[kind] = (make, load)


def table_kinds() -> list[str]:
    return sorted(_KINDS)


def _entry(game: str, kind: str) -> tuple[TableMaker, TableLoader]:
    try:
        return _KINDS[kind]
    except KeyError:
        raise RulesError(f"{game}: table: unknown table {kind!r}; known: "
                         f"{', '.join(table_kinds()) or 'none'} (the tables a program "
                         "provides are registered when it loads its plug-ins)") from None


def make_table(game: str, kind: str, options: dict[str, Any]) -> Table:
    """A new table of `kind` for `game`, from the game's options."""
    return _entry(game, kind)[0](options)


def load_table(game: str, kind: str, data: dict[str, Any]) -> Table:
    """A table of `kind` restored from its `to_json()`."""
    return _entry(game, kind)[1](data)
