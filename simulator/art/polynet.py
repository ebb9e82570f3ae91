"""Printable paper nets of any convex die with planar faces, at true scale.

The d8 of Deep White Sea has its own two-fan net with face art (`simulator.art.net`); any
other die (the d20, d12, a d10, a mesh die's hull) gets this one: the faces are unfolded
along a spanning tree of the face graph, each child face turned flat about the edge it
shares with its parent, so every face keeps its true shape. A face joins the piece only
where it overlaps no face already laid (convex polygons, separating-axis test); a face that
fits nowhere starts a new piece. Every die edge that is not a fold is a join: a tab on one
face and the same letter at the matching edge of the other. Faces carry their values (a die
read at its top corner, the d4, carries each corner's number at that corner).

Page coordinates are millimetres with y down (as in SVG), seen from the printed side, which
becomes the outside of the die. `tests/test_polynet.py` folds each net in code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from dice_models.geometry import Point, Polyhedron, segment_distance
from dice_models.outfiles import write_text
from simulator.art.net import CUT_WIDTH, FOLD_WIDTH, PAPERS, TAB_DEPTH

MARGIN = 12.0  # mm around the page's edge
TITLE_SPACE = 20.0  # mm kept at the top for the title and scale bar
GAP = 4.0 + TAB_DEPTH  # mm between pieces
TAB_SHARES = (1.0, 0.6, 0.35)  # tab depths tried, as shares of the full depth


@dataclass(frozen=True)
class PolyNetFace:
    face: int  # geometry face index
    piece: int
    corners: tuple[tuple[int, Point], ...]  # vertex index -> page position (mm)
    parent: int | None  # the face it is folded from (None: its piece's first face)

    def at(self, vertex: int) -> Point:
        return dict(self.corners)[vertex]


@dataclass(frozen=True)
class PolyJoin:
    letter: str
    kind: str  # 'tab' or 'mark'
    face: int
    edge: tuple[int, int]  # die vertex indices
    ends: tuple[Point, Point]
    outward: Point
    depth: float = 1.0  # share of the full tab depth (a tab shrinks to clear a neighbour)


@dataclass(frozen=True)
class PolyNet:
    name: str
    page: tuple[float, float]
    paper: str
    faces: tuple[PolyNetFace, ...]
    folds: tuple[tuple[int, int], ...]  # (parent face, child face); then edges closed flat
    joins: tuple[PolyJoin, ...]
    labels: tuple[tuple[Point, float, str], ...]  # (position, font size mm, text)

    def face_of(self, face: int) -> PolyNetFace:
        return next(f for f in self.faces if f.face == face)


def build_polynet(poly: Polyhedron, values: tuple[int, ...], name: str, paper: str = "a4",
                  corner_values: dict[int, int] | None = None) -> PolyNet:
    """Unfold `poly` (m) onto a page of `paper` at true scale. `corner_values` (vertex ->
    number, `DieShape.corner_values`): print those at each face's corners instead of the
    face's value (a die read at its top corner)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    pieces = _unfold(poly)
    page = PAPERS[paper]
    faces: list[PolyNetFace] = []
    y = MARGIN + TITLE_SPACE
    x = MARGIN
    row_height = 0.0
    for k, piece in enumerate(pieces):
        piece = _best_turn(piece)
        xs = [p[0] for f in piece for _v, p in f.corners]
        ys = [p[1] for f in piece for _v, p in f.corners]
        w, h = max(xs) - min(xs) + 2 * TAB_DEPTH, max(ys) - min(ys) + 2 * TAB_DEPTH
        if x + w > page[0] - MARGIN and x > MARGIN:  # next row
            x, y = MARGIN, y + row_height + GAP
            row_height = 0.0
        dx, dy = x + TAB_DEPTH - min(xs), y + TAB_DEPTH - min(ys)
        faces += [PolyNetFace(f.face, k, tuple((v, (p[0] + dx, p[1] + dy)) for v, p in f.corners),
                              f.parent) for f in piece]
        x += w + GAP
        row_height = max(row_height, h)
        if x - GAP > page[0] - MARGIN + 1e-9 or y + h > page[1] - MARGIN + 1e-9:
            raise ValueError(f"the net of {name} does not fit on {paper} paper at true scale")
    folds = tuple((f.parent, f.face) for f in faces if f.parent is not None)
    folds += _closed(poly, faces, folds)
    joins = _joins(poly, faces, folds)
    labels = _labels(faces, values, corner_values)
    return PolyNet(name, page, paper, tuple(faces), folds, joins, labels)


