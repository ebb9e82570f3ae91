"""DiceWar: Light of Dragons in the window: the 7x7 warlands with each creature die showing
its power on top (red dice for player 0, black for player 1), the two Supply Zones tinted
in their player's colour, the ruins (with the Ruins option), each player's Reserve and
Exile beside the board, and the victory and trigger points as tracks of counters.

The start roll is the one roll of the game: two dice thrown into the tray by the physics
(`simulator.render.d6.window`), red's and black's, the faces shown being the faces the
engine receives. Dice are otherwise turned by hand: a placed or upgraded creature is put
down showing its power.

Clicks: in set-up, a power from your Reserve row (1 to 6), then an empty field of your
Supply Zone. In the war, one of your creatures, then a field: a move or an attack there
(or a spell on it, when that is the only action there); the selected creature once more
upgrades it (or casts its spell with no target). The choices list has every action too.
"""

from __future__ import annotations

from typing import Any

from rules.dicewar.game import CELLS, RUINS, SIZE, cell_name, home_row
from simulator.physics.settings import TableSpec
from simulator.render.core.scene import _box
from simulator.render.core.window import Choice
from simulator.render.d6.scene import DiceTableScene
from simulator.render.d6.session import DiceSession, Roll, d6_shape
from simulator.render.d6.window import DiceGameWindow, module_functions

GAME = "dicewar"
PLAYERS = (2, 2)
TABLE = TableSpec(width=1.2, depth=0.95)
TRAY_AT = (0.4, 0.0)
FIELD = 0.026  # m: one field of the warlands, a 16 mm die with 5 mm round it (issue 37:
# on 70 mm fields the board framed whole showed its dice 18-23 px across at 1280x720)
BOARD_AT = (-0.15, 0.0)  # m: the middle of the board
FIELD_Z = 0.003  # m: the board's thickness; creatures stand on it
DICE_RGB = ((0.82, 0.12, 0.1), (0.08, 0.08, 0.09))  # red, black
# The Supply Zones' tint: a paler red and a mid grey, so a die on them stands out.
ZONE_RGB = ((0.66, 0.36, 0.3), (0.45, 0.45, 0.48))
LIGHT, DARK = (0.86, 0.8, 0.66), (0.72, 0.64, 0.5)  # the other fields, chequered
RUIN_RGB = (0.5, 0.5, 0.52)
VP_RGB, TP_RGB = (0.95, 0.78, 0.25), (0.35, 0.7, 0.95)
TRACK_STEP = 0.026  # m between counters on a track
SELECT = (1.0, 0.85, 0.2, 0.95)
TARGET = (0.95, 0.25, 0.15, 0.9)


# -- where things are ----------------------------------------------------------------------


def field_xy(cell: int) -> tuple[float, float]:
    """The middle of a field: column a..g along x, row 1 (red's back row) nearest -y."""
    row, col = divmod(cell, SIZE)
    return (BOARD_AT[0] + (col - (SIZE - 1) / 2) * FIELD,
            BOARD_AT[1] + (row - (SIZE - 1) / 2) * FIELD)


def side_y(player: int) -> float:
    """The y of a player's rows of pieces beside the board (Reserve, Exile, tracks)."""
    half = SIZE / 2 * FIELD
    return BOARD_AT[1] + (-1 if player == 0 else 1) * (half + 0.7 * FIELD)


def reserve_xy(player: int, power: int) -> tuple[float, float]:
    """The Reserve row: one die per power 1..6, standing for every die left in it."""
    return (BOARD_AT[0] - 2.5 * FIELD + (power - 1) * FIELD, side_y(player))


def exile_xy(player: int, k: int) -> tuple[float, float]:
    sgn = -1 if player == 0 else 1
    return (BOARD_AT[0] - SIZE / 2 * FIELD - 0.035, BOARD_AT[1] + sgn * (0.02 + k * 0.022))


def track_xy(player: int, kind: str, k: int) -> tuple[float, float]:
    """Counter k of a player's victory-point ('vp') or trigger-point ('tp') track."""
    sgn = -1 if player == 0 else 1
    y = side_y(player) + sgn * (0.045 if kind == "vp" else 0.07)
    return (BOARD_AT[0] - 0.12 + k * TRACK_STEP, y)


