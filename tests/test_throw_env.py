"""The Gymnasium throwing environment `tabletop/DeepWhiteSeaThrow-v0` (issue 18, item 3):
registered on import, Gymnasium's own `check_env` on both tables, seeded resets repeat the
episode, and a throw released in the foul zone is a foul the reward counts."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
throw_env = importlib.import_module("simulator.ai.throw_env")  # ours: never skipped
check_env = pytest.importorskip("gymnasium.utils.env_checker").check_env


@pytest.mark.parametrize("table", ["kinematic", "physics"])
def test_check_env(table: str) -> None:
    env = gym.make(throw_env.ENV_ID, table=table)
    check_env(env.unwrapped)


def _episode(seed: int, table: str = "kinematic") -> list[tuple[np.ndarray, float, bool, bool]]:
    env = gym.make(throw_env.ENV_ID, table=table, max_throws=4)
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    out = [(obs, 0.0, False, False)]
    done = False
    while not done:
        obs, reward, term, trunc, _ = env.step(env.action_space.sample())
        out.append((obs, reward, term, trunc))
        done = term or trunc
    return out


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x[0], y[0]) and x[1:] == y[1:] for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("table", ["kinematic", "physics"])
def test_same_seed_same_episode(table: str) -> None:
    """DESIGN.md: same throw + same world = same result, bit for bit; with the seed fixing
    who starts and the bots' choices, a seeded episode repeats exactly."""
    first = _episode(3, table)
    assert _same(first, _episode(3, table))
    assert not _same(first, _episode(4, table))


def test_episodes_of_one_environment_repeat_those_of_fresh_ones() -> None:
    """Every episode starts on a clone of the environment's one empty table (one Bullet
    world for its life, not one a reset): reset again with a seed, an environment repeats
    a fresh environment's episode bit for bit, whatever it played before."""
    env = gym.make(throw_env.ENV_ID, max_throws=2)
    env.action_space.seed(3)

    def run(seed: int) -> list:
        obs, _ = env.reset(seed=seed)
        out = [(obs, 0.0, False, False)]
        for _ in range(2):
            obs, reward, term, trunc, _ = env.step(np.linspace(-0.8, 0.8, 8) * (seed - 3.5))
            out.append((obs, reward, term, trunc))
            if term or trunc:
                break
        return out

    first, other, again = run(3), run(4), run(3)
    assert _same(first, again) and not _same(first, other)
    assert env.unwrapped.state.table.world is env.unwrapped._table.world


def test_release_in_the_foul_zone_is_a_foul() -> None:
    """Rulebook: "If you release the die anywhere inside the tinted area, it is a foul."
    (DESIGN.md: within 1 ft of the edge and below 1 ft.) The lowest, nearest release is in
    it; the same throw from well back is not."""
    env = gym.make(throw_env.ENV_ID, table="kinematic").unwrapped
    env.reset(seed=0)
    near_low = np.array([0.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    _, reward, _, _, info = env.step(near_low)
    assert info["foul"] and info["off_table"] == 1.0
    assert reward == pytest.approx(throw_env.REWARD["off_table"] + info["points"])
    env.reset(seed=0)
    far_back = near_low.copy()
    far_back[1] = 1.0  # 0.555 m behind the edge: more than 1 ft back
    _, _, _, _, info = env.step(far_back)
    assert not info["foul"]


def test_throw_spec_releases_behind_the_throwers_edge() -> None:
    """Release legality (DESIGN.md): player 1 releases behind the edge y = -depth/2; every
    action, however far out of [-1, 1], gives a finite throw from behind it."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        action = rng.uniform(-5, 5, size=8)
        spec = throw_env.throw_spec(action, (1.2, 0.9), 0)
        assert spec[1] < -0.45 and spec[2] > 0 and all(np.isfinite(spec))
    assert throw_env.throw_spec(np.full(8, np.nan), (1.2, 0.9), 0)[1] < -0.45


def test_unknown_reward_term_is_one_line() -> None:
    with pytest.raises(ValueError, match="reward: unknown term 'kills'; known: points"):
        throw_env.DeepWhiteSeaThrowEnv(table="kinematic", reward={"kills": 1.0})


def test_a_greedy_first_placement_is_the_bots_own_choice() -> None:
    """The environment draws a greedy bot's first placement without trying each one on the
    table (it was most of a reset on the physics table): the same placement as the bot's
    own `step` and the same generator state after it, over setups where either seat
    places first."""
    from rules.deep_white_sea import new_game
    from rules.deep_white_sea.bots import GreedyBot

    seats = set()
    for seed in range(8):
        state = new_game(2, {"crews": "white,blue", "table": "kinematic"},
                         np.random.default_rng(seed))
        while state.decision == "place":
            fast, slow = GreedyBot(np.random.default_rng(seed), 4), \
                GreedyBot(np.random.default_rng(seed), 4)
            action = throw_env._step(fast, state)
            assert action == slow.step(state)
            assert fast.rng.bit_generator.state == slow.rng.bit_generator.state
            seats.add(state.current_player())
            state.apply_action(action)
    assert seats == {0, 1}


def _reset(vec: Any, seed: int) -> Any:
    """`vec.reset`, with the wait on async copies bounded."""
    if isinstance(vec, gym.vector.AsyncVectorEnv):
        vec.reset_async(seed=seed)
        return vec.reset_wait(timeout=120)[0]
    return vec.reset(seed=seed)[0]


def _step(vec: Any, actions: np.ndarray) -> tuple[Any, Any]:
    """`vec.step`, with the wait on async copies bounded: (observations, rewards)."""
    if isinstance(vec, gym.vector.AsyncVectorEnv):
        vec.step_async(actions)
        return vec.step_wait(timeout=120)[:2]
    return vec.step(actions)[:2]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_steps_the_single_environments_side_by_side(mode: str) -> None:
    """`gymnasium.make_vec` runs N copies, in this process (sync) or one process each
    (async); seeded with s, copy i is the single environment reset with seed s + i, step
    for step. The async copies are spawned, not forked from this test process (which has
    run other tests' threads and libraries), and every wait on them is bounded."""
    kwargs: dict[str, Any] = {"vector_kwargs": {"context": "spawn"}} if mode == "async" else {}
    vec = gym.make_vec(throw_env.ENV_ID, num_envs=2, vectorization_mode=mode,
                       table="kinematic", max_throws=3, **kwargs)
    try:
        obs = _reset(vec, 5)
        singles = [gym.make(throw_env.ENV_ID, table="kinematic", max_throws=3) for _ in range(2)]
        firsts = [e.reset(seed=5 + i)[0] for i, e in enumerate(singles)]
        assert obs.shape == (2, *singles[0].observation_space.shape)
        assert all(np.array_equal(obs[i], firsts[i]) for i in range(2))
        rng = np.random.default_rng(0)
        for _ in range(2):  # max_throws=3: no copy has ended yet, so no autoreset
            actions = rng.uniform(-1, 1, size=(2, 8)).astype(np.float32)
            obs, rewards = _step(vec, actions)
            for i, e in enumerate(singles):
                o, r, _, _, _ = e.step(actions[i])
                assert np.array_equal(obs[i], o) and rewards[i] == r
    finally:
        vec.close(**({"terminate": True} if mode == "async" else {}))
