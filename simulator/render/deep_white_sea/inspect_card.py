"""Where Deep White Sea's inspect card goes (issue 37): clear of every die in play as the
window's view shows it, not only of the die clicked (the framed view fills the window with
the dice, and the card at its first place lay over some), and of the HUD (`Hud.place_inspect`
tries its grid of places; where none is clear, the one covering the dice least). The
prompt too (the throw's preview while a person aims) is kept clear of the dice in the view
and of the HUD's other blocks (`prompt_clear_of_dice`): placed clear of the buttons and the
dice's names only, it lay over the dice in the top view zoomed in on the person's half.
"""

from __future__ import annotations

from typing import Any

from simulator.render.core.framing import Box, screen_box
from simulator.render.deep_white_sea.close_up import dice_corners


def dice_boxes(app: Any) -> dict[str, Box]:
    """The box (px: left, top, right, bottom) each die in play covers in the window's view
    (none behind the camera)."""
    size = app.win_size()
    out = {}
    for name, corners in dice_corners(app.session).items():
        box = screen_box(app.camera, size, corners)
        if box is not None:
            out[name] = box
    return out


def aim_boxes(app: Any) -> list[Box]:
    """While a person aims, the boxes (px) the preview's marks take in the view: the release
    marker (a 0.03 m cube, MARK_PX a side at the least) and the arc drawn from it, a box at
    each of its points (the green marker touched the prompt's first line in the thrower's
    view, the arc ran through its lines in the top view)."""
    from simulator.render.deep_white_sea.gesture import arc_of

    preview = getattr(getattr(app, "aim", None), "preview", None)
    if preview is None:
        return []
    cam, size = app.camera, app.win_size()
    out: list[Box] = []
    for k, point in enumerate((preview.throw.release,
                               *arc_of(preview.throw, app.aim.gesture.flight))):
        at = cam.project(point, size)
        if at is None:
            continue
        (x, y), r = at, MARK_PX if k == 0 else ARC_PX
        out.append((x - r, y - r, x + r, y + r))
    return out


MARK_PX, ARC_PX = 14.0, 5.0  # px round the release marker's middle and each arc point's


def card_of_inspected(app: Any) -> list[str] | None:
    """The window's `inspect_lines`: the inspected die's card, its eight sides as `tabletop
    dice show` words them, the side on top marked, and whose it is; None when no die is
    inspected."""
    from simulator.render.deep_white_sea.dice_card import card_lines

    die = app.inspected
    if die is None or die not in app.scene.dice:
        return None
    s = app.session
    st = s.state
    up = st.side(die).number if die in st.poses else None
    owner = s.player_name(s.seat_of(die))
    return [f"{owner}'s die" + (f", side {up} on top" if up is not None else ""),
            *card_lines(s.crew(die), up)]


def show_card(app: Any) -> None:
    """The inspected die's card (`app.inspect_lines()`; none: put away), clear of the dice
    and the HUD, and where it can of the names pinned under the dice."""
    lines = app.inspect_lines()
    if not lines:
        app.hud.show_inspect(None)
        return
    boxes = dice_boxes(app)
    piece = boxes.pop(app.inspected, None) if app.inspected is not None else None
    pins = getattr(app, "pins", None)  # the die names pinned under the dice, where it can
    nodes = pins.nodes if pins is not None else getattr(app, "_pins", [])
    names = [b for n in nodes if not n.isHidden() and (b := app.hud.box_px(n)) is not None]
    app.hud.show_inspect(lines, piece, names, keep_clear=list(boxes.values()))


def prompt_clear_of_dice(app: Any) -> None:
    """The prompt placed clear of the dice in the view, of the HUD's other blocks (the
    status, the seat panels, the log, the close-up and the card shown), of the aim's
    preview (`aim_boxes`) and of the choices' buttons, and where it can of the names pinned under the dice
    (`Hud.place_prompt`)."""
    hud = app.hud
    card = [] if hud.inspect.isHidden() else [b for b in [hud.box_px(hud.inspect)] if b]
    hud.prompt_clear_of([*dice_boxes(app).values(), *hud.shown_boxes(prompt=False), *card,
                         *aim_boxes(app)])


def place_texts(app: Any) -> None:
    """The prompt (`prompt_clear_of_dice`), then the card (`show_card`: clear of the
    prompt too), in the view now chosen."""
    prompt_clear_of_dice(app)
    show_card(app)


def texts_follow_view(app: Any) -> None:
    """The window's `view_moved`: the prompt and the card placed again clear of the dice
    where the view now shows them (a zoom or an orbit moves the dice under them with no
    refresh)."""
    if hasattr(app, "hud"):
        place_texts(app)
