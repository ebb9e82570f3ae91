"""Diced in the window: 3 to 8 seats round the table, each player's dice in front of their
seat, the pool beside the tray in the middle, re-roll tokens as gold coins, whose turn it
is and what each die of the player on turn is for (ready to attack, or used / captured
this turn); every roll thrown into the tray (`simulator.render.d6.window`).

Clicks: on your own ready dice to choose how many attack (the first k), then on the pool
or on a player's dice to attack; defending, on your own dice (the k-th: defend with k);
with tokens, on a token (the m-th: re-roll m dice). The choices list does every decision
too (ending the turn, keeping a defence, defending with none).
"""

from __future__ import annotations

import math
from typing import Any

from simulator.physics.settings import TableSpec
from simulator.render.core.window import Choice
from simulator.render.d6.scene import POOL_COLOUR, DiceTableScene, seat_colour
from simulator.render.d6.session import DiceSession, Roll, d6_shape
from simulator.render.d6.window import DiceGameWindow, module_functions

GAME = "diced"
PLAYERS = (3, 8)
TABLE = TableSpec(width=1.5, depth=1.1)
# Everything in play sits close round the pool (issue 37: seats on a 1.1 m ring drew their
# dice 10-15 px across at 1280x720 and left most of the picture empty felt); the tray stands
# beyond, where seat 1 looks, and its rolls are shown close up.
SEAT_RADII = (0.125, 0.085)  # m: the ellipse the seats' dice sit on
DIE_STEP = 0.0205  # m between dice in a seat's rows
PER_ROW = 4
POOL_AT = (0.0, 0.0)  # m: the pool's middle, in the ring
TRAY_AT = (0.0, 0.36)  # m: the tray, beyond the ring
GOLD = (0.95, 0.78, 0.25)
USED_YAW = 45.0  # deg: a used or captured die stands turned, so it reads as spent


# -- the scene (shared by the window and `tabletop render`) --------------------------------


def make_scene(session: DiceSession) -> DiceTableScene:
    return DiceTableScene(TABLE, tray_at=TRAY_AT)


def seat_angle(seat: int, n: int) -> float:
    """Radians round the table: seat 0 at the -y edge, then counter-clockwise."""
    return math.radians(-90.0 + 360.0 * seat / n)


def seat_heading(seat: int, n: int) -> float:
    """The camera heading (deg) from behind a seat, looking at the middle."""
    return math.degrees(seat_angle(seat, n)) + 90.0


def seat_spot(seat: int, n: int) -> tuple[float, float]:
    a = seat_angle(seat, n)
    return (SEAT_RADII[0] * math.cos(a), SEAT_RADII[1] * math.sin(a))


def seat_dice_spots(seat: int, n: int, count: int) -> list[tuple[float, float]]:
    """Where a seat's dice stand: rows across the seat's line of sight, the first row
    nearest the middle (dice used or captured this turn go last, toward the seat)."""
    a = seat_angle(seat, n)
    out_dir = (math.cos(a), math.sin(a))
    across = (-out_dir[1], out_dir[0])
    cx, cy = seat_spot(seat, n)
    spots = []
    for i in range(count):
        row, col = divmod(i, PER_ROW)
        in_row = min(PER_ROW, count - row * PER_ROW)
        off = (col - (in_row - 1) / 2) * DIE_STEP
        back = row * DIE_STEP
        spots.append((cx + across[0] * off + out_dir[0] * back,
                      cy + across[1] * off + out_dir[1] * back))
    return spots


