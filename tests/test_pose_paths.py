"""simulator.physics._bullet.stored_quaternion, the model of what Bullet stores when it
creates a body (docs/ai.md): the quaternion turned into Bullet's matrix and back; a read
turns it once more; a kept body reset to the stored quaternion has the created body's pose
and AABB."""

from __future__ import annotations

import numpy as np

from dice_models import load_die
from simulator.physics import die_shape
from simulator.physics._bullet import direct_client, stored_quaternion
from simulator.physics.world import collision_shape


def test_reset_to_the_stored_quaternion_is_the_created_body() -> None:
    c = direct_client()
    try:
        col = collision_shape(c, die_shape(load_die("paper-d8")))
        kept = c.createMultiBody(0.0, col, -1, [0, 0, 0], [0, 0, 0, 1])
        rng = np.random.default_rng(5)
        given_kept = 0
        for _ in range(200):
            q = rng.normal(size=4)
            q = (q / float(np.sqrt(q @ q))).tolist()
            x = rng.uniform(-0.5, 0.5, 3).tolist()
            body = c.createMultiBody(0.0, col, -1, x, q)
            read = c.getBasePositionAndOrientation(body)
            assert list(read[1]) == stored_quaternion(stored_quaternion(q))
            c.resetBasePositionAndOrientation(kept, x, q)
            given_kept += c.getAABB(kept) == c.getAABB(body)
            c.resetBasePositionAndOrientation(kept, x, stored_quaternion(q))
            assert c.getBasePositionAndOrientation(kept) == read
            assert c.getAABB(kept) == c.getAABB(body)
            c.removeBody(body)
        assert given_kept < 200  # the quaternion given is not what creation holds
    finally:
        c.disconnect()
