"""Dice from mesh files (STL, OBJ, glTF/GLB) through trimesh: loaded, checked, and turned
into the convex polyhedron the physics collides and the faces a die is read by.

A die file says `geometry: {kind: mesh, file: my-die.stl, units: mm}` (the file relative to
the die file). The mesh must be closed (watertight), its faces wound consistently and
outward, free of zero-area triangles and between MIN_SIZE and 1 m across; otherwise one
line names the file and the problem. Its convex hull is the collision shape (a die with
engraved numbers still rolls on its hull), and the hull's triangles are grouped into the
die's faces: neighbouring facets whose normals lie within FACE_ANGLE_DEG of the face's mean
normal are one face, so a real scan with noise on its vertices still gives twenty faces
for a d20. The faces take `geometry.canonical_order`, and `tabletop dice faces FILE`
draws each with its index so a user can write the values. The die's own triangles (not
the hull's) give its mass properties, so a concavity modelled in the mesh counts.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from dice_models.errors import DataError
from dice_models.files import decode_utf8, read_bytes
from dice_models.geometry import Polyhedron, Vec, canonical_order, triangle_mass_properties
from dice_models.numerics import dot, norm, norms

UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}
SUFFIXES = {".stl": "stl", ".obj": "obj", ".gltf": "gltf", ".glb": "glb"}
TEXT_FORMATS = ("obj", "gltf")  # read as UTF-8 text; STL may be binary or ASCII, GLB is binary
MAX_MESH_BYTES = 64 * 1024 * 1024  # a 1M-triangle binary STL is 50 MB; dice are far smaller
MAX_SIZE_M = 1.0
# Hull facets within this angle of a face's mean normal belong to that face. The closest
# faces of a shipped die meet at 41.8 deg (the d20's normals). Measured on the d20, d12 and
# d6 meshed as is and subdivided twice, with noise on every vertex: at a standard deviation
# of 0.1 mm (0.5% of a 20 mm die) every face is found, within 1.8 deg of the true one
# (tests/test_any_die.py); at 0.2 mm one to four extra faces appear in 2 of the 6 meshes;
# at 0.4 mm, in 4.
FACE_ANGLE_DEG = 8.0
# A found face with less than this share of the largest face's area is a sliver between two
# faces (see _absorb_slivers); the smallest face of a shipped die is 0.67 of its largest
# (the cuboid-d6-long's ends against its sides; the others' faces are all equal).
SLIVER_SHARE = 0.2


@dataclass(frozen=True, eq=False)
class MeshDie:
    """A loaded mesh die in m, in the frame of its hull's centroid: the hull with its faces
    found, and the mesh's own triangles (T,3,3) for its mass."""

    hull: Polyhedron
    triangles: Vec
    source: str


def load_mesh(path: str | Path, units: str, source: str) -> MeshDie:
    """Load and check a mesh die (cached by file, size, change time and units)."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise DataError(source, "geometry.file", f"cannot read {p}: {exc.strerror}",
                        show_value=False) from None
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns, units)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = _load(p, units, source)
    return cached


_CACHE: dict[tuple[str, int, int, str], MeshDie] = {}


def find_faces(vertices: Vec, angle_deg: float = FACE_ANGLE_DEG) -> Polyhedron:
    """The convex hull of the points with its facets grouped into faces (see the module
    note), in the points' own frame, faces in `canonical_order`."""
    from scipy.spatial import ConvexHull

    hull = ConvexHull(vertices)
    tris = np.array(hull.simplices)
    normals = hull.equations[:, :3]
    p = vertices[tris]
    wound = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    flip = (wound * normals).sum(axis=1) < 0
    tris[flip] = tris[flip][:, ::-1]  # qhull's simplices are unoriented: make them outward
    areas = 0.5 * norms(wound)
    neighbours: dict[tuple[int, int], int] = {}
    for t, (a, b, c) in enumerate(tris.tolist()):
        for e in ((a, b), (b, c), (c, a)):
            neighbours[e] = t
    cos_tol = math.cos(math.radians(angle_deg))
    group = np.full(len(tris), -1)
    faces: list[list[int]] = []
    for seed in np.argsort(-areas):  # grow each face from its largest facet
        if group[seed] >= 0:
            continue
        members, frontier = [int(seed)], [int(seed)]
        group[seed] = len(faces)
        mean = normals[seed] * areas[seed]
        while frontier:
            t = frontier.pop()
            a, b, c = tris[t].tolist()
            for e in ((b, a), (c, b), (a, c)):  # the neighbour holds each edge reversed
                u = neighbours.get(e)
                if u is None or group[u] >= 0:
                    continue
                if dot(normals[u], mean) / norm(mean) >= cos_tol:
                    group[u] = len(faces)
                    members.append(u)
                    frontier.append(u)
                    mean = mean + normals[u] * areas[u]
        faces.append(members)
    faces = _absorb_slivers(faces, tris, normals, areas, neighbours)
    used = sorted({int(v) for t in tris for v in t})
    remap = {old: new for new, old in enumerate(used)}
    polygons = tuple(tuple(remap[v] for v in _boundary(tris[m])) for m in faces)
    return canonical_order(Polyhedron(vertices[used], polygons, kind="mesh"))