# -- the scene (shared by the window and `tabletop render`) --------------------------------


def make_scene(session: DiceSession) -> DiceTableScene:
    scene = DiceTableScene(TABLE, tray_at=TRAY_AT)
    _build_board(scene, bool(session.state.ruins))
    return scene


def _build_board(scene: DiceTableScene, ruins: bool) -> None:
    board = scene._static.attachNewNode("warlands")
    text = scene.root.attachNewNode("board-text")  # beside scene.labels, which paint() clears
    text.setState(scene.labels.getState())
    for cell in range(CELLS):
        row, col = divmod(cell, SIZE)
        if row == home_row(0):
            rgb = ZONE_RGB[0]
        elif row == home_row(1):
            rgb = ZONE_RGB[1]
        elif ruins and cell in RUINS:
            rgb = RUIN_RGB
        else:
            rgb = LIGHT if (row + col) % 2 == 0 else DARK
        x, y = field_xy(cell)
        h = FIELD / 2 - 0.001  # a millimetre's seam between fields
        board.attachNewNode(_box((x - h, y - h, 0.0), (x + h, y + h, FIELD_Z),
                                 (*rgb, 1.0), (*rgb, 1.0))).setName(f"field:{cell_name(cell)}")
    for col in range(SIZE):
        x, _y = field_xy(col)
        for player in (0, 1):
            edge = SIZE / 2 * FIELD + 0.7 * FIELD + 0.02  # beyond the Reserve row
            scene.label("abcdefg"[col], (x, BOARD_AT[1] + (-edge if player == 0 else edge)),
                        (0.9, 0.88, 0.8, 1.0), 0.016, static=True).reparentTo(text)
    for row in range(SIZE):
        _x, y = field_xy(row * SIZE)
        scene.label(str(row + 1), (BOARD_AT[0] + SIZE / 2 * FIELD + 0.012, y),
                    (0.9, 0.88, 0.8, 1.0), 0.016, static=True).reparentTo(text)


def paint(scene: DiceTableScene, session: DiceSession) -> None:
    """Creatures on their fields, the Reserve, the Exile and both tracks, from the state."""
    st = session.state
    shape = d6_shape()
    for name in [d for d in scene.dice if not d.startswith("roll:")]:
        scene.remove_die(name)
    scene.labels.getChildren().detach()
    for cell, w in enumerate(st.board):
        if w:
            player = 0 if w > 0 else 1
            scene.place_d6(f"field:{cell}", shape, DICE_RGB[player], abs(w), field_xy(cell),
                           z=FIELD_Z)
    for player in (0, 1):
        name = session.player_name(player)
        if st.reserve[player]:
            for power in range(1, 7):
                scene.place_d6(f"reserve{player}:{power}", shape, DICE_RGB[player], power,
                               reserve_xy(player, power))
        x0, y0 = reserve_xy(player, 1)
        scene.label(f"{name}: reserve {st.reserve[player]}", (x0 - 0.12, y0),
                    (*DICE_RGB[player], 1.0) if player == 0 else (0.95, 0.95, 0.92, 1.0),
                    0.028, static=True)
        for k in range(st.exile[player]):
            scene.place_d6(f"exile{player}:{k}", shape, DICE_RGB[player], 1,
                           exile_xy(player, k), yaw_deg=30.0)
        if st.exile[player]:
            ex, ey = exile_xy(player, 0)
            scene.label(f"exile {st.exile[player]}", (ex, ey + (-0.02 if player == 0 else 0.02)),
                        (0.9, 0.88, 0.8, 1.0), 0.016, static=True)
        for kind, count, rgb in (("vp", st.vp[player], VP_RGB), ("tp", st.tp[player], TP_RGB)):
            for k in range(count):
                scene.token(track_xy(player, kind, k), rgb, radius=0.01).reparentTo(scene.labels)
            lx, ly = track_xy(player, kind, 0)
            word = f"VP {st.vp[player]}" if kind == "vp" else f"TP {st.tp[player]}"
            scene.label(word, (lx - 0.045, ly), (*rgb, 1.0), 0.016, static=True)


