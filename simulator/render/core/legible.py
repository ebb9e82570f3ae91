"""The player's picture (`tabletop render --view framed`, the default): what is in play
framed to fill the view, the dice a player reads close up one by one, and every text a
player needs to choose a move drawn in screen space at a cap height of at least 14 px at
1280x720 (issue 37), never as small type painted on the cloth.

A game's window module says what its picture holds (`Layout`): the table points in play
(the camera is framed on them, `simulator.render.core.framing.frame`), the dice measured in the
main view, the dice shown in close-up cells (each seen from straight above by its own
camera), cards pinned to table points (a sector's title, a creature's name, a hex's value),
the banner lines across the top (whose turn, the scores) and the side panel (sheets, the
choices). `draw` renders it with an `OffscreenRenderer` and says what it drew (`Report`:
every die's size in pixels, which cards were drawn), which `tabletop render --json` prints.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from simulator.render.core.camera import OrbitCamera, die_view
from simulator.render.core.framing import MIN_DIE_PX, Box, die_px, frame, screen_box

RGB = tuple[float, float, float]
FONT_PX = 21  # Pillow's default face at 21 px: capitals 15 px high
SMALL_PX = 20  # capitals 14 px: the least any text here is drawn at
CAP_MIN = 14  # px at 1280x720
OFF_FRAME = "roll:"  # dice of a tray roll: framed only when a layout's points say so
SIDE_W = 400  # px of the side panel at 1280 px wide
CELL_GAP = 8
INK = (245, 242, 230)
PANEL_BG = (22, 20, 18)
CARD_BG = (250, 246, 232, 235)
CARD_INK = (20, 18, 16)


@dataclass
class Card:
    """Text on a card pinned to a table point (drawn facing the camera, over the view)."""

    point: tuple[float, float, float]
    lines: list[str]
    colour: RGB = (0.1, 0.1, 0.1)  # the card's rim: an owner's colour
    width_m: float = 0.0  # the piece's width on the table: words wrap to it (0: no wrap)
    below_px: float = 0.0  # drawn this far below the point's projection (its top edge there)


@dataclass
class Layout:
    """What a game's picture holds (module note)."""

    points: list[tuple[float, float, float]]  # in play: the camera frames them
    dice: dict[str, np.ndarray]  # die name -> its corners on the table, measured in view
    cells: list[tuple[str, str]] = field(default_factory=list)  # (die, its label) close up
    cards: list[Card] = field(default_factory=list)
    banner: list[tuple[str, RGB]] = field(default_factory=list)
    side: list[tuple[str, RGB]] = field(default_factory=list)
    heading: float = 0.0
    # Other headings to try: the one that draws the smallest die largest is taken (the
    # first of equals), so a spread along the table's depth turns to the picture's width.
    other_headings: tuple[float, ...] = ()
    pitch: float = -70.0
    fov: float = 35.0
    zoom_floor: bool = True  # draw in until the smallest die is MIN_DIE_PX across
    # The dice of the cells are left out of the main view (drawn large in the panel, not
    # small on the table beside the board); False: they stay where they lie too.
    cells_only: bool = False


@dataclass
class Report:
    """What `draw` drew: each die's size (px) in the main view (None: off the view or
    under the panel) and in its close-up cell, the cards' first lines, the camera."""

    dice: dict[str, dict[str, Any]]
    cards: list[dict[str, Any]]  # each card drawn: its lines and its box (px)
    camera: OrbitCamera
    region: Box

    def as_json(self) -> dict[str, Any]:
        c = self.camera
        return {"dice": self.dice, "cards": self.cards, "min_die_px": MIN_DIE_PX,
                "camera": {"target": list(c.target), "heading": c.heading, "pitch": c.pitch,
                           "distance": round(c.distance, 4), "fov": c.fov},
                "region": list(self.region)}


@functools.cache
def font(px: int) -> Any:
    return ImageFont.load_default(size=px)


def cap_height(px: int) -> int:
    """The height (px) of a capital H in the face drawn at `px`."""
    box = font(px).getbbox("H")
    return int(box[3] - box[1])


def scale_of(size: tuple[int, int]) -> float:
    """Texts grow with the picture past 720 px high (never below their 1280x720 size)."""
    return max(1.0, size[1] / 720)


