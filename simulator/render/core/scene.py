"""The Panda3D table scene every game's table is built on: room, table, obstacles, dice
(textured with their face art), lights, planar shadows, and overlay marks. A game's table
adds its own (Deep White Sea's edge lines and foul zones, `deep_white_sea/scene.py`; the
d6 games' tray, tiles and pip dice, `d6/scene.py`).

The scene only shows poses it is given (from `World.snapshot()`, an outcome, or a frame of
a recorded throw); it never steps physics. Poses are the physics' geometric frames:
position of the die's centre and its quaternion (x, y, z, w), table coordinates with the
surface at z = 0, so no conversion is needed: Panda3D is z-up and right-handed too.

Shadows are planar projections of each die onto the felt along the key light's direction:
cheap, and identical in the software renderer (which has no shadow maps) and on a GPU.

Colours are given in sRGB, as the software renderer and a picture want them; a scene drawn
with physically based shading (`use_pbr`, called by the renderer that draws it) turns every
colour, material and texture into linear light once, and each mark added after that too.
Felt, wood and paper are textures (`looks.felt_look`, `wood_look`, the dice atlases).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from panda3d.core import (
    AmbientLight,
    ColorBlendAttrib,
    DirectionalLight,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    LMatrix4f,
    Material,
    MaterialAttrib,
    NodePath,
    PointLight,
    Quat,
    RenderState,
    Texture,
    TextureStage,
    TransparencyAttrib,
    Vec3,
)
from PIL import Image

from simulator.physics.dice import DieShape
from simulator.physics.settings import TableSpec
from simulator.physics.world import TABLE_THICKNESS
from simulator.render.core.looks import (
    FELT,
    FELT_Z,
    MARK_Z,
    SHADOW_Z,
    TABLE_WOOD,
    DieLook,
    face_uvs,
    felt_look,
    linear,
    polygon_uvs,
    wood_look,
)

LIGHT_DIR = (0.35, 0.55, -1.0)  # key light, pointing from the lamp down onto the table
# How textures are sampled. The die atlases: trilinear, with anisotropic filtering (face art
# read at a slant). The felt and wood, which fill most of the window, are sampled from the
# nearest mipmap level without anisotropic filtering: under Mesa's llvmpipe (Xvfb, CPU only)
# anisotropic filtering tripled a frame's cost (D-Day's window 65 ms a frame with it on the
# felt and wood, 25 ms without) and blending two mipmap levels cost another 10-20%, while
# neither changed a pixel of those fine fibre-noise textures by more than 7 of 255.
DIE_SAMPLING = (Texture.FT_linear_mipmap_linear, 4)  # (minification filter, anisotropy)
CLOTH_SAMPLING = (Texture.FT_linear_mipmap_nearest, 1)
FELT_TILE = 0.3  # m of table per repeat of the felt texture
WOOD_TILE = 0.5  # m of wood per repeat of the grain texture
# Roughness for physically based shading (0 mirror, 1 chalk), by the name a material starts
# with: cloth scatters all of its light, card shows a little sheen, varnished wood and the
# rest a soft one.
ROUGHNESS = {"felt": 1.0, "paper": 0.8, "default": 0.6}
SHADOW_ALPHA = 0.42
ROOM_HALF = 3.2  # m: half the width of the room around the table
ROOM_HEIGHT = 3.2  # m from floor to ceiling: a top view from 2 m up stays inside the room
Colour = tuple[float, float, float, float]
Polygon = tuple[list[tuple[float, float, float]], tuple[float, float, float], Colour]


@dataclass(frozen=True)
class DieNodes:
    pose: NodePath  # carries the die's pose; its child is the textured octahedron
    shadow: NodePath  # holder of the instance under the shadow projection



def polygon_mesh(poly: Any, uvs: Any, name: str) -> NodePath:
    """A die's faces as one flat-shaded mesh: face f's k-th corner at texture point
    uvs[f][k], each face fanned into triangles."""
    data = GeomVertexData(name, GeomVertexFormat.getV3n3t2(), Geom.UH_static)
    vw, nw, tw = (GeomVertexWriter(data, c) for c in ("vertex", "normal", "texcoord"))
    prim = GeomTriangles(Geom.UH_static)
    row = 0
    for f, face in enumerate(poly.faces):
        normal = poly.normals[f]
        for k, v in enumerate(face):
            vw.addData3(*map(float, poly.vertices[v]))
            nw.addData3(*map(float, normal))
            tw.addData2(*map(float, uvs[f][k]))
        for k in range(1, len(face) - 1):
            prim.addVertices(row, row + k, row + k + 1)
        row += len(face)
    geom = Geom(data)
    geom.addPrimitive(prim)
    node = GeomNode(name)
    node.addGeom(geom)
    return NodePath(node)

class TableScene:
    """Everything in the room. `root` is what a camera renders (attach it to `render`).
    A game's table extends `_build_table`; the fixed nodes named in KEPT_APART stay whole
    when the rest is merged (`flatten_static`), so they can be hidden."""

    KEPT_APART: tuple[str, ...] = ()

    def __init__(self, table: TableSpec) -> None:
        self.table = table
        self.root = NodePath("scene")
        self.root.setPythonTag("table-scene", self)
        self.pbr = False
        self._static = self.root.attachNewNode("static")
        self.dice_root = self.root.attachNewNode("dice")
        self.overlay = self.root.attachNewNode("overlay")
        self.overlay.setLightOff(1)
        self.overlay.setTransparency(TransparencyAttrib.M_alpha)
        self.overlay.setDepthOffset(2)
        self.overlay.setTwoSided(True)
        self._shadows = self.root.attachNewNode("shadows")
        self._setup_shadows()
        self._textures: dict[str, Texture] = {}
        self._meshes: dict[float, NodePath] = {}
        self.dice: dict[str, DieNodes] = {}
        self._build_room()
        self._build_table()
        self._build_obstacles()
        self._build_lights()

    # -- dice -------------------------------------------------------------------------------

    def add_die(self, name: str, shape: DieShape, look: DieLook, side_of_face: tuple[int, ...],
                position: tuple[float, float, float],
                quaternion: tuple[float, float, float, float]) -> None:
        """Show a die (replacing one of the same name). `side_of_face[f]` is the side
        number printed on geometry face f."""
        self.remove_die(name)
        pose = self.dice_root.attachNewNode(f"die:{name}")
        mesh = self._die_mesh(shape, side_of_face)
        mesh.instanceTo(pose)
        pose.setTexture(self._texture(look), 1)
        if self.pbr:
            _pbr_material(pose, "paper")
        holder = self._shadows.attachNewNode(f"shadow:{name}")
        pose.instanceTo(holder)
        self.dice[name] = DieNodes(pose, holder)
        self.move_die(name, position, quaternion)

    def move_die(self, name: str, position: tuple[float, float, float],
                 quaternion: tuple[float, float, float, float]) -> None:
        nodes = self.dice[name]
        x, y, z = position
        qx, qy, qz, qw = quaternion
        nodes.pose.setPosQuat((x, y, z), Quat(qw, qx, qy, qz))
        # A die beyond the table's rim or below its surface casts no shadow on the felt.
        if self.table.contains_xy(x, y) and z > -0.01:
            nodes.shadow.show()
        else:
            nodes.shadow.hide()

    def remove_die(self, name: str) -> None:
        nodes = self.dice.pop(name, None)
        if nodes is not None:
            nodes.pose.removeNode()
            nodes.shadow.removeNode()

    def clear_dice(self) -> None:
        for name in list(self.dice):
            self.remove_die(name)

    def die_position(self, name: str) -> tuple[float, float, float]:
        p = self.dice[name].pose.getPos()
        return (float(p[0]), float(p[1]), float(p[2]))

    # -- overlay marks (selection rings, tip arrows, sight lines, aim) -----------------------

    def use_pbr(self) -> None:
        """Turn the scene's colours into linear light for physically based shading (sRGB
        textures, linear material and vertex colours, a roughness per material), once;
        dice and marks added later follow. The renderer that draws with simplepbr calls it."""
        if self.pbr:
            return
        self.pbr = True
        for tex in self._textures.values():
            _srgb_texture(tex)
        _linearize(self.root)
        for nodes in self.dice.values():
            _pbr_material(nodes.pose, "paper")
        r, g, b, a = self._shadows.getColor()
        self._shadows.setColor((*linear((r, g, b)), a), 10)

    def flatten_static(self) -> None:
        """Merge the fixed geometry (room, table, tray, boards, tiles) into as few pieces as
        their looks allow, once the game's scene has built its board: under Mesa's
        llvmpipe the large hex board drew at 103 frames/s as 276 pieces and at 315 as 21.
        The nodes of KEPT_APART stay nodes of their own. Twice is harmless."""
        merged = self._static.find("merged")
        if merged.isEmpty():
            merged = self._static.attachNewNode("merged")
        for child in self._static.getChildren():
            if child.getName() not in (*self.KEPT_APART, "merged"):
                child.wrtReparentTo(merged)
        merged.flattenStrong()

    def clear_overlay(self) -> None:
        self.overlay.getChildren().detach()

    def ring(self, xy: tuple[float, float], radius: float, colour: Colour, width: float = 0.006,
             z: float = MARK_Z) -> NodePath:
        n = 40
        verts, tris = [], []
        for k in range(n):
            a = 2 * math.pi * k / n
            c, s = math.cos(a), math.sin(a)
            verts += [(xy[0] + c * radius, xy[1] + s * radius, z),
                      (xy[0] + c * (radius + width), xy[1] + s * (radius + width), z)]
            i, j = 2 * k, 2 * ((k + 1) % n)
            tris += [(i, j, i + 1), (i + 1, j, j + 1)]
        return self._flat(verts, tris, colour)

    def strip(self, a: tuple[float, float, float], b: tuple[float, float, float], colour: Colour,
              width: float = 0.004) -> NodePath:
        """A flat band from a to b (a line that reads at any distance), normal up."""
        d = np.subtract(b, a)[:2]
        n = float(np.linalg.norm(d))
        if n < 1e-9:
            d = np.array([1.0, 0.0])
            n = 1.0
        px, py = -d[1] / n * width / 2, d[0] / n * width / 2
        verts = [(a[0] + px, a[1] + py, a[2]), (a[0] - px, a[1] - py, a[2]),
                 (b[0] - px, b[1] - py, b[2]), (b[0] + px, b[1] + py, b[2])]
        return self._flat(verts, [(0, 1, 2), (0, 2, 3)], colour)

    def path(self, points: list[tuple[float, float, float]], colour: Colour,
             width: float = 0.005) -> NodePath:
        """A ribbon through 3D points, turned to face up (an aim line seen from above)."""
        holder = self.overlay.attachNewNode("path")
        for a, b in zip(points, points[1:], strict=False):
            self.strip(a, b, colour, width).reparentTo(holder)
        return holder

    def arrow(self, start: tuple[float, float, float], end: tuple[float, float, float],
              colour: Colour, width: float = 0.008) -> NodePath:
        """A flat arrow lying in the plane z = start.z, pointing from start to end."""
        d = np.subtract(end, start)[:2]
        n = float(np.linalg.norm(d))
        if n < 1e-9:
            return self.overlay.attachNewNode("arrow")
        ux, uy = d / n
        px, py = -uy, ux
        head = min(0.6 * n, 3 * width)
        bx, by = end[0] - ux * head, end[1] - uy * head
        z = start[2]
        w = width / 2
        verts = [(start[0] + px * w, start[1] + py * w, z), (start[0] - px * w, start[1] - py * w, z),
                 (bx - px * w, by - py * w, z), (bx + px * w, by + py * w, z),
                 (bx + px * 2.2 * w, by + py * 2.2 * w, z), (bx - px * 2.2 * w, by - py * 2.2 * w, z),
                 (end[0], end[1], z)]
        return self._flat(verts, [(0, 1, 2), (0, 2, 3), (4, 5, 6)], colour)

    def marker(self, position: tuple[float, float, float], colour: Colour,
               size: float = 0.02) -> NodePath:
        """A small diamond (octahedron) floating at a point: the release point."""
        r = size / 2
        v = [(r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r)]
        verts = [(position[0] + a, position[1] + b, position[2] + c) for a, b, c in v]
        tris = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
        return self._flat(verts, tris, colour)

    def coin(self, xy: tuple[float, float], colour: Colour, radius: float = 0.009) -> NodePath:
        """A flat disc on the felt (a counter, a token)."""
        n = 20
        verts = [(xy[0], xy[1], MARK_Z)]
        verts += [(xy[0] + radius * math.cos(2 * math.pi * k / n),
                   xy[1] + radius * math.sin(2 * math.pi * k / n), MARK_Z) for k in range(n)]
        tris = [(0, 1 + k, 1 + (k + 1) % n) for k in range(n)]
        return self._flat(verts, tris, colour)

    # -- building -----------------------------------------------------------------------------

    def _flat(self, verts: list[tuple[float, float, float]], tris: list[tuple[int, int, int]],
              colour: Colour) -> NodePath:
        if self.pbr:
            colour = linear(colour)  # type: ignore[assignment]
        np_ = self.overlay.attachNewNode(_mesh("mark", verts, tris, [colour] * len(verts), lit=False))
        return np_

    def _setup_shadows(self) -> None:
        lx, ly, lz = _unit(LIGHT_DIR)
        # Row-vector matrix (Panda3D): flatten every point onto z = SHADOW_Z along the light.
        # z keeps a sliver of its height so the matrix stays invertible for Panda's culling.
        m = LMatrix4f(1, 0, 0, 0,
                      0, 1, 0, 0,
                      -lx / lz, -ly / lz, 1e-3, 0,
                      0, 0, SHADOW_Z, 1)
        self._shadows.setMat(m)
        self._shadows.setTextureOff(10)
        self._shadows.setLightOff(10)
        self._shadows.setColor((0.02, 0.05, 0.03, SHADOW_ALPHA), 10)
        self._shadows.setTransparency(TransparencyAttrib.M_alpha, 10)
        self._shadows.setDepthWrite(False, 10)
        self._shadows.setDepthOffset(1, 10)
        self._shadows.setAttrib(ColorBlendAttrib.makeDefault(), 10)

    def _texture(self, look: DieLook, sampling: tuple[Any, int] = DIE_SAMPLING) -> Texture:
        """The look's texture, made once: mipmapped, repeating, sampled as `sampling` says
        (DIE_SAMPLING, CLOTH_SAMPLING)."""
        tex = self._textures.get(look.key)
        if tex is None:
            img = look.atlas.convert("RGBA")
            w, h = img.size
            tex = Texture(look.key)
            tex.setup2dTexture(w, h, Texture.T_unsigned_byte, Texture.F_rgba8)
            # Panda3D wants rows bottom-up, BGRA by default; give RGBA explicitly.
            flipped = img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
            tex.setRamImageAs(flipped.tobytes(), "RGBA")
            tex.setMinfilter(sampling[0])
            tex.setMagfilter(Texture.FT_linear)
            tex.setAnisotropicDegree(sampling[1])
            tex.setWrapU(Texture.WM_repeat)
            tex.setWrapV(Texture.WM_repeat)
            if self.pbr:
                _srgb_texture(tex)
            self._textures[look.key] = tex
        return tex

    def _die_mesh(self, shape: DieShape, side_of_face: tuple[int, ...]) -> NodePath:
        poly = shape.poly
        key = (round(float(poly.circumradius), 6), side_of_face)
        cached = self._meshes.get(key)  # type: ignore[call-overload]
        if cached is not None:
            return cached
        if poly.kind == "octahedron":
            uvs = face_uvs(side_of_face, poly.faces, poly.vertices)
        else:  # any other die: face f in cell f of its value atlas (looks.value_look)
            uvs = polygon_uvs(poly.vertices, poly.faces, poly.normals)
        mesh = polygon_mesh(poly, uvs, "die-mesh")
        self._meshes[key] = mesh  # type: ignore[index]
        return mesh

    def _build_room(self) -> None:
        h = self.table.height
        floor_z = -h
        s = ROOM_HALF
        room = self._static.attachNewNode("room")
        wood = (0.47, 0.33, 0.22, 1.0)
        wall = (0.78, 0.74, 0.66, 1.0)
        skirting = (0.36, 0.25, 0.17, 1.0)
        # Floor boards: alternating planks read as a wooden floor from any angle.
        planks = 16
        verts: list[tuple[float, float, float]] = []
        tris: list[tuple[int, int, int]] = []
        cols: list[Colour] = []
        for k in range(planks):
            y0 = -s + 2 * s * k / planks
            y1 = -s + 2 * s * (k + 1) / planks
            shade = 0.92 if k % 2 else 1.0
            c = (wood[0] * shade, wood[1] * shade, wood[2] * shade, 1.0)
            base = len(verts)
            verts += [(-s, y0, floor_z), (s, y0, floor_z), (s, y1, floor_z), (-s, y1, floor_z)]
            cols += [c] * 4
            tris += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
        floor = room.attachNewNode(_mesh("floor", verts, tris, cols, normal=(0, 0, 1)))
        self._wood(floor)
        # A rug under the table.
        rx, ry = self._table_half()[0] + 0.6, self._table_half()[1] + 0.7
        room.attachNewNode(_mesh("rug", [(-rx, -ry, floor_z + 0.002), (rx, -ry, floor_z + 0.002),
                                         (rx, ry, floor_z + 0.002), (-rx, ry, floor_z + 0.002)],
                                 [(0, 1, 2), (0, 2, 3)], [(0.22, 0.26, 0.34, 1.0)] * 4,
                                 normal=(0, 0, 1)))
        top = floor_z + ROOM_HEIGHT
        for corners, normal in (
            (((-s, s), (s, s)), (0, -1, 0)), (((s, -s), (-s, -s)), (0, 1, 0)),
            (((s, s), (s, -s)), (-1, 0, 0)), (((-s, -s), (-s, s)), (1, 0, 0)),
        ):
            (x0, y0), (x1, y1) = corners
            quad = [(x1, y1, floor_z), (x0, y0, floor_z), (x0, y0, top), (x1, y1, top)]
            room.attachNewNode(_mesh("wall", quad, [(0, 1, 2), (0, 2, 3)], [wall] * 4,
                                     normal=normal))
            low = [(x1, y1, floor_z), (x0, y0, floor_z), (x0, y0, floor_z + 0.12),
                   (x1, y1, floor_z + 0.12)]
            skirt = room.attachNewNode(_mesh("skirting", low, [(0, 1, 2), (0, 2, 3)],
                                             [skirting] * 4, normal=normal))
            skirt.setDepthOffset(1)
        ceiling = [(-s, -s, top), (-s, s, top), (s, s, top), (s, -s, top)]
        room.attachNewNode(_mesh("ceiling", ceiling, [(0, 1, 2), (0, 2, 3)],
                                 [(0.9, 0.88, 0.84, 1.0)] * 4, normal=(0, 0, -1)))
        # One-sided, facing in: an orbit that leaves the room sees through the walls.

    def _table_half(self) -> tuple[float, float]:
        t = self.table
        return (t.width / 2, t.depth / 2) if t.shape == "rect" else (t.radius, t.radius)

    def _build_table(self) -> NodePath:
        """The table (wood, legs and the felt cloth): its node."""
        t = self.table
        felt = (*FELT, 1.0)
        wood = (*TABLE_WOOD, 1.0)
        node = self._static.attachNewNode("table")
        if t.shape == "rect":
            hx, hy = t.width / 2, t.depth / 2
            # No top face: the felt cloth covers it exactly, and a full-window textured
            # face drawn under the cloth cost llvmpipe a tenth of a frame.
            node.attachNewNode(_box((-hx, -hy, -TABLE_THICKNESS), (hx, hy, -0.001), wood, None))
            leg_at = [(sx * (hx - 0.07), sy * (hy - 0.07)) for sx in (-1, 1) for sy in (-1, 1)]
        else:
            node.attachNewNode(_cylinder(t.radius, -TABLE_THICKNESS, -0.001, wood, felt))
            leg_at = [(0.0, 0.0)]
        for x, y in leg_at:
            w = 0.035 if t.shape == "rect" else 0.07
            node.attachNewNode(_box((x - w, y - w, -t.height), (x + w, y + w, -TABLE_THICKNESS),
                                    wood, wood))
        self._wood(node)
        self._felt_cloth().reparentTo(node)
        return node

    def _felt_cloth(self) -> NodePath:
        """The felt as a textured cloth just over the table top: woven noise tiled every
        FELT_TILE metres reads as cloth at any distance (the bare top is one flat colour)."""
        t = self.table
        if t.shape == "rect":
            hx, hy = t.width / 2, t.depth / 2
            outline = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
        else:
            n = 64
            outline = [(t.radius * math.cos(2 * math.pi * k / n),
                        t.radius * math.sin(2 * math.pi * k / n)) for k in range(n)]
        fmt = GeomVertexFormat.getV3n3t2()
        data = GeomVertexData("felt", fmt, Geom.UH_static)
        vw, nw, tw = (GeomVertexWriter(data, c) for c in ("vertex", "normal", "texcoord"))
        for x, y in outline:
            vw.addData3(x, y, FELT_Z)
            nw.addData3(0, 0, 1)
            tw.addData2(x / FELT_TILE, y / FELT_TILE)
        prim = GeomTriangles(Geom.UH_static)
        for k in range(1, len(outline) - 1):
            prim.addVertices(0, k, k + 1)
        geom = Geom(data)
        geom.addPrimitive(prim)
        gn = GeomNode("felt")
        gn.addGeom(geom)
        cloth = NodePath(gn)
        mat = Material("felt")
        mat.setAmbient((1, 1, 1, 1))
        mat.setDiffuse((1, 1, 1, 1))
        cloth.setMaterial(mat)
        cloth.setTexture(self._texture(felt_look(), CLOTH_SAMPLING), 1)
        cloth.setDepthOffset(1)
        return cloth

    def _build_obstacles(self) -> None:
        stone = (0.55, 0.56, 0.6, 1.0)
        top = (0.68, 0.69, 0.72, 1.0)
        node = self._static.attachNewNode("obstacles")
        for ob in self.table.obstacles:
            if ob.kind == "box":
                sx, sy, sz = ob.size
                part = node.attachNewNode(_box((-sx / 2, -sy / 2, 0.0), (sx / 2, sy / 2, sz), stone, top))
            else:
                r, h = ob.size[0], ob.size[1]
                part = node.attachNewNode(_cylinder(r, 0.0, h, stone, top))
            part.setPos(ob.position[0], ob.position[1], 0.0)
            part.setH(ob.yaw_deg)

    def _wood(self, node: NodePath) -> None:
        """Wood grain on a node's faces (planar texture coordinates, WOOD_TILE m a repeat)."""
        node.setTexture(self._texture(wood_look(), CLOTH_SAMPLING), 1)
        node.setTexScale(TextureStage.getDefault(), 1 / WOOD_TILE)

    def _build_lights(self) -> None:
        amb = AmbientLight("ambient")
        amb.setColor((0.42, 0.42, 0.45, 1))
        key = DirectionalLight("key")
        key.setColor((0.78, 0.76, 0.70, 1))
        key_np = self.root.attachNewNode(key)
        key_np.lookAt(Vec3(*LIGHT_DIR))
        fill = PointLight("lamp")
        fill.setColor((0.25, 0.24, 0.22, 1))
        fill.setAttenuation((1, 0, 0.05))
        fill_np = self.root.attachNewNode(fill)
        fill_np.setPos(-1.0, -1.2, 1.6)
        for light in (self.root.attachNewNode(amb), key_np, fill_np):
            self._static.setLight(light)
            self.dice_root.setLight(light)


