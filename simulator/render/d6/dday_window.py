"""D-Day Dice in the window: the battle map's sectors as a board of tiles (title, Enemy
Fire, machine gun, bunker and each border's Courage cost written on them), every unit's
marker on its sector, a Player Sheet per unit beside the map (soldiers as counters,
Courage, equipment points, Specialists and Items), and the acting unit's six dice lying in
a row, red, red, white, white, blue, blue, the ones set aside moved to a row of their own
and those a skull cancelled turned askew. Every roll (the six dice, re-rolls, machine-gun
fire, minefields, Surge) is thrown into the tray by the physics
(`simulator.render.d6.window`), the faces shown being the faces the engine receives.

Clicks: after the first roll, two dice to set aside; then dice to re-roll (each click adds
or drops one) and the tray to throw them; with a skull to pay, the die it removes; in the
movement phase, the sector to move to (your own sector: stay). Everything else, and every
one of these, is in the choices list.
"""

from __future__ import annotations

from typing import Any

from rules.dday.game import START_COLOURS, SYMBOL_NAMES
from simulator.physics.settings import TableSpec
from simulator.render.core.pins import Mark, Pin
from simulator.render.core.scene import _box
from simulator.render.core.window import Choice, wrap
from simulator.render.d6.scene import DiceTableScene, seat_colour
from simulator.render.d6.session import DiceSession, Roll, d6_shape
from simulator.render.d6.window import DiceGameWindow, module_functions

GAME = "dday"
PLAYERS = (1, 4)
TABLE = TableSpec(width=1.5, depth=1.1)
TRAY_AT = (0.36, 0.3)
MAP_AT = (-0.33, 0.0)  # m: the middle of the map
SECTOR_W, SECTOR_D = 0.2, 0.1  # m: one sector tile, across and along the advance
TILE_Z = 0.003
DIE_X0, DIE_STEP = 0.1, 0.042  # m: the six dice's row, left to right
ROLLED_Y, KEPT_Y = 0.06, -0.0  # m: the rolled row, the row of dice set aside
SHEET_Y0, SHEET_STEP = -0.1, 0.105  # m: unit k's Player Sheet starts at y0 - k * step
DIE_RGB = {"red": (0.8, 0.14, 0.12), "white": (0.94, 0.93, 0.9), "blue": (0.15, 0.3, 0.8)}
FIRE_RGB = (0.25, 0.25, 0.25)  # machine-gun and minefield rolls
TILE_RGB = (0.78, 0.72, 0.56)  # sand
MG_RGB = (0.74, 0.6, 0.5)  # a sector under machine-gun fire
BUNKER_RGB = (0.55, 0.55, 0.58)
SOLDIER_RGB = (0.35, 0.48, 0.25)
SELECT = (1.0, 0.85, 0.2, 0.95)
TEXT = (0.12, 0.1, 0.08, 1.0)
PALE = (0.93, 0.92, 0.86, 1.0)


# -- where things are ----------------------------------------------------------------------


def sector_xy(row: int, col: int, rows: int, cols: int) -> tuple[float, float]:
    """A sector's middle: the landing at the -y end, the bunker at +y."""
    return (MAP_AT[0] + (col - (cols - 1) / 2) * SECTOR_W,
            MAP_AT[1] + (row - (rows - 1) / 2) * SECTOR_D)


def sector_at(state: Any, sector_id: str) -> tuple[float, float]:
    s = state.map.sectors[sector_id]
    rows = max(x.row for x in state.map.sectors.values()) + 1
    cols = max(x.col for x in state.map.sectors.values()) + 1
    return sector_xy(s.row, s.col, rows, cols)


def die_xy(index: int, kept: bool) -> tuple[float, float]:
    """Die `index` (0..5) of the unit's six: in the rolled row, or set aside below it."""
    return (DIE_X0 + index * DIE_STEP, KEPT_Y if kept else ROLLED_Y)


def marker_xy(state: Any, unit: int) -> tuple[float, float]:
    x, y = sector_at(state, state.units[unit].sector)
    return (x - 0.06 + 0.035 * unit, y - 0.022)


def sheet_y(unit: int) -> float:
    return SHEET_Y0 - unit * SHEET_STEP


def soldier_xy(unit: int, k: int) -> tuple[float, float]:
    return (0.06 + k * 0.02, sheet_y(unit) - 0.03)


def sector_note(s: Any) -> str:
    """What a sector asks, forbids, costs and gives ("sacrifice 2 soldier(s)", "cannot
    remain here"), in the words its full card says them; "" for none."""
    return "; ".join(r.describe() for r in (*s.instructions, *s.requirements, *s.restrictions,
                                            *s.penalties, *s.bonuses))


def noted_sectors(state: Any) -> list[str]:
    """The sectors whose note a card shows: the acting unit's (else the shown one's) and
    those it can move to (every way out; sideways none from a sector one leaves only by
    advancing). All seventeen notes do not fit on their tiles at 14 px capitals (issue 37)."""
    k = state.seat if 0 <= state.seat < len(state.units) else shown_unit(state)
    here = state.units[k].sector
    out = [here]
    leave_forward = state.map.sectors[here].has_instruction("leave_forward")
    for dest, _border, advance in state.map.exits(here):
        if (advance or not leave_forward) and dest not in out:
            out.append(dest)
    return out


