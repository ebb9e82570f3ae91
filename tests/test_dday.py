"""D-Day Dice: every rule of `dday-dice.txt` the engine implements, exact values, the
map format's validation, the players, and conformance over many seeds."""

from __future__ import annotations

import copy
import json
from collections import Counter
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
import yaml

import rules.dday as dd
from rules.core import RulesError, SeededRoller
from rules.core.bots import RandomBot
from rules.dday.battlemap import MAPS_DIR
from rules.dday.game import DDayState, equipment_points

GC = MAPS_DIR / "greyrock-cove.yaml"


def solo(**options) -> DDayState:
    """Solo on Greyrock Cove with no fire on the landing, so a first turn's gains stay."""
    return map_state(lambda r: r["sectors"]["landing"].update(enemy_fire=0), 1, **options)


def raw_map() -> dict:
    return yaml.safe_load(GC.read_text())


def map_state(edit, players: int = 1, dmc15=False, binoculars_on_fire=False) -> DDayState:
    """A game on Greyrock Cove after `edit(raw)` changed its YAML data."""
    raw = raw_map()
    edit(raw)
    return DDayState(dd.parse_map(raw, "test-map"), players, {
        "dead_mans_chest_ep": 15 if dmc15 else 20, "binoculars_on_fire": binoculars_on_fire})


def to_move(s: DDayState) -> None:
    """Through stars (first choice), cancels, Surge colours and items (none) to Phase 4."""
    while s.node in ("stars", "items", "cancel", "surge_colour"):
        s.apply_action(("end_items",) if s.node == "items" else s.legal_actions()[0])


def final(s: DDayState, faces, keep=(0, 1)) -> None:
    """Roll `faces` for the unit whose turn it is and take them as the final result."""
    s.apply_chance(tuple(faces))
    s.apply_action(("keep", *keep))
    s.apply_action(("done",))


def finals(s: DDayState, *rolls, keep=(0, 1)) -> None:
    """Every unit's first roll, round by round as the engine runs the rolling phase: all
    units roll (`rolls` in seat order), then each sets aside `keep` and takes the result."""
    for faces in rolls:
        s.apply_chance(tuple(faces))
    for _ in rolls:
        s.apply_action(("keep", *keep))
        s.apply_action(("done",))


def at(s: DDayState, sector: str, seat: int = 0) -> None:
    u = s.units[seat]
    u.sector = sector
    u.visited.append(sector)
    u.turns_here = 0


# ---- the dice -----------------------------------------------------------------------

def test_equipment_point_table():
    # values from the book: 1, 3, 6, 12, 24, 48, then 24 for each additional symbol
    assert [equipment_points(k) for k in range(9)] == [0, 1, 3, 6, 12, 24, 48, 72, 96]


def test_item_point_distribution_by_enumeration():
    """Through the engine: every chance outcome of the six-dice roll (grouped by faces),
    resolved with skulls and RWB bonuses switched off by the sector and a Flak Jacket,
    gives EP = table(number of sixes); the distribution equals the binomial one."""
    def edit(raw):
        raw["sectors"]["landing"]["restrictions"] = [
            {"kind": "no_bonus", "bonuses": ["surge", "dead_mans_chest", "lucky_find"]}]
    base = map_state(edit)
    base.medal_awarded = True  # 1-6 would restart the roll (tested on its own)
    outcomes = base.chance_outcomes()
    assert len(outcomes) == 6 ** 6
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    grouped: Counter = Counter()
    for faces, _p in outcomes:
        grouped[tuple(sorted(faces))] += 1
    got: Counter = Counter()
    for faces, count in grouped.items():
        s = base.clone()
        s.units[0].items.append("flak_jacket")
        s.apply_chance(faces)
        s.apply_action(("keep", 0, 1))
        s.apply_action(("flak_jacket",))
        s.apply_action(("done",))
        got[s.units[0].ep] += Fraction(count, 6 ** 6)
    expected: Counter = Counter()
    for k in range(7):
        expected[equipment_points(k)] += Fraction(comb(6, k) * 5 ** (6 - k), 6 ** 6)
    assert got == expected
    # by hand: (6*3125*1 + 15*625*3 + 20*125*6 + 15*25*12 + 6*5*24 + 48) / 6**6
    assert sum(ep * p for ep, p in got.items()) == Fraction(67143, 6 ** 6)


def test_keep_two_reroll_four_up_to_twice():
    s = solo()
    s.apply_chance((2, 3, 3, 4, 6, 6))
    assert len(s.legal_actions()) == 15  # the pairs to set aside
    s.apply_action(("keep", 4, 5))
    rerolls = [a for a in s.legal_actions() if a[0] == "reroll"]
    assert len(rerolls) == 15 and all(4 not in a[1] and 5 not in a[1] for a in rerolls)
    s.apply_action(("reroll", (0, 1)))
    assert s.chance_request() == ("d6", 2)
    s.apply_chance((3, 3))
    s.apply_action(("reroll", (0,)))
    s.apply_chance((4,))
    assert not [a for a in s.legal_actions() if a[0] == "reroll"]
    assert s.units[0].dice == [4, 3, 3, 4, 6, 6]


