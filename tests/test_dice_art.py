"""Face art and paper nets of the Deep White Sea crews, checked against the model.

The art is checked by pixel colours at the places the YAML names; the net is folded in
code and compared with the octahedron of `dice_models.geometry`.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from dice_models.crews import AXES, CORNER_UV, CORNERS, CrewDie, all_dice, find_die
from dice_models.geometry import octahedron, octahedron_corner_vertex
from simulator.art.faces import (
    ARROW_TIP_D,
    DOT_D,
    DOT_GREEN,
    DOT_RED,
    GAME_COLOURS,
    PAPER,
    render_side,
)
from simulator.art.net import DieNet, build_net, net_svg, write_net
from simulator.cli.main import main

SIZE = 256
FOLD = math.pi - math.acos(-1.0 / 3.0)  # octahedron dihedral angle is arccos(-1/3)


# --- art ---------------------------------------------------------------------------------


def _along(corner: str, d: float) -> tuple[int, int]:
    """Pixel `d` side-lengths from an image corner towards the face centre, computed from
    the corner positions the model and renderer share."""
    cu = sum(CORNER_UV[c][0] for c in CORNERS) / 3
    cv = sum(CORNER_UV[c][1] for c in CORNERS) / 3
    u, v = CORNER_UV[corner]
    side = (CORNER_UV["right"][0] - CORNER_UV["left"][0])
    n = math.hypot(cu - u, cv - v)
    x = (u + d * side * (cu - u) / n) * SIZE
    y = (v + d * side * (cv - v) / n) * SIZE
    return (int(x), int(y))


def _px(img: object, p: tuple[int, int]) -> tuple[int, int, int]:
    return img.getpixel(p)  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("die", all_dice(), ids=lambda d: d.slug)
def test_arrows_dots_and_shield_sit_where_the_yaml_says(die: CrewDie) -> None:
    for side in die.sides:
        img = render_side(die, side.number, SIZE)
        assert img.size == (SIZE, SIZE)
        border = tuple(int(die.border[i:i + 2], 16) for i in (1, 3, 5))
        assert _px(img, (2, 2)) == border  # outside the triangle: the team colour
        for corner in CORNERS:
            dot = _px(img, _along(corner, DOT_D))
            if corner == side.red:
                assert dot == DOT_RED, (side.number, corner)
            elif corner in side.green:
                assert dot == DOT_GREEN, (side.number, corner)
            else:
                assert dot == PAPER, (side.number, corner)
            arrow = side.arrow_at(corner)
            colour = _px(img, _along(corner, ARROW_TIP_D + 0.025))
            expected = PAPER if arrow is None else GAME_COLOURS[arrow.colour]
            assert colour == expected, (side.number, corner, arrow)
        if side.shield is not None:
            frame_side = (CORNER_UV["right"][0] - CORNER_UV["left"][0]) * SIZE
            cx = sum(CORNER_UV[c][0] for c in CORNERS) / 3 * SIZE
            top_v, bottom_v = CORNER_UV["top"][1] * SIZE, CORNER_UV["left"][1] * SIZE
            row = top_v + 0.64 * (bottom_v - top_v)
            probe = (int(cx - 0.05 * frame_side), int(row - 0.045 * frame_side))
            assert _px(img, probe) == GAME_COLOURS[side.shield.colour], side.number


def test_damage_dot_is_drawn_at_the_model_corner_that_tips_to_the_side_below() -> None:
    poly = octahedron(0.05)
    for die in all_dice()[::4]:
        for n in range(2, 9):
            s, t = poly.sign_vectors[die.face_of_side(n)], poly.sign_vectors[die.face_of_side(n - 1)]
            axis = AXES[next(k for k in range(3) if s[k] != t[k])]
            u, v = die.axis_uv(n, axis)
            corner = next(c for c in CORNERS if CORNER_UV[c] == (u, v))
            img = render_side(die, n, SIZE)
            assert _px(img, _along(corner, DOT_D)) == DOT_RED


def test_a_long_arrow_is_drawn_bigger_than_a_short_one() -> None:
    """Count arrow-coloured pixels: short < long < all (rulebook, Range)."""
    die = find_die("Sledge Gunner Otto Kask")  # side 2 short, 4 long, 7 all; yellow, top
    counts = []
    for n in (2, 4, 7):
        img = np.asarray(render_side(die, n, SIZE))
        top_half = img[: SIZE // 2]
        counts.append(int((top_half == GAME_COLOURS["yellow"]).all(axis=2).sum()))
    assert counts[0] < counts[1] < counts[2], counts


# --- net ---------------------------------------------------------------------------------


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def _fold(net: DieNet, piece: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Fold one half of the net, printed side out: each face's rigid map (R, t) from the
    flat page (x, -y, 0) to its folded place. Faces are joined where they share an edge."""
    faces = [f for f in net.faces if f.piece == piece]

    def flat(p: tuple[float, float]) -> np.ndarray:
        return np.array([p[0], -p[1], 0.0])

    placed = {faces[0].side: (np.eye(3), np.zeros(3))}
    todo = [faces[0]]
    while todo:
        f = todo.pop()
        rf, tf = placed[f.side]
        for g in faces:
            if g.side in placed:
                continue
            shared = [p for _c, p in f.corners if any(math.dist(p, q) < 1e-6
                                                      for _d, q in g.corners)]
            if len(shared) != 2:
                continue
            p, q = flat(shared[0]), flat(shared[1])
            centre = np.mean([flat(x) for _c, x in g.corners], axis=0)
            for angle in (FOLD, -FOLD):
                r = _rotation(q - p, angle)
                if (r @ (centre - p) + p)[2] < 0:  # fold away from the printed side
                    break
            placed[g.side] = (rf @ r, rf @ (p - r @ p) + tf)
            todo.append(g)
    assert len(placed) == 4
    return placed


