"""What game-AI libraries need and our engines do not have: integer action ids, fixed-shape
observation tensors, and dice rolled one at a time. Pure numpy (no OpenSpiel), so it is
tested and used without the `ai` extra.

- `Vocabulary`: every action a game with given parameters can ever offer, numbered once
  (OpenSpiel's `num_distinct_actions`). It is built from a fresh state of the engine (its
  board, map or dice), so ids are stable over a game and between games of one setting.
  Deep White Sea's throws are continuous; an id stands for one of `THROW_AIMS` throws per
  die (`rules.deep_white_sea.aimed_throw` at a fixed aim and seed), and placements for
  the yaws the engine itself lists.
- `encode(state)`: the state as named float32 arrays of fixed shapes (all five games are
  of perfect information: every player sees the whole state, so one tensor serves as
  observation and information state).
- `DiceBuffer`: a roll of n dice becomes n chance nodes of one die each (6 or 8 outcomes
  with their probabilities), so that chance outcomes stay few and exact; the faces go to
  the engine in order once all n are rolled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.rollers import FACES

Encoder = Callable[[Any], dict[str, np.ndarray]]

# Deep White Sea: aims of the discrete throws, as shares of the table's width and depth
# (a 3 x 3 grid over the middle of the table, where the random bot aims too).
THROW_AIMS = tuple(itertools.product((-0.3, 0.0, 0.3), (-0.3, 0.0, 0.3)))
DWS_SHOT_MODES = ("attack", "backstab", "repair", "command", "confuse", "call", "jump")
DWS_CORNERS = ("top", "left", "right")
DWS_WHERE = ("hand", "play", "reserve")


class VocabularyError(ValueError):
    """An action our vocabulary does not number: a bug of this adapter, or a throw or a
    placement yaw that is not one of the discrete ones."""


@dataclass
class Vocabulary:
    """Numbered actions of one game setting; `engine_action` and `action_id` translate."""

    game: str
    actions: list[Action]
    throw_spec: Callable[[Any, int, int], tuple[float, ...]] | None = None

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
                out += [self.ids[(*action, k)] for k in range(len(THROW_AIMS))]
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
            for k in range(len(THROW_AIMS)):
                if tuple(self.throw_spec(state, seat, k)) == tuple(action[2]):
                    return self.ids[("throw", action[1], k)]
            raise VocabularyError(f"{self.game}: the throw of {action[1]} is not one of the "
                                  f"{len(THROW_AIMS)} discrete throws")
        return self._id(action)

    def _id(self, action: Action) -> int:
        try:
            return self.ids[action]
        except KeyError:
            raise VocabularyError(f"{self.game}: action {action!r} has no id") from None


def vocabulary(game: str, state: Any) -> Vocabulary:
    """The vocabulary of `game` for the setting `state` (a fresh state) was built with."""
    return _VOCABULARIES[game](state)


def encode(game: str, state: Any) -> dict[str, np.ndarray]:
    """The state of `game` as named float32 arrays; shapes depend only on the setting."""
    return _ENCODERS[game](state)


def supported(game: str) -> bool:
    return game in _VOCABULARIES and game in _ENCODERS


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


# ---------------------------------------------------------------------------------------
# Vocabularies


def _diced_vocabulary(state: Any) -> Vocabulary:
    n, total = state.n, state.total
    actions: list[Action] = [("end",), ("keep",)]
    actions += [("pool", k) for k in range(1, total + 1)]
    actions += [("attack", t, k) for t in range(n) for k in range(1, total + 1)]
    actions += [("defend", j) for j in range(total + 1)]
    actions += [("reroll", m) for m in range(1, 4)]
    return Vocabulary("diced", actions)


def _hex_vocabulary(state: Any) -> Vocabulary:
    size, nb = state.board.size, state.board.neighbours
    actions: list[Action] = [("stay",)]
    actions += [("place", v, t) for v in range(1, 7) for t in range(size)]
    actions += [("attack", a, t) for a in range(size) for t in nb[a]]
    actions += [("combined", a, b, t) for a in range(size) for b in nb[a] if b > a
                for t in nb[a] if t in nb[b]]
    actions += [("use", r, a) for r in range(1, 7) for a in range(size)]
    actions += [("move", a, u) for a in range(size) for u in nb[a]]
    return Vocabulary("diceland-hex", actions)


def _dicewar_vocabulary(state: Any) -> Vocabulary:
    from rules.dicewar.game import CELLS, SIZE

    actions: list[Action] = [("place", c, p) for c in range(SIZE) for p in range(1, 7)]
    actions += [("upgrade", s) for s in range(CELLS)]
    actions += [(verb, s, d) for verb in ("move", "spell") for s in range(CELLS)
                for d in range(CELLS)]
    return Vocabulary("dicewar", actions)


def _dday_vocabulary(state: Any) -> Vocabulary:
    from rules.dday.battlemap import ITEMS, SPECIALISTS
    from rules.dday.game import COLOURS, SOLDIER_ITEMS

    six = range(6)
    actions: list[Action] = [(w,) for w in ("done", "flak_jacket", "no_trade", "end_items",
                                            "stay", "mine_detector", "cross", "accept_roll",
                                            "fight")]
    actions += [("keep", i, j) for i, j in itertools.combinations(six, 2)]
    actions += [("reroll", c) for k in range(1, 5) for c in itertools.combinations(six, k)]
    actions += [(w, i) for w in ("sergeant", "backpack", "cancel") for i in six]
    actions += [("binoculars", i, v) for i in six for v in range(1, 7)]
    actions += [(w, i, c) for w in ("terrain_map", "officer_colour") for i in six
                for c in COLOURS]
    actions += [("trade", i, q, j) for i in six for q in range(state.num_players())
                for j in six]
    actions += [("surge_colour", c) for c in COLOURS]
    actions += [("star", s) for s in SPECIALISTS]
    actions += [("buy", it) for it in ITEMS]
    actions += [("use", it) for it in ITEMS if it in SOLDIER_ITEMS or it in _combat_items()]
    actions += [("use", "medal", s) for s in SPECIALISTS]
    actions += [("use", "medal_of_honor", w) for w in ("courage", "hero")]
    actions += [("move", s) for s in state.map.sectors]
    actions += [("move", s, "whistle") for s in state.map.sectors]
    actions += [("binoculars_fire", v) for v in range(1, 7)]
    actions += [("lose", w) for w in ("soldier", "courage", *SPECIALISTS)]
    return Vocabulary("dday", actions)


def _combat_items() -> tuple[str, ...]:
    from rules.dday.game import COMBAT_ITEMS

    return COMBAT_ITEMS


def _dws_vocabulary(state: Any) -> Vocabulary:
    from rules.deep_white_sea.game import PLACE_YAWS

    dice = sorted(state.dice)
    actions: list[Action] = [("pass",), ("decline",)]
    actions += [("foul", w) for w in ("allow", "no_shot", "remove")]
    actions += [("place", d, side, yaw) for d in dice for side in range(1, 9)
                for yaw in PLACE_YAWS]
    actions += [("throw", d, k) for d in dice for k in range(len(THROW_AIMS))]
    actions += [(verb, d, c) for verb in ("move", "tip") for d in dice for c in DWS_CORNERS]
    actions += [("shoot", d, m) for d in dice for m in DWS_SHOT_MODES]
    actions += [("shoot", d, m, t) for d in dice for m in DWS_SHOT_MODES for t in dice
                if t != d]
    actions += [("aim", d, t) for d in dice for t in dice if t != d]
    return Vocabulary("deep-white-sea", actions, throw_spec=dws_throw)


def dws_throw(state: Any, seat: int, k: int) -> tuple[float, ...]:
    """Discrete throw `k` of `seat`: `aimed_throw` at aim `THROW_AIMS[k]` with its own seed,
    so an id always means the same throw on a table of that size."""
    from rules.deep_white_sea.bots import aimed_throw, table_size
    from rules.deep_white_sea.game import spec_to_tuple

    width, depth = table_size(state)
    fx, fy = THROW_AIMS[k]
    spec = aimed_throw(state, seat, (fx * width, fy * depth), np.random.default_rng(k))
    return spec_to_tuple(spec)


_VOCABULARIES: dict[str, Callable[[Any], Vocabulary]] = {
    "diced": _diced_vocabulary,
    "diceland-hex": _hex_vocabulary,
    "dicewar": _dicewar_vocabulary,
    "dday": _dday_vocabulary,
    "deep-white-sea": _dws_vocabulary,
}


# ---------------------------------------------------------------------------------------
# Tensors


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


def _diced_encode(s: Any) -> dict[str, np.ndarray]:
    from rules.diced.game import PHASES, POOL

    n, total = s.n, float(s.total)
    return {
        "dice": np.asarray(s.dice, np.float32) / total,
        "tokens": np.asarray(s.tokens, np.float32) / 3.0,
        "pool": np.asarray([s.pool / total, float(s.pool_open)], np.float32),
        "phase": one_hot(len(PHASES), PHASES.index(s.phase)),
        "turn": one_hot(n, s.turn),
        "target": one_hot(n + 1, n if s.target == POOL else s.target),
        "attack": np.asarray([s.ready, s.k, s.j, s.reroll_n], np.float32) / total,
        "attack_faces": counts(s.attack_faces) / total,
        "defence_faces": counts(s.defence_faces) / total,
    }


def _hex_encode(s: Any) -> dict[str, np.ndarray]:
    from rules.diceland_hex.game import PHASES

    size = s.board.size
    owner = np.asarray(s.owner)
    return {
        "armies": np.stack([(owner == 0), (owner == 1), (owner < 0)]).astype(np.float32),
        "values": np.asarray(s.value, np.float32) / 6.0,
        "hands": np.stack([counts(h) for h in s.hands]) / float(s.dice_per_player()),
        "phase": one_hot(len(PHASES), PHASES.index(s.phase)),
        "seats": np.concatenate([one_hot(2, s.placer), one_hot(2, s.turn)]),
        "quiet_turns": np.asarray([min(s.quiet_turns, 2) / 2.0], np.float32),
        "moved_in": one_hot(size, s.moved_in),
        "attackers": sum((one_hot(size, a) for a in s.attackers), np.zeros(size, np.float32)),
        "target": one_hot(size, s.target),
        "rolls": counts(s.rolls),
    }


def _dicewar_encode(s: Any) -> dict[str, np.ndarray]:
    from rules.dicewar.game import CELLS, DICE_PER_PLAYER, RUINS, WIN_VP

    board = np.asarray(s.board)
    planes = np.zeros((2, 6, CELLS), np.float32)
    for p, sign in ((0, 1), (1, -1)):
        for power in range(1, 7):
            planes[p, power - 1] = board == sign * power
    ruins = np.zeros(CELLS, np.float32)
    if s.ruins:
        ruins[list(RUINS)] = 1.0
    return {
        "board": planes,
        "ruins": ruins,
        "dice": np.asarray([*s.reserve, *s.exile], np.float32) / DICE_PER_PLAYER,
        "points": np.asarray([*s.vp, *s.tp], np.float32) / WIN_VP,
        "phase": one_hot(4, ("start", "setup", "war", "over").index(s.phase)),
        "player": one_hot(2, s.player),
        "setup_done": np.asarray(s.setup_done, np.float32),
        "plies": np.asarray([s.plies / s.max_plies], np.float32),
    }


DDAY_PHASES = ("roll", "trade", "resolve", "move", "fire", "combat", "over")
DDAY_NODES = ("", "chance", "keep", "rolling", "trade", "cancel", "surge_colour", "stars",
              "items", "move", "mine", "fire_binoculars", "combat", "losses")


def _dday_encode(s: Any) -> dict[str, np.ndarray]:
    from rules.dday.battlemap import ITEMS, SPECIALISTS
    from rules.dday.game import COLOURS

    sectors = list(s.map.sectors)
    units = []
    for u in s.units:
        dice = np.zeros((6, 6), np.float32)
        for i, v in enumerate(u.dice[:6]):
            dice[i, v - 1] = 1.0
        units.append(np.concatenate([
            one_hot(len(sectors), sectors.index(u.sector)),
            np.asarray([u.soldiers / 20.0, u.courage / 10.0, u.ep / 50.0, u.vp / 100.0,
                        u.rerolls / 2.0], np.float32),
            np.asarray([it in u.items for it in ITEMS], np.float32),
            np.asarray([sp in u.specialists for sp in SPECIALISTS], np.float32),
            np.asarray([sp in u.dead for sp in SPECIALISTS], np.float32),
            dice.ravel(),
            np.concatenate([one_hot(3, COLOURS.index(c)) for c in u.colours[:6]]),
            np.asarray([i in u.kept for i in range(6)], np.float32),
            one_hot(3, ("active", "won", "defeated").index(u.status)),
            one_hot(3, ("none", "held", "used").index(u.medal)),
        ]))
    return {
        "units": np.stack(units),
        "phase": one_hot(len(DDAY_PHASES), DDAY_PHASES.index(s.phase)),
        "node": one_hot(len(DDAY_NODES), DDAY_NODES.index(s.node)),
        "seat": one_hot(len(s.units), s.seat),
        "turn": np.asarray([s.turn / 20.0], np.float32),
    }


def _dws_encode(s: Any) -> dict[str, np.ndarray]:
    from rules.deep_white_sea.game import DECISIONS, WIN_POINTS
    from rules.deep_white_sea.kinematic import FOOT

    dice = sorted(s.dice)
    rows = []
    for d in dice:
        pose = s.poses.get(d)
        side = s.side(d).number if pose is not None else 0
        place = (np.zeros(4, np.float32) if pose is None else np.asarray(
            [pose.position[0] / FOOT, pose.position[1] / FOOT,
             np.cos(np.radians(pose.yaw_deg)), np.sin(np.radians(pose.yaw_deg))], np.float32))
        rows.append(np.concatenate([
            one_hot(2, s.dice[d].seat),
            one_hot(len(DWS_WHERE), DWS_WHERE.index(s.where[d])),
            place,
            one_hot(8, side - 1 if side else None),
            np.asarray([d in s.poison], np.float32),
        ]))
    decision = s.decision
    return {
        "dice": np.stack(rows),
        "scores": np.asarray(s.scores, np.float32) / WIN_POINTS,
        "turn": np.asarray([s.turn / s.max_turns], np.float32),
        "decision": one_hot(len(DECISIONS), DECISIONS.index(decision) if decision else None),
        "player": one_hot(2, None if s.is_terminal() else s.current_player()),
    }


_ENCODERS: dict[str, Encoder] = {
    "diced": _diced_encode,
    "diceland-hex": _hex_encode,
    "dicewar": _dicewar_encode,
    "dday": _dday_encode,
    "deep-white-sea": _dws_encode,
}