PIN_LINE_PX = 118  # a pinned card's line at most (bar one word): the columns lie 143 px
# apart in the window's opening view at 1280x720, and "Communication" is 123 px wide
PIN_NOTE_PX = 130  # a note's line: two noted cards side by side keep 13 px apart
MAP_SCALE = 0.048  # the map's pins (cards and borders): core.pins.PIN_SMALL, capitals
# 14.3 px at 720 px high; at PIN_SCALE (16.6 px) 9 of the README state's 20 borders found
# no place clear of the cards
PIN_LINE_M = 0.0286 * MAP_SCALE / 0.056  # m along the map a pinned line covers there (17 px
# at MAP_SCALE, rows 70 px apart)
BORDER_INK = (0.62, 0.08, 0.06, 1.0)  # a border's pin: red, as its words on the cloth were


def pin_px(text: str, scale: float = MAP_SCALE) -> float:
    """The width (px at 720 px high) of `text` pinned in the window (`core.pins`)."""
    from panda3d.core import TextNode

    return float(TextNode("measure").calcWidth(text)) * scale * 360


def pin_wrap(text: str, width: float = PIN_LINE_PX) -> list[str]:
    """`text` in lines of at most `width` px when pinned; a word wider stays whole."""
    lines: list[str] = []
    for word in text.split():
        if lines and pin_px(f"{lines[-1]} {word}") <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def pin_card(s: Any, with_note: bool) -> str:
    """A sector's pinned card: its title wrapped to its tile, Enemy Fire (and machine gun or
    bunker) after it (on the title's last line where it fits), and with `with_note` its
    note (`sector_note`)."""
    title = pin_wrap(s.title) if s.title else [s.id]
    ef = f"EF {s.enemy_fire}" + (" MG" if s.machine_gun else "") + (" bunker" if s.bunker else "")
    note = sector_note(s) if with_note else ""
    lines = list(title)
    if pin_px(f"{lines[-1]}  {ef}") <= PIN_LINE_PX:
        lines[-1] += "  " + ef
    else:
        lines.append(ef)
    if note:
        lines += pin_wrap(note, PIN_NOTE_PX)
        run_on = title + pin_wrap(f"{ef}, {note}", PIN_NOTE_PX)  # Enemy Fire leads the note
        if len(run_on) < len(lines):
            lines = run_on
    return "\n".join(lines)


SEAM_LINES = (1.6, 1.35)  # room (lines) kept between two cards one above the other: the
# seam's pinned Courage cost between them (`border_pins`), a line and its background; the
# first of these that leaves every border a place (`pinned_cards`)


def pin_lifts(lines: dict[tuple[int, int], int],
              seams: frozenset[tuple[int, int]] = frozenset(),
              seam_lines: float = SEAM_LINES[0]) -> dict[tuple[int, int], float]:
    """How far (lines, up the map) each pinned card is moved off its tile's middle: two
    cards one above the other nearer than a quarter line (`seam_lines` where the border
    between them has its pin: `seams` names the lower tile) are pushed apart, each by half,
    none more than 1 line off its middle, so that a card with a note (4 to 6 lines) keeps
    clear of those above and below it (a tile is 3.5 lines deep) and of the border's pin
    between them; the others stay centred. `lines[(row, col)]`: a card's lines."""
    rows = SECTOR_D / PIN_LINE_M
    lift = dict.fromkeys(lines, 0.0)
    for _ in range(12):  # a few passes settle a column of 7
        for (r, c), n in lines.items():
            up = (r + 1, c)
            if up not in lines:
                continue
            gap = rows + lift[up] - lift[(r, c)] - (n + lines[up]) / 2
            room = seam_lines if (r, c) in seams else 0.25
            if gap < room:
                push = (room - gap) / 2
                lift[up] = min(1.0, lift[up] + push)
                lift[(r, c)] = max(-1.0, lift[(r, c)] - push)
    return lift


PIN_M_PER_PX = SECTOR_D / 70  # m of the map a pixel covers in the window's opening view
PIN_PAD_M = 3 * PIN_M_PER_PX  # an OnscreenText's background beyond its text, each side
MapBox = tuple[float, float, float, float]  # left, bottom, right, top (m on the map)
LABEL_GAP_M = 16 * PIN_M_PER_PX  # two border pins' texts side by side keep this far apart
# (their backgrounds 10 px: one word each, not "C2 C1 M")


def border_words(state: Any) -> list[tuple[Any, str]]:
    """Each border a player reads a number or a mark on: its Courage cost where it leads
    forward ("C2"), "M" where a minefield lies on it (the same words the cloth had)."""
    out = []
    for b in state.map.borders:
        forward = state.map.sectors[b.a].row != state.map.sectors[b.b].row
        word = ((f"C{b.courage}" if forward else "") + (" M" if b.minefield else "")).strip()
        if word:
            out.append((b, word))
    return out


def entry_costs(state: Any) -> dict[str, str]:
    """What moving from the acting unit's sector (`noted_sectors`' first) to each sector it
    can move to costs, by sector: "Courage 2", ", minefield" where one lies on the border."""
    here, *reach = noted_sectors(state)
    out = {}
    for b in state.map.borders:
        if here in (b.a, b.b) and (dest := b.b if b.a == here else b.a) in reach:
            out[dest] = f"Courage {b.courage}" + (", minefield" if b.minefield else "")
    return out


