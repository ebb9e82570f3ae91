"""The d6 games' table: the core `TableScene`'s room, table, lights and dice, plus what the
d6 games put on it: pip dice in any colour, the walled tray
rolls are thrown into (`simulator.physics.tray`), hexagonal tiles, tokens and labels.

The scene only shows poses it is given; the tray's dice come from a recorded physics roll
(tray coordinates, moved to where the tray stands on the table).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from panda3d.core import (
    NodePath,
    TextNode,
    TransparencyAttrib,
)
from PIL import Image, ImageDraw

from simulator.physics.dice import DieShape
from simulator.physics.settings import TableSpec
from simulator.physics.tray import tray_table
from simulator.render.core.looks import ATLAS_COLS, ATLAS_ROWS, CELL, MARK_Z, DieLook
from simulator.render.core.playback import PoseT
from simulator.render.core.scene import Colour, TableScene, _box, _mesh, polygon_mesh

RGB = tuple[float, float, float]

# Seat colours of the d6 games (HUD text, dice, seat marks): distinct at a glance, up to 8.
SEAT_COLOURS: tuple[RGB, ...] = (
    (0.85, 0.18, 0.15), (0.18, 0.42, 0.9), (0.95, 0.78, 0.2), (0.2, 0.7, 0.3),
    (0.6, 0.3, 0.75), (0.95, 0.5, 0.15), (0.2, 0.75, 0.8), (0.92, 0.92, 0.9),
)
POOL_COLOUR: RGB = (0.96, 0.95, 0.9)
TRAY_WOOD: Colour = (0.36, 0.22, 0.12, 1.0)
TRAY_FELT: Colour = (0.08, 0.22, 0.15, 1.0)
TRAY_WALL_ALPHA = 0.45
TILE_Z = 0.006  # m: a tile's thickness; armies stand on it
TERRAIN_COLOURS: dict[str, RGB] = {
    "P": (0.72, 0.78, 0.45), "F": (0.18, 0.45, 0.2), "M": (0.55, 0.52, 0.5),
    "H": (0.7, 0.58, 0.33), "C": (0.78, 0.72, 0.68),
}


class DiceTableScene(TableScene):
    """A table for the d6 games, with a tray standing at `tray_at` (m) on it."""

    # The tray is not merged with the rest (`flatten_static`): merged, its walls lost their
    # see-through alpha in the fixed-function path (drawn opaque, they hid a die resting
    # against the near wall from the seats' views and the close-up's).
    KEPT_APART = ("tray",)

    def __init__(self, table: TableSpec, tray_at: tuple[float, float] = (0.0, 0.0)) -> None:
        self.tray_at = tray_at
        super().__init__(table)
        self._build_tray()
        self.labels = self.root.attachNewNode("labels")
        self.labels.setLightOff(1)
        self.labels.setDepthOffset(3)

    # -- dice -------------------------------------------------------------------------------

    def add_d6(self, name: str, shape: DieShape, colour: RGB, labels: tuple[int, ...],
               pose: PoseT) -> None:
        """A d6 in `colour` with pips, the value `labels[f]` printed on geometry face f."""
        self.add_die(name, shape, d6_look(colour), labels, pose[0], pose[1])

    def place_d6(self, name: str, shape: DieShape, colour: RGB, value: int,
                 xy: tuple[float, float], z: float = 0.0, yaw_deg: float = 0.0) -> None:
        """A d6 resting on the surface at height z with `value` on top."""
        self.add_d6(name, shape, colour, shape.values, resting_d6(shape, value, xy, z, yaw_deg))

    def move_tray_die(self, name: str, pose: PoseT) -> None:
        """A die of the tray, its pose in tray coordinates."""
        (x, y, z), q = pose
        self.move_die(name, (x + self.tray_at[0], y + self.tray_at[1], z), q)

    def tray_die_pose(self, name: str) -> PoseT:
        """A tray die's pose back in tray coordinates (position, quaternion x, y, z, w)."""
        nodes = self.dice[name]
        p, q = nodes.pose.getPos(), nodes.pose.getQuat()
        return ((float(p[0]) - self.tray_at[0], float(p[1]) - self.tray_at[1], float(p[2])),
                (float(q.getI()), float(q.getJ()), float(q.getK()), float(q.getR())))

    def die_names(self, prefix: str) -> list[str]:
        return [n for n in self.dice if n.startswith(prefix)]

    # -- board pieces ---------------------------------------------------------------------

    def hex_tile(self, centre: tuple[float, float], radius: float, colour: RGB,
                 parent: NodePath | None = None) -> NodePath:
        """A flat-topped hexagonal prism (pointy side along y) standing on the table."""
        x, y = centre
        ring = [(x + radius * math.cos(math.radians(30 + 60 * k)),
                 y + radius * math.sin(math.radians(30 + 60 * k))) for k in range(6)]
        c: Colour = (*colour, 1.0)
        side: Colour = (colour[0] * 0.7, colour[1] * 0.7, colour[2] * 0.7, 1.0)
        holder = (parent or self._static).attachNewNode("tile")
        top = [(px, py, TILE_Z) for px, py in ring]
        holder.attachNewNode(_mesh("tile-top", top, [(0, k, k + 1) for k in range(1, 5)],
                                   [c] * 6, normal=(0, 0, 1)))
        for k in range(6):
            (ax, ay), (bx, by) = ring[k], ring[(k + 1) % 6]
            quad = [(ax, ay, 0.0), (bx, by, 0.0), (bx, by, TILE_Z), (ax, ay, TILE_Z)]
            holder.attachNewNode(_mesh("tile-side", quad, [(0, 1, 2), (0, 2, 3)], [side] * 4))
        return holder

    def hex_outline(self, centre: tuple[float, float], radius: float, colour: Colour,
                    width: float = 0.006, z: float = TILE_Z + 0.002) -> None:
        """A coloured band along a tile's rim (the owner's colour, a selection)."""
        pts = [(centre[0] + radius * math.cos(math.radians(30 + 60 * k)),
                centre[1] + radius * math.sin(math.radians(30 + 60 * k)), z) for k in range(7)]
        for a, b in zip(pts, pts[1:], strict=False):
            self.strip(a, b, colour, width)

    def token(self, xy: tuple[float, float], colour: RGB, radius: float = 0.012) -> NodePath:
        """A flat coin on the felt (a re-roll token)."""
        return self.coin(xy, (*colour, 1.0), radius)

    def label(self, text: str, xy: tuple[float, float], colour: Colour, size: float = 0.03,
              z: float = MARK_Z, heading: float = 0.0, static: bool = False) -> NodePath:
        """Text lying on the table, read from the -y side turned by `heading` (deg)."""
        tn = TextNode("label")
        tn.setText(text)
        tn.setAlign(TextNode.ACenter)
        tn.setTextColor(*colour)
        node = (self.labels if static else self.overlay).attachNewNode(tn)
        node.setScale(size)
        node.setPos(xy[0], xy[1], z)
        node.setHpr(heading, -90, 0)
        return node

    # -- building ---------------------------------------------------------------------------

    def _build_tray(self) -> None:
        tray = tray_table()
        node = self._static.attachNewNode("tray")
        node.setPos(self.tray_at[0], self.tray_at[1], 0.0)
        hx, hy = tray.width / 2, tray.depth / 2
        node.attachNewNode(_box((-hx, -hy, -0.0005), (hx, hy, 0.0005), TRAY_FELT, TRAY_FELT))
        walls = node.attachNewNode("tray-walls")
        # See-through, so a die resting against the near wall is read from any seat (the
        # walls stand 6 cm high: from a seat's view they hid dice within 5 cm of them).
        walls.setTransparency(TransparencyAttrib.M_alpha)
        walls.setAlphaScale(TRAY_WALL_ALPHA)
        walls.setDepthWrite(False)
        walls.setBin("transparent", 5)
        for ob in tray.obstacles:
            sx, sy, sz = ob.size
            part = walls.attachNewNode(_box((-sx / 2, -sy / 2, 0.0), (sx / 2, sy / 2, sz),
                                            TRAY_WOOD, TRAY_WOOD))
            part.setPos(ob.position[0], ob.position[1], 0.0)

    def _die_mesh(self, shape: DieShape, side_of_face: tuple[int, ...]) -> NodePath:
        """Cubes get their pips from the atlas (cell v-1 for value v); other dice as before."""
        if shape.poly.kind != "cube":
            return super()._die_mesh(shape, side_of_face)
        key = ("d6", round(float(shape.poly.circumradius), 6), side_of_face)
        cached = self._meshes.get(key)  # type: ignore[call-overload]
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        poly = shape.poly
        uvs = []
        for f, face in enumerate(poly.faces):
            normal = np.asarray(poly.normals[f], dtype=float)
            cell = side_of_face[f] - 1
            col, rw = cell % ATLAS_COLS, cell // ATLAS_COLS
            # The face's own 2D frame: u along its first edge, v across it.
            v0 = np.asarray(poly.vertices[face[0]], dtype=float)
            u_axis = np.asarray(poly.vertices[face[1]], dtype=float) - v0
            u_axis /= np.linalg.norm(u_axis)
            v_axis = np.cross(normal, u_axis)
            pts = [np.asarray(poly.vertices[v], dtype=float) for v in face]
            us = [float((p - v0) @ u_axis) for p in pts]
            vs = [float((p - v0) @ v_axis) for p in pts]
            span_u, span_v = max(us) - min(us), max(vs) - min(vs)
            uvs.append([((col + (us[k] - min(us)) / span_u) / ATLAS_COLS,
                         1.0 - (rw + 1 - (vs[k] - min(vs)) / span_v) / ATLAS_ROWS)
                        for k in range(len(face))])
        mesh = polygon_mesh(poly, uvs, "d6-mesh")
        self._meshes[key] = mesh  # type: ignore[index]
        return mesh


