"""Deep White Sea players: `random`, `greedy` and `planner`, plus the throw generators and
the position value they share.

- random: a uniformly random legal action; a throw gets a random legal release from behind
  its own edge (never a foul), aimed somewhere on the middle of the table.
- greedy: the action with the best immediate points (score difference once its own
  follow-up decisions are played greedily); a throw is chosen from a few random throws.
- planner: simulates every discrete action and `throws` candidate throws (aimed at and
  around enemy dice, next to allies and at random spots) in a copy of the world, plays
  its own follow-ups (the landed die's shot, commanded allies) greedily on that copy, and
  picks the best by expected score: points now plus the points its dice threaten, less
  what the opponent's dice threaten on their coming turn.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from dice_models.numerics import norm
from rules.core.protocols import Action, RulesError, TableError, ThrowSpec
from rules.core.throwing import FOOT, GRAVITY
from rules.deep_white_sea.game import DWSState, spec_to_tuple
from rules.deep_white_sea.kinematic import KinematicTable, Resting

# Position value weights (points): what my dice threaten next turn counts less than what
# the opponent threatens, because the opponent moves first.
MY_THREAT = 0.3
OPP_THREAT = 0.6
DAMAGE_SHARE = 0.25  # a hit that only damages is worth this share of the target's points
SIDE_WEIGHT = 0.1  # points per side number of a die in play: high sides are stronger
BOT_SETTINGS: dict[str, dict[str, Any]] = {"planner": {"throws": 200}, "greedy": {"throws": 8}}
OWN_PLAYERS = ("random", "greedy", "planner", "human")


# ---------------------------------------------------------------------------------------
# Throws


def table_size(state: DWSState) -> tuple[float, float]:
    d = state.table.describe()
    return float(d.get("width", 1.2)), float(d.get("depth", 0.9))


def random_throw(state: DWSState, seat: int, rng: np.random.Generator) -> ThrowSpec:
    """A legal release from behind `seat`'s edge aimed at the middle 60% of the table."""
    width, depth = table_size(state)
    target = (rng.uniform(-0.3 * width, 0.3 * width), rng.uniform(-0.3 * depth, 0.3 * depth))
    return aimed_throw(state, seat, target, rng)


def aimed_throw(state: DWSState, seat: int, target: tuple[float, float],
                rng: np.random.Generator, flight: float | None = None,
                spin: float = 15.0) -> ThrowSpec:
    """A legal throw from behind `seat`'s edge whose flight ends at `target` (m); the die
    still bounces and slides from there. `flight` in s, `spin` the largest spin (rad/s)."""
    width, depth = table_size(state)
    edge = depth / 2
    if rng.random() < 0.5:  # from well back, low
        back, z = rng.uniform(FOOT + 0.01, FOOT + 0.25), rng.uniform(0.05, 0.3)
    else:  # near the edge, above the foul zone
        back, z = rng.uniform(0.02, FOOT), rng.uniform(FOOT + 0.01, 0.45)
    x = float(np.clip(target[0] + rng.uniform(-0.2, 0.2), -0.45 * width, 0.45 * width))
    sign = -1.0 if seat == 0 else 1.0
    release = np.array([x, sign * (edge + back), z])
    t = flight if flight is not None else rng.uniform(0.45, 0.75)
    vel = (np.array([target[0], target[1], 0.03]) - release) / t
    vel[2] += 0.5 * GRAVITY * t
    w = rng.uniform(-spin, spin, size=3)
    q = rng.normal(size=4)
    q /= norm(q)
    return ThrowSpec(release=_t3(release), velocity=_t3(vel), spin=_t3(w),
                     orientation=(float(q[0]), float(q[1]), float(q[2]), float(q[3])))


def throw_action(die: str, spec: ThrowSpec) -> Action:
    return ("throw", die, spec_to_tuple(spec))


# ---------------------------------------------------------------------------------------
# Values


def threat(state: DWSState, seat: int) -> float:
    """Points `seat`'s dice in play could take with one shot each, by the best shot."""
    best = 0.0
    for d in state.seat_dice(seat):
        if d not in state.poses:
            continue
        for act in state.shots(d):
            if act[2] not in ("attack", "backstab"):
                continue
            targets = [act[3]] if len(act) > 3 else state.in_range(d, state.enemies(d), "all")
            value = 0.0
            for t in targets:
                value += _shot_value(state, d, t, act[2])
            best = max(best, value)
    return best


