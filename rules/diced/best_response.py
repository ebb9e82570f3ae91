"""Diced: the exact best response to two random players, by value iteration.

What is the most any player can win against two `random` opponents in the benchmark's
three-player game (one die each, pool 9)? This script answers it exactly rather than by
sampling: it enumerates every state of the game reachable from the start (dice held,
pool, seat on turn, dice still ready, re-roll tokens), writes the random players' moves
and the dice as transition probabilities, and iterates the Bellman equation for the
tested player, who picks the best move at each of its decisions. The result is the
ceiling of any bot's expected win rate against random, to hold the mcts target against.

Same rules as `rules/diced`, the engine's decisions included (captured dice cannot attack
this turn; tokens are min(3, ready dice) at the end of a turn and expire at the owner's
next turn; re-rolls may be taken a few dice at a time, looking at each result). The
tested player's own re-roll choices are decisions of the search. Two simplifications:
- The tested player always defends with all its dice. This loses nothing: more defending
  dice only add sixes (and non-sixes to re-roll) to the defence.
- No 200-round limit: games against random players end long before it (3000 engine
  games each of the best response and of greedy: none reached it, the longest took 84 turns).
The random players are exactly the engine's `random`: uniform over the legal actions at
every decision (attacks, defence commitments, re-roll choices).

    python -m rules.diced.best_response [--pool 9] [--tol 1e-10]

Prints the number of states, the best response's win probability for each starting seat
(the roll-off picks the starter uniformly) and their mean, and, for comparison, the exact
win probability of the engine's own `greedy` policy on the same state graph.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from statistics import mean
from typing import Any, cast

import numpy as np

from rules.diced.bots import greedy_action
from rules.diced.game import REROLL_CHOICE, TURN, DicedState

N = 3  # seats; the tested player is seat 0, then 1 and 2 in turn order
MAX_TOKENS = 3
WIN, LOSS = ("win",), ("loss",)  # the two ends, as keys of their own

Key = tuple  # (seat on turn, ready, dice (3), pool, tokens (3)) or WIN / LOSS
Dist = dict


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", type=int, default=3 * N)
    ap.add_argument("--tol", type=float, default=1e-10)
    args = ap.parse_args()
    res = solve_game(args.pool, args.tol)
    print(f"{res.states} states, {res.bot_moves} (state, move) pairs of the tested player; "
          f"built in {res.build_s:.1f} s, solved in {res.sweeps} sweeps, {res.solve_s:.1f} s")
    for name, per_seat in (("best response", res.best), ("greedy", res.greedy)):
        seats = ", ".join(f"starts {nth}: {p:.4f}"
                          for nth, p in zip(("1st", "3rd", "2nd"), per_seat, strict=True))
        print(f"{name:14s} win probability vs two random players: {mean(per_seat):.4f}  "
              f"({seats})")


@dataclass(frozen=True)
class Solution:
    pool: int
    states: int
    bot_moves: int
    best: tuple[float, ...]  # per starting seat (0: the tested player starts, 1, 2)
    greedy: tuple[float, ...]
    sweeps: int
    build_s: float
    solve_s: float
    policy: dict[Key, tuple]  # the best response's move in each of its decision states

    @property
    def best_mean(self) -> float:
        return mean(self.best)  # the roll-off picks the starting seat uniformly

    @property
    def greedy_mean(self) -> float:
        return mean(self.greedy)


def solve_game(pool: int = 3 * N, tol: float = 1e-10) -> Solution:
    """Build the state graph from the three possible starts and solve it twice: for the
    best response and for the engine's greedy policy."""
    t0 = time.perf_counter()
    graph = Graph()
    starts = [(s, 1, (1,) * N, pool, (0,) * N) for s in range(N)]
    graph.explore(starts)
    t1 = time.perf_counter()
    best, sweeps = graph.solve(tol, policy=None)
    t2 = time.perf_counter()
    greedy, _ = graph.solve(tol, policy=greedy_choice)
    idx = [graph.index[s] for s in starts]
    return Solution(pool, len(graph.index), graph.bot_rows,
                    tuple(float(best[i]) for i in idx), tuple(float(greedy[i]) for i in idx),
                    sweeps, t1 - t0, t2 - t1, graph.best_moves)


