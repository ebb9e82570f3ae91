"""What game-AI libraries need of our engines: integer action ids, fixed-shape observation
tensors, and dice rolled one at a time. Each game declares its own vocabulary and encoder
beside its engine (`rules/<game>/spaces.py`, built from `rules.core.spaces`); this module
reads them generically. Pure numpy (no OpenSpiel), so it is tested and used without the
`ai` extra.

- `Vocabulary`: every action a game with given parameters can ever offer, numbered once
  (OpenSpiel's `num_distinct_actions`). It is built from a fresh state of the engine (its
  board, map or dice), so ids are stable over a game and between games of one setting.
  Deep White Sea's throws are continuous; an id stands for one of `THROW_AIMS` throws per
  die (`rules.deep_white_sea.spaces.throw_spec`: an aimed throw at a fixed aim and seed), and placements for
  the yaws the engine itself lists.
- `encode(state)`: the state as named float32 arrays of fixed shapes (all five games are
  of perfect information: every player sees the whole state, so one tensor serves as
  observation and information state).
- `DiceBuffer`: a roll of n dice becomes n chance nodes of one die each (6 or 8 outcomes
  with their probabilities), so that chance outcomes stay few and exact; the faces go to
  the engine in order once all n are rolled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rules.core.rollers import FACES
from rules.core.spaces import Encoder, Vocabulary, VocabularyError, counts, one_hot
from rules.registry import lookup

__all__ = ["DiceBuffer", "Encoder", "Vocabulary", "VocabularyError", "counts", "encode",
           "one_hot", "supported", "vocabulary"]


def vocabulary(game: str, state: Any) -> Vocabulary:
    """The vocabulary of `game` for the setting `state` (a fresh state) was built with."""
    built: Vocabulary = lookup(game).module().vocabulary(state)
    return built


def encode(game: str, state: Any) -> dict[str, np.ndarray]:
    """The state of `game` as named float32 arrays; shapes depend only on the setting."""
    arrays: dict[str, np.ndarray] = lookup(game).module().encode(state)
    return arrays


def supported(game: str) -> bool:
    module = lookup(game).module()
    return all(hasattr(module, f) for f in ("vocabulary", "encode", "max_game_length"))


# ---------------------------------------------------------------------------------------
# Dice one at a time


class DiceBuffer:
    """The faces of a roll in progress: the engine asks for (kind, n); each chance node
    rolls one die, whose outcome id is face - 1, with `probabilities` per face (ideal
    dice: uniform). `full` says when the engine can take them."""

    def __init__(self, probabilities: Mapping[str, Sequence[float]] | None = None) -> None:
        self.probabilities = {k: tuple(v) for k, v in (probabilities or {}).items()}
        self.faces: list[int] = []

    def outcomes(self, kind: str) -> list[tuple[int, float]]:
        base = kind.split(":", 1)[0]
        if base not in FACES:
            raise VocabularyError(f"no chance outcomes for dice of kind {kind!r}")
        probs = self.probabilities.get(base)
        if probs is None:
            return [(f, 1.0 / FACES[base]) for f in range(FACES[base])]
        return [(f, p) for f, p in enumerate(probs) if p > 0]

    def max_outcomes(self) -> int:
        return max(FACES.values())
