"""Deep White Sea's window: the throw gesture, placing the first die, tips, shots and the
table's marks, on the shared window (`simulator.render.core.window.GameWindow`). Its parts:
the throw aimed from the hand (`aim.py`), the marks on the table (`marks.py`), the dice in
motion (`motion.py`) and the table itself (`scene.py`); the seats' panels and the framed
view are laid out by `layout.py`, which the picture shares.

What happens on the table is the engine's (`simulator.render.deep_white_sea.session.GameSession`): the
window shows poses, plays throws back from their recorded trajectory at real speed, rolls
tipped dice over their edge, and asks the person for each decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rules.core.protocols import DiePose
from rules.core.runner import from_json, read_log
from simulator.render.core.camera import OrbitCamera, thrower_view, top_view
from simulator.render.core.window import Binding, Choice, GameWindow, Running
from simulator.render.deep_white_sea import marks, motion
from simulator.render.deep_white_sea.aim import ThrowAim
from simulator.render.deep_white_sea.gesture import flight_time
from simulator.render.deep_white_sea.inspect_card import (
    card_of_inspected,
    prompt_clear_of_dice,
    texts_follow_view,
)
from simulator.render.deep_white_sea.layout import DECISION_WORDS, framed_view, seat_panels
from simulator.render.deep_white_sea.session import (
    DropAnim,
    GameSession,
    ThrowAnim,
    resting_pose,
)

if TYPE_CHECKING:  # Panda3D's: imported when a window is made
    from simulator.render.deep_white_sea.scene import SeaTableScene

GAME = "deep-white-sea"
PLAYERS = (2, 2)  # fewest and most seats
PLAYER_KINDS = ("human", "random", "greedy", "planner")
BOT_WINDUP = 0.7  # s: a bot's release marker and aim line show before its throw flies

GAME_BINDINGS: tuple[Binding, ...] = (
    Binding("arrow_up", "aim.higher", "With a die from your hand: drag to throw; "
                                      "Up / Down: release height of your throw"),
    Binding("arrow_down", "aim.lower", ""),
    Binding("]", "aim.loftier", "[ / ]: loft of your throw (flight time)"),
    Binding("[", "aim.flatter", ""),
    Binding("q", "place_side_down", "Q / E: first die's side; A / D: its yaw; Enter: place it"),
    Binding("e", "place_side_up", ""),
    Binding("a", "place_yaw_left", ""),
    Binding("d", "place_yaw_right", ""),
    Binding("enter", "confirm", ""),
    Binding("p", "pass_or_decline", "P: pass the turn / decline the shot"),
)


class TableApp(GameWindow):
    """The Deep White Sea window. `session` plays a game; `replay` (a list of logged
    actions, with the digests the log recorded after each) makes it a viewer."""

    GAME_TITLE = "Deep White Sea"
    GAME_BINDINGS = GAME_BINDINGS
    view_moved = texts_follow_view  # the prompt and the card again, clear of the dice
    inspect_lines = card_of_inspected  # the inspected die's eight sides, whose, on top

    session: GameSession
    scene: SeaTableScene

    def init_game(self) -> None:
        self.aim = ThrowAim(self)
        self.selected: str | None = None
        self.armed: str | None = None
        self.place_side, self.place_yaw = 8, 0.0
        self.knocked: list[str] = []  # dice the last throw disturbed, ringed until the next action
        self.last_physics_ratio: float | None = None
        # The die clicked to be seen large with its card (issue 37's inspect view), at any
        # turn; a click on the bare table or Escape puts it away.
        self.inspected: str | None = None

    # -- hooks ----------------------------------------------------------------------------

    def make_scene(self) -> SeaTableScene:
        from simulator.render.deep_white_sea.scene import SeaTableScene

        return SeaTableScene(self.session.table_spec)

    def thrower_camera(self, seat: int) -> OrbitCamera:
        """The default view (issue 37): framed from above on the dice in play, each 48 px
        across or more (`framed_view`); while a throw from the hand is being aimed, the
        thrower's view behind the seat's edge, where the gesture starts. The view follows
        the game (`refresh`) until the person orbits, zooms or picks another view."""
        if self.aiming():
            cam = thrower_view(self.session.table_spec, self.acting_seat() + 1)
        else:
            cam = framed_view(self.session, seat + 1, self.win_size())
        self.views.chosen = cam
        return cam

    def aiming(self) -> bool:
        """A die from the hand is armed to be thrown by the person (not placed)."""
        return (self.armed is not None and self.human_to_act()
                and self.session.state.decision != "place")

    def top_camera(self, aspect: float) -> OrbitCamera:
        return top_view(self.session.table_spec, aspect)

    def new_session(self) -> GameSession:
        s = self.session
        return GameSession(list(s.players), s.seed + 1, dict(s.options))

    def last_moved(self) -> str | None:
        if self.running is not None and self.running.anim is not None:
            return str(self.running.anim.die)
        for out in reversed(self.session.history):
            for a in reversed(out.anims):
                if a.die in self.scene.dice:
                    return str(a.die)
        names = list(self.scene.dice)
        return names[0] if names else None

    def piece_position(self, name: str) -> tuple[float, float, float] | None:
        return self.scene.die_position(name) if name in self.scene.dice else None

    def sync_scene(self) -> None:
        poses = self.session.poses()
        for name in list(self.scene.dice):
            if name not in poses:
                self.scene.remove_die(name)
        for name, pose in poses.items():
            if name in self.scene.dice:
                self.scene.dice[name].pose.setScale(1.0)
                self.scene.move_die(name, *pose)
            else:
                motion.ensure_die(self.scene, self.session, name, pose)

    def refresh(self) -> None:
        from simulator.render.deep_white_sea.inspect_card import place_texts

        if self.human_to_act() and self.selected is None:
            self.selected = self._die_to_act()
        super().refresh()
        # The framed view follows the game (and turns to the thrower's while aiming) as
        # long as the view on screen is the one the window chose.
        self.views.follow_game(lambda: self.thrower_camera(self._seen_seat))
        place_texts(self)  # the prompt and the card in the view now chosen, clear of the dice

    def refresh_texts(self) -> None:  # (the aim's preview, each move of the drag)
        super().refresh_texts()
        prompt_clear_of_dice(self)  # clear of the dice in the view and of the HUD

    def pinned_labels(self) -> list[tuple[tuple[float, float, float], str]]:
        """Each die in play named, with the side on top, just under it on the screen (so
        the label hides none of it, from above as from the side)."""
        st = self.session.state
        _right, up, _fwd = self.camera.basis()
        down = -np.array([up[0], up[1]])  # the screen's downward direction on the table
        n = float(np.linalg.norm(down))
        dx, dy = (down / n * 0.02) if n > 1e-6 else (0.0, -0.02)
        out = []
        for die in sorted(st.poses):
            if die not in self.scene.dice:
                continue
            x, y, z = self.scene.die_position(die)
            out.append(((x + float(dx), y + float(dy), z),
                        f"{self.session.crew(die).name} {st.side(die).number}"))
        return out

    def inset_points(self) -> list[tuple[float, float, float]]:
        """The inspected die, large in the close-up; else the dice off the view, captioned;
        else the last throw's (`close_up`)."""
        from simulator.render.deep_white_sea.close_up import close_up

        return close_up(self)

    # -- pointer: picking and the throw gesture -------------------------------------------------

    def on_left_down(self, pos: tuple[float, float] | None = None) -> None:
        pos = pos or self.mouse()
        if pos is None:
            return
        if not self.human_to_act():  # a bot's turn or a replay: a click only inspects
            self.inspected = self._pick_die(pos)
            self.refresh()
            return
        if self.armed is not None:
            self.aim.press(pos)
            return
        self.click(pos)

    def on_pointer(self, pos: tuple[float, float]) -> None:
        super().on_pointer(pos)
        self.aim.move(pos)

    def on_left_up(self, pos: tuple[float, float] | None = None) -> None:
        if self.aim.drag is None:
            return
        if pos is not None:
            self.on_pointer(pos)
        die = self.armed
        preview = self.aim.release(die)
        if die is None or preview is None:
            self.message = "drag farther: from your release point to where the die should land"
            self.refresh()
            return
        self.armed = None
        from rules.deep_white_sea import spec_to_tuple

        self.apply(("throw", die, spec_to_tuple(preview.throw)))

    # -- keys -------------------------------------------------------------------------------

    def arm(self, choice: Choice) -> None:
        self.armed = str(choice.arm)
        self.selected = None
        self.message = (f"throw {self.session.crew(self.armed).name}: press behind your edge "
                        "(the release point), drag to where it should land, let go")
        self.refresh()

    def place_side_up(self) -> None:
        self.place_side = self.place_side % 8 + 1
        self.refresh()

    def place_side_down(self) -> None:
        self.place_side = (self.place_side - 2) % 8 + 1
        self.refresh()

    def place_yaw_left(self) -> None:
        self.place_yaw = (self.place_yaw + 30.0) % 360.0
        self.refresh()

    def place_yaw_right(self) -> None:
        self.place_yaw = (self.place_yaw - 30.0) % 360.0
        self.refresh()

    def confirm(self) -> None:
        if self.human_to_act() and self.session.state.decision == "place" and self.armed:
            die = self.armed
            self.armed = None
            self.apply(("place", die, self.place_side, self.place_yaw))

    def pass_or_decline(self) -> None:
        if not self.human_to_act():
            return
        for a in self.session.legal():
            if a[0] in ("pass", "decline"):
                self.apply(a)
                return

    def cancel(self) -> None:
        self.inspected = None
        self.selected = None
        self.armed = None
        self.aim.drop()
        super().cancel()

    # -- acting and animations ------------------------------------------------------------

    def after_apply(self, out: Any, bot: bool) -> None:
        self.selected = None
        self.knocked = []
        for anim in out.anims:
            if isinstance(anim, ThrowAnim) and anim.playback.duration > 0:
                self.last_physics_ratio = anim.physics_s / anim.playback.duration
                self.knocked = [n for n in anim.playback.tracks if n != anim.die]
        super().after_apply(out, bot)
        self.hud.banner_until += sum(
            getattr(a, "duration", 0.0) or getattr(getattr(a, "playback", None), "duration", 0.0)
            for a in out.anims) / self.speed

    def anim_lead(self, anim: Any, bot: bool) -> float:
        return BOT_WINDUP if bot and isinstance(anim, ThrowAnim) else 0.0

    def begin_anim(self, running: Running) -> None:
        a = running.anim
        if isinstance(a, ThrowAnim):
            motion.ensure_die(self.scene, self.session, a.die, (a.throw.release, a.throw.orientation))
            self.views.follow = None
            self.scene.clear_overlay()
            if running.lead > 0:
                marks.draw_throw(self.scene, a.throw, foul=a.foul, flight=flight_time(a.throw))
        elif isinstance(a, DropAnim):
            motion.ensure_die(self.scene, self.session, a.die, a.pose)

    def show_anim(self, anim: Any, t: float) -> bool:
        return motion.show(self.scene, self.session, anim, t)

    # -- HUD --------------------------------------------------------------------------------

    def status_text(self) -> str:
        s = self.session
        st = s.state
        if st.is_terminal():
            now = f"Game over: {self.result_text()}"
        else:
            seat = st.current_player()
            now = f"P{seat + 1} to act: {DECISION_WORDS.get(st.decision, st.decision)}"
        return (f"Deep White Sea  turn {st.turn}   P1 {st.scores[0]} : {st.scores[1]} P2"
                f"   (first to 50)\n{now}")

    def result_text(self) -> str:
        st = self.session.state
        if st.winner is not None and st.winner < 0:
            return "draw"
        return f"{self.session.player_name(st.winner)} wins"

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        return seat_panels(self.session)

    def prompt_lines(self) -> list[str]:
        s = self.session
        st = s.state
        prompt = []
        for task in st.stack if not st.is_terminal() else []:
            if task.get("t") == "cmd":  # the command chain, one ally at a time
                order = [s.crew(d).name for d in task["order"]]
                k = task["idx"]
                done, acting, rest = order[:k], order[k:k + 1], order[k + 1:]
                prompt.append(f"Command by {s.crew(task['src']).name}: "
                              + " > ".join([*(f"({n})" for n in done),
                                            *(f"[{n}]" for n in acting), *rest]))
        if self.message:
            prompt.append(self.message)
        if self.aim.preview is not None:
            prompt += self.aim.prompt()
        elif self.armed is not None and st.decision == "place":
            prompt.append(f"side {self.place_side}, yaw {self.place_yaw:.0f} deg: Q/E side, "
                          "A/D turn, Enter to place")
        elif self.armed is not None:
            prompt.append(self.aim.settings_line())
        if self.last_physics_ratio is not None:
            prompt.append(f"last throw: physics to rest took {100 * self.last_physics_ratio:.0f}% "
                          "of its real duration")
        return prompt

    def extra_buttons(self, labels: list[str]) -> list[Any]:
        if self.human_to_act() and any(a[0] in ("pass", "decline") for a in self.session.legal()):
            labels.append("P  pass / no shot")
            return [self.pass_or_decline]
        return []

    def make_choices(self) -> list[Choice]:
        s = self.session
        out: list[Choice] = []
        legal = s.legal()
        decision = s.state.decision
        for a in legal:
            if a[0] == "throw":
                out.append(Choice(f"throw {s.crew(a[1]).name}", arm=a[1]))
            elif a[0] == "shoot" and len(a) == 3:
                out.append(Choice(f"{s.crew(a[1]).name}: {a[2]}", action=a))
            elif a[0] in ("foul", "tip", "aim"):
                out.append(Choice(s.state.action_to_string(a), action=a))
        if decision == "place":
            seen: list[str] = []
            for a in legal:
                if a[1] not in seen:
                    seen.append(a[1])
            out = [Choice(f"place {s.crew(d).name}", arm=d) for d in seen]
        if self.selected is not None:
            for a in legal:
                if a[0] == "shoot" and a[1] == self.selected and len(a) > 3:
                    out.append(Choice(f"{a[2]} {s.crew(a[3]).name}", action=a))
        return out[:9]

    # -- the table's marks --------------------------------------------------------------------

    def draw_overlay(self) -> None:
        s = self.session
        st = s.state
        marks.draw_counters(self.scene, st, self.knocked)
        if self.inspected is not None:  # its sight lines and what is in its range
            marks.draw_sight(self.scene, s, self.inspected)
        if not self.human_to_act():
            return
        legal = s.legal()
        if st.decision == "place" and self.armed is not None:
            self.sync_scene()  # an earlier preview die goes back to the hand
            pose = DiePose(self.armed, "on_table", None,
                           s.crew(self.armed).face_of_side(self.place_side) + 1,
                           (0.0, 0.0, 0.0), self.place_yaw)
            motion.ensure_die(self.scene, s, self.armed, resting_pose(s.shape(self.armed), pose))
            self.scene.move_die(self.armed, *resting_pose(s.shape(self.armed), pose))
        marks.draw_choices(self.scene, s, legal, self.selected)

    # -- picking --------------------------------------------------------------------------

    def click(self, pos: tuple[float, float]) -> None:
        s = self.session
        st = s.state
        legal = s.legal()
        # An arrow (a move, or a Repair / Confuse roll) under the pointer?
        for a in legal:
            if a[0] in ("move", "tip") and (a[0] == "tip" or a[1] == self.selected):
                start, end = marks.tip_arrow(s, a[1], a[2])
                hit = self.ray_plane(pos, start[2])
                if hit is not None and marks.near_segment(hit, start[:2], end[:2], 0.015):
                    self.apply(a)
                    return
        die = self._pick_die(pos)
        self.inspected = die
        if die is None:
            self.selected = None
            self.refresh()
            return
        # A target of the selected die, or of the current aim decision?
        for a in legal:
            if a[0] == "aim" and a[2] == die:
                self.apply(a)
                return
            if (a[0] == "shoot" and a[1] == self.selected and len(a) > 3 and a[3] == die
                    and a[2] in ("attack", "repair", "confuse")):
                self.apply(a)
                return
        for a in legal:
            if a[0] == "shoot" and a[1] == self.selected and len(a) > 3 and a[3] == die:
                self.apply(a)
                return
        if any(a[0] in ("move", "shoot") and a[1] == die for a in legal):
            self.selected = die
            self.message = f"{s.crew(die).name}: green arrows move it, red rings are its targets"
        else:
            self.selected = None
            owner = s.player_name(s.seat_of(die)) if die in st.dice else "?"
            self.message = f"{s.crew(die).name} ({owner}) cannot act now"
        self.refresh()

    def _pick_die(self, pos: tuple[float, float]) -> str | None:
        spheres = {name: (self.scene.die_position(name),
                          self.session.shape(name).poly.circumradius * 1.1)
                   for name in self.scene.dice}
        picked = self.pick_sphere(pos, spheres)
        return None if picked is None else str(picked)

    def _die_to_act(self) -> str | None:
        """The die a decision is about: the landed die that may shoot, the commanded ally."""
        st = self.session.state
        if st.is_terminal() or not st.stack:
            return None
        task = st.stack[-1]
        if task.get("t") == "shoot":
            return str(task["die"])
        if task.get("t") == "cmd" and task["idx"] < len(task["order"]):
            return str(task["order"][task["idx"]])
        return None


