"""Pig, a toy game defined only under tests/ to prove that a game is one unit: its rules
here, its declaration in `spec.py`, registered by one line (`registry.register_package`).

On your turn, roll a d6 as often as you like: a 1 loses the points of this turn and ends
it; any other face adds to them. Hold to bank them and pass the die. The first to
`target` points wins; after `max_turns` turns the most points wins (a tie is a draw).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from rules.core.protocols import CHANCE_PLAYER, TERMINAL_PLAYER, Action, RulesError, StateBase
from rules.core.spaces import TIE_ROLLS, Vocabulary, one_hot
from tests.toy_pig.spec import GAME

ACTIONS: tuple[Action, ...] = (("roll",), ("hold",))


class PigState(StateBase):
    def __init__(self, n: int, target: int, max_turns: int) -> None:
        self.n, self.target, self.max_turns = n, target, max_turns
        self.scores = [0] * n
        self.pending = 0  # this turn's points
        self.player = 0
        self.turns = 0
        self.rolling = False
        self.over = False
        self.events: list[str] = []

    def current_player(self) -> int:
        return TERMINAL_PLAYER if self.over else CHANCE_PLAYER if self.rolling else self.player

    def num_players(self) -> int:
        return self.n

    def player_name(self, seat: int) -> str:
        return f"P{seat + 1}"

    def chance_request(self) -> tuple[str, int]:
        return ("d6", 1)

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], float]]:
        return [((f,), 1 / 6) for f in range(1, 7)]

    def apply_chance(self, faces: tuple[int, ...]) -> None:
        if not self.rolling or len(faces) != 1 or faces[0] not in range(1, 7):
            raise RulesError(f"toy-pig: faces: {faces!r} is not one d6 rolled now")
        self.rolling = False
        if faces[0] == 1:
            self.events.append(f"{self.player_name(self.player)} rolls a 1 and loses "
                               f"{self.pending} points")
            self.pending = 0
            self._pass()
        else:
            self.pending += faces[0]
            self.events.append(f"{self.player_name(self.player)} rolls {faces[0]} "
                               f"({self.pending} this turn)")

    def legal_actions(self) -> list[Action]:
        if self.over or self.rolling:
            return []
        return [("roll",), ("hold",)] if self.pending else [("roll",)]

    def apply_action(self, action: Action) -> None:
        if tuple(action) not in self.legal_actions():
            raise RulesError(f"toy-pig: action: {action!r} is not legal now")
        if action[0] == "roll":
            self.rolling = True
            return
        self.scores[self.player] += self.pending
        self.events.append(f"{self.player_name(self.player)} holds: "
                           f"{self.scores[self.player]} points")
        self.pending = 0
        if self.scores[self.player] >= self.target:
            self.over = True
            return
        self._pass()

    def _pass(self) -> None:
        self.player = (self.player + 1) % self.n
        self.turns += 1
        if self.turns >= self.max_turns:
            self.over = True

    def action_to_string(self, action: Action) -> str:
        return str(action[0])

    def take_events(self) -> list[str]:
        out, self.events = self.events, []
        return out

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.n
        best = max(self.scores)
        winners = [i for i, s in enumerate(self.scores) if s == best]
        return [1.0 / len(winners) if i in winners else 0.0 for i in range(self.n)]

    def clone(self) -> PigState:
        return copy.deepcopy(self)

    def serialize(self) -> dict[str, Any]:
        return {"game": GAME.name, **{k: v for k, v in vars(self).items() if k != "events"}}

    def render(self) -> str:
        return f"scores {self.scores}, {self.player_name(self.player)} has {self.pending}"


def new_game(num_players: int, options: dict[str, Any] | None = None,
             rng: np.random.Generator | None = None) -> PigState:
    GAME.check_players(num_players)
    o = GAME.resolve_options(options)
    return PigState(num_players, o["target"], o["max_turns"])


def deserialize(data: dict[str, Any]) -> PigState:
    if not isinstance(data, dict) or data.get("game") != GAME.name:
        raise RulesError("toy-pig save: field 'game': not a toy-pig state")
    try:
        s = PigState(int(data["n"]), int(data["target"]), int(data["max_turns"]))
        for key in ("scores", "pending", "player", "turns", "rolling", "over"):
            setattr(s, key, copy.deepcopy(data[key]))
    except (KeyError, TypeError, ValueError) as exc:
        raise RulesError(f"toy-pig save: a field is missing or bad ({exc})") from None
    return s


def heuristic(state: PigState) -> list[float]:
    return [min(1.0, s / state.target) for s in state.scores]


def greedy_action(state: PigState, rng: np.random.Generator) -> Action:
    """Hold at 8 points a turn, or when they win."""
    need = state.target - state.scores[state.player]
    return ("hold",) if state.pending >= min(8, need) else ("roll",)


def max_game_length(state: PigState) -> int:
    # A turn: rolls that do not show 1 (at most target / 2 + 1 of them add up to the
    # target) each with their chance node, a hold; a turn lasts while no 1 shows, so the
    # bound counts TIE_ROLLS rolls a turn at most (a longer run is below 2e-8 per turn).
    return state.max_turns * 2 * (TIE_ROLLS + 1)


def vocabulary(state: PigState) -> Vocabulary:
    return Vocabulary(GAME.name, list(ACTIONS))


def encode(state: PigState) -> dict[str, np.ndarray]:
    return {
        "scores": np.asarray(state.scores, np.float32) / state.target,
        "pending": np.asarray([state.pending / state.target], np.float32),
        "player": one_hot(state.n, None if state.over else state.player),
    }
