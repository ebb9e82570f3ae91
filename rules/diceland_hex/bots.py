"""Diceland hex's judgement for bots: the `heuristic` (armies count most, pips next; used
by the generic `mcts` player) and the one-step `greedy_action` (the registry's `greedy`
player). `random` and `mcts` are the generic players of `rules.core.bots`; `BOT_SETTINGS`
tunes mcts."""

from __future__ import annotations

import numpy as np

from rules.core.protocols import Action
from rules.diceland_hex.board import Board
from rules.diceland_hex.game import ATTACK, CHOOSE, PLACE, HexState, attack_outcome

BOT_SETTINGS = {"mcts": {"iterations": 300, "rollout_depth": 0, "exploration": 0.6,
                         "prior_weight": 2.0}}
ARMY_WORTH = 6  # an army is worth this many pips besides its value


def heuristic(state: HexState) -> list[float]:
    """Armies count most, pips next: each army is worth ARMY_WORTH pips plus its value."""
    if state.is_terminal():
        return state.returns()
    worth = _worth(state)
    return [_share(worth, 0), _share(worth, 1)]


def greedy_action(state: HexState, rng: np.random.Generator) -> Action:
    """One-step greedy: place the strongest die where it touches most enemies (the weakest
    spares kept), take the attack or the roll with the best expected `heuristic` right
    after it (exact over the dice), move an army toward the enemy."""
    actions = state.legal_actions()
    if state.phase == PLACE:
        return _greedy_place(state, actions, rng)
    worth = _worth(state)
    if state.phase == ATTACK:
        scored = [(_expected_after_attack(state, a, worth), i) for i, a in enumerate(actions)]
        return actions[max(scored)[1]]
    if state.phase == CHOOSE:
        scored = [(_share_after(state, a[2], state.target, a[1], worth), i)
                  for i, a in enumerate(actions)]
        return actions[max(scored)[1]]
    return _greedy_move(state, actions)


# --- helpers -----------------------------------------------------------------------------


def _worth(state: HexState) -> list[float]:
    worth = [0.0, 0.0]
    for t in range(state.board.size):
        if state.owner[t] >= 0:
            worth[state.owner[t]] += ARMY_WORTH + state.value[t]
    return worth


def _share(worth: list[float], seat: int) -> float:
    total = worth[0] + worth[1]
    return 0.5 if total == 0 else worth[seat] / total


def _share_after(state: HexState, army: int, target: int, roll: int,
                 worth: list[float]) -> float:
    """`heuristic` of the player on turn right after `army` attacks `target` with `roll`
    (worked out on the worth totals, without copying the state)."""
    me = state.turn
    a, d = state.value[army], state.value[target]
    new_a, new_d = attack_outcome(a, d, roll, state._terrain(army), state._terrain(target))
    mine, theirs = worth[me], worth[1 - me]
    if new_d < d:
        mine += new_a - a
        if new_d < 1:
            if theirs == ARMY_WORTH + d:
                return 1.0  # their last army
            theirs -= ARMY_WORTH + d
        else:
            theirs -= d - new_d
    elif new_a < 1:
        if mine == ARMY_WORTH + a:
            return 0.0  # our last army
        mine -= ARMY_WORTH + a
    else:
        mine -= a - new_a
    return mine / (mine + theirs)


def _expected_after_attack(state: HexState, action: Action, worth: list[float]) -> float:
    """Exact expectation of `heuristic` for the attacker right after `action` and its
    roll (a combined attack's roll and army chosen greedily)."""
    target = int(action[-1])
    armies = [int(x) for x in action[1:-1]]
    if len(armies) == 1:
        return sum(_share_after(state, armies[0], target, r, worth) for r in range(1, 7)) / 6
    total = 0.0
    for r1 in range(1, 7):
        for r2 in range(1, 7):
            total += max(_share_after(state, x, target, r, worth)
                         for r in {r1, r2} for x in armies)
    return total / 36


def _greedy_place(state: HexState, actions: list[Action], rng: np.random.Generator) -> Action:
    me = state.placer
    hand = sorted(state.hands[me])
    value = hand[-1]
    best, best_score = actions[0], -1e9
    for a in actions:
        if a[1] != value:
            continue
        nb = state.board.neighbours[a[2]]
        enemies = sum(1 for u in nb if state.owner[u] == 1 - me)
        friends = sum(1 for u in nb if state.owner[u] == me)
        score = 2 * enemies + friends + len(nb) * 0.1 + float(rng.random()) * 0.01
        if score > best_score:
            best, best_score = a, score
    return best


def _greedy_move(state: HexState, actions: list[Action]) -> Action:
    me = state.turn
    enemy_tiles = state.armies(1 - me)
    if not enemy_tiles:
        return ("stay",)
    dist = _distances(state.board, enemy_tiles)
    best, best_gain = ("stay",), 0
    for a in actions[1:]:
        gain = (dist[a[1]] - dist[a[2]]) * state.value[a[1]]
        if gain > best_gain:
            best, best_gain = a, gain
    return best


def _distances(board: Board, sources: list[int]) -> list[int]:
    dist = [10**6] * board.size
    frontier = list(sources)
    for t in sources:
        dist[t] = 0
    while frontier:
        nxt = []
        for t in frontier:
            for u in board.neighbours[t]:
                if dist[u] > dist[t] + 1:
                    dist[u] = dist[t] + 1
                    nxt.append(u)
        frontier = nxt
    return dist
