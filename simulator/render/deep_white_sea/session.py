"""A Deep White Sea game as the window plays it: the engine's state, its players, what each
die looks like and where it lies, and the animations an action makes.

Plain Python (no Panda3D): the window, the replay viewer and `tabletop render` drive this,
and tests can play it without a display.

How actions become pictures: before an action is applied, the poses of the dice in play are
kept; after it, the new poses are compared with them. A throw is first simulated with its
trajectory recorded, in a copy of the physics world the table holds (the physics gives the
same bits for the same scene and throw, so the recording is exactly what the engine's table
then computes), and played back at real speed. A die whose face changed by one roll (a
move, damage, Repair or Confuse) is rolled over the right edge; a die that left play lifts
off and fades; a new die placed in the centre drops in.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dice_models import DieModel, load_die
from dice_models.crews import CrewDie
from rules.core.match import LineSink, Match, from_json, to_json
from rules.core.protocols import DiePose, ThrowSpec
from rules.registry import GameSpec, lookup
from simulator.physics.dice import DieShape, die_shape
from simulator.physics.settings import TableSpec
from simulator.physics.world import Pose, ThrowReport, World, tip_poses
from simulator.plugins import load_plugins
from simulator.render.core.playback import Playback, PoseT, playback_of
from simulator.render.core.session import OnMatch, StepResult, quat_of

GAME = "deep-white-sea"
PLAYER_KINDS = ("human", "random", "greedy", "planner")
TIP_SECONDS = 0.45  # one roll over an edge, as a hand presses a corner
VANISH_SECONDS = 0.6
DROP_SECONDS = 0.35



# -- animations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThrowAnim:
    die: str
    throw: ThrowSpec
    playback: Playback
    physics_s: float  # wall time the physics took to reach rest (s)
    foul: bool


@dataclass(frozen=True)
class TipAnim:
    die: str
    poses: tuple[PoseT, ...]  # from the start (exclusive) to the end of the roll
    duration: float = TIP_SECONDS

    def at(self, t: float) -> PoseT:
        f = min(1.0, max(0.0, t / self.duration))
        k = min(len(self.poses) - 1, int(f * len(self.poses)))
        return self.poses[k]


@dataclass(frozen=True)
class VanishAnim:
    die: str
    pose: PoseT
    duration: float = VANISH_SECONDS


@dataclass(frozen=True)
class DropAnim:
    die: str
    pose: PoseT
    duration: float = DROP_SECONDS


Anim = ThrowAnim | TipAnim | VanishAnim | DropAnim


# -- the session ------------------------------------------------------------------------------


class GameSession(OnMatch):
    """One game of Deep White Sea: the state, the players (kinds per seat) and their bots."""

    def __init__(self, players: list[str], seed: int = 0, options: dict[str, Any] | None = None,
                 log: LineSink | None = None, bot_settings: dict[str, dict[str, Any]] | None = None):
        self.spec: GameSpec = lookup(GAME)
        self.module = self.spec.module()
        load_plugins()  # the physics table
        self.players = list(players)
        self.seed = seed
        # The game is played through the runner's match (`rules.core.match`), so
        # `tabletop replay --verify` and the replay viewer read it like any other.
        self.match = Match.new(GAME, self.players, seed, options, dice="none",
                               bot_settings=bot_settings, log=log)
        self.options = self.match.options
        self.agents = self.match.agents
        self.history: list[StepResult] = []
        self.match.begin()

    # -- reading ----------------------------------------------------------------------------

    @property
    def table_spec(self) -> TableSpec:
        world = physics_world(self.state.table)
        if world is not None:
            return world.table
        d = self.state.table.describe()
        return TableSpec(width=float(d.get("width", 1.2)), depth=float(d.get("depth", 0.9)))

    def player_name(self, seat: int) -> str:
        return f"{self.state.player_name(seat)} ({self.players[seat]})"

    def crew(self, die: str) -> CrewDie:
        return self.state.dice[die].crew  # type: ignore[no-any-return]

    def seat_of(self, die: str) -> int:
        return int(self.state.dice[die].seat)

    def shape(self, die: str) -> DieShape:
        return _shape(self.crew(die).geometry)

    def poses(self) -> dict[str, PoseT]:
        """Every die in play: centre (m) and quaternion (x, y, z, w)."""
        return poses_of(self.state, self.shape)

    def is_bot_turn(self) -> bool:
        if self.state.is_terminal():
            return False
        return self.agents[self.state.current_player()] is not None

    def legal(self) -> list[Any]:
        return list(self.state.legal_actions())

    # -- acting -----------------------------------------------------------------------------

    def bot_action(self) -> Any:
        seat = self.state.current_player()
        agent = self.agents[seat]
        assert agent is not None
        return agent.step(self.state)

    def apply(self, action: Any) -> StepResult:
        """Apply an action and work out what to show."""
        action = from_json(to_json(action))
        before = self.poses()
        player = self.state.current_player()
        throw_anim = None
        if action[0] == "throw" and len(action) == 3:
            throw_anim = self._record_throw(action[1], action[2], player + 1)
        line = self.match.act(action)
        out = StepResult(action, line["text"], player, line["events"])
        out.anims = self._animations(action, before, self.poses(), throw_anim)
        self.history.append(out)
        if self.state.is_terminal():
            self.match.end()
        return out

    def close(self) -> None:
        if self.match.log is not None:
            self.match.log.flush()

    # -- helpers ----------------------------------------------------------------------------

    def _record_throw(self, die: str, spec_values: Any, player: int) -> ThrowAnim:
        throw, report, elapsed = record_throw(self.state, die, spec_values, player)
        world = physics_world(self.state.table)
        if report is None or world is None:  # no physics: fly the arc, then settle on the outcome
            return ThrowAnim(die, throw, Playback({}, 0.0), 0.0, False)
        fell = tuple(n for n, tr in ((report.die, report.outcome), *[(a.die, a) for _b, a in
                                                                      report.disturbed])
                     if tr.reason == "fell_off")
        playback = playback_of(report.trajectory or (), floor_z=-world.table.height + 0.03,
                               fell=fell)
        return ThrowAnim(die, throw, playback, elapsed, report.foul)

    def _animations(self, action: Any, before: dict[str, PoseT], after: dict[str, PoseT],
                    throw_anim: ThrowAnim | None) -> list[Anim]:
        anims: list[Anim] = []
        if throw_anim is not None:
            anims.append(throw_anim)
        moved_by_throw = set(throw_anim.playback.tracks) if throw_anim is not None else set()
        if throw_anim is not None:  # dice the throw left off the table (on the floor,
            end = throw_anim.playback.poses_at(throw_anim.playback.duration)  # leaning, ...)
            anims += [VanishAnim(n, end[n]) for n in sorted(moved_by_throw) if n not in after]
        for name in sorted(before):
            if name in moved_by_throw:
                continue
            if name not in after:
                anims.append(VanishAnim(name, before[name]))
                continue
            tip = self._tip_between(name, before[name], after[name])
            if tip is not None:
                anims.append(tip)
        for name in sorted(after):
            if name not in before and name not in moved_by_throw and throw_anim is None:
                anims.append(DropAnim(name, after[name]))
        # Kills and rolls in the order the engine reported them would need its internals;
        # rolls come first (damage shows), then the dice that left play.
        anims.sort(key=lambda a: 0 if isinstance(a, ThrowAnim) else 1 if isinstance(a, TipAnim)
                   else 2)
        return anims

    def _tip_between(self, name: str, a: PoseT, b: PoseT) -> TipAnim | None:
        shape = self.shape(name)
        ra, rb = Pose(a[0], a[1]).rotation(), Pose(b[0], b[1]).rotation()
        fa, _ = shape.poly.face_up(ra)
        fb, _ = shape.poly.face_up(rb)
        if fa == fb or shape.poly.sign_vectors is None:
            return None
        sa, sb = shape.poly.sign_vectors[fa], shape.poly.sign_vectors[fb]
        differ = [k for k in range(3) if sa[k] != sb[k]]
        if len(differ) != 1:
            return None
        axis = "xyz"[differ[0]]
        frames = tip_poses(shape, Pose(a[0], a[1]), axis, samples=16)
        poses = tuple((f.position, f.quaternion) for f in frames[:-1]) + (b,)
        return TipAnim(name, poses)  # type: ignore[arg-type]


def play_turns(session: GameSession, turns: int, on_action: Callable[[StepResult], None] | None = None,
               max_actions: int = 2000) -> int:
    """Let the bots play until `turns` turns are complete (or the game ends); the number of
    actions applied."""
    n = 0
    while not session.state.is_terminal() and session.state.turn <= turns and n < max_actions:
        out = session.apply(session.bot_action())
        if on_action is not None:
            on_action(out)
        n += 1
    return n


def record_throw(state: Any, die: str, spec_values: Any,
                 player: int) -> tuple[ThrowSpec, ThrowReport | None, float]:
    """Simulate `die`'s throw (`spec_values`: the 13 numbers of a throw action) by table
    `player` (1 or 2) with its 60 Hz trajectory recorded, in a copy of the physics world
    behind `state.table`: the physics gives the same bits for the same scene and throw, so
    the recording is exactly what the engine's table then computes. The throw, the report
    (None for a table without physics) and the wall time it took (s). The window and the
    table server both show throws this way."""
    throw = _spec_of(spec_values)
    world = physics_world(state.table)
    if world is None:
        return throw, None, 0.0
    rec = World(world.table, world.settings)
    rec.scene = dict(physics_scene(state.table) or {})
    t0 = time.perf_counter()
    try:
        report = rec.throw(die, _model(state.dice[die].crew.geometry), throw, player=player,
                           record=True)
    finally:
        rec.close()
    return throw, report, time.perf_counter() - t0


def poses_of(state: Any, shape_of: Callable[[str], DieShape]) -> dict[str, PoseT]:
    """The pose of every die in play: the physics' exact pose where the table is physical,
    else the resting pose its face and yaw describe."""
    scene = physics_scene(state.table) or {}
    out: dict[str, PoseT] = {}
    for name, dp in state.poses.items():
        if name in scene:
            p = scene[name].pose
            out[name] = (p.position, p.quaternion)
        else:
            out[name] = resting_pose(shape_of(name), dp)
    return out


def resting_pose(shape: DieShape, pose: DiePose) -> PoseT:
    up = pose.face - 1 if shape.poly.kind == "octahedron" else shape.values.index(pose.face)
    bottom = shape.poly.opposite_face(up)
    rot = shape.poly.rest_rotation(bottom, pose.yaw_deg)
    z = float(shape.poly.face_offsets[bottom])
    return ((pose.position[0], pose.position[1], z), quat_of(rot))


def physics_world(table: Any) -> World | None:
    """The PyBullet world behind a physics-backed table, if it is one."""
    for attr in ("world", "_world"):
        w = getattr(table, attr, None)
        if isinstance(w, World):
            return w
    return None


def physics_scene(table: Any) -> dict[str, Any] | None:
    """The resting dice of a physics-backed table (name -> PlacedDie). The table's own
    scene, not its world's: clones share one World, and a bot may be searching on one."""
    scene = getattr(table, "scene", None)
    if isinstance(scene, dict):
        return scene
    world = physics_world(table)
    return None if world is None else world.scene


@functools.cache
def _model(geometry: str) -> DieModel:
    """A die model by name, read once (the window asks for shapes every frame it picks)."""
    return load_die(geometry)


def _shape(geometry: str) -> DieShape:
    return die_shape(_model(geometry))


def _spec_of(values: Any) -> ThrowSpec:
    v = [float(x) for x in values]
    return ThrowSpec(release=(v[0], v[1], v[2]), velocity=(v[3], v[4], v[5]),
                     spin=(v[6], v[7], v[8]), orientation=(v[9], v[10], v[11], v[12]))
