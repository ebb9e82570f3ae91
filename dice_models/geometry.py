"""Convex polyhedra for dice: topology, face frames, mass properties, the roll of an
octahedron over an edge and the exact distance between two convex dice (pure numpy).

This is the one copy of the dice geometry (DESIGN.md, "Layers"): the physics, the
kinematic Deep White Sea table, the crews and the art all import it from here, because a
second copy once made a mirror-image die (issue 15).

A die's body frame has its geometric centre at the origin. Faces are listed in a
canonical order per shape; a die model maps face indices to the values printed on them.

The regular octahedron follows DESIGN.md: vertices at +-r on each axis, r = a/sqrt(2);
face i carries the sign vector of the Gray code of i, so faces i and i+1 always share an
edge (side numbers 1..8 = face index + 1 form a Hamiltonian path on the cube graph).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from dice_models.numerics import Vec, dot, eigh3, matmul, norm, norms

Point = tuple[float, float]  # a point in a plane: on the table (m) or on a net

AXES = ("x", "y", "z")  # octahedron corners are named by the body axis they lie on
# m: a tip is refused when the rolling die would penetrate another deeper than this at any
# moment of the roll. The Deep White Sea rulebook refuses even a brush ("Even if the die
# would only brush the obstacle, the move is illegal"), so this is only a numerical
# tolerance: 0.01 mm, far above the round-off of `signed_distance` (about 1e-15 m) and far
# below any gap a player could see. Both tables use it.
SWEEP_TOLERANCE_M = 1e-5
TIP_ANGLE = math.pi - math.acos(-1.0 / 3.0)  # 70.53 deg: roll of an octahedron over an edge


@dataclass(frozen=True)
class MassProperties:
    """Mass, centre of mass and inertia tensor about that centre, in the body frame."""

    mass: float
    com: Vec
    inertia: Vec  # 3x3 about the centre of mass

    def principal(self) -> tuple[Vec, Vec]:
        """Principal moments and the rotation whose columns are the axes; the body axes
        themselves when the tensor is already diagonal (symmetric dice)."""
        off = self.inertia - np.diag(np.diag(self.inertia))
        if np.abs(off).max() <= 1e-12 * np.abs(self.inertia).max():
            return np.diag(self.inertia).copy(), np.eye(3)
        return eigh3(self.inertia)  # (not LAPACK's eigh: its bits follow the BLAS kernels)


@dataclass(frozen=True, eq=False)
class Polyhedron:
    """A convex polyhedron: vertices (V,3) and faces as vertex-index tuples, CCW from outside."""

    vertices: Vec
    faces: tuple[tuple[int, ...], ...]
    kind: str = "convex"
    sign_vectors: tuple[tuple[int, int, int], ...] | None = field(default=None)

    @cached_property
    def normals(self) -> Vec:
        out = np.empty((len(self.faces), 3))
        for i, f in enumerate(self.faces):
            p = self.vertices[list(f)]
            n = np.zeros(3)
            for k in range(len(f)):  # Newell's method: robust for any planar polygon
                a, b = p[k], p[(k + 1) % len(f)]
                n += np.cross(a, b)
            out[i] = n / norm(n)
        return out

    @cached_property
    def face_centres(self) -> Vec:
        return np.array([self.vertices[list(f)].mean(axis=0) for f in self.faces])

    @cached_property
    def face_offsets(self) -> Vec:
        """Distance from the origin to each face plane (the resting height on that face)."""
        return (self.normals * self.face_centres).sum(axis=1)

    @cached_property
    def adjacency(self) -> dict[int, dict[int, tuple[int, int]]]:
        """adjacency[f][g] = the shared edge (vertex indices) of faces f and g."""
        adj: dict[int, dict[int, tuple[int, int]]] = {i: {} for i in range(len(self.faces))}
        for i, j in combinations(range(len(self.faces)), 2):
            shared = set(self.faces[i]) & set(self.faces[j])
            if len(shared) == 2:
                a, b = sorted(shared)
                adj[i][j] = adj[j][i] = (a, b)
        return adj

    def resting_faces(self, centre: Vec) -> list[int]:
        """The faces the polyhedron can rest on with its centre of mass at `centre`: those
        whose plane the centre projects onto strictly inside the face (on a face whose
        projection falls outside, or on an edge, gravity tips it over)."""
        out = []
        for i, f in enumerate(self.faces):
            n = self.normals[i]
            foot = centre - (dot(centre, n) - self.face_offsets[i]) * n
            p = self.vertices[list(f)]
            edges = np.roll(p, -1, axis=0) - p
            if np.all(matmul(np.cross(edges, foot - p), n) > 1e-12 * self.circumradius ** 2):
                out.append(i)
        return out

    def rest_turn(self, centre: Vec) -> float:
        """The smallest angle (rad) between the normals of two faces it can rest on with its
        centre of mass at `centre`: the least it turns rolling from one resting face to the
        next (0.730 rad, 41.8 deg, for the icosahedron; 15 deg for a 24-sided prism on its
        sides). pi when it rests on at most one face."""
        rest = self.resting_faces(centre)
        if len(rest) < 2:
            return math.pi
        n = self.normals[rest]
        cos = np.clip(matmul(n, n.T), -1.0, 1.0)
        np.fill_diagonal(cos, -1.0)
        return math.acos(float(cos.max()))

    @cached_property
    def _points_and_normals(self) -> Vec:
        return np.concatenate([self.vertices, self.normals])

    @property
    def n_faces(self) -> int:
        return len(self.faces)

    def apex(self, face: int) -> int:
        """The corner farthest from a face's plane: the one on top when the die rests on
        that face (a d4 is read there)."""
        return int(np.argmax(self.face_offsets[face] - matmul(self.vertices, self.normals[face])))

    def opposite_face(self, face: int) -> int:
        """The face whose normal is most nearly opposite (the one up when resting on `face`)."""
        return int(np.argmin(matmul(self.normals, self.normals[face])))

    def face_up(self, rotation: Vec, up: Vec | None = None) -> tuple[int, float]:
        """The face whose world normal is closest to up, and the angle (deg) between them."""
        up_v = np.array([0.0, 0.0, 1.0]) if up is None else up
        cosines = matmul(self.normals, matmul(rotation.T, up_v))  # (R n) . up = n . (R^T up)
        best = int(np.argmax(cosines))
        return best, math.degrees(math.acos(min(1.0, max(-1.0, float(cosines[best])))))

    def face_down(self, rotation: Vec) -> tuple[int, float]:
        return self.face_up(rotation, np.array([0.0, 0.0, -1.0]))

    def rest_rotation(self, bottom_face: int, yaw_deg: float = 0.0) -> Vec:
        """Rotation that puts `bottom_face` flat on the table, then turns by yaw about z."""
        r = self._rest_rotations[bottom_face]
        return r.copy() if yaw_deg == 0.0 else matmul(_rot_z(math.radians(yaw_deg)), r)

    @cached_property
    def _rest_rotations(self) -> list[Vec]:
        down = np.array([0.0, 0.0, -1.0])
        return [_rotation_between(n, down) for n in self.normals]

    def triangles(self) -> Vec:
        """Fan triangulation of every face, shape (T,3,3)."""
        tris = []
        for f in self.faces:
            for k in range(1, len(f) - 1):
                tris.append(self.vertices[[f[0], f[k], f[k + 1]]])
        return np.array(tris)

    def mass_properties(self, mass: float, model: str = "shell") -> MassProperties:
        """Uniform shell (paper) or uniform solid, about the computed centre of mass."""
        return triangle_mass_properties(self.triangles(), mass, model)

    @cached_property
    def volume(self) -> float:
        return triangle_mass_properties(self.triangles(), None, "solid").mass

    @cached_property
    def circumradius(self) -> float:
        return float(norms(self.vertices).max())


def triangle_mass_properties(tris: Vec, mass: float | None, model: str = "solid") -> MassProperties:
    """A thin uniform shell or a uniform solid bounded by closed outward-wound triangles
    (T,3,3), of the given mass (None: unit density, so the mass is the volume or the area).
    Solid: signed tetrahedra from the origin, whose second moment is
    V/20 (sum v v^T + (sum v)(sum v)^T) (Tonon 2004); shell: triangles, A/12 (the same)."""
    if model == "shell":
        weights = 0.5 * norms(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]))
        centroids = tris.mean(axis=1)
        s = tris.sum(axis=1)
        # integral of x x^T over a triangle: A/12 (sum v v^T + (sum v)(sum v)^T)
        second = _second_moment(weights / 12.0, tris, s)
    elif model == "solid":
        weights = (tris[:, 0] * np.cross(tris[:, 1], tris[:, 2])).sum(axis=1) / 6.0
        centroids = tris.sum(axis=1) / 4.0
        s = tris.sum(axis=1)
        # integral of x x^T over tetra (0,a,b,c): V/20 (sum v v^T + (sum v)(sum v)^T)
        second = _second_moment(weights / 20.0, tris, s)
    else:
        raise ValueError(f"unknown mass model {model!r} (shell or solid)")
    total = weights.sum()
    if mass is None:
        mass = float(total)
    com = (weights[:, None] * centroids).sum(axis=0) / total
    second *= mass / total  # integral of rho x x^T about the origin
    inertia_origin = np.trace(second) * np.eye(3) - second
    inertia = inertia_origin - mass * (dot(com, com) * np.eye(3) - np.outer(com, com))
    return MassProperties(mass=mass, com=com, inertia=inertia)


def _second_moment(w: Vec, tris: Vec, s: Vec) -> Vec:
    """sum_t w_t (sum_k x_tk x_tk^T + s_t s_t^T), the products of each term summed over
    the rows in order (np.einsum sums in the order of its SIMD loops)."""
    wt = (w[:, None, None] * tris).reshape(-1, 3)
    second = (wt[:, :, None] * tris.reshape(-1, 3)[:, None, :]).sum(axis=0)
    ws = w[:, None] * s
    return second + (ws[:, :, None] * s[:, None, :]).sum(axis=0)


def tampered(props: MassProperties, offset: Vec) -> MassProperties:
    """Move the centre of mass by `offset`, keeping the inertia about the geometric centre.

    Parallel-axis theorem: I_about_centre = I_com + m(|d|^2 E - d d^T), so the inertia about
    the shifted centre of mass shrinks by that term.
    """
    d = props.com + np.asarray(offset, dtype=float)
    m = props.mass
    i_centre = props.inertia + m * (dot(props.com, props.com) * np.eye(3) - np.outer(props.com, props.com))
    return MassProperties(mass=m, com=d, inertia=i_centre - m * (dot(d, d) * np.eye(3) - np.outer(d, d)))


def gray_sign_vector(index: int) -> tuple[int, int, int]:
    g = index ^ (index >> 1)
    sx, sy, sz = ((1 if g & bit else -1) for bit in (1, 2, 4))
    return (sx, sy, sz)


def octahedron(edge: float) -> Polyhedron:
    r = edge / np.sqrt(2.0)
    verts = np.array([[r, 0, 0], [-r, 0, 0], [0, r, 0], [0, -r, 0], [0, 0, r], [0, 0, -r]], dtype=float)
    axis_vertex = {(0, 1): 0, (0, -1): 1, (1, 1): 2, (1, -1): 3, (2, 1): 4, (2, -1): 5}
    faces = []
    signs = []
    for i in range(8):
        s = gray_sign_vector(i)
        tri = [axis_vertex[(0, s[0])], axis_vertex[(1, s[1])], axis_vertex[(2, s[2])]]
        if s[0] * s[1] * s[2] < 0:  # keep counter-clockwise seen from outside
            tri = [tri[0], tri[2], tri[1]]
        faces.append(tuple(tri))
        signs.append(s)
    return Polyhedron(verts, tuple(faces), kind="octahedron", sign_vectors=tuple(signs))


def octahedron_corner_vertex(poly: Polyhedron, face: int, axis: int) -> int:
    """The vertex of an octahedron face that lies on body axis `axis` (0=x, 1=y, 2=z)."""
    assert poly.sign_vectors is not None
    s = poly.sign_vectors[face]
    target = np.zeros(3)
    target[axis] = s[axis]
    for v in poly.faces[face]:
        if dot(poly.vertices[v], target) > 0:
            return v
    raise AssertionError("octahedron face lacks a corner on that axis")


def corner_vertices(poly: Polyhedron, face: int) -> dict[str, int]:
    """Corner name -> vertex index of an octahedron face; a corner is named by the body
    axis it lies on (DESIGN.md: face s has corners s_x r x, s_y r y, s_z r z)."""
    return {AXES[int(np.argmax(np.abs(poly.vertices[v])))]: v for v in poly.faces[face]}


def rest_yaw(poly: Polyhedron, rot: Vec, bottom: int) -> float:
    """The yaw (deg, in (-180, 180]) of a die resting on `bottom` with rotation `rot`:
    the turn about z from `poly.rest_rotation(bottom)`."""
    # column 0 of matmul(rot, rest.T), its two entries the yaw reads (as numerics.rows_dot)
    (r00, r01, r02), (r10, r11, r12) = np.asarray(rot)[:2].tolist()
    e0, e1, e2 = poly._rest_rotations[bottom][0].tolist()
    yaw = math.degrees(math.atan2(r10 * e0 + r11 * e1 + r12 * e2, r00 * e0 + r01 * e1 + r02 * e2))
    return yaw + 360.0 if yaw <= -180.0 else yaw


def tip_hinge(poly: Polyhedron, rot: Vec, centre: Vec, corner: str) -> tuple[Vec, Vec]:
    """(a point on the hinge, unit axis) of the roll of a resting octahedron over the bottom
    edge beneath the top face's `corner`, turning the way that lifts that corner over it.
    Pressing the top corner on axis j rolls the die over the bottom edge that does not
    touch axis j (DESIGN.md)."""
    world = matmul(poly.vertices, rot.T) + centre
    top, _ = poly.face_up(rot)
    bottom = poly.opposite_face(top)
    axis_i = AXES.index(corner)
    top_corner = corner_vertices(poly, top)[corner]
    edge = [v for k, v in corner_vertices(poly, bottom).items() if AXES.index(k) != axis_i]
    e1, e2 = world[edge[0]], world[edge[1]]
    u = (e2 - e1) / norm(e2 - e1)
    toward = world[top_corner] - centre
    toward[2] = 0.0
    probe = matmul(axis_angle(u, 1e-3), centre - e1)
    if dot(probe, toward) < dot(centre - e1, toward):
        u = -u
    return e1, u


def tip_turns(poly: Polyhedron, rot: Vec, centre: Vec, corner: str,
              samples: int) -> list[tuple[Vec, Vec]]:
    """(centre, rotation) at `samples` even steps along the roll over the bottom edge beneath
    the top face's `corner`, from just after the start to the end (TIP_ANGLE)."""
    e1, u = tip_hinge(poly, rot, centre, corner)
    out = []
    for k in range(1, samples + 1):
        turn = axis_angle(u, TIP_ANGLE * k / samples)
        out.append((matmul(turn, centre - e1) + e1, matmul(turn, rot)))
    return out