def card_boxes(state: Any, cards: dict[str, str], lift: dict[tuple[int, int], float],
               pad: float = 0.0) -> list[MapBox]:
    """The map each pinned sector card's text covers (m; `pad` more each side: PIN_PAD_M,
    its background too), as `pinned_labels` places them: centred across on its tile, its
    top PIN_LINE_M * (lines / 2 + lift) above the tile's middle."""
    out = []
    for s in state.map.sectors.values():
        x, y = sector_at(state, s.id)
        lines = cards[s.id].split("\n")
        top = y + PIN_LINE_M * (len(lines) / 2 + lift[(s.row, s.col)])
        half = max(map(pin_px, lines)) / 2 * PIN_M_PER_PX + pad
        out.append((x - half, top - len(lines) * PIN_LINE_M - pad, x + half, top + pad))
    return out


def border_places(state: Any, b: Any, hw: float, hh: float) -> Any:
    """Where on the map border `b`'s words (half width `hw`, half height `hh`, m) may go:
    their middles (n, 2; m), 2 px apart, the nearest the border's middle first (a place off
    the seam's line counts 4 times its distance). On the edge of two tiles side by side,
    up or down it; on the seam of two tiles of a column, along it inside the column; at the
    corner where two tiles meet corner to corner, about it."""
    import numpy as np

    (ax, ay), (bx, by) = sector_at(state, b.a), sector_at(state, b.b)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    px = PIN_M_PER_PX

    def both_ways(reach: float) -> Any:
        out = np.arange(0.0, max(reach, 0.0) + 1e-12, 2 * px)
        return np.concatenate([out, -out[1:]])

    if ay == by:  # their edge, up or down it
        xs, ys = mx + np.array([0.0, 3 * px, -3 * px]), my + both_ways(SECTOR_D / 2 - hh - 2 * px)
    elif ax == bx:  # the seam across the column, inside it
        xs, ys = mx + both_ways(SECTOR_W / 2 - hw - 4 * px), my + both_ways(8 * px)
    else:  # the corner
        xs, ys = mx + both_ways(24 * px), my + both_ways(12 * px)
    x, y = (v.ravel() for v in np.meshgrid(xs, ys))
    off_x, off_y = np.abs(x - mx), np.abs(y - my)
    key = (4 * off_x + off_y if ay == by else off_x + 4 * off_y if ax == bx
           else np.hypot(off_x, 2 * off_y))
    order = np.argsort(key, kind="stable")
    return np.stack([x[order], y[order]], axis=1)


BORDER_CLEAR_PX = 2  # a border pin's text keeps at least this far (px) from a card's text
BORDER_ROOMY_PX = (6, 4)  # and these far (6: their backgrounds apart) where it has room
BORDER_GAP_PX = 4  # two border pins' texts one above the other keep this far apart


def border_pins(state: Any, taken: list[MapBox]) -> tuple[list[Any], list[str]]:
    """Each border's words (`border_words`) pinned on it (`border_places`), in red at
    MAP_SCALE: its text as far as its border has room for of BORDER_ROOMY_PX and
    BORDER_CLEAR_PX from the boxes `taken` (the sectors' cards' texts), and clear of the other
    border pins' texts by LABEL_GAP_M side by side and BORDER_GAP_PX one above the other;
    the border with the fewest places left is placed first, at the first place left on it.
    A pin is (point, words, scale, ink), its point its top. Those with no clear place are
    not pinned: the second list names them (the scene's node names of their painted
    words; what a move costs is in the choices too: `move_words`)."""
    import numpy as np

    words = border_words(state)
    cards = np.asarray(taken, dtype=float).reshape(-1, 4)
    hh = PIN_LINE_M / 2  # the text's half height
    px = PIN_M_PER_PX
    boxes = []
    for b, word in words:
        hw = pin_px(word) / 2 * px
        mid = border_places(state, b, hw, hh)
        box = np.stack([mid[:, 0] - hw, mid[:, 1] - hh, mid[:, 0] + hw, mid[:, 1] + hh], axis=1)
        # How far each place's text keeps from the nearest card's text (m; < 0: over it).
        apart = np.maximum.reduce([cards[None, :, 0] - box[:, None, 2],
                                   box[:, None, 0] - cards[None, :, 2],
                                   cards[None, :, 1] - box[:, None, 3],
                                   box[:, None, 1] - cards[None, :, 3]]).min(axis=1) \
            if len(cards) else np.full(len(box), np.inf)
        ok = apart >= BORDER_CLEAR_PX * px - 1e-12
        tier = sum((apart[ok] < room * px - 1e-12).astype(int) for room in BORDER_ROOMY_PX)
        boxes.append(box[ok][np.argsort(tier, kind="stable")])  # the roomiest first, in order
    alive = [np.ones(len(box), dtype=bool) for box in boxes]
    gx, gy = LABEL_GAP_M, BORDER_GAP_PX * px
    out: dict[int, Any] = {}
    loose: list[str] = []
    todo = set(range(len(words)))
    while todo:
        i = min(todo, key=lambda k: (int(alive[k].sum()), k))
        todo.remove(i)
        if not alive[i].any():  # no place on it is clear: painted on the cloth, as before
            loose.append(f"border:{words[i][0].a}:{words[i][0].b}")
            continue
        box = boxes[i][int(np.argmax(alive[i]))]
        out[i] = box
        for k in todo:
            c = boxes[k]
            alive[k] &= ~((c[:, 0] < box[2] + gx) & (box[0] - gx < c[:, 2])
                          & (c[:, 1] < box[3] + gy) & (box[1] - gy < c[:, 3]))
    pins = [(((float(box[0]) + float(box[2])) / 2, float(box[3]), TILE_Z), words[i][1],
             MAP_SCALE, BORDER_INK) for i, box in sorted(out.items())]
    return pins, loose


