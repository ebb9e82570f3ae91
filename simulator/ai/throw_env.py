"""`tabletop/DeepWhiteSeaThrow-v0`: a Gymnasium environment where the action is a real throw
of a Deep White Sea die and the physics decides what happens.

Importing this module registers the id, so

    import gymnasium, simulator.ai.throw_env
    env = gymnasium.make("tabletop/DeepWhiteSeaThrow-v0", opponent="greedy")

An episode is a game of Deep White Sea (`rules.deep_white_sea`) seen from player 1 (seat
0, the edge y = -depth/2). Each step is one throw of the thrower's next die in hand: the
action, 8 numbers in [-1, 1], is scaled to a release point behind the thrower's edge
(across the edge, how far back, how high), an aim point on the table with a flight time
that give the release velocity (ballistic), and a spin about the vertical and a
horizontal axis. Nothing keeps the release out of the foul zone (within 1 ft of the edge
and below 1 ft): a foul is the thrower's own doing and the opponent then chooses, as the
rulebook says. The table (PyBullet by default, `table="kinematic"` for the fast
stand-in) settles the die; the thrower's other decisions of that turn (the shot of the
landed die, commanded allies) are played by our greedy bot, and the opponent by one of
our bots (`opponent`: random, greedy or planner) until the thrower's next throw.

Observation (float32, bounded): per die of both crews (`simulator.ai.spaces` Deep White
Sea rows: owner, in hand / in play / reserve, position in feet and yaw, visible side,
poison), the scores, and which die is thrown next.

Reward, in points, with weights given by `reward` (defaults in `REWARD`): `points`, the
thrower's score gained from the throw to the end of its turn (its shot included);
`in_sight`, 1 if the thrown die rests on the table seeing an enemy die; `off_table`, 1 if
the thrown die ended off the table or the throw was a foul; `knocked_off`, enemy dice the
throw knocked off the table (weight 0 by default: the rulebook gives the opponent the
points of dice knocked off, "regardless of who owns them", so knocking off is a shaping
term a user may want, not points the thrower earns). The episode terminates when the game ends or the thrower
has no die in hand when its turn comes; it is truncated after `max_throws` throws.
Resetting with a seed repeats the episode exactly (who goes first, the bots' choices and,
given the same actions, every throw).

Vectorised: `gymnasium.make_vec(ENV_ID, num_envs=N, vectorization_mode="sync", **kwargs)`
steps N copies in this process (copy i reset with seed s + i is the single environment
reset with s + i); `vectorization_mode="async"` runs each copy in a process of its own,
one core each. A step costs its throws: the thrower's, the opponent's and, for a greedy
or planner opponent, the throws it tries (`python -m benchmarks.bench_throw_env` measures
a step against `World.throw` on the same throws).
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from rules.core.throwing import FOOT, GRAVITY
from rules.deep_white_sea.bots import GreedyBot
from simulator.ai import require
from simulator.ai.spaces import encode

gym = require("gymnasium")

ENV_ID = "tabletop/DeepWhiteSeaThrow-v0"
REWARD = {"points": 1.0, "in_sight": 0.5, "off_table": -1.0, "knocked_off": 0.0}
SEAT = 0  # the thrower: player 1, at the edge y = -depth/2
# Ranges of the scaled action (m, s, rad/s): release across the edge as a share of the
# table width, distance behind the edge, height; aim as shares of width and depth; flight
# time; spins. The distance and height cover both legal kinds of release (more than 1 ft
# back, or higher than 1 ft) and the foul zone between.
BACK_M = (0.02, FOOT + 0.25)
HEIGHT_M = (0.03, 0.45)
FLIGHT_S = (0.3, 0.9)
SPIN_RAD_S = 30.0
OBS_LIMIT = 10.0  # |observation| bound: positions in feet on a table of a few feet


class DeepWhiteSeaThrowEnv(gym.Env):  # type: ignore[misc,name-defined]
    """See the module docstring. `crews` as the game's option ('white,blue'), `table`
    'physics' or 'kinematic', `opponent` a Deep White Sea bot kind, `opponent_throws` its
    candidate throws (greedy, planner), `reward` weights by name, `max_throws` the
    truncation."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, crews: str = "white,blue", table: str = "physics",
                 opponent: str = "greedy", opponent_throws: int = 4,
                 reward: dict[str, float] | None = None, max_throws: int = 10,
                 max_turns: int = 200) -> None:
        from rules.deep_white_sea import GAME, load_crews, make_bot, make_table, new_state

        unknown = set(reward or {}) - set(REWARD)
        if unknown:
            raise ValueError(f"{ENV_ID}: reward: unknown term {sorted(unknown)[0]!r}; known: "
                             f"{', '.join(REWARD)}")
        if opponent not in ("random", "greedy", "planner"):
            raise ValueError(f"{ENV_ID}: opponent: {opponent!r} is not one of random, greedy, "
                             "planner")
        if table == "physics":
            importlib.import_module("simulator.physics_table")
        self.options: dict[str, Any] = {"crews": crews, "table": table, "max_turns": max_turns}
        self.opponent_kind, self.opponent_throws = opponent, opponent_throws
        self.weights = {**REWARD, **(reward or {})}
        self.max_throws = max_throws
        # What `rules.deep_white_sea.new_game` makes of the options, made once: every
        # episode starts on a clone of one empty table (on the physics table, one World and
        # Bullet connection for the environment's life instead of one a reset; a World
        # rebuilds from its scene for every throw, so this changes no bit).
        resolved = GAME.resolve_options(dict(self.options))
        self._crews = load_crews(resolved["crews"])
        self._table = make_table(resolved["table"], resolved)
        # The table's size, which its clones share (read once: describing a physics table
        # reports its whole physics, which cost about 1% of a step)
        d = self._table.describe()
        self._size = (float(d.get("width", 1.2)), float(d.get("depth", 0.9)))
        self._new_state, self._make_bot = new_state, make_bot
        self.state: Any = None
        self._start(np.random.default_rng(0))
        n_obs = len(self._observe())
        self.observation_space = gym.spaces.Box(-OBS_LIMIT, OBS_LIMIT, (n_obs,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (8,), np.float32)

    # -- Gymnasium API ------------------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._start(self.np_random)
        return self._observe(), {"scores": list(self.state.scores)}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool,
                                                   dict[str, Any]]:
        state = self.state
        if self._die is None:
            raise RuntimeError(f"{ENV_ID}: step after the episode ended; call reset()")
        die = self._die
        spec = throw_spec(np.asarray(action, dtype=float), self._size, SEAT)
        before = state.scores[SEAT]
        enemies_in_play = {d for d in state.poses if state.dice[d].seat != SEAT}
        state.take_results()  # the opponent's throws
        state.apply_action(("throw", die, spec))
        foul = any(r["foul"] for r in state.take_results() if r["die"] == die)
        landed = die in state.poses
        in_sight = landed and any(state.sees(die, e) for e in state.poses
                                  if state.dice[e].seat != SEAT)
        knocked = len(enemies_in_play - set(state.poses))
        self._play_on()
        points = state.scores[SEAT] - before
        self.throws += 1
        self._advance()
        terms = {"points": float(points), "in_sight": float(in_sight),
                 "off_table": float(foul or not landed), "knocked_off": float(knocked)}
        reward = sum(self.weights[k] * v for k, v in terms.items())
        terminated = self._die is None
        truncated = not terminated and self.throws >= self.max_throws
        info = {**terms, "foul": foul, "landed": landed, "scores": list(state.scores)}
        return self._observe(), float(reward), terminated, truncated, info

    # -- the game around the throws ---------------------------------------------------------

    def _start(self, rng: np.random.Generator) -> None:
        seeds = rng.integers(2**63, size=3)
        first = int(np.random.default_rng(seeds[0]).integers(2))  # as new_game draws it
        self.state = self._new_state(self._crews, self._table.clone(),
                                     str(self.options["table"]), first,
                                     int(self.options["max_turns"]))
        settings = {} if self.opponent_kind == "random" else {"throws": self.opponent_throws}
        self.opponent = self._make_bot(self.opponent_kind, np.random.default_rng(seeds[1]),
                                       **settings)
        self.helper = self._make_bot("greedy", np.random.default_rng(seeds[2]), throws=4)
        self.throws = 0
        self._die: str | None = None
        self._advance()

    def _advance(self) -> None:
        """Play until the thrower has a throw to make (`_die` set) or the episode ends."""
        self._die = None
        state = self.state
        while not state.is_terminal():
            if state.current_player() == SEAT:
                throws = state.throws()  # (not legal_actions: its tips are probes)
                if throws:
                    self._die = throws[0][1]
                    return
                if state.decision == "main":  # a turn with an empty hand: the episode ends
                    return
                state.apply_action(_step(self.helper, state))
            else:
                state.apply_action(_step(self.opponent, state))

    def _play_on(self) -> None:
        """The thrower's own follow-ups of this throw (shot, commands), by the helper."""
        state = self.state
        while (not state.is_terminal() and state.current_player() == SEAT
               and state.decision != "main"
               and not state.throws()):
            state.apply_action(self.helper.step(state))

    def _observe(self) -> np.ndarray:
        state = self.state
        parts = encode("deep-white-sea", state)
        dice = sorted(state.dice)
        next_die = np.zeros(len(dice), np.float32)
        if self._die is not None:
            next_die[dice.index(self._die)] = 1.0
        obs = np.concatenate([parts["dice"].ravel(), parts["scores"], next_die])
        return np.clip(obs, -OBS_LIMIT, OBS_LIMIT).astype(np.float32)