# ---------------------------------------------------------------------------------------
# Exact distance between convex dice, and the sweep of a tip


@dataclass(frozen=True)
class Solid:
    """A convex polyhedron placed in the world: its vertices and, in the same frame, the
    unit face normals; `poly` gives the faces and edges."""

    poly: Polyhedron
    vertices: Vec
    normals: Vec

    @staticmethod
    def at(poly: Polyhedron, rot: Vec, centre: Vec) -> Solid:
        both = matmul(poly._points_and_normals, rot.T)  # one product for both
        v = len(poly.vertices)
        return Solid(poly, both[:v] + centre, both[v:])


@dataclass(frozen=True)
class _Topology:
    edges: NDArray[np.int64]  # (E, 2) vertex indices
    triangles: NDArray[np.int64]  # (T, 3) fan triangles of the faces
    triangle_face: NDArray[np.int64]  # (T,) the face each triangle belongs to
    axis_edges: NDArray[np.int64]  # one edge per edge direction (up to sign)
    axis_faces: NDArray[np.int64]  # one face per normal direction (up to sign)


def _topology(poly: Polyhedron) -> _Topology:
    cached = _TOPOLOGY.get(id(poly))
    if cached is None or cached[0] is not poly:
        pairs = sorted({(min(f[k], f[(k + 1) % len(f)]), max(f[k], f[(k + 1) % len(f)]))
                        for f in poly.faces for k in range(len(f))})
        tris = [(f[0], f[k], f[k + 1]) for f in poly.faces for k in range(1, len(f) - 1)]
        owner = [i for i, f in enumerate(poly.faces) for _k in range(1, len(f) - 1)]
        edges = np.array(pairs, dtype=np.int64)
        cached = _TOPOLOGY[id(poly)] = (poly, _Topology(
            edges, np.array(tris, dtype=np.int64), np.array(owner, dtype=np.int64),
            _distinct(poly.vertices[edges[:, 1]] - poly.vertices[edges[:, 0]]),
            _distinct(poly.normals)))
    return cached[1]


