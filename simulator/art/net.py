"""Printable paper nets for Deep White Sea dice, at true scale.

A paper d8 is folded from two halves (rulebook, "About the Dice"): the four faces around
the z-axis corner of each half unfold into a fan of four triangles around that corner.
Each face sits in the fan with its `top` corner on the fan's centre, so the face images
(`simulator.art.faces`) go onto the net unmirrored and the corners printed on the paper
are the model's corners. Six joins close the die: A and B close the seam of each half
into a pyramid, C to F join the halves along the equator (E and F close together). Each
join has a tab on one edge and its letter at the matching edge.

Page coordinates are millimetres with y down (as in SVG), seen from the printed side,
which becomes the outside of the die.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw

from dice_models.crews import AXES, CORNER_UV, CORNERS, CrewDie, sign_vector
from dice_models.geometry import Point
from dice_models.outfiles import write_text, write_with
from simulator.art.faces import art_font, render_side

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm
TAB_DEPTH = 6.0  # mm
TAB_SLOPE = 45.0  # degrees between a tab's base and its ends
MARGIN_TOP = 24.0  # mm kept for the title and scale bar
FACE_IMAGE_PX = 640  # about 320 dpi on a 50 mm face
CUT_WIDTH, FOLD_WIDTH = 0.3, 0.25  # mm


@dataclass(frozen=True)
class NetFace:
    side: int
    face: int  # geometry face index
    piece: int  # 0: the half holding side 1; 1: the other half
    corners: tuple[tuple[str, Point], ...]  # author corner name -> page position (mm)

    def at(self, corner: str) -> Point:
        return dict(self.corners)[corner]


@dataclass(frozen=True)
class Join:
    """One end of a join: a tab (glued or slotted under) or the edge it meets."""

    letter: str
    kind: str  # 'tab' or 'mark'
    side: int
    corners: tuple[str, str]  # the side's two corners bounding this edge
    ends: tuple[Point, Point]  # page positions (mm)
    outward: Point  # unit vector away from the face, on the page


@dataclass(frozen=True)
class Fold:
    sides: tuple[int, int]
    ends: tuple[Point, Point]


@dataclass(frozen=True)
class DieNet:
    die: CrewDie
    edge_mm: float
    paper: str
    page: tuple[float, float]  # mm
    faces: tuple[NetFace, ...]
    joins: tuple[Join, ...]
    folds: tuple[Fold, ...]

    def face_of(self, side: int) -> NetFace:
        return next(f for f in self.faces if f.side == side)

    def tab_polygon(self, join: Join) -> list[Point]:
        (ax, ay), (bx, by) = join.ends
        ox, oy = join.outward
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        inset = TAB_DEPTH / math.tan(math.radians(TAB_SLOPE))
        d = TAB_DEPTH
        return [(ax, ay), (ax + ux * inset + ox * d, ay + uy * inset + oy * d),
                (bx - ux * inset + ox * d, by - uy * inset + oy * d), (bx, by)]


def build_net(die: CrewDie, paper: str = "a4") -> DieNet:
    """Lay out both halves of `die` on a page of `paper` size, at true scale."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    a = die.edge * 1000.0
    half_of_side1 = sign_vector(die.face_of_side(1))[2]
    pieces = []
    for piece, z_sign in enumerate((half_of_side1, -half_of_side1)):
        pieces.append(_fan(die, z_sign, a, piece))
    # stack the halves, centred, below the title
    page_w, page_h = PAPERS[paper]
    placed: list[list[NetFace]] = []
    y = MARGIN_TOP
    for fan in pieces:
        pts = [p for f in fan for _c, p in f.corners]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        pad = TAB_DEPTH + 4.0
        dx = page_w / 2 - (min(xs) + max(xs)) / 2
        dy = y + pad - min(ys)
        placed.append([NetFace(f.side, f.face, f.piece,
                               tuple((c, (p[0] + dx, p[1] + dy)) for c, p in f.corners))
                       for f in fan])
        y += max(ys) - min(ys) + 2 * pad
    if y > page_h:
        raise ValueError(f"a net of edge {a:.0f} mm does not fit on {paper} paper")
    faces = tuple(f for fan in placed for f in fan)
    joins, folds = _joins_and_folds(die, placed)
    return DieNet(die=die, edge_mm=a, paper=paper, page=(page_w, page_h), faces=faces,
                  joins=joins, folds=folds)


def image_to_page(face: NetFace, image_px: int) -> tuple[float, float, float, float, float,
                                                          float]:
    """SVG matrix (a, b, c, d, e, f) taking face-image pixels onto the page (mm)."""
    src = [(CORNER_UV[c][0] * image_px, CORNER_UV[c][1] * image_px) for c in CORNERS]
    dst = [face.at(c) for c in CORNERS]
    return _affine(src, dst)


