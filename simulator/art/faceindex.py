"""`tabletop dice faces`: a picture of a die with each found face's index on it, so a user
who loaded a mesh can write the values in face order (dice_models/mesh.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dice_models.geometry import Polyhedron
from dice_models.outfiles import write_with

VIEWS = (("from above", 30.0, -60.0), ("from below", -30.0, 120.0))  # (title, elev, azim)


def write_face_index(poly: Polyhedron, path: str | Path, title: str) -> Path:
    """Draw `poly` from above and from below with each face's index at its centre (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    verts = poly.vertices * 1000.0  # mm
    reach = float(np.abs(verts).max()) * 1.1
    fig = plt.figure(figsize=(10, 5.4), dpi=120)
    fig.suptitle(title)
    for k, (name, elev, azim) in enumerate(VIEWS):
        ax = fig.add_subplot(1, 2, k + 1, projection="3d")
        polys = [verts[list(f)] for f in poly.faces]
        shade = 0.55 + 0.4 * np.clip(poly.normals @ np.array([0.3, -0.4, 0.85]), 0, 1)
        ax.add_collection3d(Poly3DCollection(polys, facecolors=[(s, s, 0.95 * s) for s in shade],
                                             edgecolors="black", linewidths=0.6, alpha=0.9))
        view = _view_dir(elev, azim)
        for f in range(poly.n_faces):
            if float(poly.normals[f] @ view) <= 0.05:
                continue  # a face turned away from this view
            c = poly.face_centres[f] * 1000.0 + poly.normals[f] * reach * 0.04
            ax.text(c[0], c[1], c[2], str(f), ha="center", va="center", fontsize=11,
                    fontweight="bold", color="darkred", zorder=10)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_zlim(-reach, reach)
        ax.set_box_aspect((1, 1, 1))
        ax.view_init(elev=elev, azim=azim)
        ax.set_title(name)
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("y (mm)")
        ax.set_zlabel("z (mm)")
    out = write_with(path, lambda tmp: fig.savefig(tmp), "--out")
    plt.close(fig)
    return out


def _view_dir(elev: float, azim: float) -> np.ndarray:
    """Unit vector from the scene toward a matplotlib 3D camera at (elev, azim) degrees."""
    e, a = np.radians(elev), np.radians(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