def move_words(state: Any, action: Any) -> str:
    """An action in the engine's words; a move with what it costs ("move to Tidal Flats:
    Courage 1, minefield": the choices, in the window and the picture)."""
    words = state.action_to_string(action)
    if action[0] == "move":
        cost = entry_costs(state).get(action[1])
        return f"{words}: {cost}" if cost else words
    return words


def pinned_cards(state: Any) -> tuple[dict[str, str], dict[tuple[int, int], float]]:
    """Each sector's pinned card (`pin_card`: the note of the acting unit's sector and of
    those it can move to) and its lift (`pin_lifts`: room kept on each seam a border's
    words lie on, the first of SEAM_LINES where `border_pins` places every border's
    words, else the one that places most)."""
    noted = noted_sectors(state)
    cards = {s.id: pin_card(s, s.id in noted) for s in state.map.sectors.values()}
    secs = state.map.sectors
    seams = frozenset((min(secs[b.a].row, secs[b.b].row), secs[b.a].col)
                      for b, _word in border_words(state) if secs[b.a].col == secs[b.b].col
                      and secs[b.a].row != secs[b.b].row)
    lines = {(s.row, s.col): cards[s.id].count("\n") + 1 for s in secs.values()}
    best: tuple[int, dict[tuple[int, int], float]] | None = None
    for room in SEAM_LINES:
        lift = pin_lifts(lines, seams, room)
        loose = len(border_pins(state, card_boxes(state, cards, lift))[1])
        if best is None or loose < best[0]:
            best = (loose, lift)
        if not loose:
            break
    assert best is not None
    return cards, best[1]


def shown_unit(state: Any) -> int:
    """The unit whose dice lie on the table: the one to act, else the last with dice."""
    if 0 <= state.seat < len(state.units) and state.units[state.seat].dice:
        return int(state.seat)
    with_dice = [i for i, u in enumerate(state.units) if u.dice]
    return with_dice[-1] if with_dice else 0


# -- the scene (shared by the window and `tabletop render`) --------------------------------


def make_scene(session: DiceSession) -> DiceTableScene:
    scene = DiceTableScene(TABLE, tray_at=TRAY_AT)
    _build_map(scene, session.state)
    return scene


def _build_map(scene: DiceTableScene, state: Any) -> None:
    board = scene._static.attachNewNode("battle-map")
    text = scene.root.attachNewNode("map-text")  # beside scene.labels, which paint() clears
    text.setState(scene.labels.getState())
    bm = state.map
    for s in bm.sectors.values():
        x, y = sector_at(state, s.id)
        rgb = BUNKER_RGB if s.bunker else MG_RGB if s.machine_gun else TILE_RGB
        hw, hd = SECTOR_W / 2 - 0.002, SECTOR_D / 2 - 0.002
        board.attachNewNode(_box((x - hw, y - hd, 0.0), (x + hw, y + hd, TILE_Z),
                                 (*rgb, 1.0), (*rgb, 1.0))).setName(f"sector:{s.id}")
        scene.label(s.title, (x, y + 0.022), TEXT, 0.017, z=TILE_Z + 0.001,
                    static=True).reparentTo(text)
        tags = f"EF {s.enemy_fire}" + ("  MG" if s.machine_gun else "") \
            + ("  bunker" if s.bunker else "") + f"  max {s.max_turns} turns"
        scene.label(tags, (x, y + 0.002), TEXT, 0.014, z=TILE_Z + 0.001,
                    static=True).reparentTo(text)
        note = sector_note(s)
        if note:
            scene.label(note[:48], (x, y - 0.036), TEXT, 0.011, z=TILE_Z + 0.001,
                        static=True).reparentTo(text)
    for b in bm.borders:
        (ax, ay), (bx, by) = sector_at(state, b.a), sector_at(state, b.b)
        forward = bm.sectors[b.a].row != bm.sectors[b.b].row
        word = (f"C{b.courage}" if forward else "") + (" M" if b.minefield else "")
        if word.strip():
            node = scene.label(word.strip(), ((ax + bx) / 2 + 0.05 * forward, (ay + by) / 2),
                               (0.7, 0.1, 0.08, 1.0), 0.014, z=TILE_Z + 0.002, static=True)
            node.reparentTo(text)
            node.setName(f"border:{b.a}:{b.b}")