def test_skull_cancels_a_chosen_die_and_sniper_ignores_one():
    s = solo()
    final(s, (1, 4, 3, 5, 6, 6))
    assert s.node == "cancel"
    assert ("cancel", 1) in s.legal_actions() and ("cancel", 0) not in s.legal_actions()
    s.apply_action(("cancel", 4))
    u = s.units[0]
    assert u.soldiers == 8 + 2 + 1 and u.courage == 1 and u.ep == 1
    s2 = solo()
    s2.units[0].specialists.append("sniper")
    final(s2, (1, 4, 3, 5, 6, 6))
    assert s2.units[0].ep == 3 and s2.units[0].soldiers == 8 + 3


def test_more_skulls_than_dice_cancel_everything():
    s = solo()
    final(s, (1, 1, 1, 1, 1, 4))  # red 1 1, white 1 1, blue 1 4: one skull triple
    u = s.units[0]
    # one Dead Man's Chest (three skulls ignored), the other two skulls cancel the 4
    assert u.ep == 20 and u.soldiers == 8


def test_flak_jacket_turns_skulls_into_soldiers_without_bonus():
    s = solo()
    s.units[0].items.append("flak_jacket")
    s.apply_chance((1, 3, 1, 3, 1, 3))
    s.apply_action(("keep", 0, 1))
    s.apply_action(("flak_jacket",))
    s.apply_action(("done",))
    u = s.units[0]
    # three skulls -> 3 soldiers, no Dead Man's Chest; three 3s -> 3 + Reinforcements 6
    assert u.ep == 0 and u.soldiers == 8 + 3 + 3 + 6 and "flak_jacket" not in u.items


@pytest.mark.parametrize("dmc15", [False, True])
def test_rwb_dead_mans_chest(dmc15):
    s = solo(dmc15=dmc15)
    final(s, (1, 3, 1, 3, 1, 4))
    u = s.units[0]
    assert u.ep == (15 if dmc15 else 20)
    assert u.soldiers == 8 + 1 + 1 + 2  # the three skulls cancel nothing


def test_rwb_surge_rerolls_ones_and_can_make_another_bonus():
    s = solo()
    final(s, (2, 6, 2, 6, 2, 3))  # stars triple; red 6, white 6 wait for a blue 6
    assert s.is_chance_node() and s.chance_request() == ("d6", 1)
    s.apply_chance((1,))  # a one is re-rolled
    assert s.is_chance_node()
    s.apply_chance((6,))
    assert s.node == "surge_colour"
    s.apply_action(("surge_colour", "blue"))
    u = s.units[0]
    # Lucky Find from red 6, white 6 and the blue Surge 6: 3 stars + 2 stars
    assert u.stars_left == 5 and u.ep == equipment_points(3) and u.soldiers == 9


def test_rwb_reinforcements_for_threes_and_fours():
    for face, per_die in ((3, 1), (4, 2)):
        s = solo()
        final(s, (face, 5, face, 5, face, 5))
        u = s.units[0]
        assert u.soldiers == 8 + 3 * per_die + 6
        assert u.battle_cry  # 5s: the three colours again


def test_rwb_battle_cry_ignores_requirements_and_courage():
    s = solo()
    at(s, "dune_path")
    u = s.units[0]
    final(s, (5, 3, 5, 3, 5, 3))
    assert u.battle_cry and u.courage == 3
    # the culvert needs a Scout: with the Battle Cry the unit may go anyway
    assert ("move", "culvert") in s.legal_actions()
    assert ("move", "crossroads") in s.legal_actions()
    s.apply_action(("move", "crossroads"))
    assert u.courage == 3 and u.sector == "crossroads"


def test_rwb_lucky_find_gives_two_stars():
    s = solo()
    final(s, (6, 3, 6, 3, 6, 4))
    u = s.units[0]
    assert u.stars_left == 2 and s.node == "stars"
    s.apply_action(("star", "scout"))
    s.apply_action(("star", "scout"))
    assert u.specialists == ["scout"]


def test_sector_bonus_does_not_make_an_rwb_bonus():
    s = solo()
    at(s, "wreck_line")  # +1 Courage per turn
    final(s, (5, 3, 5, 3, 3, 3))
    u = s.units[0]
    assert u.courage == 3 and not u.battle_cry


def test_veteran_adds_a_soldier_per_rwb_bonus():
    s = solo()
    s.units[0].specialists.append("veteran")
    final(s, (3, 4, 3, 4, 3, 4))  # two bonuses: threes and fours
    assert s.units[0].soldiers == 8 + 3 + 6 + 6 + 6 + 2


def test_medal_of_honor_restarts_rolling_once_per_game():
    s = solo()
    s.apply_chance((6, 5, 4, 3, 2, 1))
    u = s.units[0]
    assert u.medal == "held" and s.is_chance_node() and s.chance_request() == ("d6", 6)
    assert any("MEDAL OF HONOR" in e for e in s.take_events())
    s.apply_chance((1, 2, 3, 4, 5, 6))  # the game's only medal is gone
    assert s.node == "keep"
    s.apply_action(("keep", 0, 1))
    s.apply_action(("done",))
    assert s.medal_awarded


