"""What a player sees: the Panda3D table scene, the offscreen renderer and the desktop app.

Panda3D is imported only by the modules that make a window or a buffer (`scene`,
`offscreen`, `app`); `looks`, `camera` and `session` are plain Python so the rest of the
command line, and tests of the game flow, never load it.
"""


class WindowError(ValueError):
    """A window that cannot be opened as asked (bad players or options, no display): the
    command line reports it in one line, exit status 2. Render never imports the CLI."""