# -- the game module's interface (see simulator.render.app) ---------------------------------

App = TableApp


def new_session(players: list[str], seed: int, options: dict[str, Any], log: Any = None,
                bot_settings: dict[str, dict[str, Any]] | None = None) -> GameSession:
    """A game for the window; the table is the physics table unless the options say."""
    options = dict(options)
    options.setdefault("table", "physics")
    return GameSession(players, seed, options, log=log, bot_settings=bot_settings)


def replay_session(log_path: Any) -> tuple[GameSession, list[Any], list[str | None]]:
    """A fresh session set up as the log's header says, the log's actions in order, and the
    state digest the log recorded after each."""
    from rules.core.protocols import RulesError

    lines = read_log(log_path)
    header = lines[0]
    if header.get("game") != GAME:
        raise RulesError(f"{log_path}: this log is {header.get('game')!r}, not {GAME}")
    players = [str(p) for p in header.get("players", [])]
    seed = header.get("seed")
    if len(players) != 2 or not isinstance(seed, int):
        raise RulesError(f"{log_path}: line 1: bad header field 'players' or 'seed'")
    # Every seat replays its logged actions: none of them thinks.
    session = GameSession(["human", "human"], seed, dict(header.get("options") or {}))
    session.players = players
    steps = [line for line in lines[1:] if line.get("type") == "action"]
    return session, [from_json(line["action"]) for line in steps], [line.get("digest")
                                                                    for line in steps]


def picture(session: GameSession, size: tuple[int, int], shading: str = "auto") -> Any:
    from simulator.render.deep_white_sea.picture import SessionPicture

    return SessionPicture(session, size, shading)


def play_turns(session: GameSession, turns: int) -> int:
    from simulator.render.deep_white_sea.session import play_turns as play

    return play(session, turns)


def summary(session: GameSession) -> str:
    """`tabletop render`'s words for the table drawn."""
    st = session.state
    return (f"turn {st.turn}, {len(st.poses)} dice in play, "
            f"score {st.scores[0]}-{st.scores[1]}")