# -- geometry helpers ------------------------------------------------------------------------


def _unit(v: tuple[float, float, float]) -> tuple[float, float, float]:
    n = math.sqrt(sum(c * c for c in v))
    return (v[0] / n, v[1] / n, v[2] / n)


def _mesh(name: str, verts: list[tuple[float, float, float]], tris: list[tuple[int, int, int]],
          colours: list[Colour], normal: tuple[float, float, float] | None = None,
          lit: bool = True) -> GeomNode:
    """Triangles with one shared normal (flat normals from the first triangle when none
    is given). Lit meshes carry their colour as a material, one Geom per colour: the
    software renderer multiplies a lit vertex colour in twice, a material once, and on a
    GPU a material is the fixed-function way too. Unlit meshes (marks) keep vertex colours."""
    if normal is None:
        a, b, c = (np.array(verts[i]) for i in tris[0])
        n = np.cross(b - a, c - a)
        nn = float(np.linalg.norm(n))
        normal = (0.0, 0.0, 1.0) if nn < 1e-12 else tuple((n / nn).tolist())  # type: ignore[assignment]
    assert normal is not None
    faces = [([verts[i] for i in t], normal, colours[t[0]]) for t in tris]
    return _faces_node(name, faces, lit)


def _band(a: tuple[float, float, float], b: tuple[float, float, float], w: float,
          colour: Colour) -> GeomNode:
    """A thin unlit band from a to b, widened across the direction in the plane that
    contains z (vertical segments widen along x; horizontal ones along z)."""
    d = np.subtract(b, a)
    side = np.array([0.0, 0.0, w]) if abs(d[2]) < 1e-9 else np.array([w, 0.0, 0.0])
    pa, pb = np.array(a), np.array(b)
    verts = [tuple((pa - side).tolist()), tuple((pb - side).tolist()),
             tuple((pb + side).tolist()), tuple((pa + side).tolist())]
    return _mesh("band", verts, [(0, 1, 2), (0, 2, 3)], [colour] * 4,  # type: ignore[arg-type]
                 normal=(0, 0, 1), lit=False)


