"""Deep White Sea for game-AI libraries (`rules.core.spaces`): every action of a setting
numbered (`vocabulary`), the state as named float32 arrays (`encode`), and a bound of a
game's moves (`max_game_length`)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from rules.core.protocols import Action
from rules.core.spaces import Vocabulary, one_hot

# Aims of the discrete throws, as shares of the table's width and depth (a 3 x 3 grid over
# the middle of the table, where the random bot aims too).
THROW_AIMS = tuple(itertools.product((-0.3, 0.0, 0.3), (-0.3, 0.0, 0.3)))
SHOT_MODES = ("attack", "backstab", "repair", "command", "confuse", "call", "jump")
CORNERS = ("top", "left", "right")
WHERE = ("hand", "play", "reserve")


def vocabulary(state: Any) -> Vocabulary:
    from rules.deep_white_sea.game import PLACE_YAWS

    dice = sorted(state.dice)
    actions: list[Action] = [("pass",), ("decline",)]
    actions += [("foul", w) for w in ("allow", "no_shot", "remove")]
    actions += [("place", d, side, yaw) for d in dice for side in range(1, 9)
                for yaw in PLACE_YAWS]
    actions += [("throw", d, k) for d in dice for k in range(len(THROW_AIMS))]
    actions += [(verb, d, c) for verb in ("move", "tip") for d in dice for c in CORNERS]
    actions += [("shoot", d, m) for d in dice for m in SHOT_MODES]
    actions += [("shoot", d, m, t) for d in dice for m in SHOT_MODES for t in dice
                if t != d]
    actions += [("aim", d, t) for d in dice for t in dice if t != d]
    return Vocabulary("deep-white-sea", actions, throw_spec=throw_spec, throws=len(THROW_AIMS))


def throw_spec(state: Any, seat: int, k: int) -> tuple[float, ...]:
    """Discrete throw `k` of `seat`: `aimed_throw` at aim `THROW_AIMS[k]` with its own seed,
    so an id always means the same throw on a table of that size."""
    from rules.deep_white_sea.bots import aimed_throw, table_size
    from rules.deep_white_sea.game import spec_to_tuple

    width, depth = table_size(state)
    fx, fy = THROW_AIMS[k]
    spec = aimed_throw(state, seat, (fx * width, fy * depth), np.random.default_rng(k))
    return spec_to_tuple(spec)


def encode(s: Any) -> dict[str, np.ndarray]:
    from rules.core.throwing import FOOT
    from rules.deep_white_sea.game import DECISIONS, WIN_POINTS

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
            one_hot(len(WHERE), WHERE.index(s.where[d])),
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


def max_game_length(s: Any) -> int:
    """An upper bound of the decisions of a game of this setting: 10 first placements; a
    turn's action, its shot and follow-ups (commanded allies, tips, aims of continuous
    effects, thrown called dice) stay under 100 decisions."""
    return len(s.dice) + (s.max_turns + 1) * 100
