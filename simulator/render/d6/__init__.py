"""The d6 games' table on the core: its scene (d6 dice, tray, tiles), the shared d6 window,
session and picture, and one window module per game (`<game>_window`: Diced, DiceWar,
D-Day, Diceland hex)."""
