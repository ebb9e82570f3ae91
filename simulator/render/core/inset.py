"""The close-up inset of the last throw or roll: the die just thrown is legible (a paper
d8's top about 60 px across at 1280x720) whatever the main camera shows. One die (or more
than INSET_CELLS) is framed by one camera; a roll of several dice is shown die by die, each
in a cell seen from above (framing all of a tray's dice at once showed a 16 mm d6 18-20 px
wide): up to 18 dice (a Deep White Sea die 55 px across or more at 1280x720:
`cell_views`). `Inset` owns the display regions and cameras; Panda3D is imported when one
is made.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from simulator.render.core.camera import OrbitCamera, closeup_view, die_view
from simulator.render.core.offscreen import apply_camera

# Where (left, right, bottom, top: fractions of the window): at the right, under the first
# seat panels and over the choices column, where it hides the table least.
INSET = (0.67, 0.99, 0.42, 0.72)
INSET_FRAME_PX, INSET_FRAME_COLOUR = 2, (0.96, 0.95, 0.9, 1.0)
INSET_CELLS = 18  # dice shown cell by cell, at most (a Deep White Sea die 55 px or more)
# (at 8, Deep White Sea's close-up of the dice its view does not hold dropped the ninth and
# after: issue 37; its two crews are 10 dice, at 19 a cell holds a die 47-48 px across)
MAIN_ONLY_BIT = 20  # `node.hide(main_only())` hides a node from the main view, not from here

Rect = tuple[float, float, float, float]


def main_only() -> Any:
    """The camera mask of the main view alone: a die shown in the close-up only (D-Day's
    six) is hidden with it, so the main view does not draw it small beside its close-up."""
    from panda3d.core import BitMask32

    return BitMask32.bit(MAIN_ONLY_BIT)


def inset_cells(n: int, win_size: tuple[int, int] = (1280, 720)) -> list[Rect]:
    """The inset's cells (left, right, bottom, top in window fractions) for n dice, in
    reading order: one row of up to four, two rows up to eight; more, in the rows whose
    cells' narrower side is longest in a window of `win_size` (a die fills that side: 9 or
    10 dice in 2 rows of 5, 11 to 15 in 3 rows, 16 to 18 in 3 rows of 6 at 1280x720)."""
    if n <= 8:
        cols = n if n <= 4 else math.ceil(n / 2)
    else:
        iw, ih = inset_size(win_size)
        cols = max((math.ceil(n / r) for r in range(1, n + 1)),
                   key=lambda c: (min(iw / c, ih / math.ceil(n / c)), -c))
    rows = math.ceil(n / cols)
    w, h = (INSET[1] - INSET[0]) / cols, (INSET[3] - INSET[2]) / rows
    return [(INSET[0] + c * w, INSET[0] + (c + 1) * w, INSET[3] - (r + 1) * h, INSET[3] - r * h)
            for k in range(n) for r, c in [divmod(k, cols)]]


# A die kept clear of its cell's captions (`die_between`): this many px between them.
CAPTION_GAP_PX = 2.0


def caption_lines(n: int, win_size: tuple[int, int] = (1280, 720)) -> int:
    """The lines of caption (at CAPTION_MIN_SCALE, an em each) a cell of `n` dice
    (`inset_cells`) holds beside a die MIN_DIE_PX across: 3 (a name on two lines, a side
    line) up to 10 dice at 1280x720, 1 from 11 (three rows of cells 72 px high: a name, a
    48 px die and a side line overlapped by up to 798 px^2)."""
    from simulator.render.core.framing import MIN_DIE_PX

    h = win_size[1]
    tall = min(top - bottom for _l, _r, bottom, top in inset_cells(n, win_size)) * h
    return max(0, int((tall - MIN_DIE_PX - 2 * CAPTION_GAP_PX) // (CAPTION_MIN_SCALE * h / 2)))
Fit = tuple[list[Any], list[tuple[float, float]]]  # the dice's corners, the captions' room
# A cell's captions, over its die and under it, and optionally their ink (r, g, b).
Caption = tuple[str, str] | tuple[str, str, tuple[float, float, float]]


def caption_ink(caption: Caption) -> tuple[float, float, float, float]:
    """The colour a cell's captions are drawn in: their own, else white."""
    if len(caption) == 3:
        return (*caption[2], 1.0)
    return (1.0, 1.0, 1.0, 1.0)


