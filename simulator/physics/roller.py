"""The physics `DiceRoller` (see simulator.physics.tray)."""

from simulator.physics.tray import PhysicsRoller, TrayRoll, roll_tray

__all__ = ["PhysicsRoller", "TrayRoll", "roll_tray"]
