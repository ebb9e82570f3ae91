"""Players for any registered game: `random`, `greedy`, `mcts`, and the terminal `human`.

All of them see only the engine's own vocabulary (legal actions, chance requests,
clone/apply), so they work on every game that follows the plug-in interface in
`rules.registry`. Randomness comes from the Generator each player is given.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rules.core.protocols import CHANCE_PLAYER, Action, GameModule, GameState, RulesError
from rules.core.rollers import SeededRoller

# Chance nodes with more grouped outcomes than this are sampled open-loop.
MAX_CHANCE_BRANCHES = 64


class Agent(Protocol):
    name: str

    def step(self, state: GameState) -> Action: ...


def make_agent(kind: str, module: GameModule, rng: np.random.Generator,
               **settings: Any) -> Agent:
    """Build the player named `kind` for a game module (see `rules.registry`). A game
    that lists a kind in `OWN_PLAYERS` (e.g. Deep White Sea's random, whose throws need
    specs) gets its own `make_bot` for it instead of the generic player."""
    maker = getattr(module, "make_bot", None)
    if maker is not None and kind in getattr(module, "OWN_PLAYERS", ()):
        own: Agent = maker(kind, rng, **settings)
        return own
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot(module, rng)
    if kind == "mcts":
        return MCTSBot(module, rng, **settings)
    if kind == "human":
        return HumanPlayer()
    maker = getattr(module, "make_bot", None)
    if maker is not None:  # a game's own players (e.g. D-Day Dice's expectimax)
        agent: Agent = maker(kind, rng, **settings)
        return agent
    raise RulesError(f"unknown player kind {kind!r}")


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def step(self, state: GameState) -> Action:
        actions = state.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]


class GreedyBot:
    """The game's own one-step greedy choice (`greedy_action(state, rng)` in its module)."""

    name = "greedy"

    def __init__(self, module: GameModule, rng: np.random.Generator) -> None:
        self.module = module
        self.rng = rng

    def step(self, state: GameState) -> Action:
        return self.module.greedy_action(state, self.rng)


@dataclass
class _Node:
    visits: int = 0
    value: float = 0.0  # summed returns of the player who chose the move into this node
    children: dict[Action, _Node] = field(default_factory=dict)
    prior: Action | None = None  # the greedy policy's choice here, when asked
    prior_known: bool = False


