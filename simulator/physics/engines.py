"""Which physics engine simulates a world: `PhysicsSettings.engine` picks it, `make_world`
builds it. PyBullet ships with the project; MuJoCo (and MuJoCo Warp for batched throws)
come with the `engines` extra and are imported only when asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dice_models import DataError
from simulator.physics.libraries import EXTRA_HINT, import_mujoco, import_warp
from simulator.physics.settings import ENGINES, PhysicsSettings, TableSpec

if TYPE_CHECKING:  # (the worlds import PyBullet: loaded only when a world is made)
    from simulator.physics.engine import Engine


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


def check_engine(name: str, source: str = "--engine") -> str:
    """`name` if it is an engine, else one DataError line listing them."""
    if name not in ENGINES:
        raise DataError(source, "engine", f"must be one of {', '.join(ENGINES)}", name)
    if name in ("mujoco", "mujoco-warp"):
        import_mujoco()
    return name


__all__ = ["ENGINES", "EXTRA_HINT", "check_engine", "import_mujoco", "import_warp", "make_world"]