def net_svg(net: DieNet, image_px: int = FACE_IMAGE_PX) -> str:
    w, h = net.page
    die = net.die
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">',
        f"<title>{escape(die.name)} ({escape(die.team)}): paper net</title>",
        "<defs>",
    ]
    for f in net.faces:
        pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in (f.at(c) for c in CORNERS))
        out.append(f'<clipPath id="side-{f.side}"><polygon points="{pts}"/></clipPath>')
    out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>')
    for line in _title_lines(net):
        out.append(f'<text x="{line[0]:.2f}" y="{line[1]:.2f}" font-family="DejaVu Sans, '
                   f'sans-serif" font-size="{line[2]}">{escape(line[3])}</text>')
    x0, y0, x1 = _scale_bar(net)
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="black" '
               f'stroke-width="0.5"/>')
    for j in net.joins:
        if j.kind == "tab":
            pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in net.tab_polygon(j))
            out.append(f'<polygon points="{pts}" fill="#ececec" stroke="black" '
                       f'stroke-width="{CUT_WIDTH}"/>')
    for f in net.faces:
        m = image_to_page(f, image_px)
        data = base64.b64encode(_png_bytes(render_side(die, f.side, image_px))).decode()
        out.append(f'<g clip-path="url(#side-{f.side})"><image width="{image_px}" '
                   f'height="{image_px}" transform="matrix({" ".join(f"{v:.6f}" for v in m)})" '
                   f'xlink:href="data:image/png;base64,{data}" '
                   f'href="data:image/png;base64,{data}"/></g>')
    for (ax, ay), (bx, by) in _cut_segments(net):
        out.append(f'<line x1="{ax:.3f}" y1="{ay:.3f}" x2="{bx:.3f}" y2="{by:.3f}" '
                   f'stroke="black" stroke-width="{CUT_WIDTH}"/>')
    for (ax, ay), (bx, by) in _fold_segments(net):
        out.append(f'<line x1="{ax:.3f}" y1="{ay:.3f}" x2="{bx:.3f}" y2="{by:.3f}" '
                   f'stroke="#555555" stroke-width="{FOLD_WIDTH}" stroke-dasharray="1.5 1"/>')
    for (x, y), letter in _letter_spots(net):
        out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-family="DejaVu Sans, sans-serif" '
                   f'font-weight="bold" font-size="4" text-anchor="middle" '
                   f'dominant-baseline="central">{letter}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def net_image(net: DieNet, dpi: int = 300) -> Image.Image:
    """The same net drawn with Pillow (for PNG previews and the PDF)."""
    k = dpi / 25.4  # px per mm
    w, h = net.page
    page = Image.new("RGB", (round(w * k), round(h * k)), "white")
    draw = ImageDraw.Draw(page)

    def px(p: Point) -> Point:
        return (p[0] * k, p[1] * k)

    for j in net.joins:
        if j.kind == "tab":
            draw.polygon([px(p) for p in net.tab_polygon(j)], fill=(236, 236, 236))
    image_px = max(64, round(net.edge_mm * k / (CORNER_UV["right"][0] - CORNER_UV["left"][0])))
    for f in net.faces:
        face_img = render_side(net.die, f.side, image_px)
        a, b, c, d, e, g = image_to_page(f, image_px)
        # page pixels -> face-image pixels: invert the (scaled) affine map
        m = _invert((a * k, b * k, c * k, d * k, e * k, g * k))
        tri = [px(f.at(cn)) for cn in CORNERS]
        x0, y0 = math.floor(min(p[0] for p in tri)), math.floor(min(p[1] for p in tri))
        x1, y1 = math.ceil(max(p[0] for p in tri)), math.ceil(max(p[1] for p in tri))
        ia, ib, ic, id_, ie, ig = m
        # Pillow's AFFINE data maps output (x, y) to input (A x + B y + C, D x + E y + F)
        data = (ia, ic, ia * x0 + ic * y0 + ie, ib, id_, ib * x0 + id_ * y0 + ig)
        patch = face_img.transform((x1 - x0, y1 - y0), Image.Transform.AFFINE, data,
                                   resample=Image.Resampling.BICUBIC)
        mask = Image.new("L", patch.size, 0)
        ImageDraw.Draw(mask).polygon([(x - x0, y - y0) for x, y in tri], fill=255)
        page.paste(patch, (x0, y0), mask)
    lw = max(1, round(CUT_WIDTH * k))
    for j in net.joins:
        if j.kind == "tab":
            poly = [px(p) for p in net.tab_polygon(j)]
            draw.line(poly, fill="black", width=lw)
    for a_, b_ in _cut_segments(net):
        draw.line([px(a_), px(b_)], fill="black", width=lw)
    for a_, b_ in _fold_segments(net):
        _dashed(draw, px(a_), px(b_), 1.5 * k, 1.0 * k, (85, 85, 85), max(1, round(FOLD_WIDTH * k)))
    for (x, y), letter in _letter_spots(net):
        draw.text(px((x, y)), letter, fill="black", font=art_font("bold", 4 * k), anchor="mm")
    for x, y, size, text in _title_lines(net):
        draw.text(px((x, y)), text, fill="black", font=art_font("regular", size * k), anchor="ls")
    sx0, sy, sx1 = _scale_bar(net)
    draw.line([px((sx0, sy)), px((sx1, sy))], fill="black", width=max(1, round(0.5 * k)))
    return page


