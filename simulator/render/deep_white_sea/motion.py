"""Deep White Sea's dice in motion in the window: a throw played back from its recorded
trajectory (or flown along its arc on a table without physics), a die tipped over its edge,
one lifting off and fading as it leaves play, one dropping into the centre; and each die
added to the scene the first time it is shown, with its crew's face art.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulator.render.core.looks import crew_look
from simulator.render.core.playback import PoseT
from simulator.render.deep_white_sea.gesture import arc_of, flight_time
from simulator.render.deep_white_sea.session import (
    Anim,
    DropAnim,
    GameSession,
    ThrowAnim,
    TipAnim,
    VanishAnim,
)

if TYPE_CHECKING:  # the scene is Panda3D's: imported by the window that makes it
    from simulator.render.deep_white_sea.scene import SeaTableScene

TEXTURE_CELL = 512  # px per face in the window (the offscreen renderer uses 256)


def ensure_die(scene: SeaTableScene, session: GameSession, name: str, pose: PoseT) -> None:
    """The die in the scene at `pose` if it is not there yet."""
    if name in scene.dice:
        return
    crew = session.crew(name)
    scene.add_die(name, session.shape(name), crew_look(crew, TEXTURE_CELL),
                  tuple(crew.side_on_face(f) for f in range(8)), pose[0], pose[1])


def show(scene: SeaTableScene, session: GameSession, anim: Any, t: float) -> bool:
    """Pose the scene for time t (s) into `anim`; True when it is over."""
    a: Anim = anim
    if isinstance(a, ThrowAnim):
        return _throw(scene, session, a, t)
    if isinstance(a, TipAnim):
        if a.die in scene.dice:
            scene.move_die(a.die, *a.at(t))
        return t >= a.duration
    if isinstance(a, VanishAnim):
        if a.die in scene.dice:
            f = min(1.0, t / a.duration)
            (x, y, z), q = a.pose
            scene.move_die(a.die, (x, y, z + 0.2 * f), q)
            scene.dice[a.die].pose.setScale(max(0.01, 1.0 - f))
        return t >= a.duration
    if isinstance(a, DropAnim):
        f = min(1.0, t / a.duration)
        (x, y, z), q = a.pose
        scene.move_die(a.die, (x, y, z + 0.15 * (1 - f) ** 2), q)
        return t >= a.duration
    return True


def _throw(scene: SeaTableScene, session: GameSession, a: ThrowAnim, t: float) -> bool:
    if t > 0 and scene.overlay.getNumChildren():
        scene.clear_overlay()
    if not a.playback.tracks:  # no recording (a table without physics): the arc
        fl = flight_time(a.throw)
        arc = arc_of(a.throw, fl, steps=2)
        p = arc[-1] if t >= fl else tuple(
            np.array(a.throw.release) + np.array(a.throw.velocity) * t
            + np.array([0, 0, -4.905 * t * t]))
        scene.move_die(a.die, p, a.throw.orientation)  # type: ignore[arg-type]
        return t >= fl
    for name, pose in a.playback.poses_at(t).items():
        ensure_die(scene, session, name, pose)
        scene.move_die(name, *pose)
    return a.playback.finished(t)
