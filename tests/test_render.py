"""The renderer without a display: the offscreen software picture agrees with the camera's
projection, the throw gesture and playback, `tabletop render`, and the no-display message."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from dice_models import load_die
from dice_models.crews import load_crews
from rules.core.protocols import ThrowSpec
from simulator.physics import TableSpec, World, die_shape
from simulator.physics.world import FOOT, Frame
from simulator.render.core.camera import OrbitCamera, overview, thrower_view, top_view
from simulator.render.core.looks import crew_look, solid_look
from simulator.render.core.playback import playback_of
from simulator.render.deep_white_sea.gesture import GestureSettings, throw_from_drag

SIZE = (320, 180)
TABLE = TableSpec()
# Three dice at places no mirror or swap of axes maps onto each other.
SPOTS = {"red": ((0.31, 0.12), 0, (230, 30, 30)), "blue": ((-0.22, -0.18), 3, (30, 60, 230)),
         "yellow": ((0.05, 0.27), 6, (235, 215, 20))}


@pytest.fixture(scope="module")
def renderer():  # one software buffer for the module: Panda3D's engine is process-wide
    from simulator.render.core.offscreen import OffscreenRenderer

    r = OffscreenRenderer(SIZE)
    yield r
    r.close()


@pytest.fixture(scope="module")
def placed() -> dict[str, tuple]:
    world = World(TABLE)
    model = load_die("paper-d8")
    out = {}
    for name, (xy, face, _rgb) in SPOTS.items():
        o = world.place(name, model, face + 1, 25.0 * face, xy)
        out[name] = (o.position, o.quaternion)
    world.close()
    return out


def _scene_with(dice: dict[str, tuple], looks: dict[str, object]):
    from simulator.render.deep_white_sea.scene import SeaTableScene

    scene = SeaTableScene(TABLE)
    shape = die_shape(load_die("paper-d8"))
    for name, (pos, quat) in dice.items():
        scene.add_die(name, shape, looks[name], tuple(range(1, 9)), pos, quat)
    return scene


@pytest.mark.parametrize("camera", [overview(TABLE), top_view(TABLE, SIZE[0] / SIZE[1]),
                                    OrbitCamera(target=(0.05, 0.0, 0.0), heading=-70.0,
                                                pitch=-30.0, distance=1.1)],
                         ids=["overview", "top", "side"])
def test_each_die_is_drawn_where_the_camera_projects_it(renderer, placed, camera) -> None:
    looks = {n: solid_look(rgb) for n, (_xy, _f, rgb) in SPOTS.items()}
    scene = _scene_with(placed, looks)
    renderer.show(scene.root)
    renderer.set_camera(camera)
    pixels = renderer.render().astype(int)
    assert pixels.shape == (SIZE[1], SIZE[0], 3)
    assert pixels.std() > 10, "the picture is blank"
    for name, (pos, _quat) in placed.items():
        rgb = np.array(SPOTS[name][2])
        # A resting die's top face is what the camera sees of it: project a point on it.
        col, row = camera.project((pos[0], pos[1], 2 * pos[2] * 0.8), SIZE)
        c, r = int(round(col)), int(round(row))
        patch = pixels[max(0, r - 1):r + 2, max(0, c - 1):c + 2].reshape(-1, 3)
        # Lit faces are darker or lighter than the flat colour, but keep its hue: the
        # die's strongest channel leads at the projected pixel.
        lead = int(np.argmax(rgb)) if name != "yellow" else None
        best = min(patch, key=lambda p: _hue_distance(p, rgb))
        assert _hue_distance(best, rgb) < 0.12, (name, (c, r), patch.tolist())
        if lead is not None:
            assert int(np.argmax(best)) == lead, (name, best)


def test_textured_dice_change_the_picture_only_where_they_stand(renderer, placed) -> None:
    crew = load_crews()[0]
    looks = {n: crew_look(crew.dice[i]) for i, n in enumerate(SPOTS)}
    camera = overview(TABLE)
    renderer.set_camera(camera)
    renderer.show(_scene_with({}, looks).root)
    empty = renderer.render().astype(int)
    renderer.show(_scene_with(placed, looks).root)
    full = renderer.render().astype(int)
    changed = np.abs(full - empty).sum(axis=2) > 40
    assert changed.any()
    claimed = np.zeros_like(changed)
    for pos, _quat in placed.values():
        col, row = camera.project(pos, SIZE)
        c, r = int(round(col)), int(round(row))
        window = changed[max(0, r - 6):r + 7, max(0, c - 6):c + 7]
        assert window.mean() > 0.3, f"no die drawn at its projection ({c}, {r})"
        claimed[max(0, r - 14):r + 15, max(0, c - 14):c + 15] = True
    # Everything that changed (dice and their shadows) is near some die.
    assert (changed & ~claimed).sum() < 0.02 * changed.sum() + 5


@pytest.mark.parametrize("face", [0, 3, 5])
def test_each_image_corner_lands_on_its_model_corner(renderer, face) -> None:
    # An atlas whose every face image has a red, a green and a blue disc near its top, left
    # and right corners: seen from above, each disc must sit near the model corner on the
    # body axis the crew format names for that corner.
    from PIL import Image, ImageDraw

    from dice_models.crews import CORNER_UV, corner_axis
    from simulator.render.core.looks import ATLAS_COLS, ATLAS_ROWS, CELL, DieLook

    marks = {"top": (230, 20, 20), "left": (20, 200, 20), "right": (20, 40, 230)}
    inset = 0.3  # fraction of the way from a corner to the face centre
    atlas = Image.new("RGBA", (CELL * ATLAS_COLS, CELL * ATLAS_ROWS), (250, 250, 250, 255))
    draw = ImageDraw.Draw(atlas)
    centre = np.mean([CORNER_UV[c] for c in marks], axis=0)
    for cell in range(8):
        ox, oy = (cell % ATLAS_COLS) * CELL, (cell // ATLAS_COLS) * CELL
        for corner, rgb in marks.items():
            u, v = np.array(CORNER_UV[corner]) + inset * (centre - np.array(CORNER_UV[corner]))
            r = 0.07 * CELL
            draw.ellipse((ox + u * CELL - r, oy + v * CELL - r, ox + u * CELL + r,
                          oy + v * CELL + r), fill=(*rgb, 255))
    world = World(TABLE)
    o = world.place("d", load_die("paper-d8"), face + 1, 23.0, (0.0, 0.0))
    world.close()
    scene = _scene_with({"d": (o.position, o.quaternion)}, {"d": DieLook(f"marks-{face}", atlas)})
    renderer.show(scene.root)
    camera = OrbitCamera(target=(0.0, 0.0, 0.0), pitch=-89.9, distance=0.22, fov=40.0)
    renderer.set_camera(camera)
    pixels = renderer.render().astype(int)
    z_top = 2 * o.position[2]
    corners = {c: np.array(o.top_corners[corner_axis(face, c)]) for c in marks}
    mid = np.mean(list(corners.values()), axis=0)
    for corner, rgb in marks.items():
        xy = corners[corner] + inset * (mid - corners[corner])
        col, row = camera.project((xy[0], xy[1], z_top), SIZE)
        c, r = int(round(col)), int(round(row))
        patch = pixels[r - 1:r + 2, c - 1:c + 2].reshape(-1, 3)
        best = min(patch, key=lambda p: _hue_distance(p, np.array(rgb)))
        assert _hue_distance(best, np.array(rgb)) < 0.25, (corner, (c, r), patch.tolist())


def test_thrower_view_sees_the_release_area_behind_the_edge() -> None:
    for player, sign in ((1, -1), (2, 1)):
        cam = thrower_view(TABLE, player)
        for y in (TABLE.edge_y + 0.05, TABLE.edge_y + FOOT + 0.05):
            col, row = cam.project((0.0, sign * y, 0.0), (1280, 720))
            assert 0 <= col < 1280 and 0 <= row < 720


# -- the gesture and playback ------------------------------------------------------------


def test_drag_from_behind_the_edge_makes_a_legal_throw_toward_the_target() -> None:
    path = [(0.0, -0.80), (0.0, -0.5), (0.05, 0.0)]
    p = throw_from_drag(TABLE, 1, path, GestureSettings(height=0.12, flight=0.5))
    assert not p.foul
    assert p.throw.velocity[1] > 0 and p.speed > 1.0
    # The ballistic arc ends at the target (the die's centre just over the felt).
    assert math.dist(p.arc[-1][:2], path[-1]) < 1e-6


def test_release_in_the_foul_zone_and_in_front_of_the_edge_are_fouls() -> None:
    low_close = throw_from_drag(TABLE, 1, [(0.0, -0.5), (0.0, 0.0)], GestureSettings(0.1, 0.5))
    assert low_close.foul and "foul zone" in (low_close.foul_reason or "")
    high_close = throw_from_drag(TABLE, 1, [(0.0, -0.5), (0.0, 0.0)], GestureSettings(0.4, 0.5))
    assert not high_close.foul
    inside = throw_from_drag(TABLE, 2, [(0.0, 0.3), (0.0, 0.0)], GestureSettings(0.4, 0.5))
    assert inside.foul and "in front of" in (inside.foul_reason or "")


def test_a_curled_drag_spins_the_die_about_z() -> None:
    straight = throw_from_drag(TABLE, 1, [(0, -0.8), (0, -0.4), (0, 0)], GestureSettings())
    left = throw_from_drag(TABLE, 1, [(0, -0.8), (-0.06, -0.4), (0, 0)], GestureSettings())
    right = throw_from_drag(TABLE, 1, [(0, -0.8), (0.06, -0.4), (0, 0)], GestureSettings())
    assert abs(straight.throw.spin[2]) < 1e-9
    assert left.throw.spin[2] > 1.0 > -1.0 > right.throw.spin[2]


def test_playback_interpolates_and_holds_resting_dice() -> None:
    q = (0.0, 0.0, 0.0, 1.0)
    frames = [Frame(0.0, {"a": ((0, 0, 0.1), q), "b": ((1, 1, 0.02), q)}),
              Frame(1 / 60, {"a": ((0.06, 0, 0.1), q)}),
              Frame(2 / 60, {"a": ((0.12, 0, 0.1), q)})]
    pb = playback_of(frames)
    assert math.isclose(pb.duration, 2 / 60)
    assert math.isclose(pb.poses_at(0.5 / 60)["a"][0][0], 0.03)
    assert pb.poses_at(1.5 / 60)["b"][0] == (1, 1, 0.02)
    assert pb.finished(0.04) and not pb.finished(0.02)


def test_recorded_throw_played_back_ends_where_the_physics_left_the_die() -> None:
    world = World(TABLE)
    model = load_die("paper-d8")
    throw = ThrowSpec(release=(0.0, -0.8, 0.15), velocity=(0.0, 1.6, 1.8), spin=(8.0, 0.0, 3.0))
    report = world.throw("d", model, throw, record=True)
    pb = playback_of(report.trajectory or ())
    end = pb.poses_at(pb.duration)["d"]
    assert math.dist(end[0], report.outcome.position) < 1e-9
    # Real time: the playback lasts as long as the simulated throw.
    assert math.isclose(pb.duration, report.sim_time_s, rel_tol=0.02)
    world.close()


def test_session_animations_end_where_the_engine_left_the_dice() -> None:
    from simulator.render.deep_white_sea.session import (
        GameSession,
        ThrowAnim,
        TipAnim,
        VanishAnim,
        play_turns,
    )

    session = GameSession(["random", "random"], seed=3, options={"table": "physics"})
    seen: dict[str, int] = {"throw": 0, "tip": 0, "vanish": 0}

    def check(out) -> None:
        now = session.poses()
        for a in out.anims:
            if isinstance(a, ThrowAnim):
                seen["throw"] += 1
                assert a.playback.duration > 0.1 and a.physics_s > 0
                end = a.playback.poses_at(a.playback.duration)
                for name, pose in end.items():
                    if name in now:  # the recording is exactly what the engine's table did
                        assert math.dist(pose[0], now[name][0]) < 1e-9
            elif isinstance(a, TipAnim):
                seen["tip"] += 1
                assert math.dist(a.at(a.duration)[0], now[a.die][0]) < 1e-9
            elif isinstance(a, VanishAnim):
                seen["vanish"] += 1
                assert a.die not in now

    play_turns(session, 10, on_action=check)
    assert seen["throw"] >= 4 and seen["tip"] + seen["vanish"] >= 1, seen


def test_a_game_played_through_the_session_writes_a_log_that_verifies(tmp_path) -> None:
    from rules.core.runner import verify_log
    from simulator.render.deep_white_sea.session import GameSession, play_turns

    path = tmp_path / "window.jsonl"
    with open(path, "w") as log:
        session = GameSession(["random", "random"], seed=9,
                              options={"table": "physics", "max_turns": 6}, log=log)
        play_turns(session, 100)
    assert session.state.is_terminal()
    result = verify_log(path)
    assert result.ok, result.message


# -- the command line -----------------------------------------------------------------------


def test_tabletop_render_writes_a_picture(tmp_path) -> None:
    from PIL import Image

    from simulator.cli.main import main

    out = tmp_path / "table.png"
    assert main(["render", "--game", "deep-white-sea", "--seed", "4", "--turns", "2",
                 "--out", str(out), "--size", "320x180"]) == 0
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert img.shape == (180, 320, 3) and img.std() > 10


@pytest.mark.parametrize("argv, words", [
    (["render", "--game", "deep-whitesea", "--out", "x.png"], "did you mean deep-white-sea"),
    (["render", "--out", "x.png", "--size", "big"], "--size"),
    (["render", "--out", "x.jpg"], ".png"),
])
def test_render_usage_errors_are_one_line(argv, words, capsys) -> None:
    from simulator.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_play_without_a_display_says_so_in_one_line(monkeypatch, capsys) -> None:
    from simulator.cli.main import main

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play", "deep-white-sea"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "display" in err and "--headless" in err and "render" in err


def test_the_window_refuses_save_and_load_in_one_line(capsys, tmp_path) -> None:
    from simulator.cli.main import main

    save = tmp_path / "save.json"
    assert main(["play", "deep-white-sea", "--save", str(save)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--save" in err and "--headless" in err
    assert not save.exists()


def test_replay_view_without_a_display_says_so_in_one_line(monkeypatch, capsys, tmp_path) -> None:
    from simulator.cli.main import main

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    log = tmp_path / "game.jsonl"
    assert main(["play", "deep-white-sea", "--headless", "--players", "random,random",
                 "--max-turns", "2", "--log", str(log), "--quiet"]) == 0
    assert main(["replay", str(log), "--view"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "display" in err and "--view" in err


def test_the_command_line_does_not_load_panda3d() -> None:
    code = ("import sys; from simulator.cli.main import build_parser; build_parser(); "
            "import simulator.render.app, simulator.render.deep_white_sea.session; "
            "print(json.dumps('panda3d' in sys.modules))")
    out = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) is False


def _hue_distance(p: np.ndarray, rgb: np.ndarray) -> float:
    a = np.asarray(p, dtype=float)
    b = np.asarray(rgb, dtype=float)
    a = a / max(1.0, np.linalg.norm(a))
    b = b / np.linalg.norm(b)
    return float(np.linalg.norm(a - b))