def pool_spots(count: int) -> list[tuple[float, float]]:
    per_row = 8
    rows = -(-count // per_row)
    spots = []
    for i in range(count):
        row, col = divmod(i, per_row)
        in_row = min(per_row, count - row * per_row)
        spots.append((POOL_AT[0] + (col - (in_row - 1) / 2) * DIE_STEP,
                      POOL_AT[1] + ((rows - 1) / 2 - row) * DIE_STEP))
    return spots


def token_spots(seat: int, n: int, count: int) -> list[tuple[float, float]]:
    a = seat_angle(seat, n)
    out_dir = (math.cos(a), math.sin(a))
    across = (-out_dir[1], out_dir[0])
    cx, cy = seat_spot(seat, n)
    side = (PER_ROW / 2 + 0.5) * DIE_STEP
    return [(cx + across[0] * (side + 0.026 * k) + out_dir[0] * 0.01,
             cy + across[1] * (side + 0.026 * k) + out_dir[1] * 0.01) for k in range(count)]


def paint(scene: DiceTableScene, session: DiceSession) -> None:
    """Every seat's dice, the pool, tokens and names where the state says."""
    st = session.state
    n = st.n
    shape = d6_shape()
    for name in [d for d in scene.dice if not d.startswith("roll:")]:
        scene.remove_die(name)
    scene.labels.getChildren().detach()
    for seat in range(n):
        a = math.degrees(seat_angle(seat, n))
        for i, xy in enumerate(seat_dice_spots(seat, n, st.dice[seat])):
            used = seat == st.turn and not st.is_terminal() and i >= st.ready
            scene.place_d6(f"seat{seat}:{i}", shape, seat_colour(seat), 6, xy,
                           yaw_deg=a + (USED_YAW if used else 0.0))
        for xy in token_spots(seat, n, st.tokens[seat]):
            scene.token(xy, GOLD).reparentTo(scene.labels)
        sx, sy = seat_spot(seat, n)
        out = (math.cos(math.radians(a)), math.sin(math.radians(a)))
        back = 0.02 + DIE_STEP * max(1, math.ceil(st.dice[seat] / PER_ROW))
        who = st.player_name(seat) + ("  (out)" if st.dice[seat] == 0 else "")
        scene.label(who, (sx + out[0] * back, sy + out[1] * back),
                    (*seat_colour(seat), 1.0), 0.016, heading=a + 90.0, static=True)
    if st.pool:
        for i, xy in enumerate(pool_spots(st.pool)):
            scene.place_d6(f"pool:{i}", shape, POOL_COLOUR, 6, xy)
    pool_word = f"pool: {st.pool}" if st.pool_open else "pool closed"
    scene.label(pool_word, (POOL_AT[0], POOL_AT[1] - 0.025), (0.95, 0.95, 0.9, 1.0), 0.014,
                static=True)


def caption(session: DiceSession) -> list[str]:
    st = session.state
    counts = ", ".join(f"{session.player_name(p)} {st.dice[p]}" for p in range(st.n))
    pool = f"pool {st.pool}" if st.pool_open else "pool closed"
    return [f"Diced, turn {st.turns_played + 1}: {counts}; {pool}"]


def roll_colours(state: Any, n: int) -> list[tuple[float, float, float]]:
    """Attacker's dice in their colour, then the defender's; a roll-off in each
    contender's; a re-roll in the defender's."""
    if state.phase == "rolloff":
        return [seat_colour(p) for p in state.contenders][:n]
    if state.phase == "reroll":
        return [seat_colour(state.target)] * n
    if state.target < 0:  # the pool
        return [seat_colour(state.turn)] * n
    return [seat_colour(state.turn)] * state.k + [seat_colour(state.target)] * (n - state.k)


# -- the window ----------------------------------------------------------------------------


class App(DiceGameWindow):
    GAME_TITLE = "Diced"

    def init_game(self) -> None:
        self.commit: int | None = None  # how many ready dice the next attack uses

    def make_scene(self) -> DiceTableScene:
        return make_scene(self.session)

    def sync_scene(self) -> None:
        paint(self.scene, self.session)

    def seat_heading(self, seat: int) -> float:
        return seat_heading(seat, self.session.state.n)

    def roll_colours(self, roll: Roll) -> list[tuple[float, float, float]]:
        return roll_colours(self.session.state, len(roll.faces))

    def status_text(self) -> str:
        st = self.session.state
        if st.is_terminal():
            now = f"Game over: {self.result_text()}"
        elif st.phase == "turn":
            now = (f"{self.session.player_name(st.turn)}: attack the pool or a player, or end "
                   f"the turn ({st.ready} of {st.dice[st.turn]} dice ready)")
        elif st.phase == "defend":
            now = (f"{self.session.player_name(st.target)}: {st.player_name(st.turn)} attacks "
                   f"with {st.k}; defend with how many dice?")
        elif st.phase == "reroll_choice":
            now = (f"{self.session.player_name(st.target)}: re-roll some defence dice "
                   f"(tokens: {st.tokens[st.target]})?")
        else:
            now = "the dice are thrown"
        pool = f"pool {st.pool}" if st.pool_open else "pool closed"
        return f"Diced  round {st.turns_played // st.n + 1}   {pool}\n{now}"

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        st = self.session.state
        out = []
        for p in range(st.n):
            # Two lines: with 8 seats a panel has room for two at 14 px capitals (hud).
            lines = [("> " if p == st.turn and not st.is_terminal() else "")
                     + f"{self.session.player_name(p)}: "
                     + (f"{st.dice[p]} {'die' if st.dice[p] == 1 else 'dice'}" if st.dice[p]
                        else "out")]
            more = []
            if p == st.turn and not st.is_terminal():
                more.append(f"ready {st.ready}, used {st.dice[p] - st.ready}")
            if st.tokens[p]:
                more.append(f"{st.tokens[p]} token{'s' * (st.tokens[p] != 1)}")
            if more:
                lines.append(", ".join(more))
            out.append(("\n".join(lines), seat_colour(p)))
        return out

    def prompt_lines(self) -> list[str]:
        lines = super().prompt_lines()
        st = self.session.state
        if self.human_to_act() and st.phase == "turn":
            k = self.commit or st.ready
            lines.append(f"attack with {k} (click your ready dice to change), then click the "
                         "pool or a player's dice")
        elif self.human_to_act() and st.phase == "defend":
            lines.append("click your k-th die to defend with k dice")
        elif self.human_to_act() and st.phase == "reroll_choice":
            lines.append(f"attacker {list(st.attack_faces)}, defence {list(st.defence_faces)}: "
                         "click your m-th token to re-roll m dice")
        if self.roll is not None:
            lines.append(f"last roll: {' '.join(map(str, self.roll.faces))}")
        return lines

    def make_choices(self) -> list[Choice]:
        s = self.session
        st = s.state
        legal = s.legal()
        if st.phase == "turn":
            k = min(self.commit or st.ready, st.ready)
            out = [Choice(s.state.action_to_string(a), action=a) for a in legal
                   if (a[0] == "pool" and a[1] == k) or (a[0] == "attack" and a[2] == k)]
            return [*out, Choice("end the turn", action=("end",))]
        return [Choice(s.state.action_to_string(a), action=a) for a in legal]

    def draw_overlay(self) -> None:
        st = self.session.state
        if st.is_terminal():
            return
        n = st.n
        sx, sy = seat_spot(st.turn, n)
        self.scene.ring((sx, sy), 0.05, (*seat_colour(st.turn), 0.9), width=0.003)
        if st.phase == "turn" and self.human_to_act():
            k = min(self.commit or st.ready, st.ready)
            for xy in seat_dice_spots(st.turn, n, st.dice[st.turn])[:k]:
                self.scene.ring(xy, 0.014, (1.0, 0.85, 0.2, 0.95), width=0.003)
        if st.phase in ("defend", "reroll_choice") and st.target >= 0:
            tx, ty = seat_spot(st.target, n)
            self.scene.ring((tx, ty), 0.05, (0.95, 0.2, 0.15, 0.9), width=0.003)

    def apply(self, action: Any, bot: bool = False) -> Any:
        self.commit = None
        return super().apply(action, bot)

    # -- inspect: a click on a seat's dice, the pool or the roll shows its card -----------

    def pieces(self) -> dict[Any, tuple[tuple[float, float, float], float]]:
        """What a click can inspect: every seat's dice, the pool's and the tray's."""
        out: dict[Any, tuple[tuple[float, float, float], float]] = {}
        rolls = 0
        for name in self.scene.dice:
            where, _, index = name.partition(":")
            if where.startswith("seat"):
                out[("seat", int(where[4:]), int(index))] = (self.scene.die_position(name), 0.016)
            elif where == "pool":
                out[("pool", int(index))] = (self.scene.die_position(name), 0.016)
            elif name.startswith("roll:"):
                out[("roll", rolls)] = (self.scene.die_position(name), 0.016)
                rolls += 1
        return out

    def inspect_card(self, picked: Any) -> list[str] | None:
        """A seat's card (its dice, ready and used this turn, re-roll tokens, its part in
        the attack now), the pool's, or the last roll's (each side's faces)."""
        s = self.session
        st = s.state
        kind = picked[0]
        if kind == "pool":
            return [f"the pool: {st.pool} {'die' if st.pool == 1 else 'dice'}, "
                    + ("open: a seat may attack it" if st.pool_open else "closed")]
        if kind == "roll":
            values = self.tray_values()
            lines = [f"the last roll: {' '.join(map(str, values))}"]
            if st.attack_faces:
                lines.append(f"attack {' '.join(map(str, st.attack_faces))}, defence "
                             f"{' '.join(map(str, st.defence_faces)) or '-'}")
            return lines
        seat = picked[1]
        lines = [f"{s.player_name(seat)}: "
                 + (f"{st.dice[seat]} {'die' if st.dice[seat] == 1 else 'dice'}"
                    if st.dice[seat] else "out")]
        if seat == st.turn and not st.is_terminal():
            lines.append(f"on turn: {st.ready} ready to attack, "
                         f"{st.dice[seat] - st.ready} used or captured")
        if st.tokens[seat]:
            lines.append(f"{st.tokens[seat]} re-roll token{'s' * (st.tokens[seat] != 1)}")
        if st.phase in ("defend", "reroll_choice") and seat in (st.turn, st.target):
            lines.append(f"attacking {s.player_name(st.target)} with {st.k}" if seat == st.turn
                         else f"attacked by {s.player_name(st.turn)} with {st.k}")
        return lines

    def inset_points(self) -> list[tuple[float, float, float]]:
        """The seat inspected, its dice large in the close-up; else the last roll's."""
        picked = None if isinstance(getattr(self.running, "anim", None), Roll) \
            else self.inspected  # a roll being thrown is shown close up first
        if picked is not None and picked[0] == "seat":
            names = [n for n in self.scene.dice if n.startswith(f"seat{picked[1]}:")]
            if names:
                return [self.scene.die_position(n) for n in names]
        return super().inset_points()

    def click(self, pos: tuple[float, float]) -> None:
        s = self.session
        st = s.state
        n = st.n
        self.inspected = self.pick_sphere(pos, self.pieces())  # its card, whatever it does
        self.show_card()
        legal = s.legal()
        spheres: dict[Any, tuple[tuple[float, float, float], float]] = {
            name: (self.scene.die_position(name), 0.016) for name in self.scene.dice
            if not name.startswith("roll:")}
        me = st.current_player()
        for k, xy in enumerate(token_spots(me, n, st.tokens[me])):
            spheres[f"token:{k}"] = ((xy[0], xy[1], 0.004), 0.014)
        picked = self.pick_sphere(pos, spheres)
        if picked is None:
            return
        where, _, index = str(picked).partition(":")
        if st.phase == "turn":
            k = min(self.commit or st.ready, st.ready)
            if where == f"seat{me}":
                i = int(index)
                if i < st.ready:
                    self.commit = i + 1
                    self.message = f"attack with {self.commit} {'die' if i == 0 else 'dice'}"
                else:
                    self.message = "that die was used or captured this turn: it cannot attack"
                self.refresh()
                return
            if where == "pool" and ("pool", k) in legal:
                self.apply(("pool", k))
                return
            if where.startswith("seat") and ("attack", int(where[4:]), k) in legal:
                self.apply(("attack", int(where[4:]), k))
                return
        elif st.phase == "defend" and where == f"seat{me}":
            action = ("defend", int(index) + 1)
            if action in legal:
                self.apply(action)
                return
        elif st.phase == "reroll_choice" and where == "token":
            action = ("reroll", int(index) + 1)
            if action in legal:
                self.apply(action)
                return
        self.message = "nothing to do with that piece now (see the choices at the right)"
        self.refresh_texts()


# -- the module interface (see simulator.render.app) ---------------------------------------


new_session, replay_session, picture, play_turns = module_functions(GAME, __name__)


def legible_layout(session: DiceSession, scene: DiceTableScene) -> Any:
    """The player's picture (`simulator.render.core.legible`): the camera framed on every
    seat's dice and the pool, each seat's card (name, dice, tokens) and the pool's, the
    last roll close up, whose turn and the counts across the top, the choices at the side."""
    from simulator.render.core.legible import Card, Layout
    from simulator.render.d6.picture import choice_lines, die_corners_in, roll_cells

    st = session.state
    n = st.n
    white = (1.0, 1.0, 1.0)
    points: list[tuple[float, float, float]] = []
    cards = []
    for seat in range(n):
        spots = seat_dice_spots(seat, n, max(1, st.dice[seat]))
        points += [(x, y, 0.0) for x, y in spots]
        points += [(x, y, 0.0) for x, y in token_spots(seat, n, st.tokens[seat])]
        # Under the seat's dice as seat 1 looks (the card hides none of them).
        low = min(y for _x, y in spots)
        mid = sum(x for x, _y in spots) / len(spots)
        count = st.dice[seat]
        cards.append(Card((mid, low - 0.008, 0.0),
                          [f"{st.player_name(seat)}: {count} {'die' if count == 1 else 'dice'}"
                           + (f", {st.tokens[seat]} tokens" if st.tokens[seat] else "")],
                          seat_colour(seat), below_px=4.0))
        points.append((mid, low - 0.025, 0.0))
    points += [(x, y, 0.0) for x, y in pool_spots(max(1, st.pool))]
    low = min([y for _x, y in pool_spots(max(1, st.pool))])
    cards.append(Card((POOL_AT[0], low - 0.008, 0.0),
                      [f"pool: {st.pool}" if st.pool_open else "pool closed"], (0.9, 0.9, 0.85),
                      below_px=4.0))
    dice = {name: die_corners_in(scene, name) for name in scene.dice}
    cells = roll_cells(scene, session)
    now = "Game over" if st.is_terminal() else f"{session.player_name(st.turn)}'s turn"
    counts = ", ".join(f"{st.player_name(p)} {st.dice[p]}" for p in range(n))
    pool = f"pool {st.pool}" if st.pool_open else "pool closed"
    banner = [(f"Diced, turn {st.turns_played + 1}, dice: {counts}; {pool}", white),
              (now, seat_colour(st.turn) if not st.is_terminal() else white)]
    return Layout(points=points, dice=dice, cells=cells[:9], cards=cards, banner=banner,
                  side=choice_lines(session, 8), heading=0.0, pitch=-89.0, fov=22.0,
                  zoom_floor=False, cells_only=True)