def caption(session: DiceSession) -> list[str]:
    st = session.state
    parts = [f"{session.player_name(p)}: VP {st.vp[p]}, TP {st.tp[p]}, reserve "
             f"{st.reserve[p]}, exile {st.exile[p]}" for p in (0, 1)]
    return [f"DiceWar, {st.phase} (turn {st.plies}): " + "; ".join(parts)]


def seat_heading(seat: int, n: int) -> float:
    """Red sits at the -y edge, black across the table."""
    return 0.0 if seat == 0 else 180.0


def roll_colours(state: Any, n: int) -> list[tuple[float, float, float]]:
    """The start roll (the game's only one, whatever `state`): red's die, then black's."""
    return [DICE_RGB[i % 2] for i in range(n)]


# -- the window ----------------------------------------------------------------------------


class App(DiceGameWindow):
    GAME_TITLE = "DiceWar: Light of Dragons"

    def init_game(self) -> None:
        self.selected: int | None = None  # a field with one of our creatures
        self.power = 1  # the power a set-up placement puts down

    def make_scene(self) -> DiceTableScene:
        return make_scene(self.session)

    def sync_scene(self) -> None:
        """As the picture paints it, less the words painted beside the Reserve rows, the
        Exile and the tracks ("red (human): reserve 15", "VP 0"): 11-40 px high, they ran
        off the window's edge and under the seat panels, which say the same (reserve,
        exile, victory and trigger points). The tokens and the board's letters and
        numbers stay."""
        from panda3d.core import TextNode

        from simulator.render.core.inset import main_only

        paint(self.scene, self.session)
        for node in self.scene.labels.getChildren():
            if isinstance(node.node(), TextNode):
                node.hide(main_only())
        self.base.camNode.setCameraMask(main_only())

    def seat_heading(self, seat: int) -> float:
        return seat_heading(seat, 2)

    def roll_colours(self, roll: Roll) -> list[tuple[float, float, float]]:
        return roll_colours(self.session.state, len(roll.faces))

    def status_text(self) -> str:
        st = self.session.state
        if st.is_terminal():
            now = f"Game over: {self.result_text()}"
        elif st.phase == "start":
            now = "the start roll: red's die and black's, higher starts"
        elif st.phase == "setup":
            now = (f"{self.session.player_name(st.player)}: put creatures in your Supply Zone "
                   "until their powers total 10")
        else:
            now = f"{self.session.player_name(st.player)}: one action (move, attack, upgrade, spell)"
        return f"DiceWar   turn {st.plies}\n{now}"

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        st = self.session.state
        out = []
        for p in (0, 1):
            turn = "> " if p == st.player and not st.is_terminal() else ""
            lines = [f"{turn}{self.session.player_name(p)} ({st.tribes[p].name})",
                     f"victory points {st.vp[p]} (+{st.virtual_vp(p) - st.vp[p]} virtual)",
                     f"trigger points {st.tp[p]}",
                     f"reserve {st.reserve[p]}, exile {st.exile[p]}"]
            out.append(("\n".join(lines), DICE_RGB[p] if p == 0 else (0.85, 0.85, 0.85)))
        return out

    def prompt_lines(self) -> list[str]:
        lines = super().prompt_lines()
        st = self.session.state
        if not self.human_to_act():
            return lines
        if st.phase == "setup":
            lines.append(f"placing power {self.power}: click a power in your Reserve row to "
                         "change it, then an empty field of your Supply Zone")
        elif st.phase == "war" and self.selected is None:
            lines.append("click one of your creatures")
        elif st.phase == "war" and self.selected is not None:
            lines.append(f"{cell_name(self.selected)} selected: click a field to move or attack "
                         "there, or the creature again to upgrade it")
        return lines

    def make_choices(self) -> list[Choice]:
        s = self.session
        legal = s.legal()
        if self.selected is not None:
            legal = [a for a in legal if len(a) > 1 and a[1] == self.selected] or legal
        return [Choice(s.state.action_to_string(a), action=a) for a in legal]

    def draw_overlay(self) -> None:
        st = self.session.state
        if st.is_terminal() or not self.human_to_act():
            return
        if st.phase == "setup":
            self.scene.ring(reserve_xy(st.player, self.power), 0.016, SELECT, width=0.003)
        if self.selected is not None:
            self.scene.ring(field_xy(self.selected), 0.02, SELECT, width=0.004)
            for a in self.session.legal():
                if a[1] == self.selected and len(a) == 3:
                    self.scene.ring(field_xy(a[2]), 0.012, TARGET, width=0.003)

    def apply(self, action: Any, bot: bool = False) -> Any:
        self.selected = None
        return super().apply(action, bot)

    def pieces(self) -> dict[Any, tuple[tuple[float, float, float], float]]:
        """What a click can hit: every field (its middle, a little above the board) and the
        Reserve row's dice."""
        out: dict[Any, tuple[tuple[float, float, float], float]] = {
            ("field", cell): ((*field_xy(cell), FIELD_Z + 0.008), FIELD * 0.45)
            for cell in range(CELLS)}
        st = self.session.state
        if st.phase == "setup":
            for power in range(1, 7):
                out[("reserve", power)] = ((*reserve_xy(st.player, power), 0.008), 0.012)
        return out

    def inspect_card(self, picked: Any) -> list[str] | None:
        """A creature's card: its name, power and owner, how it moves, its spell and its
        speciality, its story; a Reserve die's power."""
        st = self.session.state
        kind, what = picked
        if kind == "reserve":
            return [f"{self.session.player_name(st.player)}'s Reserve: power {what}"]
        if kind != "field" or not st.board[what]:
            return None
        c = st.creature_at(what)
        owner = self.session.player_name(0 if st.board[what] > 0 else 1)
        m = c.movement
        lines = [f"{c.name} ({c.power}) on {cell_name(what)}, {owner}'s",
                 f"moves: {m.pattern}, range {m.range}" + (", jumps" if m.jump else "")]
        if c.spell is not None:
            lines.append(f"spell: {c.spell.text or c.spell.kind}")
        if c.speciality is not None:
            lines.append(f"speciality: {c.speciality.text or c.speciality.kind}")
        if c.story:
            lines.append(c.story)
        return lines

    def action_for(self, picked: tuple[str, int]) -> tuple[Any, ...] | None:
        """The engine action a click on `picked` makes, or None (a selection changed, or
        nothing to do there: the prompt says which)."""
        st = self.session.state
        legal = self.session.legal()
        kind, what = picked
        if st.phase == "setup":
            if kind == "reserve":
                self.power = what
                self.message = f"placing power {what}"
                return None
            row, col = divmod(what, SIZE)
            if row == home_row(st.player) and ("place", col, self.power) in legal:
                return ("place", col, self.power)
            self.message = f"power {self.power} cannot go on {cell_name(what)}"
            return None
        if st.phase != "war":
            return None
        if self.selected is None or (what != self.selected and st.owner(what) == st.player):
            if st.owner(what) == st.player:
                self.selected = what
                self.message = ""
            else:
                self.message = "click one of your own creatures first"
            return None
        src = self.selected
        if what == src:
            for action in (("upgrade", src), ("spell", src, src)):
                if action in legal:
                    return action
        else:
            for action in (("move", src, what), ("spell", src, what)):
                if action in legal:
                    return action
        self.message = f"{cell_name(src)} can do nothing on {cell_name(what)}"
        self.selected = None
        return None


