"""Throughput of `simulator.physics.World.throw`, in one run on the same throws, against
(1) the honest reference: `simulator.bench.bare.BareLoop`, the leanest correct loop for the
    same die, table, contact model, settings and settle rule (target: ratio >= 0.95);
(2) the World of an older commit, run from a git worktree of that commit in a subprocess
    with its own settings (targets, `OLD_TARGETS`: >= 1.8 against 9ea7a0a, before issue 13;
    >= 0.98 against 9135fc1, before issue 35's redesign).
The three run interleaved in rounds (order rotated each round) so machine noise hits all
alike; each measures its own process CPU time. Prints throws per second and the ratios,
and how often the loops agree on the face.

    python -m benchmarks.bench_throughput [--throws 400] [--rounds 5] [--die paper-d8] [--old 9ea7a0a]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from dice_models import load_die
from simulator.bench.bare import BareLoop
from simulator.physics import PhysicsSettings, TableSpec, World, die_shape
from simulator.physics.throws import random_throw

REPO = Path(__file__).resolve().parent.parent
OLD_COMMIT = "9ea7a0a"
OLD_TARGETS = {"9ea7a0a": 1.8, "9135fc1": 0.98}  # the ratio each old commit is held to

# Runs in the old tree: reads one JSON list of throws a line, answers CPU seconds and faces.
OLD_WORKER = r"""
import json, sys, time
from dice_models import load_die
from simulator.physics import TableSpec, World
try:
    from simulator.physics.world import Throw
except ImportError:  # a commit since issue 13: one throw type for every layer
    from rules.core.protocols import ThrowSpec as Throw
model = load_die(sys.argv[1])
world = World(TableSpec())
for line in sys.stdin:
    throws = [Throw(tuple(t["release"]), tuple(t["velocity"]), tuple(t["spin"]), tuple(t["orientation"]))
              for t in json.loads(line)]
    faces = []
    t0 = time.process_time()
    for th in throws:
        r = world.throw("die", model, th)
        world.scene.clear()
        faces.append(r.outcome.face if r.outcome.reason != "fell_off" else -1)
    print(json.dumps({"cpu": time.process_time() - t0, "faces": faces}), flush=True)
"""


class OldWorldError(Exception):
    """The old World's process could not run the throws (a commit whose World or die
    files this worker does not know)."""


class OldWorld:
    """The World of an old commit, in a subprocess over a git worktree of it."""

    def __init__(self, commit: str, die: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-old-"))
        self.tree = self.dir / "tree"
        # Its stderr goes to a file, read only if it fails: a pipe nobody reads would stall it.
        self.errors = (self.dir / "stderr.txt").open("w+")
        try:
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(self.tree),
                            commit], check=True, capture_output=True, text=True)
            env = dict(os.environ, PYTHONPATH=str(self.tree))
            self.proc = subprocess.Popen([sys.executable, "-c", OLD_WORKER, die], cwd=self.tree,
                                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.errors, text=True)
        except BaseException:
            self._remove()
            raise

    def run(self, throws: list) -> tuple[float, list[int]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        line = ""
        try:
            self.proc.stdin.write(json.dumps([t.to_json() for t in throws]) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            pass
        if not line:
            self.proc.kill()
            self.proc.wait(timeout=30)
            self.errors.seek(0)
            why = (self.errors.read().strip().splitlines() or ["no message"])[-1]
            raise OldWorldError(f"its process ended: {why}")
        answer = json.loads(line)
        return float(answer["cpu"]), list(answer["faces"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self._remove()

    def _remove(self) -> None:
        """The worktree and the temporary folder, gone again."""
        self.errors.close()
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(self.tree)],
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--die", default="paper-d8")
    ap.add_argument("--old", default=OLD_COMMIT, help="commit of the old World (default 9ea7a0a)")
    args = ap.parse_args()
    model = load_die(args.die)
    table, settings = TableSpec(), PhysicsSettings()
    throws = [random_throw(table, 1, np.random.default_rng([11, i])) for i in range(args.throws)]
    world = World(table, settings)
    bare = BareLoop(die_shape(model), table, settings)
    old: OldWorld | None = None
    try:
        old = OldWorld(args.old, args.die)
    except (subprocess.CalledProcessError, OSError) as exc:
        why = exc.stderr.strip().splitlines()[-1] if isinstance(exc, subprocess.CalledProcessError) \
            and exc.stderr else str(exc)
        print(f"old World ({args.old}): unavailable ({why}); only the reference ratio is measured")
    cpu = {"bare": 0.0, "world": 0.0, "old": 0.0}
    faces: dict[str, list[int]] = {"bare": [], "world": [], "old": []}
    per_round = max(1, args.throws // args.rounds)
    order = ["bare", "world", "old"]
    rounds: list[dict[str, float]] = []  # each round's CPU seconds, loop by loop
    try:
        for k, start in enumerate(range(0, args.throws, per_round)):
            chunk = throws[start:start + per_round]
            rounds.append({})
            for which in order[k % 3:] + order[:k % 3]:
                if which == "old":
                    if old is not None:
                        try:
                            dt, f = old.run(chunk)
                        except OldWorldError as exc:
                            print(f"old World ({args.old}): {exc}")
                            return 2
                        rounds[-1]["old"] = dt
                        cpu["old"] += dt
                        faces["old"] += f
                    continue
                t0 = time.process_time()
                for th in chunk:
                    if which == "bare":
                        faces["bare"].append(bare.throw(th)[0])
                    else:
                        r = world.throw("die", model, th)
                        world.scene.clear()
                        faces["world"].append(r.outcome.face if r.outcome.reason != "fell_off" else -1)
                rounds[-1][which] = time.process_time() - t0
                cpu[which] += rounds[-1][which]
    finally:
        if old is not None:
            old.close()
    n = len(throws)

    def paired(ref: str) -> str:
        """The median over rounds of the round's ratio: each round runs the loops back to
        back on the same throws, so a burst of load from other processes on a shared machine
        moves one round's ratio, not the figure (the totals above weigh it in full)."""
        ratios = sorted(r[ref] / r["world"] for r in rounds if ref in r and r["world"] > 0)
        return f"median of {len(ratios)} rounds {float(np.median(ratios)):.3f}" if ratios else ""

    def agree(a: str, b: str) -> float:
        return sum(x == y for x, y in zip(faces[a], faces[b], strict=True)) / n

    print(f"die {args.die}, {n} random legal throws onto the felt table 1.2 x 0.9 m, "
          f"dt {settings.time_step:.6f} s, hold {settings.hold_time} s, process CPU time")
    print(f"reference loop (BareLoop) : {n / cpu['bare']:8.1f} throws/s")
    print(f"simulator.World           : {n / cpu['world']:8.1f} throws/s")
    if old is not None:
        print(f"World of {args.old:<17}: {n / cpu['old']:8.1f} throws/s")
    print(f"World / reference         : {cpu['bare'] / cpu['world']:8.3f}  (target >= 0.95; "
          f"{paired('bare')}); same face {agree('bare', 'world'):.1%}")
    if old is not None:
        target = next((t for c, t in OLD_TARGETS.items() if args.old.startswith(c)), None)
        said = f"target >= {target}" if target is not None else "no target for this commit"
        print(f"World / World of {args.old:<8} : {cpu['old'] / cpu['world']:8.3f}  ({said}; "
              f"{paired('old')}); same face {agree('old', 'world'):.1%}"
              + (" (the physics changed)" if agree("old", "world") < 1.0 else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