class MCTSBot:
    """UCT over the engine's legal actions. Chance nodes branch on the outcomes drawn, as
    the game's grouped `chance_outcomes()` lists them (Diced: the count of sixes per side);
    a roll too large to list (setup rolls) is drawn afresh each iteration, so there the tree
    is open-loop (a node stands for an action sequence and the dice behind it vary).
    Playouts run `rollout_depth` decisions, each at random or, with probability
    `rollout_greedy`, by the game's greedy policy; then the game's `heuristic` judges
    the position. Each player maximises their own return, so it works for more than two
    players. With `prior_weight` > 0 the game's greedy choice is tried first and gets a
    bonus of prior_weight / (visits + 1) in selection (progressive bias, Chaslot et al.
    2008): small budgets then start from the greedy move, and more search may overrule
    it. A game whose module has `candidate_actions(state)` (a non-empty subset of the
    legal actions) limits search and playouts to those, so dominated or redundant moves
    (Diced: defending with fewer than all dice) take no iterations."""

    name = "mcts"

    def __init__(self, module: GameModule, rng: np.random.Generator, iterations: int = 200,
                 rollout_depth: int = 20, exploration: float = 1.0,
                 rollout_greedy: float = 0.0, prior_weight: float = 0.0) -> None:
        self.module = module
        self.rng = rng
        self.iterations = iterations
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        # Share of playout moves taken by the game's greedy policy instead of at random.
        self.rollout_greedy = rollout_greedy
        self.prior_weight = prior_weight
        self.roller = SeededRoller()
        self._candidates: Callable[[GameState], list[Action]] | None = getattr(
            module, "candidate_actions", None)

    def step(self, state: GameState) -> Action:
        actions = self._actions(state)
        if len(actions) == 1:
            return actions[0]
        root = _Node()
        for _ in range(self.iterations):
            self._iterate(root, state.clone())
        best = max(actions, key=lambda a: (root.children[a].visits, root.children[a].value)
                   if a in root.children else (-1, 0.0))
        return best

    def _iterate(self, root: _Node, s: GameState) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        expanded = False
        while not s.is_terminal() and not expanded:
            if s.is_chance_node():
                node = node.children.setdefault(("chance", self._tree_chance(s)), _Node())
                path.append((node, CHANCE_PLAYER))  # counted, so UCT below it explores
                continue
            player = s.current_player()
            actions = self._actions(s)
            if self.prior_weight and not node.prior_known:
                node.prior = self.module.greedy_action(s, self.rng)
                node.prior_known = True
            untried = [a for a in actions if a not in node.children]
            if untried:
                action = (node.prior if node.prior in untried
                          else untried[int(self.rng.integers(len(untried)))])
                node.children[action] = _Node()
                expanded = True
            else:
                action = self._select(node, actions)
            s.apply_action(action)
            node = node.children[action]
            path.append((node, player))
        depth = 0
        # Playout; pending dice are always rolled, so a leaf is never judged mid-roll.
        while not s.is_terminal() and (depth < self.rollout_depth or s.is_chance_node()):
            if s.is_chance_node():
                self._chance(s)
                continue
            if self.rollout_greedy and self.rng.random() < self.rollout_greedy:
                s.apply_action(self.module.greedy_action(s, self.rng))
            else:
                actions = self._actions(s)
                s.apply_action(actions[int(self.rng.integers(len(actions)))])
            depth += 1
        values = s.returns() if s.is_terminal() else self.module.heuristic(s)
        root.visits += 1
        for n, player in path:
            n.visits += 1
            if player >= 0:
                n.value += values[player]

    def _actions(self, s: GameState) -> list[Action]:
        return self._candidates(s) if self._candidates is not None else s.legal_actions()

    def _select(self, node: _Node, actions: list[Action]) -> Action:
        log_n = math.log(max(node.visits, 1))
        best, best_score = actions[0], -math.inf
        for a in actions:
            child = node.children[a]
            score = child.value / child.visits + self.exploration * math.sqrt(
                log_n / child.visits)
            if a == node.prior:
                score += self.prior_weight / (child.visits + 1)
            if score > best_score:
                best, best_score = a, score
        return best

    def _chance(self, s: GameState) -> None:
        kind, n = s.chance_request()
        s.apply_chance(self.roller.roll(kind, n, self.rng))

    def _tree_chance(self, s: GameState) -> tuple[int, ...]:
        """Roll a chance node. Where the game lists few grouped outcomes (faces that stand
        for every roll the rules read alike), draw one of those, so the tree branches on
        outcomes that matter; otherwise roll the dice."""
        lister = getattr(s, "chance_outcomes", None)
        outcomes = None
        if lister is not None:
            try:
                outcomes = lister()
            except ValueError:
                outcomes = None
        if outcomes is not None and len(outcomes) <= MAX_CHANCE_BRANCHES:
            cumulative = list(itertools.accumulate(p for _, p in outcomes))
            pick = bisect.bisect_right(cumulative, self.rng.random() * cumulative[-1])
            faces = tuple(outcomes[min(pick, len(outcomes) - 1)][0])
        else:
            kind, n = s.chance_request()
            faces = self.roller.roll(kind, n, self.rng)
        s.apply_chance(faces)
        return faces


class HumanPlayer:
    """Plays in the terminal: shows the state's text view and numbered legal actions. A
    choice is its number, or the action in words (`place 6 12`, `attack 3 4`); long lists
    (board placements) are shown in short, with `?` to list them all."""

    name = "human"
    LIST_AT_MOST = 40

    def __init__(self, input_fn: Callable[[str], str] = input,
                 output_fn: Callable[[str], None] = print) -> None:
        self.input_fn = input_fn
        self.output_fn = output_fn

    def step(self, state: GameState) -> Action:
        actions = state.legal_actions()
        self.output_fn(state.render())
        if len(actions) <= self.LIST_AT_MOST:
            self._list(state, actions)
        else:
            words = " ".join(str(part) for part in actions[-1])
            self.output_fn(f"  {len(actions)} choices, e.g. {len(actions)}. "
                           f"{state.action_to_string(actions[-1])}  (type '{words}' or "
                           f"{len(actions)}; '?' lists them all)")
        while True:
            try:
                answer = self.input_fn(f"{_player_name(state, state.current_player())}, "
                                       f"choose 1-{len(actions)}: ").strip()
            except EOFError:
                raise RulesError("input closed while waiting for a human player's choice") \
                    from None
            if answer == "?":
                self._list(state, actions)
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            typed = tuple(int(w) if w.lstrip("-").isdigit() else w for w in answer.split())
            if typed in actions:
                return typed
            self.output_fn(f"  please type a number from 1 to {len(actions)} or an action "
                           "in words ('?' lists them)")

    def _list(self, state: GameState, actions: list[Action]) -> None:
        for i, a in enumerate(actions, 1):
            self.output_fn(f"  {i:3d}. {state.action_to_string(a)}")


def _player_name(state: GameState, player: int) -> str:
    return state.player_name(player)