def polynet_svg(net: PolyNet, subtitle: str) -> str:
    w, h = net.page
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
           f'viewBox="0 0 {w} {h}">',
           f"<title>{escape(net.name)}: paper net</title>",
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>',
           f'<text x="{MARGIN}" y="{MARGIN}" font-family="DejaVu Sans, sans-serif" '
           f'font-size="4.2">{escape(net.name)}: paper net</text>',
           f'<text x="{MARGIN}" y="{MARGIN + 5.5}" font-family="DejaVu Sans, sans-serif" '
           f'font-size="3">{escape(subtitle)}</text>',
           f'<line x1="{w - 62}" y1="{MARGIN + 8}" x2="{w - 12}" y2="{MARGIN + 8}" '
           f'stroke="black" stroke-width="0.5"/>']
    for j in net.joins:
        if j.kind == "tab":
            pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in tab_polygon(j))
            out.append(f'<polygon points="{pts}" fill="#ececec" stroke="black" '
                       f'stroke-width="{CUT_WIDTH}"/>')
    for f in net.faces:
        pts = " ".join(f"{x:.3f},{y:.3f}" for _v, (x, y) in f.corners)
        out.append(f'<polygon points="{pts}" fill="#fbfaf5" stroke="none"/>')
    fold_keys = {_key(_edge_ends(net, a, b)) for a, b in net.folds}
    tab_keys = {_key(j.ends) for j in net.joins if j.kind == "tab"}
    for f in net.faces:
        n = len(f.corners)
        for k in range(n):
            ends = (f.corners[k][1], f.corners[(k + 1) % n][1])
            key = _key(ends)
            (ax, ay), (bx, by) = ends
            if key in fold_keys or key in tab_keys:
                out.append(f'<line x1="{ax:.3f}" y1="{ay:.3f}" x2="{bx:.3f}" y2="{by:.3f}" '
                           f'stroke="#555555" stroke-width="{FOLD_WIDTH}" '
                           f'stroke-dasharray="1.5 1"/>')
            else:
                out.append(f'<line x1="{ax:.3f}" y1="{ay:.3f}" x2="{bx:.3f}" y2="{by:.3f}" '
                           f'stroke="black" stroke-width="{CUT_WIDTH}"/>')
    for (x, y), size, text in net.labels:
        out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-family="DejaVu Sans, sans-serif" '
                   f'font-weight="bold" font-size="{size:.2f}" text-anchor="middle" '
                   f'dominant-baseline="central">{escape(text)}</text>')
    for j in net.joins:
        (ax, ay), (bx, by) = j.ends
        depth = TAB_DEPTH / 2 if j.kind == "tab" else 2.2
        x, y = (ax + bx) / 2 + j.outward[0] * depth, (ay + by) / 2 + j.outward[1] * depth
        out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-family="DejaVu Sans, sans-serif" '
                   f'font-size="3" text-anchor="middle" dominant-baseline="central">'
                   f'{j.letter}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_polynet(net: PolyNet, path: str | Path, subtitle: str) -> Path:
    path = Path(path)
    if path.suffix.lower() != ".svg":
        raise ValueError(f"a net of any die is written as .svg, got {path.name!r}")
    return write_text(path, polynet_svg(net, subtitle), "--out")


def tab_polygon(join: PolyJoin) -> list[Point]:
    """A tab's outline: TAB_DEPTH deep, or 0.3 of a short edge (a d20's 13 mm edges), its
    ends cut in at 45 deg; a shallower tab (`depth` < 1) keeps the same inset, so its ends
    slant more and it fits a narrow notch (a d12's are 36 deg)."""
    (ax, ay), (bx, by) = join.ends
    ox, oy = join.outward
    length = math.hypot(bx - ax, by - ay)
    ux, uy = (bx - ax) / length, (by - ay) / length
    inset = min(TAB_DEPTH, 0.3 * length)
    depth = inset * join.depth
    return [(ax, ay), (ax + ux * inset + ox * depth, ay + uy * inset + oy * depth),
            (bx - ux * inset + ox * depth, by - uy * inset + oy * depth), (bx, by)]


