"""Game-AI adapters: the five games as OpenSpiel games (`simulator.ai.openspiel`) and
PettingZoo AEC environments (`simulator.ai.pettingzoo`), and the Gymnasium throwing
environment `tabletop/DeepWhiteSeaThrow-v0` (`simulator.ai.throw_env`).

They wrap the rule engines without changing them (DESIGN.md, "Game-AI adapters") and live
in the simulator layer because Deep White Sea's physics table and the throwing
environment need PyBullet, which `rules/` never imports. OpenSpiel, PettingZoo, Shimmy
and Gymnasium come with the `ai` extra (`pip install -e '.[ai]'`) and are imported only
inside these modules' functions: importing this package needs none of them.
`simulator.ai.spaces` (integer action ids, observation tensors, per-die chance) is pure
numpy and works without the extra.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

INSTALL = "pip install -e '.[ai]'"


class MissingExtra(ImportError):
    """A game-AI library is not installed; the message is one line naming the extra."""


def require(module: str) -> ModuleType:
    """Import `module` (pyspiel, pettingzoo, shimmy, gymnasium) or raise `MissingExtra`
    naming the `ai` extra, instead of a bare ModuleNotFoundError deep in a traceback."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = exc.name if exc.name and exc.name != module else None
        raise MissingExtra(f"{module} is not installed{f' ({missing})' if missing else ''}: "
                           f"the game-AI adapters need the 'ai' extra: {INSTALL}") from None


def script_import(module: str) -> ModuleType:
    """For a script's `main()`: import `module` (an adapter), or say in one line which extra
    is missing and exit with status 2, as for any other bad setup a user can fix."""
    try:
        return importlib.import_module(module)
    except MissingExtra as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
