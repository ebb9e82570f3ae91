"""The stage a game's window draws on, a part of `GameWindow`: Panda3D's window opened with
the shading asked for, the drawing path that gives (`drawing_path`), and simplepbr's buffer
where that path is physically based shading.

`shading` is how the window draws, the names of `tabletop render --shading`: "software"
(Panda3D's tiny software renderer), "gl" (OpenGL, fixed-function shading), "pbr" (OpenGL
with simplepbr), or "auto": pbr on a hardware GPU, gl on a rasterizer that runs on the CPU
(Mesa's llvmpipe under Xvfb), where simplepbr drew the window at 4-6 frames/s and the
window must hold 30. A path that cannot be had raises RenderPathError.

Panda3D is imported only when a stage is made: importing this module loads nothing heavy.
"""

from __future__ import annotations

from typing import Any

from simulator.render.core.offscreen import (
    PATHS,
    RenderPath,
    RenderPathError,
    configure_panda,
    pbr_package_missing,
    software_rasterizer,
    start_pbr,
)
from simulator.render.core.sound import audio_prc as audio  # the sound library line


class Stage:
    """Panda3D's window (`base`, a ShowBase) and how it draws (`drawn_by`). `scene_output`
    is where the scene is drawn: the window, or simplepbr's buffer that the window shows
    tone-mapped; the close-up inset's regions go there too."""

    def __init__(self, size: tuple[int, int], title: str, shading: str) -> None:
        if shading not in PATHS:
            raise ValueError(f"shading must be one of {', '.join(PATHS)} (got {shading!r})")
        if shading == "pbr":
            why_not = pbr_package_missing()
            if why_not:
                raise RenderPathError(f"physically based shading: {why_not}")
        configure_panda(software=shading == "software")
        from direct.showbase.ShowBase import ShowBase
        from panda3d.core import WindowProperties, loadPrcFileData

        loadPrcFileData("tabletop-window", f"win-size {size[0]} {size[1]}\nwindow-title {title}\n{audio()}")
        self.size = size
        self.base = ShowBase(windowType="onscreen")
        self.base.disableMouse()
        props = WindowProperties()
        props.setTitle(title)
        self.base.win.requestProperties(props)
        self.scene_output: Any = self.base.win
        self.pbr_outputs: list[Any] = []
        try:
            self.drawn_by = drawing_path(self.base, shading)
        except RenderPathError:
            self.base.destroy()
            raise
        if self.drawn_by.name == "pbr":
            self._start_pbr()

    def _start_pbr(self) -> None:
        """simplepbr on the window's scene, stepped by the window's own task manager. It
        draws the scene into a float buffer and the window shows that buffer tone-mapped;
        `scene_output` is that buffer, so regions drawing the scene with other cameras (the
        inset) are tone-mapped with it: drawn straight into the window, simplepbr's shader
        wrote them in linear light (dark) with no tone mapping."""
        base = self.base
        engine = base.graphicsEngine
        before = set(engine.getWindows())
        start_pbr(base.render, base.win, base.cam, base.taskMgr)
        engine.openWindows()  # the buffer simplepbr made is listed once it is open
        self.pbr_outputs = [w for w in engine.getWindows() if w not in before]
        self.scene_output = next(
            w for w in self.pbr_outputs
            if any(r.getCamera() == base.cam for r in w.getDisplayRegions()))

    def win_size(self) -> tuple[int, int]:
        win = self.base.win
        if win is None:
            return self.size
        return (max(1, win.getXSize()), max(1, win.getYSize()))

    def close_buffers(self) -> None:
        """simplepbr's buffers: an OpenGL buffer left open aborts the interpreter at exit."""
        for output in self.pbr_outputs:
            self.base.graphicsEngine.removeWindow(output)
        self.pbr_outputs = []


def drawing_path(base: Any, shading: str) -> RenderPath:
    """The path `shading` asks for, given the window Panda3D opened (module note)."""
    pipe = base.pipe
    interface = str(pipe.getInterfaceName())
    if interface != "OpenGL":
        if shading in ("gl", "pbr"):
            what = "physically based shading needs OpenGL" if shading == "pbr" else "OpenGL"
            raise RenderPathError(f"{what}: the window opened with {interface} "
                                  f"({pipe.getType().getName()})")
        return RenderPath("software", f"Panda3D's software renderer ({interface})")
    if shading == "software":  # p3tinydisplay missing: Panda3D fell back to OpenGL
        raise RenderPathError("the software renderer was asked for, but Panda3D opened the "
                              f"window with OpenGL ({pipe.getType().getName()})")
    renderer = str(base.win.getGsg().getDriverRenderer())
    fixed = f"OpenGL {renderer} with fixed-function shading"
    if shading == "gl":
        return RenderPath("gl", fixed)
    why_not = pbr_package_missing()
    if shading == "auto" and why_not:
        return RenderPath("gl", f"{fixed}; no physically based shading: {why_not}")
    if shading == "auto" and software_rasterizer(renderer):
        return RenderPath("gl", f"{fixed} (a software rasterizer: physically based shading "
                                "drew 4-6 frames/s there; --shading pbr asks for it)")
    return RenderPath("pbr", f"OpenGL {renderer} with physically based shading (simplepbr)")
