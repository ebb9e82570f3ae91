"""D-Day Dice's sector cards (issue 37, item 2): every title whole on its card, no card over
its neighbour, and the notes a player reads to choose a move ("cannot remain here",
"sacrifice 2 soldier(s)") on the cards of the acting unit's sector and of those it can move
to, in the picture (`tabletop render`, the README's state) and pinned in the window.

Before: the window's pinned titles wrapped at 13 characters, "Communication" (143 px) and
"Abandoned Gun" (145 px) side by side on columns 143 px apart ran into each other (OCR read
"Communicatior"), and every note was only painted on the cloth 4-6 px high."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from tests.test_render_legible import SIZE, ocr

COLUMN_PX = 143  # the window's opening view at 1280x720: the map's columns lie so far apart
# (tests/window_inspect_script.py's pins: 207.6, 350.5, 493.4 px on the top row)
ROW_PX = 70  # and its rows about so far
PIN_PAD_PX = 3  # an OnscreenText's background beyond its text, each side


@pytest.fixture(scope="module")
def readme_state():
    """The README's D-Day picture: greedy bots, seed 2, 3 turns, drawn in software."""
    from simulator.render.app import window_module

    module = window_module("dday")
    assert module is not None
    session = module.new_session(["greedy"] * 3, 2, {})
    module.play_turns(session, 3)
    picture = module.picture(session, SIZE, "software")
    try:
        pixels = picture.render("framed")
        report = picture.report.as_json()
    finally:
        picture.close()
    return module, session, pixels, report


def _card(report: dict, title: str) -> dict:
    for card in report["cards"]:
        if " ".join(card["lines"]).startswith(title):
            return card
    raise AssertionError(f"no card for {title!r}")


def test_no_card_lies_over_another_and_each_holds_its_whole_title(readme_state) -> None:
    _module, session, _pixels, report = readme_state
    boxes = [(c["box"], c["lines"]) for c in report["cards"]]
    for i, (a, la) in enumerate(boxes):
        for b, lb in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (la, lb)
    for s in session.state.map.sectors.values():
        assert " ".join(" ".join(_card(report, s.title)["lines"]).split()).startswith(s.title)


def _note(s) -> str:
    """A sector's note as its full card words it."""
    return "; ".join(r.describe() for r in (*s.instructions, *s.requirements, *s.restrictions,
                                            *s.penalties, *s.bonuses))


# All three units stand on the Landing Craft Ramp, unit 2 to act: its ways out.
IN_REACH = ("tidal_flats", "shingle_bank", "wreck_line")


def _squash(text: str) -> str:
    return "".join(text.split())  # OCR drops or adds spaces


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract binary")
def test_ocr_reads_the_long_titles_and_the_notes_of_the_sectors_in_reach(readme_state) -> None:
    module, session, pixels, report = readme_state
    st = session.state
    for title in ("Communication Trench", "Abandoned Gun Pit"):
        read = ocr(pixels, tuple(_card(report, title)["box"]))
        assert _squash(title) in _squash(read), read
    for sid in IN_REACH:
        s = st.map.sectors[sid]
        read = ocr(pixels, tuple(_card(report, s.title)["box"]))
        assert _note(s) and _squash(_note(s)) in _squash(read), (s.title, read)
    assert module.noted_sectors(st) == ["landing", *IN_REACH]
    # A sector out of reach keeps its card short (the notes do not fit every tile).
    far = st.map.sectors["wire_gap"]
    assert _note(far) not in " ".join(_card(report, far.title)["lines"])


def test_pinned_cards_side_by_side_keep_apart_in_the_window(readme_state) -> None:
    """The window's pinned sector cards (`App.pinned_labels`, read off the session alone)
    measured in the face the window draws them in."""
    from types import SimpleNamespace

    from panda3d.core import TextNode

    from simulator.render.core.pins import PIN_SCALE

    module, session, _pixels, _report = readme_state
    st = session.state
    node = TextNode("measure")
    sectors = list(st.map.sectors.values())
    pins = module.App.pinned_labels(SimpleNamespace(session=session))[:len(sectors)]
    scale = {pin[2] if len(pin) > 2 else PIN_SCALE for pin in pins}  # the map's: one
    assert len(scale) == 1, scale
    line_px = 20 * scale.pop() / PIN_SCALE  # 20 px lines at PIN_SCALE

    def px(line: str) -> float:
        return float(node.calcWidth(line)) * line_px / 20 * PIN_SCALE * 360  # 720 px: 2 units

    cards = {s.id: pin[1].split("\n") for s, pin in zip(sectors, pins, strict=True)}
    for s in sectors:
        for t in sectors:
            if t.row == s.row and t.col == s.col + 1:
                half = (max(map(px, cards[s.id])) + max(map(px, cards[t.id]))) / 2
                assert half + 2 * PIN_PAD_PX < COLUMN_PX, (cards[s.id], cards[t.id], half)
    for s in sectors:
        lines = cards[s.id]
        words = " ".join(" ".join(lines).split())
        assert words.startswith(s.title), lines  # the whole title, in order
        if s.id in IN_REACH:
            assert _squash(_note(s)) in _squash(words), lines
        assert len(lines) * line_px <= ROW_PX * 1.5, lines  # centred on its tile


def _on_the_wreck_line() -> tuple[Any, Any]:
    """The D-Day window's module and its session, seed 5 after 24 greedy turns: a unit on
    the Wreck Line to move."""
    from simulator.render.app import window_module

    module = window_module("dday")
    session = module.new_session(["greedy", "greedy"], 5, {})
    for _ in range(24):
        module.play_turns(session, 1)
    st = session.state
    assert st.node == "move" and st.units[st.seat].sector == "wreck_line", st.node
    return module, session


