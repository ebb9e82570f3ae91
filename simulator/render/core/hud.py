"""The window's heads-up display: the status lines, one panel per seat, the last events, a
banner for news, the choices column (buttons with number keys, paged when long), the
prompt, the F1 help and the game-over screen with its 'start again' button.

`Hud` owns the Panda3D widgets and shows what it is given; what the texts say is the game
window's business (`GameWindow.refresh_texts`). Panda3D is imported only when a `Hud` is
made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator.render.core.framing import Box  # left, top, right, bottom (px, y down)

MAX_CHOICES = 7  # buttons in the choices column; a longer list pages (the last says 'more')
MORE = object()  # the `arm` of the "more choices" line (nothing a game arms)
BANNER_S = 4.0  # s a banner of news stays up
SEATS = 8  # seat panels at most
# Where the HUD's columns are, in aspect2d units (y up, -1..1; x from the window's left or
# right edge, which is at -+1.78 at 16:9 and follows a resize). The right column holds the
# second seat's panel at the top, the close-up inset below it (window fractions 0.42-0.72 of
# the height: y -0.16..0.44) and the choices under the inset.
EDGE, BUTTON_EDGE = 0.04, 0.058  # the texts' and the buttons' distance from the edge
PANEL_TOP, PANEL_SPACING = 0.78, 0.3
PANELS_BOTTOM = -0.27  # the lowest panel's first line: the log starts at -0.52
CHOICES_TOP, CHOICE_STEP = -0.24, 0.085  # the first button's text, under the inset
# Whose turn (the status), the choices, the seat panels and the log: capitals 14 px at 720
# px high (issue 37; the panels and the log were 0.034 and 0.032, capitals 8-9 px).
STATUS_SCALE = CHOICE_SCALE = PANEL_SCALE = LOG_SCALE = 0.056
LINE_H = 0.9875 * PANEL_SCALE  # a line of the default face at that size (aspect2d units)
PANEL_WIDTH = 36  # characters a panel's line wraps at (about 0.96 units wide)
PANEL_MOST = 6  # lines of a panel when two seats face each other (the right one above the inset)
# The log: its last LOG_LINES rows of LOG_WIDTH characters at the window's foot, its first
# row's baseline at LOG_TOP (over the table's near edge: at 14 px, 8 rows from -0.52 lay
# over D-Day's landing sectors).
LOG_LINES, LOG_WIDTH = 5, 42
LOG_TOP = -1.0 + (LOG_LINES - 1) * LINE_H + 0.035
LOG_XS = (EDGE, 0.5, 1.0, 1.5, 2.0, 2.5)  # where along the foot the log may go (from the left)
# Where the foot has no room (DiceWar's set-up at a person's turn: the choices reach the
# foot at the right, the prompt lies in the middle, the Reserve row at the left): the log
# narrower and taller, anywhere clear, tried from the foot up and from the left.
LOG_NARROW = ((28, 7), (22, 8))  # (characters a row, rows)
LOG_FINE = tuple((x / 20, -1.0 + y / 20) for y in range(2, 38) for x in range(0, 67))
BACKING = (0.05, 0.05, 0.08, 0.8)  # the card behind the panels and the log: seat colours
# (D-Day's red) read against the felt and the sand of the map
INSPECT_SCALE, INSPECT_WIDTH = 0.056, 62  # the inspect card's text size and line length
INSPECT_TOP = 0.42  # the card's first baseline where nothing it must keep clear of is
# Where else the card may go (its first baseline, from the window's left edge), tried in
# turn from the top left: the first place whose box covers neither the piece clicked nor a
# panel, the status, the log, the choices or the close-up inset, nor another piece, is the
# card's.
INSPECT_XS = (EDGE, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)  # past the window's right: not tried
INSPECT_YS = (INSPECT_TOP, 0.62, 0.22, 0.02, -0.18, -0.38, -0.58, 0.8)
# Where none of those is clear (Deep White Sea's framed view fills the window with dice
# and HUD: the card at 62 characters, about 550 x 265 px, lay over a die or a panel in
# each of 11 clicks in two states): a finer grid, with the card narrower in turn, two
# characters at a time (at 62, 48, 40 and 34 only, a card of a die's eight sides, about
# 20 lines, found no place clear of the dice and the status in 2 of 6 clicks at Deep White
# Sea's seed 0 turn 14; narrower it fits between the status and the close-up).
INSPECT_FINE = tuple((x / 20, y / 20) for y in range(19, -20, -1) for x in range(0, 67))
INSPECT_NARROW = (INSPECT_WIDTH, *range(56, 27, -2))
# The prompt ("click the sector to move to ..."): capitals 14 px too (it was 0.036, capitals
# 10.7 px), its lines of PROMPT_WIDTH characters under the table's middle (x from the
# window's middle), its last line above the window's foot; where that covers a choice's
# button or a text pinned to the table (D-Day's units' sheets lay over it), the first clear
# place lower and further left, then anywhere below the middle.
PROMPT_SCALE, PROMPT_WIDTH, PROMPT_TOP = 0.056, 44, -0.7
PROMPT_FINE = tuple((-0.3 - x / 20, -y / 20) for y in range(14, 20) for x in range(0, 30)) \
    + tuple((x / 20 - 1.75, -y / 20) for y in range(2, 20) for x in range(0, 67))
# Where pieces are to be kept clear of too (`in_play`) and none of those is: above the
# middle, from the middle up (Deep White Sea's top view zoomed in on the person's half of
# the table while aiming: every place below the middle lay over a die or its name).
PROMPT_HIGH = tuple((x / 20 - 1.75, y / 20) for y in range(-1, 20) for x in range(0, 67))


def overlap(a: Box, b: Box) -> float:
    """The area (px^2) two boxes share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _covered(boxes: Any, others: list[Box]) -> Any:
    """For each of `boxes` (n, 4 numpy), the area (px^2) it shares with `others` in all."""
    if not others:
        return np.zeros(len(boxes))
    o = np.asarray(others, dtype=float)
    dx = np.minimum(boxes[:, None, 2], o[None, :, 2]) - np.maximum(boxes[:, None, 0], o[None, :, 0])
    dy = np.minimum(boxes[:, None, 3], o[None, :, 3]) - np.maximum(boxes[:, None, 1], o[None, :, 1])
    return (np.clip(dx, 0, None) * np.clip(dy, 0, None)).sum(axis=1)


