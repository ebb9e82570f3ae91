"""Deep White Sea's marks on the table, drawn into the scene's overlay for the decision at
hand: poison counters, the dice the last throw knocked, the tips a person may choose (green
arrows), the selected die's ring, baselines and targets, the aims, the dice that may act,
and a throw's release point and arc. Also where a tip's arrow lies, for a click on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rules.deep_white_sea.geometry import baseline
from simulator.physics.settings import TableSpec
from simulator.render.core.looks import FOUL_COLOUR, MARK_Z, PLAYER_COLOURS
from simulator.render.deep_white_sea.gesture import arc_of

if TYPE_CHECKING:  # the scene is Panda3D's: imported by the window that makes it
    from simulator.render.deep_white_sea.scene import SeaTableScene

Point3 = tuple[float, float, float]


def draw_counters(scene: SeaTableScene, st: Any, knocked: list[str]) -> None:
    """What every turn shows: the poison counters and the dice the last throw knocked."""
    for die, seat in st.poison.items():
        if die in st.poses:
            x, y = st.poses[die].position[:2]
            scene.poison_counter((x + 0.03, y + 0.03), PLAYER_COLOURS[seat + 1])
    for d in knocked:
        if d in st.poses:
            scene.ring(st.poses[d].position[:2], 0.042, (1.0, 1.0, 1.0, 0.8), width=0.004)


def draw_choices(scene: SeaTableScene, session: Any, legal: list[Any],
                 selected: str | None) -> None:
    """The person's choices on the table: the tips (moves of the selected die, or a Repair
    / Confuse roll), the selected die's ring, its baselines and its shots' targets, the
    aims, and the dice that can act now glowing faintly at their feet."""
    st = session.state
    for a in legal:
        if (a[0] == "move" and a[1] == selected) or a[0] == "tip":
            start, end = tip_arrow(session, a[1], a[2])
            scene.arrow(start, end, (0.2, 0.9, 0.3, 0.95), width=0.01)
    if selected is not None and selected in st.poses:
        p = st.poses[selected]
        scene.ring(p.position[:2], 0.045, (1.0, 0.85, 0.2, 0.95))
        draw_baselines(scene, session, selected)
        for a in legal:
            if a[0] == "shoot" and a[1] == selected:
                for t in _targets(st, selected, a):
                    if t in st.poses:
                        scene.ring(st.poses[t].position[:2], 0.05, (0.95, 0.2, 0.15, 0.95),
                                   width=0.008)
    for a in legal:
        if a[0] == "aim" and a[2] in st.poses:
            scene.ring(st.poses[a[2]].position[:2], 0.05, (0.95, 0.5, 0.1, 0.95), width=0.008)
    actors = {a[1] for a in legal if a[0] in ("move", "shoot")}
    for d in actors:
        if d in st.poses and d != selected:
            scene.ring(st.poses[d].position[:2], 0.04, (0.3, 0.85, 0.4, 0.6), width=0.004)


def draw_baselines(scene: SeaTableScene, session: Any, die: str) -> None:
    """The baseline of each sight arrow on the side `die` shows (rulebook, "Sight Lines")."""
    st = session.state
    p, side, crew = st.poses[die], st.side(die), session.crew(die)
    for arrow in side.arrows:
        a, b = baseline(p.top_corners, crew.corner_axis(side.number, arrow.corner))
        draw_baseline(scene, session.table_spec, a, b)


FOE, FRIEND = (0.95, 0.2, 0.15, 0.9), (0.3, 0.6, 0.95, 0.9)  # a die in range: an enemy, an ally


def draw_sight(scene: SeaTableScene, session: Any, die: str) -> list[str]:
    """An inspected die's sight on the table (issue 37): its arrows' baselines, and to each
    die it sees within its arrows' range (`range_targets`: short keeps the nearest) a line
    from it and a ring, red round an enemy, blue round an ally. The dice in range, nearest
    first."""
    st = session.state
    if die not in st.poses:
        return []
    draw_baselines(scene, session, die)
    x, y, _z = st.poses[die].position
    foes = set(st.enemies(die))
    reached = st.in_range(die, [d for d in st.poses if d != die])
    for t in reached:
        colour = FOE if t in foes else FRIEND
        tx, ty, _tz = st.poses[t].position
        scene.strip((x, y, MARK_Z), (tx, ty, MARK_Z), colour, width=0.003).setName(f"sight:{t}")
        scene.ring((tx, ty), 0.05, colour, width=0.006).setName(f"in-range:{t}")
    return reached


def _targets(st: Any, die: str, shot: Any) -> list[str]:
    """One target, or every die an all-range shot or a Command reaches."""
    if len(shot) > 3:
        return [shot[3]]
    pool = (st.enemies(die) if shot[2] in ("attack", "backstab", "confuse")
            else st.allies(die) if shot[2] in ("repair", "command") else [])
    return list(st.in_range(die, pool, "all"))


def draw_baseline(scene: SeaTableScene, table: TableSpec, a: tuple[float, float],
                  b: tuple[float, float]) -> None:
    """A side's baseline through a and b, drawn across the table to its edges."""
    d = np.subtract(b, a)
    n = float(np.linalg.norm(d))
    if n < 1e-9:
        return
    u = d / n
    reach = 2.0
    p0 = (a[0] - u[0] * reach, a[1] - u[1] * reach, MARK_Z)
    p1 = (a[0] + u[0] * reach, a[1] + u[1] * reach, MARK_Z)
    p0, p1 = clip_to_table(table, p0, p1)
    scene.strip(p0, p1, (1.0, 0.95, 0.55, 0.8), width=0.003)