def test_medal_of_honor_by_binoculars_and_its_use():
    s = solo()
    s.units[0].items.append("binoculars")
    s.apply_chance((1, 2, 3, 4, 5, 5))
    s.apply_action(("keep", 0, 1))
    s.apply_action(("binoculars", 5, 6))
    assert s.units[0].medal == "held" and s.is_chance_node()
    final(s, (3, 3, 4, 4, 5, 6))
    acts = s.legal_actions()
    assert ("use", "medal_of_honor", "hero") in acts and ("use", "medal_of_honor", "courage") in acts
    s.apply_action(("use", "medal_of_honor", "courage"))
    assert s.units[0].courage == 1 + 5 and s.units[0].medal == "used"


def test_medal_of_honor_through_an_officer_trade_restarts_that_player():
    s = dd.new_game(2, {})
    s.units[0].specialists.append("officer")
    finals(s, (1, 2, 3, 4, 5, 5), (6, 6, 6, 6, 3, 3))
    assert s.node == "trade" and s.seat == 0
    s.apply_action(("trade", 5, 1, 0))
    assert s.units[0].medal == "held" and s.units[0].traded
    assert s.is_chance_node() and s.seat == 0 and s.phase == "roll"
    final(s, (3, 3, 3, 3, 4, 4))
    assert s.phase != "trade"  # no second trade for the medal winner
    assert s.units[1].dice == [5, 6, 6, 6, 3, 3]


# ---- specialists and items ------------------------------------------------------------

def test_sergeant_and_backpack_reroll_a_third_time():
    s = solo()
    u = s.units[0]
    u.specialists.append("sergeant")
    u.items.append("backpack")
    s.apply_chance((3, 3, 1, 1, 1, 2))
    s.apply_action(("keep", 0, 1))
    assert not [a for a in s.legal_actions() if a[0] in ("sergeant", "backpack")]
    for _ in range(2):
        s.apply_action(("reroll", (2,)))
        s.apply_chance((1,))
    acts = s.legal_actions()
    assert ("sergeant", 2) in acts and ("sergeant", 0) not in acts and ("backpack", 3) in acts
    s.apply_action(("sergeant", 2))
    s.apply_chance((4,))
    assert not [a for a in s.legal_actions() if a[0] == "sergeant"]
    s.apply_action(("backpack", 3))
    s.apply_chance((4,))
    assert "backpack" not in u.items and u.dice == [3, 3, 4, 4, 1, 2]


def test_solo_officer_and_terrain_map_change_colour():
    s = solo()
    u = s.units[0]
    u.specialists.append("officer")
    u.items.append("terrain_map")
    s.apply_chance((4, 4, 4, 2, 2, 3))  # red 4 4, white 4: no blue 4
    s.apply_action(("keep", 0, 1))
    s.apply_action(("officer_colour", 1, "blue"))
    assert not [a for a in s.legal_actions() if a[0] == "officer_colour"]
    s.apply_action(("terrain_map", 5, "white"))
    s.apply_action(("done",))
    assert u.soldiers == 8 + 2 * 3 + 6 + 1  # Reinforcements from R4 W4 B4


def test_multiplayer_officer_trades_one_die_per_turn():
    s = dd.new_game(3, {})
    for u in s.units[:2]:
        u.specialists.append("officer")
    finals(s, (3, 3, 3, 3, 3, 2), (6, 6, 6, 6, 6, 4), (5, 5, 5, 5, 5, 5))
    assert s.node == "trade" and s.seat == 0
    assert not [a for a in s.legal_actions() if a[0] == "officer_colour"]
    s.apply_action(("trade", 5, 1, 5))
    # player 2 was part of a trade: no trade of their own this turn
    assert s.phase == "resolve"
    assert s.units[0].dice[5] == 4 and s.units[1].dice[5] == 2
    assert s.units[0].colours[5] == "blue"


def test_scout_adds_an_item_symbol():
    s = solo()
    s.units[0].specialists.append("scout")
    final(s, (3, 3, 3, 3, 6, 5))
    assert s.units[0].ep == 3


def test_medic_saves_one_soldier_per_loss_but_not_sacrifices():
    s = solo()
    u = s.units[0]
    u.specialists.append("medic")
    at(s, "tidal_flats")  # Enemy Fire 3
    final(s, (5, 5, 4, 4, 3, 3))
    assert u.soldiers == 8 + 6 and u.courage == 2
    s.apply_action(("stay",))
    assert s.node == "losses"
    while s.node == "losses":
        s.apply_action(("lose", "soldier"))
    assert u.soldiers == 14 - (3 - 1)
    s2 = solo()
    u2 = s2.units[0]
    u2.specialists.append("medic")
    at(s2, "smoke_hollow")
    u2.courage = 5
    final(s2, (3, 3, 3, 3, 4, 4))
    before = u2.soldiers
    s2.apply_action(("move", "wire_gap"))  # sacrifice 2 soldiers: the medic cannot help
    assert u2.soldiers == before - 2
    assert s2.node == "losses"  # then the wire gap's fire, where the medic helps


