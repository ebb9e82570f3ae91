"""Texts pinned to table points, a part of `GameWindow`: drawn in screen space, facing the
camera at PIN_SCALE (capitals 14 px at 720 px) whatever the view, each centred under its
point (issue 37: names a player reads, not small type on the cloth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simulator.render.core import picking
from simulator.render.core.camera import OrbitCamera
from simulator.render.core.framing import Box, overlap  # Box: left, top, right, bottom px

PIN_SCALE = 0.056  # aspect2d units: a 20 px em at 720 px high, capitals 14 px
# A pin that would lie over a choice's button: drawn at PIN_SCALE or PIN_SMALL (capitals
# 14.3 px) and moved left up to half its width, PIN_SLIDE_PX at a time, to the first place
# clear of the buttons and of the other pins (D-Day's units' sheets ran under the choices).
PIN_SMALL, PIN_SLIDE_PX = 0.048, 4

INK = (0.08, 0.07, 0.06, 1.0)  # a pin's text unless it names its own
# A table point and its text; optionally the scale it is drawn at (PIN_SCALE unless said,
# PIN_SMALL at the least) and its ink (INK unless said).
Pin = tuple[tuple[float, float, float], str] | tuple[tuple[float, float, float], str, float] \
    | tuple[tuple[float, float, float], str, float, tuple[float, float, float, float]]


# A table point marked over the pinned texts, and its colour (r, g, b); optionally the
# index of the pin (in `items`) it is a tab of: drawn against that pin's left edge instead,
# the marks of one pin one under another (the point seen is still needed: behind the camera,
# none is drawn).
Mark = tuple[tuple[float, float, float], tuple[float, float, float]] \
    | tuple[tuple[float, float, float], tuple[float, float, float], int]
MARK_HALF = 0.02  # aspect2d units: a mark is a square 14 px a side at 720 px high


def pin_scale(item: Pin) -> float:
    return float(item[2]) if len(item) > 2 else PIN_SCALE


def pin_ink(item: Pin) -> tuple[float, float, float, float]:
    return item[3] if len(item) > 3 else INK


class Pins:
    """`items` are the texts to pin (the game's `pinned_labels`); `nodes` their
    OnscreenTexts, made as needed and kept for reuse."""

    def __init__(self, base: Any) -> None:
        self.base = base
        self.nodes: list[Any] = []
        self.items: Sequence[Pin] = []
        self.marks: Sequence[Mark] = []  # drawn over the pins where their points are seen
        self._mark_nodes: list[Any] = []
        self._placed: Any = None  # what `place` placed them for last

    def place(self, cam: OrbitCamera, size: tuple[int, int], hidden: bool,
              keep_clear: Sequence[Box] = (), avoid: Sequence[Box] = ()) -> None:
        """Each pinned label where its point is seen from `cam` in a window of `size` px
        (hidden behind the camera, and all of them when `hidden`: under the help and on
        the game-over screen); one over a box of `keep_clear` (px: the choices' buttons), of
        `avoid` (the close-up: where it can) or over another pin moved where that is clear
        (`_clear_of`)."""
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        key = (cam, size, hidden, list(keep_clear), list(avoid), list(self.items),
               list(self.marks))
        if key == self._placed:  # as the last frame placed them (the view at rest)
            return
        self._placed = key
        while len(self.nodes) < len(self.items):
            self.nodes.append(OnscreenText(
                text="", scale=PIN_SCALE, fg=INK, bg=(0.98, 0.96, 0.9, 0.88),
                align=TextNode.ACenter, mayChange=True, parent=self.base.aspect2d))
        w, h = size
        for k, node in enumerate(self.nodes):
            at = None if hidden or k >= len(self.items) else \
                picking.screen_of(cam, self.items[k][0], (w, h))
            if at is None:
                node.hide()
                continue
            text, scale, ink = self.items[k][1], pin_scale(self.items[k]), pin_ink(self.items[k])
            if node.getText() != text:
                node.setText(text)
            if node["scale"][1] != scale:
                node["scale"] = scale
            if tuple(node.fg) != ink:
                node.fg = ink
            node.setPos(at[0] * w / h, at[1] - scale * 0.8)  # its top at the point
            node.show()
        self._inside(size)
        self._clear_of(list(keep_clear), list(avoid), size)
        self._place_marks(cam, size, hidden)

    def _place_marks(self, cam: OrbitCamera, size: tuple[int, int], hidden: bool) -> None:
        """Each mark a square of its colour, a dark rim round it, centred where its point is
        seen, drawn over the pins (their bin's next sort: D-Day's unit markers lay under
        the sectors' cards); none behind the camera, all hidden when `hidden`."""
        from direct.gui.DirectGui import DirectFrame

        while len(self._mark_nodes) < len(self.marks):
            rim = DirectFrame(parent=self.base.aspect2d, frameColor=(0.1, 0.09, 0.08, 1.0),
                              frameSize=(-MARK_HALF, MARK_HALF, -MARK_HALF, MARK_HALF))
            rim.setBin("gui-popup", 0)
            inner = MARK_HALF * 0.72
            self._mark_nodes.append((rim, DirectFrame(parent=rim, frameSize=(-inner, inner,
                                                                             -inner, inner))))
        w, h = size
        tabs: dict[int, int] = {}  # a pin's index -> the marks drawn on it so far
        for k, (node, inner) in enumerate(self._mark_nodes):
            mark = self.marks[k] if not hidden and k < len(self.marks) else None
            seen = None if mark is None else picking.screen_of(cam, mark[0], (w, h))
            at = None  # aspect2d (x, z) of the mark's middle
            if mark is not None and seen is not None and len(mark) == 3:
                pin = mark[2]
                box = self._box(self.nodes[pin], size) if pin < len(self.nodes) \
                    and not self.nodes[pin].isHidden() else None
                j = tabs[pin] = tabs.get(pin, -1) + 1
                if box is not None:  # just left of the pin's edge, from its top down
                    at = ((2 * box[0] - w) / h - MARK_HALF,
                          1 - 2 * (box[1] + 2) / h - MARK_HALF * (2.2 * j + 1))
            elif seen is not None:
                at = (seen[0] * w / h, seen[1])
            if mark is None or at is None:
                node.hide()
                continue
            inner["frameColor"] = (*mark[1], 1.0)
            node.setPos(at[0], 0.0, at[1])
            node.show()

    def _inside(self, size: tuple[int, int]) -> None:
        """Each shown pin whose point is in the window but whose text runs past its edge
        moved back inside (D-Day's fourth unit's sheet ran 12 px past the foot)."""
        w, h = size
        for node in self.nodes:
            box = None if node.isHidden() else self._box(node, size)
            if box is None or not (0 <= (box[0] + box[2]) / 2 <= w and 0 <= box[1] <= h):
                continue
            dx = max(0.0, -box[0]) - max(0.0, box[2] - w)
            dy = max(0.0, box[3] - h) - max(0.0, -box[1])
            if dx or dy:
                x, y = node.getPos()
                node.setPos(x + dx * 2 / h, y + dy * 2 / h)

    def _box(self, node: Any, size: tuple[int, int]) -> Box | None:
        bounds = node.getTightBounds(self.base.render2d)
        if bounds is None:
            return None
        (lo, hi), (w, h) = bounds, size
        return ((lo.x + 1) / 2 * w, (1 - hi.z) / 2 * h, (hi.x + 1) / 2 * w, (1 - lo.z) / 2 * h)

    def _clear_of(self, keep_clear: list[Box], avoid: list[Box], size: tuple[int, int]) -> None:
        """Each shown pin over one of `keep_clear` or `avoid` or over a pin before it: at the
        first of its scale and PIN_SMALL, of its row and the rows one and two lines below
        it and one above, and of the places left of it then right of it (PIN_SLIDE_PX
        apart, half its width at most) where it covers none of them nor another pin; else
        the first such place over `avoid` only; none: as it was. (Deep White Sea's names of
        dice side by side in the thrower's view lay one over another and under the
        close-up; D-Day's unit's sheet has room under the choices only across the
        close-up's foot.)"""
        shown = [n for n in self.nodes if not n.isHidden()]
        own = {id(n): pin_scale(item) for n, item in zip(self.nodes, self.items, strict=False)}
        boxes = {id(n): self._box(n, size) for n in shown}
        for k, node in enumerate(shown):
            box = boxes[id(node)]
            before = [b for n in shown[:k] if (b := boxes[id(n)]) is not None]
            if box is None or not any(overlap(box, b) for b in [*keep_clear, *avoid, *before]):
                continue
            others = [*keep_clear, *(b for n in shown if n is not node
                                     and (b := boxes[id(n)]) is not None)]
            at = self._first_clear(node, own[id(node)], [*others, *avoid], size)
            if at is None and avoid:
                at = self._first_clear(node, own[id(node)], others, size)
            if at is not None:
                boxes[id(node)] = at

    def _first_clear(self, node: Any, mine: float, others: list[Box],
                     size: tuple[int, int]) -> Box | None:
        """`node` moved to the first place `_clear_of` tries that covers none of `others`,
        and its box there; none: left as it was (None)."""
        x, y = node.getPos()
        top = y + mine * 0.8
        for scale in dict.fromkeys((mine, min(mine, PIN_SMALL))):
            node["scale"] = scale
            node.setPos(x, top - scale * 0.8)
            moved = self._box(node, size)
            assert moved is not None
            line = moved[3] - moved[1]
            slides = int((moved[2] - moved[0]) / 2 / PIN_SLIDE_PX)
            for rows in (0, 1, 2, -1):
                for k in [*range(0, -slides - 1, -1), *range(1, slides + 1)]:
                    dx, dy = k * PIN_SLIDE_PX, rows * line
                    at = (moved[0] + dx, moved[1] + dy, moved[2] + dx, moved[3] + dy)
                    if not any(overlap(at, b) for b in others):
                        node.setPos(x + dx * 2 / size[1], top - scale * 0.8 - dy * 2 / size[1])
                        return at
        node["scale"] = mine
        node.setPos(x, y)
        return None
