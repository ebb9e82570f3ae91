"""Deep White Sea's table: the core scene's room, table and dice, with each player's edge
line along the rim of the felt, the foul zone behind it (DESIGN.md: one foot back and one
foot up) and the poison counters beside the dice.
"""

from __future__ import annotations

import math

from panda3d.core import NodePath, TransparencyAttrib

from simulator.physics.world import FOOT
from simulator.render.core.looks import BAND_Z, FOUL_COLOUR, MARK_Z, PLAYER_COLOURS
from simulator.render.core.scene import TableScene, _band, _mesh

FOUL_FLOOR_ALPHA = 0.22  # the tint on the floor beneath a foul zone
FOUL_EDGE_ALPHA = 0.85


class SeaTableScene(TableScene):
    """The table of Deep White Sea: two throwing edges and their foul zones."""

    KEPT_APART = ("foul-zones",)  # they can be hidden

    def poison_counter(self, xy: tuple[float, float], owner: tuple[float, float, float]) -> None:
        """A green counter beside a die, ringed in the colour of the player who made it."""
        self.coin(xy, (0.2, 0.75, 0.25, 1.0))
        self.ring(xy, 0.009, (*owner, 1.0), 0.003, MARK_Z + 0.0005)

    def _build_table(self) -> NodePath:
        node = super()._build_table()
        self._build_edges(node)
        self._build_foul_zones()
        return node

    def _build_edges(self, node: NodePath) -> None:
        """Each player's edge line: a band of their colour along the rim of the felt."""
        t = self.table
        for player in (1, 2):
            sgn = -1 if player == 1 else 1
            colour = (*PLAYER_COLOURS[player], 1.0)
            if t.shape == "rect":
                y0, y1 = sgn * t.edge_y, sgn * (t.edge_y - 0.012)
                verts = [(-t.width / 2, y0, BAND_Z), (t.width / 2, y0, BAND_Z),
                         (t.width / 2, y1, BAND_Z), (-t.width / 2, y1, BAND_Z)]
                tris = [(0, 1, 2), (0, 2, 3)] if sgn > 0 else [(0, 2, 1), (0, 3, 2)]
            else:  # the arc of the rim nearest the player
                verts, tris = [], []  # type: ignore[var-annotated]
                n = 24
                for k in range(n + 1):
                    a = math.radians(-150 + 120 * k / n) * (1 if player == 1 else -1)
                    c, s = math.cos(a), math.sin(a)
                    verts += [(t.radius * c, t.radius * s, BAND_Z),
                              ((t.radius - 0.012) * c, (t.radius - 0.012) * s, BAND_Z)]
                    if k < n:
                        i = 2 * k
                        tris += [(i, i + 2, i + 1), (i + 1, i + 2, i + 3)]
            band = node.attachNewNode(_mesh(f"edge{player}", verts, tris, [colour] * len(verts),
                                            normal=(0, 0, 1)))
            band.setTwoSided(True)
            band.setDepthOffset(1)


    def _build_foul_zones(self) -> None:
        """Behind each edge line, one foot back and one foot up (DESIGN.md): drawn as the
        box's edges and a tint on the floor beneath it, so it never covers the table or a
        die in any view (the translucent box it was hid a third of the window's view)."""
        t = self.table
        half_w = t.width / 2 if t.shape == "rect" else t.radius
        zones = self._static.attachNewNode("foul-zones")
        zones.setTransparency(TransparencyAttrib.M_alpha)
        zones.setDepthWrite(False)
        zones.setTwoSided(True)
        zones.setLightOff(1)
        zones.setBin("transparent", 10)
        floor_z = -t.height + 0.004  # just over the floor boards and the rug
        tint = (*FOUL_COLOUR, FOUL_FLOOR_ALPHA)
        line = (*FOUL_COLOUR, FOUL_EDGE_ALPHA)
        w = 0.004  # m: half-width of the edge bands
        for player in (1, 2):
            sgn = -1 if player == 1 else 1
            y_edge, y_back = sgn * t.edge_y, sgn * (t.edge_y + FOOT)
            x0, x1 = -half_w, half_w
            zones.attachNewNode(_mesh("foul-floor", [(x0, y_edge, floor_z), (x1, y_edge, floor_z),
                                                     (x1, y_back, floor_z), (x0, y_back, floor_z)],
                                      [(0, 1, 2), (0, 2, 3)], [tint] * 4, normal=(0, 0, 1),
                                      lit=False))
            for x in (x0, x1):
                for a, b in (((x, y_edge, FOOT), (x, y_back, FOOT)),
                             ((x, y_back, 0.0), (x, y_back, FOOT)),
                             ((x, y_edge, 0.0), (x, y_edge, FOOT)),
                             ((x, y_edge, 0.0), (x, y_back, 0.0))):
                    zones.attachNewNode(_band(a, b, w, line))
            # The top edge over the table's rim is left out: it would cross the thrower's view.
            zones.attachNewNode(_band((x0, y_back, FOOT), (x1, y_back, FOOT), w, line))
            zones.attachNewNode(_band((x0, y_back, 0.0), (x1, y_back, 0.0), w, line))
