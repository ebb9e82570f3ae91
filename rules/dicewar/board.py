"""The DiceWar warlands and the game's numbers (`rules.dicewar.game`): the 7x7 fields and
their names, the neighbours and movement patterns, the field bonus and the power
hierarchy. Pure arithmetic on cell numbers (row * 7 + column, row 0 red's Supply Zone).
"""

from __future__ import annotations

from itertools import product

from rules.core.protocols import RulesError

SIZE = 7
CELLS = SIZE * SIZE
DICE_PER_PLAYER = 15
SETUP_POWER = 10
WIN_VP = 10
RUINS = (3 * SIZE + 1, 3 * SIZE + 3, 3 * SIZE + 5)
PLAYER_NAMES = ("red", "black")

ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))
DIRECTIONS = {"orthogonal": ORTHO, "diagonal": DIAG, "surrounding": ORTHO + DIAG,
              "knight": KNIGHT}


def beats(attacker: int, defender: int) -> bool:
    """The power hierarchy: higher beats lower; in addition 3 beats 6."""
    return attacker > defender or (attacker == 3 and defender == 6)


def field_bonus(player: int, cell: int) -> int:
    """Extra victory points for a defeat on `cell`, scored by `player`: +1, +2, +3 on the
    opponent's third, second and back row; nothing in one's own half or the middle row."""
    row = cell // SIZE
    return max(0, row - 3) if player == 0 else max(0, 3 - row)


def home_row(player: int) -> int:
    return 0 if player == 0 else SIZE - 1


def cell_name(cell: int) -> str:
    return f"{'abcdefg'[cell % SIZE]}{cell // SIZE + 1}"


def parse_cell(text: str) -> int:
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in "abcdefg" or text[1] not in "1234567":
        raise RulesError(f"not a field: {text!r} (use a1..g7)")
    return (int(text[1]) - 1) * SIZE + "abcdefg".index(text[0])


def _neighbours(cell: int, dirs: tuple[tuple[int, int], ...]) -> list[int]:
    r, c = divmod(cell, SIZE)
    out = []
    for dr, dc in dirs:
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(rr * SIZE + cc)
    return out


ADJ = [_neighbours(i, ORTHO) for i in range(CELLS)]
SURR = [_neighbours(i, ORTHO + DIAG) for i in range(CELLS)]


def _within(cell: int, rng: int) -> list[int]:
    r, c = divmod(cell, SIZE)
    return [rr * SIZE + cc
            for rr, cc in product(range(max(0, r - rng), min(SIZE, r + rng + 1)),
                                  range(max(0, c - rng), min(SIZE, c + rng + 1)))
            if (rr, cc) != (r, c)]