# -- looks and poses ------------------------------------------------------------------------


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


@functools.cache
def d6_look(colour: RGB) -> DieLook:
    """Pip faces 1..6 in atlas cells 0..5 on a body of `colour`: dark pips on a light body,
    white ones on a dark body, so a value reads from any seat."""
    body = tuple(int(round(255 * c)) for c in colour)
    light = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 0.55
    pip = (25, 22, 20) if light else (250, 248, 240)
    img = Image.new("RGBA", (CELL * ATLAS_COLS, CELL * ATLAS_ROWS), (*body, 255))
    draw = ImageDraw.Draw(img)
    r = CELL * 0.09
    for value, spots in PIPS.items():
        col, row = (value - 1) % ATLAS_COLS, (value - 1) // ATLAS_COLS
        cx, cy = (col + 0.5) * CELL, (row + 0.5) * CELL
        edge = CELL * 0.03  # a thin darker rim, so adjacent faces part
        draw.rectangle((col * CELL, row * CELL, (col + 1) * CELL - 1, (row + 1) * CELL - 1),
                       outline=tuple(int(c * 0.75) for c in body), width=max(1, int(edge)))
        for dx, dy in spots:
            x, y = cx + dx * CELL * 0.27, cy + dy * CELL * 0.27
            draw.ellipse((x - r, y - r, x + r, y + r), fill=(*pip, 255))
    key = "d6-" + "-".join(str(b) for b in body)
    return DieLook(key, img)


def resting_d6(shape: DieShape, value: int, xy: tuple[float, float], z: float = 0.0,
               yaw_deg: float = 0.0) -> PoseT:
    """A d6 lying flat on a surface at height z with `value` on top."""
    from simulator.render.core.session import quat_of

    up = shape.values.index(value)
    bottom = shape.poly.opposite_face(up)
    rot = shape.poly.rest_rotation(bottom, yaw_deg)
    h = float(shape.poly.face_offsets[bottom])
    return ((xy[0], xy[1], z + h), quat_of(rot))


def seat_colour(seat: int) -> RGB:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]
