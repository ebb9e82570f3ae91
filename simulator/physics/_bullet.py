"""PyBullet, imported and connected without its C-level chatter.

The extension writes its build time to stderr at import and `argv[0]=` to stdout on
connect, straight to the file descriptors; that would corrupt `--json` output and clutter
every command, so both happen with fds 1 and 2 on /dev/null.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def quiet_fds() -> Iterator[None]:
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


with quiet_fds():
    import pybullet
    from pybullet_utils.bullet_client import BulletClient


class _Client(BulletClient):
    """A BulletClient whose finaliser stays quiet at interpreter exit, when the pybullet
    module it calls may already be torn down ('NoneType' object is not callable), and which
    binds each function to its client once: BulletClient builds a new functools.partial on
    every attribute access (1.5 us, half the cost of a getBaseVelocity), so it keeps the
    first in the instance. Disconnecting drops them (PyBullet reuses client ids)."""

    def __getattr__(self, name: str) -> Any:
        if name == "disconnect":
            for key in [k for k, v in self.__dict__.items() if isinstance(v, functools.partial)]:
                del self.__dict__[key]
            return super().__getattr__(name)
        attribute = super().__getattr__(name)
        if isinstance(attribute, functools.partial):
            self.__dict__[name] = attribute
        return attribute

    def __reduce__(self) -> Any:
        # A copy would hold the same client id, and its finaliser would disconnect the
        # original's live connection: a connection is never copied (a PhysicsTable copies
        # as its JSON, with a world of its own).
        raise TypeError("a PyBullet connection cannot be copied or pickled; make a new "
                        "World (a PhysicsTable copies itself through its JSON)")

    def __del__(self) -> None:
        try:  # noqa: SIM105 - contextlib may be gone at interpreter exit
            super().__del__()
        except Exception:
            pass


def fast_reads(client: BulletClient) -> tuple[Callable[[int], Any], Callable[[int], Any],
                                               Callable[[], Any]]:
    """(pose, velocity, step) of one client as the per-step loops call them: body pose and
    velocity as `f(body)` and one step as `f()`, PyBullet's own functions given the client
    id as a positional argument. The BulletClient's partials pass it by keyword, which
    costs 0.35-0.6 us more a read and about 0.15 us more a step (a throw makes about 300
    such calls: 5-7% of its time)."""
    cid = client._client
    pose, velocity = pybullet.getBasePositionAndOrientation, pybullet.getBaseVelocity

    def get_pose(body: int) -> Any:
        return pose(body, cid)

    def get_vel(body: int) -> Any:
        return velocity(body, cid)

    return get_pose, get_vel, functools.partial(pybullet.stepSimulation, cid)


def direct_client() -> BulletClient:
    with quiet_fds():
        return _Client(connection_mode=pybullet.DIRECT)


Quat = list[float]
Matrix = list[list[float]]


def _rotation(q: Quat) -> Matrix:
    """Bullet's btMatrix3x3::setRotation of quaternion (x, y, z, w), operation for operation."""
    x, y, z, w = q
    s = 2.0 / (x * x + y * y + z * z + w * w)
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz = w * xs, w * ys, w * zs
    xx, xy, xz = x * xs, x * ys, x * zs
    yy, yz, zz = y * ys, y * zs, z * zs
    return [[1.0 - (yy + zz), xy - wz, xz + wy],
            [xy + wz, 1.0 - (xx + zz), yz - wx],
            [xz - wy, yz + wx, 1.0 - (xx + yy)]]


def _quaternion(m: Matrix) -> Quat:
    """Bullet's btMatrix3x3::getRotation (its scalar path), operation for operation."""
    t = [0.0, 0.0, 0.0, 0.0]
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0.0:
        s = math.sqrt(trace + 1.0)
        t[3] = s * 0.5
        s = 0.5 / s
        t[0], t[1], t[2] = (m[2][1] - m[1][2]) * s, (m[0][2] - m[2][0]) * s, (m[1][0] - m[0][1]) * s
    else:
        i = (2 if m[1][1] < m[2][2] else 1) if m[0][0] < m[1][1] else (2 if m[0][0] < m[2][2] else 0)
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(m[i][i] - m[j][j] - m[k][k] + 1.0)
        t[i] = s * 0.5
        s = 0.5 / s
        t[3], t[j], t[k] = (m[k][j] - m[j][k]) * s, (m[j][i] + m[i][j]) * s, (m[k][i] + m[i][k]) * s
    return t


def stored_quaternion(q: Quat) -> Quat:
    """The quaternion a body created at q holds, for a die whose inertial frame is its own:
    q turned into Bullet's matrix and back; a read turns it once more (tests/test_pose_paths.py,
    docs/ai.md)."""
    return _quaternion(_rotation(q))


__all__ = ["BulletClient", "direct_client", "fast_reads", "pybullet", "quiet_fds", "stored_quaternion"]
