"""Golden playthroughs of every registered game: one seeded game each, told in the
engines' own words (`rules.playthroughs`), must replay line by line. A change to the rules
shows up here as a diff of the story; regenerate the files only for a change you meant:

    python -m rules.playthroughs tests/data/playthroughs

One golden per game, compared on every machine: a story with floating point in it (the
kinematic Deep White Sea) is the same bits whichever SIMD and BLAS kernels numpy picks
(tests/test_kernels.py plays them under other kernels; docs/determinism.md).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from rules import playthroughs
from rules.registry import names

FOLDER = Path(__file__).parent / "data" / "playthroughs"


@pytest.mark.parametrize("game", names())
def test_golden_playthrough(game: str) -> None:
    path = FOLDER / playthroughs.file_name(game)
    assert path.is_file(), f"no golden playthrough for {game}: run python -m rules.playthroughs {FOLDER}"
    expected = path.read_text().splitlines()
    got = playthroughs.playthrough(game)
    diff = "\n".join(difflib.unified_diff(expected, got, "golden", "now", lineterm="", n=1))
    assert got == expected, diff[:4000]


def test_every_playthrough_ends_and_has_no_stray_file() -> None:
    stored = sorted(p.stem for p in FOLDER.glob("*.txt"))
    assert stored == sorted(names())
    assert sorted(p.name for p in FOLDER.iterdir()) == [f"{g}.txt" for g in sorted(names())]
    for game in names():
        text = (FOLDER / playthroughs.file_name(game)).read_text().splitlines()
        assert text[-2].startswith(("Winner:", "Draw between")), game
        assert text[-1].startswith("final state digest: "), game


def test_the_regenerating_command_writes_the_golden_file(tmp_path: Path) -> None:
    assert playthroughs.main([str(tmp_path), "dicewar"]) == 0
    assert (tmp_path / "dicewar.txt").read_bytes() == (FOLDER / "dicewar.txt").read_bytes()
    assert playthroughs.main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{g}.txt" for g in sorted(names())]


def test_an_unknown_game_is_one_line_and_exit_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert playthroughs.main([str(tmp_path), "dicewarr"]) == 2
    assert capsys.readouterr().err == "unknown game 'dicewarr'; did you mean dicewar?\n"
    assert not list(tmp_path.iterdir())
