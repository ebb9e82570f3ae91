"""Deep White Sea engine: one test per example and statement of the rulebook
(`shared/rulebooks/deep-white-sea.txt`), on the kinematic table.

The dice of the rulebook's examples (Gavin, Liam Hart, Helen Crane, Mull, Jarik, Thruk,
Micro, a Robot) are built here as test crews with just the sides each example needs;
every other side is a plain short yellow 1 with shield n.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import rules.deep_white_sea as dws
from rules.core.protocols import RulesError
from rules.deep_white_sea.bots import aimed_throw, throw_action
from rules.deep_white_sea.game import DWSState

UP = 90.0  # deg: arrows pointing +y, toward player 2
DOWN = -90.0


def _side(n: int, **over: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"arrows": {"top": "short yellow 1"}, "flavour": "x"}
    if n != 8:
        s["green"] = ["right"]
    if n > 1:
        s["shield"] = f"{n} white"
        s["red"] = "top" if n == 5 else "left"
    s.update(over)
    return s


def _die(name: str, points: int, **sides: dict[str, Any]) -> dict[str, Any]:
    out = {n: _side(n) for n in range(1, 9)}
    for key, over in sides.items():
        n = int(key[1:])
        out[n] = _side(n, **over)
    return {"name": name, "class": "Test", "points": points, "sides": out}


def _crew(tmp: Path, team: str, dice: list[dict[str, Any]]) -> str:
    path = tmp / f"{team.lower()}.yaml"
    path.write_text(yaml.safe_dump({"team": team, "border": "#808080", "dice": dice}))
    return str(path)


OMNI_COMMAND = {"arrows": {c: "all dark blue Command" for c in ("top", "left", "right")}}

HEROES = [
    _die("Gavin", 10, s3={"arrows": {"top": "short black Call Ally"}},
         s4={"arrows": {"top": "short yellow 3"}},
         s6={"arrows": {"top": "long yellow 3"}},
         s7={"arrows": {"top": "all yellow 3"}}),
    _die("Liam Hart", 14, s6={"arrows": {"top": "all dark blue Command"}}),
    _die("Helen Crane", 12, **{f"s{n}": copy.deepcopy(OMNI_COMMAND) for n in range(1, 9)}),
    _die("Mull", 9, s3={"arrows": {"top": "short black Call Ally"}},
         s4={"arrows": {"top": "short yellow 2"}}),
    _die("Jarik", 11, s4={"arrows": {"top": "short yellow 2"}, "effect": "Backstab 6"}),
    _die("Viper", 10, s4={"arrows": {"top": "all green 2"}, "effect": "Poison"}),
    _die("Medic", 8, s4={"arrows": {"top": "long black Repair"}}),
    _die("Hopper", 7, **{f"s{n}": {"arrows": {"top": "short black Jump"}} for n in range(1, 9)}),
    _die("Trickster", 8, s4={"arrows": {"top": "long purple Confuse"}}),
    _die("Icer", 9, s4={"arrows": {"top": "all ice blue C"}, "effect": "Freeze"}),
    # Mixed ranges (dice_models/crews/FORMAT.md: "hits and ranges may differ by corner").
    _die("Mixer", 9, s4={"arrows": {"top": "short yellow 2", "left": "all yellow 5"}}),
]
FOES = [
    _die("Thruk", 12, s4={"arrows": {"top": "short yellow 2"}}),
    _die("Micro", 8, s4={"shield": "4 purple"}),
    _die("Fat Robot Steve", 9, s4={"shield": "4 green"}),
    _die("Warder", 10, s6={"arrows": {"top": "all purple C"}, "effect": "Protection +3",
                           "shield": "3 white"},
         s5={"arrows": {"top": "all purple C"}, "effect": "Power Up +2"}),
    _die("Clamp", 10, s3={"arrows": {"top": "all yellow C"}, "effect": "Hold"},
         s5={"arrows": {"top": "all ice blue C"}, "effect": "Freeze"}),
    _die("Shifter", 9, s4={"arrows": {"top": "long purple Confuse"}}),
    _die("Snare", 9, s4={"arrows": {"top": "short yellow C"}, "effect": "Hold"}),
]


@pytest.fixture(scope="module")
def crews(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("crews")
    return _crew(tmp, "Heroes", HEROES) + "," + _crew(tmp, "Foes", FOES)


def game(crews: str, first: int = 1) -> DWSState:
    return dws.new_game(2, {"crews": crews, "table": "kinematic", "first": first})


def h(name: str) -> str:
    return "1-" + name.lower().replace(" ", "-")


def f(name: str) -> str:
    return "2-" + name.lower().replace(" ", "-")


def put(s: DWSState, spots: dict[str, tuple[int, float, tuple[float, float]]],
        to_move: int = 0, where: dict[str, str] | None = None) -> None:
    """Place dice with side, arrow direction (deg) and position; `to_move` starts a turn."""
    placements = {}
    for d, (side, direction, xy) in spots.items():
        placements[d] = (side, s.yaw_facing(d, side, s.side_arrow_corner(d, side), direction), xy)
    s.setup_position(placements, to_move, where)


def events(s: DWSState) -> list[str]:
    return s.take_events()


# ---------------------------------------------------------------------------------------
# Before the game, the first turn


def test_first_turn_places_one_die_in_the_exact_centre_in_any_orientation(crews: str) -> None:
    s = game(crews, first=2)
    assert s.current_player() == 1
    assert s.decision == "place"
    acts = s.legal_actions()
    assert {a[0] for a in acts} == {"place"}
    assert {a[2] for a in acts} == set(range(1, 9))  # any side up
    assert s.is_legal(("place", f("Thruk"), 3, 17.5))  # any yaw, not only the listed ones
    s.apply_action(("place", f("Thruk"), 3, 17.5))
    pose = s.poses[f("Thruk")]
    assert pose.position[:2] == (0.0, 0.0)
    assert s.side(f("Thruk")).number == 3
    assert abs(pose.yaw_deg - 17.5) < 1e-9
    assert s.scores == [0, 0]  # never any score on the first turn
    assert s.current_player() == 0 and s.decision == "main"  # then the other player's turn


def test_who_goes_first_is_random_from_the_seed(crews: str) -> None:
    firsts = {dws.new_game(2, {"crews": crews, "table": "kinematic"},
                           np.random.default_rng(seed)).first for seed in range(20)}
    assert firsts == {0, 1}


# ---------------------------------------------------------------------------------------
# Sight lines and range


def test_sight_line_diagram_gavin_sees_dice_1_and_2_not_3(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)),
            f("Thruk"): (4, UP, (0.02, 0.15)),         # die 1: in sight, closest
            f("Micro"): (4, UP, (-0.15, 0.30)),        # die 2: in sight, farther
            f("Fat Robot Steve"): (4, UP, (0.0, -0.09))})  # die 3: behind, even closer
    g = h("Gavin")
    assert s.sees(g, f("Thruk")) and s.sees(g, f("Micro"))
    assert not s.sees(g, f("Fat Robot Steve"))
    assert s.distance(g, f("Fat Robot Steve")) < s.distance(g, f("Thruk"))
    # Short range: only the closest visible target; die 3 is not a legal target.
    assert [a for a in s.legal_actions() if a[:2] == ("shoot", g)] == [
        ("shoot", g, "attack", f("Thruk"))]


def test_a_die_partly_above_the_baseline_is_seen(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (4, UP, (0.3, -0.008))})
    corners = s.poses[f("Thruk")].top_corners.values()
    g = s.poses[h("Gavin")].top_corners
    baseline_y = min(y for _x, y in g.values())  # the edge opposite the +y arrow
    assert min(y for _x, y in corners) < baseline_y < max(y for _x, y in corners)
    assert s.sees(h("Gavin"), f("Thruk"))


def test_short_range_ignores_allies_for_attacks(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), h("Mull"): (4, UP, (0.0, 0.1)),
            f("Thruk"): (4, UP, (0.05, 0.25))})
    shots = [a for a in s.legal_actions() if a[:2] == ("shoot", h("Gavin"))]
    assert shots == [("shoot", h("Gavin"), "attack", f("Thruk"))]


def test_long_range_may_hit_any_visible_target(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (6, UP, (0.0, 0.0)), f("Thruk"): (4, UP, (0.0, 0.15)),
            f("Micro"): (4, UP, (-0.15, 0.3)), f("Warder"): (2, UP, (0.0, -0.15))})
    shots = {a for a in s.legal_actions() if a[:2] == ("shoot", h("Gavin"))}
    assert shots == {("shoot", h("Gavin"), "attack", f("Thruk")),
                     ("shoot", h("Gavin"), "attack", f("Micro"))}


def test_all_range_hits_every_visible_enemy_nearest_first(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (7, UP, (0.0, 0.0)), f("Thruk"): (2, UP, (0.0, 0.15)),
            f("Clamp"): (2, UP, (0.12, 0.35)), h("Mull"): (4, UP, (-0.1, 0.1)),
            f("Warder"): (2, UP, (0.0, -0.15))})
    shots = [a for a in s.legal_actions() if a[:2] == ("shoot", h("Gavin"))]
    assert shots == [("shoot", h("Gavin"), "attack")]  # no picking and choosing
    events(s)
    s.apply_action(shots[0])
    ev = events(s)
    order = [e for e in ev if "is killed" in e]
    assert len(order) == 2 and "Thruk" in order[0] and "Clamp" in order[1]
    assert s.where[h("Mull")] == "play" and s.where[f("Warder")] == "play"  # ally, unseen
    assert s.scores == [22, 0]


# ---------------------------------------------------------------------------------------
# Hit, block, damage


def test_hit_below_block_damages_by_the_red_dot_and_hit_at_block_kills(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (5, UP, (0.0, 0.2))})
    s.apply_action(("shoot", h("Gavin"), "attack", f("Thruk")))
    assert s.side(f("Thruk")).number == 4 and s.scores == [0, 0]  # hit 3 < block 5
    s2 = game(crews)
    put(s2, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (3, UP, (0.0, 0.2))})
    s2.apply_action(("shoot", h("Gavin"), "attack", f("Thruk")))
    assert s2.where[f("Thruk")] == "reserve" and s2.scores == [12, 0]  # hit 3 >= block 3


def test_side_1_dies_to_any_damage(crews: str) -> None:
    s = game(crews)
    put(s, {h("Mull"): (2, UP, (0.0, 0.0)), f("Thruk"): (1, UP, (0.0, 0.2))})
    assert s.block(f("Thruk")) is None
    s.apply_action(("shoot", h("Mull"), "attack", f("Thruk")))
    assert s.where[f("Thruk")] == "reserve" and s.scores == [12, 0]


def test_a_pinned_die_is_killed_by_damage(crews: str) -> None:
    s = game(crews)
    # Thruk on side 6 (red dot 'left'), hard against the table edge in the roll direction.
    crew = s.dice[f("Thruk")].crew
    axis = crew.corner_axis(6, "left")
    yaw = s.yaw_facing(f("Thruk"), 6, "left", 0.0)  # red-dot corner toward +x, the edge
    s.setup_position({h("Gavin"): (4, s.yaw_facing(h("Gavin"), 4, "top", 0.0), (0.3, 0.35)),
                      f("Thruk"): (6, yaw, (0.565, 0.35))}, 0)
    assert s.table.can_tip(f("Thruk"), axis) == "table_edge"
    assert s.sees(h("Gavin"), f("Thruk"))
    s.apply_action(("shoot", h("Gavin"), "attack", f("Thruk")))
    assert s.where[f("Thruk")] == "reserve" and s.scores == [12, 0]


def test_maneuver_by_green_dots_blocked_by_dice_and_edge(crews: str) -> None:
    s = game(crews)
    put(s, {h("Mull"): (4, UP, (0.0, 0.0))})
    moves = [a for a in s.legal_actions() if a[0] == "move"]
    assert moves == [("move", h("Mull"), "right")]  # side 4 has one green dot, right
    before = s.side(h("Mull")).number
    s.apply_action(moves[0])
    assert s.side(h("Mull")).number != before
    # Blocked: another die right where the roll goes.
    s2 = game(crews)
    put(s2, {h("Mull"): (4, UP, (0.0, 0.0))})
    crew = s2.dice[h("Mull")].crew
    target = s2.table.tip(h("Mull"), crew.corner_axis(4, "right")).pose
    s2.setup_position({h("Mull"): (4, s2.yaw_facing(h("Mull"), 4, "top", UP), (0.0, 0.0)),
                       f("Thruk"): (4, 0.0, (2.1 * target.position[0],
                                             2.1 * target.position[1]))}, 0)
    assert s2.table.can_tip(h("Mull"), crew.corner_axis(4, "right")) == f("Thruk")
    assert not [a for a in s2.legal_actions() if a[0] == "move" and a[1] == h("Mull")]


# ---------------------------------------------------------------------------------------
# Colours and immunity, continuous effects


def test_micro_is_immune_to_purple_confuse_and_protection(crews: str) -> None:
    s = game(crews)
    put(s, {h("Trickster"): (4, UP, (0.0, 0.0)), f("Micro"): (4, UP, (0.0, 0.2))})
    # Immunity does not make Micro invisible: he is still the legal target ...
    assert ("shoot", h("Trickster"), "confuse", f("Micro")) in s.legal_actions()
    events(s)
    s.apply_action(("shoot", h("Trickster"), "confuse", f("Micro")))
    # ... but the Confuse does nothing to him.
    assert any("immune to purple" in e for e in events(s))
    assert s.decision == "main" and s.current_player() == 1
    assert s.side(f("Micro")).number == 4
    # Protection (purple) from his own team does not reach him either.
    s2 = game(crews)
    put(s2, {f("Warder"): (6, DOWN, (0.0, 0.0)), f("Micro"): (4, UP, (0.0, -0.15)),
             f("Thruk"): (4, UP, (0.12, -0.15))})
    assert s2.immune(f("Micro"), "purple")
    assert s2.block(f("Micro")) == 4
    assert s2.block(f("Thruk")) == 7


def test_robots_are_immune_to_poison(crews: str) -> None:
    s = game(crews)
    put(s, {h("Viper"): (4, UP, (0.0, 0.0)), f("Fat Robot Steve"): (4, UP, (0.0, 0.15)),
            f("Thruk"): (5, UP, (0.15, 0.3))})
    s.apply_action(("shoot", h("Viper"), "attack"))
    assert s.side(f("Fat Robot Steve")).number == 4  # no damage
    assert f("Fat Robot Steve") not in s.poison  # no counter
    assert s.side(f("Thruk")).number == 4 and s.poison[f("Thruk")] == 0  # damaged, poisoned


def test_protection_plus_3_turns_block_4_into_7_not_own_not_side_1(crews: str) -> None:
    s = game(crews)
    put(s, {f("Warder"): (6, DOWN, (0.0, 0.0)), f("Thruk"): (4, UP, (0.0, -0.15)),
            f("Micro"): (1, UP, (0.15, -0.15)), h("Mull"): (4, UP, (0.0, -0.3))})
    assert s.block(f("Thruk")) == 7  # 4 + 3
    assert s.block(f("Warder")) == 3  # the source's own block is not affected
    assert s.block(f("Micro")) is None  # no block on side 1 to add to
    # An ally out of sight (behind the Warder's baseline) is not protected.
    s2 = game(crews)
    put(s2, {f("Warder"): (6, DOWN, (0.0, 0.0)), f("Thruk"): (4, UP, (0.0, 0.15))})
    assert s2.block(f("Thruk")) == 4


def test_power_up_adds_to_attacks_only(crews: str) -> None:
    s = game(crews, first=2)
    put(s, {f("Warder"): (5, DOWN, (0.0, 0.0)), f("Thruk"): (4, UP, (0.0, -0.15)),
            h("Mull"): (6, UP, (0.0, -0.35))}, to_move=1)
    assert s.hit_value(f("Thruk"), h("Mull"), "attack") == 4  # 2 + 2


def test_jarik_backstabs_thruk_who_cannot_see_him(crews: str) -> None:
    s = game(crews)
    put(s, {h("Jarik"): (4, UP, (0.0, 0.0)), f("Thruk"): (7, UP, (0.0, 0.15))})
    assert not s.sees(f("Thruk"), h("Jarik"))
    assert ("shoot", h("Jarik"), "backstab", f("Thruk")) in s.legal_actions()
    s.apply_action(("shoot", h("Jarik"), "backstab", f("Thruk")))  # Backstab 6 vs block 7
    assert s.side(f("Thruk")).number == 6
    s2 = game(crews)
    put(s2, {h("Jarik"): (4, UP, (0.0, 0.0)), f("Thruk"): (6, UP, (0.0, 0.15))})
    s2.apply_action(("shoot", h("Jarik"), "backstab", f("Thruk")))  # 6 >= block 6: killed
    assert s2.scores == [12, 0]
    # Thruk facing Jarik sees him: no Backstab, only the basic hit.
    s3 = game(crews)
    put(s3, {h("Jarik"): (4, UP, (0.0, 0.0)), f("Thruk"): (4, DOWN, (0.0, 0.15))})
    assert s3.sees(f("Thruk"), h("Jarik"))
    shots = {a for a in s3.legal_actions() if a[:2] == ("shoot", h("Jarik"))}
    assert shots == {("shoot", h("Jarik"), "attack", f("Thruk"))}


def test_hold_stops_maneuvers_kills_on_damage_but_the_die_can_shoot(crews: str) -> None:
    s = game(crews, first=2)
    put(s, {f("Clamp"): (3, DOWN, (0.0, 0.0)), h("Mull"): (4, UP, (0.0, -0.2)),
            f("Thruk"): (5, UP, (0.0, 0.25))}, to_move=1)
    s.apply_action(("pass",))  # P2 passes; P1's turn starts with Mull held
    assert s.held(h("Mull")) and not s.frozen(h("Mull"))
    assert not [a for a in s.legal_actions() if a[:2] == ("move", h("Mull"))]
    assert [a for a in s.legal_actions() if a[:2] == ("shoot", h("Mull"))]  # can shoot
    # A held die dies to any damage, whatever its block.
    s2 = game(crews, first=2)
    put(s2, {f("Clamp"): (3, DOWN, (0.0, 0.0)), h("Mull"): (7, UP, (0.0, -0.2)),
             f("Thruk"): (2, DOWN, (0.0, 0.15))}, to_move=1)
    assert s2.held(h("Mull")) and s2.block(h("Mull")) == 7
    s2.apply_action(("shoot", f("Thruk"), "attack", h("Mull")))  # hit 1
    assert s2.where[h("Mull")] == "reserve" and s2.scores == [0, 9]


def test_freeze_also_stops_shooting_and_neither_turns_off_continuous_effects(
        crews: str) -> None:
    s = game(crews)
    put(s, {f("Clamp"): (5, DOWN, (0.0, 0.0)), h("Gavin"): (4, UP, (0.0, -0.2)),
            h("Mull"): (4, UP, (0.1, -0.2))})
    assert s.frozen(h("Gavin")) and s.held(h("Gavin")) and s.frozen(h("Mull"))
    assert not [a for a in s.legal_actions() if a[0] in ("shoot", "move")]
    # A frozen Protection source keeps protecting.
    s2 = game(crews)
    put(s2, {f("Warder"): (6, DOWN, (0.0, 0.0)), f("Thruk"): (4, UP, (0.0, -0.15)),
             h("Icer"): (4, UP, (0.0, -0.35))})
    assert s2.frozen(f("Warder")) and s2.block(f("Thruk")) == 7


def test_a_die_landing_in_freeze_range_is_frozen_only_from_the_next_turn(crews: str) -> None:
    s = game(crews, first=2)
    put(s, {f("Clamp"): (5, DOWN, (0.0, 0.1))}, to_move=0)
    rng = np.random.default_rng(3)
    for _ in range(400):
        spec = aimed_throw(s, 0, (rng.uniform(-0.2, 0.2), rng.uniform(-0.3, -0.05)), rng)
        trial = s.clone()
        trial.apply_action(throw_action(h("Mull"), spec))
        # ... and P1's turn goes on after it (a landing with nothing left to do ends the
        # turn, and the freeze would then rightly start at once).
        if (trial.where[h("Mull")] == "play" and trial.sees(f("Clamp"), h("Mull"))
                and trial.current_player() == 0):
            break
    else:
        pytest.fail("no throw landed in Clamp's sight")
    s.apply_action(throw_action(h("Mull"), spec))
    assert not s.frozen(h("Mull"))  # not until the beginning of the next turn
    while s.current_player() == 0:
        s.apply_action(("decline",) if ("decline",) in s.legal_actions() else ("pass",))
    assert s.frozen(h("Mull"))


# ---------------------------------------------------------------------------------------
# Command, Call Ally, Jump, Repair, Poison


def test_liam_hart_helen_crane_command_chain(crews: str) -> None:
    s = game(crews)
    hart, gavin, mull, helen = h("Liam Hart"), h("Gavin"), h("Mull"), h("Helen Crane")
    put(s, {hart: (6, UP, (0.0, -0.3)), gavin: (3, UP, (0.0, -0.15)),
            mull: (4, UP, (0.25, -0.05))})
    s.apply_action(("shoot", hart, "command"))
    assert s.decision == "cmd" and s.stack[-1]["order"] == [gavin, mull]  # nearest first
    assert s.immune(hart, "dark blue")  # commanders are immune while commanding
    s.apply_action(("shoot", gavin, "call"))  # Gavin Calls Helen
    assert s.decision == "throw"
    rng = np.random.default_rng(0)
    for _ in range(500):
        spec = aimed_throw(s, 0, (rng.uniform(-0.1, 0.1), rng.uniform(-0.3, -0.15)), rng)
        trial = s.clone()
        trial.apply_action(throw_action(helen, spec))
        if trial.where[helen] == "play" and not trial.take_results()[0]["disturbed"] \
                and {gavin, mull} <= set(trial.in_range(helen, trial.allies(helen), "all")):
            break
    else:
        pytest.fail("no throw put Helen in play with Gavin and Mull in sight")
    s.apply_action(throw_action(helen, spec))
    # Helen lands on a Command side and Commands: Hart is immune (still commanding).
    s.apply_action(("shoot", helen, "command"))
    helen_order = s.stack[-1]["order"]
    assert hart not in helen_order and set(helen_order) == {gavin, mull}
    acted = []
    while s.decision == "cmd":
        task = s.stack[-1]
        acted.append((task["src"], task["order"][task["idx"]]))
        s.apply_action(("decline",))
    # Gavin and Mull act for Helen, then Mull's pending command from Hart.
    assert acted == [(helen, a) for a in helen_order] + [(hart, mull)]
    assert s.decision == "main" and s.current_player() == 1


def test_helen_commands_hart_after_knocking_him_off_his_command_side(crews: str) -> None:
    s = game(crews)
    hart, gavin, mull, helen = h("Liam Hart"), h("Gavin"), h("Mull"), h("Helen Crane")
    put(s, {hart: (6, UP, (0.0, -0.3)), gavin: (3, UP, (0.0, -0.15)),
            mull: (4, UP, (0.25, -0.05))})
    s.apply_action(("shoot", hart, "command"))
    s.apply_action(("shoot", gavin, "call"))
    rng = np.random.default_rng(0)
    for _ in range(500):
        spec = aimed_throw(s, 0, (rng.uniform(-0.1, 0.1), rng.uniform(-0.3, -0.15)), rng)
        trial = s.clone()
        trial.apply_action(throw_action(helen, spec))
        if trial.where[helen] == "play" and not trial.take_results()[0]["disturbed"]:
            break
    s.apply_action(throw_action(helen, spec))
    # As if Helen's landing had knocked Hart onto a non-Command side:
    crew = s.dice[hart].crew
    s.poses[hart] = s.table.tip(hart, crew.corner_axis(6, "right")).pose
    assert s.side(hart).arrows[0].effect != "Command"
    assert not s.immune(hart, "dark blue")
    s.apply_action(("shoot", helen, "command"))
    assert hart in s.stack[-1]["order"]  # she Commands him as well
    pending = [t for t in s.stack if t["t"] == "cmd" and t["src"] == hart][0]
    assert pending["order"][pending["idx"]] == mull  # his pending Command on Mull stays


def test_call_ally_cannot_call_a_die_in_reserve(crews: str) -> None:
    s = game(crews)
    hand_all_reserve = {d: "reserve" for d in s.seat_dice(0)}
    put(s, {h("Gavin"): (3, UP, (0.0, 0.0))}, where=hand_all_reserve)
    assert not [a for a in s.legal_actions() if a[:3] == ("shoot", h("Gavin"), "call")]
    s2 = game(crews)
    put(s2, {h("Gavin"): (3, UP, (0.0, 0.0))}, where={h("Mull"): "reserve"})
    s2.apply_action(("shoot", h("Gavin"), "call"))
    callable_dice = {a[1] for a in s2.legal_actions()}
    assert h("Mull") not in callable_dice and h("Jarik") in callable_dice


def test_jump_rethrows_the_die_and_repeats_while_it_lands_on_jump(crews: str) -> None:
    s = game(crews)
    hop = h("Hopper")
    put(s, {hop: (4, UP, (0.0, -0.1)), f("Thruk"): (4, UP, (0.2, 0.2))})
    s.poison[hop] = 1
    s.apply_action(("shoot", hop, "jump"))
    assert hop not in s.poison  # Jumping removes Poison counters
    assert s.where[hop] == "hand" and s.legal_actions() == [("throw", hop)]
    rng = np.random.default_rng(1)
    for _ in range(300):
        spec = aimed_throw(s, 0, (rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.1)), rng)
        trial = s.clone()
        trial.apply_action(throw_action(hop, spec))
        if trial.where[hop] == "play":
            break
    s.apply_action(throw_action(hop, spec))
    # Hopper shows Jump on every side: landing on a Jump, it may Jump again.
    assert s.where[hop] == "play" and s.decision == "shoot"
    assert ("shoot", hop, "jump") in s.legal_actions()
    s.apply_action(("shoot", hop, "jump"))
    assert s.legal_actions() == [("throw", hop)]


def test_repair_rolls_an_ally_any_way_and_clears_poison(crews: str) -> None:
    s = game(crews)
    put(s, {h("Medic"): (4, UP, (0.0, 0.0)), h("Mull"): (4, UP, (0.0, 0.2))})
    s.poison[h("Mull")] = 1
    s.apply_action(("shoot", h("Medic"), "repair", h("Mull")))
    assert h("Mull") not in s.poison
    assert {a[2] for a in s.legal_actions() if a[0] == "tip"} == {"top", "left", "right"}
    s.apply_action(("tip", h("Mull"), "top"))  # side 4 has no green dot at the top
    assert s.side(h("Mull")).number == s.dice[h("Mull")].crew.neighbour(4, "top")


def test_poison_counters_no_doubles_damage_from_the_edge_and_clear_on_kill(crews: str) -> None:
    s = game(crews)
    put(s, {h("Viper"): (4, UP, (0.0, -0.2)), f("Thruk"): (7, UP, (-0.1, 0.0)),
            f("Clamp"): (8, UP, (0.1, 0.2))})
    s.apply_action(("shoot", h("Viper"), "attack"))
    assert s.poison == {f("Thruk"): 0, f("Clamp"): 0}
    assert s.side(f("Thruk")).number == 6 and s.side(f("Clamp")).number == 7
    s.apply_action(("pass",))  # P2's turn; then P1's counters do damage
    assert s.side(f("Thruk")).number == 5 and s.side(f("Clamp")).number == 6
    s.apply_action(("shoot", h("Viper"), "attack"))  # shooting poisoned dice again
    assert s.poison == {f("Thruk"): 0, f("Clamp"): 0}  # still one counter each
    # A kill clears the counter.
    s.poison[f("Thruk")] = 0
    s._kill(f("Thruk"), 0, "test")
    assert f("Thruk") not in s.poison


def test_poison_counter_order_starts_at_the_players_edge(crews: str) -> None:
    s = game(crews, first=2)
    put(s, {h("Viper"): (4, UP, (0.0, -0.4)), f("Thruk"): (2, UP, (0.0, 0.3)),
            f("Clamp"): (2, UP, (0.0, -0.1))}, to_move=1)
    s.poison = {f("Thruk"): 0, f("Clamp"): 0}
    events(s)
    s.apply_action(("pass",))  # P1's turn begins: counters from P1's edge (y = -0.45)
    ev = [e for e in events(s) if "poison counter" in e]
    assert "Clamp" in ev[0] and "Thruk" in ev[1]
    assert s.side(f("Clamp")).number == 1 and s.side(f("Thruk")).number == 1


# ---------------------------------------------------------------------------------------
# Throwing: off the table, knocked off, fouls; reserve; the win


def _find_throw(s: DWSState, die: str, want: Any, seed: int, target: tuple[float, float],
                spread: float = 0.05, tries: int = 1500) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        spot = (target[0] + rng.normal(0, spread), target[1] + rng.normal(0, spread))
        act = throw_action(die, aimed_throw(s, s.current_player(), spot, rng,
                                            flight=float(rng.uniform(0.3, 0.8))))
        trial = s.clone()
        trial.apply_action(act)
        if want(trial, trial.take_results()[0]):
            return act
    pytest.fail("no throw found with the wanted outcome")


def test_knocked_off_dice_score_for_the_opponent_whoever_owns_them(crews: str) -> None:
    s = game(crews)
    put(s, {f("Thruk"): (4, UP, (0.0, 0.40)), h("Gavin"): (4, UP, (0.3, 0.40))})
    act = _find_throw(s, h("Mull"), lambda t, r: any(
        d["after"]["status"] == "off_table" for d in r["disturbed"]), 5, (0.0, 0.33),
        spread=0.15)
    s.apply_action(act)
    r = s.take_results()[0]
    gone = [d["after"]["die"] for d in r["disturbed"] if d["after"]["status"] == "off_table"]
    assert gone
    assert s.scores[1] == sum(s.dice[d].crew.points for d in gone)  # the thrower's opponent
    assert s.scores[0] == 0
    assert all(s.where[d] == "hand" and d not in s.poses for d in gone)  # not reserve


def test_a_die_thrown_off_the_table_goes_to_hand_without_penalty_or_shot(crews: str) -> None:
    s = game(crews)
    put(s, {f("Thruk"): (4, UP, (0.0, 0.2))})
    act = _find_throw(s, h("Gavin"), lambda t, r: r["outcome"]["status"] == "off_table",
                      2, (0.0, 0.6), spread=0.1)
    s.apply_action(act)
    assert s.where[h("Gavin")] == "hand" and s.scores == [0, 0]
    assert s.current_player() == 1 and s.decision == "main"  # no shot: P2's turn


def test_a_foul_gives_the_opponent_three_choices(crews: str) -> None:
    s = game(crews)
    put(s, {f("Thruk"): (4, UP, (0.0, 0.2))})
    spec = (0.0, -0.5, 0.1, 0.0, 1.2, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)  # 5 cm back, low
    s1 = s.clone()
    s1.apply_action(("throw", h("Gavin"), spec))
    if s1.where[h("Gavin")] != "play":
        pytest.skip("the foul throw did not stay on the table")
    assert s1.decision == "foul" and s1.current_player() == 1
    assert set(s1.legal_actions()) == {("foul", "allow"), ("foul", "no_shot"),
                                       ("foul", "remove")}
    s2 = s1.clone()
    s2.apply_action(("foul", "remove"))
    assert h("Gavin") not in s2.poses
    assert any("goes to reserve" in e for e in s2.take_events())
    s3 = s1.clone()
    s3.apply_action(("foul", "no_shot"))
    assert s3.decision == "main" and s3.current_player() == 1  # no shot for Gavin
    s4 = s1.clone()
    s4.apply_action(("foul", "allow"))
    assert s4.current_player() == 0 or s4.decision == "main"


def test_a_foul_removed_die_cannot_be_thrown_again_this_turn(crews: str) -> None:
    s = game(crews)
    hart, gavin, mull = h("Liam Hart"), h("Gavin"), h("Mull")
    put(s, {hart: (6, UP, (0.0, -0.3)), gavin: (3, UP, (0.0, -0.15)),
            mull: (3, UP, (0.25, -0.05))})
    s.apply_action(("shoot", hart, "command"))
    s.apply_action(("shoot", gavin, "call"))
    spec = (-0.3, -0.5, 0.1, 0.0, 1.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)  # foul zone
    s.apply_action(("throw", h("Jarik"), spec))
    assert s.decision == "foul"
    s.apply_action(("foul", "remove"))
    assert s.where[h("Jarik")] == "reserve"
    if s.decision == "shoot":
        s.apply_action(("decline",))
    assert s.decision == "cmd" and s.stack[-1]["order"][s.stack[-1]["idx"]] == mull
    s.apply_action(("shoot", mull, "call"))  # Mull Calls: Jarik is not among the choices
    assert ("throw", h("Jarik")) not in s.legal_actions()
    assert ("throw", h("Jarik"), spec) not in s.legal_actions()
    assert not s.is_legal(("throw", h("Jarik"), spec))


def test_a_listed_throw_is_legal_only_with_its_spec(crews: str) -> None:
    """`legal_actions` lists a throw as the placeholder ('throw', die); the placeholder
    itself is not an action the table can take (it once passed `is_legal` and then failed
    with an IndexError inside the engine, which stopped a server's table)."""
    s = game(crews)
    put(s, {h("Gavin"): (1, UP, (0.0, -0.3))})
    die = next(a[1] for a in s.legal_actions() if a[0] == "throw")
    assert not s.is_legal(("throw", die))
    with pytest.raises(RulesError, match="illegal action"):
        s.apply_action(("throw", die))
    assert ("throw", die) in s.legal_actions()  # the state is as it was
    assert s.is_legal(throw_action(die, aimed_throw(s, 0, (0.0, 0.0), np.random.default_rng(1))))


def test_forced_pass_with_every_die_in_reserve_and_reserve_timing(crews: str) -> None:
    s = game(crews, first=2)
    reserve = {d: "reserve" for d in s.seat_dice(0)}
    put(s, {f("Thruk"): (4, UP, (0.0, 0.2))}, to_move=0, where=reserve)
    assert s.legal_actions() == [("pass",)]
    s.apply_action(("pass",))
    # Killed on the last turn, unavailable this turn, back in hand at its end.
    assert all(s.where[d] == "hand" for d in s.seat_dice(0))


def test_a_die_killed_on_the_opponents_turn_misses_its_owners_next_turn(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (3, UP, (0.0, 0.2))})
    s.apply_action(("shoot", h("Gavin"), "attack", f("Thruk")))
    assert s.where[f("Thruk")] == "reserve" and s.current_player() == 1
    assert ("throw", f("Thruk")) not in s.legal_actions()
    s.apply_action(("pass",))
    assert s.where[f("Thruk")] == "hand"


