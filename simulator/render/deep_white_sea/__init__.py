"""Deep White Sea's table on the core: its window (the throw gesture, placing, tips, shots),
its session, its picture and the die's card. `deep_white_sea_window` is the game's window
module."""
