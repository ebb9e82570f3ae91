"""The window's shadows, a part of `GameWindow`, chosen by the settings file's `shadows`:

- "soft": the key light casts a shadow map (Panda3D's shadow caster, SHADOW_MAP px a side
  over SHADOW_FILM m of the table), looked up with the depth comparison filtered linearly
  (a 2x2 percentage-closer filter in the hardware: the shadow's edge is a gradient a texel
  or two wide, about 2-3 mm on the table) by simplepbr's shader on the pbr path, or by
  Panda3D's auto-shader on the fixed-function path; the planar shadows are hidden. On
  Mesa's llvmpipe a frame of the fixed-function path costs about 3.7 times as much so.
- "planar": each die's shadow flattened onto the felt along the key light (the scene's own,
  drawn by every path, the software renderer too).
- "off": none.
- "auto" (the default): soft where the window draws with simplepbr (a GPU: `stage.py`),
  planar elsewhere (llvmpipe, the software renderer).

The software renderer has no shaders, and simplepbr's shadow shader crashes Mesa 22.3's
llvmpipe as it compiles (a segmentation fault, measured): "soft" is planar on both. The
shadow map is an
offscreen buffer of the window's: `close` puts it away before the window goes (left open,
an OpenGL buffer aborts the interpreter at exit, as simplepbr's did).

Panda3D is imported when shadows are set, not with this module.
"""

from __future__ import annotations

import math
from typing import Any

MODES = ("auto", "soft", "planar", "off")
SHADOW_MAP = 1024  # px a side
SHADOW_FILM = 1.8  # m: the square of the table the shadow map covers, round the middle
SHADOW_BIAS = 0.002  # of the map's depth range: no acne on the felt, none peters off a die
LIGHT_BACK = 2.0  # m: the shadow camera stands this far back along the light from the table


def chosen(asked: str, path: str, cpu: bool = False) -> str:
    """What `asked` (one of MODES) gives on the drawing path named `path`; `cpu`: OpenGL
    is a rasterizer on the CPU (llvmpipe), where simplepbr's shadow shader crashes."""
    if asked not in MODES:
        raise ValueError(f"shadows must be one of {', '.join(MODES)} (got {asked!r})")
    if asked == "auto":
        return "soft" if path == "pbr" and not cpu else "planar"
    if asked == "soft" and (path == "software" or (path == "pbr" and cpu)):
        return "planar"
    return asked


class Shadows:
    """The shadows of `scene` (a TableScene or a d6 table scene: its key light is its
    DirectionalLight child "key", its planar shadows its "shadows" node) in the window of
    `base` drawn by the path named `path`; `mode` the one in force."""

    def __init__(self, base: Any, scene: Any, path: str) -> None:
        self.base = base
        self.scene = scene
        self.path = path
        self.mode = "planar"
        self._key = scene.root.find("key")
        self._planar = scene.root.find("**/shadows")
        self._auto_shader = False
        self.cpu = False  # OpenGL on the CPU (Mesa's llvmpipe and the like)
        if path != "software":
            from simulator.render.core.offscreen import software_rasterizer

            self.cpu = software_rasterizer(str(base.win.getGsg().getDriverRenderer()))

    def use(self, asked: str) -> str:
        """Set the shadows `asked` for (MODES); the mode that gives, which is `mode`."""
        mode = chosen(asked, self.path, self.cpu)
        if mode == self.mode:
            return mode
        self._caster(mode == "soft")
        if not self._planar.isEmpty():
            if mode == "planar":
                self._planar.show()
            else:
                self._planar.hide()
        self.mode = mode
        return mode

    def close(self) -> None:
        """Put the shadow map away (before the window and its GSG go)."""
        self._caster(False)

    # -- the shadow map ---------------------------------------------------------------------

    def _caster(self, on: bool) -> None:
        if self._key.isEmpty():
            return
        light = self._key.node()
        if on == light.isShadowCaster():
            return
        if on:
            from simulator.render.core.scene import LIGHT_DIR

            dx, dy, dz = LIGHT_DIR
            n = math.sqrt(dx * dx + dy * dy + dz * dz)
            self._key.setPos(-dx / n * LIGHT_BACK, -dy / n * LIGHT_BACK, -dz / n * LIGHT_BACK)
            light.setShadowCaster(True, SHADOW_MAP, SHADOW_MAP)
            lens = light.getLens()
            lens.setFilmSize(SHADOW_FILM, SHADOW_FILM)
            lens.setNearFar(0.5, LIGHT_BACK + 1.5)
        else:
            light.setShadowCaster(False)
        self._shade(on)

    def _shade(self, on: bool) -> None:
        """The shader that reads the map: simplepbr's with its shadows, else the
        auto-shader on the scene (the HUD, on aspect2d, keeps fixed-function)."""
        if self.path == "pbr":
            pipeline = pbr_pipeline(self.base)
            if pipeline is not None:
                pipeline.enable_shadows = on
                # simplepbr recompiles its shader when the bias changes, not the flag.
                pipeline.shadow_bias = SHADOW_BIAS if on else SHADOW_BIAS * 1.0001
            return
        if on and not self._auto_shader:
            self.scene.root.setShaderAuto()
            self._auto_shader = True
        elif not on and self._auto_shader:
            self.scene.root.clearShader()
            self._auto_shader = False


def pbr_pipeline(base: Any) -> Any:
    """The simplepbr Pipeline stepping in `base`'s task manager (its update task is a
    method of it), or None."""
    for task in base.taskMgr.getTasksNamed("simplepbr update"):
        owner = getattr(getattr(task, "getFunction", lambda: None)(), "__self__", None)
        if owner is not None:
            return owner
    return None
