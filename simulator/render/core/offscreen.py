"""Offscreen pictures of the table, drawn one of two ways (`OffscreenRenderer.path`):

- "pbr": OpenGL (a desktop, or Xvfb with Mesa) with physically based shading by
  panda3d-simplepbr: linear-light colours, a tone-mapped picture, textured felt, wood and
  paper. Chosen whenever an X display answers and the simplepbr package is installed.
- "gl": OpenGL with Panda3D's fixed-function shading, as the window draws where physically
  based shading would be too slow (`benchmarks/bench_render.py` measures both).
- "software": Panda3D's tiny software renderer (p3tinydisplay): no display and no GPU
  needed, so `tabletop render`, tests and CI always have a picture.

One `OffscreenRenderer` owns a Panda3D graphics engine, an offscreen buffer and a camera;
`TableScene`s are attached to it and drawn to numpy arrays or PNG files.

Shadows are the scene's planar shadows in both paths. simplepbr's shadow maps are left off:
Mesa 22.3's llvmpipe (LLVM 15) crashes compiling simplepbr's shadow-map shader (a
segmentation fault inside LLVM's EarlyCSE pass, seen here on Debian 12), and that is the
OpenGL that Xvfb gives CI.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulator.render.core.camera import OrbitCamera

_CONFIGURED = False
BACKGROUND = (0.16, 0.15, 0.14, 1.0)
PATHS = ("auto", "pbr", "gl", "software")
# simplepbr's exposure (stops). At 0 the felt comes out (37, 90, 58) against its sRGB colour
# (28, 92, 56) and a red die (189, 39, 40) against (230, 30, 30); at +1 stop the same die
# paled to (216, 67, 69) and the felt to (64, 130, 93): washed out.
PBR_EXPOSURE = 0.0


class RenderPathError(RuntimeError):
    """The drawing path asked for cannot be had here (no display for OpenGL, no simplepbr)."""


@dataclass(frozen=True)
class RenderPath:
    """Which way pictures are drawn and, in words, why (`tabletop render` prints it)."""

    name: str  # "pbr" or "software"
    detail: str


def configure_panda(software: bool = True) -> None:
    """Panda3D settings every renderer here shares; must run before the first Panda3D
    window or buffer is made. `software` loads the tiny software renderer first."""
    global _CONFIGURED
    if _CONFIGURED:
        return
    from panda3d.core import loadPrcFileData

    lines = [
        "audio-library-name null",
        "sync-video false",
        "notify-level-x11display fatal",  # the software pipe probes X first: not an error
        "notify-level-device fatal",  # no /dev/input in containers
        "notify-level-glxdisplay fatal",
        "notify-level-display error",
        "print-pipe-types false",  # 'Known pipe types' at every start is not news
        "notify-level-ShowBase error",  # a window that cannot open is said in one line
        "textures-power-2 up",
        "framebuffer-multisample false",
        "window-title tabletop",
        "screenshot-extension png",
    ]
    if software:
        lines.insert(0, "load-display p3tinydisplay")
    else:
        lines.insert(0, "load-display pandagl")
    loadPrcFileData("tabletop", "\n".join(lines))
    _CONFIGURED = True


class OffscreenRenderer:
    """An offscreen buffer of `size` pixels (width, height) with one camera, drawn by the
    `shading` path asked for: "pbr", "software", or "auto" (pbr where it can be had)."""

    def __init__(self, size: tuple[int, int] = (1280, 720), shading: str = "auto") -> None:
        if shading not in PATHS:
            raise ValueError(f"shading must be one of {', '.join(PATHS)} (got {shading!r})")
        configure_panda(software=True)
        from panda3d.core import (
            Camera,
            GraphicsEngine,
            GraphicsPipeSelection,
            NodePath,
            PerspectiveLens,
        )

        self.size = size
        self.engine = GraphicsEngine.getGlobalPtr()
        selection = GraphicsPipeSelection.getGlobalPtr()
        self.buffer: Any = None
        why_not = ""
        if shading in ("auto", "pbr", "gl"):
            why_not = pbr_unavailable() if shading != "gl" else gl_unavailable()
            if not why_not:
                self.pipe = _gl_pipe()
                self.buffer = self._make_buffer("tabletop-offscreen-gl")
                if self.buffer is None:
                    why_not = "OpenGL could not make an offscreen buffer"
            if why_not and shading == "pbr":
                raise RenderPathError(f"physically based shading needs OpenGL: {why_not}")
            if why_not and shading == "gl":
                raise RenderPathError(f"OpenGL: {why_not}")
        if self.buffer is None:
            self.pipe = _software_pipe(selection)
            self.buffer = self._make_buffer("tabletop-offscreen")
            if self.buffer is None:
                raise RuntimeError("Panda3D could not make a software offscreen buffer")
        self.buffer.setClearColor(BACKGROUND)
        self.root = NodePath("offscreen-root")
        self.lens = PerspectiveLens()
        self.lens.setNearFar(0.02, 30.0)
        self.lens.setAspectRatio(size[0] / size[1])
        cam = Camera("offscreen-camera")
        cam.setLens(self.lens)
        self.camera = self.root.attachNewNode(cam)
        region = self.buffer.makeDisplayRegion()
        region.setCamera(self.camera)
        # One pixel of the buffer, without a camera (nothing drawn there): reading it back
        # is how `draw` waits for the frame (see there).
        self._probe = self.buffer.makeDisplayRegion(0, 1 / size[0], 0, 1 / size[1])
        self._tasks: object | None = None
        self._outputs: list[Any] = []
        self._scene: object | None = None
        if why_not or self.pipe.getInterfaceName() != "OpenGL":
            self.path = RenderPath("software", "Panda3D's software renderer (p3tinydisplay)"
                                   + (f"; no physically based shading: {why_not}"
                                      if shading == "auto" and why_not else ""))
        else:
            self.engine.openWindows()
            gsg = self.buffer.getGsg()
            if shading == "gl":
                self.path = RenderPath("gl", "OpenGL " + str(gsg.getDriverRenderer())
                                       + " with fixed-function shading")
            else:
                before = set(self.engine.getWindows())
                self._tasks = start_pbr(self.root, self.buffer, self.camera)
                # simplepbr's filter buffers: this renderer's to close with it.
                self._outputs = [w for w in self.engine.getWindows() if w not in before]
                self.path = RenderPath("pbr", "OpenGL " + str(gsg.getDriverRenderer())
                                       + " with physically based shading (simplepbr)")

    @property
    def pbr(self) -> bool:
        return self.path.name == "pbr"

    def _make_buffer(self, name: str) -> Any:
        from panda3d.core import FrameBufferProperties, GraphicsPipe, WindowProperties

        fb = FrameBufferProperties()
        fb.setRgbColor(True)
        fb.setDepthBits(24)
        fb.setAlphaBits(0)
        props = WindowProperties.size(*self.size)
        return self.engine.makeOutput(self.pipe, name, 0, fb, props,
                                      GraphicsPipe.BF_refuse_window)

    def show(self, scene_root: object) -> None:
        """Draw this scene (a `TableScene.root`) from now on: its fixed geometry merged
        (`TableScene.flatten_static`) and, drawn with physically based shading, in
        linear-light colours (`TableScene.use_pbr`)."""
        from panda3d.core import NodePath

        assert isinstance(scene_root, NodePath)
        self.root.getChildren().detach()
        self.camera.reparentTo(self.root)
        scene = scene_root.getPythonTag("table-scene") if scene_root.hasPythonTag("table-scene") \
            else None
        if scene is not None:
            scene.flatten_static()
        if self.pbr and scene is not None:
            scene.use_pbr()
        scene_root.reparentTo(self.root)

    def set_camera(self, cam: OrbitCamera) -> None:
        apply_camera(self.camera, self.lens, cam, self.size)

    def draw(self) -> None:
        """Draw one frame and wait until it is drawn, reading back one pixel of it (what a
        window's buffer swap does). Without that read-back, Mesa's llvmpipe never drew an
        offscreen frame: it put off the work until the buffer was needed and dropped it when
        the next frame cleared the buffer, so timing frames timed only their set-up (D-Day's
        table 2 ms a frame; 35-48 ms with the pixel read)."""
        if self._tasks is not None:
            self._tasks.step()  # type: ignore[attr-defined]  # simplepbr's per-frame inputs
        self.engine.renderFrame()
        self.engine.syncFrame()
        if self._probe.getScreenshot() is None:
            raise RuntimeError("Panda3D could not read back the offscreen buffer")
        if self._tasks is not None:
            from panda3d.core import ATS_up, Texture

            # simplepbr lets textures be any size for the whole process; its buffers are
            # made by the first frame, and the software renderer needs powers of two.
            Texture.setTexturesPower2(ATS_up)

    def render(self) -> np.ndarray:
        """Draw one frame; the picture as an (h, w, 3) uint8 array, row 0 at the top."""
        self.draw()
        tex = self.buffer.getScreenshot()
        if tex is None:
            raise RuntimeError("Panda3D returned no picture from the offscreen buffer")
        return texture_to_array(tex)

    def save(self, path: str | Path) -> np.ndarray:
        from PIL import Image

        from dice_models.outfiles import write_with

        pixels = self.render()
        write_with(path, Image.fromarray(pixels).save, "picture")
        return pixels

    def close(self) -> None:
        # An OpenGL buffer left open aborts the interpreter at exit (a mutex assertion in
        # Panda3D), so simplepbr's filter buffers go too.
        for output in self._outputs:
            self.engine.removeWindow(output)
        self.engine.removeWindow(self.buffer)


INSET_FRACTION = 1 / 3  # of the picture's width and height: the close-up of the last roll
INSET_MARGIN = 12  # px from the picture's bottom-right corner
INSET_FRAME = (245, 242, 230)


def inset_box(size: tuple[int, int]) -> tuple[int, int, int, int]:
    """(left, top, width, height) in pixels of the close-up inset in a picture of `size`."""
    w, h = round(size[0] * INSET_FRACTION), round(size[1] * INSET_FRACTION)
    return size[0] - w - INSET_MARGIN, size[1] - h - INSET_MARGIN, w, h


def with_inset(picture: np.ndarray, closeup: np.ndarray) -> np.ndarray:
    """`picture` with `closeup` (a picture of the same size) shrunk into its bottom-right
    corner (`inset_box`), framed: the last roll legible whatever the main camera shows."""
    from PIL import Image

    h, w = picture.shape[:2]
    left, top, iw, ih = inset_box((w, h))
    small = np.asarray(Image.fromarray(closeup).resize((iw, ih), Image.Resampling.LANCZOS))
    out = picture.copy()
    f = 2  # px of frame
    out[max(0, top - f):top + ih + f, max(0, left - f):left + iw + f] = INSET_FRAME
    out[top:top + ih, left:left + iw] = small
    return out


def pbr_unavailable() -> str:
    """Why physically based shading cannot be had here, or '' when it can: an X display
    that answers and the panda3d-simplepbr package."""
    return pbr_package_missing() or gl_unavailable()


def pbr_package_missing() -> str:
    """Why simplepbr cannot be imported, or '' when it can. A window asks this alone before
    it opens: whether OpenGL answers is its own pipe's to say (a second pandagl pipe in the
    process registers its types again: `_gl_pipe`)."""
    import importlib.util

    if importlib.util.find_spec("simplepbr") is None:
        return "the panda3d-simplepbr package is not installed (pip install panda3d-simplepbr)"
    return ""


def gl_unavailable() -> str:
    """Why OpenGL cannot be had here, or '' when it can (an X display that answers)."""
    if not os.environ.get("DISPLAY"):
        return "no X display (run under Xvfb, e.g. xvfb-run, for OpenGL with Mesa)"

    pipe = _gl_pipe()
    if pipe is None or not pipe.isValid():
        return f"the X display {os.environ['DISPLAY']} does not answer with OpenGL"
    return ""


# OpenGL drawn by the CPU, by the driver's renderer string (`GSG.getDriverRenderer()`):
# Mesa's llvmpipe (Xvfb's), softpipe and swrast, the lavapipe/SwiftShader kind, and
# Microsoft's GDI fallback. simplepbr drew the window at 4-6 frames/s on llvmpipe, so a window
# that may choose ("auto") draws with fixed-function shading there.
SOFTWARE_RASTERIZERS = ("llvmpipe", "softpipe", "swrast", "software rasterizer", "lavapipe",
                        "swiftshader", "gdi generic")


def software_rasterizer(renderer: str) -> bool:
    """Whether an OpenGL driver's renderer string names a rasterizer that runs on the CPU."""
    low = renderer.lower()
    return any(name in low for name in SOFTWARE_RASTERIZERS)


