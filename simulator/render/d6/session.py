"""A d6 game as the window plays it (Diced, Diceland hex, and any registered game whose
chance nodes are dice rolls): the engine's state, its seats (people and bots), and each roll
thrown into the tray by the physics with its trajectory recorded.

Plain Python (no Panda3D): the window, the replay viewer and `tabletop render` drive this,
and tests play it without a display.

A roll is two steps, so the window can show it before the engine hears of it: `throw()`
simulates the dice to rest (a die that comes to rest cocked is thrown again, in the same
recording) and returns a `Roll` whose faces are the physics' own; `apply_roll(roll)` gives
exactly those faces to the engine. The replay viewer shows a logged roll by throwing the
dice again and turning each die's printing about its own centre (a symmetry of the cube,
so the die looks and moves the same) until the logged face is the one on top.

Logs are the runner's (`rules.core.runner`: header, chance, action and end lines), so
`tabletop replay --verify` and the replay viewer read a window game like any other.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.core.match import LineSink, Match, from_json, to_json
from rules.core.runner import read_log
from rules.registry import GameSpec, lookup
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.tray import TrayRoll, roll_tray, tray_table
from simulator.physics.world import Frame
from simulator.render.core.playback import Playback, PoseT, playback_of
from simulator.render.core.session import OnMatch, StepResult

ROUND_PAUSE_S = 0.5  # s a cocked die is seen resting before it is thrown again
ROLLER = "physics"  # the log header's roller: every roll in the window is thrown


@dataclass(frozen=True)
class Roll:
    """A roll thrown but not yet given to the engine: the request, the faces the physics
    read (or the log's, replayed), the playback of every round in the tray, and for each
    die the value printed on each geometry face (`labels[i][f]`)."""

    kind: str
    faces: tuple[int, ...]
    playback: Playback
    labels: tuple[tuple[int, ...], ...]
    rethrows: int  # dice that came to rest cocked and were thrown again

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"d{i}" for i in range(len(self.faces)))


class DiceSession(OnMatch):
    """One game of a d6 game, for the window: `players` are kinds per seat ('human' or a
    bot of the game)."""

    def __init__(self, game: str, players: list[str], seed: int = 0,
                 options: dict[str, Any] | None = None, log: LineSink | None = None,
                 bot_settings: dict[str, dict[str, Any]] | None = None) -> None:
        self.spec: GameSpec = lookup(game)
        self.module = self.spec.module()
        self.game = self.spec.name
        self.players = list(players)
        self.seed = seed
        # The game is played through the runner's match (`rules.core.match`); its rolls
        # are thrown here, in the tray, from the match's chance stream.
        self.match = Match.new(self.game, self.players, seed, options, dice=ROLLER,
                               bot_settings=bot_settings, log=log)
        self.options = self.match.options
        self.chance_rng = self.match.chance_rng
        self.bots = self.match.bots
        self.agents = self.match.agents
        self.history: list[StepResult] = []
        self.last_player = 0  # the seat that decided last: whose roll the next one is
        self.last_roll: Roll | None = None  # the roll given to the engine last
        # A copy of the state the last roll was thrown for, before its faces: who threw and
        # for what, by which a game colours the roll's dice (its window module's
        # `roll_colours(state, n)`), in a picture as in the window.
        self.roll_state: Any = None
        self.match.begin()

    # -- reading ----------------------------------------------------------------------------

    def player_name(self, seat: int) -> str:
        return f"{self.state.player_name(seat)} ({self.players[seat]})"

    def needs_roll(self) -> bool:
        return not self.state.is_terminal() and bool(self.state.is_chance_node())

    def is_bot_turn(self) -> bool:
        if self.state.is_terminal() or self.state.is_chance_node():
            return False
        return self.agents[self.state.current_player()] is not None

    def legal(self) -> list[Any]:
        return list(self.state.legal_actions())

    # -- acting -----------------------------------------------------------------------------

    def bot_action(self) -> Any:
        agent = self.agents[self.state.current_player()]
        assert agent is not None
        return agent.step(self.state)

    def apply(self, action: Any) -> StepResult:
        """A decision (a person's or a bot's)."""
        action = from_json(to_json(action))
        player = self.state.current_player()
        line = self.match.act(action)
        self.last_player = player
        return self._done(StepResult(action, line["text"], player, line["events"]))

    def throw(self) -> Roll:
        """Throw the dice the state asks for into the tray; nothing is applied yet."""
        kind, n = self.state.chance_request()
        tray = roll_tray(d6_model(), n, self.chance_rng, record=True)
        return roll_of(kind, tray, tuple(tray.faces))

    def show_roll(self, kind: str, faces: tuple[int, ...]) -> Roll:
        """A roll with given faces (a log's): thrown afresh, each die's printing turned so
        the given face is on top. Seeded by the step, so a replay looks the same each time."""
        rng = np.random.default_rng([self.seed, self.step])
        tray = roll_tray(d6_model(), len(faces), rng, record=True)
        return roll_of(kind, tray, faces)

    def apply_roll(self, roll: Roll) -> StepResult:
        """Give a thrown roll's faces to the engine."""
        before = self.state.clone()
        events = self.match.roll(roll.faces)["events"]
        self.last_roll, self.roll_state = roll, before
        text = f"rolled {' '.join(map(str, roll.faces))}"
        if roll.rethrows:
            text += f" ({roll.rethrows} cocked {'die' if roll.rethrows == 1 else 'dice'} " \
                    "thrown again)"
        return self._done(StepResult(None, text, -1, events))

    def close(self) -> None:
        if self.match.log is not None:
            self.match.log.flush()

    # -- helpers ----------------------------------------------------------------------------

    def _done(self, out: StepResult) -> StepResult:
        self.history.append(out)
        if self.state.is_terminal():
            self.match.end()
        return out


# -- rolls ----------------------------------------------------------------------------------


@functools.cache
def d6_shape() -> DieShape:
    return die_shape(d6_model())


@functools.cache
def d6_model() -> Any:
    from dice_models import load_die

    return load_die("d6")


def roll_of(kind: str, tray: TrayRoll, faces: tuple[int, ...]) -> Roll:
    """The window's roll from a recorded tray roll: its rounds one after the other (a
    cocked die rests in view, then is thrown again), each die printed so `faces[i]` is on
    top where it came to rest."""
    frames: list[Frame] = []
    offset = 0.0
    for k, rnd in enumerate(tray.rounds):
        if k:
            offset += ROUND_PAUSE_S
        for fr in rnd.frames:
            frames.append(Frame(fr.t + offset, fr.poses))
        if rnd.frames:
            offset += rnd.frames[-1].t
    playback = playback_of(frames)
    end = playback.poses_at(playback.duration)
    shape = d6_shape()
    labels = []
    for i, face in enumerate(faces):
        pose = end.get(f"d{i}")
        labels.append(shape.values if pose is None else relabel(shape, pose, int(face)))
    return Roll(kind, tuple(int(f) for f in faces), playback, tuple(labels), tray.rethrows)


def up_face(shape: DieShape, pose: PoseT) -> int:
    """The geometry face on top of a die in `pose`."""
    from scipy.spatial.transform import Rotation

    rot = Rotation.from_quat(pose[1]).as_matrix()
    return int(shape.poly.face_up(rot)[0])


def shown_value(shape: DieShape, labels: tuple[int, ...], pose: PoseT) -> int:
    """The value a player reads on top of a die printed with `labels`, lying in `pose`."""
    return labels[up_face(shape, pose)]


def relabel(shape: DieShape, pose: PoseT, value: int) -> tuple[int, ...]:
    """The die's printing turned by a rotation of the cube about its centre so `value` is
    on the face that lies on top in `pose` (opposite faces still add up as printed)."""
    up = up_face(shape, pose)
    normals = np.asarray(shape.poly.normals, dtype=float)
    want = shape.values.index(value)
    for rot in _cube_rotations():
        if np.allclose(rot @ normals[up], normals[want]):
            moved = normals @ rot.T  # where each face's printing comes from
            perm = [int(np.argmax(normals @ m)) for m in moved]
            return tuple(shape.values[p] for p in perm)
    raise ValueError(f"no cube rotation puts {value} on top")  # cannot happen for a cube


@functools.cache
def _cube_rotations() -> tuple[np.ndarray, ...]:
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for r, (c, s) in enumerate(zip(perm, signs, strict=True)):
                m[r, c] = s
            if np.linalg.det(m) > 0:
                out.append(m)
    return tuple(out)


def tray_size() -> tuple[float, float]:
    t = tray_table()
    return (t.width, t.depth)


# -- replay and bots' turns --------------------------------------------------------------


def replay_session(game: str, log_path: Any) -> tuple[DiceSession, list[dict[str, Any]],
                                                      list[str | None]]:
    """A fresh session set up as the log's header says, its steps (chance and action
    lines) in order, and the state digest the log recorded after each."""
    from rules.core.protocols import RulesError

    lines = read_log(log_path)
    header = lines[0]
    if header.get("game") != game:
        raise RulesError(f"{log_path}: this log is {header.get('game')!r}, not {game}")
    players = [str(p) for p in header.get("players", [])] if isinstance(
        header.get("players"), list) else []
    seed = header.get("seed")
    if not players or not isinstance(seed, int) or isinstance(seed, bool):
        raise RulesError(f"{log_path}: line 1: bad header field 'players' or 'seed'")
    if "resumed_from" in header:
        raise RulesError(f"{log_path}: the viewer shows games from their start; this one "
                         "was resumed from a save (tell it with `tabletop replay` instead)")
    # Every seat replays its logged actions: none of them thinks.
    session = DiceSession(game, ["human"] * len(players), seed, dict(header.get("options") or {}))
    session.players = players
    steps = [line for line in lines[1:] if line.get("type") in ("chance", "action")]
    return session, steps, [line.get("digest") for line in steps]


def replay_step(session: DiceSession, line: dict[str, Any]) -> StepResult | Roll:
    """One logged step: an action is applied; a roll comes back to be shown first."""
    from rules.core.protocols import RulesError

    try:
        if line["type"] == "chance":
            return session.show_roll(str(line["kind"]), tuple(int(f) for f in line["faces"]))
        return session.apply(from_json(line["action"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise RulesError(f"log step {line.get('step')}: missing or bad field {exc}") from None


def play_turns(session: DiceSession, turns: int, max_steps: int = 5000) -> int:
    """Let the bots (and the physics) play until `turns` turns are complete (the state's
    `turns_played`; the number of decisions where it has none) or the game ends; the
    number of steps taken."""
    n = 0
    decisions = 0
    while not session.state.is_terminal() and n < max_steps:
        played = getattr(session.state, "turns_played", None)
        if (played if played is not None else decisions) >= turns:
            break
        if session.needs_roll():
            session.apply_roll(session.throw())
        else:
            session.apply(session.bot_action())
            decisions += 1
        n += 1
    return n
