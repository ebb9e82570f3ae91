"""What happens between a person's actions, a part of `GameWindow`: the animations queued
and the one being shown, then the next turn that is not a person's to take: a replayed step
at the replay's pace, or a bot's decision worked out in a thread (`turns.py`).

It plays through the window's hooks (`begin_anim`, `show_anim`, `replay_step`, `think`,
`take_result`, ...) and its feel (`pace`, `heard`): the part keeps the order, the game
says what each step shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from simulator.render.core.feel import Feel
from simulator.render.core.turns import BotThread, Replay


@dataclass
class Running:
    """An animation being shown: started at `start` (s, perf_counter), after `lead` s of
    wind-up; `on_done` runs when it is over (a roll reaches the engine then)."""

    anim: Any
    start: float
    lead: float = 0.0
    on_done: Callable[[], None] | None = None
    bot: bool = False  # a bot's (or a replay's): fast-forward plays it faster


class FlowsFor(Protocol):
    """What the turn flow reads and calls of the window it is a part of (`GameWindow`: its
    state and feel, and the hooks a game fills in, `hooks.py`)."""

    session: Any
    replay: Replay | None
    paused: bool
    message: str
    log_lines: list[str]
    feel: Feel

    def begin_anim(self, running: Running) -> None: ...

    def show_anim(self, anim: Any, t: float) -> bool: ...

    def sync_scene(self) -> None: ...

    def refresh(self) -> None: ...

    def refresh_texts(self) -> None: ...

    def replay_step(self, item: Any) -> None: ...

    def _check_replayed(self, k: int) -> None: ...

    def bot_turn(self) -> bool: ...

    def think(self) -> Any: ...

    def thinking_text(self) -> str: ...

    def take_result(self, result: Any) -> None: ...


class TurnLoop:
    """`queue` holds the animations still to show, `running` the one on screen; `bot` the
    thread a bot's decision (or a game's own chance step) is worked out in."""

    def __init__(self, window: FlowsFor) -> None:
        self.window = window
        self.queue: list[Running] = []
        self.running: Running | None = None
        self.bot = BotThread()

    @property
    def animating(self) -> bool:
        return self.running is not None or bool(self.queue)

    def advance(self, now: float) -> None:
        """Pose the animation on screen for `now` (s, perf_counter), the next one once it is
        over; the scene is put where the engine says after the last."""
        w = self.window
        if self.running is None:
            if not self.queue:
                return
            self.running = self.queue.pop(0)
            self.running.start = now
            w.begin_anim(self.running)
        r = self.running
        assert r is not None
        t = (now - r.start) * w.feel.pace(r) - r.lead
        done = t >= 0 and w.show_anim(r.anim, w.feel.heard(r, t))
        if done:
            self.running = None
            if r.on_done is not None:
                r.on_done()
            if self.running is None and not self.queue:
                w.sync_scene()
                w.refresh()

    def next_turn(self, now: float) -> None:
        """Nothing animating: the replay's next step when it is due, or the bot's turn (its
        thread started, or its answer taken)."""
        w = self.window
        s = w.session
        if s.state.is_terminal():
            return
        if w.replay is not None:
            if w.replay.due(now, w.paused) and s.step < len(w.replay.steps):
                k = s.step
                w.replay_step(w.replay.steps[k])
                w._check_replayed(k)
                w.replay.shown(now, w.feel.pace())
            return
        if not w.bot_turn() or w.paused:
            return
        if not self.bot.busy:
            self.bot.start(w.think)
            w.message = w.thinking_text()
            w.refresh_texts()
            return
        done, result = self.bot.poll()
        if not done:
            return
        if isinstance(result, Exception):
            w.paused = True
            w.message = f"the bot failed ({type(result).__name__}: {result}); paused"
            w.log_lines.append(w.message)
            w.refresh_texts()
        elif result is not None:
            w.take_result(result)
