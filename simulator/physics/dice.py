"""From a die model (YAML data) to geometry and mass properties the physics can use."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from dice_models import DataError, DieModel, check_reading, load_die
from dice_models.geometry import MassProperties, Polyhedron, corner_vertices, tampered
from dice_models.mass import die_properties
from dice_models.numerics import matmul, norm, norms
from dice_models.shapes import mesh_of, polyhedron_of

COM_ROUND_OFF = 1e-6  # a centre of mass nearer the centre than this share of the size is round-off


@dataclass(frozen=True, eq=False)
class DieShape:
    """A die model made concrete: polyhedron, face values, mass properties (tampering
    applied) and the rotation of the principal inertia axes in the body frame."""

    model: DieModel
    poly: Polyhedron
    values: tuple[int, ...]
    mass: MassProperties
    principal_moments: np.ndarray
    principal_axes: np.ndarray

    @property
    def name(self) -> str:
        return self.model.name

    def face_of_value(self, value: int) -> int:
        try:
            return self.values.index(value)
        except ValueError:
            raise DataError(self.model.source, "face", f"die {self.name} has no face {value}",
                            value) from None

    def corner_names(self, face: int) -> dict[str, int]:
        """Corner name -> vertex index of a face: axis names for octahedra, else 'v<i>'."""
        return self._corner_names[face]

    @cached_property
    def _corner_names(self) -> list[dict[str, int]]:
        poly = self.poly
        if poly.kind == "octahedron":
            return [corner_vertices(poly, f) for f in range(poly.n_faces)]
        return [{f"v{v}": v for v in f} for f in poly.faces]

    @cached_property
    def rest_turn(self) -> float:
        """The least it turns (rad) rolling from one face it can rest on to the next, with
        its own centre of mass (Polyhedron.rest_turn); it sets its sub-step turn bound
        (world.turn_bound)."""
        return self.poly.rest_turn(self.mass.com)

    @cached_property
    def opposite(self) -> list[int]:
        """opposite[f]: the face up when the die rests on face f: the face most nearly
        opposite f. Where two faces tie for that (a pentagonal bipyramid: each face has two
        faces across it at the same angle), the faces are paired so that each is opposite
        exactly one (the pairing that is most opposite in total): the first of the tied faces
        for every face left two values no resting die could ever show."""
        first = [self.poly.opposite_face(f) for f in range(self.poly.n_faces)]
        if len(set(first)) == len(first):
            return first
        from scipy.optimize import linear_sum_assignment  # only for such dice: scipy loads slowly

        cost = matmul(self.poly.normals, self.poly.normals.T)
        np.fill_diagonal(cost, 2.0)  # a face is never its own opposite
        rows, cols = linear_sum_assignment(np.round(cost, 9))
        return [int(c) for _r, c in sorted(zip(rows.tolist(), cols.tolist(), strict=True))]

    @cached_property
    def shown_on(self) -> list[int]:
        """shown_on[b]: the value the die shows lying flat on face b, by its declared
        reading: the face opposite b (top_face), or b's own value (bottom_face; and
        top_vertex, whose values name the number at the corner opposite each face, which is
        the one read when that face is down: a d4's three numbers at each corner agree)."""
        if self.model.reading == "top_face":
            return [self.values[f] for f in self.opposite]
        return list(self.values)

    @cached_property
    def corner_values(self) -> dict[int, int]:
        """Vertex -> the number printed at that corner, for a die read at its top corner
        (values[f] sits at the apex over face f); empty for other readings."""
        if self.model.reading != "top_vertex":
            return {}
        return {self.poly.apex(f): v for f, v in enumerate(self.values)}

    def value_shown(self, bottom: int, up: int, flat: bool) -> int:
        """The value a die shows with `bottom` the face most nearly down and `up` the face
        most nearly up: by its reading when it lies flat; a cocked die (rethrown or off the
        table) reports the highest face when read by its top face."""
        if flat or self.model.reading != "top_face":
            return self.shown_on[bottom]
        return self.values[up]

    @cached_property
    def face_vertex_lists(self) -> list[list[int]]:
        return [list(f) for f in self.poly.faces]

    @cached_property
    def vertex_list(self) -> list[list[float]]:
        return self.poly.vertices.tolist()

    @cached_property
    def normal_list(self) -> list[list[float]]:
        return self.poly.normals.tolist()

    @cached_property
    def shape_key(self) -> bytes | None:
        """The key of its Bullet collision shape, shared by every body of this hull; None
        when the die's inertial frame is not its geometric frame (a tampered die): PyBullet
        builds such a body's shape around the inertial frame, and a reused shape changed
        3 of 40 tampered-d8 results against a fresh one (tests/test_kept_table.py)."""
        if self.mass.com.any() or not (self.principal_axes == np.eye(3)).all():
            return None
        # the kind too: cubes and cuboids get a Bullet box, other hulls a mesh
        return self.poly.kind.encode() + np.ascontiguousarray(self.poly.vertices, dtype=float).tobytes()

    @cached_property
    def inertial_quaternion(self) -> tuple[float, float, float, float]:
        return quat_from_matrix(self.principal_axes)

    @cached_property
    def base_vertices(self) -> np.ndarray:
        """The hull's vertices in Bullet's base frame: from the centre of mass, along the
        principal axes (world = base position + R_base @ v)."""
        return matmul(self.poly.vertices - self.mass.com, self.principal_axes)

    @cached_property
    def base_points(self) -> list[tuple[float, float, float]] | np.ndarray:
        """base_vertices for the stepping loop's box (world.die_box): a list of tuples for a
        small hull (a comprehension over 6 points takes 0.8 us, numpy's product 2.3 us),
        the array for a large one."""
        if len(self.base_vertices) <= 32:
            return [(float(a), float(b), float(c)) for a, b, c in self.base_vertices.tolist()]
        return self.base_vertices

    @cached_property
    def spin_ratio(self) -> float:
        """Largest principal moment over the smallest: how much a free die's spin can grow."""
        return float(self.principal_moments.max() / self.principal_moments.min())

    @cached_property
    def base_radius(self) -> float:
        """The farthest a point of the hull lies from the centre of mass."""
        return float(norms(self.base_vertices).max())

    @property
    def inradius(self) -> float:
        return float(self.poly.face_offsets.min())