def start_pbr(render_node: object, output: object, camera: object,
              tasks: object | None = None) -> object:
    """simplepbr on `render_node` drawn by `camera` into `output` (a window or buffer);
    returns the task manager whose `step()` must run before each frame (it sets the
    camera and light inputs of simplepbr's shader): `tasks` (a window's own, which steps
    itself) or a new one. Shadow maps stay off (module note)."""
    import simplepbr
    from direct.task.Task import TaskManager

    tasks = tasks if tasks is not None else TaskManager()
    simplepbr.Pipeline(render_node=render_node, window=output, camera_node=camera,
                       taskmgr=tasks, msaa_samples=0, enable_shadows=False,
                       exposure=PBR_EXPOSURE)
    # simplepbr lets textures be any size for the whole process; `draw` puts powers of two
    # back once its first frame has made simplepbr's buffers.
    return tasks


def apply_camera(camera: object, lens: object, cam: OrbitCamera, size: tuple[int, int]) -> None:
    """Put a Panda3D camera where `cam` says: eye, look-at target, up = +z, and the
    vertical field of view (the horizontal one follows from the picture's aspect)."""
    import math

    from panda3d.core import Point3, Vec3

    eye = cam.eye()
    camera.setPos(Point3(*map(float, eye)))  # type: ignore[attr-defined]
    camera.lookAt(Point3(*cam.target), Vec3(0, 0, 1))  # type: ignore[attr-defined]
    aspect = size[0] / size[1]
    vfov = cam.fov
    hfov = math.degrees(2 * math.atan(math.tan(math.radians(vfov) / 2) * aspect))
    lens.setFov(hfov, vfov)  # type: ignore[attr-defined]


