"""Framing a camera on what is in play, and how large a die comes out in a picture.

Plain numpy over `OrbitCamera.project`, so `tabletop render --json` reports and tests check
the same figures the pictures are drawn with:

- `die_px`: a die's size on screen, the larger side of the box round its projected corners
  (a cube lying flat and seen from above: its top face's width, more when it is turned).
- `frame`: the camera that fits a set of table points into a region of the picture, seen
  from a given heading and pitch, then drawn in no farther than keeps the smallest die in
  play `min_die_px` across (a die at 16 mm needs about 3 px a millimetre for 48 px: a region
  of 1280x720 then holds about 43 x 24 cm; what lies beyond is off the view, said so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from simulator.render.core.camera import MAX_DISTANCE, MIN_DISTANCE, OrbitCamera

Box = tuple[float, float, float, float]  # left, top, right, bottom in pixels
MIN_DIE_PX = 48.0  # the smallest a die may be drawn in a default view at 1280x720 (issue 37)


def rotate(quat: Sequence[float], points: np.ndarray) -> np.ndarray:
    """`points` (n, 3) turned by the unit quaternion (x, y, z, w)."""
    x, y, z, w = (float(c) for c in quat)
    r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return np.asarray(points, dtype=float) @ r.T


def die_corners(vertices: np.ndarray, position: Sequence[float],
                quat: Sequence[float]) -> np.ndarray:
    """A die's corners on the table: its shape's `vertices` in the pose given."""
    return rotate(quat, vertices) + np.asarray(position, dtype=float)


def screen_box(cam: OrbitCamera, size: tuple[int, int], points: np.ndarray) -> Box | None:
    """The box round `points` projected, or None when one lies behind the camera: the
    arithmetic of `OrbitCamera.project` on all the points at once (framing calls this a few
    hundred times a view; a point at a time, a refresh of the d6 windows took 1-3 s)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    w, h = size
    right, up, fwd = cam.basis()
    rel = pts - np.asarray(cam.eye(), dtype=float)
    depth = rel @ fwd
    if len(pts) == 0 or bool((depth <= 1e-6).any()):
        return None
    f = (h / 2) / math.tan(math.radians(cam.fov) / 2)
    xs = w / 2 + (rel @ right) / depth * f
    ys = h / 2 - (rel @ up) / depth * f
    return (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))


def die_px(cam: OrbitCamera, size: tuple[int, int], corners: np.ndarray) -> float:
    """How many pixels across a die with these `corners` is drawn (0 behind the camera)."""
    box = screen_box(cam, size, corners)
    if box is None:
        return 0.0
    return float(max(box[2] - box[0], box[3] - box[1]))


def inside(box: Box, region: Box) -> bool:
    """Whether `box` lies wholly in `region`."""
    return box[0] >= region[0] and box[1] >= region[1] and box[2] <= region[2] \
        and box[3] <= region[3]