def paint(scene: DiceTableScene, session: DiceSession, words: bool = True) -> None:
    """Markers, Player Sheets (their soldiers as counters) and the six dice, from the
    state; with `words` the words on the sheets (Courage, EP, soldiers, specialists and
    items) and beside the dice's rows ("...'s dice", "set aside"), which the window leaves
    off: it pins each sheet's words in screen space (`App.pinned_labels`, capitals 14 px;
    painted they were 5-9 px high) and shows the dice in the close-up's cells, captioned."""
    st = session.state
    shape = d6_shape()
    for name in [d for d in scene.dice if not d.startswith("roll:")]:
        scene.remove_die(name)
    scene.labels.getChildren().detach()
    for k, u in enumerate(st.units):
        rgb = seat_colour(k)
        if u.status == "active":
            scene.token(marker_xy(st, k), rgb, radius=0.014).reparentTo(scene.labels)
        y = sheet_y(k)
        for j in range(u.soldiers):
            scene.token(soldier_xy(k, j), SOLDIER_RGB, radius=0.007).reparentTo(scene.labels)
        if not words:
            continue
        head = (f"{session.player_name(k)}: courage {u.courage}, EP {u.ep}"
                + (f", {u.status}, VP {u.vp}" if u.status != "active" else ""))
        scene.label(head, (0.2, y), (*rgb, 1.0), 0.018, static=True)
        scene.label(kit_line(u)[:60], (0.2, y - 0.06), PALE, 0.014, static=True)
        scene.label(f"{u.soldiers} soldiers", (0.06 + max(u.soldiers, 1) * 0.02 + 0.06,
                                               y - 0.034), PALE, 0.014, static=True)
    unit = shown_unit(st)
    u = st.units[unit]
    for i, value in enumerate(u.dice):
        yaw = 35.0 if i in u.cancelled else 0.0
        scene.place_d6(f"die:{i}", shape, DIE_RGB[u.colours[i]], int(value),
                       die_xy(i, i in u.kept), yaw_deg=yaw)
    for j, (value, colour) in enumerate(u.extra):
        scene.place_d6(f"surge:{j}", shape, DIE_RGB[str(colour)], int(value),
                       (DIE_X0 + (6 + j) * DIE_STEP, ROLLED_Y))
    if u.dice and words:
        scene.label(f"{session.player_name(unit)}'s dice", (DIE_X0 - 0.075, ROLLED_Y), PALE,
                    0.016, static=True)
        if u.kept:
            scene.label("set aside", (DIE_X0 - 0.075, KEPT_Y), PALE, 0.016, static=True)


def kit_line(u: Any) -> str:
    """A unit's Specialists and Items (and the Medal of Honor while it holds it)."""
    return (f"specialists: {', '.join(u.specialists) or '-'}; items: {', '.join(u.items) or '-'}"
            + ("; Medal of Honor" if u.medal == "held" else ""))


def caption(session: DiceSession) -> list[str]:
    from rules.dday.view import PHASES

    st = session.state
    units = "; ".join(f"{session.player_name(k)} in {st.map.sectors[u.sector].title} "
                      f"({u.soldiers} soldiers, {u.status})" for k, u in enumerate(st.units))
    return [f"D-Day Dice, turn {st.turn}, {PHASES.get(st.phase, st.phase)}: {units}"]


def seat_heading(seat: int, n: int) -> float:
    """Everyone looks up the beach, from the landing craft."""
    return 0.0


def roll_colours(state: Any, n: int) -> list[tuple[float, float, float]]:
    """The six dice by position; a re-roll the dice it throws; fire and minefields grey."""
    if state.node != "chance":
        return [FIRE_RGB] * n
    purpose, _n, idx = state.chance
    u = state.units[state.seat]
    if purpose == "roll":
        return [DIE_RGB[c] for c in START_COLOURS][:n]
    if purpose == "reroll":
        return [DIE_RGB[u.colours[i]] for i in idx][:n]
    if purpose == "surge":
        return [DIE_RGB["white"]] * n
    return [FIRE_RGB] * n


def named_pieces(scene: DiceTableScene, session: DiceSession
                 ) -> dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]:
    """Pieces a picture test looks for: each of the shown unit's dice (its colour, at a
    point of the top face away from the pips), each unit marker, and sectors' sand."""
    st = session.state
    shape = d6_shape()
    top = 2 * float(shape.poly.face_offsets[0])
    off = 0.3 * float(shape.poly.face_offsets[0])
    out: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {}
    u = st.units[shown_unit(st)]
    for i in range(len(u.dice)):
        if i in u.cancelled:
            continue
        x, y = die_xy(i, i in u.kept)
        out[f"die {i + 1} ({u.colours[i]})"] = ((x + off, y + off, top), DIE_RGB[u.colours[i]])
    for k, unit in enumerate(st.units):
        if unit.status == "active":
            x, y = marker_xy(st, k)
            out[f"marker of unit {k + 1}"] = ((x, y, 0.004), seat_colour(k))
    for s in st.map.sectors.values():
        if not s.bunker and not s.machine_gun:
            x, y = sector_at(st, s.id)
            out[f"sector {s.id}"] = ((x + 0.085, y + 0.04, TILE_Z), TILE_RGB)
    return out


# -- the window ----------------------------------------------------------------------------