def test_first_to_50_wins_at_once(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (3, UP, (0.0, 0.2))})
    s.scores = [40, 0]
    s.apply_action(("shoot", h("Gavin"), "attack", f("Thruk")))
    assert s.is_terminal() and s.returns() == [1.0, 0.0] and s.scores == [52, 0]
    assert s.legal_actions() == []


def test_serialize_round_trip_and_illegal_actions(crews: str) -> None:
    s = game(crews)
    put(s, {h("Gavin"): (4, UP, (0.0, 0.0)), f("Thruk"): (5, UP, (0.0, 0.2)),
            f("Clamp"): (3, DOWN, (0.2, 0.3))})
    s.poison[f("Thruk")] = 0
    data = s.serialize()
    t = dws.deserialize(data)
    assert t.serialize() == data
    assert t.legal_actions() == s.legal_actions()
    with pytest.raises(RulesError):
        s.apply_action(("move", f("Thruk"), "right"))  # not P2's turn
    with pytest.raises(RulesError):
        dws.deserialize({"game": "deep-white-sea"})


def test_a_poison_counter_kill_scores_for_its_creator(crews: str) -> None:
    s = game(crews, first=2)
    put(s, {h("Viper"): (4, UP, (0.0, -0.3)), f("Thruk"): (1, UP, (0.0, 0.2))}, to_move=1)
    s.poison = {f("Thruk"): 0}
    s.apply_action(("pass",))  # P1's turn begins with P1's counter on Thruk's side 1
    assert s.where[f("Thruk")] == "reserve" and s.scores == [12, 0]
    assert f("Thruk") not in s.poison