def rgb255(c: RGB) -> tuple[int, int, int]:
    return (int(255 * c[0]), int(255 * c[1]), int(255 * c[2]))


def draw(renderer: Any, scene: Any, layout: Layout, size: tuple[int, int],
         die_size: dict[str, float]) -> tuple[np.ndarray, Report]:
    """The picture of `layout` drawn by `renderer` (which shows `scene`), and its report.
    `die_size[name]` (m) is a die's width across its corners, for its close-up cell."""
    k = scale_of(size)
    line_h = int(round((FONT_PX + 6) * k))
    f = font(int(round(FONT_PX * k)))
    banner = [(row, colour) for text, colour in layout.banner
              for row in _wrap(text, f, size[0] - 20 * k)]
    # A picture too small for its texts keeps two thirds of its height and half its width
    # for the view (the texts are cut there).
    banner_h = min(int(round(8 * k)) + line_h * max(1, len(banner)), size[1] // 3)
    side_w = min(int(round(SIDE_W * size[0] / 1280)), size[0] // 2)
    region: Box = (0.0, float(banner_h), float(size[0] - side_w), float(size[1]))
    # What is framed: the layout's points and every die drawn in the main view, whole.
    in_cells = {n for n, _label in layout.cells} if layout.cells_only else set()
    pts = np.concatenate([np.asarray(layout.points, dtype=float).reshape(-1, 3),
                          *(np.asarray(c, dtype=float) for n, c in layout.dice.items()
                            if n not in in_cells and not n.startswith(OFF_FRAME))])
    dice = list(layout.dice.values()) if layout.zoom_floor else []
    # A little over the floor: centring the view after the zoom moves the dice a little.
    best: tuple[float, float] | None = None
    measured = [np.asarray(c, dtype=float) for n, c in layout.dice.items() if n not in in_cells
                and not n.startswith(OFF_FRAME)]
    for heading in (layout.heading, *layout.other_headings):
        trial = frame(pts, size, region, heading, layout.pitch, layout.fov, margin=0.025)
        smallest = min((die_px(trial, size, c) for c in measured), default=0.0)
        if best is None or smallest > best[1] + 0.5:
            best = (heading, smallest)
    assert best is not None
    # The floor is 48 px at 720 px high, in proportion in other pictures.
    cam = frame(pts, size, region, best[0], layout.pitch, layout.fov, dice,
                min_die_px=(MIN_DIE_PX + 4) * size[1] / 720, margin=0.025)
    renderer.set_camera(cam)
    hidden = [scene.dice[n] for n, _label in layout.cells if layout.cells_only and n in scene.dice]
    shadows = [nodes.shadow.isHidden() for nodes in hidden]
    for nodes in hidden:
        nodes.pose.hide()
        nodes.shadow.hide()
    main = renderer.render()
    for nodes, shadow_hidden in zip(hidden, shadows, strict=True):
        nodes.pose.show()
        if not shadow_hidden:
            nodes.shadow.show()
    report: dict[str, dict[str, Any]] = {}
    for name, corners in layout.dice.items():
        box = screen_box(cam, size, corners)
        seen = not (layout.cells_only and any(n == name for n, _l in layout.cells)) \
            and box is not None and box[0] >= region[0] and box[1] >= region[1] \
            and box[2] <= region[2] and box[3] <= region[3]
        report[name] = {"view_px": round(die_px(cam, size, corners), 1) if seen else None,
                        "view_box": [round(v, 1) for v in box] if seen and box else None,
                        "cell_px": None}
    # The close-up cells: each die from straight above, the centre square of a full frame.
    cells: list[tuple[Image.Image, str, str]] = []
    cols = 3 if len(layout.cells) > 4 else max(1, min(2, len(layout.cells)))
    cell_px = max(4, int((side_w - (cols + 1) * CELL_GAP) / cols))
    if len(layout.cells) > 6:
        cell_px = max(4, min(cell_px, int(size[1] * 0.16)))
    h = size[1]
    for name, label in layout.cells:
        pos = scene.die_position(name)
        dcam = die_view(pos, die_size[name], size[0] / size[1])
        renderer.set_camera(dcam)
        frame_px = renderer.render()
        left = (size[0] - h) // 2
        square = Image.fromarray(frame_px[:, left:left + h])
        cells.append((square.resize((cell_px, cell_px), Image.Resampling.LANCZOS), name, label))
        seen_corners = layout.dice.get(name)
        if seen_corners is not None:
            report[name]["cell_px"] = round(die_px(dcam, size, seen_corners) * cell_px / h, 1)
    img = Image.fromarray(main)
    drawn_cards = _cards(img, cam, size, region, layout.cards, k,
                         [tuple(d["view_box"]) for d in report.values() if d["view_box"]])
    _panel(img, size, side_w, banner_h, cells, cell_px, cols, layout.side, k)
    _banner(img, size, banner_h, banner, k)
    for entry in report.values():
        shown = [v for v in (entry["view_px"], entry["cell_px"]) if v is not None]
        entry["shown_px"] = max(shown) if shown else None
    return np.asarray(img), Report(report, drawn_cards, cam, region)


def _banner(img: Image.Image, size: tuple[int, int], height: int,
            lines: list[tuple[str, RGB]], k: float) -> None:
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, size[0], height), fill=PANEL_BG)
    f = font(int(round(FONT_PX * k)))
    for i, (text, colour) in enumerate(lines):
        d.text((int(10 * k), int(4 * k) + i * int(round((FONT_PX + 6) * k))), text,
               fill=rgb255(colour) if colour != (1.0, 1.0, 1.0) else INK, font=f)


