"""Mass models of dice: solid, shell (thin card, or walls of a thickness), 3D-printed
(walls plus a fraction of infill) and material taken out for drilled pips and engraved
numbers; the centre of mass and the full inertia tensor, which the physics diagonalises
into principal axes (a die with pips is not symmetric, so its tensor is not diagonal).

A die is a sum of parts of uniform density, each with its own volume, centre and inertia
per unit density, the density relative to the wall material (negative to subtract):

- solid: the body (+1);
- shell with walls of thickness t: the body (+1) minus the body with every face plane moved
  inward by t (-1), exact for a convex die (its inside is again convex);
- printed: as the shell, the inside filled at fraction f (f - 1): slicers print walls
  solid and infill as a sparse lattice whose mass is f of solid;
- pips: spherical caps (the ball-end drill most pip dice are made with) or cylinders (a
  flat drill) at the conventional d6 layout, subtracted in closed form as solids of
  revolution (a polynomial radius squared along the axis, integrated exactly);
- engraved numbers: the value's glyphs rasterised about `RASTER_PX` pixels tall and each
  inked pixel taken out as a box `depth` deep; exact for the rasterised glyph, whose
  outline differs from the font's by under half a pixel (1/240 of the glyph height).

Pips and engravings are taken from the wall material; a shell or printed die refuses ones
deeper than its wall. manifold3d (installable) would subtract meshes, but every volume here
has a closed form and needs no boolean library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dice_models.geometry import (
    MassProperties,
    Polyhedron,
    Vec,
    convex_from_vertices,
    triangle_mass_properties,
)
from dice_models.numerics import dot, matmul, norm

MASS_KINDS = ("solid", "shell", "printed")
PIP_SHAPES = ("spherical", "cylindrical")
# Pip positions on a 3x3 grid (columns along the face's first edge), the layout of
# Western d6 dice for 1..6.
PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
# Pip grid step as a share of the distance from a face's centre to its nearest edge: a
# 16 mm d6 gets pips 4.4 mm apart, about what common dice show.
PIP_SPACING = 0.55
RASTER_PX = 120  # rows of a glyph's raster for engraved numbers


@dataclass(frozen=True)
class Pips:
    """Pips drilled into each face, as many as its value (1..6)."""

    diameter: float  # m, across the hole at the face
    depth: float  # m
    shape: str = "spherical"
    spacing: float | None = None  # m, the grid step; None: PIP_SPACING of the face

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"diameter": self.diameter, "depth": self.depth,
                                  "shape": self.shape}
        if self.spacing is not None:
            out["spacing"] = self.spacing
        return out


@dataclass(frozen=True)
class Engraving:
    """Each face's value engraved, centred on the face, glyphs `height` m tall."""

    depth: float  # m
    height: float  # m

    def to_json(self) -> dict[str, object]:
        return {"depth": self.depth, "height": self.height}


@dataclass(frozen=True)
class MassSpec:
    """What a die is made of: kind (solid, shell, printed), wall thickness (m; None for a
    thin card shell), infill fraction (printed), and material taken out."""

    kind: str = "solid"
    wall: float | None = None
    infill: float = 0.0
    pips: Pips | None = None
    engraving: Engraving | None = None


@dataclass(frozen=True)
class Part:
    """A volume of uniform density: `density` relative to the wall material."""

    volume: float
    com: Vec
    inertia: Vec  # per unit density, about com
    density: float = 1.0


def die_properties(poly: Polyhedron, spec: MassSpec, values: tuple[int, ...],
                   mass: float | None = None, density: float | None = None,
                   body: Vec | None = None) -> MassProperties:
    """Mass, centre of mass and inertia tensor of a die, given its mass or its wall
    material's density (kg/m^3). `body`: the die's own triangles (T,3,3) when it is a mesh
    whose shape (engravings modelled in the mesh) differs from its convex hull `poly`."""
    if spec.kind == "shell" and spec.wall is None:  # thin card: all mass on the surface
        if mass is None:
            raise ValueError("a thin shell needs its mass")
        return poly.mass_properties(mass, "shell")
    if mass is None:
        if density is None:
            raise ValueError("a die needs its mass or its density")
        mass = density * relative_mass(poly, spec, values, body)
    if spec == MassSpec() and body is None:  # a plain solid polyhedron, as it always was
        return poly.mass_properties(mass, "solid")
    parts = mass_parts(poly, spec, values, body)
    total, com, inertia = combine(parts)
    if total <= 0:
        raise ValueError("nothing is left of the die after its pips and engraving")
    rho = mass / total
    return MassProperties(mass=rho * total, com=com, inertia=rho * inertia)