def test_hero_loses_courage_instead_of_soldiers():
    s = solo()
    u = s.units[0]
    u.specialists.append("hero")
    u.courage = 4
    at(s, "tidal_flats")  # Enemy Fire 3
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("stay",))
    assert s.node == "losses"
    assert ("lose", "courage") in s.legal_actions() and ("lose", "hero") in s.legal_actions()
    s.apply_action(("lose", "courage"))
    s.apply_action(("lose", "courage"))
    s.apply_action(("lose", "soldier"))
    assert u.courage == 2 and u.soldiers == 8 + 8 - 1 and s.turn == 2


def test_sapper_and_mine_detector_cross_minefields():
    for who in ("sapper", "mine_detector", None):
        s = solo()
        u = s.units[0]
        at(s, "shingle_bank")
        u.courage = 3
        if who == "sapper":
            u.specialists.append("sapper")
        elif who:
            u.items.append(who)
        final(s, (3, 3, 3, 3, 4, 4))
        s.apply_action(("move", "seawall_breach"))
        if who == "mine_detector":
            assert s.node == "mine"
            s.apply_action(("mine_detector",))
            assert "mine_detector" not in u.items
        if who is None:
            assert s.is_chance_node() and s.chance[0] == "mine"
            before = u.soldiers
            s.apply_chance((4,))
            assert "unit 1 loses 4 to the minefield" in s.take_events()
            assert u.soldiers == before - 4 - s.map.sectors["seawall_breach"].enemy_fire
        else:
            assert not (s.is_chance_node() and s.chance[0] == "mine")


def test_whistle_advances_without_courage():
    s = solo()
    u = s.units[0]
    u.items.append("whistle")
    final(s, (3, 3, 3, 3, 4, 4))
    assert ("move", "tidal_flats") not in s.legal_actions()
    s.apply_action(("move", "tidal_flats", "whistle"))
    assert u.sector == "tidal_flats" and u.courage == 0 and "whistle" not in u.items


def test_bangalore_flamethrower_grenade_and_radios_before_combat():
    s = solo()
    u = s.units[0]
    at(s, "gun_pit")
    u.items += ["bangalore", "grenade", "radio", "flamethrower"]
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("end_items",))
    s.apply_action(("stay",))
    acts = s.legal_actions()
    assert ("use", "bangalore") in acts and ("use", "grenade") in acts
    assert ("use", "flamethrower") not in acts  # only against the bunker
    s.apply_action(("use", "grenade"))  # before the machine-gun roll
    s.apply_action(("use", "bangalore"))
    s.apply_action(("use", "radio"))
    before = u.soldiers
    s.apply_action(("fight",))
    assert u.soldiers == before and s.turn == 2  # no fire at all, no MG roll
    s2 = solo()
    u2 = s2.units[0]
    at(s2, "bunker")
    u2.items += ["flamethrower", "bangalore"]
    final(s2, (3, 3, 3, 3, 4, 4))
    acts = s2.legal_actions()
    assert ("use", "bangalore") not in acts and ("use", "flamethrower") in acts


def test_flamethrower_cuts_the_bunker_fire_by_ten_and_mobile_radio_adds_two():
    s = solo()
    u = s.units[0]
    at(s, "bunker")
    u.soldiers = 20
    u.items += ["flamethrower", "mobile_radio"]
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("use", "mobile_radio"))  # Phase 3
    s.apply_action(("end_items",))
    assert u.soldiers == 20 + 8 + 2 and s.node == "combat"
    s.apply_action(("use", "flamethrower"))
    s.apply_action(("fight",))
    fire = s.map.sectors["bunker"].enemy_fire - 10
    assert u.status == "won" and u.soldiers == 30 - fire


def test_medal_item_replaces_a_soldier_with_a_specialist():
    s = solo()
    u = s.units[0]
    u.ep = 15
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("buy", "medal"))
    assert ("buy", "radio") not in s.legal_actions()  # one Item per turn
    s.apply_action(("use", "medal", "medic"))
    assert u.soldiers == 8 + 8 - 1 and u.specialists == ["medic"]


def test_items_bought_once_and_no_items_sector():
    s = solo()
    u = s.units[0]
    u.bought.append("radio")
    u.ep = 40
    at(s, "smoke_hollow")  # no Item may be used here
    u.items.append("mobile_radio")
    final(s, (3, 3, 3, 3, 4, 4))
    acts = s.legal_actions()
    assert ("buy", "radio") not in acts and ("buy", "bangalore") in acts
    assert ("use", "mobile_radio") not in acts


def test_binoculars_on_machine_gun_roll_is_an_option():
    for option in (False, True):
        s = solo(binoculars_on_fire=option)
        u = s.units[0]
        u.items.append("binoculars")
        at(s, "crossroads")
        final(s, (3, 3, 3, 3, 4, 4))
        s.apply_action(("stay",))
        assert s.chance[0] == "mg"
        s.apply_chance((6,))
        if option:
            assert s.node == "fire_binoculars"
            s.apply_action(("binoculars_fire", 1))
            assert u.soldiers == 8 + 8 - 5 - 1
        else:
            assert u.soldiers == 8 + 8 - 5 - 6


# ---- movement and sectors ------------------------------------------------------------

