"""OpenSpiel's own MCTS (`open_spiel.python.algorithms.mcts.MCTSBot`) against our bots, on
our games loaded as OpenSpiel games (`simulator.ai.openspiel`).

    python -m benchmarks.bench_openspiel [--games 20] [--simulations 100]
        [--game dicewar --game deep-white-sea] [--opponent greedy] [--table kinematic]
        [--evaluator heuristic|random]

For each game and each opponent (default: every bot the registry lists for the game),
N games with MCTS in seat g mod players and the opponent bot in every other seat. The
game is played on our engine; at MCTS's turn the position is handed to OpenSpiel as a
`TabletopState` and its chosen id becomes our action, so our bots keep their own actions
(Deep White Sea's throws are any throws, not only the discrete ones MCTS picks from).
Dice are rolled by the seeded roller. The leaf evaluator is the game's own `heuristic`
(`--evaluator heuristic`, the default: random playouts of these games run hundreds of
moves) or OpenSpiel's `RandomRolloutEvaluator`.

Prints per pairing: MCTS's score rate (a win 1, a shared win its share) with a 95% Wilson
interval, what an even game would give (1 / players), and the mean time per move (ms) of
MCTS and of the opponent.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from rules import registry
from rules.core.bots import make_agent
from rules.core.rollers import SeededRoller
from rules.core.runner import effective_bot_settings, streams
from simulator.ai import script_import
from simulator.experiments.stats import wilson

DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "deep-white-sea": {"max_turns": 30},
    "dicewar": {"max_plies": 150},
    "diced": {"max_rounds": 40},
}


class HeuristicEvaluator:
    """An OpenSpiel MCTS evaluator (`mcts.Evaluator`'s two methods): values a leaf by the
    game's own `heuristic` (each player's standing in [0, 1], the range of our returns);
    priors uniform."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def evaluate(self, state: Any) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=float)
        return np.asarray(self.module.heuristic(state.engine), dtype=float)

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def play(game: Any, seat: int, opponent: str, seed: int, simulations: int,
         evaluator: str) -> tuple[float, list[float], list[float]]:
    """One game: MCTS's return and the seconds of each MCTS and opponent move."""
    openspiel = script_import("simulator.ai.openspiel")
    mcts = script_import("open_spiel.python.algorithms.mcts")
    spec = game.spec
    module = spec.module()
    players = [opponent] * game.players
    players[seat] = "mcts"
    _, chance_rng, seat_rngs = streams(seed, game.players)
    settings = effective_bot_settings(module, [opponent], None)
    bots = {i: make_agent(opponent, module, seat_rngs[i], **settings.get(opponent, {}))
            for i in range(game.players) if i != seat}
    rs = np.random.RandomState(seed % 2**31)
    leaf = (HeuristicEvaluator(module) if evaluator == "heuristic"
            else mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs))
    searcher = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=leaf,
                            solve=False, random_state=rs)
    engine = game.fresh_engine()
    roller = SeededRoller()
    t_mcts: list[float] = []
    t_opp: list[float] = []
    while not engine.is_terminal():
        if engine.is_chance_node():
            engine.apply_chance(roller.roll(*engine.chance_request(), chance_rng))
            continue
        player = engine.current_player()
        t0 = time.perf_counter()
        if player == seat:
            root = openspiel.TabletopState(game, engine.clone())
            move = game.vocab.engine_action(engine, searcher.step(root))
            t_mcts.append(time.perf_counter() - t0)
        else:
            move = bots[player].step(engine)
            t_opp.append(time.perf_counter() - t0)
        engine.apply_action(move)
        engine.take_events()
    return float(engine.returns()[seat]), t_mcts, t_opp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per pairing")
    ap.add_argument("--simulations", type=int, default=100, help="MCTS simulations a move")
    ap.add_argument("--game", action="append", choices=registry.names(),
                    help="a game (repeat; default: all)")
    ap.add_argument("--opponent", action="append",
                    help="an opponent bot (repeat; default: each game's bots)")
    ap.add_argument("--table", default="kinematic", choices=("kinematic", "physics"),
                    help="Deep White Sea's table")
    ap.add_argument("--evaluator", default="heuristic", choices=("heuristic", "random"))
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args()
    openspiel = script_import("simulator.ai.openspiel")
    print(f"OpenSpiel MCTS, {args.simulations} simulations a move, {args.evaluator} "
          f"evaluator; {args.games} games a pairing")
    for name in args.game or registry.names():
        spec = registry.lookup(name)
        params = dict(DEFAULT_PARAMS.get(name, {}))
        if name == "deep-white-sea":
            params["table"] = args.table
        params.setdefault("players", max(spec.min_players, 2))
        game = openspiel.load(name, params)
        for opponent in args.opponent or [b for b in spec.bots if b != "mcts"]:
            score, moves_m, moves_o = 0.0, [], []
            t0 = time.perf_counter()
            for g in range(args.games):
                r, tm, to = play(game, g % game.players, opponent, args.seed + g,
                                 args.simulations, args.evaluator)
                score += r
                moves_m += tm
                moves_o += to
            ci = wilson(score, args.games)  # type: ignore[arg-type]  # draws: half a win
            print(f"{name:>15} vs {opponent:<10} MCTS scores {score / args.games:6.1%} "
                  f"[95% {ci.low:.1%}, {ci.high:.1%}] (even: {1 / game.players:.0%}); "
                  f"ms/move MCTS {1000 * np.mean(moves_m):.1f}, {opponent} "
                  f"{1000 * np.mean(moves_o) if moves_o else 0.0:.1f}; "
                  f"{time.perf_counter() - t0:.0f} s  ({game})")


if __name__ == "__main__":
    main()
