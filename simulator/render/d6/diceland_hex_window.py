"""Diceland (hex tiles) in the window: the board's tiles in their terrain colours and
numbered, each army a die of its owner's colour on its tile with its value on top, each
player's dice in hand (set-up) or spares at their edge, attacks drawn as arrows (both
attackers of a combined attack), and every roll thrown into the tray beside the board.

Clicks: placing, a die of your hand and then an empty tile; attacking, your army (and a
second army of yours next to it for a combined attack) and then the enemy army; choosing
the roll of a combined attack, a die in the tray and then one of the two attackers; moving,
your army and then the empty tile. The choices list does every decision too.
"""

from __future__ import annotations

import math
from typing import Any

from simulator.physics.settings import TableSpec
from simulator.render.core.pins import PIN_SCALE, Pin
from simulator.render.core.window import Choice, wrap
from simulator.render.d6.scene import (
    TERRAIN_COLOURS,
    TILE_Z,
    DiceTableScene,
    seat_colour,
)
from simulator.render.d6.session import DiceSession, Roll, d6_shape
from simulator.render.d6.tray_view import TRAY_PREFIX
from simulator.render.d6.window import DiceGameWindow, module_functions

GAME = "diceland-hex"
PLAYERS = (2, 2)
RADIUS = 0.02  # m: centre to corner of a tile: 35 mm across its flats for a 16 mm die (issue
# 37: with 45 mm the classic board framed whole showed its armies under 48 px at 1280x720)
GAP = 0.002  # m between tiles
DIE_STEP = 0.024  # m between dice in a hand
TRAY_GAP = 0.25  # m from the board's right edge to the tray's middle
MARGIN = 0.12  # m of felt round the board, the tray and the hands
HAND_OUT = 0.024  # m from the board's side to a hand's first column
RED, BLUE = 0, 1
PIN_NEAR = 0.62  # of the way from a tile's middle to its corner toward the viewer: a tile's
# pinned number (its top there) lies past its army's die in the opening views


