"""How dice and the table look: face images, the per-die texture atlas, colours.

Plain Python (Pillow and numpy): the Panda3D scene turns these into textures and geometry.

A die's eight face images go into one atlas (4 columns x 2 rows, side n in cell n-1), so a
die is one texture. Each face's corners take the image positions the crew format defines
(`dice_models.crews.CORNER_UV`, via the corner name of each body axis), so the corners of
the printed image sit on the corners of the model. The face images come from the dice art
module (`simulator.art.faces.render_side`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from PIL import Image

from dice_models.crews import AXES, CORNER_UV, CrewDie, axis_corner

CELL = 256  # px: one face image in the atlas (a power of two for the software renderer)
ATLAS_COLS, ATLAS_ROWS = 4, 2

FELT = (0.11, 0.36, 0.22)
# Layers over the felt (m). The software renderer's depth buffer cannot part surfaces a
# fraction of a millimetre apart at table distance, so each layer sits a millimetre up.
FELT_Z = 0.0  # the cloth is the table surface; the wooden top lies a millimetre below
SHADOW_Z = 0.002
BAND_Z = 0.003  # the players' edge bands
MARK_Z = 0.004  # rings, baselines, poison counters
TABLE_WOOD = (0.42, 0.26, 0.14)
PLAYER_COLOURS = {1: (0.95, 0.78, 0.25), 2: (0.35, 0.72, 0.95)}  # edge strips, HUD
FOUL_COLOUR = (0.85, 0.15, 0.12)
PAPER = (244, 240, 228)


@dataclass(frozen=True)
class DieLook:
    """What a die looks like: its atlas image (RGBA, 4x2 cells) and a key for caching the
    texture made from it. `solid` dice (tests, plain markers) are one flat colour."""

    key: str
    atlas: Image.Image


def crew_look(die: CrewDie, cell: int = CELL) -> DieLook:
    """The die's face art in an atlas of `cell`-pixel faces (a power of two)."""
    return _crew_look_cached(die, cell)


def solid_look(rgb: tuple[int, int, int]) -> DieLook:
    img = Image.new("RGBA", (CELL * ATLAS_COLS, CELL * ATLAS_ROWS), (*rgb, 255))
    return DieLook(f"solid-{rgb[0]}-{rgb[1]}-{rgb[2]}", img)


def atlas_uv(side: int, face: int, axis: str) -> tuple[float, float]:
    """Texture coordinate (u right, v up as Panda3D reads it) of the corner on body axis
    `axis` of geometry face `face`, which carries side `side`, in a die's atlas."""
    u, v = CORNER_UV[axis_corner(face, axis)]
    col, row = (side - 1) % ATLAS_COLS, (side - 1) // ATLAS_COLS
    return (col + u) / ATLAS_COLS, 1.0 - (row + v) / ATLAS_ROWS


def face_uvs(side_of_face: tuple[int, ...], faces: tuple[tuple[int, ...], ...],
             vertices: np.ndarray) -> list[list[tuple[float, float]]]:
    """For each octahedron face (vertex indices), the atlas uv of each of its vertices."""
    out = []
    for f, tri in enumerate(faces):
        row = []
        for v in tri:
            axis = AXES[int(np.argmax(np.abs(vertices[v])))]
            row.append(atlas_uv(side_of_face[f], f, axis))
        out.append(row)
    return out


# -- helpers ------------------------------------------------------------------------------


@functools.cache
def _crew_look_cached(die: CrewDie, cell: int) -> DieLook:
    from simulator.art.faces import render_side

    cells = [render_side(die, side, cell).convert("RGBA") for side in range(1, 9)]
    return DieLook(f"crew-{die.slug}-{cell}", _atlas(cells, cell))


def _atlas(cells: list[Image.Image], cell: int) -> Image.Image:
    atlas = Image.new("RGBA", (cell * ATLAS_COLS, cell * ATLAS_ROWS), (*PAPER, 255))
    for i, img in enumerate(cells):
        atlas.paste(img, ((i % ATLAS_COLS) * cell, (i // ATLAS_COLS) * cell))
    return atlas
