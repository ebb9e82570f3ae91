"""What a player sees: the Panda3D table scene, the offscreen renderer and the desktop app.

Panda3D is imported only by the modules that make a window or a buffer (`scene`,
`offscreen`, `app`); `looks`, `camera` and `session` are plain Python so the rest of the
command line, and tests of the game flow, never load it.
"""


class WindowError(ValueError):
    """A window that cannot be opened as asked (bad players or options, no display): the
    command line reports it in one line, exit status 2. Render never imports the CLI."""


def window_module_name(game: str) -> str:
    """The module of a game's window: `simulator/render/<game, '-' as '_'>_window.py`."""
    return f"simulator.render.{game.replace('-', '_')}_window"


def window_games() -> list[str]:
    """The registered games that have a window module (found by file, nothing imported)."""
    from pathlib import Path

    from rules import registry

    here = Path(__file__).parent
    return [g for g in registry.GAMES
            if (here / (window_module_name(g).rsplit(".", 1)[1] + ".py")).exists()]
