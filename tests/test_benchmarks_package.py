"""benchmarks/ is a package run as `python -m benchmarks.<name>` from the checkout: no
script edits `sys.path` to find its neighbours (issue 16, item 6), every script imports
cleanly as a module, and no test imports a benchmark script (what tests share with a
benchmark lives in the library: simulator.bench.stuck, simulator.cli.fuzz,
rules.diced.best_response)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if p.name != "__init__.py")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_a_benchmark_does_not_edit_sys_path(path: Path) -> None:
    edits = [node.lineno for node in ast.walk(_tree(path))
             if isinstance(node, ast.Attribute) and node.attr == "path"
             and isinstance(node.value, ast.Name) and node.value.id == "sys"]
    assert edits == [], f"{path.name}: sys.path at lines {edits}"
    assert "noqa: E402" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_a_benchmark_imports_as_a_module(path: Path) -> None:
    module = importlib.import_module(f"benchmarks.{path.stem}")
    assert module.__doc__, f"{path.name}: say what it measures and how to run it"


def test_no_test_imports_a_benchmark_script() -> None:
    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(_tree(path)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}:{node.lineno}" for n in names
                      if n == "benchmarks" or n.startswith("benchmarks.")]
    assert found == []
