"""`tabletop throw`: one throw of a die onto the table (or d6s into a tray), to rest."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from dice_models import DataError, load_die
from dice_models.errors import is_finite_number
from dice_models.files import parse_json, read_text
from dice_models.outfiles import check_target, write_json
from simulator.cli.args import seed


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "throw", help="throw a die onto the table and report how it rests",
        description="Throw a die (a shipped name or a die YAML file) and simulate it to rest. "
                    "With only --seed the throw is a random legal one from the player's side; "
                    "--release/--velocity/--spin give it exactly (m, m/s, rad/s; z is the "
                    "height above the table surface).")
    p.add_argument("--die", default="paper-d8", help="die name or YAML file (default paper-d8)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random throw (default 0)")
    p.add_argument("--player", type=int, choices=(1, 2), default=1,
                   help="thrower: 1 at y = -depth/2, 2 at y = +depth/2")
    p.add_argument("--release", type=float, nargs=3, metavar=("X", "Y", "Z"))
    p.add_argument("--velocity", type=float, nargs=3, metavar=("VX", "VY", "VZ"))
    p.add_argument("--spin", type=float, nargs=3, metavar=("WX", "WY", "WZ"))
    p.add_argument("--orientation", type=float, nargs=4, metavar=("QX", "QY", "QZ", "QW"),
                   help="release orientation quaternion (default: identity for an exact "
                        "throw, random for a seeded one)")
    p.add_argument("--surface", help="table surface preset: felt or slick")
    p.add_argument("--table", type=Path, help="table YAML (size, shape, surface, obstacles)")
    p.add_argument("--scene", type=Path, help="dice already resting on the table, as JSON")
    p.add_argument("--count", type=int, default=1, help="with --tray: how many dice")
    p.add_argument("--tray", action="store_true", help="roll --count dice into a walled tray")
    p.add_argument("--trajectory", type=Path, help="write the 60 Hz poses of moving dice (JSON)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--engine", default="pybullet",
                   help="physics engine for a table throw, pybullet or mujoco (default "
                        "pybullet; mujoco needs the engines extra)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # A PhysicsError is reported by simulator.cli.main (one line, exit status 3).
    model = load_die(args.die)
    if args.tray:
        if args.engine != "pybullet":
            raise DataError("command line", "--engine", "the tray is simulated by PyBullet only",
                            args.engine)
        return _run_tray(args, model)
    return _run_throw(args, model)


def _run_throw(args: argparse.Namespace, model: Any) -> int:
    from simulator.physics import PhysicsSettings, ThrowSpec, load_table, validate_throw
    from simulator.physics.engines import check_engine, make_world
    from simulator.physics.throws import random_throw

    if args.count != 1:
        raise DataError("command line", "--count", "needs --tray (a table throw is one die)",
                        args.count)
    if args.trajectory is not None:
        check_target(args.trajectory, "--trajectory")  # before the throw is simulated
    table = load_table(args.table, args.surface)
    world = make_world(table, PhysicsSettings(engine=check_engine(args.engine)))
    scene = _load_scene(args.scene, world) if args.scene else []
    if args.release is not None or args.velocity is not None or args.spin is not None:
        if args.release is None or args.velocity is None:
            raise DataError("command line", "--release/--velocity",
                            "an exact throw needs both --release X Y Z and --velocity VX VY VZ",
                            show_value=False)
        throw = ThrowSpec(tuple(args.release), tuple(args.velocity),
                          tuple(args.spin or (0.0, 0.0, 0.0)),
                          tuple(args.orientation or (0.0, 0.0, 0.0, 1.0)),
                          seed=args.seed)  # seeds the tilt of a symmetric throw (docs/physics.md)
    else:
        throw = random_throw(table, args.player, np.random.default_rng(args.seed))
        if args.orientation:
            throw = replace(throw, orientation=tuple(args.orientation))
    validate_throw(throw, "command line")
    name = model.name if model.name not in {d for d, _ in scene} else f"{model.name}-thrown"
    report = world.throw(name, model, throw, args.player, record=args.trajectory is not None)
    if args.trajectory is not None and report.trajectory is not None:
        frames = [{"t": f.t, "poses": {k: {"position": list(p), "quaternion": list(q)}
                                       for k, (p, q) in f.poses.items()}}
                  for f in report.trajectory]
        write_json(args.trajectory, {"die": name, "frames": frames}, "--trajectory")
    # The report names the die as it sits on the table; the output names the model thrown.
    out = {**report.to_json(), "die": model.name, "seed": args.seed}
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        _print_summary(out, model.reading)
    return 0


def _run_tray(args: argparse.Namespace, model: Any) -> int:
    from simulator.physics.settings import PhysicsSettings
    from simulator.physics.tray import roll_tray

    if not 1 <= args.count <= 60:
        raise DataError("command line", "--count", "must be between 1 and 60 dice", args.count)
    result = roll_tray(model, args.count, np.random.default_rng(args.seed))
    out = {"die": model.name, "seed": args.seed, "count": args.count, "faces": list(result.faces),
           "rethrows": result.rethrows, "unsettled": result.unsettled, "steps": result.steps,
           "physics": PhysicsSettings().to_json()}
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(f"{args.count} x {model.name} into the tray (seed {args.seed}): "
              f"faces {' '.join(map(str, result.faces))}; {result.rethrows} re-thrown cocked; "
              + (f"{result.unsettled} re-thrown after a throw that never came to rest; "
                 if result.unsettled else "")
              + f"{result.steps} physics steps")
    return 0


PROGRESS_FROM = 200  # scene files with this many dice show a progress bar on stderr


def _load_scene(path: Path, world: Any) -> list[tuple[str, int]]:
    """Place the dice of a scene file: {"dice": [{"name", "die", "face", "yaw_deg", "xy"}]}.
    Each die file named is read once (a thousand dice of one kind: one read, not 1000)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from simulator.physics import PlacementError

    data = parse_json(read_text(path), path)
    dice = data.get("dice") if isinstance(data, dict) else data
    if not isinstance(dice, list):
        raise DataError(path, "dice", "must be a list of placed dice", dice)
    placed = []
    models: dict[str, Any] = {}
    with Progress(TextColumn(f"placing the dice of {path.name}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True),
                  disable=len(dice) < PROGRESS_FROM) as bar:
        task = bar.add_task("place", total=len(dice))
        for i, d in enumerate(dice):
            where = f"dice[{i}]"
            if not isinstance(d, dict):
                raise DataError(path, where, "must be an object", d)
            name = d.get("name", f"die{i}")
            die = d.get("die", "paper-d8")
            model = models.get(die) if isinstance(die, str) else None
            if model is None:
                model = load_die(die)
                if isinstance(die, str):
                    models[die] = model
            face = d.get("face")
            if not isinstance(face, int) or isinstance(face, bool):
                raise DataError(path, f"{where}.face", "must be the face value up", face)
            yaw = d.get("yaw_deg", 0.0)
            xy = d.get("xy")
            if not is_finite_number(yaw):
                raise DataError(path, f"{where}.yaw_deg", "must be a finite number", yaw)
            if (not isinstance(xy, list) or len(xy) != 2
                    or not all(is_finite_number(c) for c in xy)):
                raise DataError(path, f"{where}.xy", "must be [x, y] in m", xy)
            try:
                world.place(str(name), model, face, float(yaw), (float(xy[0]), float(xy[1])))
            except (PlacementError, DataError) as exc:
                raise DataError(path, where, str(exc), show_value=False) from None
            placed.append((str(name), face))
            bar.advance(task)
    return placed


# How a result reads by the die's declared reading (a d4 is read at its top corner).
SHOWN = {"top_face": "face {} up", "bottom_face": "shows {} (the face it lies on)",
         "top_vertex": "shows {} (at its top corner)"}


def _print_summary(out: dict[str, Any], reading: str = "top_face") -> None:
    th, o = out["throw"], out["outcome"]
    speed = float(np.linalg.norm(th["velocity"]))
    spin = float(np.linalg.norm(th["spin"]))
    r = th["release"]
    print(f"{out['die']} thrown by player {out['player']} (seed {out['seed']}): release "
          f"({r[0]:.3f}, {r[1]:.3f}, {r[2]:.3f}) m, speed {speed:.2f} m/s, spin {spin:.1f} rad/s")
    print("foul: " + out["foul_reason"] if out["foul"] else "legal release")
    tilt = out.get("perturbation")
    if tilt and "mirror_normal" in tilt:  # a mirror-symmetric throw (docs/physics.md)
        print(f"thrown in a mirror plane of the die: released tilted {tilt['angle_deg']:.2f} deg "
              "out of the plane, as no hand throws exactly true")
    elif tilt:  # a pure drop: the world broke its symmetry (docs/physics.md)
        print(f"no sideways speed and no spin but about the vertical: released tilted "
              f"{tilt['angle_deg']:.2f} deg about a horizontal axis, as no hand lets go exactly "
              "level")
    x, y, z = o["position"]
    where = "on the table" if o["status"] == "on_table" else f"OFF the table ({o['reason']})"
    shown = SHOWN.get(reading, SHOWN["top_face"]).format(o["face"])
    print(f"rests {where}: {shown} at ({x:.3f}, {y:.3f}) m, yaw {o['yaw_deg']:.1f} deg; "
          f"at rest after {out['sim_time_s']:.2f} s simulated ({out['steps']} steps)")
    if out["disturbed"]:
        for d in out["disturbed"]:
            b, a = d["before"], d["after"]
            moved = float(np.linalg.norm(np.subtract(a["position"], b["position"]))) * 1000
            print(f"disturbed {d['die']}: face {b['face']} -> {a['face']}, moved {moved:.1f} mm, "
                  f"{b['status']} -> {a['status']}" + (f" ({a['reason']})" if a["reason"] else ""))
    else:
        print("disturbed: none")