_TOPOLOGY: dict[int, tuple[Polyhedron, _Topology]] = {}


def _distinct(directions: Vec) -> NDArray[np.int64]:
    """Indices of the first of each set of parallel (or opposite) directions: parallel
    axes give the same separating-axis test (an octahedron has 6 edge directions of 12)."""
    unit = directions / norms(directions)[:, None]
    keep: list[int] = []
    for i, u in enumerate(unit):
        if all(abs(dot(u, unit[k])) < 1.0 - 1e-9 for k in keep):
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def signed_distance(a: Solid, b: Solid, exact: bool = True) -> float:
    """Distance (m) between two convex solids when apart; minus the penetration depth (the
    shortest translation that separates them) when they overlap; 0 when they touch. With
    `exact` False, a distance over a tenth of their summed circumradii may come back as a
    smaller bound (a sweep's step needs no more).

    Overlap and depth by the separating-axis theorem, whose candidate axes (the face
    normals of both and the cross products of their edges) are complete for polytopes; the
    distance apart as the least of the edge-edge distances and of the vertex-face distances
    whose foot lies inside the face, which covers every pair of closest features."""
    # Far apart, the gap between their circumscribed spheres is a bound below the distance
    # that costs nothing, and all a sweep needs there (`exact=False`).
    if not exact:
        reach = a.poly.circumradius + b.poly.circumradius
        gap = norm(a.vertices.mean(0) - b.vertices.mean(0)) - reach
        if gap > 0.1 * reach:
            return gap
    return _signed_distance(_Parts(a), _Parts(b))