def test_movement_forward_sideways_never_back_or_twice():
    s = solo()
    u = s.units[0]
    u.visited = ["landing", "tidal_flats", "shingle_bank"]
    u.sector = "shingle_bank"
    u.courage = 5
    final(s, (3, 3, 3, 3, 4, 4))
    dests = {a[1] for a in s.legal_actions() if a[0] == "move"}
    # forward: sea-wall breach and dune path; sideways: wreck line; never the landing
    # (back) nor the tidal flats (visited)
    assert dests == {"seawall_breach", "dune_path", "wreck_line"}


def test_three_turns_then_a_forced_move_and_destruction_when_impossible():
    s = solo()
    u = s.units[0]
    u.turns_here = 3
    final(s, (3, 3, 3, 3, 4, 4))
    assert ("stay",) not in s.legal_actions()  # must move, with 0 Courage: impossible
    assert s.phase == "over" and u.status == "defeated"
    assert u.vp == 0


def test_cannot_remain_and_max_turns_instructions():
    bm = dd.load_map("greyrock-cove")
    assert bm.sectors["shingle_bank"].max_turns == 1
    assert bm.sectors["dune_path"].max_turns == 2
    assert bm.sectors["landing"].max_turns == 3
    s = solo()
    at(s, "shingle_bank")
    s.units[0].turns_here = 1
    final(s, (3, 3, 3, 3, 4, 4))
    assert ("stay",) not in s.legal_actions()


def test_leave_forward_instruction():
    s = solo()
    at(s, "orchard")
    s.units[0].courage = 5
    final(s, (3, 3, 3, 3, 4, 4))
    dests = {a[1] for a in s.legal_actions() if a[0] == "move"}
    assert dests == {"gun_pit"}  # wire gap and mill ridge are sideways


def test_on_entry_instruction():
    s = solo()
    at(s, "tidal_flats")
    s.units[0].courage = 5
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("move", "seawall_breach"))
    assert s.units[0].ep == 3


def test_requirements_have_sacrifice_and_min_soldiers():
    s = solo()
    u = s.units[0]
    at(s, "churchyard")
    u.courage = 9
    u.soldiers = 2
    final(s, (3, 3, 3, 3, 4, 4))
    to_move(s)
    assert ("move", "mill_ridge") in s.legal_actions()  # 2 + 8 >= 6
    s2 = solo()
    u2 = s2.units[0]
    at(s2, "churchyard")
    u2.soldiers = 0
    u2.specialists = ["medic"]
    u2.courage = 9
    final(s2, (1, 1, 2, 2, 5, 5))  # the red skulls cancel the white stars
    to_move(s2)
    assert u2.strength == 1 and s2.node == "move"
    assert ("move", "mill_ridge") not in s2.legal_actions()
    s3 = solo()
    u3 = s3.units[0]
    at(s3, "mill_ridge")
    u3.courage = 9
    final(s3, (3, 3, 3, 3, 4, 4))
    to_move(s3)
    assert ("move", "radar_hut") not in s3.legal_actions()
    s4 = solo()
    u4 = s4.units[0]
    at(s4, "mill_ridge")
    u4.courage = 9
    u4.specialists.append("sniper")
    final(s4, (3, 3, 3, 3, 4, 4))
    to_move(s4)
    s4.apply_action(("move", "radar_hut"))
    assert "sniper" not in u4.specialists and "sniper" in u4.dead
    s5 = solo()
    at(s5, "wreck_line")
    s5.units[0].courage = 9
    final(s5, (3, 3, 3, 3, 4, 4))
    assert ("move", "culvert") not in s5.legal_actions()
    s5.units[0].specialists.append("scout")
    assert ("move", "culvert") in s5.legal_actions()


def test_restrictions_penalties_and_bonuses():
    s = solo()
    at(s, "crossroads")  # no Surge, no Lucky Find
    final(s, (2, 6, 2, 6, 2, 6))
    u = s.units[0]
    assert not s.is_chance_node() or s.chance[0] != "surge"
    assert u.ep == equipment_points(3)
    s2 = solo()
    at(s2, "tidal_flats")  # -1 item symbol
    final(s2, (6, 6, 3, 3, 4, 4))
    assert s2.units[0].ep == 1
    s3 = solo()
    at(s3, "trench")  # -1 soldier symbol
    final(s3, (3, 3, 5, 5, 6, 2))
    assert s3.node == "stars" and s3.units[0].soldiers == 8 + 2 - 1
    s4 = solo()
    at(s4, "churchyard")  # +1 star
    final(s4, (3, 3, 5, 5, 6, 6))
    assert s4.units[0].stars_left == 1


def test_enemy_fire_and_machine_gun_special_damage():
    s = solo()
    u = s.units[0]
    at(s, "mill_ridge")
    u.specialists = ["scout", "medic"]
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("stay",))
    assert s.chance[0] == "mg"
    s.apply_chance((6,))  # a 6 here: the losses must include a Specialist
    assert s.node == "losses"
    assert {a[1] for a in s.legal_actions()} == {"scout", "medic"}
    s.apply_action(("lose", "scout"))
    while s.node == "losses":
        s.apply_action(("lose", "soldier"))
    fire = s.map.sectors["mill_ridge"].enemy_fire + 6 - 1  # the medic saves one
    assert u.soldiers == 8 + 8 - (fire - 1) and u.specialists == ["medic"]