def texture_to_array(tex: object) -> np.ndarray:
    """A Panda3D screenshot texture as an (h, w, 3) uint8 array, row 0 at the top."""
    w, h = tex.getXSize(), tex.getYSize()  # type: ignore[attr-defined]
    data = bytes(tex.getRamImageAs("RGB"))  # type: ignore[attr-defined]
    pixels = np.frombuffer(data, dtype=np.uint8).reshape(h, w, 3)
    return np.ascontiguousarray(pixels[::-1])  # Panda3D stores rows bottom-up


@functools.cache
def _gl_pipe() -> Any:
    """One OpenGL pipe for the process: a second one of a module registers its X types
    again (Panda3D warns) and, after buffers of the first were closed, made no buffer."""
    from panda3d.core import GraphicsPipeSelection

    return GraphicsPipeSelection.getGlobalPtr().makeModulePipe("pandagl")


def _software_pipe(selection: object) -> object:
    """The tiny software renderer's offscreen pipe (no X connection needed)."""
    sel = selection
    default = sel.makeModulePipe("p3tinydisplay")  # type: ignore[attr-defined]
    for i in range(sel.getNumPipeTypes()):  # type: ignore[attr-defined]
        t = sel.getPipeType(i)  # type: ignore[attr-defined]
        if t.getName() == "TinyOffscreenGraphicsPipe":
            pipe = sel.makePipe(t)  # type: ignore[attr-defined]
            if pipe is not None:
                return pipe
    if default is None:
        raise RuntimeError("Panda3D's software renderer (p3tinydisplay) is not available")
    return default
