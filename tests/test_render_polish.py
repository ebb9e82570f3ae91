"""The window's finish (issue 37's gaps): what is on the cloth in D-Day's window, the log
against what is in play. Under Xvfb, each window in a process of its own
(tests/window_polish_script.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "window_polish_script.py"


def _run(xvfb_display: str, mode: str, out: Path) -> dict:
    env = {**os.environ, "DISPLAY": xvfb_display}
    done = subprocess.run([sys.executable, str(SCRIPT), mode, str(out)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.display
def test_dday_window_paints_no_dice_or_sheet_words_on_the_cloth(xvfb_display, tmp_path) -> None:
    # The unit's dice are shown in the close-up's cells, each captioned; the words that
    # lay beside their rows on the cloth ("unit 1's dice", "set aside") stayed with no
    # dice beside them (before: both drawn in the main view, this state has 2 set aside).
    out = _run(xvfb_display, "dday", tmp_path / "dday.png")
    assert out["dice"] == 6 and out["kept"] >= 1, out
    words = out["words"]
    assert f"{out['unit']}'s dice" not in words and "set aside" not in words, words
    # The unit's sheet: its words were painted 5-9 px high ("8 soldiers", "specialists:
    # -; items: -", "courage 0, EP 0"); the sheet pinned in screen space says them at 14 px.
    assert not [w for w in words if "soldiers" in w or "specialists" in w or "courage" in w], words
    sheet = out["sheet_pin"]
    assert f"{out['soldiers']} soldiers" in sheet and "specialists: " in sheet, sheet
    assert "items: " in sheet and "Courage" in sheet, sheet


@pytest.mark.display
def test_dday_units_are_marked_on_their_sectors_cards(xvfb_display, tmp_path) -> None:
    # Seed 2 after 9 turns: unit 1 on the Wreck Line, whose pinned card (4 lines) fills its
    # tile; the unit's marker painted on the cloth lay under the card. Now each unit is a
    # square of its colour against its sector's card's left edge, drawn over the pins.
    out = _run(xvfb_display, "dday-units", tmp_path / "dday-units.png")
    assert out["units"] == ["wreck_line", "landing"], out["units"]
    assert len(out["marks"]) == 2, out
    for k, mark in enumerate(out["marks"]):
        box, card = mark["box"], mark["card"]
        assert box and card and mark["colour"] == out["colours"][k], mark
        assert box[2] - box[0] >= 12 and box[2] <= card[0] + 1 and box[0] < card[0], mark
        assert card[1] <= (box[1] + box[3]) / 2 <= card[3], mark
        drawn, want = mark["drawn"], [255 * c for c in mark["colour"]]
        assert all(abs(a - b) <= 30 for a, b in zip(drawn, want, strict=True)), mark


@pytest.mark.display
def test_the_game_over_line_lies_clear_of_the_last_pieces(xvfb_display, tmp_path) -> None:
    # Diceland won by Blue after 12 turns (seed 2): in the window's middle the game-over
    # line lay over Blue's two armies on the board; now it goes above or below them.
    from simulator.render.core.hud import overlap

    out = _run(xvfb_display, "game-over", tmp_path / "game-over.png")
    assert out["terminal"] and out["over"] and out["again"], out
    assert len(out["dice"]) >= 4, out["dice"]
    for box in (out["over"], out["again"]):
        assert not {n: d for n, d in out["dice"].items() if overlap(box, d)}, (box, out["dice"])


@pytest.mark.display
def test_dicewar_log_lies_clear_of_the_dice_in_play(xvfb_display, tmp_path) -> None:
    # The log at the window's foot: at its left it lay over the Reserve row's powers 1 to
    # 3 (red's seat view, framed with every die 48 px or more); where the foot has room
    # clear of the HUD it moves along it.
    from simulator.render.core.framing import MIN_DIE_PX

    out = _run(xvfb_display, "dicewar", tmp_path / "dicewar.png")
    log = out["log_box"]
    assert out["log_rows"] == 5 and log, out
    assert any(n.startswith("reserve0:") for n in out["dice"]), out
    for name, box in out["dice"].items():
        w = min(log[2], box[2]) - max(log[0], box[0])
        h = min(log[3], box[3]) - max(log[1], box[1])
        assert w <= 0 or h <= 0, (name, box, log)
    assert out["min_die_px"] >= MIN_DIE_PX, out
    # The words painted beside the Reserve rows and the tracks ran off the window's edge
    # and under the seat panels ("red (greedy): reserve 15" 40 px high, "VP 0"): the panels
    # say them; the main view draws only the board's letters and numbers.
    assert sorted(out["painted"]) == sorted([*"abcdefg" * 2, *"1234567"]), out["painted"]
    assert all("reserve" in p and "victory points" in p and "trigger points" in p
               for p in out["panels"]) and len(out["panels"]) == 2, out["panels"]


@pytest.mark.display
def test_dicewar_log_at_a_persons_set_up_turn_lies_clear_of_the_reserve_row(xvfb_display,
                                                                           tmp_path) -> None:
    # A person's set-up turn: the choices reach the foot at the right and the prompt lies
    # in the middle, so no place along the foot is clear; the log stayed at the left over
    # red's Reserve row, powers 1 to 3. Now it goes narrower and taller where it covers no
    # die and no HUD text (the choices' buttons counted: their boxes were left out).
    out = _run(xvfb_display, "dicewar-human", tmp_path / "dicewar-human.png")
    assert out["human_to_act"], out
    log = out["log_box"]
    assert log and out["log_rows"] >= 5, out
    assert sum(n.startswith("reserve0:") for n in out["dice"]) == 6, out
    assert len(out["hud_boxes"]) >= 7, out  # status, prompt, 2 panels, choices, close-up
    for what, box in [*out["dice"].items(), *(("hud", b) for b in out["hud_boxes"])]:
        w = min(log[2], box[2]) - max(log[0], box[0])
        h = min(log[3], box[3]) - max(log[1], box[1])
        assert w <= 0 or h <= 0, (what, box, log)
    # And the prompt (capitals 14 px now, 3 lines) clear of every die: under the board's
    # middle it lay over the Reserve row's powers 3 to 6.
    from simulator.render.core.hud import overlap

    prompt = out["prompt_box"]
    assert prompt, out
    assert not {n: b for n, b in out["dice"].items() if overlap(prompt, b)}, (prompt, out["dice"])
    # Nor the log over the board's letters and numbers (it lay over row 1's number).
    assert len(out["painted_boxes"]) == 21, out["painted_boxes"]
    assert not [b for b in out["painted_boxes"] if overlap(log, b)], (log, out["painted_boxes"])


@pytest.mark.display
@pytest.mark.parametrize("mode", ["diceland", "diceland-orbit"])
def test_diceland_tiles_numbers_are_pinned_past_their_armies(xvfb_display, tmp_path, mode) -> None:
    # The choices name tiles by number ("attack tile 2 (Blue 2) from tile 1 (Red 2)"); the
    # numbers were painted on the tiles, and in this state (compact board, a person's
    # attack, seed 2 after 6 turns) an army's die hid 5 of the 8, and the hands' words
    # ("Blue: spares") ran under the choices. Now each is pinned in screen space.
    # diceland-orbit: the person orbits the view 150 degrees by hand (no refresh follows);
    # the numbers were placed past their armies for the view of the last refresh, and
    # from the far side lay over them.
    from simulator.render.core.pins import PIN_SCALE

    out = _run(xvfb_display, mode, tmp_path / f"{mode}.png")
    pins = {text: box for text, box in out["pins"] if box}
    numbers = [str(t) for t in range(out["tiles"])]
    assert all(n in pins for n in numbers), pins
    assert out["armies"] >= 4, out
    hands = [t for t in pins if t.endswith(": spares") or t.endswith(": hand")]
    assert len(hands) == 2, pins
    for text, b in pins.items():
        assert b[3] - b[1] >= 20 * PIN_SCALE / 0.056 * 0.95, (text, b)  # 20 px lines at PIN_SCALE
        for name, d in out["dice"].items():  # at most a corner of a die's box under it
            over = max(0, min(b[2], d[2]) - max(b[0], d[0])) * max(0, min(b[3], d[3]) - max(b[1], d[1]))
            assert over <= 0.1 * (d[2] - d[0]) * (d[3] - d[1]), (text, b, name, d)
            mid = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)  # nor the text on the die
            assert not (d[0] < mid[0] < d[2] and d[1] < mid[1] < d[3]), (text, b, name, d)
        for c in out["buttons"]:
            assert min(b[2], c[2]) <= max(b[0], c[0]) or min(b[3], c[3]) <= max(b[1], c[1]), (text, c)
    # None of them painted in the main view too.
    assert not [w for w in out["painted"] if w in numbers or w.endswith("spares")], out["painted"]


@pytest.mark.display
def test_diced_view_frames_the_dice_clear_of_the_seat_panels(xvfb_display, tmp_path) -> None:
    # Three seats down the left side: the framed view fitted what is in play into the view's
    # region whatever lay over it, and P3's die lay under the seat panels (2178 px^2 of it).
    # Now the view frames into the region cut clear of the panels where the dice stay 48 px.
    from simulator.render.core.framing import MIN_DIE_PX

    out = _run(xvfb_display, "diced", tmp_path / "diced.png")
    assert len(out["panels"]) == 3 and len(out["dice"]) >= 10, out
    assert min(out["die_px"].values()) >= MIN_DIE_PX, out["die_px"]
    for name, d in out["dice"].items():
        for b in out["panels"]:
            assert min(b[2], d[2]) <= max(b[0], d[0]) or min(b[3], d[3]) <= max(b[1], d[1]), (name, d, b)


@pytest.mark.display
def test_deep_white_sea_close_up_shows_a_lone_die_as_high_as_itself(xvfb_display, tmp_path) -> None:
    # The close-up of one die (here the one the view does not hold) framed it as a group of
    # dice, 62 deg down with a die's width round it: 86 px in a 216 px high close-up, its
    # face's words unreadable. Now from straight above, as high as the close-up: 180 px.
    out = _run(xvfb_display, "dws-inset", tmp_path / "dws.png")
    assert out["points"] == 1, out
    assert out["die_px"] >= 0.75 * out["size"][1], out