def write_net(die: CrewDie, path: str | Path, paper: str = "a4") -> Path:
    """Write the net as .svg, .pdf (true scale, 300 dpi) or .png (300 dpi)."""
    path = Path(path)
    net = build_net(die, paper)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        write_text(path, net_svg(net), "--out")
    elif suffix == ".pdf":
        write_with(path, lambda tmp: net_image(net, 300).save(tmp, "PDF", resolution=300.0), "--out")
    elif suffix == ".png":
        write_with(path, lambda tmp: net_image(net, 300).save(tmp, dpi=(300, 300)), "--out")
    else:
        raise ValueError(f"net file must end in .svg, .pdf or .png, got {path.name!r}")
    return path


# ---------------------------------------------------------------------------------------
# Helpers


def _fan(die: CrewDie, z_sign: int, a: float, piece: int) -> list[NetFace]:
    """The four faces around the z-axis corner of sign z_sign, unfolded into a fan around
    the origin (page coordinates, y down), opening downwards."""
    faces = [die.face_of_side(n) for n in range(1, 9)]
    half = [f for f in faces if sign_vector(f)[2] == z_sign]
    start = min(half, key=lambda f: faces.index(f))
    # Walk towards the neighbour with the lower side number: through left edges the fan
    # turns clockwise on the page, through right edges counter-clockwise.
    clockwise = faces.index(_across(die, start, "left")) < faces.index(
        _across(die, start, "right"))
    chain = [start]
    while len(chain) < 4:
        chain.append(_across(die, chain[-1], "left" if clockwise else "right"))
    out = []
    for k, face in enumerate(chain):
        # angles counter-clockwise from +x with y up, spanning 240 degrees centred on -90
        if clockwise:
            left_ang, right_ang = 30 - 60 * (k + 1), 30 - 60 * k
        else:
            left_ang, right_ang = -210 + 60 * k, -210 + 60 * (k + 1)
        pts = {"top": (0.0, 0.0), "left": _polar(a, left_ang), "right": _polar(a, right_ang)}
        side = faces.index(face) + 1
        out.append(NetFace(side, face, piece, tuple((c, (pts[c][0], -pts[c][1]))
                                                     for c in CORNERS)))
    return out


def _across(die: CrewDie, face: int, corner: str) -> int:
    """The face across the edge joining the top corner and `corner` ('left' or 'right');
    it differs from `face` in the axis of the remaining corner."""
    other = "right" if corner == "left" else "left"
    k = AXES.index(die.corner_axis(die.side_on_face(face), other))
    s = list(sign_vector(face))
    s[k] = -s[k]
    return next(f for f in range(8) if sign_vector(f) == tuple(s))


def _joins_and_folds(die: CrewDie, placed: list[list[NetFace]]) -> tuple[tuple[Join, ...],
                                                                          tuple[Fold, ...]]:
    joins: list[Join] = []
    folds: list[Fold] = []
    for piece, fan in enumerate(placed):
        for f, g in zip(fan, fan[1:], strict=False):
            shared = _shared(f, g)
            folds.append(Fold((f.side, g.side), (f.at(shared[0]), f.at(shared[1]))))
        first, last = fan[0], fan[-1]
        letter = "AB"[piece]
        # the free radial edges of the first and last faces are one edge of the die
        c_first = next(c for c in ("left", "right") if c not in _shared(first, fan[1]))
        c_last = next(c for c in ("left", "right") if c not in _shared(last, fan[-2]))
        joins.append(_join(letter, "mark", first, ("top", c_first)))
        joins.append(_join(letter, "tab", last, ("top", c_last)))
    # the equator: each face of the first half meets the face of the other half that
    # shares its left and right corners (sign vectors differ only in z)
    for k, f in enumerate(placed[0]):
        s = list(sign_vector(f.face))
        s[2] = -s[2]
        g = next(x for x in placed[1] if sign_vector(x.face) == tuple(s))
        letter = "CDEF"[k]
        joins.append(_join(letter, "tab", f, ("left", "right")))
        # on the other face the same model corners carry the same axes
        corners = (die.axis_corner(g.side, die.corner_axis(f.side, "left")),
                   die.axis_corner(g.side, die.corner_axis(f.side, "right")))
        joins.append(_join(letter, "mark", g, corners))
    return tuple(joins), tuple(folds)