# The game-over line's heights tried (aspect2d units: its first place the window's middle,
# then above it and below it); 'start again' OVER_GAP under it.
OVER_YS, OVER_GAP = (0.15, 0.45, 0.6, -0.25, -0.45, -0.65, 0.3, -0.05), 0.17


def panel_room(n: int) -> int:
    """How many lines each of n seat panels holds (a longer panel is cut, its last line
    ending in '...'): PANEL_MOST for two seats, else as many as their spacing down the left
    side leaves (D-Day's 4 units 5, Diced's 8 seats 2)."""
    if n <= 2:
        return PANEL_MOST
    step = min(PANEL_SPACING, (PANEL_TOP - PANELS_BOTTOM) / (n - 1))
    return max(1, int((step + 0.01) / LINE_H))


def fit_panel(text: str, room: int) -> str:
    """A panel's text wrapped to PANEL_WIDTH and cut to `room` lines."""
    lines = wrap_lines(text, PANEL_WIDTH)
    if len(lines) > room:
        lines = [*lines[:room - 1], lines[room - 1][:PANEL_WIDTH - 3].rstrip() + "..."]
    return "\n".join(lines)


def log_rows(lines: list[str], width: int, rows: int) -> str:
    """The log's text: the last `rows` rows of its last lines wrapped to `width`."""
    out = [row for line in lines[-rows:] for row in wrap_lines(line, width)]
    return "\n".join(out[-rows:])