def cell_views(points: list[tuple[float, float, float]], die_size: float,
               win_size: tuple[int, int], fit: Fit | None = None
               ) -> list[tuple[OrbitCamera, Rect, tuple[int, int]]]:
    """Each die at `points` in its cell (`inset_cells`): the camera seeing it from above,
    the cell (window fractions) and the cell's size (px). With `fit` (each die's corners
    and the px its captions take from the cell's top and foot), each die between its
    captions (`die_between`)."""
    w, h = win_size
    out = []
    for k, (point, box) in enumerate(zip(points, inset_cells(len(points), win_size),
                                         strict=True)):
        size = (max(1, round(w * (box[1] - box[0]))), max(1, round(h * (box[3] - box[2]))))
        cam = die_view(point, die_size, size[0] / size[1]) if fit is None \
            else die_between(point, fit[0][k], die_size, size, fit[1][k])
        out.append((cam, box, size))
    return out


def die_between(point: tuple[float, float, float], corners: Any, die_size: float,
                size: tuple[int, int], room: tuple[float, float]) -> OrbitCamera:
    """The camera of a cell `size` px showing from above the die at `point` (its
    `corners`) between its captions, which take `room` px from the cell's top and foot:
    as large as `die_view` shows it, or smaller to fit between them but never under
    MIN_DIE_PX across, its middle in the middle of the room left (where that is less
    than MIN_DIE_PX, the die overlaps both captions alike: Deep White Sea's cells from 11
    dice at 1280x720 have one line of caption, `caption_lines`).
    (Framed to fill the cell, Deep White Sea's dice lay under their two-line names, 1242
    px^2 at 9 dice.)"""
    from simulator.render.core.framing import MIN_DIE_PX, screen_box

    w, h = size
    aspect = w / h
    top, foot = room
    gap = h - top - foot
    zoom, cam = 1.0, die_view(point, die_size, aspect)
    for _ in range(3):  # measured again after each move: the die seen off the lens's axis
        box = screen_box(cam, size, corners)
        if box is None:
            return cam
        tall, across = max(box[3] - box[1], 1e-9), max(box[2] - box[0], box[3] - box[1], 1e-9)
        new = min(1.0, max(zoom * gap / tall, zoom * (MIN_DIE_PX + 0.5) / across))
        down = (top + gap / 2 - h / 2) - (box[1] + box[3] - h) / 2 * new / zoom
        half = die_size / new / 2 / min(1.0, aspect)  # m the cell's half height shows
        _right, up, _fwd = cam.basis()
        target = np.asarray(cam.target, dtype=float) + up * down * 2 * half / h
        zoom, cam = new, replace(die_view(point, die_size / new, aspect),
                                 target=(float(target[0]), float(target[1]), float(target[2])))
    return cam


def inset_box(win_size: tuple[int, int]) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom px from the window's top left) the close-up and
    its frame cover: what is drawn there of the table is hidden."""
    w, h = win_size
    fx, fy = INSET_FRAME_PX, INSET_FRAME_PX
    return (INSET[0] * w - fx, (1 - INSET[3]) * h - fy, INSET[1] * w + fx, (1 - INSET[2]) * h + fy)


def inset_size(win_size: tuple[int, int]) -> tuple[int, int]:
    """The inset's size in pixels in a window of `win_size`."""
    w, h = win_size
    return (round(w * (INSET[1] - INSET[0])), round(h * (INSET[3] - INSET[2])))


# A cell's caption: at PIN_SCALE where it fits, else smaller down to CAPTION_MIN_SCALE
# (capitals 14 px at 720 px: the face's H is 0.825 em), on lines broken only between words.
CAPTION_MIN_SCALE = 0.048
CAPTION_SCALES = (0.056, 0.052, CAPTION_MIN_SCALE)


def _rows(words: list[str], fits: Any) -> list[str]:
    """`words` on lines as long as `fits` allows (a line of one word whatever its width)."""
    rows: list[str] = []
    for word in words:
        if rows and fits(f"{rows[-1]} {word}"):
            rows[-1] = f"{rows[-1]} {word}"
        else:
            rows.append(word)
    return rows