def value(state: DWSState, seat: int) -> float:
    """Expected score margin of `seat` (points)."""
    if state.is_terminal():
        r = state.returns()
        return 1000.0 * (r[seat] - r[1 - seat])
    margin = state.scores[seat] - state.scores[1 - seat]
    return (margin + MY_THREAT * threat(state, seat) - OPP_THREAT * threat(state, 1 - seat)
            + SIDE_WEIGHT * (_strength(state, seat) - _strength(state, 1 - seat)))


def heuristic(state: DWSState) -> list[float]:
    """How well each player stands, in [0, 1]."""
    if state.is_terminal():
        return state.returns()
    v = value(state, 0)
    p0 = 1.0 / (1.0 + math.exp(-v / 15.0))
    return [p0, 1.0 - p0]


def _strength(state: DWSState, seat: int) -> float:
    return float(sum(state.side(d).number for d in state.poses if state.dice[d].seat == seat))


def _shot_value(state: DWSState, src: str, target: str, mode: str) -> float:
    if mode == "backstab" and state.sees(target, src):
        return 0.0
    side = state.side(src)
    colour = side.effect.colour if mode == "backstab" and side.effect else side.arrows[0].colour
    if state.immune(target, colour):
        return 0.0
    points = state.dice[target].crew.points
    block = state.block(target)
    if block is None or state.held(target) or state.hit_value(src, target, mode) >= block:
        return float(points)
    return DAMAGE_SHARE * points


# ---------------------------------------------------------------------------------------
# Players


class RandomBot:
    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def step(self, state: DWSState) -> Action:
        actions = state.legal_actions()
        a = actions[int(self.rng.integers(len(actions)))]
        if a[0] == "throw":
            return throw_action(a[1], random_throw(state, state.current_player(), self.rng))
        return a


class GreedyBot:
    """Best immediate points; ties are broken at random."""

    name = "greedy"

    def __init__(self, rng: np.random.Generator, throws: int = 8) -> None:
        self.rng = rng
        self.throws = throws

    def step(self, state: DWSState) -> Action:
        return greedy_action(state, self.rng, self.throws)


def greedy_action(state: DWSState, rng: np.random.Generator, throws: int = 8) -> Action:
    seat = state.current_player()
    best: list[Action] = []
    best_v = -math.inf
    for a in _expand(state, rng, throws, seat):
        s = state.clone()
        try:
            s.apply_action(a)
            _follow_up(s, seat, rng, lambda st: float(st.scores[seat] - st.scores[1 - seat])
                       + (1000.0 * (st.returns()[seat] - 0.5) if st.is_terminal() else 0.0))
        except TableError:
            continue
        v = float(s.scores[seat] - s.scores[1 - seat])
        if s.is_terminal():
            v += 1000.0 * (s.returns()[seat] - 0.5)
        if v > best_v + 1e-9:
            best, best_v = [a], v
        elif abs(v - best_v) <= 1e-9:
            best.append(a)
    if not best:
        return state.legal_actions()[-1]  # every try failed on the table: pass / decline
    # Among equals, prefer doing something over passing or declining.
    active = [a for a in best if a[0] not in ("pass", "decline")]
    pool = active or best
    return pool[int(rng.integers(len(pool)))]