def _panel(img: Image.Image, size: tuple[int, int], side_w: int, top: int,
           cells: list[tuple[Image.Image, str, str]], cell_px: int, cols: int,
           lines: list[tuple[str, RGB]], k: float) -> None:
    d = ImageDraw.Draw(img)
    x0 = size[0] - side_w
    d.rectangle((x0, top, size[0], size[1]), fill=PANEL_BG)
    f = font(int(round(SMALL_PX * k)))
    y = top + CELL_GAP
    # A label too wide for its cell goes on two lines (every cell's row is as high).
    labels = [[r.strip() for r in _wrap(label, f, cell_px + CELL_GAP)][:2]
              for _cell, _name, label in cells]
    line = int(round((SMALL_PX + 3) * k))
    label_h = line * max((len(rows) for rows in labels), default=1) + int(round(3 * k))
    for i, (cell, _name, _label) in enumerate(cells):
        r, c = divmod(i, cols)
        cx = x0 + CELL_GAP + c * (cell_px + CELL_GAP)
        cy = y + r * (cell_px + CELL_GAP + label_h)
        img.paste(cell, (cx, cy))
        d.rectangle((cx - 1, cy - 1, cx + cell_px, cy + cell_px), outline=INK)
        for j, row in enumerate(labels[i]):
            d.text((cx, cy + cell_px + 2 + j * line), _fit(row, f, cell_px + CELL_GAP),
                   fill=INK, font=f)
    if cells:
        rows = -(-len(cells) // cols)
        y += rows * (cell_px + CELL_GAP + label_h)
    step = int(round((SMALL_PX + 5) * k))
    width = side_w - 2 * CELL_GAP
    for text, colour in lines:
        for row in _wrap(text, f, width):
            if y + step > size[1]:
                return
            d.text((x0 + CELL_GAP, y), row, fill=rgb255(colour) if colour != (1.0, 1.0, 1.0)
                   else INK, font=f)
            y += step


def _cards(img: Image.Image, cam: OrbitCamera, size: tuple[int, int], region: Box,
           cards: list[Card], k: float, dice: Sequence[Box] = ()) -> list[dict[str, Any]]:
    """Each card drawn centred on its point's projection (or `below_px` under it), or at
    the nearest of the places about it (`_card_places`) clear of the cards already drawn
    and of the dice in the view (`dice`: their boxes, px), so that no card hides a die's
    face; where no place is clear of the dice, the one clear of the cards covering them
    least. One whose point is off the view is left out. Returns each drawn: lines and box."""
    d = ImageDraw.Draw(img, "RGBA")
    f = font(int(round(SMALL_PX * k)))
    pad = int(round(4 * k))
    step = int(round((SMALL_PX + 3) * k))
    placed: list[Box] = []
    drawn = []
    for card in cards:
        at = cam.project(card.point, size)
        if at is None or not (region[0] <= at[0] <= region[2] and region[1] <= at[1] <= region[3]):
            continue
        lines = card.lines
        if card.width_m > 0:
            px, py, pz = card.point
            ends = [cam.project((px + sgn * card.width_m / 2, py, pz), size) for sgn in (-1, 1)]
            if ends[0] is not None and ends[1] is not None:
                room = max(f.getlength("M" * 6), abs(ends[1][0] - ends[0][0]) - 2 * pad - 4)
                lines = [row.strip() for line in lines for row in _wrap(line, f, room)]
        w = max(f.getlength(line) for line in lines) + 2 * pad
        h = step * len(lines) + 2 * pad
        cy = at[1] + (card.below_px + h / 2 if card.below_px else 0.0)
        box = _clamp((at[0] - w / 2, cy - h / 2, at[0] + w / 2, cy + h / 2), region)
        best: tuple[float, Box] | None = None
        for trial in _card_places(box, w, h, region):
            if any(_overlap(trial, o) for o in placed):
                continue
            # What a place costs: the dice it covers (px^2) and how far it lies off its own
            # place (CARD_MOVE_COST px^2 a px): a card moves only as far as it uncovers.
            cost = sum(_area(trial, o) for o in dice) \
                + CARD_MOVE_COST * k * math.hypot(trial[0] - box[0], trial[1] - box[1])
            if best is None or cost < best[0]:
                best = (cost, trial)
        if best is not None and best[1] != box:
            box = best[1]
            _leader(d, box, (float(at[0]), float(at[1])), dice, card.colour, k)
        placed.append(box)
        d.rounded_rectangle(box, radius=int(4 * k), fill=CARD_BG,
                            outline=rgb255(card.colour), width=max(2, int(2 * k)))
        for i, line in enumerate(lines):
            d.text((box[0] + pad, box[1] + pad + i * step), line, fill=CARD_INK, font=f)
        drawn.append({"lines": lines, "box": [round(v) for v in box]})
    return drawn


def _leader(d: Any, box: Box, at: tuple[float, float], dice: Sequence[Box], colour: RGB,
            k: float) -> None:
    """A line in the card's rim colour from a card moved off its place toward its point
    `at`, ending where it first meets a die's box (its own die's edge) or at `at`; none
    where that is under 3 px."""
    cx = min(max(at[0], box[0]), box[2])
    cy = min(max(at[1], box[1]), box[3])
    n = 64
    end = (cx, cy)
    for i in range(1, n + 1):
        x, y = cx + (at[0] - cx) * i / n, cy + (at[1] - cy) * i / n
        if any(o[0] <= x <= o[2] and o[1] <= y <= o[3] for o in dice):
            break
        end = (x, y)
    if math.hypot(end[0] - cx, end[1] - cy) >= 3 * k:
        d.line([(cx, cy), end], fill=rgb255(colour), width=max(2, int(2 * k)))


CARD_MOVE_COST = 12.0  # px^2 of dice covered that a card's move of a px is worth
CARD_REACH = 3  # a card moves at most this many of its heights and widths off its place


def _card_places(box: Box, w: float, h: float, region: Box) -> list[Box]:
    """`box` and the places about it, inside `region`, the nearest first: moved by
    quarters of its height up or down and by halves of its width to either side, at most
    CARD_REACH of each."""
    steps = [(dx * w / 2, dy * h / 4) for dx in range(-2 * CARD_REACH, 2 * CARD_REACH + 1)
             for dy in range(-4 * CARD_REACH, 4 * CARD_REACH + 1)]
    steps.sort(key=lambda s: (math.hypot(s[0], 1.5 * s[1]), s[1] < 0, s[0] < 0))
    out: list[Box] = []
    for dx, dy in steps:
        trial = _clamp((box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy), region)
        if trial not in out:
            out.append(trial)
    return out


def _area(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _clamp(box: Box, region: Box) -> Box:
    dx = max(0.0, region[0] - box[0]) - max(0.0, box[2] - region[2])
    dy = max(0.0, region[1] - box[1]) - max(0.0, box[3] - region[3])
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _fit(text: str, f: Any, width: float) -> str:
    while text and f.getlength(text) > width:
        text = text[:-1]
    return text


def _wrap(text: str, f: Any, width: float) -> list[str]:
    out, cur = [], ""
    for word in text.split(" "):
        trial = f"{cur} {word}" if cur else word
        if cur and f.getlength(trial) > width:
            out.append(cur)
            cur = "  " + word
        else:
            cur = trial
    out.append(cur)
    return out
