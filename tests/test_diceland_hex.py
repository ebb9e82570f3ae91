"""Diceland hex: the rules of `diceland-hex-nl.txt` as CLARIFICATIONS.md sums them up, the
book's example, boards (presets, files, generator, errors), exact attack odds and
random-play conformance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rules.core import CHANCE_PLAYER, RulesError, SeededRoller
from rules.diceland_hex import (
    deserialize,
    greedy_action,
    heuristic,
    load_board,
    make_board,
    new_game,
    presets,
    random_board,
)
from rules.diceland_hex.game import ATTACK, CHOOSE, MOVE, PLACE, START_ROLL, HexState

RED, BLUE = 0, 1

# The compact board, numbered:      0   1   2   3
#                                     4   5   6   7
# Triangles: (0,1,4) (1,4,5) (1,2,5) (2,5,6) (2,3,6) (3,6,7).


def position(armies: dict[int, tuple[int, int]], turn: int = RED, board: str = "compact",
             terrain: bool = False) -> HexState:
    """A game in its attack phase with the given armies {tile: (seat, value)}."""
    s = new_game(2, {"board": board, "terrain": terrain, "max_rounds": 200},
                 np.random.default_rng(0))
    for t, (seat, value) in armies.items():
        s.owner[t], s.value[t] = seat, value
    s.hands = [[1, 1], [1, 1]]
    s._start_turn(turn)
    s.take_events()
    return s


# --- the attack --------------------------------------------------------------------------


def test_book_example_red_5_attacks_blue_3_and_rolls_2():
    # Book: "rood had 5, blauw had 3, rood valt aan en gooit 2. Rood krijgt 2, blauw 1."
    s = position({1: (RED, 5), 2: (BLUE, 3), 7: (BLUE, 6)})
    s.apply_action(("attack", 1, 2))
    assert s.chance_request() == ("d6", 1)
    s.apply_chance((2,))
    assert (s.value[1], s.value[2]) == (2, 1)
    assert (s.owner[1], s.owner[2]) == (RED, BLUE)


def test_a_roll_above_the_attacker_lowers_the_attacker_by_one_only():
    s = position({1: (RED, 3), 2: (BLUE, 4), 7: (BLUE, 6)})
    s.apply_action(("attack", 1, 2))
    s.apply_chance((5,))
    assert (s.value[1], s.value[2]) == (2, 4)


def test_a_roll_equal_to_the_attacker_succeeds():
    s = position({1: (RED, 3), 2: (BLUE, 6), 7: (BLUE, 6)})
    s.apply_action(("attack", 1, 2))
    s.apply_chance((3,))
    assert (s.value[1], s.value[2]) == (3, 3)


def test_an_attacker_lowered_below_one_is_beaten():
    s = position({1: (RED, 1), 2: (BLUE, 4), 0: (RED, 2), 7: (BLUE, 1)})
    s.apply_action(("attack", 1, 2))
    s.apply_chance((2,))
    assert s.owner[1] == -1 and s.value[1] == 0


def test_a_beaten_defender_leaves_and_the_attacker_moves_onto_its_tile():
    s = position({1: (RED, 6), 2: (BLUE, 2), 7: (BLUE, 3), 0: (RED, 1)})
    s.apply_action(("attack", 1, 2))
    s.apply_chance((4,))
    assert s.owner[2] == RED and s.value[2] == 4  # the rolled die stands on the won tile
    assert s.owner[1] == -1
    assert s.phase == MOVE
    assert not any(a[0] == "move" and a[1] == 2 for a in s.legal_actions())


def test_the_attack_is_mandatory_when_an_army_borders_an_enemy():
    s = position({0: (RED, 2), 1: (BLUE, 6), 7: (BLUE, 1), 3: (RED, 6)})
    assert s.phase == ATTACK
    actions = s.legal_actions()
    assert actions and all(a[0] in ("attack", "combined") for a in actions)
    assert ("stay",) not in actions


def test_without_an_enemy_neighbour_there_is_no_attack_and_the_turn_moves_on():
    s = position({0: (RED, 2), 7: (BLUE, 3)})
    assert s.phase == MOVE and s.quiet_turns == 1


def test_attacks_reach_only_adjacent_enemies():
    s = position({0: (RED, 6), 2: (BLUE, 3), 4: (BLUE, 3)})
    assert s.legal_actions() == [("attack", 0, 4)]


# --- the combined attack ------------------------------------------------------------------


def test_combined_attack_needs_two_touching_armies_that_both_touch_the_target():
    s = position({1: (RED, 4), 5: (RED, 2), 2: (BLUE, 3), 7: (BLUE, 1)})
    assert ("combined", 1, 5, 2) in s.legal_actions()
    s2 = position({0: (RED, 4), 2: (RED, 2), 1: (BLUE, 3), 7: (BLUE, 1)})  # 0, 2 apart
    assert not any(a[0] == "combined" for a in s2.legal_actions())


def test_combined_attack_rolls_two_and_the_attacker_chooses_roll_and_army():
    # Clarification: the attacker chooses (German book); the English "must use the higher
    # roll" is an error, so using the lower roll must be allowed.
    s = position({1: (RED, 4), 5: (RED, 2), 2: (BLUE, 3), 7: (BLUE, 1)})
    s.apply_action(("combined", 1, 5, 2))
    assert s.chance_request() == ("d6", 2)
    s.apply_chance((5, 2))
    assert s.phase == CHOOSE and s.current_player() == RED
    assert set(s.legal_actions()) == {("use", 2, 1), ("use", 2, 5), ("use", 5, 1),
                                      ("use", 5, 5)}
    s.apply_action(("use", 2, 5))  # the lower roll with the weaker army
    assert (s.value[5], s.value[2], s.value[1]) == (2, 1, 4)


def test_greedy_uses_the_lower_roll_when_it_is_better():
    s = position({1: (RED, 4), 5: (RED, 2), 2: (BLUE, 3), 7: (BLUE, 1)})
    s.apply_action(("combined", 1, 5, 2))
    s.apply_chance((6, 3))  # 6 fails for both; 3 with the 4 beats the blue 3
    assert greedy_action(s, np.random.default_rng(0)) == ("use", 3, 1)


# --- moving ------------------------------------------------------------------------------


def test_move_one_army_one_tile_to_an_empty_tile_or_stay():
    s = position({0: (RED, 2), 3: (BLUE, 3)})
    assert s.phase == MOVE
    assert set(s.legal_actions()) == {("stay",), ("move", 0, 1), ("move", 0, 4)}
    s.apply_action(("move", 0, 1))
    assert s.owner[1] == RED and s.value[1] == 2 and s.owner[0] == -1
    assert s.current_player() == BLUE


def test_an_army_bordering_an_enemy_may_not_move():
    s = position({0: (RED, 6), 4: (BLUE, 1), 7: (BLUE, 5), 3: (RED, 2), 5: (RED, 2)})
    s.apply_action(("attack", 0, 4))
    s.apply_chance((6,))  # 6 <= 6 succeeds: blue is beaten, red moves onto tile 4
    assert s.owner[4] == RED and s.phase == MOVE
    moves = [a for a in s.legal_actions() if a[0] == "move"]
    assert moves and all(a[1] == 5 for a in moves)
    assert all(a[1] != 3 for a in moves)  # tile 3 borders blue on 7
    assert all(a[1] != 4 for a in moves)  # just moved in after the win


def test_no_legal_move_ends_the_turn_by_itself():
    s = position({0: (RED, 6), 1: (BLUE, 3), 4: (BLUE, 3), 7: (RED, 1), 3: (BLUE, 1)})
    s.apply_action(("attack", 0, 1))
    s.apply_chance((6,))  # 6 <= 6: blue on 1 drops to -3 and is beaten
    assert s.current_player() == BLUE and s.phase == ATTACK


# --- setup and who starts ------------------------------------------------------------------


def test_setup_rolls_tiles_over_two_plus_two_dice_and_alternates_placement():
    s = new_game(2, {"board": "compact"}, np.random.default_rng(0))
    assert s.dice_per_player() == 6
    assert s.current_player() == CHANCE_PLAYER and s.chance_request() == ("d6", 6)
    s.apply_chance((1, 2, 3, 4, 5, 6))
    s.apply_chance((6, 6, 5, 5, 4, 4))
    assert s.phase == PLACE and s.current_player() == RED
    assert ("place", 6, 0) in s.legal_actions() and ("place", 1, 0) in s.legal_actions()
    s.apply_action(("place", 6, 0))
    assert s.current_player() == BLUE and s.owner[0] == RED and s.value[0] == 6
    seats = []
    while s.phase == PLACE:
        seats.append(s.current_player())
        s.apply_action(s.legal_actions()[-1])
    assert seats == [BLUE, RED] * 3 + [BLUE]
    assert all(o >= 0 for o in s.owner)
    assert len(s.hands[RED]) == len(s.hands[BLUE]) == 2


def test_the_higher_spare_total_starts_and_a_tie_re_rolls_the_spares():
    s = new_game(2, {"board": "compact"}, np.random.default_rng(0))
    s.apply_chance((1, 1, 2, 2, 3, 3))
    s.apply_chance((1, 1, 2, 2, 3, 3))
    order = [(RED, 3, 0), (BLUE, 3, 1), (RED, 3, 2), (BLUE, 3, 3), (RED, 2, 4),
             (BLUE, 2, 5), (RED, 2, 6), (BLUE, 2, 7)]
    for _seat, value, tile in order:
        s.apply_action(("place", value, tile))
    assert s.hands == [[1, 1], [1, 1]] and s.phase == START_ROLL
    assert s.chance_request() == ("d6", 4)
    s.apply_chance((2, 2, 5, 1))  # Red 4, Blue 6
    assert s.current_player() == BLUE


def test_a_placed_die_keeps_its_rolled_value():
    s = new_game(2, {"board": "compact"}, np.random.default_rng(0))
    s.apply_chance((1, 2, 3, 4, 5, 6))
    s.apply_chance((1, 2, 3, 4, 5, 6))
    with pytest.raises(RulesError):
        s.apply_action(("place", 7, 0))  # no 7 was rolled
    s.apply_action(("place", 4, 3))
    assert s.value[3] == 4 and 4 not in s.hands[RED]


# --- the end -----------------------------------------------------------------------------


def test_a_player_without_armies_loses():
    s = position({1: (RED, 6), 2: (BLUE, 1), 7: (RED, 1)})
    s.apply_action(("attack", 1, 2))
    s.apply_chance((3,))
    assert s.is_terminal() and s.returns() == [1.0, 0.0]


def test_two_turns_in_a_row_without_attack_end_it_more_armies_win():
    s = position({0: (RED, 1), 4: (RED, 1), 3: (BLUE, 6)})
    s.apply_action(("stay",))
    s.apply_action(("stay",))
    assert s.is_terminal() and s.returns() == [1.0, 0.0]


def test_equal_armies_more_pips_win_and_equal_pips_draw():
    s = position({0: (RED, 2), 3: (BLUE, 6)})
    s.apply_action(("stay",))
    s.apply_action(("stay",))
    assert s.returns() == [0.0, 1.0]
    s = position({0: (RED, 5), 3: (BLUE, 5)})
    s.apply_action(("stay",))
    s.apply_action(("stay",))
    assert s.returns() == [0.5, 0.5]


def test_an_attack_in_between_resets_the_quiet_count():
    s = position({0: (RED, 2), 2: (BLUE, 6)})
    s.apply_action(("move", 0, 1))  # red comes next to blue...
    assert s.quiet_turns == 1 and not s.is_terminal()
    assert s.current_player() == BLUE and s.phase == ATTACK  # ...so blue must attack
    s.apply_action(("attack", 2, 1))
    assert s.quiet_turns == 0


def test_a_quiet_turn_each_ends_the_game_even_after_a_move_into_contact():
    s = position({0: (RED, 2), 3: (BLUE, 6), 7: (BLUE, 1)})
    s.apply_action(("move", 0, 1))
    s.apply_action(("move", 3, 2))
    assert s.is_terminal() and s.returns() == [0.0, 1.0]


# --- terrain variant ----------------------------------------------------------------------


def test_city_raises_its_army_at_the_end_of_the_owner_s_turn():
    # compact terrain: P F P P / P C M P; tile 5 is the city, tile 1 forest, tile 6 mountain.
    s = position({5: (RED, 3), 3: (BLUE, 2)}, terrain=True)
    s.apply_action(("stay",))
    assert s.value[5] == 4
    s = position({5: (RED, 3), 3: (BLUE, 2)}, terrain=False)
    s.apply_action(("stay",))
    assert s.value[5] == 3


def test_city_never_raises_beyond_six_nor_an_enemy_s_army():
    s = position({5: (RED, 6), 3: (BLUE, 2)}, terrain=True)
    s.apply_action(("stay",))
    assert s.value[5] == 6
    s = position({5: (BLUE, 2), 0: (RED, 1)}, terrain=True)
    s.apply_action(("stay",))
    assert s.value[5] == 2


def test_house_terrains_forest_hill_mountain():
    s = position({0: (RED, 4), 1: (BLUE, 5), 7: (BLUE, 1)}, terrain=True)  # 1 is forest
    s.apply_action(("attack", 0, 1))
    s.apply_chance((3,))
    assert s.value[1] == 3  # lowered by 2, not 3
    s = position({6: (RED, 3), 7: (BLUE, 5), 0: (BLUE, 1)}, terrain=True)  # 6 is mountain
    s.apply_action(("attack", 6, 7))
    s.apply_chance((5,))
    assert s.value[6] == 3
    hill = make_board("h", [(0, 0), (2, 0), (4, 0), (6, 0), (1, 1), (3, 1), (5, 1), (7, 1)],
                      list("HPPPPPPP"))
    s = position({0: (RED, 3), 1: (BLUE, 5), 7: (BLUE, 1)}, terrain=True)
    s.board = hill
    s.apply_action(("attack", 0, 1))
    s.apply_chance((4,))  # 4 <= 3 + 1 from the hill
    assert (s.value[0], s.value[1]) == (4, 1)


# --- boards ------------------------------------------------------------------------------


def test_presets_are_even_connected_and_include_a_compact_and_a_long_board():
    names = presets()
    assert {"compact", "long", "large", "classic", "ring"} <= set(names)
    for name in names:
        b = load_board(name)
        assert 8 <= b.size <= 36 and b.size % 2 == 0
    assert load_board("compact").size == 8
    long = load_board("long")
    assert max(c for c, _ in long.cells) > 3 * max(r for _, r in long.cells)


def test_unknown_board_names_suggest_the_closest():
    with pytest.raises(RulesError, match="did you mean compact"):
        load_board("compakt")


def test_board_files_with_odd_or_disconnected_tiles_are_refused(tmp_path: Path):
    odd = tmp_path / "odd.yaml"
    odd.write_text("layout: |\n  P P P P\n   P P P P P\n")
    with pytest.raises(RulesError, match="even number") as err:
        load_board(str(odd))
    assert str(odd) in str(err.value) and "\n" not in str(err.value)
    apart = tmp_path / "apart.yaml"
    apart.write_text("layout: |\n  P P P P . . P P\n   P P\n")
    with pytest.raises(RulesError, match="not connected"):
        load_board(str(apart))
    off = tmp_path / "off.yaml"
    off.write_text("layout: |\n  PP P P\n   P P P P\n")
    with pytest.raises(RulesError, match="off the hex grid"):
        load_board(str(off))
    letter = tmp_path / "letter.yaml"
    letter.write_text("layout: |\n  P P P P\n   P Q P P\n")
    with pytest.raises(RulesError, match="terrain letter"):
        load_board(str(letter))


@pytest.mark.parametrize("tiles", [8, 20, 36])
def test_random_boards_are_even_connected_and_seeded(tiles):
    for seed in range(5):
        a = random_board(tiles, np.random.default_rng(seed))
        b = random_board(tiles, np.random.default_rng(seed))
        assert a == b and a.size == tiles  # make_board checks connection
    with pytest.raises(RulesError, match="even"):
        random_board(9, np.random.default_rng(0))


def test_layout_round_trips():
    b = load_board("classic")
    from rules.diceland_hex.board import parse_layout

    assert parse_layout(b.layout(), "again", "test").cells == b.cells


# --- exact odds --------------------------------------------------------------------------


@pytest.mark.parametrize("a", range(1, 7))
def test_single_attack_success_probability_is_value_over_six(a):
    s = position({1: (RED, a), 2: (BLUE, 6), 7: (BLUE, 6)})
    s.apply_action(("attack", 1, 2))
    outcomes = s.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    hit = sum(p for faces, p in outcomes if _after(s, faces).owner[2] != BLUE
              or _after(s, faces).value[2] < 6)
    assert hit == pytest.approx(a / 6)


def test_combined_attack_success_is_one_minus_both_miss():
    # Armies 2 and 3: success unless both rolls exceed 3: 1 - (3/6)^2 = 3/4.
    s = position({1: (RED, 2), 5: (RED, 3), 2: (BLUE, 6), 7: (BLUE, 6)})
    s.apply_action(("combined", 1, 5, 2))
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 36
    hit = 0.0
    for faces, p in outcomes:
        c = _after(s, faces)
        if any(_chosen(c, choice).value[2] < 6 for choice in c.legal_actions()):
            hit += p
    assert hit == pytest.approx(1 - (3 / 6) ** 2)


def _after(s: HexState, faces: tuple[int, ...]) -> HexState:
    c = s.clone()
    c.apply_chance(faces)
    return c


def _chosen(s: HexState, choice: tuple) -> HexState:
    c = s.clone()
    c.apply_action(choice)
    return c


# --- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize("board", ["compact", "ring", "classic", "random"])
def test_random_play_keeps_one_army_per_tile_and_values_one_to_six(board):
    roller = SeededRoller()
    for seed in range(15):
        rng = np.random.default_rng(seed)
        s = new_game(2, {"board": board, "tiles": 16, "terrain": seed % 2 == 1},
                     rng)
        dice = s.dice_per_player()
        while not s.is_terminal():
            if s.is_chance_node():
                kind, n = s.chance_request()
                s.apply_chance(roller.roll(kind, n, rng))
            else:
                actions = s.legal_actions()
                assert actions
                s.apply_action(actions[int(rng.integers(len(actions)))])
            for t in range(s.board.size):
                assert (s.owner[t] == -1 and s.value[t] == 0) or (
                    s.owner[t] in (0, 1) and 1 <= s.value[t] <= 6)
            if s.phase not in ("setup_roll", "place"):
                assert len(s.armies(0)) + len(s.hands[0]) <= dice
            if seed < 2:
                again = deserialize(json.loads(json.dumps(s.serialize())))
                assert again.serialize() == s.serialize()
        assert sorted(s.returns()) in ([0.0, 1.0], [0.5, 0.5])


def test_corrupt_saves_raise_one_line_naming_the_field():
    good = position({0: (RED, 2), 3: (BLUE, 6)}).serialize()
    cases = [("owner", [0, 0]), ("value", [9] * 8), ("phase", "lunch"), ("winner", 7),
             ("board", {"cells": [[0, 0], [2, 0]], "terrain": "PP"}), ("game", "chess")]
    for field, value in cases:
        with pytest.raises(RulesError, match=field if field != "board" else "even") as err:
            deserialize(dict(good, **{field: value}))
        assert "\n" not in str(err.value)


def test_heuristic_values_armies_first():
    s = position({0: (RED, 1), 4: (RED, 1), 3: (BLUE, 6)})
    assert heuristic(s)[RED] > heuristic(s)[BLUE]


def test_render_shows_tile_numbers_and_armies():
    s = position({0: (RED, 2), 3: (BLUE, 6)})
    text = s.render()
    assert " 0R2" in text and " 3B6" in text and " 5.." in text


def test_player_counts_other_than_two_are_refused():
    with pytest.raises(RulesError, match="2 players"):
        new_game(3, {"board": "compact"}, np.random.default_rng(0))


def test_full_game_with_the_physics_roller():
    roller_mod = pytest.importorskip("simulator.physics.roller")
    from rules.core.runner import play

    record = play("diceland-hex", ["greedy", "random"], 2, {"board": "compact"},
                  roller=roller_mod.PhysicsRoller())
    assert record.roller == "physics"
    chances = [line for line in record.lines if line["type"] == "chance"]
    assert len(chances) >= 3 and all(1 <= f <= 6 for c in chances for f in c["faces"])
    assert record.lines[-1]["type"] == "end"