def test_a_called_die_lands_and_may_shoot_before_the_next_command(crews: str) -> None:
    s = game(crews)
    hart, gavin, mull = h("Liam Hart"), h("Gavin"), h("Mull")
    put(s, {hart: (6, UP, (0.0, -0.3)), gavin: (3, UP, (0.0, -0.15)),
            mull: (4, UP, (0.25, -0.05)), f("Thruk"): (2, UP, (0.0, 0.3))})
    s.apply_action(("shoot", hart, "command"))
    s.apply_action(("shoot", gavin, "call"))
    act = _find_throw(s, h("Jarik"), lambda t, r: t.decision == "shoot"
                      and t.stack[-1]["die"] == h("Jarik"), 4, (0.0, 0.0), spread=0.1)
    s.apply_action(act)
    assert s.decision == "shoot" and s.stack[-1]["die"] == h("Jarik")  # before Mull's turn
    s.apply_action(("decline",))
    assert s.decision == "cmd" and s.stack[-1]["order"][s.stack[-1]["idx"]] == mull


# ---------------------------------------------------------------------------------------
# Issue 15: continuous effects on dice that leave play, mixed ranges, short-range ties,
# tips that brush


def _land(s: DWSState, die: str, seat: int, goal: Any, near: tuple[float, float],
          seed: int = 3) -> Any:
    """A throw of `die` (an action's spec) after which `goal(trial)` holds."""
    rng = np.random.default_rng(seed)
    for _ in range(400):
        spec = aimed_throw(s, seat, (near[0] + rng.uniform(-0.1, 0.1),
                                     near[1] + rng.uniform(-0.1, 0.1)), rng)
        trial = s.clone()
        trial.apply_action(throw_action(die, spec))
        if trial.where[die] == "play" and goal(trial):
            return spec
    pytest.fail("no throw landed as wanted")


