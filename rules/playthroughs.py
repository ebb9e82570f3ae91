"""Golden playthroughs: one seeded game of every registered game, told in the engines'
own words, kept as text beside the tests and compared line by line (OpenSpiel keeps one
per game the same way). A change to a rule, a bot or the order of the dice shows up as a
diff of the story; a refactor that is meant to change nothing must leave every file as it
is.

Each game is played through the same pipeline as `tabletop play` (`rules.core.runner.play`:
its seeded streams, bots and readable account), then the final state's digest, so a
change to the state that no event mentions still shows.

Regenerate the files (only for a change you meant, and say so in the commit) with

    python -m rules.playthroughs tests/data/playthroughs

which writes `<game>.txt` for every registered game (or only the games named after the
folder). `tests/test_playthroughs.py` fails for a game that has no file yet. A story with
floating point in it (the kinematic Deep White Sea's sweeps and bots) is the same bits on
every x86-64 machine, whichever SIMD and BLAS kernels numpy picks (docs/determinism.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dice_models.errors import DataError, error_line
from dice_models.outfiles import ensure_dir, write_bytes
from rules.core.protocols import RulesError
from rules.core.runner import play
from rules.registry import lookup, names


def playthrough(game: str) -> list[str]:
    """The golden story of `game`: the runner's readable account, then the final digest."""
    spec = lookup(game)  # an unknown game: one RulesError line with a did-you-mean
    how = spec.golden  # declared by the game (rules/<game>/spec.py)
    if how is None:
        raise RulesError(f"{game}: no golden playthrough set up (its spec's `golden`)")
    lines: list[str] = []
    record = play(spec.name, how.players, how.seed, dict(how.options), out=lines.append)
    final = record.lines[-2]  # the last step's line, before the end line
    lines.append(f"final state digest: {final.get('digest', record.lines[0]['initial_digest'])}")
    return lines


def file_name(game: str) -> str:
    return f"{game}.txt"


def write(folder: str | Path, games: Sequence[str] | None = None) -> list[Path]:
    """Write the golden file of each game (every registered game by default), atomically."""
    out = ensure_dir(folder, "playthrough folder")
    written = []
    for game in games or names():
        text = "\n".join(playthrough(game)) + "\n"
        written.append(write_bytes(out / file_name(game), text.encode(), "playthrough"))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.playthroughs",
                                     description="Regenerate the golden playthroughs.")
    parser.add_argument("folder", help="where to write <game>.txt (tests/data/playthroughs)")
    parser.add_argument("games", nargs="*", help="only these games (default: every game)")
    args = parser.parse_args(argv)
    try:
        for path in write(args.folder, args.games):
            print(f"wrote {path}")
    except (DataError, RulesError) as exc:
        print(error_line(str(exc)), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