def wrap_lines(text: str, width: int) -> list[str]:
    """Each line of `text` wrapped to `width` (continuations indented)."""
    return [row for line in text.split("\n") for row in wrap(line, width).split("\n")]


def panel_places(n: int) -> list[tuple[bool, float]]:
    """(on the left, y) of n seat panels: two seats face each other at the top left and
    top right; more go down the left side (closer together past four), since the right side
    under its top panel is the close-up inset's (with 8 Diced seats three panels on the right
    were hidden behind it)."""
    if n <= 2:
        return [(True, PANEL_TOP), (False, PANEL_TOP)][:n]
    step = min(PANEL_SPACING, (PANEL_TOP - PANELS_BOTTOM) / (n - 1))
    return [(True, PANEL_TOP - k * step) for k in range(n)]


@dataclass
class Choice:
    """One line of the choices column: an engine action to apply, or a game-specific
    `arm` (a die to throw, a piece to place) the game's window handles."""

    label: str
    action: Any | None = None
    arm: Any | None = None


def page_of(everything: list[Choice], page: int) -> tuple[list[Choice], int]:
    """The choices shown and the page number: all of them, or one page of MAX_CHOICES - 1
    and a line that turns to the next (pages wrap round)."""
    if len(everything) <= MAX_CHOICES:
        return list(everything), 0
    per = MAX_CHOICES - 1
    pages = -(-len(everything) // per)
    page %= pages
    return ([*everything[page * per:(page + 1) * per],
             Choice(f"more... (page {page + 1} of {pages})", arm=MORE)], page)


def wrap(text: str, width: int) -> str:
    """`text` broken into lines of at most `width` characters (continuations indented)."""
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = "    " + w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return "\n".join(lines)


class Hud:
    """The HUD's widgets on `base.aspect2d`. `on_button(i)` is called for a click on the
    i-th button of the choices column, `on_again()` for 'start again'."""

    def __init__(self, base: Any, help_text: str, on_button: Callable[[int], None],
                 on_again: Callable[[], None]) -> None:
        from direct.gui import DirectGuiGlobals as DGG
        from direct.gui.DirectButton import DirectButton
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        fg = (0.96, 0.95, 0.9, 1)
        shadow = (0, 0, 0, 0.8)
        parent = base.aspect2d
        # The side columns hang from the window's edges (ShowBase's anchors follow a resize:
        # placed at a 16:9 window's x, a narrower window cut the left column off).
        self._edges = {True: base.a2dLeftCenter, False: base.a2dRightCenter}
        self._base = base
        left, right = self._edges[True], self._edges[False]
        self.status = OnscreenText(text="", pos=(EDGE, 0.92), scale=STATUS_SCALE, fg=fg,
                                   shadow=shadow,
                                   align=TextNode.ALeft, mayChange=True, parent=left)
        self.panels = []
        self._left, self._right = TextNode.ALeft, TextNode.ARight
        for _i in range(SEATS):
            self.panels.append(OnscreenText(
                text="", pos=(EDGE, PANEL_TOP), scale=PANEL_SCALE, fg=fg, shadow=shadow,
                bg=BACKING,
                align=TextNode.ALeft, mayChange=True, parent=left))
        self.log = OnscreenText(text="", pos=(EDGE, LOG_TOP), scale=LOG_SCALE, fg=fg,
                                shadow=shadow, bg=BACKING,
                                align=TextNode.ALeft, mayChange=True, parent=left)
        self.banner = OnscreenText(text="", pos=(0, 0.8), scale=0.05, fg=(1, 1, 1, 1),
                                   shadow=shadow, align=TextNode.ACenter, mayChange=True,
                                   parent=parent)
        self.banner_until = 0.0  # perf_counter time the banner comes down
        # The choices as buttons down the right side: click one, or press its number key.
        self.buttons = []
        for i in range(MAX_CHOICES + 2):
            self.buttons.append(DirectButton(
                text="", scale=CHOICE_SCALE, pos=(-BUTTON_EDGE, 0, CHOICES_TOP - CHOICE_STEP * i),
                parent=right,
                text_align=TextNode.ARight, text_fg=(1.0, 0.95, 0.75, 1), relief=DGG.FLAT,
                frameColor=(0.05, 0.05, 0.08, 0.7), pad=(0.3, 0.25), command=on_button,
                extraArgs=[i]))
            self.buttons[-1].hide()
        self.prompt = OnscreenText(text="", pos=(-0.3, PROMPT_TOP), scale=PROMPT_SCALE,
                                   fg=(1.0, 0.92, 0.6, 1), shadow=shadow, align=TextNode.ALeft,
                                   mayChange=True, parent=parent)
        # The inspect view of a piece clicked (its card), over the table's left half; its
        # capitals 14 px high at 720 px (a 0.056 em is 20 px; a capital is 0.7 of it).
        self.inspect = OnscreenText(text="", pos=(EDGE, INSPECT_TOP), scale=INSPECT_SCALE, fg=fg,
                                    bg=(0.05, 0.05, 0.08, 0.88), shadow=shadow,
                                    align=TextNode.ALeft, mayChange=True, parent=left)
        self.inspect.hide()
        self._log_lines: list[str] = []  # the log's last lines before they are wrapped
        self._prompt: tuple[list[str], Sequence[Any]] = ([], ())  # place_prompt's lines, texts
        self._inspect_lines: list[str] = []  # the card's lines before they are wrapped
        self.help = OnscreenText(text=help_text, pos=(0, 0.7), scale=0.038, fg=fg,
                                 bg=(0.05, 0.05, 0.08, 0.85), shadow=shadow,
                                 align=TextNode.ACenter, mayChange=True, parent=parent)
        self.help.hide()
        self.over = OnscreenText(text="", pos=(0, 0.15), scale=0.085, fg=(1, 0.9, 0.5, 1),
                                 bg=(0.05, 0.05, 0.08, 0.8), shadow=shadow,
                                 align=TextNode.ACenter, mayChange=True, parent=parent)
        self.over.hide()
        self.again = DirectButton(text="Start again (R)", scale=0.06, pos=(0, 0, -0.02),
                                  parent=parent, relief=DGG.FLAT,
                                  text_fg=(1.0, 0.95, 0.75, 1), frameColor=(0.1, 0.3, 0.15, 0.9),
                                  pad=(0.4, 0.3), command=on_again)
        self.again.hide()

    def show(self, status: str, panels: list[tuple[str, tuple[float, float, float]]],
             log_lines: list[str], labels: list[str], prompt_lines: list[str],
             over: str | None, again: bool, keep_clear: Sequence[Any] = ()) -> None:
        """Set every text: the status, the seats' panels (each cut to the lines it has room
        for), the log's last LOG_LINES lines, the button labels (the rest hidden), the last 8
        prompt lines (clear of the buttons and of `keep_clear`: `place_prompt`), the
        game-over line (None: off) and whether 'start again' is offered."""
        self.status.setText(status)
        places = panel_places(min(len(panels), SEATS))
        room = panel_room(len(places))
        for i, label in enumerate(self.panels):
            if i < len(places):
                text, colour = panels[i]
                on_left, y = places[i]
                label.reparentTo(self._edges[on_left])
                label["pos"] = (EDGE if on_left else -EDGE, y)
                label.setAlign(self._left if on_left else self._right)
                label.setText(fit_panel(text, room))
                label["fg"] = (*colour, 1)
                label.show()
            else:
                label.hide()
        self._log_lines = list(log_lines[-max(n for _w, n in LOG_NARROW):])
        self.log.setText(log_rows(self._log_lines, LOG_WIDTH, LOG_LINES))
        for i, button in enumerate(self.buttons):
            if i < len(labels):
                button["text"] = labels[i]
                button.resetFrameSize()
                button.show()
            else:
                button.hide()
        self.place_prompt(prompt_lines[-8:], keep_clear)
        if over is not None:
            self.over.setText(f"Game over: {over}")
            self.over.show()
        else:
            self.over.hide()
        if again:
            self.again.show()
        else:
            self.again.hide()

    def news(self, lines: list[str], now: float) -> None:
        """Put the last three lines of news up for BANNER_S."""
        self.banner.setText("\n".join(wrap(e, 80) for e in lines[-3:]))
        self.banner_until = now + BANNER_S

    def tick(self, now: float) -> None:
        """Take the banner down once its time is up (each frame)."""
        if now > self.banner_until and self.banner.getText():
            self.banner.setText("")

    def place_prompt(self, lines: list[str], keep_clear: Sequence[Any] = (),
                     in_play: Sequence[Box] = ()) -> None:
        """The prompt's `lines` (wrapped to PROMPT_WIDTH) at (-0.3, PROMPT_TOP), or higher
        where its last line would leave the window; where it covers one of the choices'
        buttons, of the texts `keep_clear` (widgets shown: the pinned labels) or of the
        boxes `in_play` (px: the d6 games' pieces, Deep White Sea's dice and HUD blocks),
        at the first place of PROMPT_FINE clear of them; with `in_play`, then of
        PROMPT_HIGH, and where none is clear, the one covering `in_play` and the buttons
        least, then the pinned texts (without: where it was)."""
        self._prompt = (list(lines), keep_clear)
        text = "\n".join(wrap(line, PROMPT_WIDTH) for line in lines)
        self.prompt.setText(text)
        rows = text.count("\n") + 1
        home = (-0.3, max(PROMPT_TOP, -1.0 + 0.035 + (rows - 1) * LINE_H))
        buttons = self.button_boxes()
        pins = [b for n in keep_clear if not n.isHidden() and (b := self.box_px(n))]
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        places = [home, *PROMPT_FINE, *(PROMPT_HIGH if in_play else ())]
        at = self._first_clear(self.prompt, places, [buttons, pins, list(in_play)],
                               (w, h)) if text else None
        if at is None and text and in_play:
            at = self._least_covered(self.prompt, places, [[*in_play, *buttons], pins],
                                     (w, h))
        self.prompt["pos"] = at if at is not None else home

    def prompt_clear_of(self, in_play: Sequence[Box]) -> None:
        """The prompt shown placed again, clear of `in_play` too (`place_prompt`), and the
        game-over line (`place_over`)."""
        self.place_prompt(*self._prompt, in_play)
        self.place_over(in_play)

    def place_over(self, in_play: Sequence[Box]) -> None:
        """The game-over line and its 'start again' button (OVER_GAP under it), when shown,
        at the first of OVER_YS where they cover none of `in_play` (px: the pieces) nor the
        status and the seat panels, else where they cover them least (in the middle of the
        window they lay over Diceland's last armies)."""
        if self.over.isHidden():
            return
        h = self._base.win.getYSize()
        hud = [b for n in (self.status, *self.panels) if not n.isHidden()
               and (b := self.box_px(n)) is not None]
        best: tuple[float, float] | None = None
        for y in OVER_YS:
            self.over["pos"] = (0.0, y)
            self.again.setPos(0.0, 0.0, y - OVER_GAP)
            boxes = [b for n in (self.over, self.again) if not n.isHidden()
                     and (b := self.box_px(n)) is not None]
            if not boxes or min(b[1] for b in boxes) < 0 or max(b[3] for b in boxes) > h:
                continue
            cover = float(_covered(np.asarray(boxes, dtype=float), [*in_play, *hud]).sum())
            if best is None or cover < best[0]:
                best = (cover, y)
            if cover == 0.0:
                break
        y = OVER_YS[0] if best is None else best[1]
        self.over["pos"] = (0.0, y)
        self.again.setPos(0.0, 0.0, y - OVER_GAP)

    def show_inspect(self, lines: list[str] | None, piece: Box | None = None,
                     others: list[Box] | None = None, keep_clear: list[Box] | None = None
                     ) -> None:
        """The inspect view's card (`lines`, wrapped to INSPECT_WIDTH), or none; placed
        clear of `piece` (the piece clicked, its box on the screen) and of `keep_clear` (as
        much as the piece: Deep White Sea's dice), of what the HUD shows and where it can
        of `others` (the other pieces' boxes): `place_inspect`."""
        if not lines:
            self.inspect.setText("")
            self.inspect.hide()
            return
        self._inspect_lines = list(lines)
        self.inspect.setText("\n".join(wrap(line, INSPECT_WIDTH) for line in lines))
        self.inspect.show()
        self.place_inspect([*([] if piece is None else [piece]), *(keep_clear or [])],
                           others or [])

    def box_px(self, node: Any) -> Box | None:
        """The box a widget covers on the screen (px, y down), or None (nothing drawn)."""
        render2d = self._base.render2d
        bounds = node.getTightBounds(render2d)
        if bounds is None and hasattr(node, "guiItem"):
            # A DirectButton has no tight bounds (its text and frame are drawn by its
            # PGItem): its frame's, turned into render2d (the choices were left out so).
            from panda3d.core import Point3

            left, right, bottom, top = node.getBounds()
            bounds = (render2d.getRelativePoint(node, Point3(left, 0, bottom)),
                      render2d.getRelativePoint(node, Point3(right, 0, top)))
        if bounds is None:
            return None
        lo, hi = bounds
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        return ((lo.x + 1) / 2 * w, (1 - hi.z) / 2 * h, (hi.x + 1) / 2 * w, (1 - lo.z) / 2 * h)

    def button_boxes(self) -> list[Box]:
        """The boxes (px) of the choices' buttons shown."""
        return [b for n in self.buttons if not n.isHidden() and (b := self.box_px(n)) is not None]

    def shown_boxes(self, log: bool = True, prompt: bool = True) -> list[Box]:
        """What the card keeps clear of besides the piece: the seat panels, the status, the
        log (unless `log` is False), the prompt (unless `prompt` is False) and the choices
        shown, and the close-up inset's rectangle."""
        from simulator.render.core.inset import INSET

        nodes = [self.status, *([self.log] if log else []), *([self.prompt] if prompt else []),
                 *self.panels, *self.buttons]
        boxes = [b for n in nodes if not n.isHidden() and (b := self.box_px(n)) is not None]
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        left, right, bottom, top = INSET
        return [*boxes, (left * w, (1 - top) * h, right * w, (1 - bottom) * h)]

    def place_log(self, in_play: list[Box]) -> None:
        """The prompt clear of `in_play` too (`place_prompt`), then the log at the window's
        foot: at its left, unless it covers one of `in_play`
        (the boxes of what is in play), then at the first of LOG_XS along the foot where it
        covers none of them nor the HUD (`shown_boxes`); none: at the left (DiceWar's log
        lay over the left half of the Reserve row at the foot)."""
        self.place_prompt(*self._prompt, in_play)  # the prompt first, clear of them too
        self.place_over(in_play)
        hud = self.shown_boxes(log=False)
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        self.log.setText(log_rows(self._log_lines, LOG_WIDTH, LOG_LINES))
        for x in LOG_XS:
            self.log["pos"] = (x, LOG_TOP)
            box = self.box_px(self.log)
            if box is None:
                return
            if box[2] > w:
                break
            if not any(overlap(box, b) for b in (*in_play, *(hud if x != EDGE else ()))):
                return
        if in_play:
            for width, rows in LOG_NARROW:
                self.log.setText(log_rows(self._log_lines, width, rows))
                at = self._first_clear(self.log, LOG_FINE, [in_play, hud], (w, h))
                if at is not None:
                    self.log["pos"] = at
                    return
        self.log.setText(log_rows(self._log_lines, LOG_WIDTH, LOG_LINES))
        self.log["pos"] = (EDGE, LOG_TOP)

    def _moved(self, node: Any, places: Sequence[tuple[float, float]], size: tuple[int, int]
               ) -> tuple[Any, Any] | None:
        """The box (px) `node` covers at each of `places` (numpy, n x 4) and whether each
        lies wholly in a window of `size`; None when it draws nothing. Measured once at
        (0, 0) and moved: a text's box moves with its pos (aspect2d units, h/2 px)."""
        node["pos"] = (0.0, 0.0)
        box0 = self.box_px(node)
        if box0 is None:
            return None
        w, h = size
        at = np.asarray(places, dtype=float) * (h / 2)
        boxes = np.asarray(box0) + np.stack([at[:, 0], -at[:, 1], at[:, 0], -at[:, 1]], 1)
        fits = (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= w) & (boxes[:, 3] <= h)
        return boxes, fits

    def _first_clear(self, node: Any, places: Sequence[tuple[float, float]],
                     groups: list[list[Box]], size: tuple[int, int]
                     ) -> tuple[float, float] | None:
        """The first of `places` (its pos, aspect2d units from its parent) where `node` lies
        in the window and covers none of the boxes of `groups`; None: none is clear. The
        node's box is measured once and moved (a text's box moves with its pos)."""
        moved = self._moved(node, places, size)
        if moved is None:
            return None
        boxes, clear = moved
        for group in groups:
            clear &= _covered(boxes, group) == 0.0
        return tuple(places[int(np.argmax(clear))]) if clear.any() else None  # type: ignore[return-value]

    def _least_covered(self, node: Any, places: Sequence[tuple[float, float]],
                       groups: list[list[Box]], size: tuple[int, int]
                       ) -> tuple[float, float] | None:
        """The first of `places` where `node` lies in the window and covers the boxes of
        `groups[0]` least, of those the boxes of the next group least, and so on; None:
        it draws nothing or lies in the window nowhere."""
        moved = self._moved(node, places, size)
        if moved is None or not moved[1].any():
            return None
        boxes, fits = moved
        keys = [np.where(fits, _covered(boxes, group), np.inf) for group in groups]
        order = np.lexsort([np.arange(len(boxes)), *reversed(keys)])
        return tuple(places[int(order[0])])  # type: ignore[return-value]

    def place_inspect(self, avoid: list[Box], others: list[Box]) -> None:
        """Put the card at the first of INSPECT_XS x INSPECT_YS where it lies in the window
        and covers none of `avoid`, `shown_boxes` and `others`; where none does, at the
        first clear place of INSPECT_FINE, the card wrapped to each of INSPECT_NARROW in
        turn; where none is, where it covers `avoid` least, then the HUD least, then
        `others` (a click on a piece hid it under its own card in Diceland, and the card lay
        over Diced's seat panels). The card's box is measured once a width and moved."""
        hud = self.shown_boxes()
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        best: tuple[float, float, float, int, tuple[float, float]] | None = None
        tries = [(INSPECT_WIDTH, [(x, y) for y in INSPECT_YS for x in INSPECT_XS]),
                 *((width, list(INSPECT_FINE)) for width in INSPECT_NARROW)]
        for width, places in tries:
            self.inspect.setText("\n".join(wrap(line, width) for line in self._inspect_lines))
            moved = self._moved(self.inspect, places, (w, h))
            if moved is None:
                return
            boxes, fits = moved
            cover = np.stack([_covered(boxes, group) for group in (avoid, hud, others)], 1)
            clear = fits & (cover == 0.0).all(axis=1)
            if clear.any():
                self.inspect["pos"] = places[int(np.argmax(clear))]
                return
            for k in np.flatnonzero(fits):
                a, b, c = (float(v) for v in cover[k])
                if best is None or (a, b, c) < best[:3]:
                    best = (a, b, c, width, places[k])
        width, pos = (best[3], best[4]) if best is not None else (INSPECT_WIDTH, (EDGE, INSPECT_TOP))
        self.inspect.setText("\n".join(wrap(line, width) for line in self._inspect_lines))
        self.inspect["pos"] = pos

    def set_help(self, shown: bool) -> None:
        if shown:
            self.help.show()
        else:
            self.help.hide()
