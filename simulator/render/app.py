"""The desktop window: Deep White Sea in 3D, for two people, a person and a bot, or a
replayed log.

One `ShowBase` subclass (`TableApp`); every key and mouse binding is one row of `BINDINGS`
(the help overlay lists the same rows); the per-frame work is one task (`_frame`); `setup`
and `cleanup` pair up. Input handlers take explicit pointer positions (Panda3D's -1..1
window coordinates) so a script or a test drives the window exactly as a mouse does.

What happens on the table is the engine's (`simulator.render.session.GameSession`): the
window shows poses, plays throws back from their recorded trajectory at real speed, rolls
tipped dice over their edge, and asks the person for each decision.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dice_models.outfiles import LineFile, check_target
from rules.core.protocols import DiePose, ThrowSpec
from rules.core.runner import digest, from_json, read_log
from rules.deep_white_sea.geometry import baseline
from simulator.render import WindowError
from simulator.render.camera import OrbitCamera, follow_view, thrower_view, top_view
from simulator.render.gesture import GestureSettings, ThrowPreview, arc_of, flight_time, throw_from_drag
from simulator.render.looks import FOUL_COLOUR, MARK_Z, PLAYER_COLOURS, crew_look
from simulator.render.offscreen import apply_camera, configure_panda
from simulator.render.session import (
    Anim,
    DropAnim,
    GameSession,
    Outcome,
    PoseT,
    ThrowAnim,
    TipAnim,
    VanishAnim,
    resting_pose,
)

WINDOW_SIZE = (1280, 720)
TEXTURE_CELL = 512  # px per face in the window (the offscreen renderer uses 256)
BOT_WINDUP = 0.7  # s: a bot's release marker and aim line show before its throw flies
MIN_DRAG = 0.03  # m: a shorter drag is a click, not a throw


@dataclass(frozen=True)
class Binding:
    event: str  # Panda3D event name
    method: str  # TableApp method called with `args`
    help: str  # the line in the help overlay ('' = listed with the row before)
    args: tuple[int, ...] = ()


BINDINGS: tuple[Binding, ...] = (
    Binding("mouse1", "on_left_down", "Left click: pick a die, an arrow or a target; "
                                      "with a die from your hand: drag to throw"),
    Binding("mouse1-up", "on_left_up", ""),
    Binding("mouse3", "on_right_down", "Right drag: orbit the camera"),
    Binding("mouse3-up", "on_right_up", ""),
    Binding("mouse2", "on_middle_down", "Middle drag: pan the camera"),
    Binding("mouse2-up", "on_middle_up", ""),
    Binding("wheel_up", "zoom_in", "Mouse wheel: zoom"),
    Binding("wheel_down", "zoom_out", ""),
    Binding("c", "view_thrower", "C: thrower's view (the player to act)"),
    Binding("t", "view_top", "T: top view"),
    Binding("f", "view_follow", "F: follow the die that moved last"),
    Binding("1", "choose", "1-9 or a click on the list at the right: take that choice (a die "
                           "from your hand, a shot, a foul ruling)", (0,)),
    *(Binding(str(k + 1), "choose", "", (k,)) for k in range(1, 9)),
    Binding("arrow_up", "release_higher", "Up / Down: release height of your throw"),
    Binding("arrow_down", "release_lower", ""),
    Binding("]", "loft_more", "[ / ]: loft of your throw (flight time)"),
    Binding("[", "loft_less", ""),
    Binding("q", "place_side_down", "Q / E: first die's side; A / D: its yaw; Enter: place it"),
    Binding("e", "place_side_up", ""),
    Binding("a", "place_yaw_left", ""),
    Binding("d", "place_yaw_right", ""),
    Binding("enter", "confirm", ""),
    Binding("p", "pass_or_decline", "P: pass the turn / decline the shot"),
    Binding("escape", "cancel", "Esc: drop the selection"),
    Binding("space", "toggle_pause", "Space: pause or resume (replay and bots)"),
    Binding("n", "step_once", "N: one step (replay, paused)"),
    Binding("+", "faster", "+ / -: playback speed"),
    Binding("=", "faster", ""),
    Binding("-", "slower", ""),
    Binding("f12", "save_picture", "F12: save a picture of the window (tabletop-*.png here)"),
    Binding("f1", "toggle_help", "F1 or H: this help"),
    Binding("h", "toggle_help", ""),
    Binding("control-q", "quit", "Ctrl+Q: quit"),
)


@dataclass
class Choice:
    label: str
    action: Any | None = None  # an engine action to apply
    arm: str | None = None  # a die to throw (arms the gesture)


@dataclass
class Running:
    anim: Anim | None
    start: float
    lead: float = 0.0  # s of wind-up before a throw flies


class TableApp:
    """The window. `session` plays a game; `replay` (a list of logged actions, with the
    digests the log recorded after each) makes it a viewer. Built lazily so importing this
    module does not open anything."""

    def __init__(self, session: GameSession, replay: list[Any] | None = None,
                 replay_digests: list[str | None] | None = None,
                 size: tuple[int, int] = WINDOW_SIZE, title: str = "tabletop: Deep White Sea",
                 software: bool = False) -> None:
        configure_panda(software=software)
        from direct.showbase.ShowBase import ShowBase
        from panda3d.core import WindowProperties, loadPrcFileData

        loadPrcFileData("tabletop-window", f"win-size {size[0]} {size[1]}\nwindow-title {title}")
        self.base = ShowBase(windowType="onscreen")
        self.base.disableMouse()
        props = WindowProperties()
        props.setTitle(title)
        self.base.win.requestProperties(props)
        self.session = session
        self.replay = list(replay) if replay is not None else None
        self.replay_digests = list(replay_digests or [])
        self.size = size
        self.speed = 1.0
        self.paused = False
        self.show_help = False
        self.gesture = GestureSettings()
        self.camera = thrower_view(session.table_spec, self._viewer_seat() + 1)
        self.follow: str | None = None
        self.selected: str | None = None
        self.armed: str | None = None
        self.place_side, self.place_yaw = 8, 0.0
        self.drag: list[tuple[float, float]] | None = None
        self.preview: ThrowPreview | None = None
        self.queue: list[Running] = []
        self.running: Running | None = None
        self.log_lines: list[str] = []
        self.choices: list[Choice] = []
        self.message = ""
        self.knocked: list[str] = []  # dice the last throw disturbed, ringed until the next action
        self.last_physics_ratio: float | None = None
        self._orbit_from: tuple[float, float] | None = None
        self._pan_from: tuple[float, float] | None = None
        self._bot: threading.Thread | None = None
        self._bot_result: list[Any] = []
        self._replay_next = 0.0
        self._step_requested = False
        self._pointer: tuple[float, float] | None = None
        self._last_mouse: tuple[float, float] | None = None
        self._seen_seat = self._viewer_seat()
        self._banner_until = 0.0
        self._cleaned = False
        self.setup()

    # -- setup / cleanup ----------------------------------------------------------------------

    def setup(self) -> None:
        from simulator.render.scene import TableScene

        base = self.base
        self.scene = TableScene(self.session.table_spec)
        self.scene.root.reparentTo(base.render)
        base.setBackgroundColor(0.16, 0.15, 0.14, 1)
        base.camLens.setNearFar(0.02, 30.0)
        for b in BINDINGS:
            base.accept(b.event, getattr(self, b.method), list(b.args))
        base.accept("window-event", self._on_window_event)
        self._make_hud()
        self._sync_dice()
        self._refresh()
        base.taskMgr.add(self._frame, "tabletop-frame")

    def cleanup(self) -> None:
        if self._cleaned:
            return
        self._cleaned = True
        base = self.base
        base.taskMgr.remove("tabletop-frame")
        base.ignoreAll()
        self.scene.root.removeNode()
        self.session.close()

    def run(self) -> int:
        self.base.run()
        return 0

    def quit(self) -> None:
        self.cleanup()
        self.base.userExit()

    def step_frames(self, n: int = 1) -> None:
        """Run n frames of the window's loop (scripts and tests)."""
        for _ in range(n):
            self.base.taskMgr.step()

    def idle(self) -> bool:
        """Nothing animating and no bot thinking."""
        return self.running is None and not self.queue and self._bot is None

    # -- camera ---------------------------------------------------------------------------------

    def view_thrower(self) -> None:
        self.follow = None
        self.camera = thrower_view(self.session.table_spec, self._viewer_seat() + 1)

    def view_top(self) -> None:
        self.follow = None
        w, h = self._win_size()
        self.camera = top_view(self.session.table_spec, w / h)

    def view_follow(self) -> None:
        names = list(self.scene.dice)
        target = self._last_moved() or (names[0] if names else None)
        if target is not None:
            self.follow = target
            self.camera = follow_view(self.scene.die_position(target), self.camera.heading)

    def zoom_in(self) -> None:
        self.camera = self.camera.zoom(0.9)

    def zoom_out(self) -> None:
        self.camera = self.camera.zoom(1 / 0.9)

    def on_right_down(self, pos: tuple[float, float] | None = None) -> None:
        self._orbit_from = pos or self._mouse()

    def on_right_up(self, pos: tuple[float, float] | None = None) -> None:
        self._orbit_from = None

    def on_middle_down(self, pos: tuple[float, float] | None = None) -> None:
        self._pan_from = pos or self._mouse()

    def on_middle_up(self, pos: tuple[float, float] | None = None) -> None:
        self._pan_from = None

    # -- pointer: picking and the throw gesture -------------------------------------------------

    def on_left_down(self, pos: tuple[float, float] | None = None) -> None:
        pos = pos or self._mouse()
        if pos is None or not self._human_to_act():
            return
        if self.armed is not None:
            start = self._ray_plane(pos, 0.0)
            if start is not None:
                self.drag = [start]
                self._update_preview()
            return
        self._click(pos)

    def on_pointer(self, pos: tuple[float, float]) -> None:
        """The pointer moved to `pos` (called each frame with the mouse, or by scripts)."""
        self._pointer = pos
        if self._orbit_from is not None:
            dx, dy = pos[0] - self._orbit_from[0], pos[1] - self._orbit_from[1]
            self.camera = self.camera.orbit(-dx * 120.0, dy * 60.0)
            self._orbit_from = pos
        if self._pan_from is not None:
            dx, dy = pos[0] - self._pan_from[0], pos[1] - self._pan_from[1]
            self.camera = self.camera.pan(-dx * 0.6, -dy * 0.6)
            self._pan_from = pos
        if self.drag is not None:
            p = self._ray_plane(pos, 0.0)
            if p is not None and (not self.drag or np.hypot(p[0] - self.drag[-1][0],
                                                            p[1] - self.drag[-1][1]) > 0.002):
                self.drag.append(p)
                self._update_preview()

    def on_left_up(self, pos: tuple[float, float] | None = None) -> None:
        if self.drag is None:
            return
        if pos is not None:
            self.on_pointer(pos)
        path, self.drag = self.drag, None
        die = self.armed
        if die is None or len(path) < 2 or math.dist(path[0], path[-1]) < MIN_DRAG:
            self.message = "drag farther: from your release point to where the die should land"
            self.preview = None
            self._refresh()
            return
        preview = throw_from_drag(self.session.table_spec, self._acting_seat() + 1, path, self.gesture)
        self.preview = None
        self.armed = None
        t = preview.throw
        spec = ThrowSpec(t.release, t.velocity, t.spin, t.orientation)
        from rules.deep_white_sea import spec_to_tuple

        self._apply(("throw", die, spec_to_tuple(spec)))

    # -- keys -------------------------------------------------------------------------------

    def choose(self, index: int) -> None:
        if not self._human_to_act() or not 0 <= index < len(self.choices):
            return
        choice = self.choices[index]
        if choice.arm is not None:
            self.armed = choice.arm
            self.selected = None
            self.message = (f"throw {self.session.crew(choice.arm).name}: press behind your edge "
                            "(the release point), drag to where it should land, let go")
            self._refresh()
        elif choice.action is not None:
            self._apply(choice.action)

    def press_button(self, index: int) -> None:
        """A click on the index-th button of the choices column."""
        if 0 <= index < len(self._button_calls):
            self._button_calls[index]()

    def release_higher(self) -> None:
        self.gesture = self.gesture.higher(0.05)
        self._update_preview()

    def release_lower(self) -> None:
        self.gesture = self.gesture.higher(-0.05)
        self._update_preview()

    def loft_more(self) -> None:
        self.gesture = self.gesture.loftier(0.05)
        self._update_preview()

    def loft_less(self) -> None:
        self.gesture = self.gesture.loftier(-0.05)
        self._update_preview()

    def place_side_up(self) -> None:
        self.place_side = self.place_side % 8 + 1
        self._refresh()

    def place_side_down(self) -> None:
        self.place_side = (self.place_side - 2) % 8 + 1
        self._refresh()

    def place_yaw_left(self) -> None:
        self.place_yaw = (self.place_yaw + 30.0) % 360.0
        self._refresh()

    def place_yaw_right(self) -> None:
        self.place_yaw = (self.place_yaw - 30.0) % 360.0
        self._refresh()

    def confirm(self) -> None:
        if self._human_to_act() and self.session.state.decision == "place" and self.armed:
            die = self.armed
            self.armed = None
            self._apply(("place", die, self.place_side, self.place_yaw))

    def pass_or_decline(self) -> None:
        if not self._human_to_act():
            return
        for a in self.session.legal():
            if a[0] in ("pass", "decline"):
                self._apply(a)
                return

    def cancel(self) -> None:
        self.selected = None
        self.armed = None
        self.drag = None
        self.preview = None
        self.message = ""
        if self.idle():
            self._sync_dice()
        self._refresh()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._refresh()

    def step_once(self) -> None:
        self._step_requested = True

    def faster(self) -> None:
        self.speed = min(8.0, self.speed * 2)
        self._refresh()

    def slower(self) -> None:
        self.speed = max(0.125, self.speed / 2)
        self._refresh()

    def save_picture(self) -> None:
        name = self.base.screenshot(namePrefix="tabletop", defaultFilename=True)
        self.message = f"saved {name}" if name else "could not save a picture"
        self._refresh_texts()

    def toggle_help(self) -> None:
        self.show_help = not self.show_help
        if self.show_help:
            self._help.show()
        else:
            self._help.hide()

    # -- the frame ------------------------------------------------------------------------------

    def _frame(self, task: Any) -> int:
        now = time.perf_counter()
        # Only a mouse that really moved counts: a script driving the handlers must not be
        # overridden by a pointer that sits still.
        mouse = self._mouse()
        if mouse is not None and mouse != self._last_mouse:
            if self._last_mouse is not None:
                self.on_pointer(mouse)
            self._last_mouse = mouse
        self._advance_animation(now)
        if now > self._banner_until and self._banner.getText():
            self._banner.setText("")
        if self.running is None and not self.queue:
            self._next_turn(now)
        if self.follow is not None and self.follow in self.scene.dice:
            p = self.scene.die_position(self.follow)
            self.camera = OrbitCamera(target=(p[0], p[1], max(0.0, p[2])),
                                      heading=self.camera.heading, pitch=self.camera.pitch,
                                      distance=self.camera.distance, fov=self.camera.fov)
        apply_camera(self.base.camera, self.base.camLens, self.camera, self._win_size())
        return int(task.cont)

    def _next_turn(self, now: float) -> None:
        s = self.session
        if s.state.is_terminal():
            return
        if self.replay is not None:
            if self.paused and not self._step_requested:
                return
            if self._step_requested or now >= self._replay_next:
                self._step_requested = False
                if s.step < len(self.replay):
                    k = s.step
                    self._apply(self.replay[k], bot=True)
                    logged = self.replay_digests[k] if k < len(self.replay_digests) else None
                    if logged is not None and s.step == k + 1 and digest(s.state) != logged:
                        # Another machine's or version's physics: say so, keep showing ours.
                        self.log_lines.append(f"step {k + 1}: this physics gives another "
                                              "table than the log's; showing this one")
                    self._replay_next = now + 0.6 / self.speed
            return
        if not s.is_bot_turn() or self.paused:
            return
        if self._bot is None:
            self._bot_result = []

            def think() -> None:
                try:
                    self._bot_result.append(s.bot_action())
                except Exception as exc:  # shown in the window; the bot's seat pauses
                    self._bot_result.append(exc)

            self._bot = threading.Thread(target=think, daemon=True)
            self._bot.start()
            self.message = f"{s.player_name(s.state.current_player())} is thinking..."
            self._refresh_texts()
        elif not self._bot.is_alive():
            self._bot.join()
            self._bot = None
            result = self._bot_result[0] if self._bot_result else None
            if isinstance(result, Exception):
                self.paused = True
                self.message = f"the bot failed ({type(result).__name__}: {result}); paused"
                self.log_lines.append(self.message)
                self._refresh_texts()
            elif result is not None:
                self._apply(result, bot=True)

    def _apply(self, action: Any, bot: bool = False) -> Outcome | None:
        from dice_models import DataError
        from rules.core.protocols import RulesError, TableError

        try:
            out = self.session.apply(action)
        except (RulesError, TableError, DataError) as exc:
            # Say it in the window and let the person try again; the game goes on.
            self.message = f"not possible: {exc}"
            self.log_lines.append(self.message)
            self._refresh()
            return None
        self.selected = None
        self.message = ""
        who = self.session.player_name(out.player)
        self.log_lines.append(f"{who}: {out.text}")
        self.log_lines.extend(out.events)
        news = [e.strip() for e in out.events if not e.startswith("---")]
        self._banner.setText("\n".join(_wrap(e, 80) for e in news[-3:]))
        self._banner_until = time.perf_counter() + 4.0 + sum(
            getattr(a, "duration", 0.0) or getattr(getattr(a, "playback", None), "duration", 0.0)
            for a in out.anims) / self.speed
        now = time.perf_counter()
        self.knocked = []
        for anim in out.anims:
            lead = BOT_WINDUP if bot and isinstance(anim, ThrowAnim) else 0.0
            self.queue.append(Running(anim, now, lead))
            if isinstance(anim, ThrowAnim) and anim.playback.duration > 0:
                self.last_physics_ratio = anim.physics_s / anim.playback.duration
                self.knocked = [n for n in anim.playback.tracks if n != anim.die]
        if not self.queue:
            self._sync_dice()
            self._refresh()
        else:
            self.scene.clear_overlay()
            self._refresh_texts()
        return out

    def _advance_animation(self, now: float) -> None:
        if self.running is None:
            if not self.queue:
                return
            self.running = self.queue.pop(0)
            self.running.start = now
            self._begin(self.running)
        r = self.running
        assert r is not None and r.anim is not None
        t = (now - r.start) * self.speed - r.lead
        done = self._show(r.anim, t)
        if done:
            self.running = None
            if not self.queue:
                self._sync_dice()
                self._refresh()

    def _begin(self, r: Running) -> None:
        a = r.anim
        if isinstance(a, ThrowAnim):
            self._ensure_die(a.die, (a.throw.release, a.throw.orientation))
            self.follow = None
            self.scene.clear_overlay()
            if r.lead > 0:
                self._draw_throw_preview(a.throw, foul=a.foul,
                                         flight=flight_time(a.throw))
        elif isinstance(a, DropAnim):
            self._ensure_die(a.die, a.pose)

    def _show(self, a: Anim, t: float) -> bool:
        """Pose the dice for time t (s) into animation a; True when it is over."""
        if t < 0:
            return False
        if isinstance(a, ThrowAnim):
            if t > 0 and self.scene.overlay.getNumChildren():
                self.scene.clear_overlay()
            if not a.playback.tracks:  # no recording (a table without physics): the arc
                fl = flight_time(a.throw)
                arc = arc_of(a.throw, fl, steps=2)
                p = arc[-1] if t >= fl else tuple(
                    np.array(a.throw.release) + np.array(a.throw.velocity) * t
                    + np.array([0, 0, -4.905 * t * t]))
                self.scene.move_die(a.die, p, a.throw.orientation)  # type: ignore[arg-type]
                return t >= fl
            for name, pose in a.playback.poses_at(t).items():
                self._ensure_die(name, pose)
                self.scene.move_die(name, *pose)
            return a.playback.finished(t)
        if isinstance(a, TipAnim):
            if a.die in self.scene.dice:
                self.scene.move_die(a.die, *a.at(t))
            return t >= a.duration
        if isinstance(a, VanishAnim):
            if a.die in self.scene.dice:
                f = min(1.0, t / a.duration)
                (x, y, z), q = a.pose
                self.scene.move_die(a.die, (x, y, z + 0.2 * f), q)
                self.scene.dice[a.die].pose.setScale(max(0.01, 1.0 - f))
            return t >= a.duration
        if isinstance(a, DropAnim):
            f = min(1.0, t / a.duration)
            (x, y, z), q = a.pose
            self.scene.move_die(a.die, (x, y, z + 0.15 * (1 - f) ** 2), q)
            return t >= a.duration
        return True

    # -- scene and HUD ----------------------------------------------------------------------

    def _ensure_die(self, name: str, pose: PoseT) -> None:
        if name in self.scene.dice:
            return
        crew = self.session.crew(name)
        self.scene.add_die(name, self.session.shape(name), crew_look(crew, TEXTURE_CELL),
                           tuple(crew.side_on_face(f) for f in range(8)), pose[0], pose[1])

    def _sync_dice(self) -> None:
        poses = self.session.poses()
        for name in list(self.scene.dice):
            if name not in poses:
                self.scene.remove_die(name)
        for name, pose in poses.items():
            if name in self.scene.dice:
                self.scene.dice[name].pose.setScale(1.0)
                self.scene.move_die(name, *pose)
            else:
                self._ensure_die(name, pose)

    def _refresh(self) -> None:
        """Rebuild the choices, the overlay marks and the HUD text for the current decision."""
        seat = self._viewer_seat()
        if seat != self._seen_seat:  # hot-seat: the next person sits down at their edge
            self._seen_seat = seat
            if self.replay is None:
                self.view_thrower()
        if self._human_to_act() and self.selected is None:
            self.selected = self._die_to_act()
        self.choices = self._make_choices()
        self._draw_overlay()
        self._refresh_texts()

    def _make_choices(self) -> list[Choice]:
        s = self.session
        if s.state.is_terminal() or not self._human_to_act():
            return []
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

    def _draw_overlay(self) -> None:
        sc = self.scene
        sc.clear_overlay()
        s = self.session
        st = s.state
        for die, seat in st.poison.items():
            if die in st.poses:
                x, y = st.poses[die].position[:2]
                sc.poison_counter((x + 0.03, y + 0.03), PLAYER_COLOURS[seat + 1])
        for d in self.knocked:
            if d in st.poses:
                sc.ring(st.poses[d].position[:2], 0.042, (1.0, 1.0, 1.0, 0.8), width=0.004)
        if not self._human_to_act():
            return
        legal = s.legal()
        decision = st.decision
        if decision == "place" and self.armed is not None:
            self._sync_dice()  # an earlier preview die goes back to the hand
            crew = s.crew(self.armed)
            pose = DiePose(self.armed, "on_table", None, crew.face_of_side(self.place_side) + 1,
                           (0.0, 0.0, 0.0), self.place_yaw)
            self._ensure_die(self.armed, resting_pose(s.shape(self.armed), pose))
            self.scene.move_die(self.armed, *resting_pose(s.shape(self.armed), pose))
        # Tips the person may choose: moves of the selected die, or a Repair / Confuse roll.
        tips = [a for a in legal if (a[0] == "move" and a[1] == self.selected) or a[0] == "tip"]
        for a in tips:
            start, end = self._tip_arrow(a[1], a[2])
            sc.arrow(start, end, (0.2, 0.9, 0.3, 0.95), width=0.01)
        if self.selected is not None and self.selected in st.poses:
            p = st.poses[self.selected]
            sc.ring(p.position[:2], 0.045, (1.0, 0.85, 0.2, 0.95))
            side = st.side(self.selected)
            crew = s.crew(self.selected)
            for arrow in side.arrows:
                axis = crew.corner_axis(side.number, arrow.corner)
                a, b = baseline(p.top_corners, axis)
                self._baseline(a, b)
            for a in legal:
                if a[0] == "shoot" and a[1] == self.selected:
                    # One target, or every die an all-range shot or a Command reaches.
                    pool = (st.enemies(self.selected) if a[2] in ("attack", "backstab", "confuse")
                            else st.allies(self.selected) if a[2] in ("repair", "command")
                            else [])
                    targets = [a[3]] if len(a) > 3 else st.in_range(self.selected, pool, "all")
                    for t in targets:
                        if t in st.poses:
                            sc.ring(st.poses[t].position[:2], 0.05, (0.95, 0.2, 0.15, 0.95),
                                    width=0.008)
        for a in legal:
            if a[0] == "aim" and a[2] in st.poses:
                sc.ring(st.poses[a[2]].position[:2], 0.05, (0.95, 0.5, 0.1, 0.95), width=0.008)
        # Dice that can act now glow faintly at their feet.
        actors = {a[1] for a in legal if a[0] in ("move", "shoot")}
        for d in actors:
            if d in st.poses and d != self.selected:
                sc.ring(st.poses[d].position[:2], 0.04, (0.3, 0.85, 0.4, 0.6), width=0.004)

    def _baseline(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        d = np.subtract(b, a)
        n = float(np.linalg.norm(d))
        if n < 1e-9:
            return
        u = d / n
        reach = 2.0
        p0 = (a[0] - u[0] * reach, a[1] - u[1] * reach, MARK_Z)
        p1 = (a[0] + u[0] * reach, a[1] + u[1] * reach, MARK_Z)
        p0, p1 = self._clip_to_table(p0, p1)
        self.scene.strip(p0, p1, (1.0, 0.95, 0.55, 0.8), width=0.003)

    def _clip_to_table(self, p0: tuple[float, float, float], p1: tuple[float, float, float]
                       ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        t = self.session.table_spec
        hx = t.width / 2 if t.shape == "rect" else t.radius
        hy = t.edge_y
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

    def _tip_arrow(self, die: str, corner: str) -> tuple[tuple[float, float, float],
                                                        tuple[float, float, float]]:
        st = self.session.state
        p = st.poses[die]
        crew = self.session.crew(die)
        axis = crew.corner_axis(st.side(die).number, corner)
        cx, cy = p.top_corners[axis]
        x, y = p.position[0], p.position[1]
        top = 2 * p.position[2] + 0.002 if p.position[2] > 0 else 0.042
        start = (x + (cx - x) * 0.35, y + (cy - y) * 0.35, top)
        end = (cx + (cx - x) * 0.9, cy + (cy - y) * 0.9, top)
        return start, end

    def _draw_throw_preview(self, throw: Any, foul: bool, flight: float) -> None:
        colour = (*FOUL_COLOUR, 1.0) if foul else (0.25, 0.9, 0.35, 1.0)
        self.scene.marker(throw.release, colour, size=0.03)
        self.scene.path(list(arc_of(throw, flight)), (1.0, 1.0, 1.0, 0.85), width=0.006)
        x, y, _ = throw.release
        self.scene.strip((x, y, MARK_Z), (x, y + 0.0001, MARK_Z), colour, width=0.02)

    def _update_preview(self) -> None:
        if self.drag is None or self.armed is None:
            return
        if len(self.drag) < 2:
            p = self.drag[0]
            path = [p, (p[0], p[1] + (0.3 if self._acting_seat() == 0 else -0.3))]
        else:
            path = self.drag
        self.preview = throw_from_drag(self.session.table_spec, self._acting_seat() + 1, path,
                                       self.gesture)
        self.scene.clear_overlay()
        self._draw_throw_preview(self.preview.throw, self.preview.foul, self.gesture.flight)
        self._refresh_texts()

    def _click(self, pos: tuple[float, float]) -> None:
        s = self.session
        st = s.state
        legal = s.legal()
        # An arrow (a move, or a Repair / Confuse roll) under the pointer?
        for a in legal:
            if a[0] in ("move", "tip") and (a[0] == "tip" or a[1] == self.selected):
                start, end = self._tip_arrow(a[1], a[2])
                hit = self._ray_plane(pos, start[2])
                if hit is not None and _near_segment(hit, start[:2], end[:2], 0.015):
                    self._apply(a)
                    return
        die = self._pick_die(pos)
        if die is None:
            self.selected = None
            self._refresh()
            return
        # A target of the selected die, or of the current aim decision?
        for a in legal:
            if a[0] == "aim" and a[2] == die:
                self._apply(a)
                return
            if (a[0] == "shoot" and a[1] == self.selected and len(a) > 3 and a[3] == die
                    and a[2] in ("attack", "repair", "confuse")):
                self._apply(a)
                return
        for a in legal:
            if a[0] == "shoot" and a[1] == self.selected and len(a) > 3 and a[3] == die:
                self._apply(a)
                return
        if any(a[0] in ("move", "shoot") and a[1] == die for a in legal):
            self.selected = die
            self.message = f"{s.crew(die).name}: green arrows move it, red rings are its targets"
        else:
            self.selected = None
            owner = s.player_name(s.seat_of(die)) if die in st.dice else "?"
            self.message = f"{s.crew(die).name} ({owner}) cannot act now"
        self._refresh()

    def _pick_die(self, pos: tuple[float, float]) -> str | None:
        ray = self._ray(pos)
        if ray is None:
            return None
        origin, direction = ray
        best, best_t = None, math.inf
        for name in self.scene.dice:
            c = np.array(self.scene.die_position(name))
            r = self.session.shape(name).poly.circumradius * 1.1
            oc = origin - c
            b = float(oc @ direction)
            disc = b * b - (float(oc @ oc) - r * r)
            if disc < 0:
                continue
            t = -b - math.sqrt(disc)
            if 0 < t < best_t:
                best, best_t = name, t
        return best

    def _ray(self, pos: tuple[float, float]) -> tuple[np.ndarray, np.ndarray] | None:
        from panda3d.core import Point2, Point3

        near, far = Point3(), Point3()
        apply_camera(self.base.camera, self.base.camLens, self.camera, self._win_size())
        if not self.base.camLens.extrude(Point2(*pos), near, far):
            return None
        render = self.base.render
        n = render.getRelativePoint(self.base.camera, near)
        f = render.getRelativePoint(self.base.camera, far)
        origin = np.array([n[0], n[1], n[2]])
        d = np.array([f[0], f[1], f[2]]) - origin
        return origin, d / np.linalg.norm(d)

    def _ray_plane(self, pos: tuple[float, float], z: float) -> tuple[float, float] | None:
        ray = self._ray(pos)
        if ray is None:
            return None
        origin, d = ray
        if abs(d[2]) < 1e-9:
            return None
        t = (z - origin[2]) / d[2]
        if t <= 0:
            return None
        p = origin + d * t
        return (float(p[0]), float(p[1]))

    def screen_of(self, point: tuple[float, float, float]) -> tuple[float, float] | None:
        """Window coordinates (-1..1, y up) where a table point is seen: what a script
        passes to the pointer handlers to touch it."""
        w, h = self._win_size()
        px = self.camera.project(point, (w, h))
        if px is None:
            return None
        return (2 * px[0] / w - 1, 1 - 2 * px[1] / h)

    def _make_hud(self) -> None:
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        base = self.base
        fg = (0.96, 0.95, 0.9, 1)
        shadow = (0, 0, 0, 0.8)
        self._status = OnscreenText(text="", pos=(-1.74, 0.93), scale=0.045, fg=fg, shadow=shadow,
                                    align=TextNode.ALeft, mayChange=True, parent=base.aspect2d)
        self._hands = [OnscreenText(text="", pos=(-1.74 if seat == 0 else 1.74, 0.78), scale=0.036,
                                    fg=(*PLAYER_COLOURS[seat + 1], 1), shadow=shadow,
                                    align=TextNode.ALeft if seat == 0 else TextNode.ARight,
                                    mayChange=True, parent=base.aspect2d) for seat in (0, 1)]
        self._log = OnscreenText(text="", pos=(-1.74, -0.52), scale=0.032, fg=fg, shadow=shadow,
                                 align=TextNode.ALeft, mayChange=True, parent=base.aspect2d)
        self._banner = OnscreenText(text="", pos=(0, 0.8), scale=0.05, fg=(1, 1, 1, 1),
                                    shadow=shadow, align=TextNode.ACenter, mayChange=True,
                                    parent=base.aspect2d)
        # The choices as buttons down the right side: click one, or press its number key.
        from direct.gui import DirectGuiGlobals as DGG
        from direct.gui.DirectButton import DirectButton

        self._buttons = []
        self._button_calls: list[Callable[[], None]] = []
        for i in range(10):
            self._buttons.append(DirectButton(
                text="", scale=0.038, pos=(1.72, 0, -0.22 - 0.068 * i), parent=base.aspect2d,
                text_align=TextNode.ARight, text_fg=(1.0, 0.95, 0.75, 1), relief=DGG.FLAT,
                frameColor=(0.05, 0.05, 0.08, 0.7), pad=(0.3, 0.25), command=self.press_button,
                extraArgs=[i]))
            self._buttons[-1].hide()
        self._prompt = OnscreenText(text="", pos=(-0.3, -0.7), scale=0.036,
                                    fg=(1.0, 0.92, 0.6, 1), shadow=shadow, align=TextNode.ALeft,
                                    mayChange=True, parent=base.aspect2d)
        self.help_text = "Controls\n\n" + "\n".join(b.help for b in BINDINGS if b.help)
        self._help = OnscreenText(text=self.help_text, pos=(0, 0.6), scale=0.042, fg=fg,
                                  bg=(0.05, 0.05, 0.08, 0.85), shadow=shadow,
                                  align=TextNode.ACenter, mayChange=True, parent=base.aspect2d)
        self._help.hide()

    def _refresh_texts(self) -> None:
        s = self.session
        st = s.state
        if st.is_terminal():
            who = "draw" if st.winner is not None and st.winner < 0 else \
                f"{s.player_name(st.winner)} wins"
            now = f"Game over: {who}"
        else:
            seat = st.current_player()
            now = f"P{seat + 1} to act: {_DECISION_WORDS.get(st.decision, st.decision)}"
        mode = "  [replay]" if self.replay is not None else ""
        paused = "  [paused]" if self.paused else ""
        speed = f"  speed x{self.speed:g}" if self.speed != 1.0 else ""
        self._status.setText(f"Deep White Sea  turn {st.turn}   P1 {st.scores[0]} : {st.scores[1]} P2"
                             f"   (first to 50){mode}{paused}{speed}\n{now}")
        for seat in (0, 1):
            lines = [s.player_name(seat), f"score {st.scores[seat]}"]
            hand = [s.crew(d).name for d in st.seat_dice(seat) if st.where[d] == "hand"]
            reserve = [s.crew(d).name for d in st.seat_dice(seat) if st.where[d] == "reserve"]
            play = [d for d in st.seat_dice(seat) if st.where[d] == "play"]
            lines.append("hand: " + (", ".join(hand) if hand else "-"))
            lines.append("reserve: " + (", ".join(reserve) if reserve else "-"))
            for d in play:
                if d in st.poses:
                    flags = []
                    if d in st.poison:
                        flags.append(f"poison (P{st.poison[d] + 1})")
                    if st.frozen(d):
                        flags.append("frozen")
                    elif st.held(d):
                        flags.append("held")
                    extra = f" [{', '.join(flags)}]" if flags else ""
                    lines.append(f"  {s.crew(d).name}: side {st.side(d).number}{extra}")
            self._hands[seat].setText("\n".join(_wrap(line, 44) for line in lines))
        self._log.setText("\n".join(_wrap(line, 70) for line in self.log_lines[-9:]))
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
        if self.preview is not None:
            p = self.preview
            r = p.throw.release
            state = "FOUL: " + (p.foul_reason or "") if p.foul else "legal release"
            prompt.append(f"release ({r[0]:+.2f}, {r[1]:+.2f}, {r[2]:.2f}) m  speed {p.speed:.2f} m/s"
                          f"  spin {p.spin:.1f} rad/s  flight {self.gesture.flight:.2f} s")
            prompt.append(state)
        elif self.armed is not None and st.decision == "place":
            prompt.append(f"side {self.place_side}, yaw {self.place_yaw:.0f} deg: Q/E side, "
                          "A/D turn, Enter to place")
        elif self.armed is not None:
            prompt.append(f"release height {self.gesture.height:.2f} m (Up/Down), flight "
                          f"{self.gesture.flight:.2f} s ([ ])")
        labels = [f"{i + 1}  {c.label}" for i, c in enumerate(self.choices)]
        self._button_calls = [functools.partial(self.choose, i) for i in range(len(self.choices))]
        if self._human_to_act() and any(a[0] in ("pass", "decline") for a in s.legal()):
            labels.append("P  pass / no shot")
            self._button_calls.append(self.pass_or_decline)
        for i, button in enumerate(self._buttons):
            if i < len(labels):
                button["text"] = labels[i]
                button.resetFrameSize()
                button.show()
            else:
                button.hide()
        if self.last_physics_ratio is not None:
            prompt.append(f"last throw: physics to rest took {100 * self.last_physics_ratio:.0f}% "
                          "of its real duration")
        self._prompt.setText("\n".join(_wrap(line, 60) for line in prompt[-8:]))

    # -- helpers ----------------------------------------------------------------------------

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

    def _human_to_act(self) -> bool:
        s = self.session
        return (self.replay is None and not s.state.is_terminal() and not s.is_bot_turn()
                and self.running is None and not self.queue)

    def _acting_seat(self) -> int:
        st = self.session.state
        return 0 if st.is_terminal() else int(st.current_player())

    def _viewer_seat(self) -> int:
        s = self.session
        humans = [i for i, k in enumerate(s.players) if k == "human"]
        if len(humans) == 1:
            return humans[0]
        return self._acting_seat()

    def _last_moved(self) -> str | None:
        if self.running is not None and self.running.anim is not None:
            return self.running.anim.die
        for out in reversed(self.session.history):
            for a in reversed(out.anims):
                if a.die in self.scene.dice:
                    return a.die
        return None

    def _mouse(self) -> tuple[float, float] | None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.hasMouse():
            return None
        return (float(mw.getMouseX()), float(mw.getMouseY()))

    def _win_size(self) -> tuple[int, int]:
        win = self.base.win
        if win is None:
            return self.size
        return (max(1, win.getXSize()), max(1, win.getYSize()))

    def _on_window_event(self, window: Any) -> None:
        if window is not None and window.isClosed():
            self.cleanup()
        self.base.windowEvent(window)  # ShowBase's own: lens aspect on resize, exit on close


_DECISION_WORDS = {
    "place": "place one die in the centre (first turn)",
    "main": "throw, move or shoot (or pass)",
    "foul": "the opponent fouled: allow, forbid the shot, or send the die to reserve",
    "shoot": "the landed die may shoot",
    "cmd": "a commanded ally acts",
    "tip": "choose which way to roll the die",
    "throw": "throw a die (Call Ally / Jump)",
    "aim": "aim the continuous effect",
}


def _near_segment(p: tuple[float, float], a: tuple[float, ...], b: tuple[float, ...],
                  tol: float) -> bool:
    pa, ab = np.subtract(p, a[:2]), np.subtract(b[:2], a[:2])
    t = float(np.clip((pa @ ab) / max(1e-12, float(ab @ ab)), 0.0, 1.0))
    return float(np.linalg.norm(pa - ab * t)) <= tol


def _wrap(text: str, width: int) -> str:
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = "    " + w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return "\n".join(lines)


# -- entry points ------------------------------------------------------------------------------


def display_problem() -> str | None:
    """Why no window can open here, or None if a display is there to try."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY") \
            and not os.environ.get("WAYLAND_DISPLAY"):
        return "no display (DISPLAY is not set)"
    return None


NO_DISPLAY_HINT = ("use --headless to play in the terminal, or `tabletop render --game "
                   "deep-white-sea --out table.png` for a picture")


def launch(args: Any, players: list[str], options: dict[str, Any]) -> int:
    """The `tabletop play deep-white-sea` window (called by the play command). Without
    --players it is two people at one screen; the table is the physics table."""

    for flag in ("load", "save"):
        if getattr(args, flag, None):
            raise WindowError(f"--{flag}: the window neither saves nor resumes games; "
                             "add --headless to play a saved game on in the terminal")
    problem = display_problem()
    if problem is not None:
        raise WindowError(f"{problem}: {NO_DISPLAY_HINT}")
    if getattr(args, "players", None) is None:
        players = ["human", "human"]
    if len(players) != 2:
        raise WindowError(f"--players: deep-white-sea takes two players, got {len(players)}")
    for kind in players:
        if kind not in ("human", "random", "greedy", "planner"):
            raise WindowError(f"--players: {kind!r} cannot play in the window (human, random, "
                             "greedy or planner)")
    options = dict(options)
    options.setdefault("table", "physics")
    return play_window(players, int(getattr(args, "seed", 0)), options,
                       log_path=getattr(args, "log", None))


def play_window(players: list[str], seed: int, options: dict[str, Any],
                log_path: str | None = None, bot_settings: dict[str, dict[str, Any]] | None = None,
                ) -> int:
    """`tabletop play deep-white-sea` with a window."""
    # Written beside the target and renamed over it when the window closes (never half a log
    # over an old one); a write that fails is said at the end, the game itself goes on.
    log = LineFile(check_target(log_path, "--log"), "--log") if log_path else None
    try:
        session = GameSession(players, seed, options, log=log, bot_settings=bot_settings)
        app = open_window(session)
        status = app.run()
    finally:
        if log is not None:
            log.close()
    if log is not None and log.error is not None:
        raise log.error
    return status


def replay_window(log_path: str | Path, speed: float = 1.0,
                  on_ready: Callable[[TableApp], None] | None = None) -> int:
    """`tabletop replay LOG --view`: the logged game, played again in the window."""
    session, actions, digests = replay_session(log_path)
    app = open_window(session, replay=actions, replay_digests=digests,
                      title=f"tabletop replay: {Path(log_path).name}")
    app.speed = speed
    if on_ready is not None:
        on_ready(app)
    return app.run()


def open_window(session: GameSession, **kwargs: Any) -> TableApp:
    """The window, or one line saying why it cannot open (a display that is set but does
    not answer, no OpenGL)."""

    try:
        return TableApp(session, **kwargs)
    except Exception as exc:
        if "window" not in str(exc).lower():
            raise
        where = os.environ.get("DISPLAY", "the display")
        raise WindowError(f"could not open a window on {where} ({exc}): {NO_DISPLAY_HINT}") \
            from None


def replay_session(log_path: str | Path) -> tuple[GameSession, list[Any], list[str | None]]:
    """A fresh session set up as the log's header says, the log's actions in order, and the
    state digest the log recorded after each."""
    from rules.core.protocols import RulesError

    lines = read_log(log_path)
    header = lines[0]
    if header.get("game") != "deep-white-sea":
        raise RulesError(f"{log_path}: the replay viewer shows deep-white-sea games, this log is "
                         f"{header.get('game')!r}")
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