class App(DiceGameWindow):
    GAME_TITLE = "D-Day Dice"

    def init_game(self) -> None:
        self.picked: list[int] = []  # dice chosen so far (to set aside, or to re-roll)

    def make_scene(self) -> DiceTableScene:
        return make_scene(self.session)

    def sync_scene(self) -> None:
        """As the picture paints it; the unit's dice are hidden from the main view: they
        are shown in the close-up's cells, one a cell (at 1280x720 about 62 px across
        there, 15 px on the table seen whole: issue 37)."""
        from simulator.render.core.inset import main_only

        paint(self.scene, self.session, words=False)  # pinned in screen space, or captioned
        # The map's words painted on the tiles (4-10 px high here) are pinned in screen
        # space (`pinned_labels`): the main view leaves them out, as the picture does, but
        # a border's where its pin finds no clear place.
        st = self.session.state
        cards, lift = pinned_cards(st)
        _pins, loose = border_pins(st, card_boxes(st, cards, lift))
        for node in self.scene.root.find("map-text").getChildren():
            if node.getName() in loose:
                node.show(main_only())
            else:
                node.hide(main_only())
        # A node is drawn for a camera whose mask meets its own: the main view's is the one
        # bit those dice are hidden from (every camera's mask is all bits by default).
        self.base.camNode.setCameraMask(main_only())
        for name in self.close_dice():
            self.scene.dice[name].pose.hide(main_only())

    # -- the unit's dice close up: the inset's cells, a caption each, clicks there ----------

    def close_dice(self) -> list[str]:
        """The scene names of the dice the close-up shows when no roll is playing: the
        unit's six (and Surge's), in order."""
        return [n for n in self.scene.dice if n.startswith(("die:", "surge:"))]

    def rolling(self) -> bool:
        """A roll is being thrown or played back (the close-up shows the tray's dice)."""
        return any(isinstance(r.anim, Roll) for r in (self.running, *self.queue)
                   if r is not None)

    def inset_points(self) -> list[tuple[float, float, float]]:
        if self.rolling():
            return super().inset_points()
        return [self.scene.die_position(n) for n in self.close_dice()]

    def cell_of(self, pos: tuple[float, float]) -> str | None:
        """The die whose close-up cell is at window position `pos` (-1..1, y up), or None."""
        from simulator.render.core.inset import inset_cells

        if self.rolling():
            return None
        names = self.close_dice()
        fx, fy = (pos[0] + 1) / 2, (pos[1] + 1) / 2
        for name, (left, right, bottom, top) in zip(names, inset_cells(len(names)),
                                                    strict=False):
            if left <= fx <= right and bottom <= fy <= top:
                return name
        return None

    def cell_captions(self) -> list[tuple[str, str]]:
        """Each close-up cell's caption: (over the die, under it): its number and symbol,
        and whether it is set aside, picked or cancelled (else its colour)."""
        st = self.session.state
        u = st.units[shown_unit(st)]
        out = []
        for name in self.close_dice():
            kind, k = name.split(":")
            j = int(k)
            if kind == "surge":
                value, colour = u.extra[j]
                out.append((f"S{j + 1} {SYMBOL_NAMES[int(value)]}", f"{colour}, Surge"))
                continue
            state = ("cancelled" if j in u.cancelled else "set aside" if j in u.kept
                     else "picked" if j in self.picked else u.colours[j])
            out.append((f"{j + 1} {SYMBOL_NAMES[int(u.dice[j])]}", state))
        return out

    def refresh_texts(self) -> None:
        """As the window's, and the close-up cells' captions (none while a roll plays)."""
        super().refresh_texts()
        captions = [] if self.rolling() or self.session.state.is_terminal() \
            else self.cell_captions()
        self.inset.caption(captions, self.win_size())

    def click(self, pos: tuple[float, float]) -> None:
        """A click on a die's close-up cell is a click on that die."""
        name = self.cell_of(pos)
        if name is None or not name.startswith("die:"):
            super().click(pos)
            return
        picked = ("die", int(name.split(":")[1]))
        self.inspected = picked
        self.hud.show_inspect(self.inspect_card(picked))
        if not self.human_to_act():
            return
        action = self.action_for(picked)
        if action is None:
            self.refresh()
            return
        self.apply(action)

    def on_left_down(self, pos: tuple[float, float] | None = None) -> None:
        pos = pos or self.mouse()
        name = self.cell_of(pos) if pos is not None else None
        if pos is not None and name is not None and not self.human_to_act():
            if name.startswith("die:"):
                self.inspected = ("die", int(name.split(":")[1]))
            self.refresh()
            return
        super().on_left_down(pos)

    def seat_heading(self, seat: int) -> float:
        return seat_heading(seat, len(self.session.players))

    def roll_colours(self, roll: Roll) -> list[tuple[float, float, float]]:
        return roll_colours(self.session.state, len(roll.faces))

    def status_text(self) -> str:
        from rules.dday.view import PHASES

        st = self.session.state
        if st.is_terminal():
            now = f"Game over: {self.result_text()}"
        elif st.node == "chance":
            now = "the dice are thrown"
        else:
            now = f"{self.session.player_name(st.seat)}: {st.node.replace('_', ' ')}"
        return f"D-Day Dice  turn {st.turn}, {PHASES.get(st.phase, st.phase)}\n{now}"

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        """None in the HUD: each unit's sheet on the table carries its panel, pinned in
        screen space at 14 px capitals (`pinned_labels`). The HUD's left column lay over
        the map's left tiles and their titles (with 4 units it hid a third of the map)."""
        return []

    def prompt_lines(self) -> list[str]:
        lines = super().prompt_lines()
        st = self.session.state
        if not self.human_to_act():
            return lines
        if st.node == "keep":
            lines.append("click two dice to set aside" + (f" (picked {self.picked[0] + 1})"
                                                         if self.picked else ""))
        elif st.node == "rolling":
            chosen = ", ".join(str(i + 1) for i in self.picked) or "none"
            lines.append(f"click dice to re-roll (chosen: {chosen}), then the tray to throw "
                         "them; 'done' in the list keeps this result")
        elif st.node == "cancel":
            lines.append("a skull: click the die it removes")
        elif st.node == "move":
            lines.append("click the sector to move to (your own: stay)")
        return lines

    def make_choices(self) -> list[Choice]:
        s = self.session
        legal = s.legal()
        if s.state.node == "rolling" and self.picked:
            wanted = ("reroll", tuple(sorted(self.picked)))
            legal = [a for a in legal if a == wanted] + [a for a in legal if a != wanted]
        return [Choice(move_words(s.state, a), action=a) for a in legal]

    def draw_overlay(self) -> None:
        st = self.session.state
        if st.is_terminal():
            return
        from simulator.render.core.inset import main_only

        for i in self.picked:  # seen round the die in its close-up cell
            u = st.units[st.seat]
            self.scene.ring(die_xy(i, i in u.kept), 0.0125, SELECT, width=0.002).hide(main_only())
        if 0 <= st.seat < len(st.units) and st.units[st.seat].status == "active":
            self.scene.ring(marker_xy(st, st.seat), 0.02, (*seat_colour(st.seat), 0.95),
                            width=0.004)

    def apply(self, action: Any, bot: bool = False) -> Any:
        self.picked = []
        return super().apply(action, bot)

    def pieces(self) -> dict[Any, tuple[tuple[float, float, float], float]]:
        """What a click can hit: the six dice, the tray, every sector tile."""
        st = self.session.state
        out: dict[Any, tuple[tuple[float, float, float], float]] = {}
        u = st.units[shown_unit(st)]
        for i in range(len(u.dice)):
            out[("die", i)] = ((*die_xy(i, i in u.kept), 0.008), 0.014)
        out[("tray", 0)] = ((TRAY_AT[0], TRAY_AT[1], 0.01), 0.1)
        for sid in st.map.sectors:
            out[("sector", sid)] = ((*sector_at(st, sid), TILE_Z), SECTOR_D * 0.5)
        return out

    def pinned_labels(self) -> list[Pin]:
        """Each sector's card in screen space on its tile (`pin_card`: its title, Enemy
        Fire, and the note of the acting unit's sector and those it can move to), and each
        unit's Courage, EP and soldiers on its sheet: the type painted there is 4-10 px
        high in the window (issue 37); a click on a sector shows its full card."""
        st = self.session.state
        out: list[Pin] = []
        cards, lift = pinned_cards(st)
        borders, _loose = border_pins(st, card_boxes(st, cards, lift))
        for s in st.map.sectors.values():
            x, y = sector_at(st, s.id)
            n = cards[s.id].count("\n") + 1
            out.append(((x, y + PIN_LINE_M * (n / 2 + lift[(s.row, s.col)]), TILE_Z),
                        cards[s.id], MAP_SCALE))  # a pin's point is its top
        for k, u in enumerate(st.units):  # each unit's sheet: its panel (the HUD has none)
            sec = st.map.sectors[u.sector]
            where = (f"{sec.title}, EF {sec.enemy_fire}, turn {u.turns_here + 1}/"
                     f"{sec.max_turns}, VP {u.vp}")
            # A little right of and above the painted head: clear of the map's right column,
            # and the last unit's three lines inside the window.
            out.append(((0.26, sheet_y(k) + 0.026, 0.0),
                        ("> " if k == st.seat and not st.is_terminal() else "")
                        + f"{self.session.player_name(k)}: Courage {u.courage}, EP {u.ep}, "
                        f"{u.soldiers} soldiers" + (f", {u.status}" if u.status != "active"
                                                    else "") + "\n" + wrap(where, 50)
                        + "\n" + wrap(kit_line(u), 50)))
        return out + borders  # after the sheets: each border's Courage cost and minefield

    def pinned_marks(self) -> list[Mark]:
        """Each unit's marker on the map as a tab of its colour on the left edge of its
        sector's card (the cards come first in `pinned_labels`, in the map's order): a card
        of four or five lines fills its tile, and the marker painted on the cloth lay under
        it (unit 1's on the Wreck Line, seed 2 after 9 turns)."""
        st = self.session.state
        order = {sid: k for k, sid in enumerate(st.map.sectors)}
        return [((*marker_xy(st, k), TILE_Z), seat_colour(k), order[u.sector])
                for k, u in enumerate(st.units) if u.status == "active"]

    def inspect_card(self, picked: Any) -> list[str] | None:
        """A sector's full card (title, Enemy Fire, machine gun, bunker, the most turns, what
        it asks and gives, each border's Courage cost and minefield, the units there), or a
        die's colour and symbol."""
        st = self.session.state
        kind, what = picked
        if kind == "die":
            u = st.units[shown_unit(st)]
            if what >= len(u.dice):
                return None
            return [f"die {what + 1}: {u.colours[what]}, {SYMBOL_NAMES[int(u.dice[what])]}"
                    + (", set aside" if what in u.kept else "")
                    + (", cancelled by a skull" if what in u.cancelled else "")]
        if kind != "sector":
            return None
        s = st.map.sectors[what]
        lines = [s.title, f"Enemy Fire {s.enemy_fire}" + (", machine gun" if s.machine_gun else "")
                 + (", bunker" if s.bunker else "") + f", at most {s.max_turns} turns here"]
        lines += [r.describe() for r in (*s.instructions, *s.requirements, *s.restrictions,
                                         *s.penalties, *s.bonuses)]
        for b in st.map.borders:
            if what in (b.a, b.b):
                other = st.map.sectors[b.b if b.a == what else b.a].title
                lines.append(f"to {other}: Courage {b.courage}"
                             + (", minefield" if b.minefield else ""))
        here = [self.session.player_name(k) for k, u in enumerate(st.units) if u.sector == what]
        if here:
            lines.append("here: " + ", ".join(here))
        return lines

    def action_for(self, picked: tuple[str, Any]) -> tuple[Any, ...] | None:
        """The engine action a click on `picked` makes, or None (a die picked or dropped,
        or nothing to do there: the prompt says which)."""
        st = self.session.state
        legal = self.session.legal()
        kind, what = picked
        node = st.node
        if node == "keep" and kind == "die":
            if what in self.picked:
                self.picked.remove(what)
                return None
            self.picked.append(what)
            if len(self.picked) == 2:
                action = ("keep", *sorted(self.picked))
                if action in legal:
                    return action
                self.picked = []
            return None
        if node == "rolling" and kind == "die":
            if what in st.units[st.seat].kept:
                self.message = "that die is set aside: it stays"
            elif what in self.picked:
                self.picked.remove(what)
            else:
                self.picked.append(what)
            return None
        if node == "rolling" and kind == "tray":
            action = ("reroll", tuple(sorted(self.picked)))
            if action in legal:
                return action
            self.message = "pick the dice to re-roll first (re-rolls left: " \
                f"{2 - st.units[st.seat].rerolls})"
            return None
        if node == "cancel" and kind == "die" and ("cancel", what) in legal:
            return ("cancel", what)
        if node == "move" and kind == "sector":
            if what == st.units[st.seat].sector and ("stay",) in legal:
                return ("stay",)
            for action in (("move", what), ("move", what, "whistle")):
                if action in legal:
                    return action
            self.message = f"no move to {st.map.sectors[what].title} from here"
            return None
        self.message = "nothing to do with that piece now (see the choices at the right)"
        return None