def fit_caption(text: str, width: float, lines: int, measure: Any,
                scales: tuple[float, ...] = CAPTION_SCALES, lead: bool = False
                ) -> tuple[str, float]:
    """`text` as a cell `width` units wide shows it on at most `lines` lines, broken only
    between words, and its scale: the largest of `scales` at which it fits; where
    none does, at CAPTION_MIN_SCALE a word wider than the cell is cut ("Shoalwar.") and
    then the longest words become initials ("S. G. Otto Kask") until it fits. `measure`
    gives a text's width in ems (the face's `calcWidth`). ('Frostcaller Bram' in a 9-dice
    cell was wrapped inside its words, 'Frostcall' / 'er Bram', and 'P1, side 2' on two
    lines.) With `lead` (a cell's lone line, "Shoal Caller Iben 7"), before any word is
    cut its leading words are left out, down to the last two ("Caller Iben 7", "Iben 7"),
    and the last is never cut: the side a die shows stays whole."""
    words = text.split()
    if not words:
        return "", scales[0]
    for scale in scales:
        def fits(t: str, scale: float = scale) -> bool:
            return measure(t) * scale <= width
        rows = _rows(words, fits)
        if len(rows) <= lines and all(fits(r) for r in rows):
            return "\n".join(rows), scale

    def fit(t: str) -> bool:
        return measure(t) * CAPTION_MIN_SCALE <= width

    if lead:
        def fits_whole(ws: list[str]) -> bool:
            rows = _rows(ws, fit)
            return len(rows) <= lines and all(fit(r) for r in rows)

        while len(words) > 2 and not fits_whole(words):
            words = words[1:]
        while not fits_whole(words) and len(words) > 1 and len(words[0].rstrip(".")) > 2:
            words[0] = words[0].rstrip(".")[:-1] + "."  # "Serenne 6" -> "Seren. 6"
        return "\n".join(_rows(words, fit)[:lines]), CAPTION_MIN_SCALE
    for k, word in enumerate(words):
        while not fit(words[k]) and len(words[k]) > 2:
            word = word[:-1]
            words[k] = word + "."
    while len(rows := _rows(words, fit)) > lines:
        whole = [k for k, w in enumerate(words) if len(w) > 2 and not w.endswith(".")]
        if not whole:
            break
        k = max(whole, key=lambda k: measure(words[k]))
        words[k] = words[k][0] + "."
    return "\n".join(rows[:lines]), CAPTION_MIN_SCALE


def fit_captions(captions: list[tuple[str, str]], widths: list[float], measure: Any
                 ) -> list[tuple[str, float]]:
    """Each of the cells' captions (over the die, under it; the cells `widths` units wide)
    fitted (`fit_caption`: the name on two lines at most, the other on one; a line under
    the die with none over it keeps its last words, `lead`), all at the scale the smallest
    of them needs (the cells read alike)."""
    texts = [(t, wd, 2 - j, j == 1 and not pair[0]) for (pair, wd) in zip(captions, widths,
                                                                          strict=True)
             for j, t in enumerate(pair)]
    least = min((fit_caption(t, wd, n, measure, lead=lone)[1] for t, wd, n, lone in texts),
                default=0.0)
    scales = tuple(s for s in CAPTION_SCALES if s <= least) or (CAPTION_MIN_SCALE,)
    return [fit_caption(t, wd, n, measure, scales, lone) for t, wd, n, lone in texts]


