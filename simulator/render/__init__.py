"""What a player sees: the Panda3D table scene, the offscreen renderer and the desktop app.

By part: `core` is the game-neutral window and picture (scene, window, HUD, camera,
picking, playback, framing, settings, sound, offscreen); `deep_white_sea` is Deep White
Sea's table on it and `d6` the d6 games' table (Diced, DiceWar, D-Day, Diceland hex); `app`
opens any game's window.

Panda3D is imported only by the modules that make a window or a buffer (`core.scene`,
`core.offscreen`, `app`); `core.looks`, `core.camera` and the sessions are plain Python so
the rest of the command line, and tests of the game flow, never load it.
"""

from pathlib import Path

HERE = Path(__file__).parent


class WindowError(ValueError):
    """A window that cannot be opened as asked (bad players or options, no display): the
    command line reports it in one line, exit status 2. Render never imports the CLI."""


def window_module_name(game: str) -> str:
    """The module of a game's window: `<game, '-' as '_'>_window.py` in one of the table
    packages (`simulator/render/<table>/`), found by file; a name no module bears when the
    game has none."""
    name = f"{game.replace('-', '_')}_window"
    for table in sorted(p for p in HERE.iterdir() if (p / f"{name}.py").is_file()):
        return f"simulator.render.{table.name}.{name}"
    return f"simulator.render.{name}"


def window_games() -> list[str]:
    """The registered games that have a window module (found by file, nothing imported)."""
    from rules import registry

    return [g for g in registry.GAMES
            if (HERE / "/".join(window_module_name(g).split(".")[2:])).with_suffix(".py").is_file()]