def clip_to_table(table: TableSpec, p0: Point3, p1: Point3) -> tuple[Point3, Point3]:
    """The part of the segment p0-p1 over the table, between its edge lines."""
    hx = table.width / 2 if table.shape == "rect" else table.radius
    hy = table.edge_y
    lo, hi = 0.0, 1.0
    d = (p1[0] - p0[0], p1[1] - p0[1])
    for k, h in ((0, hx), (1, hy)):
        if abs(d[k]) < 1e-12:
            continue
        for bound in (-h, h):
            s = (bound - p0[k]) / d[k]
            if d[k] > 0:
                (lo, hi) = (max(lo, s), hi) if bound < 0 else (lo, min(hi, s))
            else:
                (lo, hi) = (lo, min(hi, s)) if bound < 0 else (max(lo, s), hi)
    lo, hi = max(0.0, lo), min(1.0, max(lo, hi))
    q0 = (p0[0] + d[0] * lo, p0[1] + d[1] * lo, p0[2])
    q1 = (p0[0] + d[0] * hi, p0[1] + d[1] * hi, p0[2])
    return q0, q1


def tip_arrow(session: Any, die: str, corner: str) -> tuple[Point3, Point3]:
    """Where the arrow of a die's tip over `corner` lies: from near its centre out past the
    corner, just over its top."""
    st = session.state
    p = st.poses[die]
    crew = session.crew(die)
    axis = crew.corner_axis(st.side(die).number, corner)
    cx, cy = p.top_corners[axis]
    x, y = p.position[0], p.position[1]
    top = 2 * p.position[2] + 0.002 if p.position[2] > 0 else 0.042
    start = (x + (cx - x) * 0.35, y + (cy - y) * 0.35, top)
    end = (cx + (cx - x) * 0.9, cy + (cy - y) * 0.9, top)
    return start, end


def near_segment(p: tuple[float, float], a: tuple[float, ...], b: tuple[float, ...],
                 tol: float) -> bool:
    """Is p within tol of the segment a-b (their x and y)?"""
    pa, ab = np.subtract(p, a[:2]), np.subtract(b[:2], a[:2])
    t = float(np.clip((pa @ ab) / max(1e-12, float(ab @ ab)), 0.0, 1.0))
    return float(np.linalg.norm(pa - ab * t)) <= tol


def draw_throw(scene: SeaTableScene, throw: Any, foul: bool, flight: float) -> None:
    """A throw's release point (red when foul), its arc, and a spot on the felt beneath."""
    colour = (*FOUL_COLOUR, 1.0) if foul else (0.25, 0.9, 0.35, 1.0)
    scene.marker(throw.release, colour, size=0.03)
    scene.path(list(arc_of(throw, flight)), (1.0, 1.0, 1.0, 0.85), width=0.006)
    x, y, _ = throw.release
    scene.strip((x, y, MARK_Z), (x, y + 0.0001, MARK_Z), colour, width=0.02)
