"""Face art for Deep White Sea dice, drawn from the crew YAML with Pillow.

One square RGB image per side. The face triangle's corners sit at
`dice_models.crews.CORNER_UV`, so the 3D renderer maps each image corner onto the model
corner on the body axis that `CrewDie.corner_axis(side, corner)` names, and the paper net
places the same image on the same corner.

What a face shows (rulebook, "Elements of the Die Face"): a sight arrow in each corner that
has one, shaped by its range (short: a small triangle with a concave base; long: larger,
with a pinched two-piece tail; all: the largest, with a long foot), holding its hit or 'C';
the shield with its block value in its colour; the effect line in its colour and the
flavour line; green movement dots and the red damage dot at their corners; the side number;
on side 1 the point value, class and team; all inside a border in the team colour.

Lengths below are fractions of the triangle's side, `d` distances run from a corner along
its bisector towards the face centre.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from dice_models.crews import CORNER_UV, CORNERS, Arrow, CrewDie, Side
from dice_models.outfiles import ensure_dir, write_with

GAME_COLOURS: dict[str, tuple[int, int, int]] = {
    "yellow": (240, 190, 20),
    "red": (205, 35, 40),
    "green": (40, 150, 60),
    "ice blue": (120, 200, 235),
    "dark blue": (25, 50, 135),
    "purple": (120, 60, 160),
    "black": (25, 25, 25),
    "white": (255, 255, 255),
}
DOT_GREEN = (30, 175, 70)
DOT_RED = (220, 30, 30)
PAPER = (246, 243, 234)  # the face background
INK = (30, 30, 30)
LIGHT_TEXT = {"red", "green", "dark blue", "purple", "black"}  # colours that take white text
PALE_INKS = {GAME_COLOURS["yellow"], GAME_COLOURS["ice blue"]}

BORDER = 0.025  # team border band along each edge
DOT_D, DOT_R = 0.115, 0.027
ARROW_TIP_D = 0.175


@dataclass(frozen=True)
class ArrowShape:
    head_length: float
    head_half_width: float
    notch: float  # depth of the concave base
    text_height: float


ARROW_SHAPES = {
    "short": ArrowShape(0.12, 0.070, 0.030, 0.062),
    "long": ArrowShape(0.13, 0.075, 0.030, 0.066),
    "all": ArrowShape(0.145, 0.085, 0.035, 0.072),
}
SUPERSAMPLE = 3


def render_side(die: CrewDie, number: int, size: int = 512) -> Image.Image:
    """The face image of side `number`: size x size RGB."""
    frame = FaceFrame(size * SUPERSAMPLE)
    img = Image.new("RGB", (frame.size, frame.size), _hex(die.border))
    draw = ImageDraw.Draw(img)
    side = die.side(number)
    draw.polygon(frame.inner_triangle(), fill=PAPER)
    for corner in CORNERS:
        if corner in side.green:
            _dot(draw, frame, corner, DOT_GREEN)
        if side.red == corner:
            _dot(draw, frame, corner, DOT_RED)
    for arrow in side.arrows:
        _arrow(draw, frame, arrow)
    _centre_and_lines(draw, frame, die, side)
    return img.reduce(SUPERSAMPLE)


def render_die(die: CrewDie, size: int = 512) -> list[Image.Image]:
    return [render_side(die, n, size) for n in range(1, 9)]


def write_die_art(die: CrewDie, out_dir: str | Path, size: int = 512) -> list[Path]:
    """Eight PNG files `<slug>-side-<n>.png` in `out_dir`."""
    out = ensure_dir(out_dir, "--out")
    paths = []
    for n, img in enumerate(render_die(die, size), start=1):
        paths.append(write_with(out / f"{die.slug}-side-{n}.png", img.save, "--out"))
    return paths


@dataclass(frozen=True)
class FaceFrame:
    """Pixel geometry of the face triangle in an image of `size` pixels."""

    size: int

    @property
    def side_px(self) -> float:
        (x0, _), (x1, _) = CORNER_UV["left"], CORNER_UV["right"]
        return (x1 - x0) * self.size

    def corner(self, corner: str) -> tuple[float, float]:
        u, v = CORNER_UV[corner]
        return (u * self.size, v * self.size)

    def centre(self) -> tuple[float, float]:
        pts = [self.corner(c) for c in CORNERS]
        return (sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3)

    def inward(self, corner: str) -> tuple[float, float]:
        """Unit vector from a corner towards the face centre."""
        (x, y), (cx, cy) = self.corner(corner), self.centre()
        n = math.hypot(cx - x, cy - y)
        return ((cx - x) / n, (cy - y) / n)

    def along(self, corner: str, d: float, lateral: float = 0.0) -> tuple[float, float]:
        """The point `d` side-lengths from `corner` along its bisector, shifted `lateral`
        side-lengths to the right of the inward direction (as seen on the image)."""
        (x, y), (ix, iy) = self.corner(corner), self.inward(corner)
        px, py = -iy, ix
        s = self.side_px
        return (x + (d * ix + lateral * px) * s, y + (d * iy + lateral * py) * s)

    def row(self, f: float) -> float:
        """Pixel row at fraction f of the triangle height from the top corner."""
        top = self.corner("top")[1]
        bottom = self.corner("left")[1]
        return top + f * (bottom - top)

    def inner_triangle(self) -> list[tuple[float, float]]:
        # a band of width BORDER along every edge: corners move 2*BORDER along the bisector
        return [self.along(c, 2 * BORDER) for c in CORNERS]


def dot_centre(size: int, corner: str) -> tuple[float, float]:
    """Pixel centre of the dot at `corner` in a face image of `size` pixels."""
    return FaceFrame(size).along(corner, DOT_D)


def arrow_probe(size: int, corner: str) -> tuple[float, float]:
    """A pixel inside the arrow head at `corner`, clear of its text."""
    return FaceFrame(size).along(corner, ARROW_TIP_D + 0.025)


def shield_probe(size: int) -> tuple[float, float]:
    """A pixel inside the shield (or side 1's point badge), clear of its number."""
    frame = FaceFrame(size)
    cx, cy = frame.centre()
    return (cx - 0.05 * frame.side_px, frame.row(SHIELD_ROW) - 0.045 * frame.side_px)


# Rows (fraction of the triangle height from the top corner)
SHIELD_ROW = 0.64
BADGE_ROW = 0.60
LINE_ROWS = (0.925, 0.865, 0.80, 0.745)  # side number, then lines upwards
LINE_WIDTH = 0.32  # widest text line, in side lengths


def _dot(draw: ImageDraw.ImageDraw, frame: FaceFrame, corner: str,
         colour: tuple[int, int, int]) -> None:
    x, y = frame.along(corner, DOT_D)
    r = DOT_R * frame.side_px
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=INK,
                 width=max(1, round(0.004 * frame.side_px)))


