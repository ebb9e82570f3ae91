"""Pure rule engines, one package per game, and the bots that play them.

Nothing here imports PyBullet or Panda3D: engines talk to the world through the
`DiceRoller` and `Table` protocols in `rules.core`.
"""