def test_pinned_cards_one_above_another_keep_apart_in_the_window() -> None:
    """A unit on the Wreck Line to move, seed 5: its card (5 lines), Storm Culvert's (4)
    and Chapel Churchyard's above them, each card's extent along the map from its point
    (its top) and its lines, PIN_LINE_M a line (20 px until MAP_SCALE, now 17) in a row
    70 px deep (each card centred on its
    tile, as at 89170e0: Storm Culvert's foot 0.029 m, 20 px, into the Wreck Line's card)."""
    from types import SimpleNamespace

    module, session = _on_the_wreck_line()
    st = session.state
    # What each move costs, in the choices the window and the picture list (the border's
    # Courage was painted 5-7 px high on the cloth only).
    said = [module.move_words(st, a) for a in session.legal()]
    assert "move to Shingle Bank: Courage 0" in said, said
    line_m = module.PIN_LINE_M  # 17 px of a 70 px row at MAP_SCALE (20 px at PIN_SCALE)
    sectors = list(st.map.sectors.values())
    pins = module.App.pinned_labels(SimpleNamespace(session=session))[:len(sectors)]
    span = {(s.row, s.col): (pin[0][1], pin[0][1] - line_m * (pin[1].count("\n") + 1))
            for s, pin in zip(sectors, pins, strict=True)}
    assert pins[[s.id for s in sectors].index("wreck_line")][1].count("\n") + 1 >= 4
    for (r, c), (_top, foot) in span.items():
        if (r - 1, c) in span:
            assert foot >= span[(r - 1, c)][0], ((r, c), span[(r, c)], span[(r - 1, c)])


def test_every_sector_card_has_its_numbers_and_the_borders_theirs_in_screen_space(
        readme_state) -> None:
    """Item 2: a sector's numbers (Enemy Fire, machine gun, bunker) on its pinned card and
    each border's Courage cost and minefield pinned on it in screen space, not small type on
    the cloth (painted 5-7 px high). Before: the cards said "EF n" alone and no border's
    words were pinned; then (4b38635) 11 of the 20 at PIN_SCALE, 9 left painted."""
    from types import SimpleNamespace

    from simulator.render.d6.dday_window import border_pins, border_words, card_boxes, pinned_cards

    module, session, _pixels, _report = readme_state
    st = session.state
    sectors = list(st.map.sectors.values())
    pins = module.App.pinned_labels(SimpleNamespace(session=session))
    for s, pin in zip(sectors, pins, strict=False):
        words = " ".join(pin[1].split())
        assert f"EF {s.enemy_fire}" in words, pin
        assert (f"EF {s.enemy_fire} MG" in words) == s.machine_gun, pin
        assert ("bunker" in words) == s.bunker, pin
    borders = pins[len(sectors) + len(st.units):]
    cards, lift = pinned_cards(st)
    pinned, loose = border_pins(st, card_boxes(st, cards, lift))
    assert borders == pinned
    assert sorted(w for _b, w in border_words(st)) == sorted(p[1] for p in pinned)
    _every_border_pinned_clear(st)


def _every_border_pinned_clear(st) -> None:
    """Every border's words pinned (none left painted on the cloth), at capitals 14 px
    or more, each on its border (its text within 12 px of the line or corner between its
    two tiles, inside them), its text clear of the cards' texts and of the other pins'."""
    from simulator.render.core.pins import PIN_SMALL
    from simulator.render.d6.dday_window import (
        PIN_LINE_M,
        SECTOR_D,
        SECTOR_W,
        border_pins,
        border_words,
        card_boxes,
        pin_px,
        pinned_cards,
        sector_at,
    )
    from simulator.render.d6.dday_window import PIN_M_PER_PX as M

    cards, lift = pinned_cards(st)
    texts = card_boxes(st, cards, lift)
    pinned, loose = border_pins(st, texts)
    assert loose == [] and len(pinned) == len(border_words(st)) == 20, loose
    boxes = []
    for ((x, top, _z), word, scale, _ink), (b, w) in zip(pinned, border_words(st), strict=True):
        assert word == w and scale >= PIN_SMALL, (word, scale)  # PIN_SMALL: capitals 14.3 px
        half = pin_px(word, scale) / 2 * M
        box = (x - half, top - PIN_LINE_M, x + half, top)
        (ax, ay), (bx, by) = sector_at(st, b.a), sector_at(st, b.b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        near = 12 * M + 1e-9
        if ay == by:  # side by side: on their edge
            assert box[0] - near <= mx <= box[2] + near and abs(top - PIN_LINE_M / 2 - my) \
                <= SECTOR_D / 2, (word, b)
        else:  # a column's seam or a corner: across it
            assert box[1] - near <= my <= box[3] + near, (word, b)
            reach = SECTOR_W / 2 if ax == bx else 24 * M + half
            assert abs(x - mx) <= reach + 1e-9, (word, b)
        for o in texts + boxes:
            assert min(box[2], o[2]) <= max(box[0], o[0]) or min(box[3], o[3]) <= max(box[1], o[1]), \
                (word, box, o)
        boxes.append(box)


def test_every_border_is_pinned_with_a_five_line_card_on_the_map() -> None:
    """A unit on the Wreck Line to move (seed 5, its card 4-5 lines): every border pinned
    (4b38635: 10 of 20)."""
    module, session = _on_the_wreck_line()
    st = session.state
    _every_border_pinned_clear(st)
