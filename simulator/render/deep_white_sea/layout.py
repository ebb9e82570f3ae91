"""Deep White Sea's table laid out for the eye, shared by its window and its picture (each
imports this; neither imports the other): the words for the decision at hand, each seat's
panel (`seat_panels`), the framed view on the dice in play (`framed_view`: the window's
"framed" camera), and the player's picture (`legible_layout`, `tabletop render --view
framed`, drawn by `simulator.render.core.legible`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.looks import PLAYER_COLOURS
from simulator.render.deep_white_sea.session import GameSession

__all__ = ["DECISION_WORDS", "FRAMED_REGION", "framed_view", "legible_layout", "seat_panels"]

DECISION_WORDS = {
    "place": "place one die in the centre (first turn)",
    "main": "throw, move or shoot (or pass)",
    "foul": "the opponent fouled: allow, forbid the shot, or send the die to reserve",
    "shoot": "the landed die may shoot",
    "cmd": "a commanded ally acts",
    "tip": "choose which way to roll the die",
    "throw": "throw a die (Call Ally / Jump)",
    "aim": "aim the continuous effect",
}


def seat_panels(s: GameSession) -> list[tuple[str, tuple[float, float, float]]]:
    """Each seat's panel: the score and the hand first (the HUD cuts a panel to 6 lines at
    14 px capitals), the reserve, and the dice in play that are poisoned, frozen or held
    (each die's side is pinned beside it on the table)."""
    st = s.state
    out = []
    for seat in (0, 1):
        lines = [f"{s.player_name(seat)}: score {st.scores[seat]}"]
        hand = [s.crew(d).name for d in st.seat_dice(seat) if st.where[d] == "hand"]
        reserve = [s.crew(d).name for d in st.seat_dice(seat) if st.where[d] == "reserve"]
        play = [d for d in st.seat_dice(seat) if st.where[d] == "play"]
        lines.append("hand: " + (", ".join(hand) if hand else "-"))
        if reserve:
            lines.append("reserve: " + ", ".join(reserve))
        for d in play:
            if d in st.poses:
                flags = []
                if d in st.poison:
                    flags.append(f"poison (P{st.poison[d] + 1})")
                if st.frozen(d):
                    flags.append("frozen")
                elif st.held(d):
                    flags.append("held")
                if flags:
                    lines.append(f"{s.crew(d).name}: {', '.join(flags)}")
        out.append(("\n".join(lines), PLAYER_COLOURS[seat + 1]))
    return out


# The framed view: what is in play fitted into this part of the window (left, top, right,
# bottom as fractions: left of the close-up inset), seen this steeply from the seat's side
# or turned a quarter (the heading that loses fewest dice off the view wins, the seat's
# first): Deep White Sea's dice lie where the physics left them, often farther apart than
# one view holds with each 48 px across.
FRAMED_REGION = (0.02, 0.06, 0.66, 0.99)
FRAMED_PITCH, FRAMED_FOV = -85.0, 30.0
FRAMED_SPAN = 0.3  # m: the least of the table the framed view shows round the dice


def framed_view(session: GameSession, player: int, size: tuple[int, int]) -> OrbitCamera:
    """From above on the dice in play (the table when none is), each die at least
    MIN_DIE_PX across at `size` (a little more: the window's pixel grid), from `player`'s
    side of the table or a quarter turn from it."""
    from simulator.render.core.framing import MIN_DIE_PX, die_corners, frame, seen
    from simulator.render.deep_white_sea.close_up import window_sight

    poses = session.poses()
    dice = [die_corners(np.asarray(session.shape(d).poly.vertices, dtype=float), p, q)
            for d, (p, q) in sorted(poses.items())]
    t = session.table_spec
    if dice:
        # At least the middle FRAMED_SPAN of the dice: one die alone is not drawn huge.
        pts = np.concatenate(dice)
        mid = (pts.min(axis=0) + pts.max(axis=0)) / 2
        r = FRAMED_SPAN / 2
        pts = np.concatenate([pts, [(mid[0] + sx * r, mid[1] + sy * r, 0.0)
                                    for sx in (-1, 1) for sy in (-1, 1)]])
    else:
        hx, hy = (t.width / 2, t.edge_y) if t.shape == "rect" else (t.radius, t.radius)
        pts = np.array([(sx * hx, sy * hy, 0.0) for sx in (-1, 1) for sy in (-1, 1)])
    w, h = size
    region = (FRAMED_REGION[0] * w, FRAMED_REGION[1] * h, FRAMED_REGION[2] * w,
              FRAMED_REGION[3] * h)
    seat = 0.0 if player == 1 else 180.0
    best: tuple[int, OrbitCamera] | None = None
    sight = window_sight(size)  # in the window, clear of the close-up
    for turn in (0.0, 90.0, 270.0, 180.0):
        cam = frame(pts, size, region, (seat + turn) % 360.0, FRAMED_PITCH, FRAMED_FOV, dice,
                    min_die_px=(MIN_DIE_PX + 4) * h / 720, margin=0.03, seen_in=sight[0],
                    clear_of=sight[1])
        lost = len(dice) - len(seen(cam, size, dice, *sight))
        if best is None or lost < best[0]:
            best = (lost, cam)
        if lost == 0:
            break
    assert best is not None
    return best[1]


def legible_layout(session: GameSession) -> Any:
    """The player's picture of the table (`simulator.render.core.legible`): the camera framed on
    the dice in play (the table when none is), each die named on a card beside it and shown
    close up in the side panel, the score and whose turn across the top, and each die's
    side and state, the hands and the choices at the side."""
    from simulator.render.core.framing import die_corners
    from simulator.render.core.legible import Card, Layout

    s = session
    st = s.state
    poses = s.poses()
    white = (1.0, 1.0, 1.0)
    dice = {d: die_corners(np.asarray(s.shape(d).poly.vertices, dtype=float), p, q)
            for d, (p, q) in poses.items()}
    points = [(float(c[0]), float(c[1]), float(c[2])) for corners in dice.values()
              for c in corners]
    t = s.table_spec
    if not points:  # nothing thrown yet: the table itself
        hx, hy = (t.width / 2, t.edge_y) if t.shape == "rect" else (t.radius, t.radius)
        points = [(sx * hx, sy * hy, 0.0) for sx in (-1, 1) for sy in (-1, 1)]
    cards = []
    for d in sorted(poses):
        (x, y, z), _q = poses[d]
        seat = s.seat_of(d)
        # Under the die as the picture shows it, its name and the side on top.
        cards.append(Card((x, y, z + 0.01), [f"{s.crew(d).name}  {st.side(d).number}"],
                          PLAYER_COLOURS[seat + 1], below_px=30.0))
    if st.is_terminal():
        now = "Game over: " + ("draw" if st.winner is not None and st.winner < 0
                               else f"{s.player_name(st.winner)} wins")
    else:
        seat = int(st.current_player())
        now = (f"{s.player_name(seat)} to act: "
               f"{DECISION_WORDS.get(st.decision, st.decision)}")
    banner = [(f"Deep White Sea, turn {st.turn}:  {s.player_name(0)} {st.scores[0]} - "
               f"{st.scores[1]} {s.player_name(1)}  (first to 50)", white),
              (now, PLAYER_COLOURS[int(st.current_player()) + 1] if not st.is_terminal()
               else white)]
    side: list[tuple[str, tuple[float, float, float]]] = []
    for seat in (0, 1):
        hand = [s.crew(d).name for d in st.seat_dice(seat) if st.where[d] == "hand"]
        side.append((f"P{seat + 1} hand: " + (", ".join(hand) if hand else "-"),
                     PLAYER_COLOURS[seat + 1]))
    legal = [] if st.is_terminal() else s.legal()
    if legal:
        side.append(("choices:", white))
        for a in legal[:6]:
            word = st.action_to_string(a)
            if a[0] == "throw":
                word = f"throw {s.crew(a[1]).name}"
            side.append(("  " + word, white))
        if len(legal) > 6:
            side.append((f"  ... {len(legal) - 6} more", white))
    cells = [(d, s.crew(d).name) for d in sorted(poses)][:9]
    return Layout(points=points, dice=dice, cells=cells, cards=cards, banner=banner, side=side,
                  heading=0.0, other_headings=(90.0,), pitch=-75.0, fov=30.0)