def test_a_held_die_that_jumps_out_of_sight_is_no_longer_held(crews: str) -> None:
    # "To Jump means to pick the die up and throw it again. It can fire when it lands, just
    # like any other throw." Picked up, it is out of play and so out of the Hold.
    s = game(crews)
    hop, clamp = h("Hopper"), f("Clamp")
    put(s, {clamp: (3, DOWN, (0.0, 0.1)), hop: (4, UP, (0.0, -0.05))})
    assert s.held(hop)
    s.apply_action(("shoot", hop, "jump"))
    spec = _land(s, hop, 0, lambda t: not t.sees(clamp, hop), (0.0, 0.3))
    s.apply_action(throw_action(hop, spec))
    assert hop not in s.effects[clamp]["targets"]
    assert not s.held(hop)


def test_a_frozen_die_knocked_off_and_called_back_out_of_sight_can_fire(crews: str) -> None:
    # "To Call Ally means to throw a new die from your hand into play. The die you throw can
    # fire when it lands, just like any other throw."
    s = game(crews)
    mull, gavin, clamp, thruk = h("Mull"), h("Gavin"), f("Clamp"), f("Thruk")
    put(s, {clamp: (5, DOWN, (0.0, 0.1)), mull: (4, UP, (0.1, -0.05)),
            gavin: (3, UP, (-0.3, 0.3)), thruk: (4, UP, (0.3, 0.3))})
    assert s.frozen(mull)
    s._knocked_off(mull, "fell_off", 1)  # as a throw that knocks it off the table does
    s.apply_action(("shoot", gavin, "call"))

    def free_to_fire(t: DWSState) -> bool:
        return not t.sees(clamp, mull) and bool(t.in_range(mull, t.enemies(mull)))

    spec = _land(s, mull, 0, free_to_fire, (0.2, 0.3), seed=5)
    s.apply_action(throw_action(mull, spec))
    assert not s.frozen(mull)
    assert s.decision == "shoot" and s.stack[-1]["die"] == mull and s.shots(mull)