class _Parts:
    """What `signed_distance` derives from one solid alone (its edges, its separating axes,
    its fan triangles), computed once: a sweep derives its fixed neighbour's parts once for
    the whole roll, not at every step. The arithmetic is the very same, so are the bits."""

    def __init__(self, solid: Solid) -> None:
        topo = _topology(solid.poly)
        v = solid.vertices
        self.vertices = v
        axes = v[topo.edges[topo.axis_edges, 1]] - v[topo.edges[topo.axis_edges, 0]]
        self.axes_sq_max = (axes * axes).sum(1).max()
        self.axes_t = axes.T.copy()  # (3, A): x, y and z of the edge directions
        self.face_axes_t = solid.normals[topo.axis_faces].T
        self.topo = topo
        self.normals = solid.normals
        self._faces: tuple[Vec, Vec, Vec, Vec] | None = None

    @cached_property
    def start(self) -> Vec:
        return self.vertices[self.topo.edges[:, 0]]

    @cached_property
    def edge(self) -> Vec:
        return self.vertices[self.topo.edges[:, 1]] - self.start

    @cached_property
    def edge_sq(self) -> Vec:
        return (self.edge * self.edge).sum(-1)

    def faces(self) -> tuple[Vec, Vec, Vec, Vec]:
        """(fan triangles' corners (T, 3, 3), their normals (T, 3), each edge's inward
        direction in the triangle's plane (T, 3, 3), the first corners (1, T, 3)) for
        `_vertex_face`."""
        if self._faces is None:
            corners = self.vertices[self.topo.triangles]
            n = self.normals[self.topo.triangle_face]
            inward = _cross(n[:, None, :], corners[:, (1, 2, 0)] - corners)  # (T, 3 edges, 3)
            self._faces = corners, n, inward, corners[None, :, 0]
        return self._faces