def test_machine_gun_rolls_once_per_sector_for_every_unit_there():
    s = map_state(lambda r: None, 2)
    for seat in (0, 1):
        at(s, "crossroads", seat)
    finals(s, (3, 3, 3, 3, 4, 4), (3, 3, 3, 3, 4, 4))
    s.apply_action(("stay",))
    s.apply_action(("stay",))
    assert s.chance[0] == "mg" and s.seat == 0
    s.apply_chance((5,))
    assert s.phase == "roll" and s.turn == 2  # unit 2 took the same roll: no second one
    fire = s.map.sectors["crossroads"].enemy_fire + 5
    assert [u.soldiers for u in s.units] == [16 - fire, 16 - fire]


def test_grenade_only_before_rolling_for_machine_gun_fire_with_several_units():
    # dday-dice.txt, Grenade: "The Grenade can only be used BEFORE rolling for Machine-Gun
    # Fire." Unit 2 holds the grenade; unit 1, first in seat order, has nothing to choose.
    s = map_state(lambda r: None, 2)
    for seat in (0, 1):
        at(s, "crossroads", seat)
    s.units[1].items.append("grenade")
    finals(s, (3, 3, 3, 3, 4, 4), (3, 3, 3, 3, 4, 4))
    s.apply_action(("stay",))
    s.apply_action(("stay",))
    # Unit 2 chooses before the sector's roll, which nobody knows yet.
    assert s.node == "combat" and s.seat == 1 and s.mg_rolls == {}
    assert ("use", "grenade") in s.legal_actions()
    s.apply_action(("use", "grenade"))
    s.apply_action(("fight",))
    assert s.chance[0] == "mg" and s.seat == 0
    s.apply_chance((6,))
    fire = s.map.sectors["crossroads"].enemy_fire
    assert [u.soldiers for u in s.units] == [16 - fire - 6, 16 - fire]
    assert any("grenade silences the machine gun" in e for e in s.take_events())


def test_no_combat_choice_is_ever_made_knowing_a_machine_gun_roll():
    """Over whole 3-unit games: whenever a unit may use an item before combat, no
    Machine-Gun roll of this turn is known yet."""
    choices = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        s = dd.new_game(3, {})
        for u in s.units:
            u.items += ["grenade", "bangalore"]
            u.ep = 30
        bots = [RandomBot(np.random.default_rng(seed * 10 + i)) for i in range(3)]
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_chance(SeededRoller().roll(*s.chance_request(), rng))
                continue
            if s.node == "combat":
                assert s.mg_rolls == {}
                choices += 1
            s.apply_action(bots[s.current_player()].step(s))
    assert choices > 50


def test_medal_of_honor_goes_to_the_first_unit_to_show_one_to_six():
    # dday-dice.txt, Medal of Honor: "If a player rolls every number from 1 to 6 on their
    # dice, they earn a Medal of Honor and immediately record it ... Only one Medal of
    # Honor can be earned per game." The phases are simultaneous ("Players take their
    # turns simultaneously, phase by phase"): unit 2's first roll comes before unit 1's
    # re-roll, though unit 1 sits first.
    s = dd.new_game(2, {})
    s.apply_chance((1, 2, 3, 4, 5, 5))  # unit 1's first roll: no 6
    assert s.is_chance_node() and s.seat == 1 and s.chance[0] == "roll"
    s.apply_chance((6, 5, 4, 3, 2, 1))  # unit 2's first roll: 1 to 6
    assert s.units[1].medal == "held" and s.medal_awarded
    assert s.seat == 0 and s.node == "keep"
    s.apply_action(("keep", 0, 1))
    s.apply_action(("reroll", (5,)))
    s.apply_chance((6,))  # unit 1 now shows 1 to 6 too: the medal is gone
    assert s.units[0].medal == "none" and s.units[0].dice == [1, 2, 3, 4, 5, 6]
    # Unit 2 restarts its rolling phase from the beginning: six fresh dice.
    assert s.is_chance_node() and s.seat == 1 and s.chance_request() == ("d6", 6)


def test_storming_the_bunker_vp_and_defeat_vp():
    s = solo()
    u = s.units[0]
    at(s, "gun_pit")
    u.soldiers = 40
    u.courage = 3
    final(s, (3, 3, 3, 3, 4, 4))
    s.apply_action(("move", "bunker"))
    assert s.is_chance_node() and s.chance[0] == "mine"
    s.apply_chance((2,))
    assert u.status == "won" and s.phase == "over"
    # 10 storming + 10 first + 2 courage on the final advance + soldiers + 2 per courage
    assert u.vp == 10 + 10 + 2 + (48 - 2 - 24) + 2 * 1
    assert s.returns() == [1.0]
    s2 = solo()
    u2 = s2.units[0]
    u2.medal = "used"
    u2.soldiers = 1
    u2.courage = 4
    at(s2, "tidal_flats")
    final(s2, (1, 1, 2, 2, 5, 5))
    assert s2.node == "cancel"
    s2.apply_action(("cancel", 2))
    s2.apply_action(("cancel", 3))
    s2.apply_action(("stay",))
    assert u2.status == "defeated" and u2.vp == 2 * 6 + 10 and s2.returns() == [0.0]