class PlannerBot:
    """Simulates candidate actions in a copy of the world; see the module docstring.

    On a kinematic table every candidate is judged there. On any other table (physics)
    the candidates are first judged on a kinematic mirror of the scene (same dice, same
    poses), then the `recheck` best are simulated again on a copy of the real table and the
    best of those is played. `last_stats` records the last decision's candidate counts and
    time."""

    name = "planner"

    def __init__(self, rng: np.random.Generator, throws: int = 200, recheck: int = 10) -> None:
        self.rng = rng
        self.throws = throws
        self.recheck = recheck
        self.last_stats: dict[str, float] = {}

    def step(self, state: DWSState) -> Action:
        seat = state.current_player()
        t0 = time.perf_counter()
        candidates = _expand(state, self.rng, self.throws, seat, aimed=True)
        n_throws = sum(a[0] == "throw" for a in candidates)
        if len(candidates) == 1:
            self.last_stats = {"candidates": 1, "throws": n_throws, "rechecked": 0,
                               "seconds": 0.0}
            return candidates[0]
        if state.table_kind == "kinematic":
            scored = self._judge(state, candidates, seat)
            rechecked = 0
        else:
            mirror = state.clone_with_table(kinematic_mirror(state), "kinematic")
            failed: list[Action] = []
            first = self._judge(mirror, candidates, seat, failed)
            best = [a for _v, _i, a in sorted(first, key=lambda t: (-t[0], t[1]))]
            # Moves the mirror's coarser geometry refuses are judged on the real table.
            top = best[:self.recheck] + failed
            scored = self._judge(state, top, seat)
            rechecked = len(top)
        v, _i, action = max(scored, key=lambda t: (t[0], -t[1]))
        self.last_stats = {"candidates": len(candidates), "throws": n_throws,
                           "rechecked": rechecked, "seconds": time.perf_counter() - t0}
        return action

    def _judge(self, state: DWSState, candidates: list[Action], seat: int,
               failed: list[Action] | None = None) -> list[tuple[float, int, Action]]:
        out = []
        for i, a in enumerate(candidates):
            s = state.clone()
            try:
                s.apply_action(a)
                _follow_up(s, seat, self.rng, lambda st: value(st, seat))
            except TableError:
                continue  # a throw the table could not settle: not a candidate
            except RulesError:
                if failed is None:
                    raise
                failed.append(a)  # legal on the real table, not on the mirror
                continue
            v = value(s, seat)
            if a[0] in ("pass", "decline"):
                v -= 0.01  # prefer acting when it costs nothing
            out.append((v, i, a))
        if not out:  # every candidate failed on the table: any legal one will do
            out.append((0.0, 0, candidates[0]))
        return out


def kinematic_mirror(state: DWSState) -> KinematicTable:
    """A kinematic table with every die where `state`'s table has it."""
    width, depth = table_size(state)
    t = KinematicTable(width, depth)
    for d, pose in state.poses.items():
        t.dice[d] = Resting(pose.face - 1, pose.yaw_deg, pose.position[0], pose.position[1])
    return t


def make_bot(kind: str, rng: np.random.Generator, **settings: Any) -> Any:
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot(rng, **settings)
    if kind == "planner":
        return PlannerBot(rng, **settings)
    if kind == "human":
        return HumanPlayer()
    raise ValueError(f"deep-white-sea has no player {kind!r}")


# ---------------------------------------------------------------------------------------
# Helpers


def _expand(state: DWSState, rng: np.random.Generator, throws: int, seat: int,
            aimed: bool = False) -> list[Action]:
    """The legal actions with each throw placeholder replaced by concrete throws (`throws`
    in all, shared among the dice that may be thrown)."""
    actions = state.legal_actions()
    dice = [a[1] for a in actions if a[0] == "throw"]
    out = [a for a in actions if a[0] != "throw"]
    if not dice:
        return out
    targets = _aim_points(state, seat) if aimed else []
    for i in range(max(throws, len(dice))):
        die = dice[i % len(dice)]
        if targets and i % 4 != 3:
            tx, ty = targets[int(rng.integers(len(targets)))]
            spot = (tx + rng.normal(0, 0.04), ty + rng.normal(0, 0.04))
            spec = aimed_throw(state, seat, spot, rng, flight=float(rng.uniform(0.4, 0.8)))
        else:
            spec = random_throw(state, seat, rng)
        out.append(throw_action(die, spec))
    return out


def _aim_points(state: DWSState, seat: int) -> list[tuple[float, float]]:
    """Where throws are worth aiming: short of and around enemy dice (so the landed die
    can see them), and beside allies."""
    pts: list[tuple[float, float]] = []
    toward = 1.0 if seat == 0 else -1.0  # the direction this player throws in (y)
    for d, pose in state.poses.items():
        x, y = pose.position[0], pose.position[1]
        if state.dice[d].seat != seat:
            for dy in (-0.18, -0.12, -0.08):
                pts.append((x, y + toward * dy))
            pts += [(x - 0.1, y), (x + 0.1, y)]
        else:
            pts += [(x + 0.08, y), (x - 0.08, y)]
    return pts


