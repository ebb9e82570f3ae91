"""What game-AI libraries need of a game and our engines offer through their packages:
integer action ids (`Vocabulary`: every action a game of a given setting can ever offer,
numbered once) and fixed-shape observation tensors (a game's `encode(state)`: named float32
arrays). Each game builds its own in `rules/<game>/spaces.py` from these pieces; pure
numpy, so they are used without the `ai` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.core.protocols import Action

Encoder = Callable[[Any], dict[str, np.ndarray]]

# Re-rolled ties counted in a game's `max_game_length`. The likeliest tie is the first
# roll-off of 8 Diced players (0.539: 1 - P(one highest die)); 100 ties in a row: below 2e-27.
TIE_ROLLS = 100


class VocabularyError(ValueError):
    """An action our vocabulary does not number: a bug of this adapter, or a throw or a
    placement yaw that is not one of the discrete ones."""


@dataclass
class Vocabulary:
    """Numbered actions of one game setting; `engine_action` and `action_id` translate."""

    game: str
    actions: list[Action]
    throw_spec: Callable[[Any, int, int], tuple[float, ...]] | None = None
    throws: int = 0  # with `throw_spec`: the discrete throws ('throw', die, k) of each die

    def __post_init__(self) -> None:
        self.ids = {a: i for i, a in enumerate(self.actions)}
        if len(self.ids) != len(self.actions):
            raise VocabularyError(f"{self.game}: an action is numbered twice")

    def __len__(self) -> int:
        return len(self.actions)

    def __deepcopy__(self, memo: dict[int, Any]) -> Vocabulary:
        return self  # fixed once built; states that OpenSpiel clones share it

    def legal_ids(self, state: Any) -> list[int]:
        """The engine's legal actions as sorted ids (a throw placeholder ('throw', die)
        stands for every discrete throw of that die)."""
        out = []
        for action in state.legal_actions():
            if self.throw_spec is not None and action[0] == "throw" and len(action) == 2:
                out += [self.ids[(*action, k)] for k in range(self.throws)]
            else:
                out.append(self._id(action))
        return sorted(out)

    def engine_action(self, state: Any, action_id: int) -> Action:
        """The engine's action for an id (a discrete throw becomes its full spec)."""
        action = self.actions[action_id]
        if self.throw_spec is not None and action[0] == "throw":
            die, k = action[1], action[2]
            return ("throw", die, self.throw_spec(state, state.dice[die].seat, k))
        return action

    def action_id(self, state: Any, action: Action) -> int:
        """The id of an engine action; a throw must be one of the discrete ones."""
        if self.throw_spec is not None and action[0] == "throw" and len(action) == 3:
            seat = state.dice[action[1]].seat
            for k in range(self.throws):
                if tuple(self.throw_spec(state, seat, k)) == tuple(action[2]):
                    return self.ids[("throw", action[1], k)]
            raise VocabularyError(f"{self.game}: the throw of {action[1]} is not one of the "
                                  f"{self.throws} discrete throws")
        return self._id(action)

    def _id(self, action: Action) -> int:
        try:
            return self.ids[action]
        except KeyError:
            raise VocabularyError(f"{self.game}: action {action!r} has no id") from None


def one_hot(size: int, index: int | None) -> np.ndarray:
    out = np.zeros(size, np.float32)
    if index is not None and 0 <= index < size:
        out[index] = 1.0
    return out


def counts(values: Iterable[int], faces: int = 6) -> np.ndarray:
    """How many of `values` show each face 1..faces."""
    out = np.zeros(faces, np.float32)
    for v in values:
        if 1 <= v <= faces:
            out[v - 1] += 1
    return out