def frame(points: np.ndarray, size: tuple[int, int], region: Box, heading: float,
          pitch: float, fov: float, dice: Sequence[np.ndarray] = (),
          min_die_px: float = MIN_DIE_PX, margin: float = 0.04, seen_in: Box | None = None,
          clear_of: Sequence[Box] = ()) -> OrbitCamera:
    """The camera from `heading` and `pitch` (deg) with vertical field of view `fov` that
    fits every one of `points` (n, 3) into `region` of a picture of `size`, with `margin`
    of the region's size spare, centred on the region; no farther than keeps every die of
    `dice` (each its corners) `min_die_px` across. Where both cannot be had the dice win:
    the view is slid along the table to hold the most dice wholly in `seen_in` (default
    `region`) clear of the boxes `clear_of` (what is drawn over the view), the middle of what
    is in play first; the rest runs off its edges (`_most_dice`)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    if len(pts) == 0:
        raise ValueError("frame needs at least one point in play")
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    target = (lo + hi) / 2
    cam = OrbitCamera(target=(float(target[0]), float(target[1]), float(target[2])),
                      heading=heading, pitch=pitch, distance=1.0, fov=fov)
    rw, rh = region[2] - region[0], region[3] - region[1]
    inner = (region[0] + margin * rw, region[1] + margin * rh,
             region[2] - margin * rw, region[3] - margin * rh)
    mid = ((region[0] + region[2]) / 2, (region[1] + region[3]) / 2)
    for _round in range(4):
        cam = replace(cam, distance=_fit_distance(cam, size, pts, inner))
        box = screen_box(cam, size, pts)
        assert box is not None
        # Slide the target so the box's middle is the region's middle.
        dx, dy = (box[0] + box[2]) / 2 - mid[0], (box[1] + box[3]) / 2 - mid[1]
        if abs(dx) < 0.5 and abs(dy) < 0.5:
            break
        cam = _slide(cam, size, dx, dy)
    if dice:
        near = _die_distance(cam, size, dice, min_die_px)
        if near < cam.distance:
            # Nearer than the fit: look at the middle of the region still (the target
            # stays: a zoom about it keeps what is in play centred).
            cam = replace(cam, distance=near)
            box = screen_box(cam, size, pts)
            if box is not None:
                dx = (box[0] + box[2]) / 2 - mid[0]
                dy = (box[1] + box[3]) / 2 - mid[1]
                cam = _slide(cam, size, dx, dy)
            sight = (seen_in or region, tuple(clear_of))
            if len(seen(cam, size, dice, *sight)) < len(dice):
                cam = _most_dice(cam, size, dice, region, sight, min_die_px)
    return cam


def seen(cam: OrbitCamera, size: tuple[int, int], dice: Sequence[np.ndarray],
         region: Box, clear_of: Sequence[Box] = ()) -> list[int]:
    """The indices of the `dice` (each its corners) that lie wholly in `region` and cover
    none of the boxes `clear_of` (what is drawn over the view: a close-up, a panel)."""
    out = []
    for k, corners in enumerate(dice):
        box = screen_box(cam, size, corners)
        if box is not None and inside(box, region) and not any(overlap(box, o) for o in clear_of):
            out.append(k)
    return out


def overlap(a: Box, b: Box) -> bool:
    """Whether boxes `a` and `b` share some area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _most_dice(cam: OrbitCamera, size: tuple[int, int], dice: Sequence[np.ndarray],
               region: Box, sight: tuple[Box, tuple[Box, ...]],
               min_die_px: float) -> OrbitCamera:
    """`cam` slid along the table (its distance, heading and pitch kept) to where the most
    of `dice` are seen (`seen(..., *sight)`), centred in `region`: the dice that one view
    cannot hold with the rest at their floor size are the fewest and lie at its edges, not
    those at both ends of a spread centred on its middle (issue 37: Deep White Sea's dice
    lie where the physics left them). Tried: the view centred on each die and on the middle of each two; the
    dice a try holds are then centred together if that loses none of them. Of equal
    counts the try nearest the view given wins."""
    mid = ((region[0] + region[2]) / 2, (region[1] + region[3]) / 2)
    centres = [np.asarray(c, dtype=float).reshape(-1, 3).mean(axis=0) for c in dice]
    best: tuple[int, float, OrbitCamera] | None = None
    for i in range(len(dice)):
        for j in range(i, len(dice)):
            at = cam.project((centres[i] + centres[j]) / 2, size)
            if at is None:
                continue
            trial = _slide(cam, size, at[0] - mid[0], at[1] - mid[1])
            held = seen(trial, size, dice, *sight)
            if held:
                box = screen_box(trial, size, np.concatenate([dice[k] for k in held]))
                assert box is not None
                centred = _slide(trial, size, (box[0] + box[2]) / 2 - mid[0],
                                 (box[1] + box[3]) / 2 - mid[1])
                if len(seen(centred, size, dice, *sight)) >= len(held):
                    trial = centred
            moved = float(np.hypot(trial.target[0] - cam.target[0],
                                   trial.target[1] - cam.target[1]))
            if best is None or len(held) > best[0] or (len(held) == best[0]
                                                        and moved < best[1] - 1e-9):
                best = (len(held), moved, trial)
    if best is None or best[0] <= len(seen(cam, size, dice, *sight)):
        return cam
    # Slid off the middle, a die nearer the view's edge is drawn a little smaller: drawn in
    # again (about the new target) to keep every die at its floor.
    out = best[2]
    near = _die_distance(out, size, dice, min_die_px)
    return replace(out, distance=near) if near < out.distance else out


def _fit_distance(cam: OrbitCamera, size: tuple[int, int], pts: np.ndarray,
                  region: Box) -> float:
    """The nearest distance at which every point projects into `region`."""

    def fits(d: float) -> bool:
        box = screen_box(replace(cam, distance=d), size, pts)
        return box is not None and box[2] - box[0] <= region[2] - region[0] \
            and box[3] - box[1] <= region[3] - region[1]

    return _edge(fits, nearest=True)


def _die_distance(cam: OrbitCamera, size: tuple[int, int], dice: Sequence[np.ndarray],
                  min_px: float) -> float:
    """The farthest distance at which every die is at least `min_px` across."""

    def big(d: float) -> bool:
        c = replace(cam, distance=d)
        return all(die_px(c, size, corners) >= min_px for corners in dice)

    return _edge(big, nearest=False)


def _edge(holds: Callable[[float], bool], nearest: bool) -> float:
    """Bisection (40 halvings of the ratio) between MIN_DISTANCE and MAX_DISTANCE for the
    edge of the distances where `holds`: with `nearest`, the nearest one (`holds` is true far
    off, false near), else the farthest one (true near, false far off)."""
    lo, hi = MIN_DISTANCE, MAX_DISTANCE
    if holds(lo if nearest else hi):
        return lo if nearest else hi
    for _ in range(40):
        m = math.sqrt(lo * hi)
        if holds(m) == nearest:
            hi = m
        else:
            lo = m
    return hi if nearest else lo


def _slide(cam: OrbitCamera, size: tuple[int, int], dx: float, dy: float) -> OrbitCamera:
    """The camera moved so what was `dx, dy` px off the middle of the picture is there."""
    right, up, fwd = cam.basis()
    depth = cam.distance
    f = (size[1] / 2) / math.tan(math.radians(cam.fov) / 2)
    move = (right * dx - up * dy) * depth / f
    # Keep the target on its plane: move along the table, as far as the ray shifts there.
    t = np.asarray(cam.target, dtype=float)
    eye = cam.eye()
    ray = (t + move) - eye
    if abs(ray[2]) > 1e-9:
        s = (t[2] - eye[2]) / ray[2]
        new = eye + s * ray
    else:
        new = t + move
    return replace(cam, target=(float(new[0]), float(new[1]), float(t[2])))
