"""Deep White Sea's close-up (issue 37, item 1): every die in play is seen with its name,
in the window's view 48 px across or more or in a close-up cell. However many dice the view
does not show, each is in a cell of its own, 48 px across or more at 1280x720.

Before: the cells stopped at 8 (`INSET_CELLS`) and the close-up dropped the ninth die and
after; with 9 or more points the inset framed them all with one camera, each die small.
Checked without a display: the cells the window's close-up shows (`close_up.cell_dice`)
and the cameras it gives them (`inset.cell_views`, what `Inset.update` applies)."""

from __future__ import annotations

import pytest

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.framing import MIN_DIE_PX, die_px
from simulator.render.core.inset import INSET, INSET_CELLS, cell_views, inset_cells

SIZE = (1280, 720)
DIE_M = 0.07  # the window's close-up frames a Deep White Sea die so wide (`inset_die_size`)


@pytest.fixture(scope="module")
def nine_dice():
    """Random bots, seed 3, 19 turns: 9 dice in play (tests/window_framing_script.py)."""
    from simulator.render.app import window_module

    module = window_module("deep-white-sea")
    assert module is not None
    session = module.new_session(["random", "random"], 3, {})
    module.play_turns(session, 19)
    assert len(session.poses()) == 9
    return session


def test_every_die_the_view_does_not_show_is_in_a_cell_48_px_across(nine_dice) -> None:
    from simulator.render.deep_white_sea.close_up import cell_dice, dice_corners

    session = nine_dice
    # The view panned off the dice (the player's pan): none of them in it.
    away = OrbitCamera(target=(3.0, 3.0, 0.0), pitch=-85.0, distance=0.6, fov=40.0)
    names = cell_dice(session, away, SIZE)
    assert sorted(names) == sorted(session.poses()), names  # before: the first 8
    corners = dice_corners(session)
    poses = session.poses()
    views = cell_views([tuple(poses[n][0]) for n in names], DIE_M, SIZE)
    px = {n: die_px(cam, cell, corners[n]) for n, (cam, _box, cell) in zip(names, views,
                                                                         strict=True)}
    assert min(px.values()) >= MIN_DIE_PX, px


def test_cells_up_to_eighteen_lie_apart_in_the_inset_each_holding_a_die_48_px(nine_dice) -> None:
    from simulator.render.deep_white_sea.close_up import dice_corners

    corners = list(dice_corners(nine_dice).values())
    for n in range(9, INSET_CELLS + 1):
        cells = inset_cells(n, SIZE)
        assert len(cells) == n
        for k, a in enumerate(cells):
            assert INSET[0] - 1e-9 <= a[0] < a[1] <= INSET[1] + 1e-9
            assert INSET[2] - 1e-9 <= a[2] < a[3] <= INSET[3] + 1e-9
            for b in cells[k + 1:]:  # no two cells share an area
                assert min(a[1], b[1]) - max(a[0], b[0]) <= 1e-9 \
                    or min(a[3], b[3]) - max(a[2], b[2]) <= 1e-9, (n, a, b)
        dice = [corners[k % len(corners)] for k in range(n)]  # the nine, again and again
        views = cell_views([tuple(c.mean(axis=0)) for c in dice], DIE_M, SIZE)
        px = [die_px(cam, cell, c) for c, (cam, _box, cell) in zip(dice, views, strict=True)]
        assert min(px) >= MIN_DIE_PX, (n, px)
    assert INSET_CELLS >= 18  # two crews of 9 (the default crews are 5 dice each)