# -- the module interface (see simulator.render.app) ---------------------------------------


new_session, replay_session, picture, play_turns = module_functions(GAME, __name__)


def legible_layout(session: DiceSession, scene: DiceTableScene) -> Any:
    """The player's picture (`simulator.render.core.legible`): the camera framed on the battle
    map, each sector's card (title, Enemy Fire, machine gun or bunker, the most turns,
    which units stand there), the six dice and the last roll close up, every unit's sheet
    (soldiers, Courage, EP, Specialists and Items) and the choices in the side panel."""
    from simulator.render.core.legible import Card, Layout
    from simulator.render.d6.picture import choice_lines, die_corners_in, roll_cells

    st = session.state
    white = (1.0, 1.0, 1.0)
    points: list[tuple[float, float, float]] = []
    cards = []
    here: dict[str, list[str]] = {}
    noted = set(noted_sectors(st))
    for k, u in enumerate(st.units):
        if u.status == "active":
            here.setdefault(u.sector, []).append(f"U{k + 1}")
    for s in st.map.sectors.values():
        x, y = sector_at(st, s.id)
        hw, hd = SECTOR_W / 2, SECTOR_D / 2
        points += [(x - hw, y - hd, 0.0), (x + hw, y + hd, TILE_Z)]
        tags = (f"EF {s.enemy_fire}" + (" MG" if s.machine_gun else "")
                + (" bunker" if s.bunker else "") + f", {s.max_turns} turns")
        if s.id in here:
            tags += "  " + " ".join(here[s.id])
        note = sector_note(s) if s.id in noted else ""
        cards.append(Card((x, y, TILE_Z), [s.title, tags] + ([note] if note else []),
                          seat_colour(int(here[s.id][0][1:]) - 1) if s.id in here
                          else (0.45, 0.4, 0.3), width_m=SECTOR_W))
    unit = shown_unit(st)
    u = st.units[unit]
    cells = [(f"die:{i}", f"{u.colours[i]} {SYMBOL_NAMES[int(v)]}" + (" *" if i in u.kept else ""))
             for i, v in enumerate(u.dice) if f"die:{i}" in scene.dice]
    if not cells:  # no dice of the unit's own: the last roll (fire, minefields) in the tray
        cells = roll_cells(scene, session, lambda v: SYMBOL_NAMES[v])
    dice = {name: die_corners_in(scene, name) for name in scene.dice}
    if st.is_terminal():
        now = "Game over"
    elif st.node == "chance":
        now = "the dice are thrown"
    else:
        now = f"{session.player_name(st.seat)} to act: {st.node.replace('_', ' ')}"
    from rules.dday.view import PHASES

    banner = [(f"D-Day Dice, turn {st.turn}, {PHASES.get(st.phase, st.phase)}", white),
              (now, seat_colour(st.seat) if not st.is_terminal() else white)]
    side: list[tuple[str, tuple[float, float, float]]] = []
    for k, unit_k in enumerate(st.units):
        sec = st.map.sectors[unit_k.sector]
        side.append((f"U{k + 1} {session.player_name(k)} [{unit_k.status}] in {sec.title}",
                     seat_colour(k)))
        side.append((f"  Courage {unit_k.courage}, EP {unit_k.ep}, soldiers {unit_k.soldiers}"
                     f", VP {unit_k.vp}", white))
        kit = ", ".join([*unit_k.specialists, *unit_k.items])
        if kit:
            side.append(("  " + kit, white))
    side += choice_lines(session, 5, lambda a: move_words(st, a))
    return Layout(points=points, dice=dice, cells=cells, cards=cards, banner=banner,
                  side=side, heading=0.0, pitch=-80.0, fov=35.0, zoom_floor=False,
                  cells_only=True)
