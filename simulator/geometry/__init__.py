"""Polyhedron topology and mass properties (pure numpy; imports nothing of ours)."""

from simulator.geometry.polyhedron import (
    MassProperties,
    Polyhedron,
    axis_angle,
    convex_from_vertices,
    cube,
    cuboid,
    gray_sign_vector,
    octahedron,
    octahedron_corner_vertex,
    tampered,
)

__all__ = [
    "MassProperties",
    "Polyhedron",
    "axis_angle",
    "convex_from_vertices",
    "cube",
    "cuboid",
    "gray_sign_vector",
    "octahedron",
    "octahedron_corner_vertex",
    "tampered",
]
