"""Diceland boards: an even number (8 to 36) of hexagonal tiles forming one connected area.

A board file is YAML with a `layout` drawn as text, one letter per tile, on a doubled-width
hex grid: tiles on the same row sit two columns apart, and each row is shifted one column
from its neighbours, just as the hexes lie. Letters name the terrain (used only by the
terrain variant): P plain, F forest, M mountain, H hill, C city.

    name: compact
    description: eight tiles in two rows
    layout: |
      P F P P
       P C P M

Tile `(col, row)` touches `(col +- 2, row)` and `(col +- 1, row +- 1)`. Tiles are numbered
0.. in reading order (row by row, left to right); players and logs name them by number.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rules.core.datafile import check_keys, data_error, load_yaml, resolve_data_file
from rules.core.protocols import RulesError

BOARDS_DIR = Path(__file__).parent / "boards"
TERRAINS = {"P": "plain", "F": "forest", "M": "mountain", "H": "hill", "C": "city"}
MIN_TILES, MAX_TILES = 8, 36
STEPS = ((2, 0), (-2, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))


@dataclass(frozen=True)
class Board:
    name: str
    cells: tuple[tuple[int, int], ...]  # (col, row) per tile, in reading order
    terrain: tuple[str, ...]  # terrain letter per tile
    neighbours: tuple[tuple[int, ...], ...]  # tile numbers touching each tile

    @property
    def size(self) -> int:
        return len(self.cells)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "cells": [list(c) for c in self.cells],
                "terrain": "".join(self.terrain)}

    def layout(self) -> str:
        """The board as a layout picture (what a board file holds)."""
        return draw(self, [t for t in self.terrain], width=1)


def make_board(name: str, cells: list[tuple[int, int]], terrain: list[str] | None = None,
               source: str = "<board>") -> Board:
    """Validate and build a board; errors name the source and what is wrong."""
    if len(set(cells)) != len(cells):
        raise data_error(source, "layout", "two tiles on one place", show_value=False)
    for c, r in cells:
        if (c + r) % 2:
            raise data_error(source, "layout", f"tile at row {r + 1}, column {c + 1} is off "
                             "the hex grid (each row is shifted one column from the last)",
                             show_value=False)
    n = len(cells)
    if not MIN_TILES <= n <= MAX_TILES or n % 2:
        raise data_error(source, "layout", f"a board needs an even number of tiles from "
                         f"{MIN_TILES} to {MAX_TILES}", n)
    terrain = terrain or ["P"] * n
    order = sorted(range(n), key=lambda i: (cells[i][1], cells[i][0]))
    cells = [cells[i] for i in order]
    terrain = [terrain[i] for i in order]
    index = {cell: i for i, cell in enumerate(cells)}
    neighbours = tuple(
        tuple(sorted(index[(c + dc, r + dr)] for dc, dr in STEPS if (c + dc, r + dr) in index))
        for c, r in cells)
    parts = _components(neighbours)
    if len(parts) > 1:
        stray = min(parts[1:], key=len)
        c, r = cells[stray[0]]
        raise data_error(source, "layout", f"tiles are not connected: {len(parts)} separate "
                         f"areas (e.g. the tile at row {r + 1}, column {c + 1})",
                         show_value=False)
    return Board(name, tuple(cells), tuple(terrain), neighbours)


def parse_layout(text: str, name: str, source: str) -> Board:
    cells: list[tuple[int, int]] = []
    terrain: list[str] = []
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    for r, line in enumerate(lines):
        for c, ch in enumerate(line[indent:].rstrip()):
            if ch in " .":
                continue
            if ch.upper() not in TERRAINS:
                raise data_error(source, "layout", f"row {r + 1}, column {c + 1}: unknown "
                                 f"terrain letter (use {', '.join(TERRAINS)} or '.')", ch)
            cells.append((c, r))
            terrain.append(ch.upper())
    return make_board(name, cells, terrain, source)


def load_board(name_or_path: str) -> Board:
    """A preset by name (`boards/<name>.yaml`) or a board YAML file by path."""
    path = resolve_data_file(name_or_path, BOARDS_DIR, "board")
    source = str(path)
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise data_error(source, "file", "expected a mapping with a 'layout'", type(data).__name__)
    check_keys(source, "", data, ("name", "description", "layout"))
    layout = data.get("layout")
    if not isinstance(layout, str) or not layout.strip():
        raise data_error(source, "layout", "must be a text picture of the tiles", layout)
    return parse_layout(layout, str(data.get("name") or path.stem), source)


def presets() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.yaml"))


def random_board(tiles: int, rng: np.random.Generator, terrain: bool = True) -> Board:
    """A random connected board of `tiles` tiles: grow from one tile, each time adding a
    free place next to the area, picked uniformly. Terrain letters are drawn at random
    (mostly plain) so the terrain variant can be played on it."""
    if not MIN_TILES <= tiles <= MAX_TILES or tiles % 2:
        raise RulesError(f"random board: --tiles must be even, {MIN_TILES} to {MAX_TILES} "
                         f"(got {tiles})")
    cells = [(0, 0)]
    taken = {(0, 0)}
    while len(cells) < tiles:
        frontier = sorted({(c + dc, r + dr) for c, r in cells for dc, dr in STEPS} - taken)
        pick = frontier[int(rng.integers(len(frontier)))]
        cells.append(pick)
        taken.add(pick)
    min_c = min(c for c, _ in cells)
    min_r = min(r for _, r in cells)
    shift_c = min_c - (min_c + min_r) % 2  # an even total shift keeps tiles on the grid
    cells = [(c - shift_c, r - min_r) for c, r in cells]
    letters = "PPPPPFFMHC" if terrain else "P"
    kinds = [letters[int(rng.integers(len(letters)))] for _ in cells]
    return make_board(f"random-{tiles}", cells, kinds, "random board")


def board_from_json(data: Any, source: str) -> Board:
    if not isinstance(data, dict):
        raise RulesError(f"{source}: field 'board': expected a mapping (got {data!r})")
    cells = data.get("cells")
    terrain = data.get("terrain")
    if (not isinstance(cells, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) for v in c)
            for c in cells)):
        raise RulesError(f"{source}: field 'board.cells': expected [col, row] pairs "
                         f"(got {cells!r})")
    if not isinstance(terrain, str) or len(terrain) != len(cells) or any(
            t not in TERRAINS for t in terrain):
        raise RulesError(f"{source}: field 'board.terrain': one letter of "
                         f"{''.join(TERRAINS)} per tile (got {terrain!r})")
    return make_board(str(data.get("name", "board")), [(c[0], c[1]) for c in cells],
                      list(terrain), source)


def draw(board: Board, labels: list[str], width: int = 4) -> str:
    """Lay one label per tile out as the hexes lie (labels padded to `width`)."""
    if not board.cells:
        return ""
    step = (width + 2) // 2  # columns of text per grid column
    rows: dict[int, list[tuple[int, str]]] = {}
    for (c, r), label in zip(board.cells, labels, strict=True):
        rows.setdefault(r, []).append((c, label))
    min_c = min(c for c, _ in board.cells)
    out = []
    for r in range(max(rows) + 1):
        line = ""
        for c, label in sorted(rows.get(r, [])):
            x = (c - min_c) * step
            line = line.ljust(x) + label.ljust(width)
        out.append(line.rstrip())
    return "\n".join(out)


def _components(neighbours: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    seen: set[int] = set()
    parts: list[list[int]] = []
    for start in range(len(neighbours)):
        if start in seen:
            continue
        part, queue = [], deque([start])
        seen.add(start)
        while queue:
            t = queue.popleft()
            part.append(t)
            for u in neighbours[t]:
                if u not in seen:
                    seen.add(u)
                    queue.append(u)
        parts.append(part)
    return sorted(parts, key=len, reverse=True)