class HexLayout:
    """Where a board's tiles, the tray and each player's hand lie on the table."""

    def __init__(self, board: Any) -> None:
        w = math.sqrt(3) * RADIUS
        cols = [c for c, _ in board.cells]
        rows = [r for _, r in board.cells]
        raw = [(c * w / 2, -r * 1.5 * RADIUS) for c, r in board.cells]
        x0, x1 = min(x for x, _ in raw) - w / 2, max(x for x, _ in raw) + w / 2
        y0, y1 = min(y for _, y in raw) - RADIUS, max(y for _, y in raw) + RADIUS
        del cols, rows
        # Each hand stands in columns beside the board: Red's left of it, Blue's right.
        x0, x1 = x0 - HAND_OUT - 2 * DIE_STEP, x1 + HAND_OUT + 2 * DIE_STEP
        tray_x = x1 + TRAY_GAP
        shift_x = -(x0 + tray_x + 0.2) / 2
        shift_y = -(y0 + y1) / 2
        self.centres = [(x + shift_x, y + shift_y) for x, y in raw]
        self.tray_at = (tray_x + shift_x, 0.0)
        half_h = (y1 - y0) / 2
        self.half_h = half_h
        width = (tray_x + 0.2 - x0) + 2 * MARGIN
        depth = max(0.5, 2 * half_h + 2 * MARGIN)
        self.table = TableSpec(width=width, depth=depth)
        tiles_x = [x for x, _ in self.centres]
        self.board_x = (min(tiles_x) - w / 2, max(tiles_x) + w / 2)
        # The x of each hand's first column (the next ones farther out).
        self.hand_x = (self.board_x[0] - HAND_OUT, self.board_x[1] + HAND_OUT)

    def hand_rows(self) -> int:
        """Dice in one of a hand's columns: as many as the board's height holds."""
        return max(1, int(2 * self.half_h // DIE_STEP))

    def hand_spots(self, seat: int, count: int) -> list[tuple[float, float]]:
        per = self.hand_rows()
        out = []
        for i in range(count):
            col, row = divmod(i, per)
            in_col = min(per, count - col * per)
            x = self.hand_x[seat] + (-1 if seat == RED else 1) * col * DIE_STEP
            out.append((x, ((in_col - 1) / 2 - row) * DIE_STEP))
        return out

    def tile_at(self, xy: tuple[float, float]) -> int | None:
        best = min(range(len(self.centres)), key=lambda t: math.dist(self.centres[t], xy))
        return best if math.dist(self.centres[best], xy) <= RADIUS else None


def layout_of(session: DiceSession) -> HexLayout:
    board = session.state.board
    cached = getattr(session, "_hex_layout", None)
    if cached is None or cached[0] is not board:
        cached = (board, HexLayout(board))
        session._hex_layout = cached  # type: ignore[attr-defined]
    return cached[1]  # type: ignore[no-any-return]


# -- the scene (shared by the window and `tabletop render`) --------------------------------


def make_scene(session: DiceSession) -> DiceTableScene:
    lay = layout_of(session)
    scene = DiceTableScene(lay.table, tray_at=lay.tray_at)
    board = session.state.board
    for t, xy in enumerate(lay.centres):
        scene.hex_tile(xy, RADIUS - GAP, TERRAIN_COLOURS.get(board.terrain[t], (0.7, 0.7, 0.6)))
        corner = (xy[0], xy[1] - 0.7 * RADIUS)
        node = scene.label(str(t), corner, (0.1, 0.1, 0.1, 1.0), 0.4 * RADIUS, z=TILE_Z + 0.001,
                           static=True)
        node.setName(f"tile-number:{t}")
        node.reparentTo(scene._static)
    return scene


def paint(scene: DiceTableScene, session: DiceSession) -> None:
    """Armies on their tiles with their value on top, owners' rims, hands or spares."""
    st = session.state
    lay = layout_of(session)
    shape = d6_shape()
    for name in [d for d in scene.dice if not d.startswith(TRAY_PREFIX)]:
        scene.remove_die(name)
    scene.labels.getChildren().detach()
    for t, xy in enumerate(lay.centres):
        owner = st.owner[t]
        if owner >= 0:
            scene.place_d6(f"army:{t}", shape, seat_colour(owner), st.value[t], xy, z=TILE_Z)
    for seat in (RED, BLUE):
        hand = list(st.hands[seat])
        for i, xy in enumerate(lay.hand_spots(seat, len(hand))):
            scene.place_d6(f"hand{seat}:{i}", shape, seat_colour(seat), hand[i], xy)
        word = "hand" if st.phase in ("setup_roll", "place", "start_roll") else "spares"
        x = lay.hand_x[seat]
        scene.label(f"{st.player_name(seat)}: {word}", (x, -lay.half_h - 0.02),
                    (*seat_colour(seat), 1.0), 0.014, static=True)


def caption(session: DiceSession) -> list[str]:
    st = session.state
    parts = [f"{session.player_name(s)} {len(st.armies(s))} armies, {st.pips(s)} pips"
             for s in (RED, BLUE)]
    return [f"Diceland ({st.board.name}), turn {st.turns_played + 1}: " + "; ".join(parts)]


def seat_heading(seat: int, n: int) -> float:
    return 0.0 if seat == RED else 180.0


def roll_colours(state: Any, n: int) -> list[tuple[float, float, float]]:
    if state.phase == "setup_roll":
        return [seat_colour(state.placer)] * n
    if state.phase == "start_roll":
        return [seat_colour(RED)] * (n // 2) + [seat_colour(BLUE)] * (n - n // 2)
    return [seat_colour(state.turn)] * n


# -- the window ----------------------------------------------------------------------------


class App(DiceGameWindow):
    GAME_TITLE = "Diceland"

    def init_game(self) -> None:
        self.picked: list[int] = []  # armies (tiles) picked for an attack or a move
        self.hand_value: int | None = None  # the die of the hand to place
        self.use_roll: int | None = None  # the roll picked for a combined attack

    def make_scene(self) -> DiceTableScene:
        return make_scene(self.session)

    def sync_scene(self) -> None:
        """As the picture paints it, but the tiles' numbers and the hands' words, which an
        army's die hid and which ran under the choices, are pinned in screen space instead
        (`pinned_labels`): the main view leaves the painted ones out."""
        from simulator.render.core.inset import main_only

        paint(self.scene, self.session)
        for node in [*self.scene.root.findAllMatches("**/tile-number:*"),
                     *self.scene.labels.getChildren()]:
            node.hide(main_only())
        self.base.camNode.setCameraMask(main_only())

    def pinned_labels(self) -> list[Pin]:
        """Each tile's number on the tile's side toward the viewer (PIN_NEAR of the way to
        its corner, past its army's die), and each hand's words ("Red: spares") at its edge,
        in screen space (`core.pins`): painted, an army hid its tile's number (five of the
        compact board's eight in the window's opening view) and the words ran under the
        choices."""
        st = self.session.state
        lay = layout_of(self.session)
        right, _up, fwd = self.camera.basis()
        away = math.hypot(fwd[0], fwd[1])
        tx, ty = (-fwd[0] / away, -fwd[1] / away) if away > 1e-6 else (0.0, -1.0)
        out: list[Pin] = [((x + tx * PIN_NEAR * RADIUS, y + ty * PIN_NEAR * RADIUS, TILE_Z),
                           str(t)) for t, (x, y) in enumerate(lay.centres)]
        word = "hand" if st.phase in ("setup_roll", "place", "start_roll") else "spares"
        for seat in (RED, BLUE):
            r, g, b = (0.6 * c for c in seat_colour(seat))
            out.append(((lay.hand_x[seat], -lay.half_h - 0.012, 0.0),
                        f"{self.session.player_name(seat)}: {word}", PIN_SCALE, (r, g, b, 1.0)))
        return out

    def seat_heading(self, seat: int) -> float:
        return seat_heading(seat, 2)

    def roll_colours(self, roll: Roll) -> list[tuple[float, float, float]]:
        return roll_colours(self.session.state, len(roll.faces))

    def apply(self, action: Any, bot: bool = False) -> Any:
        self.picked, self.hand_value, self.use_roll = [], None, None
        return super().apply(action, bot)

    def cancel(self) -> None:
        self.picked, self.hand_value, self.use_roll = [], None, None
        super().cancel()

    # -- HUD --------------------------------------------------------------------------------

    def status_text(self) -> str:
        st = self.session.state
        if st.is_terminal():
            now = f"Game over: {self.result_text()}"
        else:
            seat = st.current_player()
            who = self.session.player_name(seat) if seat >= 0 else "the dice"
            now = f"{who}: {_PHASE_WORDS.get(st.phase, st.phase)}"
        return (f"Diceland ({st.board.name})  turn {st.turns_played + 1}   "
                f"Red {len(st.armies(RED))} armies : {len(st.armies(BLUE))} Blue\n{now}")

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        st = self.session.state
        out = []
        for seat in (RED, BLUE):
            lines = [self.session.player_name(seat),
                     f"{len(st.armies(seat))} armies, {st.pips(seat)} pips",
                     ("hand " if st.phase in ("setup_roll", "place", "start_roll") else "spares ")
                     + " ".join(map(str, st.hands[seat]))]
            out.append(("\n".join(wrap(line, 40) for line in lines), seat_colour(seat)))
        return out

    def prompt_lines(self) -> list[str]:
        lines = super().prompt_lines()
        st = self.session.state
        if st.phase in ("attack_roll", "choose") and st.attackers:
            who = " and ".join(f"tile {a} ({st.value[a]})" for a in st.attackers)
            kind = "combined attack" if len(st.attackers) == 2 else "attack"
            lines.append(f"{kind} from {who} on tile {st.target} ({st.value[st.target]})")
        if self.human_to_act():
            lines.append(_CLICK_WORDS.get(st.phase, ""))
        if self.roll is not None:
            lines.append(f"last roll: {' '.join(map(str, self.roll.faces))}")
        return [line for line in lines if line]

    def make_choices(self) -> list[Choice]:
        s = self.session
        st = s.state
        legal = s.legal()
        if st.phase == "place" and self.hand_value is None:
            values = sorted({a[1] for a in legal}, reverse=True)
            return [Choice(f"place a {v} (then click a tile)", arm=v) for v in values]
        if st.phase == "place":
            return [Choice(st.action_to_string(a), action=a) for a in legal
                    if a[1] == self.hand_value]
        return [Choice(st.action_to_string(a), action=a) for a in legal]

    def arm(self, choice: Choice) -> None:
        self.hand_value = int(str(choice.arm))
        self.message = f"a {self.hand_value}: click an empty tile"
        self.refresh()

    # -- marks ------------------------------------------------------------------------------

    def draw_overlay(self) -> None:
        st = self.session.state
        lay = layout_of(self.session)
        sc = self.scene
        z = TILE_Z + 0.002
        for t, xy in enumerate(lay.centres):
            if st.owner[t] >= 0:
                sc.hex_outline(xy, RADIUS - GAP - 0.003, (*seat_colour(st.owner[t]), 0.95),
                               width=0.003, z=z)
        if st.attackers and st.target >= 0:
            tx, ty = lay.centres[st.target]
            for a in st.attackers:
                ax, ay = lay.centres[a]
                sc.arrow((ax, ay, z + 0.02), (ax + 0.8 * (tx - ax), ay + 0.8 * (ty - ay), z + 0.02),
                         (1.0, 0.85, 0.2, 0.95), width=0.006)
        if not self.human_to_act():
            return
        for t in self.picked:
            sc.hex_outline(lay.centres[t], RADIUS - GAP, (1.0, 0.95, 0.3, 1.0), width=0.004, z=z)
        for t in self._targets():
            sc.ring(lay.centres[t], RADIUS * 0.62, (0.95, 0.2, 0.15, 0.95), width=0.003)
        if st.phase == "place" and self.hand_value is not None:
            for i, v in enumerate(st.hands[st.placer]):
                if v == self.hand_value:
                    xy = lay.hand_spots(st.placer, len(st.hands[st.placer]))[i]
                    sc.ring(xy, 0.015, (1.0, 0.85, 0.2, 0.95), width=0.003)
                    break

    def _targets(self) -> list[int]:
        """Tiles a click would finish an action on, given what is picked."""
        legal = self.session.legal()
        st = self.session.state
        if st.phase == "attack" and self.picked:
            return sorted({a[-1] for a in legal if list(a[1:-1]) in (self.picked,
                                                                     sorted(self.picked))})
        if st.phase == "move" and self.picked:
            return sorted({a[2] for a in legal if a[0] == "move" and a[1] == self.picked[0]})
        if st.phase == "choose":
            return list(st.attackers)
        return []

    # -- clicks -----------------------------------------------------------------------------

    def click(self, pos: tuple[float, float]) -> None:
        s = self.session
        st = s.state
        self.inspected = self.pick_sphere(pos, self.pieces())  # its card, whatever it does
        self.show_card()
        legal = s.legal()
        lay = layout_of(s)
        me = st.current_player()
        hand_dice = {f"hand{me}:{i}": (self.scene.die_position(f"hand{me}:{i}"), 0.016)
                     for i in range(len(st.hands[me])) if f"hand{me}:{i}" in self.scene.dice}
        tray = {n: (self.scene.die_position(n), 0.016) for n in self.scene.die_names(TRAY_PREFIX)}
        picked = self.pick_sphere(pos, {**hand_dice, **tray})
        hit = self.ray_plane(pos, TILE_Z)
        tile = lay.tile_at(hit) if hit is not None else None
        if st.phase == "place":
            if picked is not None and str(picked).startswith("hand"):
                self.hand_value = st.hands[me][int(str(picked).split(":")[1])]
                self.message = f"a {self.hand_value}: click an empty tile"
            elif tile is not None and self.hand_value is not None \
                    and ("place", self.hand_value, tile) in legal:
                self.apply(("place", self.hand_value, tile))
                return
            else:
                self.message = "click a die of your hand, then an empty tile"
        elif st.phase == "choose":
            if picked is not None and str(picked).startswith(TRAY_PREFIX) and self.tray_values():
                i = self.scene.die_names(TRAY_PREFIX).index(str(picked))
                self.use_roll = self.tray_values()[i]
                self.message = f"use the {self.use_roll}: click one of the two attackers"
            elif tile is not None and self.use_roll is not None \
                    and ("use", self.use_roll, tile) in legal:
                self.apply(("use", self.use_roll, tile))
                return
            else:
                self.message = "click a die in the tray, then the attacker to use it with"
        elif tile is not None and st.phase == "attack":
            self._attack_click(tile, legal)
            return
        elif tile is not None and st.phase == "move":
            if st.owner[tile] == me:
                self.picked = [tile]
            elif self.picked and ("move", self.picked[0], tile) in legal:
                self.apply(("move", self.picked[0], tile))
                return
        self.refresh()

    # -- inspect: a click on a tile, a die of a hand or of the tray shows its card ---------

    def pieces(self) -> dict[Any, tuple[tuple[float, float, float], float]]:
        """What a click can inspect: every tile (its army die on it), the hands' dice and
        the tray's."""
        st = self.session.state
        lay = layout_of(self.session)
        out: dict[Any, tuple[tuple[float, float, float], float]] = {
            ("tile", t): ((xy[0], xy[1], TILE_Z + 0.008), RADIUS * 0.85)
            for t, xy in enumerate(lay.centres)}
        for seat in (RED, BLUE):
            for i in range(len(st.hands[seat])):
                if f"hand{seat}:{i}" in self.scene.dice:
                    out[("hand", seat, i)] = (self.scene.die_position(f"hand{seat}:{i}"), 0.014)
        for i, name in enumerate(self.scene.die_names(TRAY_PREFIX)):
            out[("roll", i)] = (self.scene.die_position(name), 0.014)
        return out

    def inspect_card(self, picked: Any) -> list[str] | None:
        """A tile's card: its number and terrain, the army on it (value, owner), each tile
        next to it (its army or empty) and what its owner may do there; a die of a hand or
        of the last roll: whose it is and what it shows."""
        s = self.session
        st = s.state
        if picked[0] == "hand":
            _kind, seat, i = picked
            if i >= len(st.hands[seat]):
                return None
            word = "hand" if st.phase in ("setup_roll", "place", "start_roll") else "spares"
            return [f"{s.player_name(seat)}'s {word}: a {st.hands[seat][i]}",
                    f"all of them: {' '.join(map(str, st.hands[seat]))}"]
        if picked[0] == "roll":
            values = self.tray_values()
            if picked[1] >= len(values):
                return None
            return [f"the last roll: die {picked[1] + 1} shows {values[picked[1]]}",
                    f"the roll: {' '.join(map(str, values))}"]
        t = picked[1]
        terrain = {"P": "plain", "F": "forest", "M": "mountain", "H": "hill", "C": "city"}
        lines = [f"tile {t} ({terrain.get(st.board.terrain[t], st.board.terrain[t])})"]
        owner = st.owner[t]
        lines.append(f"army of {st.value[t]}, {s.player_name(owner)}'s" if owner >= 0
                     else "empty")
        near = [f"{n} ({st.value[n]} {s.player_name(st.owner[n])})" if st.owner[n] >= 0
                else f"{n} (empty)" for n in st.board.neighbours[t]]
        lines.append("next to: " + ", ".join(near))
        if owner >= 0:
            enemies = [n for n in st.board.neighbours[t] if st.owner[n] == 1 - owner]
            lines.append("may attack: " + (", ".join(map(str, enemies)) if enemies else "none"))
        return lines

    def inset_points(self) -> list[tuple[float, float, float]]:
        """The piece inspected, large in the close-up (a tile's army die); else the last
        roll's dice."""
        picked = None if isinstance(getattr(self.running, "anim", None), Roll) \
            else self.inspected  # a roll being thrown is shown close up first
        name = None
        if picked is not None and picked[0] == "tile":
            name = f"army:{picked[1]}"
        elif picked is not None and picked[0] == "hand":
            name = f"hand{picked[1]}:{picked[2]}"
        if name is not None and name in self.scene.dice:
            return [self.scene.die_position(name)]
        return super().inset_points()

    def _attack_click(self, tile: int, legal: list[Any]) -> None:
        st = self.session.state
        me = st.current_player()
        if st.owner[tile] == me:
            if len(self.picked) == 1 and tile != self.picked[0] \
                    and tile in st.board.neighbours[self.picked[0]]:
                self.picked = [self.picked[0], tile]  # a second army: a combined attack
            else:
                self.picked = [tile]
            self.message = f"army on tile{'s' if len(self.picked) > 1 else ''} " \
                           f"{' and '.join(map(str, self.picked))}: click the enemy to attack"
        elif st.owner[tile] == 1 - me and self.picked:
            pair = sorted(self.picked)
            combined = ("combined", pair[0], pair[1], tile) if len(pair) == 2 else None
            single = ("attack", self.picked[-1], tile)
            for action in (combined, single):
                if action is not None and action in legal:
                    self.apply(action)
                    return
            self.message = "that army cannot be attacked from there"
        else:
            self.message = "click one of your armies next to an enemy army first"
        self.refresh()

    def last_moved(self) -> str | None:
        st = self.session.state
        if st.target >= 0 and f"army:{st.target}" in self.scene.dice:
            return f"army:{st.target}"
        return super().last_moved()


_PHASE_WORDS = {
    "setup_roll": "rolling all their dice", "place": "place a die on an empty tile",
    "start_roll": "spares re-rolled (a tie)", "attack": "attack an enemy army next to yours",
    "attack_roll": "the attack roll", "choose": "combined attack: which roll, which army",
    "move": "move one army to an empty tile, or stay",
}
_CLICK_WORDS = {
    "place": "click a die of your hand, then an empty tile",
    "attack": "click your army (a second one for a combined attack), then the enemy's",
    "choose": "click a die in the tray, then the attacker to use it with",
    "move": "click your army, then an empty tile next to it (or choose 'do not move')",
}


# -- the module interface (see simulator.render.app) ---------------------------------------


new_session, replay_session, picture, play_turns = module_functions(GAME, __name__)


def legible_layout(session: DiceSession, scene: DiceTableScene) -> Any:
    """The player's picture (`simulator.render.core.legible`): the camera framed on the board
    and both hands, each tile's card (its number, the army's value and owner), the last
    roll close up, the armies and pips of each player and whose turn across the top, the
    choices at the side."""
    from simulator.render.core.legible import Card, Layout
    from simulator.render.d6.picture import choice_lines, die_corners_in, roll_cells

    st = session.state
    lay = layout_of(session)
    white = (1.0, 1.0, 1.0)
    points: list[tuple[float, float, float]] = []
    cards = []
    for t, (x, y) in enumerate(lay.centres):
        points += [(x - RADIUS, y - RADIUS, 0.0), (x + RADIUS, y + RADIUS, TILE_Z)]
        owner = st.owner[t]
        words = f"{t}: " + (f"{st.value[t]} {st.player_name(owner)}" if owner >= 0 else "empty")
        # Under the army on its tile, so its face stays seen.
        cards.append(Card((x, y, TILE_Z + 0.016), [words],
                          seat_colour(owner) if owner >= 0 else (0.5, 0.5, 0.5), below_px=14.0))
    for seat in (RED, BLUE):
        for xy in lay.hand_spots(seat, max(1, len(st.hands[seat]))):
            points += [(xy[0] - 0.012, xy[1] - 0.012, 0.0), (xy[0] + 0.012, xy[1] + 0.012, 0.016)]
        word = "hand" if st.phase in ("setup_roll", "place", "start_roll") else "spares"
        cards.append(Card((lay.hand_x[seat], -lay.half_h - 0.012, 0.0),
                          [f"{st.player_name(seat)} {word}"], seat_colour(seat)))
        points.append((lay.hand_x[seat], -lay.half_h - 0.025, 0.0))
    dice = {n: die_corners_in(scene, n) for n in scene.dice}
    cells = roll_cells(scene, session)
    now = "Game over" if st.is_terminal() else \
        f"{session.player_name(int(st.current_player()))} to act ({st.phase.replace('_', ' ')})"
    banner = [(f"Diceland ({st.board.name}), turn {st.turns_played + 1}: " + "; ".join(
        f"{session.player_name(s)} {len(st.armies(s))} armies, {st.pips(s)} pips"
        for s in (RED, BLUE)), white), (now, white)]
    side: list[tuple[str, tuple[float, float, float]]] = []
    for seat in (RED, BLUE):
        hand = " ".join(str(v) for v in st.hands[seat]) or "-"
        side.append((f"{session.player_name(seat)} hand: {hand}", seat_colour(seat)))
    side += choice_lines(session, 6)
    return Layout(points=points, dice=dice, cells=cells[:6], cards=cards, banner=banner,
                  side=side, heading=0.0, pitch=-80.0, fov=35.0, zoom_floor=False,
                  cells_only=True)