class BestResponseAgent:
    """Plays the solved best response in the engine (`rules.diced`), from seat `me`:
    the engine's state, seen from `me` (seat 0 of the graph), is looked up in the policy.
    A state the graph lacks raises KeyError: the graph and the engine disagree."""

    name = "best-response"

    def __init__(self, policy: dict[Key, tuple], me: int) -> None:
        self.policy = policy
        self.me = me

    def step(self, state: Any) -> tuple:
        if state.phase == "defend":
            return ("defend", state.dice[state.target])
        n, me = state.n, self.me
        dice = tuple(state.dice[(me + i) % n] for i in range(n))
        tokens = tuple(state.tokens[(me + i) % n] for i in range(n))
        if state.phase == "reroll_choice":
            b = state.defence_faces.count(6)
            key: Key = ("rr", (state.turn - me) % n, state.ready, dice, state.pool, tokens,
                        state.attack_faces.count(6), b, len(state.defence_faces) - b)
            m = self.policy[key][1]
            return ("keep",) if m == 0 else ("reroll", m)
        move = self.policy[(0, state.ready, dice, state.pool, tokens)]
        if move[0] == "attack":
            return ("attack", (move[1] + me) % n, move[2])
        return move


def binom(s: int, n: int) -> float:
    return comb(n, s) * (1 / 6) ** s * (5 / 6) ** (n - s)


def greedy_choice(key: Key, moves: list[tuple]) -> list[tuple[int, float]]:
    """The engine's own greedy policy (`rules.diced.greedy_action`) at a decision of the
    tested player, as (move index, probability): its random pick among equally weak
    victims is followed down every branch, so the value is greedy's exactly."""
    state = engine_state(key)
    probe = _Pick(0)
    greedy_action(state, cast(np.random.Generator, probe))  # learns how many ways the policy can draw, if any
    picks = [_Pick(i) for i in range(probe.drawn or 1)]
    out: dict[int, float] = {}
    for pick in picks:
        m = moves.index(graph_move(greedy_action(state, cast(np.random.Generator, pick))))
        out[m] = out.get(m, 0.0) + 1.0 / len(picks)
    return sorted(out.items())


class _Pick:
    """Stands in for the policy's Generator: `integers(n)` returns choice i of n."""

    def __init__(self, i: int) -> None:
        self.i = i
        self.drawn = 0

    def integers(self, n: int) -> int:
        self.drawn = n
        return self.i


def engine_state(key: Key) -> DicedState:
    """The engine's state at a decision of the tested player (seat 0) in the graph; an
    attack's dice are given by their sixes alone, all the rules read of them."""
    if key[0] == "rr":
        _, s, r, d, pool, t, a, b, nonsix = key
    else:
        s, r, d, pool, t = key
    state = DicedState(N, 0)
    state.total = sum(d) + pool
    state.dice, state.pool, state.pool_open, state.tokens = list(d), pool, pool > 0, list(t)
    state.turn, state.ready, state.phase = s, r, TURN
    if key[0] == "rr":
        state.phase, state.target = REROLL_CHOICE, 0
        state.attack_faces, state.defence_faces = (6,) * a, (6,) * b + (1,) * nonsix
    return state


def graph_move(action: tuple) -> tuple:
    """An engine action of the tested player as this graph writes it."""
    if action[0] == "keep":
        return ("reroll", 0)
    return tuple(action)


