"""A die's geometry data made into its polyhedron: the one place that maps a `geometry:`
mapping (octahedron, cube, cuboid, the regular polyhedra, a trapezohedron, convex vertices
or a mesh file) to `dice_models.geometry.Polyhedron`, for the loader (face counts, a mass
from a density) and the physics alike."""

from __future__ import annotations

from typing import Any

import numpy as np

from dice_models.errors import DataError
from dice_models.geometry import (
    Polyhedron,
    convex_from_vertices,
    cube,
    cuboid,
    dodecahedron,
    icosahedron,
    octahedron,
    tetrahedron,
    trapezohedron,
)
from dice_models.mesh import MeshDie, load_mesh

REGULAR = {"tetrahedron": tetrahedron, "octahedron": octahedron, "dodecahedron": dodecahedron,
           "icosahedron": icosahedron}


def polyhedron_of(geo: dict[str, Any], source: str) -> Polyhedron:
    """The polyhedron of a validated geometry mapping (for a mesh, its hull)."""
    kind = geo["kind"]
    if kind in REGULAR:
        return REGULAR[kind](float(geo["edge"]))
    if kind == "cube":
        return cube(float(geo["side"]))
    if kind == "cuboid":
        sx, sy, sz = (float(s) for s in geo["sides"])
        return cuboid(sx, sy, sz)
    if kind == "trapezohedron":
        return trapezohedron(int(geo["faces"]), float(geo["height"]), float(geo["width"]))
    if kind == "mesh":
        return mesh_of(geo, source).hull
    try:
        return convex_from_vertices(np.asarray(geo["vertices"], dtype=float))
    except Exception as exc:  # scipy's QhullError or our own ValueError: the data is flat
        raise DataError(source, "geometry.vertices",
                        f"do not span a solid convex hull ({str(exc).splitlines()[0]})",
                        show_value=False) from None


def mesh_of(geo: dict[str, Any], source: str) -> MeshDie:
    """The loaded mesh of a `kind: mesh` geometry (its file already resolved to a path)."""
    return load_mesh(geo["file"], geo.get("units", "mm"), source)
