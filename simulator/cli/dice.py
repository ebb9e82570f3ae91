"""`tabletop dice`: the Deep White Sea crews: list, show, face art, paper nets, check a file."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dice_models import DataError, DieModel, available, load_die, parse_die, read_yaml
from dice_models.crews import all_dice, find_die, parse_crew
from dice_models.files import is_file
from dice_models.mesh import SUFFIXES, UNITS
from dice_models.outfiles import check_target, ensure_dir
from dice_models.shapes import polyhedron_of


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "dice", help="Deep White Sea crew dice: list, show, art, net, check",
        description="The project's Deep White Sea crews (dice_models/crews/). Dice are named "
                    "by their full name (quote it) or its slug, e.g. warden-ilse-varga.")
    dsub = p.add_subparsers(dest="dice_command", metavar="ACTION")
    dsub.required = True

    q = dsub.add_parser("list", help="every die with team, class and points")
    q.add_argument("--json", action="store_true", help="print a JSON list of objects")
    q.set_defaults(func=run_list)

    q = dsub.add_parser("show", help="the eight sides of a die as a table")
    q.add_argument("name", help="die name or slug")
    q.add_argument("--json", action="store_true", help="print the whole die as JSON")
    q.set_defaults(func=run_show)

    q = dsub.add_parser("art", help="write the eight face images (PNG) of a die")
    q.add_argument("name", help="die name or slug")
    q.add_argument("--out", type=Path, required=True, help="output folder")
    q.add_argument("--size", type=int, default=512, help="image size in pixels (default 512)")
    q.set_defaults(func=run_art)

    q = dsub.add_parser("net", help="write a printable paper net of a die, true scale")
    q.add_argument("name", help="crew die name or slug, or a physics die (a shipped name "
                   "such as d20, or a die YAML file): any convex die")
    q.add_argument("--out", type=Path, required=True,
                   help="output file: .svg, .pdf (300 dpi) or .png (300 dpi); .svg for a "
                        "physics die")
    q.add_argument("--paper", choices=("a4", "letter"), default="a4", help="page size")
    q.set_defaults(func=run_net)

    q = dsub.add_parser("faces", help="draw a die (a mesh file or die YAML) with each found "
                        "face's index, to write its values in order")
    q.add_argument("file", help="a mesh (.stl, .obj, .gltf, .glb), a die YAML or a shipped "
                   "die name")
    q.add_argument("--out", type=Path, required=True, help="output PNG")
    q.add_argument("--units", choices=tuple(UNITS), default="mm",
                   help="the mesh file's length unit (default mm)")
    q.set_defaults(func=run_faces)

    q = dsub.add_parser("check", help="validate a crew, crew die or physics die YAML file of "
                        "your own")
    q.add_argument("file", type=Path)
    q.set_defaults(func=run_check)


def run_list(args: argparse.Namespace) -> int:
    dice = all_dice()
    if args.json:
        print(json.dumps([d.to_json() for d in dice], indent=2))
        return 0
    rows = [("name", "team", "class", "points")]
    rows += [(d.name, d.team, d.die_class, str(d.points)) for d in dice]
    _print_table(rows, right={3})
    return 0


def run_show(args: argparse.Namespace) -> int:
    die = find_die(args.name)
    if args.json:
        print(json.dumps(die.to_full_json(), indent=2))
        return 0
    print(f"{die.name}: {die.team}, {die.die_class}, {die.points} points "
          f"({die.geometry}, edge {die.edge * 1000:.0f} mm; {die.source})")
    from simulator.render.deep_white_sea.dice_card import side_rows  # the window's inspect view's words too

    _print_table(side_rows(die), right={0})
    print("Corners are read with the side number upright; on the die, top is the corner on "
          "the z axis.")
    return 0


def run_art(args: argparse.Namespace) -> int:
    from simulator.art.faces import write_die_art
    from simulator.cli.main import UsageError

    if not 64 <= args.size <= 4096:
        raise UsageError(f"--size must be 64..4096 pixels (got {args.size})")
    die = find_die(args.name)
    paths = write_die_art(die, args.out, args.size)
    for path in paths:
        print(path)
    return 0


def run_net(args: argparse.Namespace) -> int:
    from simulator.art.net import write_net
    from simulator.cli.main import UsageError

    if args.out.suffix.lower() not in (".svg", ".pdf", ".png"):
        raise UsageError(f"--out must end in .svg, .pdf or .png (got {str(args.out)!r})")
    model = _physics_die(args.name)
    if model is not None:
        return _physics_net(args, model)
    die = find_die(args.name)
    ensure_dir(args.out.parent, "--out")
    path = write_net(die, args.out, args.paper)
    print(f"{path}: {die.name}, two halves with tabs A-F, edge {die.edge * 1000:.0f} mm, "
          f"{args.paper} paper; print at 100%")
    return 0


def run_faces(args: argparse.Namespace) -> int:
    from simulator.art.faceindex import write_face_index

    text = str(args.file)
    if Path(text).suffix.lower() in SUFFIXES:
        data = {"name": Path(text).stem, "geometry": {"kind": "mesh", "file": text,
                                                       "units": args.units},
                "mass": 0.001, "reading": "bottom_face"}
        model = parse_die(data, text, Path.cwd())
    else:
        found = _physics_die(text)
        if found is None:
            raise DataError(text, "file", "is neither a mesh (.stl, .obj, .gltf, .glb) nor a "
                            "physics die", show_value=False)
        model = found
    check_target(args.out, "--out")
    poly = polyhedron_of(model.geometry, model.source)
    write_face_index(poly, args.out, f"{model.name}: {poly.n_faces} faces, by index "
                     "(list values in this order)")
    print(f"{args.out}: {model.name}, {poly.n_faces} faces numbered 0..{poly.n_faces - 1}")
    return 0


def _physics_net(args: argparse.Namespace, model: DieModel) -> int:
    from simulator.art.polynet import build_polynet, write_polynet
    from simulator.cli.main import UsageError
    from simulator.physics import die_shape

    if args.out.suffix.lower() != ".svg":
        raise UsageError(f"--out must end in .svg for a physics die (got {str(args.out)!r})")
    shape = die_shape(model)
    try:
        net = build_polynet(shape.poly, shape.values, model.name, args.paper,
                            corner_values=shape.corner_values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    ensure_dir(args.out.parent, "--out")
    pieces = len({f.piece for f in net.faces})
    joins = len(net.joins) // 2
    write_polynet(net, args.out, f"{shape.poly.n_faces} faces, true scale; print at 100%. Cut "
                  "solid lines, fold dashed lines printed side out; glue each tab under its "
                  "letter.")
    print(f"{args.out}: {model.name}, {shape.poly.n_faces} faces in {pieces} "
          f"piece{'s' if pieces > 1 else ''}, {joins} joins, {args.paper} paper; print at 100%")
    return 0


def _physics_die(name: str) -> DieModel | None:
    """The physics die a name or YAML file names, or None when it names a crew die."""
    if name in available():
        return load_die(name)
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and is_file(path):
        data = read_yaml(path)
        if _is_physics_die(data):
            return parse_die(data, name, path.parent)
    return None


def _is_physics_die(data: object) -> bool:
    """A physics die model (dice_models/dice/*.yaml: geometry and mass), not a crew die."""
    return isinstance(data, dict) and isinstance(data.get("geometry"), dict) and not (
        {"team", "dice"} & data.keys())


def run_check(args: argparse.Namespace) -> int:
    data = read_yaml(args.file)
    if _is_physics_die(data):
        # A physics die model (dice_models/dice/*.yaml: geometry and mass), not a crew die:
        # checking it as a crew answered "team: must name the team".
        model = parse_die(data, str(args.file), args.file.parent)  # a mesh beside the file
        print(f"{args.file}: ok: physics die {model.name}: {model.geometry['kind']}, "
              f"{model.mass * 1000:g} g, {model.mass_model}")
        return 0
    crew = parse_crew(data, str(args.file))
    names = ", ".join(d.name for d in crew.dice)
    print(f"{args.file}: ok: {len(crew.dice)} {'die' if len(crew.dice) == 1 else 'dice'} "
          f"of team {crew.team}: {names}")
    return 0


def _print_table(rows: Sequence[tuple[str, ...]],
                 right: set[int] | frozenset[int] = frozenset()) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print("  ".join(cells).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))
