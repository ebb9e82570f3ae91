"""render/ by part (issue 35, item 5): the core names no game's table, and the two tables
(Deep White Sea's, the d6 games') stand side by side on it, neither importing the other.
Every import counts, a function's too, read from the source (nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RENDER = Path(__file__).resolve().parents[1] / "simulator" / "render"
TABLES = ("deep_white_sea", "d6")


def _imports(package: str) -> dict[str, set[str]]:
    """file -> the simulator.render modules it imports."""
    out: dict[str, set[str]] = {}
    for path in sorted((RENDER / package).glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[path.name] = {n for n in names if n.startswith("simulator.render.")}
    return out


@pytest.mark.parametrize("package", ["core", *TABLES])
def test_a_part_imports_only_the_core_and_itself(package: str) -> None:
    allowed = {"simulator.render.core", f"simulator.render.{package}"}
    found = _imports(package)
    assert found, package
    bad = {f: sorted(n for n in names if ".".join(n.split(".")[:3]) not in allowed)
           for f, names in found.items()}
    assert not any(bad.values()), {f: n for f, n in bad.items() if n}


def test_each_game_window_lies_in_a_table_package() -> None:
    from simulator.render import window_games, window_module_name

    games = window_games()
    assert len(games) >= 5
    for game in games:
        assert window_module_name(game).split(".")[2] in TABLES, game


def test_every_key_calls_a_method_of_the_window_or_of_one_of_its_parts() -> None:
    """A binding names a window method, or a part's ("views.zoom_in"): each one is there."""
    import importlib

    from simulator.render import window_games, window_module_name
    from simulator.render.core.feel import Feel
    from simulator.render.core.views import Views
    from simulator.render.core.window import COMMON_BINDINGS
    from simulator.render.deep_white_sea.aim import ThrowAim

    parts = {"views": Views, "feel": Feel, "aim": ThrowAim}
    for game in window_games():
        app = importlib.import_module(window_module_name(game)).App
        for b in (*COMMON_BINDINGS, *app.GAME_BINDINGS):
            *part, name = b.method.split(".")
            owner = parts[part[0]] if part else app
            assert callable(getattr(owner, name, None)), (game, b.method)


def test_no_module_of_render_imports_itself_back_through_others() -> None:
    """No import loop inside render/ (a function's import counts too): a loop was the d6
    picture importing the window's helpers while the window imported the picture."""
    graph: dict[str, set[str]] = {}
    for package in ("core", *TABLES):
        for name, names in _imports(package).items():
            graph[f"simulator.render.{package}.{name[:-3]}"] = names
    loops = []

    def walk(module: str, path: list[str]) -> None:
        for dep in sorted(graph.get(module, ())):
            if dep == path[0]:
                loops.append(" -> ".join([*path, dep]))
            elif dep not in path and dep > path[0]:  # each loop once, from its least module
                walk(dep, [*path, dep])

    for module in sorted(graph):
        walk(module, [module])
    assert loops == []
