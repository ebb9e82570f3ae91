"""What a game's window fills in on the shared window (`window.GameWindow`, which is built
on this class): its scene, its cameras, what the HUD says, the choices of the decision at
hand, what a click on the table means, how its animations are shown, and what its turns
that are not a person's do. Each has a default here, or raises NotImplementedError where a
game must say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.flow import Running
from simulator.render.core.hud import Choice
from simulator.render.core.pins import Mark, Pin


class WindowHooks:
    """The hooks, read by the window and its parts (`flow.TurnLoop`, `pins.Pins`, the
    inset, the HUD)."""

    GAME_TITLE = "tabletop"
    session: Any
    message: str

    if TYPE_CHECKING:
        def apply(self, action: Any, bot: bool = False) -> Any: ...

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

    def view_moved(self) -> None:
        """The view aimed at changed (a zoom, an orbit, a pan, another view, the game's
        framing): the texts placed clear of what the view shows may be placed again."""

    def pinned_labels(self) -> Sequence[Pin]:
        """Texts pinned to table points (`pins.py`: each a point and its text, and its
        scale and ink where it names them). None by default. Asked again at each refresh
        and each time the view aimed at moves (Diceland's numbers lie toward the viewer:
        placed for the view of the last refresh, an orbit to the far side left them over
        their armies)."""
        return []

    def pinned_marks(self) -> Sequence[Mark]:
        """Table points marked in screen space over the pinned texts, each a small square
        of its colour (`pins.py`): pieces a pinned card would hide. None by default; asked
        when `pinned_labels` is."""
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

    # -- turns not a person's, and the buttons after the choices --------------------------

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

    def thinking_text(self) -> str:
        s = self.session
        return f"{s.player_name(s.state.current_player())} is thinking..."

    def extra_buttons(self, labels: list[str]) -> list[Callable[[], None]]:
        """Buttons after the choices (a game's 'pass'); append their labels to `labels`."""
        return []
