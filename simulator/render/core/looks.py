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
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

from dice_models.crews import AXES, CORNER_UV, CrewDie, axis_corner
from dice_models.geometry import segment_distance

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


def linear(rgb: tuple[float, ...]) -> tuple[float, ...]:
    """An sRGB colour (0..1) in linear light, as physically based shading adds light up
    (alpha, a fourth value, is left as it is)."""
    out = tuple(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3])
    return out + tuple(rgb[3:])


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


# -- any die: its values drawn on its faces ---------------------------------------------------

VALUE_COLS = 8  # a value atlas holds face f in cell f: 8 x 4 cells serve up to 32 faces
VALUE_MARGIN = 0.08  # share of a cell left round a face's polygon


def value_look(values: tuple[int, ...], uvs: list[list[tuple[float, float]]],
               rgb: tuple[int, int, int] = (236, 232, 220),
               corners: list[list[int | None]] | None = None) -> DieLook:
    """An atlas for any die: face f's value (from the die's data) in cell f on a body of
    `rgb`, sized to sit inside the circle inscribed in face f's polygon (`uvs`, from
    `polygon_uvs`). 6 and 9 carry a dot so they read the right way up. `corners[f][k]`:
    a number printed at face f's k-th corner instead (a d4, `DieShape.corner_values`)."""
    key = tuple(tuple((round(u, 6), round(v, 6)) for u, v in face) for face in uvs)
    marks = None if corners is None else tuple(tuple(c) for c in corners)
    return _value_look_cached(tuple(values), key, rgb, marks)


def polygon_uvs(vertices: np.ndarray, faces: tuple[tuple[int, ...], ...],
                normals: np.ndarray) -> list[list[tuple[float, float]]]:
    """For each face (any convex polygon), the atlas uv of each of its vertices: the face
    seen from outside, its first edge level, centred in cell f and scaled to fit it."""
    rows = _value_rows(len(faces))
    out = []
    for f, face in enumerate(faces):
        flat = _flat(vertices, face, normals[f])
        half = float(np.abs(flat).max())
        scale = (0.5 - VALUE_MARGIN) / half
        col, row = f % VALUE_COLS, f // VALUE_COLS
        out.append([((col + 0.5 + x * scale) / VALUE_COLS, 1.0 - (row + 0.5 - y * scale) / rows)
                    for x, y in flat])
    return out


@functools.cache
def _value_look_cached(values: tuple[int, ...], uvs: tuple[tuple[tuple[float, float], ...], ...],
                       rgb: tuple[int, int, int],
                       corners: tuple[tuple[int | None, ...], ...] | None) -> DieLook:
    from PIL import ImageDraw

    from simulator.art.faces import art_font

    rows = _value_rows(len(values))
    img = Image.new("RGBA", (CELL * VALUE_COLS, CELL * rows), (*rgb, 255))
    draw = ImageDraw.Draw(img)
    ink = (30, 28, 26, 255) if sum(rgb) > 380 else (248, 246, 240, 255)
    for f, value in enumerate(values):
        outline = np.array([(u * CELL * VALUE_COLS, (1.0 - v) * CELL * rows) for u, v in uvs[f]])
        centre = outline.mean(axis=0)
        room = min(segment_distance(centre, outline[k], outline[(k + 1) % len(outline)])
                   for k in range(len(outline)))
        if corners is None:
            spots = [(centre, str(value), 0.9 * room)]
        else:  # each corner's number a little in from it, in a third of the room
            spots = [(centre + 0.55 * (outline[k] - centre), str(n), 0.3 * room)
                     for k, n in enumerate(corners[f]) if n is not None]
        for at, text, fit in spots:
            text = text + ("." if text.strip("69") == "" else "")
            px = CELL * 0.4
            while True:  # the largest type whose box fits the room
                font = art_font("bold", px)
                left, top, right, bottom = draw.textbbox((0, 0), text, font=font, anchor="mm")
                if math.hypot(right - left, bottom - top) / 2 <= fit or px < 8:
                    break
                px *= 0.9
            draw.text((float(at[0]), float(at[1])), text, fill=ink, font=font, anchor="mm")
    key = ("values-" + "-".join(map(str, values)) + f"-{hash((uvs, corners)) & 0xFFFFFFFF:x}-"
           + "-".join(map(str, rgb)))
    return DieLook(key, img)