def _signed_distance(a: _Parts, b: _Parts) -> float:
    (ax, ay, az), (bx, by, bz) = a.axes_t[:, :, None], b.axes_t[:, None, :]
    cross = np.empty((3, len(ax), len(bx[0])))  # _cross's products, as rows (x, y, z)
    np.subtract(ay * bz, az * by, out=cross[0])
    np.subtract(az * bx, ax * bz, out=cross[1])
    np.subtract(ax * by, ay * bx, out=cross[2])
    flat = cross.reshape(3, -1)
    cx, cy, cz = flat
    length = np.sqrt(cx * cx + cy * cy + cz * cz)  # a sum over 3 adds in index order
    scale = float(np.sqrt(a.axes_sq_max * b.axes_sq_max))
    kept = length > 1e-9 * scale
    axes_t = np.concatenate([a.face_axes_t, b.face_axes_t, flat[:, kept] / length[kept]], axis=1)
    both = matmul(np.concatenate([a.vertices, b.vertices]), axes_t)
    pa, pb = both[:len(a.vertices)], both[len(a.vertices):]
    overlap = np.minimum(pa.max(0), pb.max(0)) - np.maximum(pa.min(0), pb.min(0))
    depth = float(overlap.min())
    if depth >= 0.0:
        return -depth
    return min(_edge_edge(a, b), _vertex_face(a.vertices, b), _vertex_face(b.vertices, a))


def _edge_edge(pa: _Parts, pb: _Parts) -> float:
    """Least distance between every segment p + s d1 of `pa` and every segment q + t d2 of
    `pb` (Ericson, Real-Time Collision Detection 5.1.9, vectorised; no segment is
    degenerate)."""
    p, d1 = pa.start[:, None, :], pa.edge[:, None, :]
    q, d2 = pb.start[None, :, :], pb.edge[None, :, :]
    r = p - q
    a = pa.edge_sq[:, None]
    e = pb.edge_sq[None, :]
    b = (d1 * d2).sum(-1)
    c = (d1 * r).sum(-1)
    f = (d2 * r).sum(-1)
    denom = a * e - b * b
    parallel = denom <= 1e-12 * a * e
    s = np.where(parallel, 0.0, np.clip((b * f - c * e) / np.where(parallel, 1.0, denom),
                                        0.0, 1.0))
    t = (b * s + f) / e
    s = np.where(t < 0.0, np.clip(-c / a, 0.0, 1.0),
                 np.where(t > 1.0, np.clip((b - c) / a, 0.0, 1.0), s))
    t = np.clip(t, 0.0, 1.0)
    gap = r + s[..., None] * d1 - t[..., None] * d2
    return float(np.sqrt((gap * gap).sum(-1).min()))