def _kabsch(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    cx, cy = x.mean(axis=0), y.mean(axis=0)
    u, _s, vt = np.linalg.svd((x - cx).T @ (y - cy))
    d = np.sign(np.linalg.det(vt.T @ u.T))
    r = vt.T @ np.diag([1, 1, d]) @ u.T
    resid = float(np.abs((r @ (x - cx).T).T + cy - y).max())
    return r, cy - r @ cx, resid


def _reversed_die() -> CrewDie:
    """Scout Pell renumbered along another Hamiltonian path (side n on face 8-n), with each
    damage dot moved where that path needs it."""
    import dataclasses

    from dice_models.crews import axis_corner, sign_vector

    die = find_die("Scout Pell")
    faces = tuple(range(7, -1, -1))
    sides = []
    for side in die.sides:
        n = side.number
        if n == 1:
            sides.append(side)
            continue
        f, g = faces[n - 1], faces[n - 2]
        axis = AXES[next(k for k in range(3) if sign_vector(f)[k] != sign_vector(g)[k])]
        red = axis_corner(f, axis)
        sides.append(dataclasses.replace(side, red=red,
                                         green=tuple(c for c in side.green if c != red)))
    return dataclasses.replace(die, faces=faces, sides=tuple(sides))


@pytest.mark.parametrize("name", ["Warden Ilse Varga", "Drillbot K-7", "Cutthroat Fenn",
                                  "renumbered"])
def test_folded_net_is_the_model(name: str) -> None:
    die = _reversed_die() if name == "renumbered" else find_die(name)
    net = build_net(die)
    a = die.edge * 1000
    poly = octahedron(a)
    assert len(net.faces) == 8 and {f.side for f in net.faces} == set(range(1, 9))
    aligned: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for piece in (0, 1):
        folds = _fold(net, piece)
        xs, ys = [], []
        for f in (f for f in net.faces if f.piece == piece):
            assert f.face == die.face_of_side(f.side)
            r, t = folds[f.side]
            for corner, p in f.corners:
                xs.append(r @ np.array([p[0], -p[1], 0.0]) + t)
                axis = AXES.index(die.corner_axis(f.side, corner))
                ys.append(poly.vertices[octahedron_corner_vertex(poly, f.face, axis)])
        rot, shift, resid = _kabsch(np.array(xs), np.array(ys))
        assert resid < 1e-6, resid  # every labelled corner lands on its model vertex
        assert np.linalg.det(rot) > 0  # not a mirror image
        for f in (f for f in net.faces if f.piece == piece):
            r, t = folds[f.side]
            aligned[f.side] = (rot @ r, rot @ t + shift)
            # the printed side faces out: its normal is the model face's outward normal
            assert np.allclose(rot @ r @ np.array([0, 0, 1.0]), poly.normals[f.face], atol=1e-9)
    # each lettered join brings a tab edge onto the matching edge of the other face
    letters = sorted({j.letter for j in net.joins})
    assert letters == list("ABCDEF")
    edges = set()
    for letter in letters:
        tab = [j for j in net.joins if j.letter == letter and j.kind == "tab"]
        mark = [j for j in net.joins if j.letter == letter and j.kind == "mark"]
        assert len(tab) == 1 and len(mark) == 1
        ends = []
        for j in (tab[0], mark[0]):
            r, t = aligned[j.side]
            ends.append({tuple(np.round(r @ np.array([p[0], -p[1], 0.0]) + t, 6))
                         for p in j.ends})
        assert ends[0] == ends[1], letter
        assert tab[0].side != mark[0].side
        edges.add(frozenset(ends[0]))
    for fold in net.folds:
        r, t = aligned[fold.sides[0]]
        edges.add(frozenset(tuple(np.round(r @ np.array([p[0], -p[1], 0.0]) + t, 6))
                            for p in fold.ends))
    assert len(edges) == 12  # 6 folds + 6 joins: every edge of the octahedron once


def test_net_is_true_scale_and_fits_the_page() -> None:
    for paper in ("a4", "letter"):
        net = build_net(find_die("Scout Pell"), paper)
        for f in net.faces:
            pts = [f.at(c) for c in CORNERS]
            for i in range(3):
                assert math.dist(pts[i], pts[(i + 1) % 3]) == pytest.approx(50.0)
            for x, y in pts:
                assert 0 < x < net.page[0] and 0 < y < net.page[1]
        for j in net.joins:
            if j.kind == "tab":
                for x, y in net.tab_polygon(j):
                    assert 0 < x < net.page[0] and 0 < y < net.page[1]


def test_svg_places_each_face_image_on_its_net_triangle() -> None:
    die = find_die("Null Monk Sefa")
    net = build_net(die)
    svg = net_svg(net, image_px=96)
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert root.get("width") == "210.0mm" and root.get("viewBox") == "0 0 210.0 297.0"
    clips = {c.get("id"): c.find("s:polygon", ns) for c in root.iter(
        "{http://www.w3.org/2000/svg}clipPath")}
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("clip-path")]
    assert len(groups) == 8
    for g in groups:
        side = int(re.fullmatch(r"url\(#side-(\d)\)", g.get("clip-path", "")).group(1))  # type: ignore[union-attr]
        image = g.find("s:image", ns)
        assert image is not None
        a, b, c, d, e, f = (float(v) for v in re.findall(
            r"-?\d+\.\d+", image.get("transform", "")))
        poly = clips[f"side-{side}"]
        assert poly is not None
        points = [tuple(map(float, p.split(","))) for p in poly.get("points", "").split()]
        for corner, expected in zip(CORNERS, points, strict=True):
            x, y = CORNER_UV[corner][0] * 96, CORNER_UV[corner][1] * 96
            assert (a * x + c * y + e, b * x + d * y + f) == pytest.approx(expected, abs=1e-3)
            assert expected == pytest.approx(net.face_of(side).at(corner), abs=1e-3)
        # not mirrored: the map keeps the image's turning sense
        assert a * d - b * c > 0


