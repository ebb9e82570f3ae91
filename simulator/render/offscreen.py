"""Offscreen pictures of the table with Panda3D's software renderer (p3tinydisplay): no
display and no GPU needed, so `tabletop render`, tests and CI all draw the same way.

One `OffscreenRenderer` owns a Panda3D graphics engine, an offscreen buffer and a camera;
`TableScene`s are attached to it and drawn to numpy arrays or PNG files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulator.render.camera import OrbitCamera

_CONFIGURED = False
BACKGROUND = (0.16, 0.15, 0.14, 1.0)


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
    """A software offscreen buffer of `size` pixels (width, height) with one camera."""

    def __init__(self, size: tuple[int, int] = (1280, 720)) -> None:
        configure_panda(software=True)
        from panda3d.core import (
            Camera,
            FrameBufferProperties,
            GraphicsEngine,
            GraphicsPipe,
            GraphicsPipeSelection,
            NodePath,
            PerspectiveLens,
            WindowProperties,
        )

        self.size = size
        self.engine = GraphicsEngine.getGlobalPtr()
        self.pipe = _software_pipe(GraphicsPipeSelection.getGlobalPtr())
        fb = FrameBufferProperties()
        fb.setRgbColor(True)
        fb.setDepthBits(24)
        fb.setAlphaBits(0)
        props = WindowProperties.size(*size)
        self.buffer = self.engine.makeOutput(self.pipe, "tabletop-offscreen", 0, fb, props,
                                             GraphicsPipe.BF_refuse_window)
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
        self._scene: object | None = None

    def show(self, scene_root: object) -> None:
        """Draw this scene (a `TableScene.root`) from now on."""
        from panda3d.core import NodePath

        assert isinstance(scene_root, NodePath)
        self.root.getChildren().detach()
        self.camera.reparentTo(self.root)
        scene_root.reparentTo(self.root)

    def set_camera(self, cam: OrbitCamera) -> None:
        apply_camera(self.camera, self.lens, cam, self.size)

    def render(self) -> np.ndarray:
        """Draw one frame; the picture as an (h, w, 3) uint8 array, row 0 at the top."""
        self.engine.renderFrame()
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
        self.engine.removeWindow(self.buffer)


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