def _follow_up(state: DWSState, seat: int, rng: np.random.Generator, judge: Any,
               limit: int = 8) -> None:
    """Play `seat`'s own pending decisions (the landed die's shot, commanded allies,
    Repair directions, aims) greedily by `judge`, up to `limit` decisions; stop at the
    opponent's decision or at `seat`'s next turn."""
    for _ in range(limit):
        if state.is_terminal() or state.current_player() != seat or state.decision == "main":
            return
        options = _expand(state, rng, 3, seat)
        best, best_v = options[0], -math.inf
        for a in options:
            s = state.clone()
            s.apply_action(a)
            v = judge(s)
            if v > best_v:
                best, best_v = a, v
        state.apply_action(best)


def _t3(a: np.ndarray) -> tuple[float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]))


class HumanPlayer:
    """Plays in the terminal: numbered choices; a throw is entered as aim (x y on the
    table, m), speed (m/s along the table) and spin (rad/s), released from behind the
    player's own edge, a foot and a bit back."""

    name = "human"

    def __init__(self, input_fn: Any = input, output_fn: Any = print) -> None:
        self.input_fn = input_fn
        self.output_fn = output_fn

    def step(self, state: DWSState) -> Action:
        actions = state.legal_actions()
        seat = state.current_player()
        self.output_fn(state.render())
        if state.decision == "place":
            return self._place(state, seat)
        for i, a in enumerate(actions, 1):
            self.output_fn(f"  {i:3d}. {state.action_to_string(a)}")
        while True:
            answer = self._ask(f"{state.player_name(seat)}, choose 1-{len(actions)}: ")
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                break
            self.output_fn(f"  please type a number from 1 to {len(actions)}")
        action = actions[int(answer) - 1]
        if action[0] != "throw":
            return action
        while True:
            text = self._ask("  aim x y (m), speed (m/s), spin (rad/s), e.g. '0 0.1 2.5 10': ")
            try:
                x, y, speed, spin = (float(v) for v in text.split())
                spec = human_throw(state, seat, (x, y), speed, spin)
            except ValueError as exc:
                self.output_fn(f"  {exc or 'need four numbers'}")
                continue
            return throw_action(action[1], spec)

    def _place(self, state: DWSState, seat: int) -> Action:
        """The first turn: a die from hand, its side up and its yaw, in the centre."""
        hand = state.hand(seat)
        for i, d in enumerate(hand, 1):
            self.output_fn(f"  {i:3d}. {state.dice[d].crew.name}")
        while True:
            text = self._ask(f"{state.player_name(seat)}, place in the centre: die 1-{len(hand)}, "
                             "side 1-8, yaw (deg), e.g. '1 8 90': ")
            parts = text.split()
            try:
                i, side, yaw = int(parts[0]), int(parts[1]), float(parts[2])
            except (ValueError, IndexError):
                self.output_fn("  need three numbers: die, side, yaw")
                continue
            action = ("place", hand[i - 1] if 1 <= i <= len(hand) else "", side, yaw)
            if state.is_legal(action):
                return action
            self.output_fn(f"  die must be 1-{len(hand)} and side 1-8")

    def _ask(self, prompt: str) -> str:
        try:
            return str(self.input_fn(prompt)).strip()
        except EOFError:
            raise RulesError("input closed while waiting for a human player's choice") from None


def human_throw(state: DWSState, seat: int, aim: tuple[float, float], speed: float,
                spin: float) -> ThrowSpec:
    """A throw from 0.35 m behind `seat`'s edge, 0.15 m up, landing at `aim` (m) with
    horizontal `speed` (m/s), spinning `spin` rad/s about the table's x axis (topspin)."""
    width, depth = table_size(state)
    if not (math.isfinite(speed) and 0.3 <= speed <= 15.0):
        raise ValueError("speed must be 0.3 to 15 m/s")
    if not (math.isfinite(spin) and abs(spin) <= 200.0):
        raise ValueError("spin must be -200 to 200 rad/s")
    if abs(aim[0]) > width / 2 or abs(aim[1]) > depth / 2:
        raise ValueError(f"aim must lie on the table ({width} x {depth} m)")
    sign = -1.0 if seat == 0 else 1.0
    release = np.array([aim[0], sign * (depth / 2 + 0.35), 0.15])
    dist = math.hypot(aim[0] - release[0], aim[1] - release[1])
    t = dist / speed
    vel = (np.array([aim[0], aim[1], 0.03]) - release) / t
    vel[2] += 0.5 * GRAVITY * t
    return ThrowSpec(release=_t3(release), velocity=_t3(vel), spin=(-sign * spin, 0.0, 0.0))