def _toward(pose: Any, corner_xy: tuple[float, float], dist: float) -> tuple[float, float]:
    cx, cy = pose.position[0], pose.position[1]
    dx, dy = corner_xy[0] - cx, corner_xy[1] - cy
    n = float(np.hypot(dx, dy))
    return (cx + dist * dx / n, cy + dist * dy / n)


def test_mixed_range_side_uses_each_arrows_own_range(crews: str) -> None:
    # FORMAT.md: "hits and ranges may differ by corner". Rulebook: "[A short-range shot]
    # can only hit the closest visible target." "A shot with an All-Range arrow hits every
    # visible target."
    s = game(crews)
    mixer = h("Mixer")
    put(s, {mixer: (4, UP, (0.0, -0.1))})
    pose = s.poses[mixer]
    crew = s.dice[mixer].crew
    top = pose.top_corners[crew.corner_axis(4, "top")]
    left = pose.top_corners[crew.corner_axis(4, "left")]
    near, far, side_on = f("Thruk"), f("Micro"), f("Fat Robot Steve")
    spots = {mixer: (4, UP, (0.0, -0.1)),
             near: (4, UP, _toward(pose, top, 0.12)), far: (4, UP, _toward(pose, top, 0.25)),
             side_on: (4, UP, _toward(pose, left, 0.2))}
    put(s, spots)
    assert s.range_targets(mixer, s.enemies(mixer)) == {"short": [near], "all": [side_on]}
    attacks = [a for a in s.legal_actions() if a[:3] == ("shoot", mixer, "attack")]
    assert attacks == [("shoot", mixer, "attack", near), ("shoot", mixer, "attack")]
    assert s.hit_value(mixer, near, "attack") == 2
    s.apply_action(("shoot", mixer, "attack"))  # the all-range arrow: hit 5 >= block 4
    assert s.where[side_on] == "reserve" and s.where[near] == s.where[far] == "play"


