"""Paper nets of any convex die (issue 17, item 5): each shipped die's net is folded in
code, printed side out, and must close into the die: every face lands on its face, every
corner on its corner, every edge that is not a fold is one tab and one mark of the same
letter, and no face or tab overlaps another on the page."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dice_models import available, load_die
from simulator.art.polynet import PolyNet, build_polynet, polygons_overlap, tab_polygon
from simulator.cli.main import main
from simulator.physics import die_shape


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def _fold(net: PolyNet, normals: np.ndarray) -> dict[int, dict[int, np.ndarray]]:
    """Fold the net printed side out: the page is the plane z = 0 seen from +z (its y
    flipped up), and each child face turns about the edge it shares with its parent, in
    the parent's page frame, by the angle between their outward normals, to the side away
    from the printed side (-z). A face's map to the die is its parent's after that turn.
    Face -> vertex -> folded position (mm)."""
    flat = {f.face: {v: np.array([p[0], -p[1], 0.0]) for v, p in f.corners} for f in net.faces}
    maps: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # face -> (R, t): x -> R x + t
    for f in net.faces:
        if f.parent is None:
            maps[f.face] = (np.eye(3), np.zeros(3))
    pending = [f for f in net.faces if f.parent is not None]
    while pending:
        f = next(x for x in pending if x.parent in maps)
        pending.remove(f)
        parent = f.parent
        assert parent is not None
        a, b = sorted(set(flat[parent]) & set(flat[f.face]))
        pa, pb = flat[f.face][a], flat[f.face][b]
        assert np.allclose(pa, flat[parent][a]) and np.allclose(pb, flat[parent][b])
        angle = math.acos(max(-1.0, min(1.0, float(normals[parent] @ normals[f.face]))))
        centre = np.mean(list(flat[f.face].values()), axis=0)
        turn = _rotation(pb - pa, angle)
        if float((turn @ (centre - pa))[2]) > 0:
            turn = _rotation(pb - pa, -angle)
        r0, t0 = maps[parent]
        # x -> r0 (turn (x - pa) + pa) + t0
        maps[f.face] = (r0 @ turn, r0 @ (pa - turn @ pa) + t0)
    return {face: {v: maps[face][0] @ p + maps[face][1] for v, p in pts.items()}
            for face, pts in flat.items()}


def _outward(face: dict[int, np.ndarray]) -> np.ndarray:
    """The normal of a laid face by its corners' order (counter-clockwise from outside)."""
    pts = list(face.values())
    n = np.zeros(3)
    for k in range(len(pts)):
        n += np.cross(pts[k], pts[(k + 1) % len(pts)])
    return n / np.linalg.norm(n)


@pytest.mark.parametrize("name", available())
def test_folded_net_is_the_die(name: str) -> None:
    shape = die_shape(load_die(name))
    poly = shape.poly
    net = build_polynet(poly, shape.values, name, corner_values=shape.corner_values)
    assert sorted(f.face for f in net.faces) == list(range(poly.n_faces))
    assert len({f.piece for f in net.faces}) == 1  # every shipped die unfolds in one piece
    folded = _fold(net, poly.normals)
    assert len(folded) == poly.n_faces
    # every corner lands in one place whichever face carries it
    corners: dict[int, list[np.ndarray]] = {}
    for pts in folded.values():
        for v, p in pts.items():
            corners.setdefault(v, []).append(p)
    for v, ps in corners.items():
        assert max(np.linalg.norm(p - ps[0]) for p in ps) < 1e-6, v
    # and the folded corners are the die's (mm), printed side out, by a proper rigid fit
    ids = sorted(corners)
    got = np.array([corners[v][0] for v in ids])
    want = poly.vertices[ids] * 1000.0
    gc, wc = got - got.mean(0), want - want.mean(0)
    u, _s, vt = np.linalg.svd(gc.T @ wc)
    r = (u @ vt).T
    assert np.linalg.det(r) > 0  # not the mirror image: the printed side is outside
    assert np.abs(gc @ r.T - wc).max() < 1e-6
    for f, pts in folded.items():  # each laid face's outward normal is the die's, turned
        assert float(r @ _outward(pts) @ poly.normals[f]) > 1 - 1e-9
    # every die edge is a fold or one tab plus one mark of the same letter
    folds = {frozenset(p) for p in net.folds}
    edges = {frozenset((f, g)) for f in range(poly.n_faces) for g in poly.adjacency[f]}
    joined: dict[str, list[tuple[str, int]]] = {}
    for j in net.joins:
        joined.setdefault(j.letter, []).append((j.kind, j.face))
    assert all(sorted(k for k, _f in v) == ["mark", "tab"] for v in joined.values())
    assert {frozenset(f for _k, f in v) for v in joined.values()} | folds == edges
    assert len(folds) + len(joined) == len(edges)
    # nothing overlaps on the page, and everything is on it
    shapes = [[p for _v, p in f.corners] for f in net.faces]
    shapes += [tab_polygon(j) for j in net.joins if j.kind == "tab"]
    for i in range(len(shapes)):
        for k in range(i):
            assert not polygons_overlap(shapes[i], shapes[k]), (i, k)
    assert all(0 < x < net.page[0] and 0 < y < net.page[1] for s in shapes for x, y in s)


def test_cli_net_of_a_d20(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tabletop dice net d20 --out d20.svg` writes the net with all twenty values."""
    out = tmp_path / "d20.svg"
    assert main(["dice", "net", "d20", "--out", str(out)]) == 0
    svg = out.read_text()
    for v in range(1, 21):
        shown = f"{v}." if v in (6, 9) else str(v)
        assert f">{shown}</text>" in svg
    assert "20 faces in 1 piece, 11 joins" in capsys.readouterr().out
    assert main(["dice", "net", "d20", "--out", str(tmp_path / "d20.pdf")]) == 2
