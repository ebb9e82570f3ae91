"""Diced's judgement for bots: the `heuristic` (a player's estimated chance to win, used by
the generic `mcts` player and the best-response analysis), the one-step `greedy_action`
(the registry's `greedy` player) and `candidate_actions` (the moves `mcts` searches).
`random` and `mcts` are the generic players of `rules.core.bots`; `BOT_SETTINGS` tunes mcts."""

from __future__ import annotations

import numpy as np

from rules.core.protocols import Action
from rules.diced.game import DEFEND, MAX_TOKENS, REROLL_CHOICE, DicedState

BOT_SETTINGS = {"mcts": {"iterations": 200, "rollout_depth": 0, "exploration": 0.5,
                         "prior_weight": 2.0}}


# The heuristic's shape: a player's strength is their dice plus a part of the open pool
# shared among the living, raised to a power, and their chance to win is their share of
# the strengths. Fitted by maximum likelihood to who won from 650 000 turn starts of 6 000
# three-player games between greedy and random players (`benchmarks/fit_diced_heuristic.py`):
# the exponent says a lead counts for more than its dice (the leader also defends with
# more), re-roll tokens did not improve the fit.
STRENGTH_POWER = 2.5
POOL_SHARE = 0.25


def heuristic(state: DicedState) -> list[float]:
    """Each player's estimated chance to win: (dice + POOL_SHARE * pool / living)
    ** STRENGTH_POWER, normalised; a player who is out has 0."""
    if state.is_terminal():
        return state.returns()
    alive = sum(1 for d in state.dice if d > 0) or 1
    bonus = POOL_SHARE * state.pool / alive
    strength = [(d + bonus) ** STRENGTH_POWER if d > 0 else 0.0 for d in state.dice]
    total = sum(strength) or 1.0
    return [x / total for x in strength]


def greedy_action(state: DicedState, rng: np.random.Generator) -> Action:
    """Take free dice from the pool while it is open; otherwise throw everything ready at
    the weakest player when that outnumbers their whole defence; defend with all dice
    (more dice can only add sixes); spend tokens while the attacker's sixes match or beat
    the defence's."""
    actions = state.legal_actions()
    if state.phase == DEFEND:
        return ("defend", state.dice[state.target])
    if state.phase == REROLL_CHOICE:
        behind = state.attack_faces.count(6) >= state.defence_faces.count(6)
        return actions[-1] if behind else ("keep",)
    if state.pool_open:
        return ("pool", state.ready)
    victims = [t for t in state.alive() if t != state.turn]
    weakest = min(state.dice[t] for t in victims)
    choices = [t for t in victims if state.dice[t] == weakest]
    target = choices[int(rng.integers(len(choices)))]
    if state.ready > weakest:
        return ("attack", target, state.ready)
    return ("end",)


def candidate_actions(state: DicedState) -> list[Action]:
    """The legal actions worth searching (the `mcts` hook, see `rules.registry`).

    Defending with every die dominates any smaller defence: the defender's extra sixes can
    only cancel the attacker's or take dice, never lose any. A re-roll choice keeps the
    tokens, re-rolls one die (to look before spending more) or all it can. An attack
    commits all ready dice or holds back one to three, the only reasons to hold a die
    back being a re-roll token (at most three) or a later attack this turn."""
    if state.phase == DEFEND:
        return [("defend", state.dice[state.target])]
    actions = state.legal_actions()
    if state.phase == REROLL_CHOICE:
        return actions if len(actions) <= 3 else [actions[0], actions[1], actions[-1]]
    sizes = [k for k in range(state.ready, max(0, state.ready - MAX_TOKENS - 1), -1)]
    keep: list[Action] = []
    if state.pool_open:
        keep += [("pool", k) for k in sizes]
    for t in state.alive():
        if t != state.turn:
            keep += [("attack", t, k) for k in sizes]
    keep.append(("end",))
    return keep
