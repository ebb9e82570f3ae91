"""DiceWar: the rules of `dicewar.txt` and the project's decisions, the tribe format and
its validation, the players, and conformance over many seeds."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import rules.dicewar as dw
from rules.core import RulesError, SeededRoller
from rules.core.bots import RandomBot, make_agent
from rules.dicewar.game import CELLS, RUINS, SIZE, DiceWarState
from rules.dicewar.tribe import SPECIALITIES, TRIBES_DIR


def cell(name: str) -> int:
    return dw.parse_cell(name)


def war(pieces: dict[str, int], player: int = 0, ruins: bool = False,
        tribes: str = "emberfen") -> DiceWarState:
    """A war-phase position: pieces maps fields to signed powers (+ red, - black)."""
    s = dw.new_game(2, {"ruins": ruins, "tribes": tribes})
    s.phase = "war"
    s.player = player
    s.setup_done = [True, True]
    for name, v in pieces.items():
        s.board[cell(name)] = v
        s.reserve[0 if v > 0 else 1] -= 1
    return s


def test_power_hierarchy_with_the_three_beats_six_exception():
    for a in range(1, 7):
        for d in range(1, 7):
            assert dw.beats(a, d) == (a > d or (a == 3 and d == 6))
    assert dw.beats(3, 6) and not dw.beats(6, 6) and not dw.beats(2, 6) and not dw.beats(4, 6)


def test_field_bonus_values():
    # the book: power 3 defeated in the opposing Supply Zone scores 3 + 3 = 6
    assert [dw.field_bonus(0, r * SIZE) for r in range(SIZE)] == [0, 0, 0, 0, 1, 2, 3]
    assert [dw.field_bonus(1, r * SIZE) for r in range(SIZE)] == [3, 2, 1, 0, 0, 0, 0]
    s = war({"c6": 4, "c7": -3})
    s.apply_action(("move", cell("c6"), cell("c7")))
    assert s.vp[0] == 6 and s.exile[1] == 1 and s.board[cell("c7")] == 4


def test_start_roll_ties_reroll_and_higher_starts():
    s = dw.new_game(2, {})
    assert s.is_chance_node() and s.chance_request() == ("d6", 2)
    assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1.0)
    s.apply_chance((4, 4))
    assert s.is_chance_node()
    s.apply_chance((2, 5))
    assert s.phase == "setup" and s.current_player() == 1 and s.first == 1


def test_setup_to_power_ten_in_the_supply_zone():
    s = dw.new_game(2, {})
    s.apply_chance((6, 1))
    assert all(a[0] == "place" for a in s.legal_actions())
    s.apply_action(("place", 0, 4))
    s.apply_action(("place", 6, 6))  # the book's example: 4 + 6
    assert s.current_player() == 1 and s.reserve[0] == 13
    for col, power in ((1, 2), (3, 3), (5, 5)):
        s.apply_action(("place", col, power))
    assert s.phase == "war" and s.current_player() == 0
    assert s.board[cell("b7")] == -2 and s.board[cell("a1")] == 4
    s2 = dw.new_game(2, {})
    s2.apply_chance((6, 1))
    for col in range(6):
        s2.apply_action(("place", col, 1))
    # six ones: the last field must take a 4, nothing more and nothing less
    assert s2.legal_actions() == [("place", 6, 4)]


def test_movement_is_adjacent_unoccupied_and_pattern_dependent():
    s = war({"d4": 4, "d5": 2, "e4": -1, "a1": 6})
    moves, attacks = s.targets_of_movement(cell("d4"))
    assert sorted(moves) == sorted([cell("c4"), cell("d3")]) and attacks == [cell("e4")]
    # Ember Mote (1): surrounding; Reed Runner (2): two fields in a line
    s2 = war({"d4": 1, "b2": 2})
    assert len(s2.targets_of_movement(cell("d4"))[0]) == 8
    assert sorted(s2.targets_of_movement(cell("b2"))[0]) == sorted(
        cell(n) for n in ("a2", "c2", "d2", "b1", "b3", "b4"))
    # Ash Strider (5) leaps like a knight; Dusk Dragon (6) flies 3 over others
    s3 = war({"d4": 5, "a1": 6, "a2": 1, "b1": 1})
    assert len(s3.targets_of_movement(cell("d4"))[0]) == 8
    assert sorted(s3.targets_of_movement(cell("a1"))[0]) == sorted(
        cell(n) for n in ("a3", "a4", "c1", "d1"))


def test_attack_only_what_it_beats_three_beats_six():
    s = war({"c4": 3, "c5": -6, "d4": -4})
    moves, attacks = s.targets_of_movement(cell("c4"))
    assert attacks == [cell("c5")]  # not the 4
    s.apply_action(("move", cell("c4"), cell("c5")))
    assert s.vp[0] == 6 + 1 and s.board[cell("c5")] == 3  # field bonus +1 on row 5
    assert s.tp[0] == 1  # Wyrmbane's speciality
    assert s.tp[1] == 3  # the Dusk Dragon's speciality for its owner
    s2 = war({"c3": -6, "c4": 3}, player=1)
    assert s2.targets_of_movement(cell("c3"))[1] == [cell("c4")]  # and 6 beats 3 too
    s3 = war({"c3": 6, "c4": -6})
    assert s3.targets_of_movement(cell("c3"))[1] == []


def test_upgrade_and_its_limit():
    s = war({"a1": 3, "b1": 6, "g7": -1})
    assert ("upgrade", cell("a1")) in s.legal_actions()
    assert ("upgrade", cell("b1")) not in s.legal_actions()
    s.apply_action(("upgrade", cell("a1")))
    assert s.board[cell("a1")] == 4 and s.current_player() == 1


def test_spells_summon_from_the_reserve():
    s = war({"d4": 1, "g7": -1})
    spells = [a for a in s.legal_actions() if a[0] == "spell"]
    assert sorted(a[2] for a in spells) == sorted(cell(n) for n in ("c4", "e4", "d3", "d5"))
    before = s.reserve[0]
    s.apply_action(("spell", cell("d4"), cell("d5")))
    assert s.board[cell("d5")] == 1 and s.reserve[0] == before - 1
    s2 = war({"d4": 1, "g7": -1})
    s2.reserve[0] = 0
    s2.exile[0] = 13
    assert not [a for a in s2.legal_actions() if a[0] == "spell"]


def test_spells_charge_bolt_reinforce_recall_weaken():
    s = war({"b2": 2, "c3": 3, "e5": -2, "d3": 4, "d2": 1, "a7": 5, "f6": -4, "f5": 6})
    s.apply_action(("spell", cell("b2"), cell("b2")))  # charge
    assert s.tp[0] == 1
    s.player = 0
    s.tp[0] = 2
    # bolt: trigger points equal to the target's power; the Reed Runner is immune
    assert [a for a in s.legal_actions() if a[:2] == ("spell", cell("c3"))] == []
    s.board[cell("e5")] = -1
    assert ("spell", cell("c3"), cell("e5")) in s.legal_actions()
    s.apply_action(("spell", cell("c3"), cell("e5")))
    # power 1 + field bonus 1; the Mote goes back to black's Reserve
    assert s.tp[0] == 1 and s.vp[0] == 1 + 1 and s.board[cell("e5")] == 0
    s.player = 0
    s.apply_action(("spell", cell("d3"), cell("d2")))  # reinforce costs 1
    assert s.board[cell("d2")] == 2 and s.tp[0] == 0
    s.player = 0
    s.exile[0] = 1
    s.reserve[0] -= 1
    s.apply_action(("spell", cell("a7"), cell("a7")))  # recall
    assert s.exile[0] == 0 and s.tp[0] == 1
    s.player = 0
    s.tp[0] = 2
    s.apply_action(("spell", cell("f5"), cell("f6")))  # weaken
    assert s.board[cell("f6")] == -3 and s.tp[0] == 0


def test_specialities_guardian_threatening_return_to_reserve():
    s = war({"c3": 3, "d4": -1, "d5": -4, "g7": 1})
    s.tp[0] = 5
    # the Bog Warden guards the Mote next to it against spells
    assert ("spell", cell("c3"), cell("d4")) not in s.legal_actions()
    s.board[cell("d5")] = 0
    s.reserve[1] += 1
    assert ("spell", cell("c3"), cell("d4")) in s.legal_actions()
    s.apply_action(("spell", cell("c3"), cell("d4")))
    assert s.reserve[1] == 15 and s.exile[1] == 0  # the Mote went home
    s2 = war({"c3": 2, "c4": -5})
    moves, attacks = s2.targets_of_movement(cell("c3"))
    assert moves == [] and attacks == []  # held by the Ash Strider; cannot beat it
    s3 = war({"c3": 6, "c4": -5})
    assert s3.targets_of_movement(cell("c3"))[0] == [] and s3.targets_of_movement(
        cell("c3"))[1] == [cell("c4")]


# ---- the glossary's abilities (the Saltmere carry them) ------------------------------
# Saltmere: 1 Brine Wisp (immune_specialities), 2 Reef Crab (immune_attacks), 3 Harpoon
# Eel (trigger_on_kill), 4 Kelp Keeper, 5 Lighthouse Golem (virtual_vp 2), 6 Leviathan
# (threatening). Emberfen: 3 Wyrmbane (trigger_on_kill), 5 Ash Strider (threatening).


def test_immune_against_opposing_attacks():
    # dicewar.txt, Glossary: "Immune against opposing Attacks (icon: red shield)".
    s = war({"c3": -4, "c4": 2}, player=1, tribes="emberfen,saltmere")  # red Reed Runner
    assert s.targets_of_movement(cell("c3"))[1] == [cell("c4")]
    s = war({"c3": 4, "c4": -2}, tribes="emberfen,saltmere")  # black Reef Crab
    moves, attacks = s.targets_of_movement(cell("c3"))
    assert attacks == [] and ("move", cell("c3"), cell("c4")) not in s.legal_actions()
    with pytest.raises(RulesError, match="illegal action"):
        s.apply_action(("move", cell("c3"), cell("c4")))
    # Attacks only: a spell still reaches it (Wyrmbane's bolt, 2 trigger points).
    s = war({"c3": 3, "c4": -2}, tribes="emberfen,saltmere")
    s.tp[0] = 2
    assert s.targets_of_movement(cell("c3"))[1] == []
    s.apply_action(("spell", cell("c3"), cell("c4")))
    assert s.board[cell("c4")] == 0 and s.exile[1] == 1


def test_immune_against_opposing_specialities():
    # dicewar.txt, Glossary: "Immune against opposing Specialities (icon: blue arc)".
    # Red's Ash Strider is threatening: the Reed Runner next to it is held, the Brine Wisp
    # is not.
    s = war({"c4": 5, "c5": -2}, player=1, tribes="emberfen,saltmere")
    assert s.targets_of_movement(cell("c5"))[0] == []  # Reef Crab: held
    s = war({"c4": 5, "c5": -1}, player=1, tribes="emberfen,saltmere")
    assert len(s.targets_of_movement(cell("c5"))[0]) == 7  # Brine Wisp: free (8 - c4)
    # Red's Wyrmbane gains a trigger point for a defeat, but none for the Wisp.
    s = war({"c3": 3, "c4": -2, "g7": -5}, tribes="emberfen,emberfen")
    s.apply_action(("move", cell("c3"), cell("c4")))
    assert s.tp[0] == 1
    s = war({"c3": 3, "c4": -1, "g7": -5}, tribes="emberfen,saltmere")
    s.apply_action(("move", cell("c3"), cell("c4")))
    assert s.board[cell("c4")] == 3 and s.vp[0] == 1 and s.tp[0] == 0


def test_virtual_victory_points_count_but_are_not_on_the_bar():
    # dicewar.txt, Glossary: "Virtual Victory Points are counted the same way as gained
    # Victory Points in combat. However, they are not displayed on the Victory Points Bar."
    s = war({"a1": 5, "b1": 5, "g7": -1}, tribes="saltmere,emberfen")  # two Golems
    assert s.virtual_vp(0) == 4 and s.points(0) == 4 and s.vp == [0, 0]
    assert "virtual VP 4" in s.render()
    s.vp[0] = 5
    s.apply_action(("upgrade", cell("a1")))  # a Golem becomes the Leviathan: 5 + 2
    assert not s.is_terminal() and s.points(0) == 7
    s = war({"a1": 4, "b1": 5, "g7": -1}, tribes="saltmere,emberfen")
    s.vp[0] = 6
    s.apply_action(("upgrade", cell("a1")))  # a second Golem: 6 + 2 + 2 = 10
    assert s.is_terminal() and s.returns() == [1.0, 0.0]
    assert s.vp[0] == 6  # the bar shows the gained points only
    assert "(4 of them virtual)" in " ".join(s.take_events())


def test_virtual_points_decide_the_turn_limit_and_count_for_the_player_not_on_turn():
    s = war({"a1": 5, "g7": -2}, tribes="saltmere,emberfen")
    s.max_plies = s.plies + 1
    s.vp[1] = 1
    s.apply_action(("upgrade", cell("a1")))  # the Golem is gone: 0 against 1
    assert s.is_terminal() and s.winner == 1
    s = war({"a1": 5, "g7": -2}, player=1, tribes="saltmere,emberfen")
    s.max_plies = s.plies + 1
    s.vp[1] = 1
    s.apply_action(("upgrade", cell("g7")))  # black's turn; red's Golem: 2 against 1
    assert s.is_terminal() and s.winner == 0
    # Black's weaken turns red's Leviathan into a Golem: red reaches 10 on black's turn.
    s = war({"c4": 6, "c5": -6}, player=1, tribes="saltmere,emberfen")
    s.vp[0] = 8
    s.tp[1] = 2
    s.apply_action(("spell", cell("c5"), cell("c4")))
    assert s.board[cell("c4")] == 5 and s.is_terminal() and s.winner == 0


def test_the_saltmere_play_whole_games_against_the_emberfen():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        s = dw.new_game(2, {"tribes": "saltmere,emberfen" if seed % 2 else "emberfen,saltmere"})
        agents = [RandomBot(np.random.default_rng(seed * 10 + i)) for i in range(2)]
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_chance(SeededRoller().roll(*s.chance_request(), rng))
            else:
                s.apply_action(agents[s.current_player()].step(s))
            _invariants(s)


def test_ten_victory_points_win():
    s = war({"c6": 6, "c7": -5, "a1": 1}, player=0)
    s.vp[0] = 2
    s.apply_action(("move", cell("c6"), cell("c7")))
    assert s.is_terminal() and s.returns() == [1.0, 0.0] and s.vp[0] == 10


def test_the_ruins_option():
    s = war({"b3": 2, "d3": 1, "f4": 3, "d5": 3, "a7": -2}, ruins=True)
    assert (cell("b4"), cell("d4"), cell("f4")) == RUINS
    s.apply_action(("move", cell("d3"), cell("d4")))  # a power-1 on a ruin goes home
    assert s.board[cell("d4")] == 0 and s.reserve[0] == 15 - 4 + 1
    s.player = 0
    s.apply_action(("move", cell("b3"), cell("b4")))
    s.player = 0
    assert not s.is_terminal()
    s.apply_action(("move", cell("d5"), cell("d4")))
    assert s.is_terminal() and s.winner == 0


def test_no_legal_action_loses_and_turn_limit_decides():
    s = war({"a1": 6, "a2": -1})
    s.apply_action(("move", cell("a1"), cell("a2")))
    assert s.is_terminal() and s.winner == 0
    s2 = dw.new_game(2, {"max_plies": 1})
    s2.phase, s2.setup_done = "war", [True, True]
    s2.board[cell("a1")], s2.board[cell("g7")] = 2, -2
    s2.reserve = [14, 14]
    s2.apply_action(("upgrade", cell("a1")))
    assert s2.is_terminal() and s2.returns() == [0.5, 0.5]


# ---- tribes ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["emberfen", "saltmere"])
def test_shipped_tribe(name):
    t = dw.load_tribe(name)
    assert [c.power for c in t.creatures] == [1, 2, 3, 4, 5, 6]
    assert all(c.movement and c.spell and c.speciality for c in t.creatures)
    assert any(c.spell.kind == "summon" for c in t.creatures if c.spell)
    assert (TRIBES_DIR / "README.md").exists()


def test_every_speciality_is_used_by_a_shipped_tribe_and_documented():
    used = {c.speciality.kind for name in dw.available()
            for c in dw.load_tribe(name).creatures if c.speciality}
    assert used == set(SPECIALITIES)
    doc = (TRIBES_DIR / "README.md").read_text()
    assert all(f"| `{kind}` |" in doc for kind in SPECIALITIES)


def raw_tribe() -> dict:
    return yaml.safe_load((TRIBES_DIR / "emberfen.yaml").read_text())


@pytest.mark.parametrize("edit, message", [
    (lambda r: r["creatures"].pop(), "creatures: must list exactly six creatures (got 5)"),
    (lambda r: r["creatures"][1].update(power=1), "power levels must be 1 to 6"),
    (lambda r: r["creatures"][2]["movement"].update(pattern="orthogonl"),
     "creatures[2].movement.pattern: unknown value; did you mean orthogonal?"),
    (lambda r: r["creatures"][0].update(spell="none"), "at least one spell must bring reserve"),
    (lambda r: r["creatures"][3]["spell"].update(kind="fireball"), "creatures[3].spell.kind"),
    (lambda r: r["creatures"][5]["spell"].update(cost=-1), "creatures[5].spell.cost: must be at least 0"),
    (lambda r: r["creatures"][4]["speciality"].update(kind="immune_spell"),
     "did you mean immune_spells?"),
    (lambda r: r["creatures"][0].update(colour="red"), "creatures[0].colour: unknown field"),
    (lambda r: r["creatures"][4].update(speciality={"kind": "virtual_vp", "amount": 0}),
     "creatures[4].speciality.amount: must be at least 1"),
    (lambda r: r["creatures"][4].update(speciality={"kind": "immune_attack"}),
     "did you mean immune_attacks?"),
])
def test_tribe_validation_errors_are_one_clear_line(edit, message):
    raw = raw_tribe()
    edit(raw)
    with pytest.raises(RulesError) as err:
        dw.parse_tribe(raw, "my-tribe.yaml")
    text = str(err.value)
    assert "\n" not in text and text.startswith("my-tribe.yaml: ") and message in text


def test_second_tribe_as_data(tmp_path):
    raw = raw_tribe()
    raw["name"] = "Mirror"
    raw["creatures"][5]["movement"] = {"pattern": "diagonal", "range": 2}
    path = tmp_path / "mirror.yaml"
    path.write_text(yaml.safe_dump(raw))
    s = dw.new_game(2, {"tribes": f"emberfen,{path}"})
    assert s.tribes[1].name == "Mirror" and s.tribes[0].name == "Emberfen"


def test_bad_input_exits_2(tmp_path, capsys):
    from simulator.cli.main import main

    bad = tmp_path / "t.yaml"
    bad.write_text("name: X\ncreatures: 3\n")
    assert main(["play", "dicewar", "--headless", "--tribes", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "t.yaml: creatures: must list exactly six" in err
    assert main(["play", "dicewar", "--headless", "--players", "random"]) == 2
    assert "takes 2 players" in capsys.readouterr().err
    assert main(["play", "dicewar", "--headless", "--tribes", "emberfenn"]) == 2
    assert "did you mean emberfen?" in capsys.readouterr().err
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "header", "format": 1}\n{oops\n')
    assert main(["replay", str(log), "--verify"]) == 2


def test_corrupt_save_is_one_clear_error():
    s = war({"a1": 3, "g7": -2})
    data = s.serialize()
    assert dw.deserialize(json.loads(json.dumps(data))).serialize() == data
    for key, value in (("board", [0] * 10), ("phase", "lunch"), ("reserve", [20, 14]),
                       ("player", 5)):
        bad = copy.deepcopy(data)
        bad[key] = value
        with pytest.raises(RulesError):
            dw.deserialize(bad)


# ---- players and conformance ------------------------------------------------------

def play(kinds, seed, roller=None, check=False, iterations=None) -> DiceWarState:
    rng = np.random.default_rng(seed)
    s = dw.new_game(2, {})
    agents = [make_agent(k, dw, np.random.default_rng(seed * 10 + i),
                         **({"iterations": iterations} if k == "mcts" and iterations else
                            dw.BOT_SETTINGS.get(k, {})))
              for i, k in enumerate(kinds)]
    roller = roller or SeededRoller()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(roller.roll(*s.chance_request(), rng))
        else:
            a = agents[s.current_player()].step(s)
            assert a in s.legal_actions()
            s.apply_action(a)
        if check:
            _invariants(s)
    return s


def _invariants(s: DiceWarState) -> None:
    assert dw.deserialize(s.serialize()).serialize() == s.serialize()
    for p in (0, 1):
        on_board = len(s.creatures_of(p))
        assert s.reserve[p] + s.exile[p] + on_board == 15
        assert min(s.reserve[p], s.exile[p], s.vp[p], s.tp[p]) >= 0 and s.tp[p] <= 10
    assert all(abs(v) <= 6 for v in s.board) and len(s.board) == CELLS
    if s.phase == "war":
        assert s.legal_actions()
    h = dw.heuristic(s)
    assert len(h) == 2 and all(0.0 <= x <= 1.0 for x in h)


@pytest.mark.parametrize("seed", range(25))
def test_conformance_random_games(seed):
    s = play(["random", "random"], seed, check=seed < 5)
    assert s.is_terminal() and sum(s.returns()) == pytest.approx(1.0)
    if s.winner in (0, 1) and s.plies < s.max_plies:
        loser = 1 - s.winner
        assert s.vp[s.winner] >= 10 or not s._war_actions(loser)


def test_same_seed_same_game():
    assert play(["greedy", "random"], 4).serialize() == play(["greedy", "random"], 4).serialize()


def test_greedy_and_mcts_beat_random():
    wins = sum(play(["greedy", "random"], seed).winner == 0 for seed in range(6))
    assert wins >= 5
    s = play(["mcts", "random"], 1, iterations=60)
    assert s.winner == 0


def test_human_sees_the_board():
    from rules.core.bots import HumanPlayer

    s = war({"c3": 3, "e5": -6})
    shown: list[str] = []
    human = HumanPlayer(input_fn=lambda _p: "2", output_fn=shown.append)
    assert human.step(s) == s.legal_actions()[1]
    text = "\n".join(shown)
    assert " 3  .  . R3  .  .  .  ." in text and "B6" in text and "attack" not in text


def test_cli_play_and_replay(tmp_path, capsys):
    from simulator.cli.main import main

    log = tmp_path / "dw.jsonl"
    assert main(["play", "dicewar", "--headless", "--players", "mcts,random", "--seed", "1",
                 "--log", str(log), "--mcts-iterations", "40"]) == 0
    out = capsys.readouterr().out
    assert "start roll" in out and "game over" in out
    assert main(["replay", str(log), "--verify"]) == 0
    lines = [json.loads(x) for x in Path(log).read_text().splitlines()]
    lines[3]["digest"] = "0" * 16
    log.write_text("\n".join(json.dumps(x) for x in lines))
    assert main(["replay", str(log), "--verify"]) != 0


@pytest.mark.slow
def test_full_game_with_the_physics_roller():
    roller_mod = pytest.importorskip("simulator.physics.roller")
    s = play(["greedy", "random"], 2, roller=roller_mod.PhysicsRoller())
    assert s.is_terminal() and s.start_rolls


def test_random_bot_is_uniform_over_legal_actions():
    s = war({"c3": 3, "e5": -6})
    bot = RandomBot(np.random.default_rng(0))
    seen = {bot.step(s) for _ in range(300)}
    assert seen == set(s.legal_actions())