def test_a_short_range_continuous_tie_is_the_shooters_choice(crews: str) -> None:
    # CLARIFICATIONS: "Short range: the closest visible legal target; on an exact tie the
    # shooter chooses." Two dice mirror-placed about Snare's arrow are exactly as close.
    s = game(crews)
    snare, a, b = f("Snare"), h("Mull"), h("Jarik")
    put(s, {snare: (4, DOWN, (0.0, 0.1)),
            a: (4, 135.0, (0.1, 0.0)), b: (4, 45.0, (-0.1, 0.0))}, to_move=1)
    # (side 4 of Mull and Jarik points its arrow, the top corner, back at Snare)
    assert abs(s.distance(snare, a) - s.distance(snare, b)) < 1e-12
    assert s.decision == "aim" and s.current_player() == 1
    assert sorted(s.legal_actions()) == sorted([("aim", snare, a), ("aim", snare, b)])
    s.apply_action(("aim", snare, b))
    assert s.held(b) and not s.held(a)


def test_a_tip_that_would_only_brush_a_die_is_blocked_and_one_that_clears_is_not(
        crews: str) -> None:
    # "Even if the die would only brush the obstacle, the move is illegal." The sweep is in
    # 3D; only a numerical tolerance of 0.01 mm is allowed (geometry.TOUCH_M).
    from dice_models.geometry import tip_clearance
    from rules.deep_white_sea.geometry import TOUCH_M

    assert TOUCH_M <= 1e-5
    s = game(crews)
    mull, thruk = h("Mull"), f("Thruk")
    crew = s.dice[mull].crew
    axis = crew.corner_axis(4, "right")
    put(s, {mull: (4, UP, (0.0, 0.0))})
    t = s.table
    r = t.dice[mull]
    rot, centre = t.oct.rotation(r.face, r.yaw), t.oct.centre((r.x, r.y))
    end = t.tip(mull, axis).pose.position
    t.tip(mull, axis)  # (tipped back is another corner; start again)
    direction = np.array(end[:2]) / np.hypot(*end[:2])

    def clearance(dist: float) -> float:
        obstacle = t.oct.solid(0, 0.0, (float(direction[0] * dist), float(direction[1] * dist)))
        return tip_clearance(t.oct.poly, rot, centre, axis, [obstacle], TOUCH_M)[1]

    lo, hi = 0.03, 0.15  # bisect for the spot where the roll just touches (clearance 0)
    for _ in range(25):  # to 4e-9 m
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if clearance(mid) < 0 else (lo, mid)
    for gap, blocked in ((-0.0001, True), (-0.00002, True), (0.0002, False)):
        xy = (float(direction[0] * (hi + gap * 1.5)), float(direction[1] * (hi + gap * 1.5)))
        s.setup_position({mull: (4, s.yaw_facing(mull, 4, "top", UP), (0.0, 0.0)),
                          thruk: (s.dice[thruk].crew.side_on_face(0), 0.0, xy)}, 0)
        assert (s.table.can_tip(mull, axis) == thruk) is blocked, gap