# -- the module interface (see simulator.render.app) ---------------------------------------


new_session, replay_session, picture, play_turns = module_functions(GAME, __name__)


def named_pieces(scene: DiceTableScene, session: DiceSession
                 ) -> dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]:
    """Pieces a picture test looks for: each creature's top face (its player's colour), an
    empty field's middle, both Supply Zones' empty fields. Name -> (point, colour)."""
    st = session.state
    shape = d6_shape()
    out: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {}
    top = FIELD_Z + 2 * float(shape.poly.face_offsets[0])
    for cell, w in enumerate(st.board):
        row, col = divmod(cell, SIZE)
        x, y = field_xy(cell)
        # A point off the pips: a third of the way from the middle to a corner of the top.
        off = 0.3 * float(shape.poly.face_offsets[0])
        if w:
            out[f"creature {cell_name(cell)}"] = ((x + off, y + off, top), DICE_RGB[0 if w > 0 else 1])
        elif row in (home_row(0), home_row(1)):
            out[f"supply {cell_name(cell)}"] = ((x + 0.3 * FIELD, y + 0.3 * FIELD, FIELD_Z),
                                                ZONE_RGB[0 if row == home_row(0) else 1])
        elif not (st.ruins and cell in RUINS):
            out[f"field {cell_name(cell)}"] = ((x + 0.3 * FIELD, y + 0.3 * FIELD, FIELD_Z),
                                               LIGHT if (row + col) % 2 == 0 else DARK)
    return out


