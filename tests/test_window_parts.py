"""The window's parts that need no display (issue 16, item 3: the window split by
responsibility): the choices column's pages, the inset's cells, picking by ray, the bot
thread and the replay's pace. The parts that draw are checked with a window under Xvfb
(tests/test_render_*window.py)."""

from __future__ import annotations

import time

import numpy as np

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.hud import MAX_CHOICES, MORE, Choice, page_of, wrap
from simulator.render.core.inset import INSET, inset_cells, inset_size
from simulator.render.core.picking import pick_sphere, ray_plane, screen_of
from simulator.render.core.turns import REPLAY_PAUSE_S, BotThread, Replay


def test_a_long_choice_list_pages_with_a_more_line_and_wraps_round() -> None:
    choices = [Choice(f"c{i}", action=("a", i)) for i in range(20)]
    shown, page = page_of(choices, 0)
    assert len(shown) == MAX_CHOICES and shown[-1].arm is MORE and page == 0
    assert [c.label for c in shown[:-1]] == [f"c{i}" for i in range(MAX_CHOICES - 1)]
    per = MAX_CHOICES - 1
    pages = -(-20 // per)
    last = pages - 1
    shown, page = page_of(choices, last)
    assert [c.label for c in shown[:-1]] == [f"c{i}" for i in range(last * per, 20)]
    assert f"page {pages} of {pages}" in shown[-1].label
    assert page_of(choices, pages)[1] == 0  # past the last page: back to the first
    few = choices[:MAX_CHOICES]
    assert page_of(few, 5) == (few, 0)


def test_wrap_breaks_long_lines_and_indents_continuations() -> None:
    assert wrap("one two three four", 9) == "one two\n    three\n    four"
    assert wrap("short", 80) == "short"


def test_inset_cells_fill_the_inset_in_reading_order() -> None:
    for n in range(1, 9):
        cells = inset_cells(n)
        assert len(cells) == n
        assert min(c[0] for c in cells) == INSET[0] and max(c[3] for c in cells) == INSET[3]
        assert abs(max(c[1] for c in cells) - INSET[1]) < 1e-12
        assert all(a[0] <= b[0] or a[2] > b[2] for a, b in zip(cells, cells[1:], strict=False))
    assert len({c[2] for c in inset_cells(4)}) == 1 and len({c[2] for c in inset_cells(5)}) == 2
    assert inset_size((1280, 720)) == (410, 216)


def test_a_ray_picks_the_nearest_sphere_it_meets_and_meets_the_plane() -> None:
    down = (np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, -1.0]))
    spheres = {"low": ((0.0, 0.0, 0.0), 0.02), "high": ((0.0, 0.0, 0.5), 0.02),
               "aside": ((0.1, 0.0, 0.7), 0.02)}
    assert pick_sphere(down, spheres) == "high"
    assert pick_sphere(down, {"aside": spheres["aside"]}) is None
    assert pick_sphere(None, spheres) is None
    assert ray_plane(down, 0.25) == (0.0, 0.0)
    assert ray_plane(down, 2.0) is None  # behind the eye
    assert ray_plane((np.zeros(3), np.array([1.0, 0.0, 0.0])), 0.0) is None  # parallel


def test_screen_of_puts_the_target_in_the_middle_and_says_none_behind() -> None:
    cam = OrbitCamera(target=(0.1, 0.2, 0.0), pitch=-60.0, distance=1.0)
    x, y = screen_of(cam, (0.1, 0.2, 0.0), (1280, 720))
    assert abs(x) < 1e-9 and abs(y) < 1e-9
    assert screen_of(cam, tuple(2 * cam.eye() - np.array(cam.target)), (1280, 720)) is None


def test_the_bot_thread_answers_once_and_hands_on_an_exception() -> None:
    bot = BotThread()
    assert not bot.busy and bot.poll() == (False, None)
    bot.start(lambda: ("end",))
    assert bot.busy
    deadline = time.perf_counter() + 5
    while (answer := bot.poll()) == (False, None) and time.perf_counter() < deadline:
        time.sleep(0.001)
    assert answer == (True, ("end",)) and not bot.busy

    def fails() -> None:
        raise RuntimeError("no move")

    bot.start(fails)
    while (answer := bot.poll()) == (False, None):
        time.sleep(0.001)
    assert isinstance(answer[1], RuntimeError)


def test_the_replay_keeps_its_pace_steps_on_request_and_spots_another_table() -> None:
    from rules.core.runner import digest
    from rules.registry import lookup

    replay = Replay(["a", "b"], [None, "not this table"])
    assert replay.due(0.0, paused=False)
    replay.shown(10.0, speed=2.0)
    assert not replay.due(10.0 + REPLAY_PAUSE_S / 2 - 0.01, paused=False)
    assert replay.due(10.0 + REPLAY_PAUSE_S / 2, paused=False)
    assert not replay.due(100.0, paused=True)
    replay.step_requested = True
    assert replay.due(0.0, paused=True) and not replay.step_requested
    state = lookup("diced").module().new_game(3, None, np.random.default_rng(0))
    assert replay.mismatch(0, state, 1) is None  # nothing logged after step 1
    assert "another table" in str(replay.mismatch(1, state, 2))
    assert Replay(["a"], [digest(state)]).mismatch(0, state, 1) is None


def test_seat_panels_and_the_first_choice_stay_clear_of_the_inset() -> None:
    """With 8 Diced seats the window hid three right-hand seat panels and the first choice
    ('attack the pool') behind the close-up inset. A panel is up to `panel_room(n)` lines
    (14 px capitals: LINE_H apart) and PANEL_WIDTH characters (0.96 wide in aspect2d units),
    hung from its side's window edge; a choice button reaches 0.04 above its text. Checked
    at 16:9 and at a narrower 960x600 window."""
    from simulator.render.core.hud import CHOICES_TOP, EDGE, LINE_H, LOG_TOP, panel_places, panel_room

    for aspect in (16 / 9, 960 / 600):
        left, right = (2 * INSET[0] - 1) * aspect, (2 * INSET[1] - 1) * aspect
        bottom, top = 2 * INSET[2] - 1, 2 * INSET[3] - 1
        for n in range(1, 9):
            places = panel_places(n)
            assert len(places) == n
            room = panel_room(n)
            assert room >= 2
            for on_left, y in places:
                x0 = -aspect + EDGE if on_left else aspect - EDGE - 0.96
                x1 = x0 + 0.96
                y0, y1 = y - (room - 1) * LINE_H - 0.015, y + 0.04
                assert x1 < left or x0 > right or y1 < bottom or y0 > top, (aspect, n, y)
                assert y0 > LOG_TOP + 0.05  # above the log
            for side in (True, False):  # panels on one side their room apart
                ys = [y for on_left, y in places if on_left == side]
                assert all(a - b >= room * LINE_H for a, b in zip(ys, ys[1:], strict=False)), \
                    (n, ys)
        assert bottom > CHOICES_TOP + 0.04