def _shared(f: NetFace, g: NetFace) -> tuple[str, str]:
    """Corners of f that coincide on the page with corners of g (a fold inside a fan)."""
    out = [c for c, p in f.corners if any(math.dist(p, q) < 1e-6 for _d, q in g.corners)]
    assert len(out) == 2, (f.side, g.side, out)
    return (out[0], out[1])


def _join(letter: str, kind: str, face: NetFace, corners: tuple[str, str]) -> Join:
    p, q = face.at(corners[0]), face.at(corners[1])
    third = next(face.at(c) for c in CORNERS if c not in corners)
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    ex, ey = q[0] - p[0], q[1] - p[1]
    n = math.hypot(ex, ey)
    ox, oy = -ey / n, ex / n
    if (third[0] - mx) * ox + (third[1] - my) * oy > 0:
        ox, oy = -ox, -oy
    return Join(letter, kind, face.side, corners, (p, q), (ox, oy))


def _cut_segments(net: DieNet) -> list[tuple[Point, Point]]:
    """Every face edge that is not a fold and carries no tab (tabs draw their own)."""
    fold_keys = {_key(f.ends) for f in net.folds}
    tab_keys = {_key(j.ends) for j in net.joins if j.kind == "tab"}
    segs = []
    for f in net.faces:
        for c1, c2 in (("top", "left"), ("left", "right"), ("right", "top")):
            ends = (f.at(c1), f.at(c2))
            if _key(ends) not in fold_keys and _key(ends) not in tab_keys:
                segs.append(ends)
    return segs


def _fold_segments(net: DieNet) -> list[tuple[Point, Point]]:
    return [f.ends for f in net.folds] + [j.ends for j in net.joins if j.kind == "tab"]


def _letter_spots(net: DieNet) -> list[tuple[Point, str]]:
    """Where the join letters go: in the middle of each tab, and just outside each marked
    edge."""
    out = []
    for j in net.joins:
        (ax, ay), (bx, by) = j.ends
        depth = TAB_DEPTH / 2 if j.kind == "tab" else 2.6
        out.append((((ax + bx) / 2 + j.outward[0] * depth, (ay + by) / 2 + j.outward[1] * depth),
                    j.letter))
    return out


def _title_lines(net: DieNet) -> list[tuple[float, float, float, str]]:
    d = net.die
    return [
        (12.0, 10.0, 4.2, f"{d.name} - {d.team} - {d.die_class} - {d.points} points"),
        (12.0, 15.5, 3.0, f"Paper d8, edge {net.edge_mm:.0f} mm. Print at 100% (no scaling); "
                          "the bar below is 50 mm. Cut solid lines, fold dashed lines."),
        (12.0, 19.5, 3.0, "Fold printed side out. Close A, then B; then C, D; E and F "
                          "close together."),
    ]


def _scale_bar(net: DieNet) -> tuple[float, float, float]:
    return (net.page[0] - 62.0, 22.0, net.page[0] - 12.0)


def _key(ends: tuple[Point, Point]) -> tuple[tuple[float, float], ...]:
    return tuple(sorted((round(x, 4), round(y, 4)) for x, y in ends))


def _polar(r: float, deg: float) -> Point:
    return (r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg)))


def _affine(src: list[Point], dst: list[Point]) -> tuple[float, float, float, float, float,
                                                         float]:
    """(a, b, c, d, e, f) with dst = (a x + c y + e, b x + d y + f) for the three pairs."""
    (x0, y0), (x1, y1), (x2, y2) = src
    det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    out = []
    for k in (0, 1):
        u0, u1, u2 = dst[0][k], dst[1][k], dst[2][k]
        p = ((u1 - u0) * (y2 - y0) - (u2 - u0) * (y1 - y0)) / det
        q = ((x1 - x0) * (u2 - u0) - (x2 - x0) * (u1 - u0)) / det
        out.append((p, q, u0 - p * x0 - q * y0))
    (a, c, e), (b, d, f) = out
    return (a, b, c, d, e, f)


def _invert(m: tuple[float, float, float, float, float, float]) -> tuple[float, float, float,
                                                                          float, float, float]:
    a, b, c, d, e, f = m
    det = a * d - b * c
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return (ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f))


def _dashed(draw: ImageDraw.ImageDraw, p: Point, q: Point, dash: float, gap: float,
            colour: tuple[int, int, int], width: int) -> None:
    length = math.dist(p, q)
    ux, uy = (q[0] - p[0]) / length, (q[1] - p[1]) / length
    t = 0.0
    while t < length:
        t1 = min(t + dash, length)
        draw.line([(p[0] + ux * t, p[1] + uy * t), (p[0] + ux * t1, p[1] + uy * t1)],
                  fill=colour, width=width)
        t = t1 + gap


def _png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()
