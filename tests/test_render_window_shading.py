"""How the window draws (`tabletop play --shading`, `tabletop replay --view --shading`):
physically based shading (simplepbr) where it can be had at a usable speed, fixed-function
OpenGL on a software rasterizer (Mesa's llvmpipe under Xvfb: simplepbr drew 4-8 frames/s,
issue 14 item 5 asks for 30), Panda3D's software renderer on request. The windows run in
processes of their own (`tests/window_shading_script.py`) under Xvfb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("window_shading_script.py")
ROOT = SCRIPT.parent.parent


def _run(display: str, *args: str) -> tuple[dict, str]:
    env = {**os.environ, "DISPLAY": display}
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], env=env, capture_output=True,
                          text=True, timeout=240, cwd=str(ROOT))
    if proc.returncode != 0 and "Could not open window" in proc.stderr:
        pytest.skip("Xvfb runs but Panda3D cannot open an OpenGL window on it")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stdout


@pytest.mark.display
def test_a_pbr_window_draws_die_and_felt_as_tabletop_render_pbr_does_inset_included(
        xvfb_display, tmp_path) -> None:
    """The window opened with --shading pbr and `tabletop render --shading pbr`'s renderer
    draw the same Diced table from the same cameras (the main view framing the last roll,
    and the inset's first cell): the mean colours round the die and on the tray's felt
    agree. Drawn straight into the window, the inset came out in linear light without tone
    mapping: its felt (8, 13, 10) against (41, 62, 51), its yellow die (116, 76, 10) against
    (158, 141, 52)."""
    pytest.importorskip("simplepbr")
    shown, stdout = _run(xvfb_display, "window", "diced", "pbr", str(tmp_path / "w.png"))
    assert shown["path"] == "pbr" and "physically based" in shown["detail"]
    assert stdout.startswith("drawn by: OpenGL") and "simplepbr" in stdout.splitlines()[0]
    assert "inset" in shown, "no close-up inset of the roll"
    views = tmp_path / "views.json"
    views.write_text(json.dumps(shown))
    drawn, _ = _run(xvfb_display, "picture", "diced", str(views))
    assert "physically based" in drawn["detail"]
    for view in ("main", "inset"):
        for spot, window_rgb in shown[view]["patches"].items():
            picture_rgb = drawn[view][spot]
            diff = np.abs(np.subtract(window_rgb, picture_rgb)).max()
            assert diff <= 12, (view, spot, window_rgb, picture_rgb)
        r, g, b = drawn[view]["felt"]
        assert g > r + 10 and g > b, (view, "the felt spot is not felt", drawn[view]["felt"])
        r, g, b = drawn[view]["die"]
        assert r > 120 and g > 100 and b < 80, (view, "the die spot is not a yellow die")


@pytest.mark.display
@pytest.mark.parametrize("shading, path", [("auto", "gl"), ("software", "software")])
def test_auto_draws_the_window_fixed_function_on_llvmpipe(xvfb_display, tmp_path, shading,
                                                          path) -> None:
    """Under Xvfb OpenGL is Mesa drawing on the CPU: auto keeps the fixed-function window
    (its frame rate), and says so in the line the window prints when it opens; software is
    Panda3D's own renderer."""
    from simulator.render.core.offscreen import software_rasterizer

    shown, stdout = _run(xvfb_display, "window", "diced", shading, str(tmp_path / "w.png"))
    first = stdout.splitlines()[0]
    assert first == f"drawn by: {shown['detail']}"
    if shading == "auto" and not software_rasterizer(shown["detail"]):
        pytest.skip(f"this display's OpenGL is a GPU: {shown['detail']}")
    assert shown["path"] == path, shown["detail"]
    if shading == "auto":
        assert "fixed-function" in shown["detail"] and "software rasterizer" in shown["detail"]
    # The close-up shows the roll's lone die from straight above: framed as a group, 62 deg
    # down, the tray's near wall hid it in this state (the patch at the die: the wall's
    # brown, about (110, 70, 40)).
    r, g, b = shown["inset"]["patches"]["die"]
    assert shown["inset"]["camera"]["pitch"] < -89 and r > 120 and g > 100 and b < 80, shown["inset"]
    # The main view, framing the roll, looks at the die through the near wall: see-through
    # (TRAY_WALL_ALPHA), it shows the die's yellow. The fixed-function path drew the walls
    # opaque while the tray was merged with the rest of the table: the wall's (110, 66, 35).
    r, g, b = shown["main"]["patches"]["die"]
    assert r > 150 and g > 110 and b < 80, shown["main"]


def test_a_renderer_string_names_a_software_rasterizer_or_a_gpu() -> None:
    from simulator.render.core.offscreen import software_rasterizer

    assert software_rasterizer("llvmpipe (LLVM 15.0.6, 256 bits)")
    assert software_rasterizer("softpipe")
    assert software_rasterizer("Mesa X11 swrast")
    assert software_rasterizer("Google SwiftShader")
    assert not software_rasterizer("NVIDIA GeForce RTX 3080/PCIe/SSE2")
    assert not software_rasterizer("AMD Radeon RX 6800 (radeonsi, navi21, LLVM 15.0.6)")
    assert not software_rasterizer("Mesa Intel(R) UHD Graphics 620 (KBL GT2)")


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def getName(self) -> str:  # noqa: N802 (Panda3D's name)
        return self.name


class _FakeBase:
    """What stage.drawing_path reads of a ShowBase: its pipe and its window's GSG."""

    def __init__(self, interface: str, renderer: str) -> None:
        self.pipe = self
        self.win = self
        self._interface, self._renderer = interface, renderer

    def getInterfaceName(self) -> str:  # noqa: N802
        return self._interface

    def getType(self) -> _Named:  # noqa: N802
        return _Named("glxGraphicsPipe" if self._interface == "OpenGL" else "TinyXGraphicsPipe")

    def getGsg(self) -> _FakeBase:  # noqa: N802
        return self

    def getDriverRenderer(self) -> str:  # noqa: N802
        return self._renderer


@pytest.mark.parametrize(("interface", "renderer", "shading", "expected"), [
    ("OpenGL", "llvmpipe (LLVM 15.0.6, 256 bits)", "auto", "gl"),
    ("OpenGL", "llvmpipe (LLVM 15.0.6, 256 bits)", "gl", "gl"),
    ("OpenGL", "llvmpipe (LLVM 15.0.6, 256 bits)", "pbr", "pbr"),
    ("OpenGL", "llvmpipe (LLVM 15.0.6, 256 bits)", "software", "error"),
    ("OpenGL", "NVIDIA GeForce RTX 3080/PCIe/SSE2", "auto", "pbr"),
    ("TinyPanda", "", "auto", "software"),
    ("TinyPanda", "", "software", "software"),
    ("TinyPanda", "", "gl", "error"),
    ("TinyPanda", "", "pbr", "error"),
])
def test_the_window_draws_with_the_path_asked_for_or_says_it_cannot(interface, renderer, shading,
                                                                     expected) -> None:
    """Each --shading against each pipe Panda3D may open: never another path than the one
    asked for (software asked for and OpenGL opened, when p3tinydisplay is missing, once came
    back as pbr), auto by the renderer."""
    pytest.importorskip("simplepbr")
    from simulator.render.core.offscreen import RenderPathError
    from simulator.render.core.stage import drawing_path

    base = _FakeBase(interface, renderer)
    if expected == "error":
        with pytest.raises(RenderPathError):
            drawing_path(base, shading)
    else:
        assert drawing_path(base, shading).name == expected


@pytest.mark.parametrize("argv", [["play", "diced"], ["play", "deep-white-sea"]])
def test_pbr_without_the_simplepbr_package_is_one_line(argv, monkeypatch, capsys) -> None:
    from simulator.cli.main import main

    monkeypatch.setitem(sys.modules, "simplepbr", None)  # find_spec: not installed
    assert main([*argv, "--shading", "pbr"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--shading pbr" in err and "panda3d-simplepbr" in err


def test_pbr_without_a_display_is_one_line(monkeypatch, capsys, tmp_path) -> None:
    pytest.importorskip("simplepbr")
    from simulator.cli.main import main

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play", "diced", "--shading", "pbr"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--shading pbr" in err and "display" in err
    log = tmp_path / "game.jsonl"
    assert main(["play", "diced", "--headless", "--players", "random,random,random",
                 "--log", str(log), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["replay", str(log), "--view", "--shading", "pbr"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--shading pbr" in err and "display" in err


def test_the_command_lines_shading_names_are_the_renderers() -> None:
    from simulator.cli.args import SHADINGS
    from simulator.render.core.offscreen import PATHS

    assert SHADINGS == PATHS
