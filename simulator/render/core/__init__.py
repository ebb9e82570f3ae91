"""The game-neutral part of what a player sees: the Panda3D table scene, the shared window
and its parts (camera, HUD, picking, inset, bots' turns, feel and sound), playback, framing,
the player's picture and the offscreen renderer. Nothing here names a game."""
