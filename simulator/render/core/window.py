"""The window every game shares: Panda3D set-up, the orbit camera and its bindings, the
input handlers, the frame loop and animation playback, and the glue to its parts, each in
its own module: the HUD with the choices column, F1 help and the game-over screen
(`hud.py`), the close-up inset (`inset.py`), picking by ray (`picking.py`), bots thinking in
a thread and replay stepping (`turns.py`).

A game's window is a subclass (`simulator/render/<game>_window.py`) that fills in the hooks
marked `# -- hooks` below: its scene, what the HUD says, the choices of the decision at
hand, what a click on the table means, and how its animations are shown. Input handlers take
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
from simulator.render.core.camera import CameraMove, OrbitCamera, follow_view
from simulator.render.core.feel import Feel
from simulator.render.core.hud import MORE, Choice, Hud, page_of, wrap
from simulator.render.core.inset import Inset, inset_size
from simulator.render.core.offscreen import (
    PATHS,
    RenderPath,
    RenderPathError,
    apply_camera,
    configure_panda,
    pbr_package_missing,
    software_rasterizer,
    start_pbr,
)
from simulator.render.core.sound import audio_prc as audio  # the sound library line
from simulator.render.core.turns import BotThread, Replay

__all__ = ["Binding", "Choice", "GameWindow", "Running", "wrap"]

WINDOW_SIZE = (1280, 720)
BACKGROUND = (0.16, 0.15, 0.14, 1)
GLIDE_S = 0.6  # s: a change of view (thrower's, top, follow) glides this long
PIN_SCALE = 0.056  # aspect2d units: a 20 px em at 720 px high, capitals 14 px
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
    Binding("tab", "toggle_fast_forward", "Tab: fast-forward bot turns; Shift+Tab: its speed (x2-x16)"),
    Binding("shift-tab", "fast_forward_speed", ""),
    Binding("m", "toggle_mute", "M: sound off or on; , / .: volume down / up"),
    Binding(",", "volume_down", ""),
    Binding(".", "volume_up", ""),
    Binding("f8", "next_shading", "F8: the shading the next start draws with"),
    Binding("r", "restart", "R: start again (when the game is over)"),
    Binding("f12", "save_picture", "F12: save a picture of the window (tabletop-*.png here)"),
    Binding("f1", "toggle_help", "F1 or H: this help"),
    Binding("h", "toggle_help", ""),
    Binding("control-q", "quit", "Ctrl+Q: quit"),
)


@dataclass
class Running:
    """An animation being shown: started at `start` (s, perf_counter), after `lead` s of
    wind-up; `on_done` runs when it is over (a roll reaches the engine then)."""

    anim: Any
    start: float
    lead: float = 0.0
    on_done: Callable[[], None] | None = None
    bot: bool = False  # a bot's (or a replay's): fast-forward plays it faster


class GameWindow(Feel):
    """The shared window. `session` plays a game (its `state`, `players`, `step`,
    `is_bot_turn()`, `bot_action()`, `legal()`, `apply(action)`, `player_name(seat)`,
    `close()`); `replay` (logged steps, with the digests the log recorded after each) makes
    it a viewer. Subclasses fill in the hooks.

    `shading` is how the window draws (`drawn_by` says which and why), the names of
    `tabletop render --shading`: "software" (Panda3D's tiny software renderer), "gl" (OpenGL,
    fixed-function shading), "pbr" (OpenGL with simplepbr), or "auto" (default; `software`
    True means "software"): pbr on a hardware GPU, gl on a rasterizer that runs on the CPU
    (Mesa's llvmpipe under Xvfb), where simplepbr drew the window at 4-6 frames/s and the
    window must hold 30. A path that cannot be had raises RenderPathError."""

    GAME_TITLE = "tabletop"
    GAME_BINDINGS: tuple[Binding, ...] = ()

    def __init__(self, session: Any, replay: list[Any] | None = None,
                 replay_digests: list[str | None] | None = None,
                 size: tuple[int, int] = WINDOW_SIZE, title: str | None = None,
                 software: bool = False, shading: str | None = None) -> None:
        shading = shading or ("software" if software else "auto")
        if shading not in PATHS:
            raise ValueError(f"shading must be one of {', '.join(PATHS)} (got {shading!r})")
        if shading == "pbr":
            why_not = pbr_package_missing()
            if why_not:
                raise RenderPathError(f"physically based shading: {why_not}")
        configure_panda(software=shading == "software")
        from direct.showbase.ShowBase import ShowBase
        from panda3d.core import WindowProperties, loadPrcFileData

        title = title or f"tabletop: {self.GAME_TITLE}"
        loadPrcFileData("tabletop-window", f"win-size {size[0]} {size[1]}\nwindow-title {title}\n{audio()}")
        self.base = ShowBase(windowType="onscreen")
        self.base.disableMouse()
        props = WindowProperties()
        props.setTitle(title)
        self.base.win.requestProperties(props)
        # Where the scene is drawn: the window, or simplepbr's buffer that the window shows
        # tone-mapped (`_start_pbr`); the close-up inset's regions go there too.
        self.scene_output: Any = self.base.win
        self.pbr_outputs: list[Any] = []
        try:
            self.drawn_by = self._drawing_path(shading)
        except RenderPathError:
            self.base.destroy()
            raise
        if self.drawn_by.name == "pbr":
            self._start_pbr()
        self.session = session
        self.replay = Replay(list(replay), list(replay_digests or [])) if replay is not None else None
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
        self.bot = BotThread()
        self._pointer: tuple[float, float] | None = None
        self._last_mouse: tuple[float, float] | None = None
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

    def _drawing_path(self, shading: str) -> RenderPath:
        """The path `shading` asks for, given the window Panda3D opened (class note)."""
        pipe = self.base.pipe
        interface = str(pipe.getInterfaceName())
        if interface != "OpenGL":
            if shading in ("gl", "pbr"):
                what = "physically based shading needs OpenGL" if shading == "pbr" else "OpenGL"
                raise RenderPathError(f"{what}: the window opened with {interface} "
                                      f"({pipe.getType().getName()})")
            return RenderPath("software", f"Panda3D's software renderer ({interface})")
        if shading == "software":  # p3tinydisplay missing: Panda3D fell back to OpenGL
            raise RenderPathError("the software renderer was asked for, but Panda3D opened the "
                                  f"window with OpenGL ({pipe.getType().getName()})")
        renderer = str(self.base.win.getGsg().getDriverRenderer())
        fixed = f"OpenGL {renderer} with fixed-function shading"
        if shading == "gl":
            return RenderPath("gl", fixed)
        why_not = pbr_package_missing()
        if shading == "auto" and why_not:
            return RenderPath("gl", f"{fixed}; no physically based shading: {why_not}")
        if shading == "auto" and software_rasterizer(renderer):
            return RenderPath("gl", f"{fixed} (a software rasterizer: physically based shading "
                                    "drew 4-6 frames/s there; --shading pbr asks for it)")
        return RenderPath("pbr", f"OpenGL {renderer} with physically based shading (simplepbr)")

    def _start_pbr(self) -> None:
        """simplepbr on the window's scene, stepped by the window's own task manager. It
        draws the scene into a float buffer and the window shows that buffer tone-mapped;
        `scene_output` is that buffer, so regions drawing the scene with other cameras (the
        inset) are tone-mapped with it: drawn straight into the window, simplepbr's shader
        wrote them in linear light (dark) with no tone mapping."""
        base = self.base
        engine = base.graphicsEngine
        before = set(engine.getWindows())
        start_pbr(base.render, base.win, base.cam, base.taskMgr)
        engine.openWindows()  # the buffer simplepbr made is listed once it is open
        self.pbr_outputs = [w for w in engine.getWindows() if w not in before]
        self.scene_output = next(
            w for w in self.pbr_outputs
            if any(r.getCamera() == base.cam for r in w.getDisplayRegions()))

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

    def pinned_labels(self) -> list[tuple[tuple[float, float, float], str]]:
        """Texts pinned to table points and drawn in screen space, facing the camera at
        PIN_SCALE (capitals 14 px at 720 px) whatever the view, each centred under its
        point (issue 37: names a player reads, not small type on the cloth). None by
        default."""
        return []

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
        if self.drawn_by.name == "pbr":
            self.scene.use_pbr()  # linear-light colours for simplepbr
        self.scene.root.reparentTo(base.render)
        self.camera = self.thrower_camera(self._seen_seat)
        base.setBackgroundColor(*BACKGROUND)
        base.camLens.setNearFar(0.02, 30.0)
        for b in self.bindings:
            base.accept(b.event, getattr(self, b.method), list(b.args))
        base.accept("window-event", self._on_window_event)
        self.help_text = ("Controls\n\n" + "\n".join(b.help for b in self.bindings if b.help)
                          + "\n\n" + wrap(f"Drawn by {self.drawn_by.detail}", 70))
        self.hud = Hud(base, self.help_text, self.press_button, self.restart)
        self.inset = Inset(base, BACKGROUND, self.win_size(), self.scene_output)
        self._pins: list[Any] = []  # OnscreenText of the pinned labels, made as needed
        self._pin_items: list[tuple[tuple[float, float, float], str]] = []
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
        self.scene.root.removeNode()
        # simplepbr's buffers: an OpenGL buffer left open aborts the interpreter at exit.
        for output in self.pbr_outputs:
            base.graphicsEngine.removeWindow(output)
        self.pbr_outputs = []
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
        return (self.running is None and not self.queue and not self.bot.busy
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
        self.page = 0
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
        self.hud.tick(now)
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
        self._place_pins(shown)
        self._update_inset()
        return int(task.cont)

    def _place_pins(self, cam: OrbitCamera) -> None:
        """Each pinned label where its point is seen from `cam` (hidden behind the camera,
        under the help and on the game-over screen)."""
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        while len(self._pins) < len(self._pin_items):
            self._pins.append(OnscreenText(
                text="", scale=PIN_SCALE, fg=(0.08, 0.07, 0.06, 1), bg=(0.98, 0.96, 0.9, 0.88),
                align=TextNode.ACenter, mayChange=True, parent=self.base.aspect2d))
        w, h = self.win_size()
        hidden = self.show_help or self.session.state.is_terminal()
        for k, node in enumerate(self._pins):
            at = None if hidden or k >= len(self._pin_items) else \
                picking.screen_of(cam, self._pin_items[k][0], (w, h))
            if at is None:
                node.hide()
                continue
            text = self._pin_items[k][1]
            if node.getText() != text:
                node.setText(text)
            node.setPos(at[0] * w / h, at[1] - PIN_SCALE * 0.8)  # its top at the point
            node.show()

    def inset_size(self) -> tuple[int, int]:
        return inset_size(self.win_size())

    @property
    def inset_camera(self) -> OrbitCamera | None:
        """The close-up shown (None when off)."""
        return self.inset.camera

    @property
    def inset_views(self) -> list[tuple[OrbitCamera, tuple[float, float, float, float],
                                        tuple[int, int]]]:
        return self.inset.views

    def _update_inset(self) -> None:
        """Off under help and on the game-over screen."""
        hidden = self.show_help or self.session.state.is_terminal()
        self.inset.update([] if hidden else self.inset_points(), self.inset_die_size(),
                          self.win_size())

    def _next_turn(self, now: float) -> None:
        s = self.session
        if s.state.is_terminal():
            return
        if self.replay is not None:
            if self.replay.due(now, self.paused) and s.step < len(self.replay.steps):
                k = s.step
                self.replay_step(self.replay.steps[k])
                self._check_replayed(k)
                self.replay.shown(now, self.pace())
            return
        if not self.bot_turn() or self.paused:
            return
        if not self.bot.busy:
            self.bot.start(self.think)
            self.message = self.thinking_text()
            self.refresh_texts()
            return
        done, result = self.bot.poll()
        if not done:
            return
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
        """After replayed step k: another machine's or version's physics gives another
        table than the log recorded; say so, keep showing ours."""
        if self.replay is not None:
            mismatch = self.replay.mismatch(k, self.session.state, self.session.step)
            if mismatch is not None:
                self.log_lines.append(mismatch)

    def _advance_animation(self, now: float) -> None:
        if self.running is None:
            if not self.queue:
                return
            self.running = self.queue.pop(0)
            self.running.start = now
            self.begin_anim(self.running)
        r = self.running
        assert r is not None
        t = (now - r.start) * self.pace(r) - r.lead
        done = t >= 0 and self.show_anim(r.anim, self.heard(r, t))
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
        self._pin_items = self.pinned_labels()
        self.all_choices = (self.make_choices()
                            if self.human_to_act() and not self.session.state.is_terminal()
                            else [])
        self._show_page()
        self.scene.clear_overlay()
        self.draw_overlay()
        self.refresh_texts()

    def _show_page(self) -> None:
        """`choices`: all of them, or one page and a line for the next (hud.page_of)."""
        self.choices, self.page = page_of(self.all_choices, self.page)

    def refresh_texts(self) -> None:
        mode = "  [replay]" if self.replay is not None else ""
        paused = "  [paused]" if self.paused else ""
        speed = self.speed_text()  # speed, fast-forward, mute (feel.py)
        labels = [f"{(i + 1) % 10}  {c.label}" for i, c in enumerate(self.choices)]
        self._button_calls = [functools.partial(self.choose, i) for i in range(len(self.choices))]
        self._button_calls += self.extra_buttons(labels)
        terminal = self.session.state.is_terminal()
        self.hud.show(self.status_text() + mode + paused + speed, self.panels(), self.log_lines,
                      labels, self.prompt_lines(), self.result_text() if terminal else None,
                      again=terminal and self.replay is None)

    def extra_buttons(self, labels: list[str]) -> list[Callable[[], None]]:
        """Buttons after the choices (a game's 'pass'); append their labels to `labels`."""
        return []

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
        return picking.mouse(self.base)

    def win_size(self) -> tuple[int, int]:
        win = self.base.win
        if win is None:
            return self.size
        return (max(1, win.getXSize()), max(1, win.getYSize()))

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

