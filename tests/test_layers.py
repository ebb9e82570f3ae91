"""The layers of DESIGN.md and ARCHITECTURE.md, enforced: every module's imports (read with
the AST, function-level imports included) point down or within its own package, never up
or across. Rule engines never import PyBullet or Panda3D, and no SciPy when they load; the
physics sees only `rules.core` of the rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dice_models", "rules", "simulator", "benchmarks")

# Each of our packages and its height: an import must go to a lower one or stay within the
# package. Packages on one height (the lab, the bench suite, the art) do not import each
# other, except those DESIGN.md puts in one layer (SAME_LAYER). A new package under
# simulator/ has to be placed here.
LAYERS: dict[str, float] = {
    "simulator": 0,  # the package root: its docstring and nothing else
    "dice_models": 0,
    "rules": 1,
    "simulator.physics": 2,
    "simulator.physics_table": 3,  # the rules' Table protocol on the physics world
    "simulator.plugins": 3.5,  # what the simulator plugs into the rules, loaded in one place
    "simulator.experiments": 4,
    "simulator.bench": 4,
    "simulator.art": 4,
    "simulator.ai": 4.5,  # game-AI adapters over the engines, the physics and the lab
    "simulator.render": 5,
    "simulator.net": 5.5,  # the table server and its clients; the command sits above them
    "simulator.cli": 6,
    "benchmarks": 7,
}
SAME_LAYER = (
    {"simulator.experiments", "simulator.bench"},  # DESIGN.md: the lab and the bench, one layer
)
NEVER_IN_RULES = ("pybullet", "panda3d", "direct", "simplepbr")


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "simulator" and len(parts) > 1 else parts[0]


def _modules() -> list[tuple[str, Path]]:
    out = []
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out.append((name.removesuffix(".__init__"), path))
    return out


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, module, at module level) of every absolute import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top_level = {id(n) for n in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, id(node) in top_level) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module, id(node) in top_level))
    return found


MODULES = _modules()


def _upward(module: str, path: Path) -> list[str]:
    """The imports of `module` (at `path`) that point up or across the layers."""
    here = _package(module)
    wrong = []
    for line, target, _top in _imports(path):
        if target.split(".")[0] not in PACKAGES:
            continue
        there = _package(target)
        if there == here or target == "simulator" or any({here, there} <= g for g in SAME_LAYER):
            continue
        if there not in LAYERS or LAYERS[there] >= LAYERS[here]:
            wrong.append(f"line {line}: {target} ({there} is not below {here})")
        elif here == "simulator.physics" and there == "rules" and not target.startswith("rules.core"):
            wrong.append(f"line {line}: {target} (the physics sees only rules.core's types)")
    return wrong


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_point_down(module: str, path: Path) -> None:
    assert _package(module) in LAYERS, \
        f"{module}: place package {_package(module)} in tests/test_layers.py LAYERS"
    wrong = _upward(module, path)
    assert wrong == [], f"{path.relative_to(ROOT)}: " + "; ".join(wrong)


@pytest.mark.parametrize(("module", "path"), [(m, p) for m, p in MODULES if m.startswith("rules")],
                         ids=[m for m, _ in MODULES if m.startswith("rules")])
def test_rules_never_load_the_physics_the_window_or_scipy(module: str, path: Path) -> None:
    wrong = [f"line {line}: {target}" for line, target, top in _imports(path)
             if target.split(".")[0] in NEVER_IN_RULES
             or (top and target.split(".")[0] == "scipy")]
    assert wrong == [], f"{path.relative_to(ROOT)}: " + "; ".join(wrong)


def test_an_upward_or_sideways_import_is_caught(tmp_path: Path) -> None:
    """The check itself, on made-up modules: a rule engine importing the physics inside a
    function, the lab importing the face art, the physics importing a game."""
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\nfrom rules.core import RulesError\n\n\ndef f():\n"
                   "    from simulator.physics import World\n    return World\n")
    assert _upward("rules.diced.fake", bad) == [
        "line 6: simulator.physics (simulator.physics is not below rules)"]
    bad.write_text("from simulator.art.faces import render_side\n")
    assert len(_upward("simulator.experiments.fake", bad)) == 1
    bad.write_text("from rules.diced.game import DicedState\nfrom rules.core import Table\n")
    assert _upward("simulator.physics.fake", bad) == [
        "line 1: rules.diced.game (the physics sees only rules.core's types)"]


# Classes that share a name on purpose: each game's own bots and each d6 table's window
# module plug in under one name (the registry and GameWindow look them up by it).
SAME_NAME_BY_DESIGN = {"GreedyBot", "RandomBot", "HumanPlayer", "App"}


def test_one_class_per_name() -> None:
    """Issue 16: one value type per concept. A second class of one name (the physics'
    `Outcome` beside the rules' `DiePose`, two `Outcome`s, two `PoseT`s, the server's and the
    client's `Client`) is a second type for one idea, converted field by field where the
    layers meet."""
    seen: dict[str, list[str]] = {}
    for module, path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in tree.body:
            names = []
            if isinstance(node, ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id] if node.target.id[:1].isupper() and \
                    node.target.id[1:2].islower() else []
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)
                         and t.id[:1].isupper() and t.id[1:2].islower()]
            for name in names:
                seen.setdefault(name, []).append(module)
    twice = {n: ms for n, ms in seen.items() if len(ms) > 1 and n not in SAME_NAME_BY_DESIGN}
    assert twice == {}


def test_the_physics_speaks_the_rules_types() -> None:
    """The physics throws the rules' `ThrowSpec` and reports `DiePose`s; its reports are the
    rules' results with more fields, not parallel classes."""
    from dice_models import load_die
    from rules.core.protocols import DiePose, ThrowResult, ThrowSpec, TipResult
    from simulator.physics import ThrowReport, TipReport, World
    from simulator.physics.settings import TableSpec

    assert issubclass(ThrowReport, ThrowResult) and issubclass(TipReport, TipResult)
    world = World(TableSpec())
    report = world.throw("d", load_die("paper-d8"),
                         ThrowSpec((0.0, -0.8, 0.4), (0.0, 1.5, 0.5), (3.0, 1.0, 0.0)))
    assert type(report.outcome) is DiePose and type(report.throw) is ThrowSpec
    assert all(type(p) is DiePose for p in world.snapshot())


def test_every_game_package_has_the_same_layout() -> None:
    """Issue 16, item 2: every game is `game.py` (the state and its rules), `bots.py` (its
    judgement for bots: heuristic, greedy, its own players), `README.md` (the rules as
    implemented, every decision) and an `__init__.py` plug-in surface that takes the bots'
    functions from `bots.py`, not from the engine."""
    import importlib

    from rules.registry import GAMES

    for spec in GAMES.values():
        folder = ROOT / Path(*spec.package.split("."))
        assert {"game.py", "bots.py", "README.md", "__init__.py"} <= {
            p.name for p in folder.iterdir()}, spec.package
        package = importlib.import_module(spec.package)
        bots = importlib.import_module(f"{spec.package}.bots")
        for name in ("heuristic", "greedy_action"):
            assert getattr(package, name) is getattr(bots, name), (spec.package, name)
        assert not hasattr(importlib.import_module(f"{spec.package}.game"), "heuristic")


def test_rules_name_no_simulator_module_not_even_as_a_string() -> None:
    """Issue 35: the rules ask for a table or roller by kind; what provides it is registered
    from above (`simulator.plugins`), so no rules module names a simulator module."""
    named = [str(path.relative_to(ROOT)) for module, path in MODULES
             if module.startswith("rules") and "simulator." in path.read_text(encoding="utf-8")]
    assert named == []
