"""Is a Bullet body moved into place the same bits as one created there? The question
behind reusing a scene's bodies instead of creating them for every throw (docs/ai.md,
"Where the time goes now"): a static paper d8 is created at random poses, and one kept body
is reset (`resetBasePositionAndOrientation`) to each created body's read-back pose, and to
the quaternion creation stores (the given one turned into Bullet's matrix and back,
btMatrix3x3::setRotation then getRotation: `simulator.physics._bullet.stored_quaternion`).

    python -m benchmarks.pose_paths [--poses 2000] [--seed 1]

Prints how often creation keeps the position and the quaternion given, how often the reset
body has the created one's pose and Bullet AABB (reset to the read-back pose; reset to the
stored quaternion), what a creation costs, and what one costs in a batch of five
(`batchPositions`: one command, one orientation for all)."""

from __future__ import annotations

import argparse
import time

import numpy as np

from dice_models import load_die
from simulator.physics import die_shape
from simulator.physics._bullet import direct_client, stored_quaternion
from simulator.physics.world import collision_shape


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poses", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    c = direct_client()
    shape = die_shape(load_die("paper-d8"))
    col = collision_shape(c, shape)  # the World's own shape for this die
    inertial = {"baseInertialFramePosition": shape.mass.com.tolist(),
                "baseInertialFrameOrientation": list(shape.inertial_quaternion)}
    kept = c.createMultiBody(0.0, col, -1, [0, 0, 0], [0, 0, 0, 1], **inertial)
    rng = np.random.default_rng(args.seed)
    position = kept_q = same = same_stored = read_model = 0
    created_s = 0.0
    for _ in range(args.poses):
        q = rng.normal(size=4)
        q = (q / float(np.sqrt(q @ q))).tolist()
        x = rng.uniform(-0.5, 0.5, 3).tolist()
        t0 = time.perf_counter()
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=col, basePosition=x,
                                 baseOrientation=q, **inertial)
        created_s += time.perf_counter() - t0
        px, pq = c.getBasePositionAndOrientation(body)
        position += list(px) == x
        kept_q += list(pq) == q
        read_model += list(pq) == stored_quaternion(stored_quaternion(q))  # a read turns the stored one again
        c.resetBasePositionAndOrientation(kept, px, pq)
        same += (c.getBasePositionAndOrientation(kept) == (px, pq)
                 and c.getAABB(kept) == c.getAABB(body))
        c.resetBasePositionAndOrientation(kept, x, stored_quaternion(q))
        same_stored += (c.getBasePositionAndOrientation(kept) == (px, pq)
                        and c.getAABB(kept) == c.getAABB(body))
        c.removeBody(body)
    t0 = time.perf_counter()
    for _ in range(args.poses // 5):
        bodies = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=col,
                                   batchPositions=[[0.1 * k, 0.0, 0.1] for k in range(5)],
                                   **inertial)
        for body in bodies:
            c.removeBody(body)
    batch_s = time.perf_counter() - t0
    c.disconnect()
    n = args.poses
    print(f"{n} poses of a static paper d8: creation keeps the position {position}, the "
          f"quaternion {kept_q}; read back as the stored quaternion turned again {read_model}; "
          f"a kept body reset to the created one's pose has its pose and AABB {same} "
          f"({100 * same / n:.1f}%), reset to the stored quaternion {same_stored} "
          f"({100 * same_stored / n:.1f}%); a creation costs {1e6 * created_s / n:.0f} us, "
          f"{1e6 * batch_s / (5 * (n // 5)):.0f} us in a batch of 5 (with its removal)")


if __name__ == "__main__":
    main()