def _value_rows(n_faces: int) -> int:
    """Rows of a value atlas: a power of two (the software renderer's textures are)."""
    rows = 1
    while rows * VALUE_COLS < n_faces:
        rows *= 2
    return rows


def _flat(vertices: np.ndarray, face: tuple[int, ...], normal: np.ndarray) -> np.ndarray:
    """A face's corners in its own plane, seen from outside (x along its first edge, y up),
    about its centre."""
    pts = np.asarray(vertices, dtype=float)[list(face)]
    u = pts[1] - pts[0]
    u /= np.linalg.norm(u)
    w = np.cross(normal, u)
    rel = pts - pts.mean(axis=0)
    return np.column_stack([rel @ u, rel @ w])


# -- helpers ------------------------------------------------------------------------------


def felt_look() -> DieLook:
    """A tileable felt texture: the felt colour with fine fibre noise, seeded (same every run).
    Short streaks along one direction read as nap; wrap-around rolls keep it tileable."""
    rng = np.random.default_rng(1)
    size = 256
    fibres = rng.normal(0.0, 1.0, (size, size))
    nap = sum(np.roll(fibres, k, axis=1) for k in range(-3, 4)) / 7 ** 0.5
    shade = 1.0 + 0.05 * nap + 0.03 * rng.normal(0.0, 1.0, (size, size))
    return DieLook("felt", _tinted(np.array(FELT) * 255, shade))


def wood_look() -> DieLook:
    """A tileable wood-grain texture in grey around white (the material's colour tints it):
    long grain lines along u, each a little wavy, with fine pores. Seeded, same every run."""
    rng = np.random.default_rng(2)
    size = 256
    v = np.arange(size)[:, None] / size
    u = np.arange(size)[None, :] / size
    # Waviness made of whole periods across the tile keeps its edges continuous; a small
    # one, since planks are cut along the grain.
    wave = 0.004 * np.sin(2 * np.pi * (2 * u + 0.3)) + 0.002 * np.sin(2 * np.pi * (7 * u))
    rings = np.sin(2 * np.pi * 23 * (v + wave)) + 0.5 * np.sin(2 * np.pi * 61 * (v + 0.5 * wave))
    noise = rng.normal(0.0, 1.0, (size, size))
    pores = sum(np.roll(noise, k, axis=1) for k in range(-6, 7)) / 3.6  # streaks along u
    shade = 0.88 + 0.04 * rings + 0.03 * pores
    return DieLook("wood", _tinted(np.array([255.0, 255.0, 255.0]), shade))


@functools.cache
def _crew_look_cached(die: CrewDie, cell: int) -> DieLook:
    from simulator.art.faces import render_side

    cells = [render_side(die, side, cell).convert("RGBA") for side in range(1, 9)]
    return DieLook(f"crew-{die.slug}-{cell}", _paper_grain(_atlas(cells, cell)))


def _paper_grain(atlas: Image.Image) -> Image.Image:
    """The atlas printed on paper: a faint seeded fibre mottle (2%), so close up a face reads
    as card rather than as a flat screen colour; the art keeps its colours."""
    rng = np.random.default_rng(3)
    rgba = np.asarray(atlas.convert("RGBA")).astype(float)
    h, w = rgba.shape[:2]
    fibre = rng.normal(0.0, 1.0, (h, w))
    fibre = (fibre + np.roll(fibre, 1, axis=0) + np.roll(fibre, 1, axis=1)) / 3 ** 0.5
    rgba[:, :, :3] *= (1.0 + 0.02 * fibre)[:, :, None]
    return Image.fromarray(np.clip(rgba, 0, 255).astype(np.uint8), "RGBA")


def _tinted(base: np.ndarray, shade: np.ndarray) -> Image.Image:
    size = shade.shape[0]
    rgb = np.clip(base[None, None, :] * shade[:, :, None], 0, 255).astype(np.uint8)
    return Image.fromarray(np.dstack([rgb, np.full((size, size), 255, np.uint8)]), "RGBA")


def _atlas(cells: list[Image.Image], cell: int) -> Image.Image:
    atlas = Image.new("RGBA", (cell * ATLAS_COLS, cell * ATLAS_ROWS), (*PAPER, 255))
    for i, img in enumerate(cells):
        atlas.paste(img, ((i % ATLAS_COLS) * cell, (i // ATLAS_COLS) * cell))
    return atlas
