"""Is a Bullet body moved into place the same bits as one created there? The question
behind reusing a scene's bodies instead of creating them for every throw (docs/ai.md,
"Where the time goes now"): a static paper d8 is created at random poses, and one kept body
is reset (`resetBasePositionAndOrientation`) to each created body's read-back pose.

    python -m benchmarks.pose_paths [--poses 2000] [--seed 1]

Prints how often creation keeps the position and the quaternion given, how often the reset
body has the created one's pose and Bullet AABB, and what a creation costs."""

from __future__ import annotations

import argparse
import time

import numpy as np

from dice_models import load_die
from simulator.physics import die_shape
from simulator.physics._bullet import direct_client
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
    position = quaternion = same = 0
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
        quaternion += list(pq) == q
        c.resetBasePositionAndOrientation(kept, px, pq)
        same += (c.getBasePositionAndOrientation(kept) == (px, pq)
                 and c.getAABB(kept) == c.getAABB(body))
        c.removeBody(body)
    c.disconnect()
    n = args.poses
    print(f"{n} poses of a static paper d8: creation keeps the position {position}, the "
          f"quaternion {quaternion}; a kept body reset to the created one's pose has its pose "
          f"and AABB {same} ({100 * same / n:.1f}%); a creation costs "
          f"{1e6 * created_s / n:.0f} us")


if __name__ == "__main__":
    main()
