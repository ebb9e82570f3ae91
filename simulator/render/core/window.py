"""The window every game shares: the key and mouse bindings, the input handlers, the frame
loop, acting on the game, and the parts it is composed of, each a class in its own module:
the stage (Panda3D's window and its drawing path, `stage.py`), the view (camera, glides,
follow, orbit and pan, `views.py`), the turn flow (the animations queued, then a replayed
step or a bot's turn, `flow.py`), the choices column (`column.py`), the texts pinned to the
table (`pins.py`), the HUD with F1 help and the game-over screen (`hud.py`), the close-up
inset (`inset.py`), picking by ray (`picking.py`), and the feel (sound, fast-forward,
settings, `feel.py`).

A game's window is a subclass (`simulator/render/<table>/<game>_window.py`) that fills in
the hooks of `hooks.py`: its scene, what the HUD says, the choices of the decision at hand,
what a click on the table means, and how its animations are shown. Input handlers take
explicit pointer positions (Panda3D's -1..1 window coordinates), so scripts and tests drive
a window exactly as a mouse does (`screen_of` says where a table point is seen).

Panda3D is imported only when a window is made: importing this module loads nothing heavy.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator.render.core import picking
from simulator.render.core.camera import OrbitCamera, follow_view
from simulator.render.core.column import ChoiceColumn
from simulator.render.core.feel import Feel
from simulator.render.core.flow import Running, TurnLoop
from simulator.render.core.hooks import WindowHooks
from simulator.render.core.hud import MORE, Choice, Hud, wrap
from simulator.render.core.inset import Inset, inset_box
from simulator.render.core.offscreen import apply_camera
from simulator.render.core.pins import PIN_SCALE, Pins
from simulator.render.core.shadows import Shadows
from simulator.render.core.stage import Stage
from simulator.render.core.turns import Replay
from simulator.render.core.views import Views

__all__ = ["PIN_SCALE", "Binding", "Choice", "GameWindow", "Running", "wrap"]

WINDOW_SIZE = (1280, 720)
BACKGROUND = (0.16, 0.15, 0.14, 1)


@dataclass(frozen=True)
class Binding:
    event: str  # Panda3D event name
    method: str  # window method called with `args` (a part's: "views.zoom_in")
    help: str  # the line in the help overlay ('' = listed with the row before)
    args: tuple[int, ...] = ()


# Bindings every game's window has; a game adds its own rows (`GameWindow.GAME_BINDINGS`).
COMMON_BINDINGS: tuple[Binding, ...] = (
    Binding("mouse1", "on_left_down", "Left click: pick a piece (see the prompt)"),
    Binding("mouse1-up", "on_left_up", ""),
    Binding("mouse3", "on_right_down", "Right drag: orbit the camera"),
    Binding("mouse3-up", "on_right_up", ""),
    Binding("mouse2", "on_middle_down", "Middle drag: pan the camera"),
    Binding("mouse2-up", "on_middle_up", ""),
    Binding("wheel_up", "views.zoom_in", "Mouse wheel: zoom"),
    Binding("wheel_down", "views.zoom_out", ""),
    Binding("c", "view_thrower", "C: the view from the seat of the player to act"),
    Binding("t", "view_top", "T: top view"),
    Binding("f", "view_follow", "F: follow the piece that moved last"),
    Binding("1", "choose", "1-9, 0 or a click on the list at the right: take that choice", (0,)),
    *(Binding(str(k + 1), "choose", "", (k,)) for k in range(1, 9)),
    Binding("0", "choose", "", (9,)),
    Binding("escape", "cancel", "Esc: drop the selection"),
    Binding("space", "toggle_pause", "Space: pause or resume (replay and bots)"),
    Binding("n", "step_once", "N: one step (replay, paused)"),
    Binding("+", "faster", "+ / -: playback speed"),
    Binding("=", "faster", ""),
    Binding("-", "slower", ""),
    Binding("tab", "feel.toggle_fast_forward", "Tab: fast-forward bot turns; Shift+Tab: its speed (x2-x16)"),
    Binding("shift-tab", "feel.fast_forward_speed", ""),
    Binding("m", "feel.toggle_mute", "M: sound off or on; , / .: volume down / up"),
    Binding(",", "feel.volume_down", ""),
    Binding(".", "feel.volume_up", ""),
    Binding("f8", "feel.next_shading", "F8: the shading the next start draws with"),
    Binding("r", "restart", "R: start again (when the game is over)"),
    Binding("f12", "save_picture", "F12: save a picture of the window (tabletop-*.png here)"),
    Binding("f1", "toggle_help", "F1 or H: this help"),
    Binding("h", "toggle_help", ""),
    Binding("control-q", "quit", "Ctrl+Q: quit"),
)


class GameWindow(WindowHooks):
    """The shared window. `session` plays a game (its `state`, `players`, `step`,
    `is_bot_turn()`, `bot_action()`, `legal()`, `apply(action)`, `player_name(seat)`,
    `close()`); `replay` (logged steps, with the digests the log recorded after each) makes
    it a viewer. Subclasses fill in the hooks (`hooks.py`).

    `shading` is how the window draws (`drawn_by` says which and why; `stage.py`): "software",
    "gl", "pbr" or "auto" (default; `software` True means "software"). A path that cannot be
    had raises RenderPathError."""

    GAME_BINDINGS: tuple[Binding, ...] = ()

    def __init__(self, session: Any, replay: list[Any] | None = None,
                 replay_digests: list[str | None] | None = None,
                 size: tuple[int, int] = WINDOW_SIZE, title: str | None = None,
                 software: bool = False, shading: str | None = None) -> None:
        self.stage = Stage(size, title or f"tabletop: {self.GAME_TITLE}",
                           shading or ("software" if software else "auto"))
        self.base = self.stage.base
        self.drawn_by = self.stage.drawn_by
        self.session = session
        self.replay = Replay(list(replay), list(replay_digests or [])) if replay is not None else None
        self.size = size
        self.speed = 1.0
        self.paused = False
        self.show_help = False
        self.flow = TurnLoop(self)
        self.feel = Feel(self)
        self.log_lines: list[str] = []
        self.column = ChoiceColumn()
        self.message = ""
        self.restarts = 0
        self._last_mouse: tuple[float, float] | None = None
        self._texts_view: OrbitCamera | None = None  # the view `view_moved` last placed for
        self._cleaned = False
        self.init_game()
        self._seen_seat = self.viewer_seat()
        self.views = Views(OrbitCamera())  # the seat's view once the scene is there (setup)
        self.setup()

    @property
    def camera(self) -> OrbitCamera:
        """The view aimed at (`views.camera`): what picking and scripts use."""
        return self.views.camera

    @camera.setter
    def camera(self, camera: OrbitCamera) -> None:
        self.views.camera = camera

    @property
    def choices(self) -> list[Choice]:
        """The choices shown (one page of the column's)."""
        return self.column.shown

    @property
    def queue(self) -> list[Running]:
        """The animations still to show (`flow.queue`)."""
        return self.flow.queue

    @property
    def running(self) -> Running | None:
        """The animation on screen (`flow.running`)."""
        return self.flow.running

    @property
    def bindings(self) -> tuple[Binding, ...]:
        return (*COMMON_BINDINGS, *self.GAME_BINDINGS)

    def handler(self, binding: Binding) -> Callable[..., Any]:
        """The method a binding calls: the window's, or one of its parts' ("views.zoom_in")."""
        window: Any = self
        return functools.reduce(getattr, binding.method.split("."), window)

    # -- setup / cleanup ----------------------------------------------------------------------

    def setup(self) -> None:
        base = self.base
        self.scene = self.make_scene()
        self.scene.flatten_static()  # fixed geometry in few pieces: frames per second
        if self.drawn_by.name == "pbr":
            self.scene.use_pbr()  # linear-light colours for simplepbr
        self.scene.root.reparentTo(base.render)
        self.camera = self.thrower_camera(self._seen_seat)
        base.setBackgroundColor(*BACKGROUND)
        base.camLens.setNearFar(0.02, 30.0)
        for b in self.bindings:
            base.accept(b.event, self.handler(b), list(b.args))
        base.accept("window-event", self._on_window_event)
        self.help_text = ("Controls\n\n" + "\n".join(b.help for b in self.bindings if b.help)
                          + "\n\n" + wrap(f"Drawn by {self.drawn_by.detail}", 70))
        self.hud = Hud(base, self.help_text, self.column.press, self.restart)
        self.inset = Inset(base, BACKGROUND, self.win_size(), self.stage.scene_output)
        self.pins = Pins(base)
        self.shadows = Shadows(base, self.scene, self.drawn_by.name)
        self.shadows.use(self.feel.settings.shadows)
        self.sync_scene()
        self.refresh()
        base.taskMgr.add(self._frame, "tabletop-frame")

    def cleanup(self) -> None:
        if self._cleaned:
            return
        self._cleaned = True
        base = self.base
        base.taskMgr.remove("tabletop-frame")
        base.ignoreAll()
        self.inset.remove()
        self.shadows.close()  # its buffer before the window's go: left open, exit aborts
        self.scene.root.removeNode()
        self.stage.close_buffers()
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
        """Nothing animating (pieces or the camera) and no bot thinking."""
        return not self.flow.animating and not self.flow.bot.busy and not self.views.gliding

    # -- camera (the view part: views.py) ------------------------------------------------------

    def view_thrower(self) -> None:
        self.views.follow = None
        self.views.glide_to(self.thrower_camera(self.viewer_seat()))

    def view_top(self) -> None:
        self.views.follow = None
        w, h = self.win_size()
        self.views.glide_to(self.top_camera(w / h))

    def view_follow(self) -> None:
        target = self.last_moved()
        where = self.piece_position(target) if target is not None else None
        if target is not None and where is not None:
            self.views.follow = target
            self.views.glide_to(follow_view(where, self.camera.heading))

    def on_right_down(self, pos: tuple[float, float] | None = None) -> None:
        self.views.grab_orbit(pos or self.mouse())

    def on_right_up(self, pos: tuple[float, float] | None = None) -> None:
        self.views.grab_orbit(None)

    def on_middle_down(self, pos: tuple[float, float] | None = None) -> None:
        self.views.grab_pan(pos or self.mouse())

    def on_middle_up(self, pos: tuple[float, float] | None = None) -> None:
        self.views.grab_pan(None)

    # -- pointer ----------------------------------------------------------------------------

    def on_left_down(self, pos: tuple[float, float] | None = None) -> None:
        pos = pos or self.mouse()
        if pos is None or not self.human_to_act():
            return
        self.click(pos)

    def on_left_up(self, pos: tuple[float, float] | None = None) -> None:
        """Released: games with a drag gesture override this."""

    def on_pointer(self, pos: tuple[float, float]) -> None:
        """The pointer moved to `pos` (called each frame with the mouse, or by scripts)."""
        self.views.drag(pos)

    # -- keys -------------------------------------------------------------------------------

    def choose(self, index: int) -> None:
        if not self.human_to_act() or not 0 <= index < len(self.choices):
            return
        choice = self.choices[index]
        if choice.arm is MORE:
            self.column.next_page()
            self.refresh_texts()
        elif choice.arm is not None:
            self.arm(choice)
        elif choice.action is not None:
            self.apply(choice.action)

    def cancel(self) -> None:
        self.message = ""
        if self.idle():
            self.sync_scene()
        self.refresh()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self.refresh()

    def step_once(self) -> None:
        if self.replay is not None:
            self.replay.step_requested = True

    def faster(self) -> None:
        self.speed = min(8.0, self.speed * 2)
        self.refresh()

    def slower(self) -> None:
        self.speed = max(0.125, self.speed / 2)
        self.refresh()

    def save_picture(self) -> None:
        name = self.base.screenshot(namePrefix="tabletop", defaultFilename=True)
        self.message = f"saved {name}" if name else "could not save a picture"
        self.refresh_texts()

    def toggle_help(self) -> None:
        self.show_help = not self.show_help
        self.hud.set_help(self.show_help)

    def restart(self) -> None:
        """Start again: a new game with the same players (its seed one higher). The log, if
        any, keeps the first game: a log holds one game."""
        if self.replay is not None or not self.session.state.is_terminal() or not self.idle():
            return
        old = self.session
        self.session = self.new_session()
        old.close()
        self.restarts += 1
        self.log_lines = [f"--- a new game (seed {getattr(self.session, 'seed', '?')}) ---"]
        self.message = ""
        self.sync_scene()
        self.refresh()

    # -- acting -------------------------------------------------------------------------------

    def apply(self, action: Any, bot: bool = False) -> Any:
        """Apply an engine action (a person's choice or a bot's) and queue what it shows.
        A refused action is said in the window; the game goes on."""
        from dice_models import DataError
        from rules.core.protocols import RulesError, TableError

        try:
            out = self.session.apply(action)
        except (RulesError, TableError, DataError) as exc:
            self.message = f"not possible: {exc}"
            self.log_lines.append(self.message)
            self.refresh()
            return None
        self.after_apply(out, bot)
        return out

    def after_apply(self, out: Any, bot: bool) -> None:
        """Log lines, banner and the outcome's animations (`out`: a StepResult with
        `player`, `text`, `events`, `anims`)."""
        self.message = ""
        self.column.page = 0
        if getattr(out, "text", None):
            who = self.session.player_name(out.player) if out.player >= 0 else "dice"
            self.log_lines.append(f"{who}: {out.text}")
        self.show_events(list(getattr(out, "events", [])))
        now = time.perf_counter()
        for anim in self.outcome_anims(out):
            self.queue.append(Running(anim, now, self.anim_lead(anim, bot), bot=bot))
        if not self.queue:
            self.sync_scene()
            self.refresh()
        else:
            self.scene.clear_overlay()
            self.refresh_texts()

    def show_events(self, events: list[str]) -> None:
        self.log_lines.extend(events)
        news = [e.strip() for e in events if not e.startswith("---")]
        if news:
            self.hud.news(news, time.perf_counter())

    # -- the frame ------------------------------------------------------------------------------

    def _frame(self, task: Any) -> int:
        now = time.perf_counter()
        # Only a mouse that really moved counts: a script driving the handlers must not be
        # overridden by a pointer that sits still.
        mouse = self.mouse()
        if mouse is not None and mouse != self._last_mouse:
            if self._last_mouse is not None:
                self.on_pointer(mouse)
            self._last_mouse = mouse
        self.flow.advance(now)
        self.hud.tick(now)
        if not self.flow.animating:
            self.flow.next_turn(now)
        followed = self.views.follow
        shown = self.views.shown(now, None if followed is None else self.piece_position(followed))
        apply_camera(self.base.camera, self.base.camLens, shown, self.win_size())
        if self.views.camera != self._texts_view:  # a zoom, orbit, pan or another view
            self._texts_view = self.views.camera
            self.pins.items = self.pinned_labels()  # placed for the view now aimed at
            self.pins.marks = self.pinned_marks()
            self.view_moved()
        inset = [inset_box(self.win_size())] if self.inset.views else []
        self.pins.place(shown, self.win_size(), self.show_help or self.session.state.is_terminal(),
                        self.hud.button_boxes(), inset)
        self._update_inset()
        return int(task.cont)

    def _update_inset(self) -> None:
        """Off under help and on the game-over screen."""
        hidden = self.show_help or self.session.state.is_terminal()
        self.inset.update([] if hidden else self.inset_points(), self.inset_die_size(),
                          self.win_size())

    def _check_replayed(self, k: int) -> None:
        """After replayed step k: another machine's or version's physics gives another
        table than the log recorded; say so, keep showing ours."""
        if self.replay is not None:
            mismatch = self.replay.mismatch(k, self.session.state, self.session.step)
            if mismatch is not None:
                self.log_lines.append(mismatch)

    # -- HUD ------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the choices, the overlay marks and the HUD text for the current decision."""
        seat = self.viewer_seat()
        if seat != self._seen_seat:  # hot-seat: the next person sits down at their edge
            self._seen_seat = seat
            if self.replay is None:
                self.view_thrower()
        self.pins.items = self.pinned_labels()
        self.pins.marks = self.pinned_marks()
        self.column.offer(self.make_choices()
                          if self.human_to_act() and not self.session.state.is_terminal() else [])
        self.scene.clear_overlay()
        self.draw_overlay()
        self.refresh_texts()

    def refresh_texts(self) -> None:
        mode = "  [replay]" if self.replay is not None else ""
        paused = "  [paused]" if self.paused else ""
        speed = self.feel.speed_text()  # speed, fast-forward, mute
        labels = self.column.buttons(self.choose, self.extra_buttons)
        terminal = self.session.state.is_terminal()
        self.hud.show(self.status_text() + mode + paused + speed, self.panels(), self.log_lines,
                      labels, self.prompt_lines(), self.result_text() if terminal else None,
                      again=terminal and self.replay is None, keep_clear=self.pins.nodes)

    # -- helpers ----------------------------------------------------------------------------

    def human_to_act(self) -> bool:
        s = self.session
        return (self.replay is None and not s.state.is_terminal() and not self.bot_turn()
                and not self.flow.animating)

    def acting_seat(self) -> int:
        st = self.session.state
        if st.is_terminal():
            return 0
        seat = int(st.current_player())
        return seat if seat >= 0 else max(0, int(getattr(self.session, "last_player", 0)))

    def viewer_seat(self) -> int:
        """Whose seat the camera sits at: the only person playing, else the one to act."""
        s = self.session
        humans = [i for i, k in enumerate(s.players) if k == "human"]
        if len(humans) == 1:
            return humans[0]
        return self.acting_seat()

    def mouse(self) -> tuple[float, float] | None:
        return picking.mouse(self.base)

    def win_size(self) -> tuple[int, int]:
        return self.stage.win_size()

    def ray(self, pos: tuple[float, float]) -> tuple[np.ndarray, np.ndarray] | None:
        """The line of sight through window position `pos`: origin and unit direction."""
        return picking.ray(self.base, self.camera, pos, self.win_size())

    def ray_plane(self, pos: tuple[float, float], z: float) -> tuple[float, float] | None:
        """Where the line of sight through `pos` meets the horizontal plane at height z."""
        return picking.ray_plane(self.ray(pos), z)

    def pick_sphere(self, pos: tuple[float, float],
                    spheres: dict[Any, tuple[tuple[float, float, float], float]]) -> Any:
        """The nearest of `spheres` (key -> centre, radius in m) the line of sight through
        `pos` meets, or None."""
        return picking.pick_sphere(self.ray(pos), spheres)

    def screen_of(self, point: tuple[float, float, float]) -> tuple[float, float] | None:
        """Window coordinates (-1..1, y up) where a table point is seen: what a script
        passes to the pointer handlers to touch it."""
        return picking.screen_of(self.camera, point, self.win_size())

    def _on_window_event(self, window: Any) -> None:
        if window is not None and window.isClosed():
            self.cleanup()
        self.base.windowEvent(window)  # ShowBase's own: lens aspect on resize, exit on close

