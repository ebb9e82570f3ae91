"""Texts pinned to table points, a part of `GameWindow`: drawn in screen space, facing the
camera at PIN_SCALE (capitals 14 px at 720 px) whatever the view, each centred under its
point (issue 37: names a player reads, not small type on the cloth).
"""

from __future__ import annotations

from typing import Any

from simulator.render.core import picking
from simulator.render.core.camera import OrbitCamera

PIN_SCALE = 0.056  # aspect2d units: a 20 px em at 720 px high, capitals 14 px

Pin = tuple[tuple[float, float, float], str]  # a table point and its text


class Pins:
    """`items` are the texts to pin (the game's `pinned_labels`); `nodes` their
    OnscreenTexts, made as needed and kept for reuse."""

    def __init__(self, base: Any) -> None:
        self.base = base
        self.nodes: list[Any] = []
        self.items: list[Pin] = []

    def place(self, cam: OrbitCamera, size: tuple[int, int], hidden: bool) -> None:
        """Each pinned label where its point is seen from `cam` in a window of `size` px
        (hidden behind the camera, and all of them when `hidden`: under the help and on
        the game-over screen)."""
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        while len(self.nodes) < len(self.items):
            self.nodes.append(OnscreenText(
                text="", scale=PIN_SCALE, fg=(0.08, 0.07, 0.06, 1), bg=(0.98, 0.96, 0.9, 0.88),
                align=TextNode.ACenter, mayChange=True, parent=self.base.aspect2d))
        w, h = size
        for k, node in enumerate(self.nodes):
            at = None if hidden or k >= len(self.items) else \
                picking.screen_of(cam, self.items[k][0], (w, h))
            if at is None:
                node.hide()
                continue
            text = self.items[k][1]
            if node.getText() != text:
                node.setText(text)
            node.setPos(at[0] * w / h, at[1] - PIN_SCALE * 0.8)  # its top at the point
            node.show()