class Inset:
    """The inset's display regions on `output` (`base.win`, or the buffer the window's
    scene is drawn into before simplepbr tone-maps it onto the window): a pale frame, one
    region for a single camera and INSET_CELLS cells, all off until `update` shows
    something."""

    def __init__(self, base: Any, background: tuple[float, float, float, float],
                 win_size: tuple[int, int], output: Any = None) -> None:
        from panda3d.core import Camera, NodePath, PerspectiveLens

        self.base = base
        self.output = win = output if output is not None else base.win

        def camera(name: str) -> tuple[Any, Any]:
            lens = PerspectiveLens()
            lens.setNearFar(0.01, 30.0)
            node = Camera(name)
            node.setLens(lens)
            node.setCameraMask(node.getCameraMask() & ~main_only())  # sees what the main hides
            return base.render.attachNewNode(node), lens

        def region(box: Rect, sort: int, colour: tuple[float, ...], cam: Any) -> Any:
            r = win.makeDisplayRegion(*box)
            r.setSort(sort)
            r.setClearColorActive(True)
            r.setClearColor(colour)
            r.setCamera(cam)
            r.setActive(False)
            return r

        self._np, self._lens = camera("inset-camera")
        # A region a little larger that only clears (its camera looks at an empty scene),
        # so the close-up does not read as part of the table.
        fx, fy = INSET_FRAME_PX / win_size[0], INSET_FRAME_PX / win_size[1]
        self._frame = region((INSET[0] - fx, INSET[1] + fx, INSET[2] - fy, INSET[3] + fy), 19,
                             INSET_FRAME_COLOUR,
                             NodePath("inset-frame").attachNewNode(Camera("inset-frame-camera")))
        self._region = region(INSET, 20, background, self._np)
        self._region.setClearDepthActive(True)
        self._cells: list[tuple[Any, Any, Any]] = []  # (region, camera node, lens)
        for _k in range(INSET_CELLS):
            cam_np, lens = camera("inset-cell-camera")
            cell = region(INSET, 21, background, cam_np)
            cell.setClearDepthActive(True)
            self._cells.append((cell, cam_np, lens))
        self.captions: list[Any] = []  # OnscreenText over and under each cell (`caption`)
        self._layer: tuple[Any, Any, Any] | None = None  # their 2D scene (`_caption_layer`)
        self.camera: OrbitCamera | None = None  # the close-up shown, None when off
        # What it shows: (camera, cell in window fractions, cell size px) per die of the
        # last roll in the order given, or one camera framing them all.
        self.views: list[tuple[OrbitCamera, Rect, tuple[int, int]]] = []
        # The dice the captions keep clear of and the room the captions take (`caption`).
        self._fit: Fit | None = None
        self._rooms: tuple[Any, list[tuple[float, float]]] = (None, [])

    def update(self, points: list[tuple[float, float, float]], die_size: float,
               win_size: tuple[int, int]) -> None:
        """Show the dice at `points` (none: the inset goes off); `die_size` (m) is a die's
        width across, for framing."""
        for cell, _np, _lens in self._cells:
            cell.setActive(False)
        if not points:
            self.camera = None
            self.views = []
            self._region.setActive(False)
            self._frame.setActive(False)
            return
        size = inset_size(win_size)
        # One die: from straight above, as large as the inset's height (`die_view`): framed
        # as a group of dice (`closeup_view`, 62 deg down, a die's width round it) a lone
        # die filled a third of the height, and in a d6 tray its near wall could hide it.
        self.camera = (die_view(points[0], die_size, size[0] / size[1]) if len(points) == 1
                       else closeup_view(points, die_size, size[0] / size[1]))
        self._frame.setActive(True)
        if len(points) == 1 or len(points) > INSET_CELLS:  # one die, or too many for cells
            apply_camera(self._np, self._lens, self.camera, size)
            self._region.setActive(True)
            self.views = [(self.camera, INSET, size)]
            return
        self._region.setActive(False)
        fit = self._fit if self._fit is not None and len(self._fit[0]) == len(points) else None
        self.views = cell_views(points, die_size, win_size, fit)
        for (cam, box, cell_size), (cell, cam_np, lens) in zip(self.views, self._cells,
                                                               strict=False):
            cell.setDimensions(*box)
            apply_camera(cam_np, lens, cam, cell_size)
            cell.setActive(True)

    def caption(self, captions: Sequence[Caption], win_size: tuple[int, int],
                dice: list[Any] | None = None) -> None:
        """Each cell's caption, (over the die, under it) and its ink where it names one
        (white unless), for the cells of `len(captions)` dice (`inset_cells`) at capitals
        14 px or more (the name on two lines at most, the other on one: `fit_caption`);
        none: they are hidden. A text is set only when it changes (the window calls this
        every frame). With `dice` (each cell's die's corners), the next `update` puts each
        die between its captions (`die_between`)."""
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        from simulator.render.core.pins import PIN_SCALE

        texts = self.captions
        w, h = win_size
        layer = self._caption_layer(w / h)
        while len(texts) < 2 * len(captions):
            texts.append(OnscreenText(text="", scale=PIN_SCALE, fg=(1, 1, 1, 1),
                                      shadow=(0, 0, 0, 1), align=TextNode.ACenter,
                                      mayChange=True, parent=layer))
        boxes = inset_cells(len(captions), win_size) if captions else []
        fitted = fit_captions([(c[0], c[1]) for c in captions],
                              [(b[1] - b[0]) * 2 * w / h * 0.96 for b in boxes],
                              texts[0].textNode.calcWidth if texts else len)
        for k, node in enumerate(texts):
            if k >= 2 * len(captions):
                node.hide()
                continue
            left, right, bottom, top = boxes[k // 2]
            x = ((left + right) - 1) * w / h  # aspect2d x of the cell's middle
            text, scale = fitted[k]
            # A lone line's baseline a little higher: its name's descenders ('Varga') ran
            # 1.1 px past the cell's foot.
            foot = 0.38 if not captions[k // 2][0] else 0.3
            y = 2 * top - 1 - scale * 0.95 if k % 2 == 0 else 2 * bottom - 1 + scale * foot
            if node.getText() != text:
                node.setText(text)
                node["scale"] = scale
            ink = caption_ink(captions[k // 2])
            if tuple(node.fg) != ink:
                node.fg = ink
            node.setPos(x, y)
            node.show()
        self._fit = None
        if dice is not None and len(dice) == len(captions) and captions:
            self._fit = (list(dice), self._caption_rooms(captions, boxes, win_size))

    def _caption_rooms(self, captions: Sequence[Caption], boxes: list[Rect],
                       win_size: tuple[int, int]) -> list[tuple[float, float]]:
        """The px each cell's captions, as placed, take from its top and its foot (and
        CAPTION_GAP_PX; with none over its die, CAPTION_GAP_PX from its top: the die framed
        against the top edge lay 0.02 px past it), measured once for each set of captions
        and window size."""
        key = (list(captions), win_size)
        if self._rooms[0] == key:
            return self._rooms[1]
        w, h = win_size
        root = self._caption_layer(w / h)
        rooms = []
        for k, (_left, _right, bottom, top) in enumerate(boxes):
            over, under = (self.captions[2 * k + j] for j in (0, 1))
            a = over.getTightBounds(root) if over.getText() else None
            b = under.getTightBounds(root) if under.getText() else None
            rooms.append((CAPTION_GAP_PX if a is None else (1 - a[0].z) / 2 * h - (1 - top) * h
                          + CAPTION_GAP_PX,
                          0.0 if b is None else (1 - bottom) * h - (1 - b[1].z) / 2 * h
                          + CAPTION_GAP_PX))
        self._rooms = (key, rooms)
        return rooms

    def shown_captions(self) -> list[str]:
        """The captions on screen now, in order (over and under each cell)."""
        return [t.getText() for t in self.captions if not t.isHidden()]

    def _caption_layer(self, aspect: float) -> Any:
        """The 2D scene the cells' captions are drawn in: over the close-up's display
        regions (drawn after the HUD's, they would cover texts in aspect2d), in aspect2d's
        units (x -aspect..aspect, y -1..1), on the window itself."""
        from panda3d.core import Camera, NodePath, OrthographicLens

        if self._layer is None:
            root = NodePath("close-up-captions")
            root.setDepthTest(False)
            root.setDepthWrite(False)
            lens = OrthographicLens()
            lens.setNearFar(-10, 10)
            cam = Camera("close-up-captions-camera")
            cam.setLens(lens)
            region = self.base.win.makeDisplayRegion()
            region.setSort(30)
            region.setCamera(root.attachNewNode(cam))
            self._layer = (root, lens, region)
        root, lens, _region = self._layer
        lens.setFilmSize(2 * aspect, 2)
        return root

    def remove(self) -> None:
        if self._layer is not None and self.base.win is not None:
            self.base.win.removeDisplayRegion(self._layer[2])
            self._layer = None
        win = self.output
        win.removeDisplayRegion(self._region)
        win.removeDisplayRegion(self._frame)
        for cell, _np, _lens in self._cells:
            win.removeDisplayRegion(cell)
