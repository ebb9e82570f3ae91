"""Diced: every rule of `rulebooks/diced.txt` and each Diced point of CLARIFICATIONS.md,
exact probabilities against brute-force enumeration, and random-play conformance."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from rules.core import CHANCE_PLAYER, RulesError, SeededRoller
from rules.diced import (
    candidate_actions,
    deserialize,
    exact_steal_probability,
    greedy_action,
    heuristic,
    new_game,
)
from rules.diced.game import DEFEND, REROLL_CHOICE, ROLL, TURN, DicedState


def game(n: int = 3, pool: int | None = None) -> DicedState:
    return new_game(n, {"pool": pool, "max_rounds": 200}, np.random.default_rng(0))


def started(dice: list[int], pool: int = 0, turn: int = 0) -> DicedState:
    """A game with the roll-off done, seat `turn` to play, and the given dice in hand."""
    s = game(len(dice))
    s.dice = list(dice)
    s.total = sum(dice) + pool
    s.pool = pool
    s.pool_open = pool > 0
    s._start_turn(turn)
    s.take_events()
    return s


def attack(s: DicedState, target: int, k: int, j: int, faces: tuple[int, ...]) -> None:
    s.apply_action(("attack", target, k))
    s.apply_action(("defend", j))
    s.apply_chance(faces)


# --- setup -------------------------------------------------------------------------------


def test_each_player_starts_with_one_die_and_the_rest_is_the_pool():
    s = game(5)
    assert s.dice == [1] * 5
    assert s.pool == 15 and s.pool_open  # default: 3 per player
    assert game(4, pool=7).pool == 7


@pytest.mark.parametrize("n", [3, 5, 8])
def test_materials_at_minimum_two_dice_per_player(n):
    # diced.txt, Materials: "Six-sided dice-at minimum two per player, but any number beyond
    # that may be used." One die in hand each, so the pool holds at least one per player.
    s = game(n, pool=n)
    assert s.total == 2 * n and s.pool == n
    for pool in (0, n - 1, -1):
        with pytest.raises(RulesError, match=f"--pool must be at least {n} .*got {pool}"):
            game(n, pool=pool)


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_impossible_player_counts_are_refused(n):
    with pytest.raises(RulesError, match="3 to 8 players"):
        game(n)


def test_rolloff_highest_starts_and_ties_roll_again_among_the_tied_only():
    s = game(4)
    assert s.current_player() == CHANCE_PLAYER and s.chance_request() == ("d6", 4)
    s.apply_chance((5, 6, 2, 6))  # P2 and P4 tie on 6
    assert s.chance_request() == ("d6", 2) and s.contenders == [1, 3]
    s.apply_chance((3, 4))
    assert s.phase == TURN and s.current_player() == 3


def test_play_passes_to_the_left_and_skips_players_who_are_out():
    s = started([2, 0, 3, 1], turn=0)
    s.apply_action(("end",))
    assert s.current_player() == 2  # seat 1 is out
    s.apply_action(("end",))
    s.apply_action(("end",))
    assert s.current_player() == 0


# --- the pool ----------------------------------------------------------------------------


def test_each_six_at_the_pool_takes_one_die():
    s = started([4, 1, 1], pool=5)
    s.apply_action(("pool", 3))
    assert s.chance_request() == ("d6", 3)
    s.apply_chance((6, 2, 6))
    assert s.dice[0] == 6 and s.pool == 3


def test_the_pool_never_gives_more_than_it_holds_and_closes_when_empty():
    s = started([4, 1, 1], pool=1)
    s.apply_action(("pool", 3))
    s.apply_chance((6, 6, 6))
    assert s.dice[0] == 5 and s.pool == 0 and not s.pool_open
    s.apply_action(("end",))
    assert not any(a[0] == "pool" for a in s.legal_actions())


def test_a_game_without_a_pool_has_it_closed_from_the_start():
    s = started([2, 2, 2], pool=0)
    assert not any(a[0] == "pool" for a in s.legal_actions())


# --- attacks on players -----------------------------------------------------------------


def test_opposing_sixes_cancel_in_pairs_and_the_surplus_steals():
    s = started([3, 3, 1])
    attack(s, 1, 3, 2, (6, 6, 1, 6, 2))  # 2 sixes against 1: one surplus
    assert s.dice[:2] == [4, 2]


def test_equal_sixes_cancel_the_exchange():
    s = started([3, 3, 1])
    attack(s, 1, 2, 2, (6, 2, 6, 3))
    assert s.dice[:2] == [3, 3]


def test_a_defender_with_surplus_sixes_takes_from_the_attacker():
    # Decision (CLARIFICATIONS): cancelling is symmetric.
    s = started([3, 3, 1])
    attack(s, 1, 1, 3, (2, 6, 6, 1))
    assert s.dice[:2] == [1, 5]  # two surplus sixes take two dice


def test_no_side_takes_more_than_the_other_holds():
    s = started([5, 2, 1])
    attack(s, 1, 5, 1, (6, 6, 6, 6, 1, 1))
    assert s.dice[:2] == [7, 0]


def test_the_defender_may_commit_any_number_of_dice_including_none():
    s = started([2, 4, 1])
    s.apply_action(("attack", 1, 1))
    assert s.current_player() == 1 and s.phase == DEFEND
    assert s.legal_actions() == [("defend", j) for j in range(5)]
    s.apply_action(("defend", 0))
    assert s.chance_request() == ("d6", 1)


def test_several_attacks_per_turn_each_die_once_and_on_several_targets():
    s = started([4, 2, 2])
    attack(s, 1, 2, 1, (1, 1, 1))
    assert s.current_player() == 0 and s.ready == 2
    assert ("attack", 2, 3) not in s.legal_actions()  # only 2 dice left unused
    attack(s, 2, 2, 1, (2, 2, 2))
    assert s.current_player() == 1  # all dice used: the turn ended by itself


def test_the_player_on_turn_may_end_it_at_any_time():
    s = started([4, 2, 2])
    assert ("end",) in s.legal_actions()
    s.apply_action(("end",))
    assert s.current_player() == 1


def test_dice_taken_during_a_turn_cannot_attack_until_the_next_turn():
    # Decision (CLARIFICATIONS).
    s = started([2, 3, 3])
    attack(s, 1, 1, 1, (6, 2))
    assert s.dice[0] == 3 and s.ready == 1
    assert max(a[-1] for a in s.legal_actions() if a[0] == "attack") == 1


def test_a_loser_on_turn_loses_dice_that_could_no_longer_attack_first():
    s = started([4, 1, 5])
    attack(s, 2, 2, 5, (1, 1, 6, 6, 6, 1, 1))  # defender's 3 surplus sixes
    assert s.dice[0] == 1 and s.ready == 1  # both rolled dice and one more went; 1 ready left
    assert s.current_player() == 0


def test_attack_against_one_self_or_a_player_who_is_out_is_illegal():
    s = started([3, 0, 2])
    assert ("attack", 0, 1) not in s.legal_actions()
    assert ("attack", 1, 1) not in s.legal_actions()
    with pytest.raises(RulesError):
        s.apply_action(("attack", 1, 1))


# --- defence re-rolls --------------------------------------------------------------------


def test_each_die_held_back_gives_one_token_at_most_three():
    s = started([5, 2, 2])
    attack(s, 1, 1, 0, (1,))
    s.apply_action(("end",))
    assert s.tokens[0] == 3
    s = started([2, 2, 2])
    attack(s, 1, 1, 0, (1,))
    s.apply_action(("end",))
    assert s.tokens[0] == 1


def test_tokens_are_spent_on_defence_only_on_non_six_dice():
    s = started([3, 2, 2])
    s.tokens[1] = 2
    attack(s, 1, 2, 2, (6, 6, 6, 1))
    assert s.phase == REROLL_CHOICE and s.current_player() == 1
    assert s.legal_actions() == [("keep",), ("reroll", 1)]  # one non-six to re-roll
    s.apply_action(("reroll", 1))
    assert s.chance_request() == ("d6", 1)
    s.apply_chance((6,))
    assert s.tokens[1] == 1
    assert s.dice[:2] == [3, 2]  # 2 sixes against 2: cancelled


def test_the_defender_may_re_roll_in_steps_and_look_at_each_result():
    s = started([3, 3, 2])
    s.tokens[1] = 3
    attack(s, 1, 3, 3, (6, 6, 2, 1, 2, 3))
    s.apply_action(("reroll", 1))
    s.apply_chance((6,))
    assert s.phase == REROLL_CHOICE and s.tokens[1] == 2
    s.apply_action(("reroll", 2))
    s.apply_chance((6, 5))
    assert s.tokens[1] == 0 and s.dice[:2] == [3, 3]


def test_the_attacker_never_gets_re_rolls():
    s = started([3, 2, 2])
    s.tokens[0] = 3  # cannot happen in play (they expire), but even so: attack only
    attack(s, 1, 2, 1, (1, 1, 1))
    assert s.phase == TURN and s.tokens[0] == 3


def test_tokens_expire_when_the_owner_s_next_turn_begins():
    s = started([3, 3, 3])
    s.apply_action(("end",))
    assert s.tokens[0] == 3
    s.apply_action(("end",))
    s.apply_action(("end",))
    assert s.current_player() == 0 and s.tokens[0] == 0


# --- elimination and the win -------------------------------------------------------------


def test_a_player_without_dice_is_out_and_the_last_one_holding_dice_wins():
    s = started([2, 1, 0])
    attack(s, 1, 1, 1, (6, 1))
    assert s.is_terminal() and s.returns() == [1.0, 0.0, 0.0]
    assert s.current_player() < 0


def test_the_round_limit_gives_the_game_to_the_most_dice():
    s = new_game(3, {"pool": 3, "max_rounds": 1}, np.random.default_rng(0))
    s.apply_chance((6, 1, 1))
    s.dice = [1, 1, 1]
    for _ in range(3):
        s.apply_action(("end",))
    assert s.is_terminal() and s.returns() == pytest.approx([1 / 3] * 3)


# --- exact values ------------------------------------------------------------------------


@pytest.mark.parametrize("k,j", [(1, 0), (1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (3, 3)])
def test_steal_probability_brute_force_equals_engine_outcomes(k, j):
    # Brute force over every one of the 6^(k+j) rolls.
    wins = sum(1 for faces in itertools.product(range(1, 7), repeat=k + j)
               if faces[:k].count(6) > faces[k:].count(6))
    brute = wins / 6 ** (k + j)
    assert exact_steal_probability(k, j) == pytest.approx(brute, abs=1e-12)
    s = started([k, max(j, 1), 1])
    s.apply_action(("attack", 1, k))
    s.apply_action(("defend", j))
    outcomes = s.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    engine = 0.0
    for faces, p in outcomes:
        c = s.clone()
        c.apply_chance(faces)
        if c.dice[1] < max(j, 1):
            engine += p
    assert engine == pytest.approx(brute, abs=1e-12)


def test_known_value_one_die_against_one():
    # P(6 against not-6) = 1/6 * 5/6.
    assert exact_steal_probability(1, 1) == pytest.approx(5 / 36)


def test_chance_outcomes_of_a_re_roll_sum_to_one():
    s = started([3, 3, 2])
    s.tokens[1] = 3
    attack(s, 1, 3, 3, (6, 6, 2, 1, 2, 3))
    s.apply_action(("reroll", 3))
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 4 and sum(p for _, p in outcomes) == pytest.approx(1.0)


# --- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 5, 8])
def test_random_play_conserves_dice_and_keeps_invariants(n):
    roller = SeededRoller()
    for seed in range(25):
        rng = np.random.default_rng(seed)
        s = new_game(n, {"pool": None, "max_rounds": 50}, rng)
        total = s.total
        steps = 0
        while not s.is_terminal():
            if s.is_chance_node():
                kind, m = s.chance_request()
                s.apply_chance(roller.roll(kind, m, rng))
            else:
                actions = s.legal_actions()
                assert actions
                s.apply_action(actions[int(rng.integers(len(actions)))])
            steps += 1
            assert sum(s.dice) + s.pool == total
            assert min(s.dice) >= 0 and s.pool >= 0
            assert all(0 <= t <= 3 for t in s.tokens)
            if s.phase == TURN:
                assert 0 < s.ready <= s.dice[s.turn]
            if seed < 3:
                again = deserialize(json.loads(json.dumps(s.serialize())))
                assert again.serialize() == s.serialize()
        assert sum(s.returns()) == pytest.approx(1.0)


def test_same_seed_same_game():
    from rules.core.runner import play

    a = play("diced", ["random", "greedy", "mcts"], 7, bot_settings={"mcts": {"iterations": 20}})
    b = play("diced", ["random", "greedy", "mcts"], 7, bot_settings={"mcts": {"iterations": 20}})
    assert a.lines == b.lines


def test_corrupt_saves_raise_one_line_naming_the_field():
    good = started([2, 2, 2]).serialize()
    for field, value in [("dice", [2, 2]), ("dice", [2, 2, 99]), ("phase", "dancing"),
                         ("players", 2), ("tokens", [0, 0, 7]), ("game", "chess")]:
        bad = dict(good, **{field: value})
        with pytest.raises(RulesError, match=field) as err:
            deserialize(bad)
        assert "\n" not in str(err.value)


# --- bots ---------------------------------------------------------------------------------


def test_greedy_defends_with_everything_and_takes_the_open_pool():
    s = started([3, 4, 1], pool=4)
    assert greedy_action(s, np.random.default_rng(0)) == ("pool", 3)
    s.apply_action(("attack", 1, 1))
    assert greedy_action(s, np.random.default_rng(0)) == ("defend", 4)


def test_heuristic_estimates_win_chances_from_dice_and_the_open_pool():
    s = started([3, 1, 0], pool=4)
    value = heuristic(s)
    # Two living players share the pool: strengths 3 + 0.5 and 1 + 0.5, raised to 2.5.
    assert value[2] == 0.0 and sum(value) == pytest.approx(1.0)
    assert value[0] == pytest.approx(3.5 ** 2.5 / (3.5 ** 2.5 + 1.5 ** 2.5))
    # A lead counts for more than its share of the dice.
    assert value[0] > 0.75
    even = started([2, 2, 2])
    assert heuristic(even) == pytest.approx([1 / 3] * 3)
    assert heuristic(started([4, 0, 0])) == [1.0, 0.0, 0.0]


def test_candidate_actions_drop_only_dominated_or_redundant_moves():
    s = started([6, 2, 3], pool=4)
    kept = candidate_actions(s)
    assert set(kept) <= set(s.legal_actions())
    # All ready dice, or one to three held back (tokens), at the pool and each player.
    assert [a for a in kept if a[0] == "pool"] == [("pool", k) for k in (6, 5, 4, 3)]
    assert [a for a in kept if a[:2] == ("attack", 2)] == [("attack", 2, k) for k in (6, 5, 4, 3)]
    assert ("end",) in kept and ("pool", 1) not in kept
    s.apply_action(("attack", 1, 2))
    assert candidate_actions(s) == [("defend", 2)]  # more defending dice never hurt
    s.apply_action(("defend", 2))
    s.tokens[1] = 3
    s.apply_chance((6, 6, 1, 2))
    assert candidate_actions(s) == [("keep",), ("reroll", 1), ("reroll", 2)]
    small = started([1, 1, 1], pool=0)
    assert candidate_actions(small) == [("attack", 1, 1), ("attack", 2, 1), ("end",)]


def test_mcts_never_defends_with_fewer_than_all_dice():
    import rules.diced as diced
    from rules.core.bots import MCTSBot

    s = started([2, 4, 3], pool=3)
    s.apply_action(("attack", 1, 2))
    bot = MCTSBot(diced, np.random.default_rng(3), **diced.BOT_SETTINGS["mcts"])
    assert bot.step(s) == ("defend", 4)


def test_chance_node_vocabulary_raises_outside_chance_nodes():
    s = started([3, 1, 1])
    with pytest.raises(ValueError):
        s.chance_request()
    s.apply_action(("attack", 1, 1))
    s.apply_action(("defend", 1))
    assert s.phase == ROLL
    with pytest.raises(ValueError):
        s.legal_actions()


def test_full_game_with_the_physics_roller():
    roller_mod = pytest.importorskip("simulator.physics.roller")
    from rules.core.runner import play

    roller = roller_mod.PhysicsRoller()
    record = play("diced", ["greedy", "greedy", "random"], 3, roller=roller)
    assert record.roller == "physics"
    chances = [line for line in record.lines if line["type"] == "chance"]
    assert chances and all(1 <= f <= 6 for line in chances for f in line["faces"])
    assert record.lines[-1]["type"] == "end" and len(record.winners) >= 1