def relative_mass(poly: Polyhedron, spec: MassSpec, values: tuple[int, ...],
                  body: Vec | None = None) -> float:
    """The die's mass at a wall density of 1 kg/m^3 (its mass = density x this)."""
    return combine(mass_parts(poly, spec, values, body))[0]


def mass_parts(poly: Polyhedron, spec: MassSpec, values: tuple[int, ...],
               body: Vec | None = None) -> list[Part]:
    outer = triangles_part(poly.triangles() if body is None else body)
    parts = [outer]
    if spec.kind in ("shell", "printed"):
        assert spec.wall is not None
        inner = inset(poly, spec.wall)
        parts.append(replace_density(triangles_part(inner.triangles()), spec.infill - 1.0))
    if spec.pips is not None:
        parts += pip_parts(poly, values, spec.pips)
    if spec.engraving is not None:
        parts += engraving_parts(poly, values, spec.engraving)
    return parts


def combine(parts: list[Part]) -> tuple[float, Vec, Vec]:
    """(mass, centre of mass, inertia about it) of parts at their relative densities."""
    masses = np.array([p.density * p.volume for p in parts])
    total = float(masses.sum())
    com = sum((m * p.com for m, p in zip(masses, parts, strict=True)), np.zeros(3)) / total
    inertia = np.zeros((3, 3))
    for m, p in zip(masses, parts, strict=True):
        d = p.com - com
        inertia += p.density * p.inertia + m * (dot(d, d) * np.eye(3) - np.outer(d, d))
    return total, com, inertia


def triangles_part(tris: Vec) -> Part:
    """The solid bounded by closed, outward-wound triangles (T,3,3), at unit density."""
    props = triangle_mass_properties(tris, None, "solid")
    return Part(props.mass, props.com, props.inertia)


def inset(poly: Polyhedron, t: float) -> Polyhedron:
    """The convex polyhedron with every face plane of `poly` moved inward by t (m)."""
    from scipy.spatial import HalfspaceIntersection

    if t >= poly.face_offsets.min():
        raise ValueError(f"a wall of {t * 1000:g} mm fills the die (its inradius is "
                         f"{poly.face_offsets.min() * 1000:.3g} mm)")
    # n . x <= d - t, as scipy's A x + b <= 0
    halfspaces = np.column_stack([poly.normals, -(poly.face_offsets - t)])
    points = HalfspaceIntersection(halfspaces, np.zeros(3)).intersections
    return convex_from_vertices(points, recentre=False)


def replace_density(part: Part, density: float) -> Part:
    return Part(part.volume, part.com, part.inertia, density)


def revolution_part(r2: np.polynomial.Polynomial, depth: float, origin: Vec, axis: Vec,
                    density: float) -> Part:
    """A solid of revolution about the line origin + z axis (z from 0 to depth), its radius
    squared r2(z) a polynomial: volume, centroid and inertia by exact integration."""
    poly_int = np.polynomial.Polynomial
    z = poly_int([0.0, 1.0])

    def integral(p: np.polynomial.Polynomial) -> float:
        q = p.integ()
        return float(q(depth) - q(0.0))

    volume = math.pi * integral(r2)
    zc = math.pi * integral(_times(r2, z)) / volume
    axial = math.pi * integral(_times(r2, r2)) / 2.0
    perp = math.pi * integral(_times(r2, r2 / 4.0 + _times(z, z))) - volume * zc * zc  # about the centroid
    local = np.diag([perp, perp, axial])
    rot = _frame_with_z(axis)
    return Part(volume, origin + zc * axis, matmul(matmul(rot, local), rot.T), density)


def pip_parts(poly: Polyhedron, values: tuple[int, ...], pips: Pips) -> list[Part]:
    """Every pip of every face, subtracted from the wall material."""
    return [revolution_part(pip_profile(pips), pips.depth, at, inward, -1.0)
            for at, inward in pip_positions(poly, values, pips)]


def pip_profile(pips: Pips) -> np.polynomial.Polynomial:
    """A pip's radius squared at depth z below the face: the cap of the ball of radius R
    that cuts a circle of the pip's diameter at the face, or a constant for a cylinder."""
    a, h = pips.diameter / 2.0, pips.depth
    if pips.shape == "cylindrical":
        return np.polynomial.Polynomial([a * a])
    big_r = (a * a + h * h) / (2.0 * h)
    z = np.polynomial.Polynomial([0.0, 1.0])
    return big_r * big_r - _times(big_r - h + z, big_r - h + z)