def test_sharing_after_victory_and_defeat():
    s = map_state(lambda r: r["sectors"]["landing"].update(enemy_fire=0), 3)
    a, b, c = s.units
    at(s, "gun_pit")
    a.soldiers, a.courage, a.ep = 41, 2, 9
    a.specialists = ["medic"]
    b.soldiers = 0
    b.items = ["radio", "whistle", "grenade", "flak_jacket", "backpack"]
    finals(s, (3, 3, 3, 3, 4, 4), (1, 1, 1, 1, 1, 1), (3, 3, 3, 3, 4, 4))  # b: two DMCs
    to_move(s)
    while s.seat != 0 or s.node != "move":
        to_move(s)
    s.apply_action(("move", "bunker"))
    s.apply_chance((1,))  # the minefield: 1, the medic saves it
    assert s.seat == 1 and s.node == "move"  # b could use its whistle
    s.apply_action(("stay",))
    assert s.seat == 1 and s.node == "combat"  # b could use its radio; it does not
    s.apply_action(("fight",))
    while s.node == "losses":  # the bunker's fire 24, the medic saves one
        s.apply_action(("lose", "soldier"))
    assert a.status == "won" and b.status == "defeated" and c.status == "active"
    assert a.vp == 10 + 10 + 2 + (49 - 23) + 3  # storm, first, final advance, soldiers, medic
    # a gives half its soldiers and EP to c, the only unit still fighting; b half its
    # Items, the dearest first
    assert a.soldiers == 13 and c.soldiers == 16 + 13 and c.ep == 4
    assert sorted(c.items) == ["grenade", "radio"] and len(b.items) == 3


# ---- maps -----------------------------------------------------------------------------

def test_shipped_map_has_every_sector_property_kind():
    bm = dd.load_map("greyrock-cove")
    assert len(bm.sectors) >= 12 and bm.sectors[bm.bunker].bunker
    kinds = {r.kind for s in bm.sectors.values()
             for r in (*s.instructions, *s.requirements, *s.restrictions, *s.penalties,
                       *s.bonuses)}
    assert kinds >= {"cannot_remain", "max_turns", "leave_forward", "on_entry", "have",
                     "sacrifice", "sacrifice_soldiers", "min_soldiers", "no_items",
                     "no_bonus", "penalty", "bonus"}
    assert any(s.machine_gun for s in bm.sectors.values())
    assert any(s.mg_specialist_on for s in bm.sectors.values())
    assert any(b.minefield for b in bm.borders)


@pytest.mark.parametrize("edit, message", [
    (lambda r: r["sectors"]["landing"].update(enemy_fire=-1),
     "sectors.landing.enemy_fire: must be at least 0 (got -1)"),
    (lambda r: r["sectors"]["culvert"]["requirements"][0].update(specialist="scot"),
     "did you mean scout?"),
    (lambda r: r["sectors"]["crossroads"]["restrictions"][0].update(bonuses=["surges"]),
     "sectors.crossroads.restrictions[0].bonuses[0]: unknown value; did you mean surge?"),
    (lambda r: r["sectors"]["bunker"].update(bunker=False), "exactly one sector must be the bunker"),
    (lambda r: r.update(start="nowhere"), "start: unknown value"),
    (lambda r: r["borders"].append({"between": ["landing", "dune_path"], "courage": 1}),
     "same or neighbouring rows"),
    (lambda r: r["borders"][3].update(courage=2), "a sideways move costs no Courage"),
    (lambda r: r["sectors"]["landing"].update(firepower=3), "landing.firepower: unknown field"),
    (lambda r: r.update(borders=[b for b in r["borders"] if "bunker" not in b["between"]]),
     "cannot be reached"),
    (lambda r: r["sectors"]["dune_path"]["instructions"][0].update(turns=4),
     "turns: must be at most 3"),
])
def test_map_validation_errors_are_one_clear_line(edit, message):
    raw = raw_map()
    edit(raw)
    with pytest.raises(RulesError) as err:
        dd.parse_map(raw, "my-map.yaml")
    text = str(err.value)
    assert "\n" not in text and text.startswith("my-map.yaml: ") and message in text