# ---------------------------------------------------------------------------------------
# Helpers


def _unfold(poly: Polyhedron) -> list[list[PolyNetFace]]:
    """Pieces of faces laid flat (mm, y down), each a tree of folds; breadth first from the
    face with the most neighbours, a face attached wherever it overlaps nothing laid."""
    verts = poly.vertices * 1000.0
    left = set(range(poly.n_faces))
    pieces: list[list[PolyNetFace]] = []
    while left:
        root = max(sorted(left), key=lambda f: len(poly.adjacency[f]))
        laid = {root: _flat_face(poly, verts, root)}
        parents: dict[int, int | None] = {root: None}
        queue = [root]
        while queue:
            f = queue.pop(0)
            for g in sorted(poly.adjacency[f]):
                if g in laid or g not in left:
                    continue
                shape = _turn_flat(poly, verts, f, g, laid[f])
                if any(polygons_overlap(list(shape.values()), list(p.values())) for p in laid.values()):
                    continue
                laid[g], parents[g] = shape, f
                queue.append(g)
        pieces.append([PolyNetFace(f, len(pieces), tuple(laid[f].items()), parents[f])
                       for f in laid])
        left -= set(laid)
    return pieces


def _flat_face(poly: Polyhedron, verts: np.ndarray, face: int) -> dict[int, Point]:
    """A face laid on the page seen from outside: x along its first edge, y down."""
    idx = list(poly.faces[face])
    n = poly.normals[face]
    u = verts[idx[1]] - verts[idx[0]]
    u /= np.linalg.norm(u)
    w = np.cross(n, u)
    return {v: (float((verts[v] - verts[idx[0]]) @ u), -float((verts[v] - verts[idx[0]]) @ w))
            for v in idx}


def _turn_flat(poly: Polyhedron, verts: np.ndarray, f: int, g: int,
               placed: dict[int, Point]) -> dict[int, Point]:
    """Face g turned flat about its edge with the laid face f, on the far side of that edge."""
    a, b = poly.adjacency[f][g]
    pa, pb = np.array(placed[a]), np.array(placed[b])
    e2 = (pb - pa) / np.linalg.norm(pb - pa)
    perp2 = np.array([-e2[1], e2[0]])
    inside = np.mean([p for p in placed.values()], axis=0)
    if float((inside - pa) @ perp2) > 0:
        perp2 = -perp2
    e3 = verts[b] - verts[a]
    e3 /= np.linalg.norm(e3)
    out: dict[int, Point] = {}
    for v in poly.faces[g]:
        d = verts[v] - verts[a]
        along = float(d @ e3)
        across = float(np.linalg.norm(d - along * e3))
        p = pa + along * e2 + across * perp2
        out[v] = (float(p[0]), float(p[1]))
    return out


def polygons_overlap(p: list[Point], q: list[Point]) -> bool:
    """Do two convex polygons overlap by more than touching (separating-axis test)?"""
    for poly in (p, q):
        n = len(poly)
        for k in range(n):
            (ax, ay), (bx, by) = poly[k], poly[(k + 1) % n]
            axis = (ay - by, bx - ax)
            sp = [x * axis[0] + y * axis[1] for x, y in p]
            sq = [x * axis[0] + y * axis[1] for x, y in q]
            if min(max(sp), max(sq)) - max(min(sp), min(sq)) <= 1e-6 * math.hypot(*axis):
                return False
    return True


def _best_turn(piece: list[PolyNetFace]) -> list[PolyNetFace]:
    """The piece turned (in 1 deg steps) to the least width, so wide pieces stack."""
    pts = np.array([p for f in piece for _v, p in f.corners])

    def width(deg: float) -> float:
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        return float(np.ptp(pts[:, 0] * c - pts[:, 1] * s))

    best = min(range(0, 180), key=lambda d: (round(width(d), 6), d))
    c, s = math.cos(math.radians(best)), math.sin(math.radians(best))
    return [PolyNetFace(f.face, f.piece, tuple((v, (x * c - y * s, x * s + y * c))
                                               for v, (x, y) in f.corners), f.parent)
            for f in piece]