def _times(p: np.polynomial.Polynomial, q: np.polynomial.Polynomial) -> np.polynomial.Polynomial:
    """p q, each coefficient's products added in order (Polynomial's own product is
    np.convolve, a BLAS dot whose bits follow the CPU's kernel)."""
    a, b = p.coef.tolist(), q.coef.tolist()
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return np.polynomial.Polynomial(out)


def pip_positions(poly: Polyhedron, values: tuple[int, ...], pips: Pips) -> list[tuple[Vec, Vec]]:
    """(centre of the pip's opening on the face, unit axis into the die) of every pip."""
    out = []
    for f, value in enumerate(values):
        if value not in PIP_LAYOUT:
            raise ValueError(f"value {value} has no pip layout (pips are for 1..6)")
        centre, u, w, reach = face_frame(poly, f)
        step = pips.spacing if pips.spacing is not None else PIP_SPACING * reach
        out += [(centre + step * (i * u + j * w), -poly.normals[f]) for i, j in PIP_LAYOUT[value]]
    return out


def engraving_parts(poly: Polyhedron, values: tuple[int, ...], eng: Engraving) -> list[Part]:
    """Each face's value as rasterised glyph pixels, boxes `depth` deep, subtracted."""
    parts = []
    for f, value in enumerate(values):
        centre, u, w, _reach = face_frame(poly, f)
        ink, side = glyph_pixels(str(value))  # in glyph heights, centred on the ink's box
        pixel = eng.height * side
        n, normal = len(ink), poly.normals[f]
        box = pixel * pixel * eng.depth
        local = np.diag([pixel ** 2 + eng.depth ** 2, pixel ** 2 + eng.depth ** 2,
                         2 * pixel ** 2]) * box / 12.0
        pts = centre + eng.height * (ink[:, :1] * u + ink[:, 1:] * w) - 0.5 * eng.depth * normal
        com = pts.mean(axis=0)
        d = pts - com
        spread = box * ((d * d).sum() * np.eye(3) - (d[:, :, None] * d[:, None, :]).sum(axis=0))
        rot = np.column_stack([u, w, normal])
        parts.append(Part(n * box, com, n * matmul(matmul(rot, local), rot.T) + spread, -1.0))
    return parts


def face_frame(poly: Polyhedron, face: int) -> tuple[Vec, Vec, Vec, float]:
    """(centre, u along the face's first edge, w = n x u, distance from the centre to the
    nearest edge) of a face: the frame pips and numbers are laid out in."""
    f = poly.faces[face]
    p = poly.vertices[list(f)]
    centre = p.mean(axis=0)
    n = poly.normals[face]
    u = p[1] - p[0]
    u = u - dot(u, n) * n
    u /= norm(u)
    w = np.cross(n, u)
    reach = min(_line_distance(centre, p[k], p[(k + 1) % len(p)]) for k in range(len(p)))
    return centre, u, w, reach


@lru_cache(maxsize=256)
def glyph_pixels(text: str) -> tuple[Vec, float]:
    """Centres of the inked pixels of `text` (N,2) and the pixel's side, both in units of
    the ink's height, x right and y up, centred on the ink's bounding box. Pillow's bundled
    font, so no system font is needed and every machine gets the same raster."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=round(RASTER_PX * 1.4))  # digits ink about 0.72 em
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, fill=255, font=font)
    rows, cols = np.nonzero(np.asarray(img) > 127)
    pixel = 1.0 / float(rows.max() - rows.min() + 1)
    x = (cols + 0.5 - (cols.min() + cols.max() + 1) / 2.0) * pixel
    y = -(rows + 0.5 - (rows.min() + rows.max() + 1) / 2.0) * pixel
    out = np.column_stack([x, y])
    out.setflags(write=False)
    return out, pixel


def _line_distance(p: Vec, a: Vec, b: Vec) -> float:
    d = b - a
    t = dot(p - a, d) / dot(d, d)
    return norm(p - (a + t * d))


def _frame_with_z(axis: Vec) -> Vec:
    """A rotation whose third column is the unit vector `axis`."""
    z = axis / norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= norm(x)
    return np.column_stack([x, np.cross(z, x), z])
