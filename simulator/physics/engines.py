"""Which physics engine simulates a world: `PhysicsSettings.engine` picks it, `make_world`
builds it. PyBullet ships with the project; MuJoCo (and MuJoCo Warp for batched throws)
come with the `engines` extra and are imported only when asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dice_models import DataError
from simulator.physics.settings import ENGINES, PhysicsSettings, TableSpec

if TYPE_CHECKING:  # (the worlds import PyBullet: loaded only when a world is made)
    from simulator.physics.engine import Engine

EXTRA_HINT = "pip install 'tabletop[engines]'"


def make_world(table: TableSpec | None = None, settings: PhysicsSettings | None = None) -> Engine:
    """A world of the settings' engine (PyBullet's `World` or `MujocoWorld`): the engine
    contract `simulator.physics.engine.Engine`, for throws, placements, tips, snapshots and
    settling."""
    settings = settings or PhysicsSettings()
    if settings.engine == "mujoco-warp":
        raise DataError("--engine", "engine", "mujoco-warp throws in batches only: tabletop "
                        "fairness run --backend gpu (or warp-cpu)", settings.engine)
    if settings.engine == "mujoco":
        from simulator.physics.mujoco_world import MujocoWorld

        return MujocoWorld(table, settings)
    from simulator.physics.world import World

    return World(table, settings)


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


def check_engine(name: str, source: str = "--engine") -> str:
    """`name` if it is an engine, else one DataError line listing them."""
    if name not in ENGINES:
        raise DataError(source, "engine", f"must be one of {', '.join(ENGINES)}", name)
    if name in ("mujoco", "mujoco-warp"):
        import_mujoco()
    return name


__all__ = ["ENGINES", "EXTRA_HINT", "check_engine", "import_mujoco", "import_warp", "make_world"]