def test_issue_15_vosk_is_not_pinned_by_nerys_a_3d_sweep_clears_it() -> None:
    # Issue 15: a 2D footprint overlap once refused this damage roll ("Vosk killed (pinned by
    # Nerys)"); the dice do not meet in 3D, so Vosk drops a side through its red dot.
    s = dws.new_game(2, {"crews": "white,blue", "table": "kinematic", "first": 1})
    otto, vosk, nerys = (next(d for d in s.dice if n in d) for n in ("otto", "vosk", "nerys"))
    s.setup_position({otto: (6, 90.0, (0.0, -0.3)), vosk: (7, -156.88, (0.0, 0.0)),
                      nerys: (3, -98.17, (0.0543, 0.0593))}, 0)
    crew = s.dice[vosk].crew
    assert s.table.can_tip(vosk, crew.corner_axis(7, crew.side(7).red)) is None
    s._damage(vosk, 0, None, poison=False)
    assert s.where[vosk] == "play" and s.side(vosk).number == 6



def test_sight_range_and_effect_queries_only_look() -> None:
    """rules/deep_white_sea/sight.py holds the questions about the dice on the table; asking
    every one of them about every pair in a game in progress changes nothing of the state."""
    import rules.deep_white_sea as dws
    from rules.core.bots import make_agent
    from rules.deep_white_sea.sight import Sight

    s = dws.new_game(2, {"table": "kinematic", "first": 1}, np.random.default_rng(4))
    bot = make_agent("random", dws, np.random.default_rng(4))
    for _ in range(12):
        s.apply_action(bot.step(s))
    assert isinstance(s, Sight) and len(s.poses) >= 2
    before = json.dumps(s.serialize(), sort_keys=True)
    dice = sorted(s.poses)
    for a in dice:
        for name in ("side", "held", "frozen", "protection", "power_up", "block", "allies",
                     "enemies", "on_table"):
            getattr(s, name)(a)
        s.range_targets(a, dice)
        s.in_range(a, dice)
        s.immune(a, "dark blue")
        for b in dice:
            s.sees(a, b)
            if a != b:
                s.distance(a, b)
                s.hit_value(a, b, "attack")
    assert json.dumps(s.serialize(), sort_keys=True) == before