def _cross(a: Vec, b: Vec) -> Vec:
    """np.cross for (..., 3) arrays without its axis handling, which costs more than the
    arithmetic on arrays this small (the sweep calls it thousands of times a tip)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    np.subtract(a[..., 1] * b[..., 2], a[..., 2] * b[..., 1], out=out[..., 0])
    np.subtract(a[..., 2] * b[..., 0], a[..., 0] * b[..., 2], out=out[..., 1])
    np.subtract(a[..., 0] * b[..., 1], a[..., 1] * b[..., 0], out=out[..., 2])
    return out


def _vertex_face(points: Vec, solid: _Parts) -> float:
    """Least distance from `points` to the faces of `solid` over the pairs whose foot on the
    face plane lies inside the face (inf when none does); vectorised over fan triangles."""
    corners, n, inward, first = solid.faces()  # (T, 3, 3), (T, 3)
    h = ((points[:, None, :] - first) * n).sum(axis=-1)
    foot = points[:, None, :] - h[..., None] * n[None]  # (P, T, 3)
    # (edge x (foot - corner)) . n = (foot - corner) . (n x edge), for the 3 edges at once
    inside = (((foot[:, :, None, :] - corners[None]) * inward[None]).sum(axis=-1) >= 0.0).all(-1)
    return float(np.abs(h[inside]).min()) if inside.any() else math.inf


def tip_clearance(poly: Polyhedron, rot: Vec, centre: Vec, corner: str,
                  others: list[Solid], tolerance: float) -> tuple[int | None, float]:
    """Sweep the whole roll of a tip (continuously, not at samples) against `others`:
    (index of the first solid it would penetrate deeper than `tolerance` (m), or None;
    the least signed distance met, m: exact when it is under a tenth of the summed
    circumradii, else a bound below it).

    Conservative advancement: no point of the die is farther than rho from the hinge, so
    a turn by angle d moves none of it more than rho d, and the signed distance to a fixed
    solid changes by no more than that; from a signed distance g the roll can safely turn by
    (g + tolerance) / rho before it could pass -tolerance."""
    e1, u = tip_hinge(poly, rot, centre, corner)
    rel = matmul(poly.vertices, rot.T) + centre - e1
    rho = float(norms(rel - np.outer(matmul(rel, u), u)).max())
    least = math.inf
    ux, uy, uz = (u / norm(u)).tolist()  # axis_angle's unit axis
    r = rot.tolist()
    (a0, a1, a2), hinge = (centre - e1).tolist(), e1.tolist()
    start = _Parts(Solid.at(poly, rot, centre))
    for index, other in enumerate(others):
        angle = 0.0
        fixed = _Parts(other)  # derived once for the whole roll
        # (signed_distance(exact=False) at each step, with the neighbour's parts kept)
        reach = poly.circumradius + other.poly.circumradius
        mean = other.vertices.mean(0)
        # A die already pressed into a neighbour at rest (a settled physics pose) may roll
        # away from it, but not deeper in.
        allowed = tolerance + max(0.0, -_signed_distance(start, fixed))
        while True:
            angle = min(angle, TIP_ANGLE)
            # matmul(turn, rot) and matmul(turn, centre - e1) + e1 with turn =
            # axis_angle(u, angle), written out in Python floats in matmul's order
            turn = _rodrigues(ux, uy, uz, angle)
            turned = [[t0 * r[0][j] + t1 * r[1][j] + t2 * r[2][j] for j in range(3)]
                      for t0, t1, t2 in turn]
            moved = [t0 * a0 + t1 * a1 + t2 * a2 + h
                     for (t0, t1, t2), h in zip(turn, hinge, strict=True)]
            rolled = Solid.at(poly, np.array(turned), np.array(moved))
            g = norm(rolled.vertices.mean(0) - mean) - reach
            if not g > 0.1 * reach:
                g = _signed_distance(_Parts(rolled), fixed)
            if angle > 0.0:
                least = min(least, g)
            if angle > 0.0 and g < -allowed:
                return index, least
            if angle >= TIP_ANGLE:
                break
            step = (g + allowed) / rho
            if step < 1e-9:  # grazing at the tolerance: within round-off of blocked
                return index, least
            angle += step
    return None, least


def cuboid(sx: float, sy: float, sz: float) -> Polyhedron:
    """Box with the given side lengths; faces in order +x, -x, +y, -y, +z, -z."""
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    v = np.array([[x, y, z] for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)], dtype=float)

    def idx(x: int, y: int, z: int) -> int:
        return (x > 0) * 4 + (y > 0) * 2 + (z > 0)

    faces = (
        (idx(1, -1, -1), idx(1, 1, -1), idx(1, 1, 1), idx(1, -1, 1)),
        (idx(-1, -1, -1), idx(-1, -1, 1), idx(-1, 1, 1), idx(-1, 1, -1)),
        (idx(-1, 1, -1), idx(-1, 1, 1), idx(1, 1, 1), idx(1, 1, -1)),
        (idx(-1, -1, -1), idx(1, -1, -1), idx(1, -1, 1), idx(-1, -1, 1)),
        (idx(-1, -1, 1), idx(1, -1, 1), idx(1, 1, 1), idx(-1, 1, 1)),
        (idx(-1, -1, -1), idx(-1, 1, -1), idx(1, 1, -1), idx(1, -1, -1)),
    )
    return Polyhedron(v, faces, kind="cuboid")


def cube(side: float) -> Polyhedron:
    p = cuboid(side, side, side)
    return Polyhedron(p.vertices, p.faces, kind="cube")


def convex_from_vertices(points: Vec, tol: float = 1e-9, recentre: bool = True) -> Polyhedron:
    """Convex hull of the points, coplanar triangles merged into polygon faces,
    recentred on the centroid of the vertices (kept where they are with `recentre` False:
    the inside of a shell, in its die's frame)."""
    from scipy.spatial import ConvexHull

    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) < 4:
        raise ValueError("a convex die needs at least 4 vertices of 3 coordinates")
    hull = ConvexHull(pts)
    used = sorted(set(hull.vertices.tolist()))
    remap = {old: new for new, old in enumerate(used)}
    centre = pts[used].mean(axis=0)
    verts = pts[used] - centre if recentre else pts[used]
    scale = float(np.abs(verts).max())
    # Coplanar triangles share a plane: each joins the first plane found whose normal is
    # close (np.allclose(plane, n, atol=1e-7) without its isfinite and == terms, which change
    # nothing for Qhull's finite unit normals) and whose offset is within tol; compared with
    # all planes so far at once (a hull of thousands of triangles stays fast).
    normals = np.empty((len(hull.equations), 3))
    offsets = np.empty(len(hull.equations))
    members: list[set[int]] = []
    for eq, simplex in zip(hull.equations, hull.simplices, strict=True):
        n, d = eq[:3], -eq[3]
        d -= dot(n, centre)
        k = len(members)
        same = (np.abs(normals[:k] - n) <= 1e-7 + 1e-5 * np.abs(n)).all(axis=1) \
            & (np.abs(offsets[:k] - d) < tol + 1e-7 * scale)
        hit = np.flatnonzero(same)
        if hit.size:
            members[int(hit[0])].update(remap[int(s)] for s in simplex)
        else:
            normals[k], offsets[k] = n, d
            members.append({remap[int(s)] for s in simplex})
    faces = []
    for n, idx_set in zip(normals[:len(members)], members, strict=True):
        idx = list(idx_set)
        c = verts[idx].mean(axis=0)
        u = verts[idx[0]] - c
        u /= norm(u)
        w = np.cross(n, u)
        ang = [math.atan2(dot(verts[k] - c, w), dot(verts[k] - c, u)) for k in idx]
        faces.append(tuple(k for _a, k in sorted(zip(ang, idx, strict=True))))
    return Polyhedron(verts, tuple(faces), kind="convex")


