"""The d6 games' windows for real (Diced, Diceland hex): Panda3D's OpenGL on Mesa under
Xvfb, driven through each window's own input handlers by `tests/window_dice_script.py` in a
process of its own; and the parts that need no display (the roll's printing, the tray's
recording, `tabletop play` without a display, offscreen pictures)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("window_dice_script.py")
GAMES = ("diced", "diceland-hex")


def _run(display: str, mode: str, game: str, log: Path) -> dict:
    env = {**os.environ, "DISPLAY": display}
    proc = subprocess.run([sys.executable, str(SCRIPT), mode, game, str(log)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def played(xvfb_display, tmp_path_factory):
    out = {}
    for game in GAMES:
        log = tmp_path_factory.mktemp(game) / "game.jsonl"
        out[game] = (_run(xvfb_display, "play", game, log), log)
    return out


@pytest.mark.display
@pytest.mark.slow
def test_diced_clicks_on_pieces_apply_the_engine_actions(played) -> None:
    out, _log = played["diced"]
    assert out["gl"]
    # Rulebook (diced.txt): "On his turn, a player may attack the pool or another player
    # with any number of his dice". A click on the first ready die sets one, a click on the
    # pool attacks it with that one; a click on a player's dice attacks that player.
    assert out["commit"] == 1
    assert out["pool_action"] == ["pool", 1]
    assert out["attack_action"] == out["attack_expected"]
    assert out["help_lines"] >= 15


@pytest.mark.display
@pytest.mark.slow
def test_hex_clicks_on_tiles_apply_the_engine_actions(played) -> None:
    out, _log = played["diceland-hex"]
    # Placing: a click on a die of your hand, then on an empty tile places that value there
    # ("de spelers plaatsen om beurten een dobbelsteen ... op een leeg veld").
    assert out["place_action"] == out["place_expected"]
    # An attack: a click on your army, then on the enemy army next to it.
    assert out["attack_action"] == out["attack_expected"]


@pytest.mark.display
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_roll_in_the_window_reaches_the_engine_with_the_faces_the_dice_show(played, game) -> None:
    out, _log = played[game]
    assert out["rolls"], "no roll was thrown"
    for roll in out["rolls"]:
        # The tray dice at rest show the physics' faces, and those reach the engine.
        assert roll["shown"] == roll["physics"]
    assert [r["physics"] for r in out["rolls"]] == out["log_faces"][:len(out["rolls"])]


@pytest.mark.display
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_replay_viewer_steps_through_the_log_and_matches_it(played, xvfb_display,
                                                                 game) -> None:
    _out, log = played[game]
    result = _run(xvfb_display, "replay", game, log)
    assert result["steps"] >= 6
    assert result["stepped"] == [True] * len(result["stepped"])
    assert result["held_while_paused"]
    assert result["faces"] and all(shown == logged for shown, logged in result["faces"])


@pytest.mark.display
@pytest.mark.slow
def test_game_over_screen_starts_again_and_long_choice_lists_page(xvfb_display,
                                                                   tmp_path) -> None:
    out = _run(xvfb_display, "extras", "diced", tmp_path / "x.jsonl")
    # Diced with a one-round limit ("after that many rounds the player(s) with the most dice
    # win", the engine's house limit): the result and a way to start again.
    assert out["over_text"].startswith("Game over:")
    assert out["again_shown"]
    # A new game, seed one higher, no result shown, the tray empty.
    assert out["restarted"] == [True, 2, 0, True, []]
    # Placing on the large board offers one line per empty tile: a page of MAX_CHOICES
    # lines, the last one 'more...'; its key shows the next page, whose first line places
    # on that tile.
    from simulator.render.core.hud import MAX_CHOICES

    assert out["pages"][0] == MAX_CHOICES and out["pages"][1].startswith("more...")
    tile = int(out["pages"][2].rsplit(" ", 1)[1])
    assert out["placed_from_page_two"][2] == tile


# -- no display needed ------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["deep-white-sea", "diced", "diceland-hex", "dday", "dicewar"])
def test_play_without_a_display_says_so_in_one_line_for_every_game(game, monkeypatch,
                                                                   capsys) -> None:
    from simulator.cli.main import main

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play", game]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "display" in err and "--headless" in err


def test_a_logged_face_is_printed_on_top_of_whatever_face_the_throw_left_up() -> None:
    from scipy.spatial.transform import Rotation

    from simulator.render.d6.session import d6_shape, relabel, shown_value, up_face

    shape = d6_shape()
    rng = np.random.default_rng(0)
    for _ in range(40):
        q = tuple(Rotation.random(random_state=rng).as_quat())
        pose = ((0.0, 0.0, 0.01), q)
        for value in range(1, 7):
            labels = relabel(shape, pose, value)
            assert shown_value(shape, labels, pose) == value
            assert sorted(labels) == [1, 2, 3, 4, 5, 6]
            # Opposite faces still add up to 7, as on the die.
            for f in range(6):
                assert labels[f] + labels[shape.poly.opposite_face(f)] == 7
        assert shown_value(shape, shape.values, pose) == shape.values[up_face(shape, pose)]


def test_a_recorded_tray_roll_ends_with_its_faces_on_top() -> None:
    from simulator.physics.tray import roll_tray
    from simulator.render.d6.session import d6_model, d6_shape, roll_of, shown_value

    shape = d6_shape()
    tray = roll_tray(d6_model(), 5, np.random.default_rng(4), record=True)
    roll = roll_of("d6", tray, tray.faces)
    end = roll.playback.poses_at(roll.playback.duration)
    # The recording's last poses show the faces the physics read with the die's own
    # printing: a live roll is never re-printed.
    assert [shown_value(shape, shape.values, end[f"d{i}"]) for i in range(5)] == list(tray.faces)
    assert roll.labels == (shape.values,) * 5
    # Each round's cocked dice are the next round's throws: the recording has them all.
    assert [len(r.cocked) for r in tray.rounds][-1] == 0
    assert sum(len(r.cocked) for r in tray.rounds) == tray.rethrows


# -- offscreen pictures: named pieces where the camera projects them -----------------------


@pytest.mark.display
@pytest.mark.parametrize("shading", ["software", "pbr"])
def test_pictures_show_each_piece_in_its_colour_where_it_stands(shading, xvfb_display,
                                                                tmp_path) -> None:
    out = _run(xvfb_display, "pictures", shading, tmp_path / "unused")
    assert out["path"] == shading
    # Diced: each seat's dice in the seat's colour (a die's top is its body colour round
    # small white pips): of all the seats' colours, the one nearest the pixels where a die
    # stands is its owner's, and near (seat colours lie 0.3 or more apart); the pool white.
    near = 0.2
    assert len(out["diced"]) >= 4
    for owner, dists in out["diced"]:
        assert int(np.argmin(dists)) == owner and dists[owner] < near, (shading, owner, dists)
    assert out["pool"] < near
    assert out["felt_vs_seat0"] > 0.3  # the felt between seats is no die's colour
    # Diceland: every army in its owner's colour (Red or Blue) on its tile, the tile in its
    # terrain's colour.
    assert len(out["armies"]) >= 10
    for owner, dists in out["armies"]:
        assert int(np.argmin(dists)) == owner and dists[owner] < near, (shading, owner, dists)
    for tile, dist in out["terrain"]:
        assert dist < 0.12, (shading, "terrain", tile, dist)


@pytest.mark.parametrize("game, players", [("diced", "random,random,random"),
                                           ("diceland-hex", "random,random")])
def test_replay_view_of_a_d6_game_without_a_display_is_one_line(game, players, monkeypatch,
                                                                capsys, tmp_path) -> None:
    from simulator.cli.main import main

    log = tmp_path / "game.jsonl"
    assert main(["play", game, "--headless", "--players", players, "--log", str(log),
                 "--quiet"]) == 0
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    capsys.readouterr()
    assert main(["replay", str(log), "--view"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "display" in err and "--view" in err


def test_a_headless_log_replays_in_the_viewer_session_to_the_same_digests(tmp_path) -> None:
    """The viewer's session re-applies a terminal game's log (seeded dice) step by step and
    reaches the digest the log recorded after every step (no display: the session only)."""
    from rules.core.runner import digest, read_log
    from simulator.cli.main import main
    from simulator.render.d6.session import DiceSession, Roll, replay_session, replay_step

    log = tmp_path / "hex.jsonl"
    assert main(["play", "diceland-hex", "--headless", "--players", "greedy,random",
                 "--log", str(log), "--quiet", "--seed", "4"]) == 0
    session, steps, digests = replay_session("diceland-hex", log)
    assert isinstance(session, DiceSession) and len(steps) == len(digests) > 10
    for k, line in enumerate(steps[:40]):
        result = replay_step(session, line)
        if isinstance(result, Roll):
            assert list(result.faces) == line["faces"]
            session.apply_roll(result)
        assert digest(session.state) == digests[k], k
    assert read_log(log)[0]["game"] == "diceland-hex"


def test_the_window_refuses_seeded_dice_in_one_line(capsys) -> None:
    from simulator.cli.main import main

    assert main(["play", "diced", "--dice", "seeded"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--dice seeded" in err and "--headless" in err