def test_pdf_and_png_nets_are_true_scale(tmp_path: Path) -> None:
    die = find_die("Scout Pell")
    pdf = write_net(die, tmp_path / "pell.pdf")
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf.read_bytes())
    assert box is not None
    assert float(box.group(1)) == pytest.approx(210 / 25.4 * 72, abs=1.0)
    assert float(box.group(2)) == pytest.approx(297 / 25.4 * 72, abs=1.0)


# --- CLI ---------------------------------------------------------------------------------


def test_cli_list_show_art_net_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["dice", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 25
    assert all(set(d) == {"name", "team", "class", "points"} for d in listed)
    assert main(["dice", "show", "Scout Pell"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") >= 10 and "long black Jump" in out
    assert main(["dice", "art", "scout-pell", "--out", str(tmp_path / "art"),
                 "--size", "128"]) == 0
    assert len(list((tmp_path / "art").glob("scout-pell-side-*.png"))) == 8
    assert main(["dice", "net", "Scout Pell", "--out", str(tmp_path / "pell.svg")]) == 0
    assert (tmp_path / "pell.svg").read_text().startswith("<?xml")
    capsys.readouterr()
    assert main(["dice", "check", str(Path(__file__).parents[1] / "dice_models/crews/blue.yaml")]) == 0
    assert "ok: 5 dice of team Blue" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("team: Blue\ndice:\n  - {name: X, class: Y, points: 3, sides: {}}\n")
    assert main(["dice", "check", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "die 'X': side 1" in err and str(bad) in err
    assert main(["dice", "show", "Scout Pel"]) == 2
    assert "did you mean 'Scout Pell'" in capsys.readouterr().err
