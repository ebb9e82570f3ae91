"""Turns the window does not take from a person: a bot's decision worked out in a thread
while the frames go on, and a log's steps replayed at a pace (with a check that this
machine's physics gives the table the log recorded).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rules.core.runner import digest

REPLAY_PAUSE_S = 0.6  # s between replayed steps at speed 1


class BotThread:
    """One decision at a time, off the frame loop: `start(think)`, then `poll()` each frame
    until it answers (an exception the bot raised is the answer, for the window to show)."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._result: list[Any] = []

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def start(self, think: Callable[[], Any]) -> None:
        self._result = []

        def run() -> None:
            try:
                self._result.append(think())
            except Exception as exc:  # shown in the window; the bot's seat pauses
                self._result.append(exc)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def poll(self) -> tuple[bool, Any]:
        """(True, the answer) once the thread is done, else (False, None)."""
        if self._thread is None or self._thread.is_alive():
            return False, None
        self._thread.join()
        self._thread = None
        return True, self._result[0] if self._result else None


class Replay:
    """A log's steps and the state digests it recorded after each, shown one step every
    REPLAY_PAUSE_S / speed, or one at a time on request while paused."""

    def __init__(self, steps: list[Any], digests: list[str | None]) -> None:
        self.steps = steps
        self.digests = digests
        self.next_at = 0.0
        self.step_requested = False

    def due(self, now: float, paused: bool) -> bool:
        """Is the next step to be shown now (and if so, the request is used up)?"""
        if paused and not self.step_requested:
            return False
        if self.step_requested or now >= self.next_at:
            self.step_requested = False
            return True
        return False

    def shown(self, now: float, speed: float) -> None:
        self.next_at = now + REPLAY_PAUSE_S / speed

    def mismatch(self, k: int, state: Any, step: int) -> str | None:
        """A line to log when the state after step k is not the table the log recorded
        (another machine's or version's physics), else None."""
        logged = self.digests[k] if k < len(self.digests) else None
        if logged is not None and step == k + 1 and digest(state) != logged:
            return f"step {k + 1}: this physics gives another table than the log's; showing this one"
        return None
