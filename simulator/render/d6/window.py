"""The d6 games' window on the shared one (`simulator.render.core.window.GameWindow`): every
roll thrown by the physics into the tray on the table and played back from its recording,
the faces the engine receives being the faces the dice show (`DiceSession.throw`, then
`apply_roll` once the playback is over); a cocked die rests in view and is thrown again.

A game's window (Diced, Diceland hex, ...) subclasses `DiceGameWindow` and fills in its
scene (`make_scene`, `sync_scene`), its seats' cameras, the HUD texts, the choices and
what a click on a piece means; rolls, bots, replays and the game-over screen are done here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from simulator.render.core.camera import OrbitCamera
from simulator.render.core.framing import Box
from simulator.render.core.window import GameWindow, Running
from simulator.render.d6.scene import DiceTableScene, seat_colour
from simulator.render.d6.session import (
    DiceSession,
    Roll,
    d6_shape,
    replay_step,
    shown_value,
)
from simulator.render.d6.session import (
    replay_session as dice_replay_session,
)
from simulator.render.d6.tray_view import (  # (the picture's too: one module for both)
    TRAY_PREFIX,
    place_roll,
    seat_view,
    table_top_view,
)

# The window's framed seat view: what is in play fitted into this part of the window
# (left, top, right, bottom as fractions), clear of the close-up inset and the choices at the
# right; seen from behind the seat this steeply.
WINDOW_VIEW = (0.05, 0.08, 0.66, 0.98)
SEAT_PITCH, SEAT_FOV = -75.0, 40.0


class DiceGameWindow(GameWindow):
    """A d6 game's window. `session` is a `DiceSession`."""

    session: DiceSession
    scene: DiceTableScene
    roll: Roll | None = None
    inspected: Any = None  # the piece whose card the inspect view shows (a `pieces` key)

    # -- rolls --------------------------------------------------------------------------------

    def bot_turn(self) -> bool:
        """The thread works for bots and for the physics: a roll is thrown there too."""
        return self.session.needs_roll() or self.session.is_bot_turn()

    def think(self) -> Any:
        if self.session.needs_roll():
            return self.session.throw()
        return self.session.bot_action()

    def thinking_text(self) -> str:
        if self.session.needs_roll():
            kind, n = self.session.state.chance_request()
            return f"throwing {n} {'die' if n == 1 else 'dice'} into the tray..."
        return super().thinking_text()

    def take_result(self, result: Any) -> None:
        if isinstance(result, Roll):
            self.show_roll(result)
        else:
            self.apply(result, bot=True)

    def replay_step(self, item: Any) -> None:
        from dice_models import DataError
        from rules.core.protocols import RulesError

        k = self.session.step
        try:
            result = replay_step(self.session, item)
        except (RulesError, DataError, ValueError) as exc:
            self.paused = True
            self.message = f"the log cannot be replayed here: {exc}"
            self.log_lines.append(self.message)
            self.refresh_texts()
            return
        if isinstance(result, Roll):
            self.show_roll(result, on_applied=lambda: self._check_replayed(k))
        else:
            self.after_apply(result, True)

    def show_roll(self, roll: Roll, on_applied: Any = None) -> None:
        """Play a thrown roll in the tray, then give its faces to the engine."""
        self.roll = roll
        place_roll(self.scene, roll, self.roll_colours(roll), 0.0)

        def applied() -> None:
            out = self.session.apply_roll(roll)
            if on_applied is not None:
                on_applied()
            self.after_apply(out, True)

        self.scene.clear_overlay()
        self.queue.append(Running(roll, time.perf_counter(), 0.0, applied, bot=self.feel.bot_acting()))
        self.refresh_texts()

    def show_anim(self, anim: Any, t: float) -> bool:
        if isinstance(anim, Roll):
            for name, pose in anim.playback.poses_at(t).items():
                if TRAY_PREFIX + name in self.scene.dice:
                    self.scene.move_tray_die(TRAY_PREFIX + name, pose)
            return anim.playback.finished(t)
        return True

    def tray_values(self) -> list[int]:
        """The values the tray's dice show on top now (what a player reads)."""
        if self.roll is None:
            return []
        shape = d6_shape()
        return [shown_value(shape, self.roll.labels[i],
                            self.scene.tray_die_pose(TRAY_PREFIX + name))
                for i, name in enumerate(self.roll.names) if TRAY_PREFIX + name in self.scene.dice]

    # -- clicks: a piece, then the action it means -------------------------------------------

    def pieces(self) -> dict[Any, tuple[tuple[float, float, float], float]]:
        """What a click can hit now: key -> (centre, radius) in m. A game that picks this
        way fills in `pieces` and `action_for` and leaves `click` as it is."""
        return {}

    def action_for(self, picked: Any) -> tuple[Any, ...] | None:
        """The engine action a click on the piece `picked` makes, or None (a selection
        changed, or nothing to do there: `message` says which)."""
        return None

    def inspect_card(self, picked: Any) -> list[str] | None:
        """The inspect view's card of the piece `picked` (a key of `pieces`: issue 37, a
        click shows what a piece means), or None: the game has none for it."""
        return None

    def show_card(self) -> None:
        """The inspect card of the piece inspected (none: put away), clear of the piece."""
        picked = self.inspected
        if picked is None or not (card := self.inspect_card(picked)):
            self.hud.show_inspect(None)
            return
        boxes = self.piece_boxes()
        pins = [b for n in self.pins.nodes if not n.isHidden()
                and (b := self.hud.box_px(n)) is not None]  # texts pinned to the table
        self.hud.show_inspect(card, boxes.pop(picked, None), [*boxes.values(), *pins])

    def piece_boxes(self) -> dict[Any, tuple[float, float, float, float]]:
        """The box (px: left, top, right, bottom) each of `pieces` covers on the screen
        (its sphere's; none behind the camera)."""
        from simulator.render.core.framing import screen_box

        size, out = self.win_size(), {}
        for key, ((x, y, z), r) in self.pieces().items():
            corners = np.array([(x + a * r, y + b * r, z + c * r)
                                for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
            box = screen_box(self.camera, size, corners)
            if box is not None:
                out[key] = box
        return out

    def on_left_down(self, pos: tuple[float, float] | None = None) -> None:
        """A click: as the window's; at a bot's turn or in a replay it only inspects."""
        pos = pos or self.mouse()
        if pos is None:
            return
        if not self.human_to_act():
            self.inspected = self.pick_sphere(pos, self.pieces())
            self.refresh()
            return
        self.click(pos)

    def click(self, pos: tuple[float, float]) -> None:
        picked = self.pick_sphere(pos, self.pieces())
        if picked != self.inspected:
            self.inspected = picked
            self.show_card()
        if picked is None or not self.human_to_act():
            return
        action = self.action_for(picked)
        if action is None:
            self.refresh()
            return
        self.apply(action)

    def roll_colours(self, roll: Roll) -> list[tuple[float, float, float]]:
        """Each tray die's colour: the seat it is thrown for (games say who owns which)."""
        return [seat_colour(self.acting_seat())] * len(roll.faces)

    def last_moved(self) -> str | None:
        names = self.scene.die_names(TRAY_PREFIX)
        return names[0] if names else None

    def inset_points(self) -> list[tuple[float, float, float]]:
        """The close-up frames every die of the last roll in the tray."""
        return [self.scene.die_position(n) for n in self.scene.die_names(TRAY_PREFIX)]

    def inset_die_size(self) -> float:
        return 2 * float(d6_shape().poly.circumradius)

    def piece_position(self, name: str) -> tuple[float, float, float] | None:
        return self.scene.die_position(name) if name in self.scene.dice else None

    def new_session(self) -> DiceSession:
        s = self.session
        # The last game's roll leaves the tray with it.
        self.roll = None
        for name in self.scene.die_names(TRAY_PREFIX):
            self.scene.remove_die(name)
        return DiceSession(s.game, list(s.players), s.seed + 1, dict(s.options))

    # -- cameras: seats around the table ------------------------------------------------------

    def seat_heading(self, seat: int) -> float:
        """The camera heading (deg) of a seat: seat 0 at the -y edge, the rest round the
        table counter-clockwise."""
        n = max(1, len(self.session.players))
        return (360.0 * seat / n) % 360.0

    def thrower_camera(self, seat: int) -> OrbitCamera:
        """From behind the seat, framed on what is in play (issue 37): the points the game's
        picture frames and every die not in the tray, fitted between the HUD's columns;
        the whole table when the game says nothing (`seat_view`). Orbit, zoom and the
        view keys work from there as before."""
        import sys

        layout_of = getattr(sys.modules[type(self).__module__], "legible_layout", None)
        if layout_of is None or not hasattr(self, "scene"):
            return seat_view(self.scene.table, self.seat_heading(seat))
        from simulator.render.core.framing import frame

        layout = layout_of(self.session, self.scene)
        points = np.asarray(layout.points, dtype=float).reshape(-1, 3)
        dice = [np.asarray(c, dtype=float) for n, c in layout.dice.items()
                if not n.startswith(TRAY_PREFIX)]
        w, h = self.win_size()
        region = (WINDOW_VIEW[0] * w, WINDOW_VIEW[1] * h, WINDOW_VIEW[2] * w, WINDOW_VIEW[3] * h)
        panels = [b for node in self.hud.panels if not node.isHidden()
                  and (b := self.hud.box_px(node)) is not None] if hasattr(self, "hud") else []
        best: tuple[tuple[float, float], OrbitCamera] | None = None
        for trial in clear_regions(region, panels):
            cam = frame(np.concatenate([points, *dice]), (w, h), trial,
                        self.seat_heading(seat) % 360.0, SEAT_PITCH, SEAT_FOV, margin=0.03)
            score = framed_score(cam, (w, h), points, dice, panels)
            if best is None or score > best[0]:
                best = (score, cam)
        assert best is not None
        self.views.chosen = best[1]
        return best[1]

    def refresh(self) -> None:
        """As the window's, and the framed view follows the game as it grows or shrinks
        while the person has not moved the camera (an orbit, zoom, pan or another view
        keeps theirs)."""
        super().refresh()
        self.views.follow_game(lambda: self.thrower_camera(self._seen_seat))
        self.place_log()
        self.show_card()

    def refresh_texts(self) -> None:
        """As the window's, and the log at the foot kept clear of what is in play."""
        super().refresh_texts()
        self.place_log()

    def view_moved(self) -> None:
        """The log placed again clear of the pieces where the view now shows them."""
        self.place_log()

    def place_log(self) -> None:
        """The log (and the prompt) clear of the pieces and of the words painted on the
        table the main view shows (DiceWar's log lay over the board's row number 1)."""
        if hasattr(self, "scene") and hasattr(self, "hud"):
            self.hud.place_log([*self.piece_boxes().values(), *self.painted_boxes()])

    def painted_boxes(self) -> list[tuple[float, float, float, float]]:
        """The box (px) each text painted on the table covers in the main view, those it
        shows (DiceWar's board's letters and numbers)."""
        from simulator.render.core.framing import screen_box
        from simulator.render.core.inset import main_only

        size, out = self.win_size(), []
        for node in self.scene.root.findAllMatches("**/+TextNode"):
            bounds = None if node.isHidden(main_only()) else node.getTightBounds(self.base.render)
            if bounds is None:
                continue
            lo, hi = bounds
            corners = np.array([(x, y, z) for x in (lo.x, hi.x) for y in (lo.y, hi.y)
                                for z in (lo.z, hi.z)])
            box = screen_box(self.camera, size, corners)
            if box is not None:
                out.append(box)
        return out

    def top_camera(self, aspect: float) -> OrbitCamera:
        return table_top_view(self.scene.table, aspect)


def clear_regions(region: Box, blocks: list[Box]) -> list[Box]:
    """`region` (px) and the regions left of it once each block over it (a seat panel) is
    cut away, above or below it or beside it, in every combination of the blocks' cuts
    that leaves at least half the region's width and height: the view may frame what is in
    play clear of the HUD's panels."""
    import itertools

    over = [b for b in blocks if b[0] < region[2] and region[0] < b[2] and b[1] < region[3]
            and region[1] < b[3]]
    mid_x, mid_y = (region[0] + region[2]) / 2, (region[1] + region[3]) / 2

    def cut(r: Box, b: Box, across: bool) -> Box:
        left, top, right, bottom = r
        if across:  # above or below the block
            if (b[1] + b[3]) / 2 < mid_y:
                top = max(top, b[3])
            else:
                bottom = min(bottom, b[1])
        elif (b[0] + b[2]) / 2 < mid_x:  # beside it
            left = max(left, b[2])
        else:
            right = min(right, b[0])
        return (left, top, right, bottom)

    out = [region]
    for ways in itertools.product((True, False), repeat=len(over)):
        r = region
        for b, across in zip(over, ways, strict=True):
            r = cut(r, b, across)
        if (r[2] - r[0] >= (region[2] - region[0]) / 2 and r[3] - r[1] >= (region[3] - region[1]) / 2
                and r not in out):
            out.append(r)
    return out


def framed_score(cam: OrbitCamera, size: tuple[int, int], points: Any, dice: list[Any],
                 blocks: list[Box]) -> tuple[float, float]:
    """How well `cam` frames what is in play beside the HUD's `blocks` (larger is better):
    first whether its smallest die is MIN_DIE_PX across, then (where it is) how little of
    the dice and of the board's points lies under a block (px^2; a point counts 100), then
    the smallest die's size."""
    from simulator.render.core.framing import MIN_DIE_PX, die_px, screen_box

    sizes = [die_px(cam, size, c) for c in dice]
    small = min(sizes, default=MIN_DIE_PX)
    covered = 0.0
    for c in dice:
        box = screen_box(cam, size, c)
        if box is not None:
            covered += sum(max(0.0, min(box[2], b[2]) - max(box[0], b[0]))
                           * max(0.0, min(box[3], b[3]) - max(box[1], b[1])) for b in blocks)
    for p in points:
        at = cam.project(np.asarray(p, dtype=float), size)
        if at is not None and any(b[0] <= at[0] <= b[2] and b[1] <= at[1] <= b[3] for b in blocks):
            covered += 100.0
    return (float(small >= MIN_DIE_PX) * (1e9 - covered), small)


# -- the module interface's shared parts (see simulator.render.app) ------------------------


def new_session(game: str, players: list[str], seed: int, options: dict[str, Any],
                log: Any = None, bot_settings: dict[str, dict[str, Any]] | None = None
                ) -> DiceSession:
    return DiceSession(game, players, seed, options, log=log, bot_settings=bot_settings)


def replay_session(game: str, log_path: Any) -> tuple[DiceSession, list[Any], list[str | None]]:
    return dice_replay_session(game, log_path)


class ModuleFunctions(NamedTuple):
    """The functions of a d6 game's window module that are the same for every d6 game
    (`simulator.render.app` calls them): a module says
    `new_session, replay_session, picture, play_turns = module_functions(GAME, __name__)`."""

    new_session: Callable[..., DiceSession]
    replay_session: Callable[[Any], tuple[DiceSession, list[Any], list[str | None]]]
    picture: Callable[..., Any]
    play_turns: Callable[[DiceSession, int], int]


def module_functions(game: str, module_name: str) -> ModuleFunctions:
    def make(players: list[str], seed: int, options: dict[str, Any], log: Any = None,
             bot_settings: dict[str, dict[str, Any]] | None = None) -> DiceSession:
        return new_session(game, players, seed, options, log, bot_settings)

    def replay(log_path: Any) -> tuple[DiceSession, list[Any], list[str | None]]:
        return replay_session(game, log_path)

    def picture(session: DiceSession, size: tuple[int, int], shading: str = "auto") -> Any:
        import sys

        from simulator.render.d6.picture import DicePicture

        return DicePicture(session, size, sys.modules[module_name], shading)

    def turns(session: DiceSession, count: int) -> int:
        from simulator.render.d6.session import play_turns

        return play_turns(session, count)

    return ModuleFunctions(make, replay, picture, turns)