def test_captions_break_between_words_at_capitals_14_px_in_every_cell(nine_dice) -> None:
    # Issue 37: with 9 or more dice the cells are 68-82 px wide and Panda's word wrap cut
    # names inside a word ('Frostcall' / 'er Bram') and put 'P1, side 2' on two lines over
    # the die. Now: the name on two lines at most, the seat and side on one, broken only
    # between words (a word too wide cut with a '.', or its initial), capitals 14 px or more.
    from panda3d.core import NodePath, TextNode

    from simulator.render.core.inset import fit_captions
    from simulator.render.deep_white_sea.close_up import caption

    face = TextNode("probe")
    face.setText("H")
    lo, hi = NodePath(face).getTightBounds()
    cap_em = hi.z - lo.z  # the face's H, ems
    w, h = SIZE
    pairs = [caption(nine_dice, d) for d in sorted(nine_dice.poses())]
    for n in range(len(pairs), INSET_CELLS + 1):
        pairs_n = [pairs[k % len(pairs)] for k in range(n)]
        widths = [(b[1] - b[0]) * 2 * w / h * 0.96 for b in inset_cells(n, SIZE)]
        fitted = fit_captions(pairs_n, widths, face.calcWidth)
        for k, (text, scale) in enumerate(fitted):
            source = pairs_n[k // 2][k % 2].split()
            rows = text.split("\n")
            assert len(rows) <= (2 if k % 2 == 0 else 1), (n, text)
            assert cap_em * scale * h / 2 >= 14, (n, text, scale)
            assert all(face.calcWidth(r) * scale <= widths[k // 2] for r in rows), (n, text)
            words = text.split()
            assert len(words) == len(source), (n, text)
            for got, word in zip(words, source, strict=True):
                assert got == word or (got.endswith(".") and word.startswith(got[:-1])), (n, text)
    assert fitted[0][0] != "" and "Frostcaller Bram" in [p[0] for p in pairs]


def _overlap(a: list[float], b: list[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


@pytest.mark.display
@pytest.mark.slow
def test_captions_lie_in_their_cells_clear_of_each_other_and_of_their_die(xvfb_display,
                                                                          tmp_path) -> None:
    # Under Xvfb (tests/window_close_up_script.py): the seed's 9 dice in the cells the
    # window shows with the view panned off them, then 10 to 18 cells of them. Before, each
    # die filled its cell and its two-line name lay over it (up to 1242 px^2 at 9 and 10
    # cells, 1871 at 11). Now each die lies between its captions, 48 px across or more.
    # From 11 cells (3 rows, 72 px high) a name, a die 48 px and a side line cannot all fit
    # in a cell: the die overlapped both captions alike (798 px^2 at 11-15, 782 at 16-18);
    # now such a cell has one line under its die, "name side" in its side's colour.
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent / "window_close_up_script.py"
    env = {**os.environ, "DISPLAY": xvfb_display}
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "cells.png")],
                          capture_output=True, text=True, timeout=300, env=env)
    states = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert states and states[0]["n"] == 9, done.stderr[-2000:]
    for state in states:
        n, caps, cells, dice = state["n"], state["captions"], state["cells"], state["dice"]
        assert len(caps) == 2 * n, (n, state["texts"])
        if n <= 10:  # a name over the die, whose it is and its side under it
            assert None not in caps, (n, state["texts"])
        else:  # one line under it: its name (words cut where too wide) and its side
            assert caps[0::2] == [None] * n and None not in caps[1::2], (n, state["texts"])
            assert all(t.split()[-1].isdigit() for t in state["texts"] if t), state["texts"]
        assert min(state["die_px"]) >= MIN_DIE_PX, (n, state["die_px"])
        for k, box in enumerate(caps):
            if box is None:
                continue
            cell = cells[k // 2]
            assert box[0] >= cell[0] and box[1] >= cell[1] and box[2] <= cell[2] \
                and box[3] <= cell[3], (n, k, box, cell)  # so over no other cell
            assert not any(_overlap(box, other) for other in caps[k + 1:] if other), (n, k)
            assert _overlap(box, dice[k // 2]) == 0.0, (n, k, box, dice[k // 2])
        for die, cell in zip(dice, cells, strict=True):
            assert die[1] >= cell[1] and die[3] <= cell[3], (n, die, cell)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [s["n"] for s in states] == list(range(9, INSET_CELLS + 1))