def legible_layout(session: DiceSession, scene: DiceTableScene) -> Any:
    """The player's picture (`simulator.render.core.legible`): the camera framed on the
    warlands and both Reserve rows, each creature's power on a card on its field, the
    creature cards (field, name, power, movement, spell and speciality) in the side panel
    for the player to act first, the points and whose turn across the top, the start roll
    close up while it is the last thing that happened."""
    from simulator.render.core.legible import Card, Layout
    from simulator.render.d6.picture import choice_lines, die_corners_in, roll_cells

    st = session.state
    white = (1.0, 1.0, 1.0)
    half = SIZE / 2 * FIELD
    # The board and both Reserve rows (the tracks and the Exile are counted in the banner).
    beyond = half + 0.7 * FIELD + 0.011
    points = [(BOARD_AT[0] + sx * (half + 0.02), BOARD_AT[1] + sy * beyond, 0.0)
              for sx in (-1, 1) for sy in (-1, 1)]
    # The fields' names: columns a..g past the board's far end, rows 1..7 past its near one.
    cards = []
    for col in range(SIZE):
        cards.append(Card((field_xy(col)[0], BOARD_AT[1] + half + 0.002, 0.0), ["abcdefg"[col]],
                          (0.3, 0.3, 0.3)))
    for row in range(SIZE):
        cards.append(Card((BOARD_AT[0] + half + 0.012, field_xy(row * SIZE)[1], 0.0),
                          [str(row + 1)], (0.3, 0.3, 0.3)))
    creatures: list[tuple[str, tuple[float, float, float]]] = []
    mover = 0 if st.is_terminal() else max(0, int(st.current_player()))
    for player in (mover, 1 - mover):
        for cell in st.creatures_of(player):
            c = st.creature_at(cell)
            x, y = field_xy(cell)
            # Under the die on its field, as wide as the field: the die's face stays seen.
            cards.append(Card((x, y, FIELD_Z + 0.016), [f"{c.name} {c.power}"],
                              DICE_RGB[player] if player == 0 else (0.4, 0.4, 0.45),
                              width_m=1.2 * FIELD, below_px=18.0))
            creatures.append((f"{cell_name(cell)} {c.name} ({c.power})",
                              (0.95, 0.55, 0.5) if player == 0 else (0.75, 0.78, 0.85)))
    dice = {n: die_corners_in(scene, n) for n in scene.dice}
    cells = roll_cells(scene, session)
    now = "Game over" if st.is_terminal() else f"{session.player_name(mover)} to act ({st.phase})"
    banner = [("DiceWar: " + "; ".join(f"{session.player_name(p)} VP {st.vp[p]}, TP "
                                       f"{st.tp[p]}, reserve {st.reserve[p]}, exile "
                                       f"{st.exile[p]}" for p in (0, 1)), white),
              (now, (0.95, 0.45, 0.4) if mover == 0 else (0.8, 0.8, 0.85))]
    side = creatures[:8] + choice_lines(session, 5)
    return Layout(points=points, dice=dice, cells=cells[:4], cards=cards, banner=banner,
                  side=side, heading=90.0, pitch=-80.0, fov=35.0, zoom_floor=False,
                  cells_only=True)
