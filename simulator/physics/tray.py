"""d6 rolls for the d6 games: n dice thrown together into a walled tray; a die that comes
to rest cocked (not flat on the tray floor) is thrown again, and re-throws are counted.

A throw whose dice never come to rest (`NotSettledError`: the simulation ran out of time)
is thrown again too, as a player would pick the dice up and re-roll: the dice resting from
earlier throws stay as they were and the same dice get fresh throws, drawn from the same
generator, so a seed still gives one game. Those re-throws are counted apart from the
cocked ones; after `MAX_UNSETTLED` of them in one roll, `roll_tray` gives up with a
`PhysicsError`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dice_models import DieModel, load_die
from dice_models.numerics import norm
from rules.core.protocols import ThrowSpec
from simulator.physics.settings import SURFACES, Obstacle, PhysicsSettings, TableSpec
from simulator.physics.world import Frame, NotSettledError, PhysicsError, World

TRAY_WALL = 0.06  # m high, 2 cm thick
MAX_ROUNDS = 30  # throws that came to rest, per roll, before cocked dice are given up on
MAX_UNSETTLED = 5  # throws that never came to rest, per roll, before the roll is given up


def tray_table(width: float = 0.36, depth: float = 0.26) -> TableSpec:
    """A felt-lined tray: the floor is the 'table', the four walls are obstacles standing
    just outside its edge, so a die leaning on a wall is 'leaning', i.e. cocked."""
    t = 0.02
    walls = (
        Obstacle("wall_south", "box", (0.0, -depth / 2 - t / 2), (width + 2 * t, t, TRAY_WALL)),
        Obstacle("wall_north", "box", (0.0, depth / 2 + t / 2), (width + 2 * t, t, TRAY_WALL)),
        Obstacle("wall_west", "box", (-width / 2 - t / 2, 0.0), (t, depth, TRAY_WALL)),
        Obstacle("wall_east", "box", (width / 2 + t / 2, 0.0), (t, depth, TRAY_WALL)),
    )
    return TableSpec(shape="rect", width=width, depth=depth, surface=SURFACES["felt"],
                     obstacles=walls, source="<tray>")


@dataclass(frozen=True)
class TrayRound:
    """One throw of a roll that came to rest, as recorded (`record=True`): its 60 Hz frames
    (dice named d0..d(n-1), tray coordinates) and the dice it left cocked, which the next
    round throws again. The window plays the rounds one after the other."""

    frames: tuple[Frame, ...]
    cocked: tuple[str, ...]


@dataclass(frozen=True)
class TrayRoll:
    faces: tuple[int, ...]
    rethrows: int  # dice thrown again because they came to rest cocked
    steps: int  # physics steps over all rounds (throws that never came to rest excluded)
    unsettled: int = 0  # dice thrown again because their throw never came to rest
    rounds: tuple[TrayRound, ...] = ()  # with record=True: every round that came to rest
    confined: int = 0  # dice that came to rest by the confinement rule (PhysicsSettings)


def roll_tray(model: DieModel, n: int, rng: np.random.Generator,
              settings: PhysicsSettings | None = None, record: bool = False) -> TrayRoll:
    """Throw n dice into the tray until none rests cocked; `record` keeps each round's
    trajectory (the same throws and faces: recording only reads the poses)."""
    if n < 0:
        raise ValueError(f"cannot roll {n} dice")
    if n == 0:
        return TrayRoll((), 0, 0)
    world = World(tray_table(), settings)
    pending = [f"d{i}" for i in range(n)]
    rethrows = steps = unsettled = failures = rounds = 0
    recorded: list[TrayRound] = []
    while rounds < MAX_ROUNDS:
        group = [(name, model, _tray_throw(world.table, k, len(pending), rng))
                 for k, name in enumerate(pending)]
        try:
            reports = world.throw_group(group, player=1, record=record)
        except NotSettledError as exc:
            # The scene is as it was before this throw: throw the same dice again.
            failures += 1
            if failures > MAX_UNSETTLED:
                raise PhysicsError(f"{len(pending)} dice thrown into the tray {failures} times "
                                   f"never came to rest ({exc})") from exc
            unsettled += len(pending)
            continue
        rounds += 1
        steps += reports[0].steps
        cocked = sorted(o.die for o in world.snapshot() if o.status != "on_table")
        lost = [name for name in (f"d{i}" for i in range(n)) if name not in world.scene]
        for name in cocked:
            world.remove(name)
        pending = sorted(set(cocked) | set(lost), key=lambda s: int(s[1:]))
        if record:
            recorded.append(TrayRound(tuple(reports[0].trajectory or ()), tuple(pending)))
        if not pending:
            faces = {o.die: o.face for o in world.snapshot()}
            return TrayRoll(tuple(faces[f"d{i}"] for i in range(n)), rethrows, steps, unsettled,
                            tuple(recorded), world.confined)
        rethrows += len(pending)
    raise PhysicsError(f"{len(pending)} dice still cocked after {MAX_ROUNDS} throws into the tray")


def _tray_throw(tray: TableSpec, k: int, count: int, rng: np.random.Generator) -> ThrowSpec:
    # Stagger release heights so dice released together never start overlapping.
    x = rng.uniform(-0.3, 0.3) * tray.width
    y = rng.uniform(-0.3, 0.3) * tray.depth
    z = 0.05 + 0.03 * k
    q = rng.normal(size=4)
    q /= norm(q)
    v = rng.uniform(-0.6, 0.6, size=3)
    v[2] = rng.uniform(-0.5, 0.0)
    w = rng.uniform(-20.0, 20.0, size=3)
    return ThrowSpec((float(x), float(y), float(z)), (float(v[0]), float(v[1]), float(v[2])),
                     (float(w[0]), float(w[1]), float(w[2])),
                     (float(q[0]), float(q[1]), float(q[2]), float(q[3])))


class PhysicsRoller:
    """`DiceRoller` that throws real (simulated) dice into a tray. Kinds: 'd6', 'd6:<colour>'
    (colour is cosmetic) and 'd8' (the paper d8)."""

    name = "physics"
    MODELS = {"d6": "d6", "d8": "paper-d8"}

    def __init__(self, settings: PhysicsSettings | None = None) -> None:
        self.settings = settings
        self.rethrows = 0  # dice re-thrown because they came to rest cocked
        self.unsettled = 0  # dice re-thrown because their throw never came to rest

    def roll(self, kind: str, n: int, rng: np.random.Generator) -> tuple[int, ...]:
        base = kind.split(":", 1)[0]
        if base not in self.MODELS:
            raise ValueError(f"physics roller: unknown die kind {kind!r}")
        result = roll_tray(load_die(self.MODELS[base]), n, rng, self.settings)
        self.rethrows += result.rethrows
        self.unsettled += result.unsettled
        return result.faces