def _closed(poly: Polyhedron, faces: list[PolyNetFace],
            folds: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Die edges whose two faces happen to lie side by side on the page along that edge
    (a d12's net closes a notch so): a fold too, with no room for a tab nor need of one."""
    by_face = {f.face: f for f in faces}
    folded = {frozenset(p) for p in folds}
    out = []
    for f in range(poly.n_faces):
        for g in poly.adjacency[f]:
            if f < g and frozenset((f, g)) not in folded:
                a, b = poly.adjacency[f][g]
                ff, gg = by_face[f], by_face[g]
                if ff.piece == gg.piece and all(math.dist(ff.at(v), gg.at(v)) < 1e-6
                                                for v in (a, b)):
                    out.append((f, g))
    return tuple(out)


def _joins(poly: Polyhedron, faces: list[PolyNetFace],
           folds: tuple[tuple[int, int], ...]) -> tuple[PolyJoin, ...]:
    folded = {frozenset(p) for p in folds}
    by_face = {f.face: f for f in faces}
    out: list[PolyJoin] = []
    pairs = sorted((f, g) for f in range(poly.n_faces) for g in poly.adjacency[f] if f < g)
    taken = [[p for _v, p in f.corners] for f in faces]
    for k, (f, g) in enumerate(p for p in pairs if frozenset(p) not in folded):
        letter = _letter(k)
        edge = poly.adjacency[f][g]
        # the tab on whichever side overlaps no face and no tab laid so far, as deep as
        # it can be there (a d12's tabs meet the faces beside a notch of the net)
        tries = [(replace(_join(letter, "tab", by_face[side], edge), depth=depth), other)
                 for depth in TAB_SHARES for side, other in ((f, g), (g, f))]
        fits = [(tab, other) for tab, other in tries
                if not any(polygons_overlap(tab_polygon(tab), q) for q in taken)]
        if not fits:
            raise ValueError(f"the net has no room for join {letter}'s tab")
        tab, other = fits[0]
        taken.append(tab_polygon(tab))
        out += [tab, _join(letter, "mark", by_face[other], edge)]
    return tuple(out)


def _join(letter: str, kind: str, face: PolyNetFace, edge: tuple[int, int]) -> PolyJoin:
    p, q = face.at(edge[0]), face.at(edge[1])
    centre = np.mean([pt for _v, pt in face.corners], axis=0)
    ex, ey = q[0] - p[0], q[1] - p[1]
    n = math.hypot(ex, ey)
    ox, oy = -ey / n, ex / n
    if (centre[0] - (p[0] + q[0]) / 2) * ox + (centre[1] - (p[1] + q[1]) / 2) * oy > 0:
        ox, oy = -ox, -oy
    return PolyJoin(letter, kind, face.face, edge, (p, q), (ox, oy))


def _labels(faces: list[PolyNetFace], values: tuple[int, ...],
            corner_values: dict[int, int] | None) -> tuple[tuple[Point, float, str], ...]:
    out = []
    for f in faces:
        pts = np.array([p for _v, p in f.corners])
        centre = pts.mean(axis=0)
        reach = min(segment_distance(centre, pts[k], pts[(k + 1) % len(pts)]) for k in range(len(pts)))
        if corner_values:  # the number printed at each corner
            for v, p in f.corners:
                if v in corner_values:
                    spot = centre + 0.55 * (np.array(p) - centre)
                    out.append(((float(spot[0]), float(spot[1])), 0.5 * reach,
                                _shown(corner_values[v])))
        else:
            out.append(((float(centre[0]), float(centre[1])), 0.9 * reach, _shown(values[f.face])))
    return tuple(out)


def _shown(value: int) -> str:
    """6 and 9 (and 66, 99...) underlined with a dot so they read the right way up."""
    text = str(value)
    return text + "." if text.strip("69") == "" else text


def _edge_ends(net: PolyNet, f: int, g: int) -> tuple[Point, Point]:
    a, b = sorted(set(v for v, _p in net.face_of(f).corners)
                  & set(v for v, _p in net.face_of(g).corners))
    face = net.face_of(g)
    return (face.at(a), face.at(b))


def _key(ends: tuple[Point, Point]) -> tuple[tuple[float, float], ...]:
    return tuple(sorted((round(x, 4), round(y, 4)) for x, y in ends))


def _letter(k: int) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26]
