"""The window every game shares: Panda3D set-up, the orbit camera and its bindings, the HUD
(status, one panel per seat, the last events, a banner), the choices column with its number
keys, F1 help, bots thinking in a thread, replay stepping, animation playback, picking by
ray and the game-over screen with 'start again'.

A game's window is a subclass (`simulator/render/<game>_window.py`) that fills in the hooks
marked `# -- hooks` below: its scene, what the HUD says, the choices of the decision at
hand, what a click on the table means, and how its animations are shown. Input handlers take
explicit pointer positions (Panda3D's -1..1 window coordinates), so scripts and tests drive
a window exactly as a mouse does (`screen_of` says where a table point is seen).

Panda3D is imported only when a window is made: importing this module loads nothing heavy.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.core.runner import digest
from simulator.render.camera import CameraMove, OrbitCamera, closeup_view, die_view, follow_view
from simulator.render.offscreen import apply_camera, configure_panda

WINDOW_SIZE = (1280, 720)
BACKGROUND = (0.16, 0.15, 0.14, 1)
REPLAY_PAUSE_S = 0.6  # s between replayed steps at speed 1
GLIDE_S = 0.6  # s: a change of view (thrower's, top, follow) glides this long
# The close-up of the last throw or roll (left, right, bottom, top: fractions of the window):
# the die just thrown is legible (a paper d8's top about 60 px across at 1280x720) whatever
# the main camera shows. At the right, under the first seat panels and over the choices
# column, where it hides the table least; off on the game-over screen and under help.
INSET = (0.67, 0.99, 0.42, 0.72)
INSET_FRAME_PX, INSET_FRAME_COLOUR = 2, (0.96, 0.95, 0.9, 1.0)
# A roll of several dice is shown die by die, each in a cell of the inset seen from above
# (framing all of a tray's dice at once showed a 16 mm d6 18-20 px wide); up to this many.
INSET_CELLS = 8


def inset_cells(n: int) -> list[tuple[float, float, float, float]]:
    """The inset's cells (left, right, bottom, top in window fractions) for n dice, in
    reading order: one row of up to four, else two rows."""
    cols = n if n <= 4 else math.ceil(n / 2)
    rows = math.ceil(n / cols)
    w, h = (INSET[1] - INSET[0]) / cols, (INSET[3] - INSET[2]) / rows
    return [(INSET[0] + c * w, INSET[0] + (c + 1) * w, INSET[3] - (r + 1) * h, INSET[3] - r * h)
            for k in range(n) for r, c in [divmod(k, cols)]]
MAX_CHOICES = 10  # buttons in the choices column; a longer list pages (the last says 'more')
MORE = object()  # the `arm` of the "more choices" line (nothing a game arms)


@dataclass(frozen=True)
class Binding:
    event: str  # Panda3D event name
    method: str  # window method called with `args`
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
    Binding("wheel_up", "zoom_in", "Mouse wheel: zoom"),
    Binding("wheel_down", "zoom_out", ""),
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
    Binding("r", "restart", "R: start again (when the game is over)"),
    Binding("f12", "save_picture", "F12: save a picture of the window (tabletop-*.png here)"),
    Binding("f1", "toggle_help", "F1 or H: this help"),
    Binding("h", "toggle_help", ""),
    Binding("control-q", "quit", "Ctrl+Q: quit"),
)


@dataclass
class Choice:
    """One line of the choices column: an engine action to apply, or a game-specific
    `arm` (a die to throw, a piece to place) the game's window handles."""

    label: str
    action: Any | None = None
    arm: Any | None = None


@dataclass
class Running:
    """An animation being shown: started at `start` (s, perf_counter), after `lead` s of
    wind-up; `on_done` runs when it is over (a roll reaches the engine then)."""

    anim: Any
    start: float
    lead: float = 0.0
    on_done: Callable[[], None] | None = None


