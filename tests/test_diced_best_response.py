"""The exact best response to two random Diced players (rules/diced/best_response.py)
against the engine itself: its state graph must hold every state the engine reaches, and
its exact win probabilities must match games played in the engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rules.diced as diced
from rules.core.bots import GreedyBot, RandomBot
from rules.core.rollers import SeededRoller
from rules.diced.best_response import (
    BestResponseAgent,
    Graph,
    legal_moves,
    move_dist,
    solve_game,
)

POOL = 3  # the book's smallest game (two dice per player): a graph of a few thousand states


@pytest.fixture(scope="module")
def solution():
    return solve_game(POOL)


def _play(agent_for_seat, games: int, seed: int) -> float:
    """Mean return of the tested seat (rotating with the game) against two random players,
    straight on the engine with seeded dice."""
    roller = SeededRoller()
    total = 0.0
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        me = g % 3
        state = diced.new_game(3, {"pool": POOL}, rng)
        agents = [agent_for_seat(me, rng) if p == me else RandomBot(rng) for p in range(3)]
        while not state.is_terminal():
            if state.is_chance_node():
                kind, n = state.chance_request()
                state.apply_chance(roller.roll(kind, n, rng))
            else:
                state.apply_action(agents[state.current_player()].step(state))
        total += state.returns()[me]
    return total / games


def _close(measured: float, exact: float, games: int) -> bool:
    se = math.sqrt(exact * (1 - exact) / games)
    return abs(measured - exact) < 4 * se


def test_every_move_is_a_probability_distribution():
    graph = Graph()
    graph.explore([(s, 1, (1, 1, 1), POOL, (0, 0, 0)) for s in range(3)])
    assert len(graph.keys) > 1000
    for key in graph.keys[2:]:
        for move in legal_moves(key):
            dist = move_dist(key, move)
            assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-12), (key, move)
            assert all(p > 0 for p in dist.values())


def test_best_response_beats_greedy_and_the_fair_share(solution):
    for best, greedy in zip(solution.best, solution.greedy, strict=True):
        assert greedy - 1e-9 <= best < 1.0
    assert solution.best_mean > 1 / 3
    # Moving first is worth something against random attackers.
    assert solution.best[0] > max(solution.best[1:])


def test_the_engine_greedy_matches_the_exact_value(solution):
    games = 3000
    measured = _play(lambda me, rng: GreedyBot(diced, rng), games, seed=11)
    assert _close(measured, solution.greedy_mean, games), (measured, solution.greedy_mean)


def test_the_best_response_plays_in_the_engine_at_its_exact_value(solution):
    # Every engine state it meets must be in the graph (KeyError otherwise), and its
    # results must match the value iteration's.
    games = 3000
    measured = _play(lambda me, rng: BestResponseAgent(solution.policy, me), games, seed=12)
    assert _close(measured, solution.best_mean, games), (measured, solution.best_mean)