PHI = (1.0 + math.sqrt(5.0)) / 2.0


def tetrahedron(edge: float) -> Polyhedron:
    """Regular tetrahedron (the d4) of the given edge; faces in `canonical_order`."""
    pts = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
    return _regular(pts * edge / math.sqrt(8.0), "tetrahedron")


def icosahedron(edge: float) -> Polyhedron:
    """Regular icosahedron (the d20): vertices (0, +-1, +-phi) cycled, edge 2 before scaling."""
    base = [(0.0, a, b * PHI) for a in (-1.0, 1.0) for b in (-1.0, 1.0)]
    pts = np.array([p[k:] + p[:k] for p in base for k in range(3)], dtype=float)
    return _regular(pts * edge / 2.0, "icosahedron")


def dodecahedron(edge: float) -> Polyhedron:
    """Regular dodecahedron (the d12): the cube (+-1)^3 and (0, +-1/phi, +-phi) cycled,
    edge 2/phi before scaling."""
    cube_pts = [(x, y, z) for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]
    base = [(0.0, a / PHI, b * PHI) for a in (-1.0, 1.0) for b in (-1.0, 1.0)]
    pts = np.array(cube_pts + [p[k:] + p[:k] for p in base for k in range(3)], dtype=float)
    return _regular(pts * edge * PHI / 2.0, "dodecahedron")