def _box(lo: tuple[float, float, float], hi: tuple[float, float, float], side: Colour,
         top: Colour | None) -> GeomNode:
    """A box; `top` None leaves its top face out (something else covers it exactly)."""
    return _box_faces(lo, hi, side, top, open_top=top is None)


def _box_faces(lo: tuple[float, float, float], hi: tuple[float, float, float], side: Colour,
               top: Colour | None = None, lit: bool = True, open_top: bool = False) -> GeomNode:
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    faces: list[Polygon] = [] if open_top else [
        ([(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], (0, 0, 1), top or side)]
    faces += [
        ([(x0, y1, z0), (x1, y1, z0), (x1, y0, z0), (x0, y0, z0)], (0, 0, -1), side),
        ([(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)], (0, -1, 0), side),
        ([(x1, y1, z0), (x0, y1, z0), (x0, y1, z1), (x1, y1, z1)], (0, 1, 0), side),
        ([(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)], (1, 0, 0), side),
        ([(x0, y1, z0), (x0, y0, z0), (x0, y0, z1), (x0, y1, z1)], (-1, 0, 0), side),
    ]
    return _faces_node("box", faces, lit)


def _cylinder(radius: float, z0: float, z1: float, side: Colour, top: Colour, n: int = 48) -> GeomNode:
    faces: list[Polygon] = []
    ring = [(radius * math.cos(2 * math.pi * k / n), radius * math.sin(2 * math.pi * k / n))
            for k in range(n)]
    faces.append(([(x, y, z1) for x, y in ring], (0, 0, 1), top))
    faces.append(([(x, y, z0) for x, y in reversed(ring)], (0, 0, -1), side))
    for k in range(n):
        (xa, ya), (xb, yb) = ring[k], ring[(k + 1) % n]
        mid = 2 * math.pi * (k + 0.5) / n
        faces.append(([(xa, ya, z0), (xb, yb, z0), (xb, yb, z1), (xa, ya, z1)],
                      (math.cos(mid), math.sin(mid), 0.0), side))
    return _faces_node("cylinder", faces)


def _faces_node(name: str, faces: list[Polygon], lit: bool = True) -> GeomNode:
    """Convex polygons (vertices, normal, colour) as one node: lit ones grouped into one
    Geom per colour with a material, unlit ones with vertex colours."""
    node = GeomNode(name)
    groups: dict[Colour, list[tuple[list[tuple[float, float, float]], tuple[float, float, float]]]]
    groups = {}
    for verts, normal, colour in faces:
        key = colour if lit else (1.0, 1.0, 1.0, 1.0)
        groups.setdefault(key, []).append((verts, normal))
    colour_of = {id(f[0]): f[2] for f in faces}
    for colour, polys in groups.items():
        fmt = GeomVertexFormat.getV3n3t2() if lit else GeomVertexFormat.getV3n3c4()
        data = GeomVertexData(name, fmt, Geom.UH_static)
        vw, nw = GeomVertexWriter(data, "vertex"), GeomVertexWriter(data, "normal")
        tw = GeomVertexWriter(data, "texcoord") if lit else None
        cw = None if lit else GeomVertexWriter(data, "color")
        prim = GeomTriangles(Geom.UH_static)
        row = 0
        for verts, normal in polys:
            # Planar texture coordinates in metres, across the face's dominant axis: a
            # grain texture (wood) runs along x or along the length of a vertical face.
            drop = int(np.argmax(np.abs(normal)))
            keep = [k for k in range(3) if k != drop]
            for v in verts:
                vw.addData3(*v)
                nw.addData3(*normal)
                if tw is not None:
                    tw.addData2(v[keep[0]], v[keep[1]])
                if cw is not None:
                    cw.addData4(*colour_of[id(verts)])
            for k in range(1, len(verts) - 1):
                prim.addVertices(row, row + k, row + k + 1)
            row += len(verts)
        geom = Geom(data)
        geom.addPrimitive(prim)
        if lit:
            node.addGeom(geom, _material_state(colour))
        else:
            node.addGeom(geom)
    return node


@functools.cache
def _material_state(colour: Colour) -> RenderState:
    """One render state per colour, shared by every mesh of that colour: Panda3D then draws
    them without a state change between, and flattening can merge them (a Material made
    per mesh is a state of its own: the large hex board's 276 pieces were 276 states)."""
    mat = Material(f"colour-{colour}")
    mat.setAmbient(colour)
    mat.setDiffuse(colour)
    return RenderState.make(MaterialAttrib.make(mat))


# -- physically based shading -------------------------------------------------------------


def _srgb_texture(tex: Texture) -> None:
    """Mark a colour texture as sRGB so OpenGL hands the shader linear values."""
    if tex.getFormat() in (Texture.F_rgba, Texture.F_rgba8):
        tex.setFormat(Texture.F_srgb_alpha)
    elif tex.getFormat() in (Texture.F_rgb, Texture.F_rgb8):
        tex.setFormat(Texture.F_srgb)


def _pbr_material(node: NodePath, kind: str) -> None:
    """A white, non-metallic material of a kind's roughness (the texture gives the colour)."""
    mat = Material(f"{kind}-pbr")
    mat.setBaseColor((1, 1, 1, 1))
    mat.setRoughness(ROUGHNESS[kind])
    mat.setMetallic(0.0)
    node.setMaterial(mat, 1)


def _linearize(root: NodePath) -> None:
    """Every material and vertex colour under `root` in linear light, each material with the
    roughness its name calls for (ROUGHNESS)."""
    for np_ in root.findAllMatches("**/+GeomNode"):
        gnode = np_.node()
        for i in range(gnode.getNumGeoms()):
            state = gnode.getGeomState(i)
            if state.hasAttrib(MaterialAttrib):
                old = state.getAttrib(MaterialAttrib).getMaterial()
                gnode.setGeomState(i, state.setAttrib(MaterialAttrib.make(_linear_material(old))))
            geom = gnode.modifyGeom(i)
            vdata = geom.modifyVertexData()
            if vdata.hasColumn("color"):
                from panda3d.core import GeomVertexRewriter

                rw = GeomVertexRewriter(vdata, "color")
                while not rw.isAtEnd():
                    c = rw.getData4()
                    rw.setData4(*linear((c[0], c[1], c[2], c[3])))
    for np_ in root.findAllMatches("**"):
        if np_.hasMaterial():
            np_.setMaterial(_linear_material(np_.getMaterial()), 1)


def _linear_material(old: Material) -> Material:
    mat = Material(old)
    d = old.getDiffuse()
    mat.setBaseColor((*linear((d[0], d[1], d[2])), d[3]))
    kind = next((k for k in ROUGHNESS if old.getName().startswith(k)), "default")
    mat.setRoughness(ROUGHNESS[kind])
    mat.setMetallic(0.0)
    return mat
