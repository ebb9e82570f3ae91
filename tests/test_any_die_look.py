"""Any die on the 3D table (issue 17, item 4): the values of its data drawn on its faces.
Checked in the texture itself (no window needed): each face's polygon, mapped into its
atlas cell by `polygon_uvs`, holds its value's ink and nothing spills past it."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from dice_models import available, load_die
from simulator.physics import die_shape
from simulator.render.core.looks import polygon_uvs, value_look

BODY = (236, 232, 220)
OTHER = [n for n in available() if die_shape(load_die(n)).poly.kind not in ("octahedron", "cube")]


def _ink_by_face(name: str) -> tuple[list[np.ndarray], np.ndarray]:
    """Per face, the inked pixels inside its polygon (a boolean image); and the ink outside
    every polygon."""
    shape = die_shape(load_die(name))
    uvs = polygon_uvs(shape.poly.vertices, shape.poly.faces, shape.poly.normals)
    corners = None
    if shape.corner_values:  # a d4: each corner's number at that corner of every face
        corners = [[shape.corner_values.get(v) for v in face] for face in shape.poly.faces]
    look = value_look(shape.values, uvs, BODY, corners)
    atlas = np.asarray(look.atlas.convert("RGB")).astype(int)
    ink = np.abs(atlas - np.array(BODY)).sum(axis=2) > 60
    h, w = ink.shape
    per_face, covered = [], np.zeros_like(ink)
    for face in uvs:
        mask = Image.new("L", (w, h), 0)
        ImageDraw.Draw(mask).polygon([(u * w, (1 - v) * h) for u, v in face], fill=255)
        inside = np.asarray(mask) > 0
        covered |= inside
        per_face.append(ink & inside)
    return per_face, ink & ~covered


@pytest.mark.parametrize("name", OTHER)
def test_each_face_carries_its_value_inside_its_polygon(name: str) -> None:
    per_face, spilled = _ink_by_face(name)
    assert all(f.sum() > 50 for f in per_face), [int(f.sum()) for f in per_face]
    assert spilled.sum() == 0


def test_the_values_come_from_the_data() -> None:
    """The d20 and the spindown d20 share a shape: a face's ink is the same exactly where
    their data give it the same value."""
    a, _ = _ink_by_face("d20")
    b, _ = _ink_by_face("d20-spindown")
    va, vb = die_shape(load_die("d20")).values, die_shape(load_die("d20-spindown")).values
    for f in range(20):
        assert bool((a[f] == b[f]).all()) == (va[f] == vb[f]), f


def test_a_d4_shows_the_number_at_its_top_corner() -> None:
    """A d4 read at its top corner: each corner carries one number, 1 to 4, and resting on
    any face the die shows the number of the corner on top (`Polyhedron.apex`)."""
    shape = die_shape(load_die("d4"))
    assert sorted(shape.corner_values.values()) == [1, 2, 3, 4]
    assert len(shape.corner_values) == 4
    for f in range(4):
        assert shape.shown_on[f] == shape.corner_values[shape.poly.apex(f)]