def _absorb_slivers(faces: list[list[int]], tris: NDArray[np.int64], normals: Vec, areas: Vec,
                    neighbours: dict[tuple[int, int], int]) -> list[list[int]]:
    """Merge neighbouring faces whose mean normals lie within FACE_ANGLE_DEG (growing from
    one facet, a noisy face can split where single facets tilt more than the face does),
    then each face smaller than SLIVER_SHARE of the largest into the neighbour whose normal
    is nearest, smallest first (thin hull facets bridge the edge between two faces of a
    noisy scan at a slant no face takes in)."""
    faces = [list(f) for f in faces]
    cos_tol = math.cos(math.radians(FACE_ANGLE_DEG))
    while True:
        area = [float(areas[f].sum()) for f in faces]
        mean = [_mean_normal(f, normals, areas) for f in faces]
        owner = {t: j for j, f in enumerate(faces) for t in f}
        around = [{owner[u] for t in f for a, b in _edges(tris[t])
                   if (u := neighbours.get((b, a))) is not None and owner[u] != k}
                  for k, f in enumerate(faces)]
        pair = next(((k, j) for k in range(len(faces)) for j in around[k]
                     if j > k and dot(mean[k], mean[j]) >= cos_tol), None)
        if pair is None:
            small = [k for k in range(len(faces)) if area[k] < SLIVER_SHARE * max(area)]
            if not small:
                return faces
            k = min(small, key=lambda i: area[i])
            pair = (max(around[k], key=lambda i: dot(mean[i], mean[k])), k)
        keep, gone = pair
        faces[keep] += faces[gone]
        del faces[gone]


def _mean_normal(members: list[int], normals: Vec, areas: Vec) -> Vec:
    n = (normals[members] * areas[members, None]).sum(axis=0)
    return n / norm(n)


def _edges(t: NDArray[np.int64]) -> list[tuple[int, int]]:
    a, b, c = (int(v) for v in t)
    return [(a, b), (b, c), (c, a)]


def _boundary(tris: NDArray[np.int64]) -> list[int]:
    """The outer loop of a patch of outward-wound triangles, counter-clockwise from outside."""
    edges = {(int(a), int(b)) for t in tris for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0]))}
    nxt = {a: b for a, b in edges if (b, a) not in edges}
    start = min(nxt)
    loop = [start]
    while nxt[loop[-1]] != start and len(loop) <= len(nxt):
        loop.append(nxt[loop[-1]])
    return loop


def _load(path: Path, units: str, source: str) -> MeshDie:
    import trimesh

    name = path.name
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise DataError(source, "geometry.file", f"{name}: a mesh must be one of "
                        f"{', '.join(SUFFIXES)}", show_value=False)
    data = read_bytes(path, MAX_MESH_BYTES)
    if fmt in TEXT_FORMATS:
        decode_utf8(data, path)  # one line naming the first bad byte, as for every text file
    try:
        loaded = trimesh.load(io.BytesIO(data), file_type=fmt, force="mesh", process=True,
                              resolver=trimesh.resolvers.FilePathResolver(str(path.parent)))
    except Exception as exc:  # trimesh raises many kinds for malformed files
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise DataError(source, "geometry.file", f"{name}: cannot be read as {fmt} ({first})",
                        show_value=False) from None
    mesh = loaded if isinstance(loaded, trimesh.Trimesh) else None
    if mesh is None or len(mesh.faces) < 4:
        raise DataError(source, "geometry.file", f"{name}: holds no solid mesh (fewer than "
                        "4 triangles)", show_value=False)
    verts = np.asarray(mesh.vertices, dtype=float) * UNITS[units]
    faces = np.asarray(mesh.faces, dtype=np.int64)
    tris = verts[faces]
    if not np.isfinite(tris).all():
        raise DataError(source, "geometry.file", f"{name}: has non-finite coordinates",
                        show_value=False)
    extent = float((verts.max(axis=0) - verts.min(axis=0)).max())
    if not 1e-3 <= extent <= MAX_SIZE_M:
        raise DataError(source, "geometry.file", f"{name}: is {extent * 1000:.4g} mm across "
                        f"in {units}: a die is 1 mm to 1 m (check units)", show_value=False)
    area = 0.5 * norms(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]))
    flat = int((area <= 1e-9 * extent * extent).sum())
    if flat:
        raise DataError(source, "geometry.file", f"{name}: is degenerate: {flat} triangles "
                        "have no area", show_value=False)
    if not mesh.is_watertight:
        raise DataError(source, "geometry.file", f"{name}: is not closed (watertight): it "
                        "has holes or loose edges", show_value=False)
    if not mesh.is_winding_consistent:
        raise DataError(source, "geometry.file", f"{name}: its triangles are not "
                        "consistently oriented", show_value=False)
    volume = triangle_mass_properties(tris, None, "solid").mass
    if volume <= 0:
        raise DataError(source, "geometry.file", f"{name}: is inside out (its triangles face "
                        "inward)", show_value=False)
    try:
        hull = find_faces(verts)
    except Exception as exc:  # qhull: the points are flat
        raise DataError(source, "geometry.file", f"{name}: is degenerate: its points span "
                        f"no solid ({str(exc).splitlines()[0][:120]})", show_value=False) from None
    if volume < 1e-6 * extent ** 3:
        raise DataError(source, "geometry.file", f"{name}: is degenerate: it encloses no "
                        "volume", show_value=False)
    centre = triangle_mass_properties(hull.triangles(), None, "solid").com
    hull = Polyhedron(hull.vertices - centre, hull.faces, kind="mesh")
    return MeshDie(hull=hull, triangles=tris - centre, source=os.fspath(path))