def _step(bot: Any, state: Any) -> Any:
    """`bot.step(state)`, but a greedy bot's first placement drawn without trying each
    placement on the table: placing scores nothing and is followed by the other player's
    decision, so every legal placement ties at 0 and `greedy_action` draws one of them
    uniformly with one `integers` call of its generator; this is that draw (the same choice
    and the same stream after it; tests/test_throw_env.py checks it against the bot). On
    the physics table the trials were most of a reset: hundreds of placements."""
    if state.decision == "place" and type(bot) is GreedyBot:
        placements = state.legal_actions()
        return placements[int(bot.rng.integers(len(placements)))]
    return bot.step(state)


def throw_spec(action: np.ndarray, table: tuple[float, float], seat: int) -> tuple[float, ...]:
    """The 13 numbers of a throw (release, velocity, spin, orientation) for an action in
    [-1, 1]^8 (clipped), thrown by `seat` from behind its edge."""
    a = np.clip(np.nan_to_num(action, nan=0.0), -1.0, 1.0)
    width, depth = table

    def scale(v: float, low: float, high: float) -> float:
        return float(low + (v + 1.0) / 2.0 * (high - low))

    sign = -1.0 if seat == 0 else 1.0
    release = np.array([scale(a[0], -0.45, 0.45) * width,
                        sign * (depth / 2 + scale(a[1], *BACK_M)),
                        scale(a[2], *HEIGHT_M)])
    aim = np.array([scale(a[3], -0.45, 0.45) * width, scale(a[4], -0.45, 0.45) * depth, 0.03])
    flight = scale(a[5], *FLIGHT_S)
    velocity = (aim - release) / flight
    velocity[2] += 0.5 * GRAVITY * flight
    spin = (float(a[7]) * SPIN_RAD_S * 0.7, float(a[7]) * SPIN_RAD_S * 0.7,
            float(a[6]) * SPIN_RAD_S)
    if not all(math.isfinite(v) for v in (*release, *velocity, *spin)):
        raise ValueError("throw: not a finite throw")  # unreachable after the clip
    return (*(float(v) for v in release), *(float(v) for v in velocity), *spin,
            0.0, 0.0, 0.0, 1.0)


def register() -> None:
    if ENV_ID not in gym.envs.registry:
        gym.register(id=ENV_ID, entry_point=f"{__name__}:DeepWhiteSeaThrowEnv")


register()
