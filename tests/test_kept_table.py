"""World keeps the table between operations and rebuilds only the dice (issue 13, item 5):
the results must be the bits a fresh Bullet world gives, throw after throw, with and
without resting dice, for every shipped die."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from dice_models import available, load_die
from simulator.physics import PhysicsError, World
from simulator.physics.settings import TableSpec
from simulator.physics.throws import random_throw
from simulator.physics.tray import _tray_throw as tray_throw
from simulator.physics.tray import tray_table


def _digest(reports: list) -> str:
    blob = json.dumps([[r.to_json() for r in rs] for rs in reports], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _play(keep: bool, table: TableSpec, script: list) -> list:
    """Run a script of operations on one World; every result, in order."""
    w = World(table)
    w.keep_table = keep
    out = []
    for op in script:
        try:
            if op[0] == "throw":
                out.append(w.throw_group(op[1]))
            elif op[0] == "place":
                w.place(*op[1])
            elif op[0] == "clear":
                for name in list(w.scene):
                    w.remove(name)
        except (PhysicsError, ValueError) as exc:
            out.append([_Err(exc)])
    out.append([_Scene(w)])
    w.close()
    return out


class _Err:
    def __init__(self, exc: Exception) -> None:
        self.text = f"{type(exc).__name__}: {exc}"

    def to_json(self) -> str:
        return self.text


class _Scene:
    def __init__(self, w: World) -> None:
        self.poses = {n: [list(pd.pose.position), list(pd.pose.quaternion)] for n, pd in w.scene.items()}

    def to_json(self) -> dict:
        return self.poses


def test_single_throws_of_every_die_match_a_fresh_world_bit_for_bit(monkeypatch):
    # A fresh Bullet world every 3 tampered dice (it frees their collision shapes).
    monkeypatch.setattr("simulator.physics.world.MAX_OWN_SHAPES", 3)
    table = TableSpec()
    rng = np.random.default_rng(13)
    script = []
    for i in range(200):  # dice of both materials, one after another in one world
        die = available()[i % len(available())]
        script.append(("throw", [(f"t{i}", load_die(die), random_throw(table, 1 + i % 2, rng))]))
        script.append(("clear",))
    kept, fresh = _play(True, table, script), _play(False, table, script)
    assert _digest(kept) == _digest(fresh)


def test_throws_into_a_crowded_scene_match_a_fresh_world_bit_for_bit():
    table = TableSpec()
    rng = np.random.default_rng(7)
    d8 = load_die("paper-d8")
    script = [("place", ("a", d8, 1, 0.0, (0.0, 0.0))), ("place", ("b", d8, 2, 30.0, (0.08, 0.0))),
              ("place", ("c", d8, 5, 60.0, (-0.1, 0.1)))]
    for i in range(40):  # throws accumulate: dice knock each other over and fall off
        script.append(("throw", [(f"t{i}", d8, random_throw(table, 1 + i % 2, rng))]))
    kept, fresh = _play(True, table, script), _play(False, table, script)
    assert _digest(kept) == _digest(fresh)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_tray_groups_match_a_fresh_world_bit_for_bit(n):
    tray = tray_table()
    rng = np.random.default_rng(n)
    d6 = load_die("d6")
    script = []
    for r in range(12):
        script.append(("throw", [(f"d{k}", d6, tray_throw(tray, k, n, rng)) for k in range(n)]))
        if r % 3 == 2:
            script.append(("clear",))
    kept, fresh = _play(True, tray, script), _play(False, tray, script)
    assert _digest(kept) == _digest(fresh)
