"""The optional engines' libraries (the `engines` extra): MuJoCo and MuJoCo Warp, imported
only when a world or a batch asks for them, a missing one being one DataError line naming
the extra that installs it."""

from __future__ import annotations

from typing import Any

from dice_models import DataError

EXTRA_HINT = "pip install 'tabletop[engines]'"


def import_mujoco() -> Any:
    """The mujoco module, or one DataError line naming the extra that installs it."""
    try:
        import mujoco
    except ImportError:
        raise DataError("--engine", "engine", f"mujoco is not installed: {EXTRA_HINT}",
                        show_value=False) from None
    return mujoco


def import_warp() -> tuple[Any, Any]:
    """(warp, mujoco_warp), or one DataError line naming the extra that installs them."""
    try:
        import mujoco_warp
        import warp
    except ImportError:
        raise DataError("--backend", "backend", f"mujoco-warp is not installed: {EXTRA_HINT}",
                        show_value=False) from None
    return warp, mujoco_warp


__all__ = ["EXTRA_HINT", "import_mujoco", "import_warp"]