def _arrow(draw: ImageDraw.ImageDraw, frame: FaceFrame, arrow: Arrow) -> None:
    shape = ARROW_SHAPES[arrow.range]
    colour = GAME_COLOURS[arrow.colour]
    outline = (255, 255, 255) if arrow.colour == "black" else INK
    width = max(1, round(0.004 * frame.side_px))

    def to_px(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [frame.along(arrow.corner, ARROW_TIP_D + x, y) for x, y in points]

    for piece in _arrow_pieces(arrow.range):
        draw.polygon(to_px(piece), fill=colour, outline=outline, width=width)
    if arrow.label:
        x, y = frame.along(arrow.corner, ARROW_TIP_D + 0.56 * shape.head_length)
        text_colour = (255, 255, 255) if arrow.colour in LIGHT_TEXT else INK
        font = art_font("bold", shape.text_height * frame.side_px)
        draw.text((x, y), arrow.label, fill=text_colour, font=font, anchor="mm")


def _arrow_pieces(rng: str) -> list[list[tuple[float, float]]]:
    """Arrow outlines in a frame with the tip at the origin, x inwards, y lateral."""
    s = ARROW_SHAPES[rng]
    hl, hw, notch = s.head_length, s.head_half_width, s.notch
    # concave base: a parabola from (hl, -hw) through (hl - notch, 0) to (hl, hw)
    base = [(hl - notch * (1 - t * t), hw * t) for t in (i / 8 for i in range(8, -9, -1))]
    head = [(0.0, 0.0), *base]
    if rng == "short":
        return [head]
    x0 = hl - notch + 0.02
    if rng == "long":
        # a pinched, forked tail in two pieces, one each side of the axis
        gap = 0.007
        upper = [(x0, gap), (x0, 0.033), (x0 + 0.04, 0.016), (x0 + 0.088, 0.048),
                 (x0 + 0.066, gap)]
        lower = [(x, -y) for x, y in upper]
        return [head, upper, lower]
    # 'all': a long stem ending in a wide foot
    stem_end = 0.22
    stem = [(hl - notch - 0.01, 0.02), (stem_end, 0.02), (stem_end, 0.068),
            (stem_end + 0.028, 0.068), (stem_end + 0.028, -0.068), (stem_end, -0.068),
            (stem_end, -0.02), (hl - notch - 0.01, -0.02)]
    return [stem, head]


def _centre_and_lines(draw: ImageDraw.ImageDraw, frame: FaceFrame, die: CrewDie,
                      side: Side) -> None:
    s = frame.side_px
    cx, _ = frame.centre()
    lines: list[tuple[str, str, tuple[int, int, int], float]] = []  # text, style, colour, h
    if side.number == 1:
        _badge(draw, frame, die.points)
        if side.effect is not None:
            lines.append((side.effect.text, "bold", _text_colour(side.effect.colour), 0.05))
        lines.append((f"{die.die_class} · {die.team}", "bold", INK, 0.042))
    else:
        assert side.shield is not None
        _shield(draw, frame, side.shield.block, side.shield.colour)
        if side.effect is not None:
            lines.append((side.effect.text, "bold", _text_colour(side.effect.colour), 0.05))
    rows = list(LINE_ROWS)
    number_row = rows.pop(0)
    # lines stack upwards from just above the side number: flavour lowest
    stack: list[tuple[str, str, tuple[int, int, int], float]] = []
    if side.flavour:
        stack.append((side.flavour, "italic", INK, 0.044))
    stack.extend(reversed(lines))
    for (text, style, colour, height), f in zip(stack, rows, strict=False):
        font = _fit(text, style, height * s, LINE_WIDTH * s)
        # pale inks (yellow, ice blue) get a thin dark outline to read on the paper;
        # the others a paper-coloured halo that keeps them clear of arrow tails
        pale = colour in PALE_INKS
        draw.text((cx, frame.row(f)), text, fill=colour, font=font, anchor="mm",
                  stroke_width=max(1, round((0.002 if pale else 0.006) * s)),
                  stroke_fill=INK if pale else PAPER)
    draw.text((cx, frame.row(number_row)), str(side.number), fill=INK,
              font=art_font("bold", 0.06 * s), anchor="mm")


def _shield(draw: ImageDraw.ImageDraw, frame: FaceFrame, block: int, colour: str) -> None:
    s = frame.side_px
    cx, _ = frame.centre()
    cy = frame.row(SHIELD_ROW)
    w, top, shoulder, point = 0.075, -0.075, 0.01, 0.095
    pts = [(cx - w * s, cy + top * s), (cx + w * s, cy + top * s), (cx + w * s, cy + shoulder * s)]
    for i in range(1, 12):  # the curved lower edge down to the point and back up
        t = i / 12
        ang = math.pi * t
        pts.append((cx + w * s * math.cos(ang),
                    cy + (shoulder + (point - shoulder) * math.sin(ang) ** 0.7) * s))
    pts.append((cx - w * s, cy + shoulder * s))
    draw.polygon(pts, fill=GAME_COLOURS[colour], outline=INK, width=max(1, round(0.006 * s)))
    text_colour = (255, 255, 255) if colour in LIGHT_TEXT else INK
    draw.text((cx, cy + 0.005 * s), str(block), fill=text_colour, font=art_font("bold", 0.085 * s),
              anchor="mm")


def _badge(draw: ImageDraw.ImageDraw, frame: FaceFrame, points: int) -> None:
    """Side 1's point value in a ring."""
    s = frame.side_px
    cx, _ = frame.centre()
    cy = frame.row(BADGE_ROW)
    r = 0.075 * s
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=INK,
                 width=max(1, round(0.008 * s)))
    draw.text((cx, cy - 0.012 * s), str(points), fill=INK, font=art_font("bold", 0.075 * s),
              anchor="mm")
    draw.text((cx, cy + 0.042 * s), "pts", fill=INK, font=art_font("regular", 0.03 * s),
              anchor="mm")


def _text_colour(colour: str) -> tuple[int, int, int]:
    # white text would vanish on the paper: print a 'white' line in ink
    return INK if colour == "white" else GAME_COLOURS[colour]


def _fit(text: str, style: str, height: float, max_width: float) -> ImageFont.FreeTypeFont:
    font = art_font(style, height)
    width = font.getlength(text)
    if width > max_width:
        font = art_font(style, height * max_width / width)
    return font


_FONT_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf",
               "italic": "DejaVuSans-Oblique.ttf"}


def art_font(style: str, px: float) -> ImageFont.FreeTypeFont:
    """The art's font ('regular', 'bold' or 'italic') at a height of about `px` pixels."""
    return _font_at(style, max(6, round(px)))


@cache
def _font_at(style: str, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(_font_dir() / _FONT_FILES[style]), px)


@cache
def _font_dir() -> Path:
    # matplotlib (a dependency) ships the DejaVu fonts: the same glyphs on every machine
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("matplotlib is needed for its fonts: pip install matplotlib")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


def _hex(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
