"""The window's feel, a part `GameWindow` is composed of (`window.feel`): the dice's sounds,
the fast-forward for bot turns, and the settings remembered between runs.

- Sound (`sound.py`): the impacts of each animation's recorded playback are played as the
  animation reaches them (`heard`), at the volume setting; M mutes, `,` and `.` turn the
  volume down and up in tenths.
- Fast-forward (Tab; Shift+Tab picks its speed among `FAST_FORWARD_SPEEDS`): a bot's
  throws and rolls and a replay's steps play at that multiple of real speed, and so does a
  bot's wind-up and the replay's pause between steps (`pace`); a person's own throw plays
  at the normal speed. The HUD's top line says `fast-forward xN`.
- Settings (`settings.py`): `use_prefs` gives the window the run's `Remembered` settings;
  each change above is written to the file at once, a new window size once it has held
  for half a second, and F8 picks the shading the next start draws with (the running window's
  drawing path is fixed when it opens).

Everything a key does is a method here (a binding names it "feel.toggle_mute"), so scripts
and tests drive it as the keys do.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from simulator.render.core.settings import FAST_FORWARD_SPEEDS, SHADINGS, Remembered, Settings
from simulator.render.core.sound import SoundBoard

__all__ = ["Feel"]

SIZE_HOLD_S = 0.5  # s a new window size holds before it is remembered (not each step of a drag)


class FeelsFor(Protocol):
    """What the feel reads of the window it is a part of (`GameWindow`)."""

    base: Any
    speed: float
    replay: Any
    session: Any
    message: str

    def refresh_texts(self) -> None: ...

    def win_size(self) -> tuple[int, int]: ...

    def acting_seat(self) -> int: ...


class Feel:
    """The window's sound, fast-forward and settings; `window` is the window it is part of."""

    def __init__(self, window: FeelsFor) -> None:
        self.window = window
        self.fast_forward = False
        self.prefs: Remembered | None = None
        self._settings = Settings()
        self._sound: SoundBoard | None = None
        self._sounding: Any = None  # the Running whose impacts the board holds
        self._size_seen: tuple[tuple[int, int], float] | None = None

    # -- settings -------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.prefs.settings if self.prefs is not None else self._settings

    def use_prefs(self, prefs: Remembered) -> None:
        """Take the run's settings (volume, mute, fast-forward speed, shadows) and remember changes
        in their file; the window's size is watched each frame."""
        self.prefs = prefs
        if self._sound is not None:
            self._sound.volume, self._sound.mute = self.settings.volume, self.settings.mute
        shadows = getattr(self.window, "shadows", None)  # the window's, once its scene is there
        if shadows is not None:
            shadows.use(self.settings.shadows)
        self.window.base.taskMgr.add(self._watch_size, "tabletop-size")

    def _change(self, **fields: Any) -> str:
        """Set and remember `fields`; the line to show if the file could not be written."""
        if self.prefs is None:
            from dataclasses import replace

            self._settings = replace(self._settings, **fields)
            return ""
        problem = self.prefs.change(**fields)
        if problem:
            self.window.message = problem
        return problem

    def _watch_size(self, task: Any) -> int:
        if getattr(self.window, "_cleaned", False) or self.window.base.win is None:
            return int(task.done)
        size, now = self.window.win_size(), time.perf_counter()
        if size == self.settings.window_size:
            self._size_seen = None
        elif self._size_seen is None or self._size_seen[0] != size:
            self._size_seen = (size, now)
        elif now - self._size_seen[1] >= SIZE_HOLD_S:
            self._change(window_size=size)
            self._size_seen = None
        return int(task.cont)

    def next_shading(self) -> None:
        """F8: the shading the next start draws with (auto, pbr, gl, software in turn)."""
        k = SHADINGS.index(self.settings.shading)
        problem = self._change(shading=SHADINGS[(k + 1) % len(SHADINGS)])
        self.window.message = problem or f"the next start draws with --shading {self.settings.shading}"
        self.window.refresh_texts()

    # -- sound ----------------------------------------------------------------------------

    @property
    def sound(self) -> SoundBoard:
        if self._sound is None:
            self._sound = SoundBoard(self.window.base, self.settings.volume, self.settings.mute)
        return self._sound

    def heard(self, running: Any, t: float) -> float:
        """The sounds of `running` up to t s into it; t, for its pose (GameWindow's frame)."""
        board = self.sound
        if self._sounding is not running:
            self._sounding = running
            board.start(running.anim)
        board.tick(t)
        return t

    def toggle_mute(self) -> None:
        self._change(mute=not self.settings.mute)
        self.sound.mute = self.settings.mute
        self.window.refresh_texts()

    def volume_up(self) -> None:
        self._set_volume(self.settings.volume + 0.1)

    def volume_down(self) -> None:
        self._set_volume(self.settings.volume - 0.1)

    def _set_volume(self, v: float) -> None:
        problem = self._change(volume=round(min(1.0, max(0.0, v)), 2), mute=False)
        self.sound.volume, self.sound.mute = self.settings.volume, False
        self.window.message = problem or f"volume {round(self.settings.volume * 100)}%"
        self.window.refresh_texts()

    # -- fast-forward -----------------------------------------------------------------------

    def toggle_fast_forward(self) -> None:
        self.fast_forward = not self.fast_forward
        self.window.refresh_texts()

    def fast_forward_speed(self) -> None:
        """Shift+Tab: the next fast-forward speed (and fast-forward on)."""
        k = FAST_FORWARD_SPEEDS.index(self.settings.fast_forward)
        self._change(fast_forward=FAST_FORWARD_SPEEDS[(k + 1) % len(FAST_FORWARD_SPEEDS)])
        self.fast_forward = True
        self.window.refresh_texts()

    def pace(self, running: Any = None) -> float:
        """How many times real speed `running` plays at (None: the replay's pause): the
        speed setting, times the fast-forward for a bot's animation or a replay's."""
        bot = self.window.replay is not None or running is None or bool(getattr(running, "bot", False))
        return self.window.speed * (self.settings.fast_forward if self.fast_forward and bot else 1)

    def bot_acting(self) -> bool:
        """Is the seat acting now (or whose roll is being thrown) a bot's?"""
        seat = self.window.acting_seat()
        players = getattr(self.window.session, "players", ())
        return self.window.replay is not None or (0 <= seat < len(players) and players[seat] != "human")

    def speed_text(self) -> str:
        """The HUD's top line's tail: the speed, fast-forward, mute."""
        out = f"  speed x{self.window.speed:g}" if self.window.speed != 1.0 else ""
        if self.fast_forward:
            out += f"  fast-forward x{self.settings.fast_forward}"
        if self.settings.mute:
            out += "  [muted]"
        return out