class Graph:
    """The states reachable from the starts `explore` is given, and their transitions."""

    def __init__(self) -> None:
        self.index: dict[Key, int] = {WIN: 0, LOSS: 1}
        self.keys: list[Key] = [WIN, LOSS]
        # Rows of the random seats' states (one averaged distribution each) and of the
        # tested player's moves (one distribution per move).
        self.rand_rows: list[tuple[int, Dist]] = []
        self.bot_moves: list[tuple[int, list[tuple], list[Dist]]] = []
        self.bot_rows = 0
        self.best_moves: dict[Key, tuple] = {}

    def explore(self, starts: list[Key]) -> None:
        todo = [k for k in starts if self._add(k)]
        while todo:
            key = todo.pop()
            moves = legal_moves(key)
            dists = [move_dist(key, m) for m in moves]
            if key[0] in (0, "rr"):  # the tested player's turn, or its re-roll choice
                self.bot_moves.append((self.index[key], moves, dists))
                self.bot_rows += len(moves)
            else:
                avg: Dist = {}
                for dist in dists:
                    for k, p in dist.items():
                        avg[k] = avg.get(k, 0.0) + p / len(dists)
                self.rand_rows.append((self.index[key], avg))
            for dist in dists:
                for k in dist:
                    if self._add(k):
                        todo.append(k)

    def _add(self, key: Key) -> bool:
        if key in self.index:
            return False
        self.index[key] = len(self.keys)
        self.keys.append(key)
        return True

    def solve(self, tol: float,
              policy: Callable[[Key, list[tuple]], list[tuple[int, float]]] | None,
              ) -> tuple[np.ndarray, int]:
        """Value iteration; `policy` None maximises, else follows the policy's mixture of
        moves (move index, probability) at each decision."""
        # SciPy is imported here, not at the top: the rule packages load without it
        # (issue 16: rule engines import no PyBullet, Panda3D or SciPy).
        import scipy.sparse as sp

        n = len(self.keys)
        rr, rc, rv = [], [], []
        rand_states = []
        for i, (state, dist) in enumerate(self.rand_rows):
            rand_states.append(state)
            for k, p in dist.items():
                rr.append(i)
                rc.append(self.index[k])
                rv.append(p)
        rand = sp.csr_matrix((rv, (rr, rc)), shape=(len(self.rand_rows), n))
        br, bc, bv, starts, bot_states = [], [], [], [], []
        row = 0
        for state, moves, dists in self.bot_moves:
            bot_states.append(state)
            starts.append(row)
            if policy is None:  # one row per move, the best taken below
                rows = [[(m, 1.0)] for m in range(len(moves))]
            else:  # one row: the policy's mixture of moves
                rows = [policy(self.keys[state], moves)]
            for mix in rows:
                for m, w in mix:
                    for k, p in dists[m].items():
                        br.append(row)
                        bc.append(self.index[k])
                        bv.append(w * p)
                row += 1
        bot = sp.csr_matrix((bv, (br, bc)), shape=(row, n))
        rand_idx, bot_idx = np.array(rand_states), np.array(bot_states)
        start_idx = np.array(starts)
        v = np.zeros(n)
        v[0] = 1.0
        for sweep in range(1, 100_000):
            old = v.copy()
            v[rand_idx] = rand @ v
            v[bot_idx] = np.maximum.reduceat(bot @ v, start_idx)
            if np.max(np.abs(v - old)) < tol:
                if policy is None:  # the moves that attain the maximum, for BestResponseAgent
                    q = bot @ v
                    bounds = [*starts, row]
                    self.best_moves = {
                        self.keys[state]: moves[int(np.argmax(q[lo:hi]))]
                        for (state, moves, _), lo, hi in zip(self.bot_moves, bounds[:-1],
                                                            bounds[1:], strict=True)}
                return v, sweep
        raise RuntimeError("value iteration did not converge")


def legal_moves(key: Key) -> list[tuple]:
    if key[0] == "rr":  # the tested player defending: re-roll m of its non-sixes
        tokens, nonsix = key[5][0], key[8]
        return [("reroll", m) for m in range(min(tokens, nonsix) + 1)]
    s, r, d, pool, _t = key
    moves: list[tuple] = []
    if pool > 0:
        moves += [("pool", k) for k in range(1, r + 1)]
    for p in range(N):
        if p != s and d[p] > 0:
            moves += [("attack", p, k) for k in range(1, r + 1)]
    moves.append(("end",))
    return moves