def build_geometry(model: DieModel) -> Polyhedron:
    return polyhedron_of(model.geometry, model.source)


_SHAPES: dict[str, DieShape] = {}
# model id -> (the model, its shape): a die thrown again is found without serializing its data
# (json.dumps of a model took 16 us of a 2.3 ms throw). The model is held so its id is not
# reused; a model is data and is never changed after loading (its dicts included).
_BY_ID: dict[int, tuple[DieModel, DieShape]] = {}
_BY_ID_MAX = 256


def die_shape(model: DieModel) -> DieShape:
    """The concrete shape of a model, cached by the model's data (models hold dicts)."""
    known = _BY_ID.get(id(model))
    if known is not None and known[0] is model:
        return known[1]
    key = json.dumps(model.to_json(), sort_keys=True)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = _make_shape(model)
    if len(_BY_ID) >= _BY_ID_MAX:
        _BY_ID.clear()
    _BY_ID[id(model)] = (model, shape)
    return shape


def _make_shape(model: DieModel) -> DieShape:
    poly = build_geometry(model)
    values = model.values if model.values is not None else tuple(range(1, poly.n_faces + 1))
    if len(values) != poly.n_faces:
        raise DataError(model.source, "values", f"needs {poly.n_faces} values, one per face",
                        list(values))
    check_reading(model, poly)  # a model made in code, not loaded, is checked here
    body = mesh_of(model.geometry, model.source).triangles if poly.kind == "mesh" else None
    try:
        props = die_properties(poly, model.mass_spec, values, mass=model.mass, body=body)
    except ValueError as exc:  # a wall that fills the die, a pip value past 6
        raise DataError(model.source, "mass_model", str(exc), show_value=False) from None
    if norm(props.com) < COM_ROUND_OFF * poly.circumradius:
        # Round-off of the sums (the paper d8's -3.9e-19 m) or of the data's digits (6.7e-9 m
        # for the d10's 7-digit vertices): a centre of mass this close to the geometric
        # centre is the centre. Left in, -3.9e-19 m alone changed 1-2% of the paper d8's
        # faces against a loop that placed the die's mass at the centre.
        props = replace(props, com=np.zeros(3))
    if model.com_offset is not None:
        off = model.com_offset
        if off.vector is not None:
            vec = np.array(off.vector)
        else:
            assert off.toward_face is not None
            face = values.index(off.toward_face)
            vec = poly.normals[face] * off.fraction_of_r * poly.circumradius
        props = tampered(props, vec)
    moments, axes = props.principal()
    if moments.min() <= 0:
        raise DataError(model.source, "com_offset", "moves the centre of mass too far: the "
                        "inertia is no longer positive", show_value=False)
    return DieShape(model, poly, tuple(values), props, moments, axes)


def shape_by_name(name: str) -> DieShape:
    return die_shape(load_die(name))


def quat_from_matrix(m: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion (x, y, z, w) of a rotation matrix, w >= 0 (Shepperd's method)."""
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x, y, z = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x, y, z = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x, y, z = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    q /= norm(q)
    if q[3] < 0:
        q = -q
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))