def test_bad_map_file_on_the_command_line_exits_2(tmp_path, capsys):
    from simulator.cli.main import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nsectors: [\n")
    assert main(["play", "dday", "--headless", "--players", "greedy", "--map", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.yaml" in err and "malformed YAML" in err
    assert main(["play", "dday", "--headless", "--players", "greedy,greedy,greedy,greedy,greedy"]) == 2
    assert "takes 1 to 4 players" in capsys.readouterr().err
    assert main(["play", "dday", "--map", "greyrok-cove", "--headless"]) == 2
    assert "did you mean greyrock-cove?" in capsys.readouterr().err


def test_corrupt_save_is_one_clear_error():
    s = solo()
    data = s.serialize()
    for key, value in (("units", "x"), ("seat", 9), ("node", "dance")):
        bad = copy.deepcopy(data)
        bad[key] = value
        with pytest.raises(RulesError):
            dd.deserialize(bad)
    bad = copy.deepcopy(data)
    del bad["turn"]
    with pytest.raises(RulesError, match="missing field 'turn'"):
        dd.deserialize(bad)


# ---- players and conformance --------------------------------------------------------------

def play(kinds: list[str], seed: int, roller=None, check=False) -> DDayState:
    rng = np.random.default_rng(seed)
    s = dd.new_game(len(kinds), {})
    bots = [RandomBot(np.random.default_rng(seed + i)) if k == "random"
            else dd.make_bot(k, np.random.default_rng(seed + i)) for i, k in enumerate(kinds)]
    roller = roller or SeededRoller()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(roller.roll(*s.chance_request(), rng))
        else:
            acts = s.legal_actions()
            a = bots[s.current_player()].step(s)
            assert a in acts
            s.apply_action(a)
        if check:
            _invariants(s)
    return s


def _invariants(s: DDayState) -> None:
    assert json.loads(json.dumps(s.serialize())) == dd.deserialize(s.serialize()).serialize()
    for u in s.units:
        assert u.soldiers >= 0 and u.courage >= 0 and u.ep >= 0
        assert len(set(u.visited)) == len(u.visited) and u.sector == u.visited[-1]
        assert u.turns_here <= s.map.sectors[u.sector].max_turns
        assert len(set(u.specialists)) == len(u.specialists)
        assert not set(u.specialists) & set(u.dead)
        for a, b in zip(u.visited, u.visited[1:], strict=False):
            assert s.map.sectors[b].row >= s.map.sectors[a].row
    if not s.is_terminal() and not s.is_chance_node():
        assert s.legal_actions()


@pytest.mark.parametrize("seed", range(12))
def test_conformance_random_games(seed):
    kinds = ["random", "greedy", "random", "expectimax"][: 1 + seed % 4]
    s = play(kinds, seed, check=True)
    assert s.is_terminal() and all(u.status != "active" for u in s.units)
    assert sum(s.returns()) == pytest.approx(1.0) or len(kinds) == 1


def test_same_seed_same_game():
    a = play(["greedy", "greedy"], 5)
    b = play(["greedy", "greedy"], 5)
    assert a.serialize() == b.serialize()


def test_expectimax_prefers_the_best_reroll():
    s = solo()
    s.apply_chance((4, 4, 4, 1, 3, 3))
    s.apply_action(("keep", 0, 1))
    bot = dd.make_bot("expectimax", np.random.default_rng(0))
    a = bot.step(s)
    assert a[0] == "reroll" and 3 in a[1]  # the skull goes back in the cup


def test_cli_play_and_replay(tmp_path, capsys):
    from simulator.cli.main import main

    log = tmp_path / "dday.jsonl"
    assert main(["play", "dday", "--headless", "--players", "greedy", "--seed", "1",
                 "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "unit 1 rolls" in out and "game over" in out
    assert main(["replay", str(log), "--verify"]) == 0
    assert "verified" in capsys.readouterr().out
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    first = next(x for x in lines if x["type"] == "chance")
    first["faces"] = [f % 6 + 1 for f in first["faces"]]
    log.write_text("\n".join(json.dumps(x) for x in lines))
    assert main(["replay", str(log), "--verify"]) != 0


def test_human_player_sees_the_map(monkeypatch):
    from rules.core.bots import HumanPlayer

    s = solo()
    s.apply_chance((3, 3, 3, 3, 4, 4))
    shown: list[str] = []
    human = HumanPlayer(input_fn=lambda _p: "1", output_fn=shown.append)
    assert human.step(s) == s.legal_actions()[0]
    text = "\n".join(shown)
    assert "Greyrock Bunker" in text and "*1" in text and "dice 1:R3" in text


@pytest.mark.slow
def test_full_game_with_the_physics_roller():
    roller_mod = pytest.importorskip("simulator.physics.roller")
    # the random player's games are short: fewer throws into the tray
    s = play(["random"], 3, roller=roller_mod.PhysicsRoller())
    assert s.is_terminal() and s.units[0].status in ("won", "defeated")


def test_map_format_doc_exists():
    doc = Path(dd.__file__).parent / "maps" / "README.md"
    assert "enemy_fire" in doc.read_text()


def test_listing_the_legal_actions_changes_nothing():
    """rules/dday/legal.py lists what a player may do at each node; asking, at every step
    of a seeded game, leaves the state exactly as it was."""
    from rules.core import SeededRoller
    from rules.dday.legal import DDayLegal

    state = dd.new_game(2, {})
    assert isinstance(state, DDayLegal)
    rng, roller = np.random.default_rng(5), SeededRoller()
    bot = dd.make_bot("greedy", np.random.default_rng(6))
    nodes = set()
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance(roller.roll(*state.chance_request(), rng))
            continue
        before = json.dumps(state.serialize(), sort_keys=True)
        assert state.legal_actions() == state.legal_actions()
        assert json.dumps(state.serialize(), sort_keys=True) == before
        nodes.add(state.node)
        state.apply_action(bot.step(state))
    assert {"keep", "rolling", "move"} <= nodes