def trapezohedron(n_faces: int, height: float, width: float) -> Polyhedron:
    """The n-gonal trapezohedron (n_faces = 2n kites; the d10 for 10): the polar dual of the
    uniform n-gonal antiprism, stretched to `height` apex to apex and `width` across its
    widest ring (the dual alone is 0.55 as wide as it is high; a die sets its own). Its
    kites are planar by construction (each is the polar of an antiprism vertex, and scaling
    the axes keeps planes planar), and opposite kites are parallel, so a d10 shows the face
    opposite the one it rests on."""
    n = n_faces // 2
    if n_faces % 2 or n < 3:
        raise ValueError("a trapezohedron has an even number of faces, at least 6")
    # uniform antiprism of edge 1: two n-gons of circumradius r, turned by pi/n, at +-h/2
    r = 1.0 / (2.0 * math.sin(math.pi / n))
    half = 0.5 * math.sqrt(1.0 - (2.0 * r * math.sin(math.pi / (2 * n))) ** 2)
    anti = np.array([[r * math.cos(math.pi * k / n), r * math.sin(math.pi * k / n),
                      half if k % 2 == 0 else -half] for k in range(2 * n)])
    planes = _hull_planes(anti)  # the dual's vertices are the antiprism's faces' poles
    pts = planes[:, :3] / planes[:, 3:4]
    pts[:, 2] *= height / (pts[:, 2].max() - pts[:, 2].min())
    pts[:, :2] *= width / (2.0 * float(norms(pts[:, :2]).max()))
    return _regular(pts, "trapezohedron")


def canonical_order(poly: Polyhedron) -> Polyhedron:
    """The same polyhedron with its faces renumbered for data: when every face has a
    parallel opposite, faces i and n-1-i are opposite (so values 1..n in this order make
    opposite faces sum to n+1, the convention for d6, d8, d12 and d20); the upper faces come
    first, top down and then counter-clockwise from +x seen from above. A die's YAML lists
    its values in this order."""
    n = poly.normals
    # rounded before the turn is folded into [0, 360): -1e-17 deg is 0, not 360
    key = [(-round(float(v[2]), 6), round(math.degrees(math.atan2(v[1], v[0])), 4) % 360.0)
           for v in n]
    opposite = [int(np.argmin(matmul(n, v))) for v in n]
    paired = all(dot(n[i], n[j]) < -1.0 + 1e-9 and opposite[j] == i
                 for i, j in enumerate(opposite))
    if paired:
        upper = sorted((i for i in range(len(n)) if _upper(n[i])), key=lambda i: key[i])
        order = upper + [opposite[i] for i in reversed(upper)]
    else:
        order = sorted(range(len(n)), key=lambda i: key[i])
    return Polyhedron(poly.vertices, tuple(poly.faces[i] for i in order), kind=poly.kind)


def _upper(v: Vec) -> bool:
    """One of each opposite pair: z up, else y, else x (a tie on z is an equator face)."""
    for c in (2, 1, 0):
        if abs(float(v[c])) > 1e-9:
            return float(v[c]) > 0
    raise ValueError("zero normal")


def _regular(points: Vec, kind: str) -> Polyhedron:
    hull = convex_from_vertices(points)
    return canonical_order(Polyhedron(hull.vertices, hull.faces, kind=kind))


def _hull_planes(points: Vec) -> Vec:
    """(F, 4) rows (n, d) with n . x = d of the distinct face planes of the points' hull."""
    poly = convex_from_vertices(points)
    shift = points.mean(axis=0)
    return np.column_stack([poly.normals, poly.face_offsets + matmul(poly.normals, shift)])


def segment_distance(p: Vec, a: Vec, b: Vec) -> float:
    """Distance from point p to the segment ab (any dimension): the room a label has
    inside a face, measured to each of its edges."""
    d = b - a
    t = min(1.0, max(0.0, dot(p - a, d) / dot(d, d)))
    return norm(p - (a + t * d))


def _rot_z(theta: float) -> Vec:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rotation_between(a: Vec, b: Vec) -> Vec:
    """Smallest rotation taking unit vector a onto unit vector b."""
    a = a / norm(a)
    b = b / norm(b)
    v = np.cross(a, b)
    c = dot(a, b)
    if c < -1 + 1e-12:
        perp = np.cross(a, [1.0, 0.0, 0.0])
        if norm(perp) < 1e-6:
            perp = np.cross(a, [0.0, 1.0, 0.0])
        perp /= norm(perp)
        return 2 * np.outer(perp, perp) - np.eye(3)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + matmul(vx, vx) / (1 + c)


def axis_angle(axis: Vec, angle: float) -> Vec:
    """Rotation matrix for a turn of `angle` radians about unit `axis` (Rodrigues)."""
    x, y, z = (np.asarray(axis, dtype=float) / norm(axis)).tolist()
    return np.array(_rodrigues(x, y, z, angle))


def _rodrigues(x: float, y: float, z: float, angle: float) -> list[list[float]]:
    """`axis_angle`'s rows for a unit axis (x, y, z), in Python floats."""
    s, c = math.sin(angle), 1 - math.cos(angle)
    # I + s K + c K K with K the cross-product matrix of (x, y, z)
    return [[1.0 + c * (-z * z - y * y), -s * z + c * (y * x), s * y + c * (z * x)],
            [s * z + c * (x * y), 1.0 + c * (-z * z - x * x), -s * x + c * (z * y)],
            [-s * y + c * (x * z), s * x + c * (y * z), 1.0 + c * (-y * y - x * x)]]