def move_dist(key: Key, move: tuple) -> Dist:
    out: Dist = {}
    if key[0] == "rr":
        _, s, r, d, pool, t, a, b, nonsix = key
        m = move[1]
        if m == 0:
            return {resolve(s, r, d, pool, t, 0, a, b, t[0]): 1.0}
        spent = (t[0] - m, *t[1:])
        for new in range(m + 1):
            nxt = defended(s, r, d, pool, spent, a, b + new, nonsix - new)
            out[nxt] = out.get(nxt, 0.0) + binom(new, m)
        return out
    s, r, d, pool, t = key
    if move[0] == "end":
        return {end_turn(s, r, d, pool, t): 1.0}
    if move[0] == "pool":
        k = move[1]
        for a in range(k + 1):
            taken = min(a, pool)
            dd = list(d)
            dd[s] += taken
            nxt = after_attack(s, r - k, tuple(dd), pool - taken, t)
            out[nxt] = out.get(nxt, 0.0) + binom(a, k)
        return out
    _, target, k = move
    if target == 0:  # the tested player defends with all; its re-rolls are decisions
        j = d[0]
        for a in range(k + 1):
            for b in range(j + 1):
                nxt = defended(s, r - k, d, pool, t, a, b, j - b)
                out[nxt] = out.get(nxt, 0.0) + binom(a, k) * binom(b, j)
        return out
    for j in range(d[target] + 1):  # a random defender commits 0..all, uniformly
        for a in range(k + 1):
            pa = binom(a, k) / (d[target] + 1)
            for (b, tokens_left), pb in random_defence(j, t[target]).items():
                nxt = resolve(s, r - k, d, pool, t, target, a, b, tokens_left)
                out[nxt] = out.get(nxt, 0.0) + pa * pb
    return out


def defended(s: int, r: int, d: tuple, pool: int, t: tuple, a: int, b: int,
             nonsix: int) -> Key:
    """The tested player's defence rolled (a attacking sixes, b defending, its tokens in
    t[0]): a re-roll choice if it has one, else the exchange's result."""
    if t[0] > 0 and nonsix > 0:
        return ("rr", s, r, d, pool, t, a, b, nonsix)
    return resolve(s, r, d, pool, t, 0, a, b, t[0])


def random_defence(j: int, tokens: int) -> Dist:
    """A random defender's (sixes, tokens left) after its roll and any re-rolls: at each
    choice it keeps or re-rolls 1..most dice, uniformly, as `random` does."""
    out: Dist = {}
    for b in range(j + 1):
        _rerolls(b, j - b, tokens, binom(b, j), out)
    return out


def _rerolls(b: int, nonsix: int, tokens: int, p: float, out: Dist) -> None:
    if tokens == 0 or nonsix == 0:
        out[(b, tokens)] = out.get((b, tokens), 0.0) + p
        return
    options = min(tokens, nonsix) + 1
    out[(b, tokens)] = out.get((b, tokens), 0.0) + p / options
    for m in range(1, options):
        for new in range(m + 1):
            _rerolls(b + new, nonsix - new, tokens - m, p / options * binom(new, m), out)


def resolve(s: int, r: int, d: tuple, pool: int, t: tuple, target: int, a: int, b: int,
            tokens_left: int) -> Key:
    dd, tt = list(d), list(t)
    tt[target] = tokens_left
    if a > b:
        taken = min(a - b, dd[target])
        dd[target] -= taken
        dd[s] += taken
    elif b > a:
        taken = min(b - a, dd[s])
        dd[s] -= taken
        r = min(r, dd[s])
        dd[target] += taken
    for p in (target, s):
        if dd[p] == 0:
            tt[p] = 0
    return after_attack(s, r, tuple(dd), pool, tuple(tt))


def after_attack(s: int, r: int, d: tuple, pool: int, t: tuple) -> Key:
    if d[0] == 0:
        return LOSS
    if sum(1 for x in d if x > 0) == 1:
        return WIN
    if d[s] == 0 or r == 0:
        return end_turn(s, r, d, pool, t)
    return (s, r, d, pool, t)


def end_turn(s: int, r: int, d: tuple, pool: int, t: tuple) -> Key:
    tt = list(t)
    tt[s] = min(MAX_TOKENS, r) if d[s] > 0 else 0
    nxt = s
    for _ in range(N):
        nxt = (nxt + 1) % N
        if d[nxt] > 0:
            break
    tt[nxt] = 0  # the owner's tokens expire as their turn begins
    return (nxt, d[nxt], d, pool, tuple(tt))


if __name__ == "__main__":
    main()
