"""How dice and the table look: face images, the per-die texture atlas, colours.

Plain Python (Pillow and numpy): the Panda3D scene turns these into textures and geometry.

A die's eight face images go into one atlas (4 columns x 2 rows, side n in cell n-1), so a
die is one texture. Each face's corners take the image positions the crew format defines
(`dice_models.crews.CORNER_UV`, via the corner name of each body axis), so the corners of
the printed image sit on the corners of the model. The face images come from the dice art
module (`simulator.art`) when it is installed; otherwise a plain face is drawn: the team
border, the side number, the arrows and the dots.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from dice_models.crews import AXES, CORNER_UV, CrewDie, axis_corner

CELL = 256  # px: one face image in the atlas (a power of two for the software renderer)
ATLAS_COLS, ATLAS_ROWS = 4, 2

FELT = (0.11, 0.36, 0.22)
TABLE_WOOD = (0.42, 0.26, 0.14)
PLAYER_COLOURS = {1: (0.95, 0.78, 0.25), 2: (0.35, 0.72, 0.95)}  # edge strips, HUD
FOUL_COLOUR = (0.85, 0.15, 0.12)
PAPER = (244, 240, 228)
ARROW_RGB = {
    "yellow": (230, 190, 30), "red": (205, 40, 35), "green": (40, 150, 60),
    "ice blue": (120, 200, 235), "dark blue": (30, 50, 140), "purple": (130, 60, 160),
    "black": (30, 30, 30), "white": (250, 250, 250),
}


@dataclass(frozen=True)
class DieLook:
    """What a die looks like: its atlas image (RGBA, 4x2 cells) and a key for caching the
    texture made from it. `solid` dice (tests, plain markers) are one flat colour."""

    key: str
    atlas: Image.Image


def crew_look(die: CrewDie) -> DieLook:
    return _crew_look_cached(die)


def plain_look(label: str, border_hex: str, values: tuple[int, ...] = tuple(range(1, 9))) -> DieLook:
    """A die without crew data (a bare paper-d8): numbered faces in a border colour."""
    return _plain_look_cached(label, border_hex, values)


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


def hex_rgb(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def art_available() -> bool:
    return _art_face_fn() is not None


# -- helpers ------------------------------------------------------------------------------


@functools.cache
def _crew_look_cached(die: CrewDie) -> DieLook:
    art = _art_face_fn()
    cells = []
    for side in range(1, 9):
        img = art(die, side, CELL) if art is not None else None
        if img is None:
            img = _plain_face(side, hex_rgb(die.border), die)
        cells.append(img.convert("RGBA").resize((CELL, CELL)))
    source = "art" if art is not None else "plain"
    return DieLook(f"crew-{die.slug}-{source}", _atlas(cells))


@functools.cache
def _plain_look_cached(label: str, border_hex: str, values: tuple[int, ...]) -> DieLook:
    cells = [_plain_face(values[i] if i < len(values) else i + 1, hex_rgb(border_hex), None)
             for i in range(8)]
    return DieLook(f"plain-{label}-{border_hex}", _atlas(cells))


def _atlas(cells: list[Image.Image]) -> Image.Image:
    atlas = Image.new("RGBA", (CELL * ATLAS_COLS, CELL * ATLAS_ROWS), (*PAPER, 255))
    for i, img in enumerate(cells):
        atlas.paste(img, ((i % ATLAS_COLS) * CELL, (i // ATLAS_COLS) * CELL))
    return atlas


@functools.cache
def _art_face_fn():  # type: ignore[no-untyped-def]
    """The art module's face-image function, if the art package is installed."""
    try:
        art = importlib.import_module("simulator.art")
    except ImportError:
        return None
    fn = getattr(art, "face_image", None)
    if fn is None:
        return None

    def face(die: CrewDie, side: int, size: int) -> Image.Image:
        return fn(die, side, size=size)

    return face


def _plain_face(side: int, border: tuple[int, int, int], die: CrewDie | None) -> Image.Image:
    """A readable face without the art module: paper, team border, side number, arrows
    in their corners and the green and red dots."""
    s = CELL
    img = Image.new("RGBA", (s, s), (*PAPER, 255))
    d = ImageDraw.Draw(img)
    pts = {c: (uv[0] * s, uv[1] * s) for c, uv in CORNER_UV.items()}
    tri = [pts["top"], pts["left"], pts["right"]]
    d.polygon(tri, fill=(*PAPER, 255), outline=(*border, 255), width=max(6, s // 20))
    centre = (sum(p[0] for p in tri) / 3, sum(p[1] for p in tri) / 3)
    font = _font(int(s * 0.26))
    d.text(centre, str(side), fill=(20, 20, 20, 255), font=font, anchor="mm")
    if die is None:
        return img
    sd = die.side(side)
    for arrow in sd.arrows:
        _corner_mark(d, pts[arrow.corner], centre, ARROW_RGB.get(arrow.colour, (0, 0, 0)),
                     0.36, int(s * 0.09), arrow.label)
    for corner in sd.green:
        _dot(d, pts[corner], centre, (40, 170, 60))
    if sd.red is not None:
        _dot(d, pts[sd.red], centre, (210, 30, 30))
    if sd.shield is not None:
        small = _font(int(s * 0.09))
        sx, sy = centre[0], centre[1] + s * 0.16
        d.rectangle((sx - s * 0.06, sy - s * 0.05, sx + s * 0.06, sy + s * 0.05),
                    fill=ARROW_RGB.get(sd.shield.colour, (250, 250, 250)) + (255,),
                    outline=(20, 20, 20, 255))
        ink = (250, 250, 250, 255) if sd.shield.colour in ("dark blue", "purple", "red") \
            else (20, 20, 20, 255)
        d.text((sx, sy), str(sd.shield.block), fill=ink, font=small, anchor="mm")
    return img


def _corner_mark(d: ImageDraw.ImageDraw, corner: tuple[float, float], centre: tuple[float, float],
                 rgb: tuple[int, int, int], frac: float, size: int, label: str) -> None:
    """An arrow pointing into `corner`, a fraction `frac` of the way from the corner in."""
    cx = corner[0] + (centre[0] - corner[0]) * frac
    cy = corner[1] + (centre[1] - corner[1]) * frac
    dx, dy = corner[0] - centre[0], corner[1] - centre[1]
    n = (dx * dx + dy * dy) ** 0.5
    dx, dy = dx / n, dy / n
    tip = (cx + dx * size, cy + dy * size)
    left = (cx - dy * size * 0.8 - dx * size * 0.5, cy + dx * size * 0.8 - dy * size * 0.5)
    right = (cx + dy * size * 0.8 - dx * size * 0.5, cy - dx * size * 0.8 - dy * size * 0.5)
    d.polygon([tip, left, right], fill=(*rgb, 255), outline=(20, 20, 20, 255))
    if label:
        d.text((cx, cy), label, fill=(255, 255, 255, 255), font=_font(int(size * 0.9)),
               anchor="mm", stroke_width=2, stroke_fill=(0, 0, 0, 255))


def _dot(d: ImageDraw.ImageDraw, corner: tuple[float, float], centre: tuple[float, float],
         rgb: tuple[int, int, int]) -> None:
    x = corner[0] + (centre[0] - corner[0]) * 0.16
    y = corner[1] + (centre[1] - corner[1]) * 0.16
    r = CELL * 0.03
    d.ellipse((x - r, y - r, x + r, y + r), fill=(*rgb, 255))


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)