class GameWindow:
    """The shared window. `session` plays a game (its `state`, `players`, `step`,
    `is_bot_turn()`, `bot_action()`, `legal()`, `apply(action)`, `player_name(seat)`,
    `close()`); `replay` (logged steps, with the digests the log recorded after each) makes
    it a viewer. Subclasses fill in the hooks."""

    GAME_TITLE = "tabletop"
    GAME_BINDINGS: tuple[Binding, ...] = ()

    def __init__(self, session: Any, replay: list[Any] | None = None,
                 replay_digests: list[str | None] | None = None,
                 size: tuple[int, int] = WINDOW_SIZE, title: str | None = None,
                 software: bool = False) -> None:
        configure_panda(software=software)
        from direct.showbase.ShowBase import ShowBase
        from panda3d.core import WindowProperties, loadPrcFileData

        title = title or f"tabletop: {self.GAME_TITLE}"
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
        self.follow: str | None = None
        self.queue: list[Running] = []
        self.running: Running | None = None
        self.log_lines: list[str] = []
        self.choices: list[Choice] = []  # the choices shown (one page of all_choices)
        self.all_choices: list[Choice] = []
        self.page = 0
        self.message = ""
        self.restarts = 0
        self._orbit_from: tuple[float, float] | None = None
        self._pan_from: tuple[float, float] | None = None
        self._bot: threading.Thread | None = None
        self._bot_result: list[Any] = []
        self._replay_next = 0.0
        self._step_requested = False
        self._pointer: tuple[float, float] | None = None
        self._last_mouse: tuple[float, float] | None = None
        self._banner_until = 0.0
        self._cleaned = False
        self._button_calls: list[Callable[[], None]] = []
        self.init_game()
        self._seen_seat = self.viewer_seat()
        self.camera = OrbitCamera()  # the seat's view once the scene is there (setup)
        self._shown = self.camera  # the camera the last frame was drawn from
        self._glide_from: OrbitCamera | None = None  # a change of view under way
        self._glide_t0 = 0.0
        self.setup()

    @property
    def bindings(self) -> tuple[Binding, ...]:
        return (*COMMON_BINDINGS, *self.GAME_BINDINGS)

    # -- hooks: what a game fills in ----------------------------------------------------------

    def init_game(self) -> None:
        """Game fields set before the scene is made (selections, gesture settings)."""

    def make_scene(self) -> Any:
        """The game's scene; it has a Panda3D `root` and an `overlay` node for marks."""
        raise NotImplementedError

    def sync_scene(self) -> None:
        """Put every piece where the engine's state says (after animations, on start)."""
        raise NotImplementedError

    def thrower_camera(self, seat: int) -> OrbitCamera:
        raise NotImplementedError

    def top_camera(self, aspect: float) -> OrbitCamera:
        raise NotImplementedError

    def status_text(self) -> str:
        """The top-left lines: the game, the score, who acts and what they decide."""
        return self.GAME_TITLE

    def panels(self) -> list[tuple[str, tuple[float, float, float]]]:
        """One text per seat (or none) and its colour, shown down the sides."""
        return []

    def prompt_lines(self) -> list[str]:
        return [self.message] if self.message else []

    def make_choices(self) -> list[Choice]:
        """The choices column for a person to act; the default lists every legal action."""
        s = self.session
        return [Choice(s.state.action_to_string(a), action=a) for a in s.legal()]

    def draw_overlay(self) -> None:
        """Marks on the table for the decision at hand (selection rings, targets)."""

    def click(self, pos: tuple[float, float]) -> None:
        """A left click at window position `pos` while a person is to act."""

    def show_anim(self, anim: Any, t: float) -> bool:
        """Pose the scene for time t (s) into `anim`; True when it is over."""
        return True

    def begin_anim(self, running: Running) -> None:
        """An animation is about to be shown."""

    def outcome_anims(self, out: Any) -> list[Any]:
        return list(getattr(out, "anims", []))

    def last_moved(self) -> str | None:
        """The piece the F key follows."""
        return None

    def piece_position(self, name: str) -> tuple[float, float, float] | None:
        return None

    def inset_points(self) -> list[tuple[float, float, float]]:
        """Where the pieces of the last throw or roll are: the close-up inset frames them
        (none: no inset). By default the piece F follows."""
        name = self.last_moved()
        where = self.piece_position(name) if name is not None else None
        return [where] if where is not None else []

    def inset_die_size(self) -> float:
        """A thrown die's width across (m), for framing the close-up."""
        return 0.07

    def new_session(self) -> Any:
        """A fresh game with the same players and options (the 'start again' button)."""
        raise NotImplementedError

    def arm(self, choice: Choice) -> None:
        """A choice that arms a game-specific gesture (a die to throw)."""

    def result_text(self) -> str:
        st = self.session.state
        returns = list(st.returns())
        best = max(returns) if returns else 0.0
        winners = [i for i, r in enumerate(returns) if r == best] if best > 0 else []
        if not winners:
            return "no winner"
        if len(winners) == 1:
            return f"{self.session.player_name(winners[0])} wins"
        return "draw: " + ", ".join(self.session.player_name(w) for w in winners)

    # -- setup / cleanup ----------------------------------------------------------------------

    def setup(self) -> None:
        base = self.base
        self.scene = self.make_scene()
        self.scene.flatten_static()  # fixed geometry in few pieces: frames per second
        self.scene.root.reparentTo(base.render)
        self.camera = self.thrower_camera(self._seen_seat)
        base.setBackgroundColor(*BACKGROUND)
        base.camLens.setNearFar(0.02, 30.0)
        for b in self.bindings:
            base.accept(b.event, getattr(self, b.method), list(b.args))
        base.accept("window-event", self._on_window_event)
        self._make_hud()
        self._make_inset()
        self.sync_scene()
        self.refresh()
        base.taskMgr.add(self._frame, "tabletop-frame")

    def _make_inset(self) -> None:
        from panda3d.core import Camera, NodePath, PerspectiveLens

        lens = PerspectiveLens()
        lens.setNearFar(0.01, 30.0)
        node = Camera("inset-camera")
        node.setLens(lens)
        self._inset_np = self.base.render.attachNewNode(node)
        self._inset_lens = lens
        # A pale frame round it: a region a little larger that only clears (its camera
        # looks at an empty scene), so the close-up does not read as part of the table.
        w, h = self.win_size()
        fx, fy = INSET_FRAME_PX / w, INSET_FRAME_PX / h
        frame = self.base.win.makeDisplayRegion(INSET[0] - fx, INSET[1] + fx, INSET[2] - fy,
                                                INSET[3] + fy)
        frame.setSort(19)
        frame.setClearColorActive(True)
        frame.setClearColor(INSET_FRAME_COLOUR)
        frame.setCamera(NodePath("inset-frame").attachNewNode(Camera("inset-frame-camera")))
        frame.setActive(False)
        self._inset_frame = frame
        region = self.base.win.makeDisplayRegion(*INSET)
        region.setSort(20)
        region.setClearColorActive(True)
        region.setClearColor(BACKGROUND)
        region.setClearDepthActive(True)
        region.setCamera(self._inset_np)
        region.setActive(False)
        self._inset_region = region
        self.inset_camera: OrbitCamera | None = None  # the close-up shown, None when off
        # The cells of a roll of several dice: a region and a camera each.
        self._cell_cams: list[tuple[Any, Any, Any]] = []  # (region, camera node, lens)
        for _k in range(INSET_CELLS):
            cell_lens = PerspectiveLens()
            cell_lens.setNearFar(0.01, 30.0)
            cell_node = Camera("inset-cell-camera")
            cell_node.setLens(cell_lens)
            cell_np = self.base.render.attachNewNode(cell_node)
            cell = self.base.win.makeDisplayRegion(*INSET)
            cell.setSort(21)
            cell.setClearColorActive(True)
            cell.setClearColor(BACKGROUND)
            cell.setClearDepthActive(True)
            cell.setCamera(cell_np)
            cell.setActive(False)
            self._cell_cams.append((cell, cell_np, cell_lens))
        # What the inset shows: (camera, cell in window fractions, cell size px) per die of
        # the last roll in inset_points' order, or one camera framing them all.
        self.inset_views: list[tuple[OrbitCamera, tuple[float, float, float, float],
                                     tuple[int, int]]] = []

    def cleanup(self) -> None:
        if self._cleaned:
            return
        self._cleaned = True
        base = self.base
        base.taskMgr.remove("tabletop-frame")
        base.ignoreAll()
        base.win.removeDisplayRegion(self._inset_region)
        base.win.removeDisplayRegion(self._inset_frame)
        for cell, _np, _lens in self._cell_cams:
            base.win.removeDisplayRegion(cell)
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
        """Nothing animating (pieces or the camera) and no bot thinking."""
        return (self.running is None and not self.queue and self._bot is None
                and self._glide_from is None)

    # -- camera ---------------------------------------------------------------------------------

    def view_thrower(self) -> None:
        self.follow = None
        self._glide()
        self.camera = self.thrower_camera(self.viewer_seat())

    def view_top(self) -> None:
        self.follow = None
        w, h = self.win_size()
        self._glide()
        self.camera = self.top_camera(w / h)

    def view_follow(self) -> None:
        target = self.last_moved()
        where = self.piece_position(target) if target is not None else None
        if target is not None and where is not None:
            self.follow = target
            self._glide()
            self.camera = follow_view(where, self.camera.heading)

    def _glide(self) -> None:
        """The view about to be set is reached in GLIDE_S from the one on screen
        (`CameraMove`); `self.camera` is the view aimed at, which picking scripts use."""
        self._glide_from = self._shown
        self._glide_t0 = time.perf_counter()

    def zoom_in(self) -> None:
        self.camera = self.camera.zoom(0.9)

    def zoom_out(self) -> None:
        self.camera = self.camera.zoom(1 / 0.9)

    def on_right_down(self, pos: tuple[float, float] | None = None) -> None:
        self._orbit_from = pos or self.mouse()

    def on_right_up(self, pos: tuple[float, float] | None = None) -> None:
        self._orbit_from = None

    def on_middle_down(self, pos: tuple[float, float] | None = None) -> None:
        self._pan_from = pos or self.mouse()

    def on_middle_up(self, pos: tuple[float, float] | None = None) -> None:
        self._pan_from = None

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
        self._pointer = pos
        if self._orbit_from is not None:
            dx, dy = pos[0] - self._orbit_from[0], pos[1] - self._orbit_from[1]
            self.camera = self.camera.orbit(-dx * 120.0, dy * 60.0)
            self._orbit_from = pos
        if self._pan_from is not None:
            dx, dy = pos[0] - self._pan_from[0], pos[1] - self._pan_from[1]
            self.camera = self.camera.pan(-dx * 0.6, -dy * 0.6)
            self._pan_from = pos

    # -- keys -------------------------------------------------------------------------------

    def choose(self, index: int) -> None:
        if not self.human_to_act() or not 0 <= index < len(self.choices):
            return
        choice = self.choices[index]
        if choice.arm is MORE:
            self.page += 1
            self._show_page()
            self.refresh_texts()
        elif choice.arm is not None:
            self.arm(choice)
        elif choice.action is not None:
            self.apply(choice.action)

    def press_button(self, index: int) -> None:
        """A click on the index-th button of the choices column."""
        if 0 <= index < len(self._button_calls):
            self._button_calls[index]()

    def cancel(self) -> None:
        self.message = ""
        if self.idle():
            self.sync_scene()
        self.refresh()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self.refresh()

    def step_once(self) -> None:
        self._step_requested = True

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
        if self.show_help:
            self._help.show()
        else:
            self._help.hide()

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
        self.page = 0
        if getattr(out, "text", None):
            who = self.session.player_name(out.player) if out.player >= 0 else "dice"
            self.log_lines.append(f"{who}: {out.text}")
        self.show_events(list(getattr(out, "events", [])))
        now = time.perf_counter()
        for anim in self.outcome_anims(out):
            self.queue.append(Running(anim, now, self.anim_lead(anim, bot)))
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
            self._banner.setText("\n".join(wrap(e, 80) for e in news[-3:]))
            self._banner_until = time.perf_counter() + 4.0

    def anim_lead(self, anim: Any, bot: bool) -> float:
        return 0.0

    def think(self) -> Any:
        """What the thread does on a bot's turn (the game's own chance steps may add to it)."""
        return self.session.bot_action()

    def bot_turn(self) -> bool:
        return bool(self.session.is_bot_turn())

    def take_result(self, result: Any) -> None:
        """The thread's answer: a bot's action by default."""
        self.apply(result, bot=True)

    def replay_step(self, item: Any) -> None:
        """Apply one logged step (an action by default)."""
        self.apply(item, bot=True)

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
        self._advance_animation(now)
        if now > self._banner_until and self._banner.getText():
            self._banner.setText("")
        if self.running is None and not self.queue:
            self._next_turn(now)
        if self.follow is not None:
            p = self.piece_position(self.follow)
            if p is not None:
                self.camera = OrbitCamera(target=(p[0], p[1], max(0.0, p[2])),
                                          heading=self.camera.heading, pitch=self.camera.pitch,
                                          distance=self.camera.distance, fov=self.camera.fov)
        shown = self.camera
        if self._glide_from is not None:
            t = now - self._glide_t0
            move = CameraMove(self._glide_from, self.camera, GLIDE_S)
            if move.finished(t):
                self._glide_from = None
            else:
                shown = move.at(t)
        self._shown = shown
        apply_camera(self.base.camera, self.base.camLens, shown, self.win_size())
        self._update_inset()
        return int(task.cont)

    def inset_size(self) -> tuple[int, int]:
        w, h = self.win_size()
        return (round(w * (INSET[1] - INSET[0])), round(h * (INSET[3] - INSET[2])))

    def _update_inset(self) -> None:
        points = self.inset_points()
        for cell, _np, _lens in self._cell_cams:
            cell.setActive(False)
        if not points or self.show_help or self.session.state.is_terminal():
            self.inset_camera = None
            self.inset_views = []
            self._inset_region.setActive(False)
            self._inset_frame.setActive(False)
            return
        size = self.inset_size()
        self.inset_camera = closeup_view(points, self.inset_die_size(), size[0] / size[1])
        self._inset_frame.setActive(True)
        if len(points) == 1 or len(points) > INSET_CELLS:  # one die, or too many for cells
            apply_camera(self._inset_np, self._inset_lens, self.inset_camera, size)
            self._inset_region.setActive(True)
            self.inset_views = [(self.inset_camera, INSET, size)]
            return
        self._inset_region.setActive(False)
        w, h = self.win_size()
        self.inset_views = []
        for point, box, (cell, cam_np, lens) in zip(points, inset_cells(len(points)),
                                                    self._cell_cams, strict=False):
            cell_size = (max(1, round(w * (box[1] - box[0]))), max(1, round(h * (box[3] - box[2]))))
            cam = die_view(point, self.inset_die_size(), cell_size[0] / cell_size[1])
            cell.setDimensions(*box)
            apply_camera(cam_np, lens, cam, cell_size)
            cell.setActive(True)
            self.inset_views.append((cam, box, cell_size))

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
                    self.replay_step(self.replay[k])
                    self._check_replayed(k)
                    self._replay_next = now + REPLAY_PAUSE_S / self.speed
            return
        if not self.bot_turn() or self.paused:
            return
        if self._bot is None:
            self._bot_result = []

            def think() -> None:
                try:
                    self._bot_result.append(self.think())
                except Exception as exc:  # shown in the window; the bot's seat pauses
                    self._bot_result.append(exc)

            self._bot = threading.Thread(target=think, daemon=True)
            self._bot.start()
            self.message = self.thinking_text()
            self.refresh_texts()
        elif not self._bot.is_alive():
            self._bot.join()
            self._bot = None
            result = self._bot_result[0] if self._bot_result else None
            if isinstance(result, Exception):
                self.paused = True
                self.message = f"the bot failed ({type(result).__name__}: {result}); paused"
                self.log_lines.append(self.message)
                self.refresh_texts()
            elif result is not None:
                self.take_result(result)

    def thinking_text(self) -> str:
        s = self.session
        return f"{s.player_name(s.state.current_player())} is thinking..."

    def _check_replayed(self, k: int) -> None:
        s = self.session
        logged = self.replay_digests[k] if k < len(self.replay_digests) else None
        if logged is not None and s.step == k + 1 and digest(s.state) != logged:
            # Another machine's or version's physics: say so, keep showing ours.
            self.log_lines.append(f"step {k + 1}: this physics gives another table than the "
                                  "log's; showing this one")

    def _advance_animation(self, now: float) -> None:
        if self.running is None:
            if not self.queue:
                return
            self.running = self.queue.pop(0)
            self.running.start = now
            self.begin_anim(self.running)
        r = self.running
        assert r is not None
        t = (now - r.start) * self.speed - r.lead
        done = t >= 0 and self.show_anim(r.anim, t)
        if done:
            self.running = None
            if r.on_done is not None:
                r.on_done()
            if self.running is None and not self.queue:
                self.sync_scene()
                self.refresh()

    # -- HUD ------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the choices, the overlay marks and the HUD text for the current decision."""
        seat = self.viewer_seat()
        if seat != self._seen_seat:  # hot-seat: the next person sits down at their edge
            self._seen_seat = seat
            if self.replay is None:
                self.view_thrower()
        self.all_choices = (self.make_choices()
                            if self.human_to_act() and not self.session.state.is_terminal()
                            else [])
        self._show_page()
        self.scene.clear_overlay()
        self.draw_overlay()
        self.refresh_texts()

    def _show_page(self) -> None:
        """`choices`: all of them, or one page of MAX_CHOICES - 1 and a line for the next."""
        everything = self.all_choices
        if len(everything) <= MAX_CHOICES:
            self.page = 0
            self.choices = list(everything)
            return
        per = MAX_CHOICES - 1
        pages = -(-len(everything) // per)
        self.page %= pages
        self.choices = [*everything[self.page * per:(self.page + 1) * per],
                        Choice(f"more... (page {self.page + 1} of {pages})", arm=MORE)]

    def refresh_texts(self) -> None:
        mode = "  [replay]" if self.replay is not None else ""
        paused = "  [paused]" if self.paused else ""
        speed = f"  speed x{self.speed:g}" if self.speed != 1.0 else ""
        self._status.setText(self.status_text() + mode + paused + speed)
        panels = self.panels()
        for i, label in enumerate(self._panels):
            if i < len(panels):
                text, colour = panels[i]
                label.setText(text)
                label["fg"] = (*colour, 1)
                label.show()
            else:
                label.hide()
        self._log.setText("\n".join(wrap(line, 70) for line in self.log_lines[-9:]))
        labels = [f"{(i + 1) % 10}  {c.label}" for i, c in enumerate(self.choices)]
        self._button_calls = [functools.partial(self.choose, i) for i in range(len(self.choices))]
        self._button_calls += self.extra_buttons(labels)
        for i, button in enumerate(self._buttons):
            if i < len(labels):
                button["text"] = labels[i]
                button.resetFrameSize()
                button.show()
            else:
                button.hide()
        self._prompt.setText("\n".join(wrap(line, 60) for line in self.prompt_lines()[-8:]))
        over = self.session.state.is_terminal() and self.replay is None
        if self.session.state.is_terminal():
            self._over.setText(f"Game over: {self.result_text()}")
            self._over.show()
        else:
            self._over.hide()
        if over:
            self._again.show()
        else:
            self._again.hide()

    def extra_buttons(self, labels: list[str]) -> list[Callable[[], None]]:
        """Buttons after the choices (a game's 'pass'); append their labels to `labels`."""
        return []

    def _make_hud(self) -> None:
        from direct.gui import DirectGuiGlobals as DGG
        from direct.gui.DirectButton import DirectButton
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        base = self.base
        fg = (0.96, 0.95, 0.9, 1)
        shadow = (0, 0, 0, 0.8)
        self._status = OnscreenText(text="", pos=(-1.74, 0.93), scale=0.045, fg=fg, shadow=shadow,
                                    align=TextNode.ALeft, mayChange=True, parent=base.aspect2d)
        # Seat panels: down the left side, then the right (up to 8 seats).
        self._panels = []
        for i in range(8):
            left = i % 2 == 0
            self._panels.append(OnscreenText(
                text="", pos=(-1.74 if left else 1.74, 0.78 - 0.3 * (i // 2)), scale=0.034,
                fg=fg, shadow=shadow, align=TextNode.ALeft if left else TextNode.ARight,
                mayChange=True, parent=base.aspect2d))
        self._log = OnscreenText(text="", pos=(-1.74, -0.52), scale=0.032, fg=fg, shadow=shadow,
                                 align=TextNode.ALeft, mayChange=True, parent=base.aspect2d)
        self._banner = OnscreenText(text="", pos=(0, 0.8), scale=0.05, fg=(1, 1, 1, 1),
                                    shadow=shadow, align=TextNode.ACenter, mayChange=True,
                                    parent=base.aspect2d)
        # The choices as buttons down the right side: click one, or press its number key.
        self._buttons = []
        for i in range(MAX_CHOICES + 2):
            self._buttons.append(DirectButton(
                text="", scale=0.036, pos=(1.72, 0, -0.16 - 0.064 * i), parent=base.aspect2d,
                text_align=TextNode.ARight, text_fg=(1.0, 0.95, 0.75, 1), relief=DGG.FLAT,
                frameColor=(0.05, 0.05, 0.08, 0.7), pad=(0.3, 0.25), command=self.press_button,
                extraArgs=[i]))
            self._buttons[-1].hide()
        self._prompt = OnscreenText(text="", pos=(-0.3, -0.7), scale=0.036,
                                    fg=(1.0, 0.92, 0.6, 1), shadow=shadow, align=TextNode.ALeft,
                                    mayChange=True, parent=base.aspect2d)
        self.help_text = "Controls\n\n" + "\n".join(b.help for b in self.bindings if b.help)
        self._help = OnscreenText(text=self.help_text, pos=(0, 0.7), scale=0.038, fg=fg,
                                  bg=(0.05, 0.05, 0.08, 0.85), shadow=shadow,
                                  align=TextNode.ACenter, mayChange=True, parent=base.aspect2d)
        self._help.hide()
        self._over = OnscreenText(text="", pos=(0, 0.15), scale=0.085, fg=(1, 0.9, 0.5, 1),
                                  bg=(0.05, 0.05, 0.08, 0.8), shadow=shadow,
                                  align=TextNode.ACenter, mayChange=True, parent=base.aspect2d)
        self._over.hide()
        self._again = DirectButton(text="Start again (R)", scale=0.06, pos=(0, 0, -0.02),
                                   parent=base.aspect2d, relief=DGG.FLAT,
                                   text_fg=(1.0, 0.95, 0.75, 1), frameColor=(0.1, 0.3, 0.15, 0.9),
                                   pad=(0.4, 0.3), command=self.restart)
        self._again.hide()

    # -- helpers ----------------------------------------------------------------------------

    def human_to_act(self) -> bool:
        s = self.session
        return (self.replay is None and not s.state.is_terminal() and not self.bot_turn()
                and self.running is None and not self.queue)

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
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.hasMouse():
            return None
        return (float(mw.getMouseX()), float(mw.getMouseY()))

    def win_size(self) -> tuple[int, int]:
        win = self.base.win
        if win is None:
            return self.size
        return (max(1, win.getXSize()), max(1, win.getYSize()))

    def ray(self, pos: tuple[float, float]) -> tuple[np.ndarray, np.ndarray] | None:
        """The line of sight through window position `pos`: origin and unit direction."""
        from panda3d.core import Point2, Point3

        near, far = Point3(), Point3()
        apply_camera(self.base.camera, self.base.camLens, self.camera, self.win_size())
        if not self.base.camLens.extrude(Point2(*pos), near, far):
            return None
        render = self.base.render
        n = render.getRelativePoint(self.base.camera, near)
        f = render.getRelativePoint(self.base.camera, far)
        origin = np.array([n[0], n[1], n[2]])
        d = np.array([f[0], f[1], f[2]]) - origin
        return origin, d / np.linalg.norm(d)

    def ray_plane(self, pos: tuple[float, float], z: float) -> tuple[float, float] | None:
        """Where the line of sight through `pos` meets the horizontal plane at height z."""
        ray = self.ray(pos)
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

    def pick_sphere(self, pos: tuple[float, float],
                    spheres: dict[Any, tuple[tuple[float, float, float], float]]) -> Any:
        """The nearest of `spheres` (key -> centre, radius in m) the line of sight through
        `pos` meets, or None."""
        ray = self.ray(pos)
        if ray is None:
            return None
        origin, direction = ray
        best, best_t = None, math.inf
        for key, (centre, r) in spheres.items():
            oc = origin - np.asarray(centre, dtype=float)
            b = float(oc @ direction)
            disc = b * b - (float(oc @ oc) - r * r)
            if disc < 0:
                continue
            t = -b - math.sqrt(disc)
            if 0 < t < best_t:
                best, best_t = key, t
        return best

    def screen_of(self, point: tuple[float, float, float]) -> tuple[float, float] | None:
        """Window coordinates (-1..1, y up) where a table point is seen: what a script
        passes to the pointer handlers to touch it."""
        w, h = self.win_size()
        px = self.camera.project(point, (w, h))
        if px is None:
            return None
        return (2 * px[0] / w - 1, 1 - 2 * px[1] / h)

    def _on_window_event(self, window: Any) -> None:
        if window is not None and window.isClosed():
            self.cleanup()
        self.base.windowEvent(window)  # ShowBase's own: lens aspect on resize, exit on close


def wrap(text: str, width: int) -> str:
    """`text` broken into lines of at most `width` characters (continuations indented)."""
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = "    " + w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return "\n".join(lines)
