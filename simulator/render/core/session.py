"""What every game's session gives the window, whatever the game (plain Python, no
Panda3D): the result of one step, the state and step count read through the game's match,
and a rotation matrix as the scene's quaternion."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.core.match import Match


@dataclass
class StepResult:
    """What one step of a window's game did (every game's session gives these): the action
    (None for a roll), the engine's words, the seat (-1 for a roll) and the animations in
    order. The physics' resting pose of a die is `simulator.physics.world.StepResult`."""

    action: Any
    text: str
    player: int
    events: list[str]
    anims: list[Any] = field(default_factory=list)


class OnMatch:
    """A window's session whose game is played through a `rules.core.match.Match`: its
    state and its step count are the match's (both sessions, and the net window's)."""

    match: Match

    @property
    def state(self) -> Any:  # Any: each game's window reads its own state's fields
        return self.match.state

    @state.setter
    def state(self, value: Any) -> None:
        self.match.state = value

    @property
    def step(self) -> int:
        """The steps taken."""
        return self.match.steps

    @step.setter
    def step(self, value: int) -> None:
        self.match.steps = value


def quat_of(rot: np.ndarray) -> tuple[float, float, float, float]:
    from scipy.spatial.transform import Rotation

    q = Rotation.from_matrix(rot).as_quat()  # (x, y, z, w)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))
