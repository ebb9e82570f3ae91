"""Rendering and playback figures for the Deep White Sea window and `tabletop render`.

1. Frames per second of the offscreen software renderer (Panda3D p3tinydisplay) at
   1280x720 with ten textured dice (five per crew) on the table, against the same table
   without dice drawn in the same run.
2. Release to outcome known: the wall time the physics takes to simulate a throw to rest
   (with the trajectory recorded, as the window does) as a fraction of the throw's real
   duration (its simulated time, which is how long the playback lasts). Random legal
   throws of crew dice onto a table that already holds other dice.

    python -m benchmarks.bench_render [--frames 60] [--throws 40] [--size 1280x720]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from dice_models import load_die
from dice_models.crews import load_crew
from simulator.physics import TableSpec, World, die_shape
from simulator.physics.throws import random_throw


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--throws", type=int, default=40)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--out", default=None, help="also save the ten-dice frame as PNG here")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    table = TableSpec()
    model = load_die("paper-d8")
    crews = [load_crew("white"), load_crew("blue")]
    dice = [d for crew in crews for d in crew.dice]

    # Ten dice resting where ten random throws left them (kept on the table by re-placing
    # any that fell off in a ring around the centre).
    world = World(table)
    rng = np.random.default_rng(7)
    for i, d in enumerate(dice):
        rep = world.throw(d.slug, model, random_throw(table, 1 + i % 2, rng), player=1 + i % 2)
        if rep.outcome.status != "on_table" and d.slug not in world.scene:
            a = 2 * np.pi * i / len(dice)
            world.place(d.slug, model, 1 + i % 8, 20.0 * i, (0.3 * np.cos(a), 0.25 * np.sin(a)))
    poses = {name: (p.pose.position, p.pose.quaternion) for name, p in world.scene.items()}
    print(f"dice on the table: {len(poses)}")

    from simulator.render.camera import overview
    from simulator.render.looks import crew_look
    from simulator.render.offscreen import OffscreenRenderer
    from simulator.render.scene import TableScene

    renderer = OffscreenRenderer((w, h))
    renderer.set_camera(overview(table))
    shape = die_shape(model)
    full = TableScene(table)
    by_slug = {d.slug: d for d in dice}
    for name, (pos, quat) in poses.items():
        d = by_slug[name]
        full.add_die(name, shape, crew_look(d), tuple(d.side_on_face(f) for f in range(8)),
                     pos, quat)
    empty = TableScene(table)
    fps: dict[str, float] = {}
    for _round in range(3):  # interleaved rounds, best of each: the machine is shared
        for label, scene in (("table only", empty), ("ten dice", full)):
            renderer.show(scene.root)
            renderer.render()  # textures upload on the first frame
            t0 = time.perf_counter()
            for k in range(args.frames):
                # Move every die a little each frame, as during a throw's playback.
                for name, (pos, quat) in poses.items():
                    if name in scene.dice:
                        scene.move_die(name, (pos[0], pos[1], pos[2] + 0.0005 * (k % 2)), quat)
                renderer.render()
            fps[label] = max(fps.get(label, 0.0), args.frames / (time.perf_counter() - t0))
    if args.out:
        renderer.show(full.root)
        renderer.save(args.out)
    print(f"offscreen software renderer {w}x{h}: {fps['ten dice']:.1f} frames/s with "
          f"{len(full.dice)} dice ({fps['table only']:.1f} frames/s table only)")

    for label, crowd in (("an empty table", False), ("the nine other dice", True)):
        ratios = []
        durations = []
        for i in range(args.throws):
            d = dice[i % len(dice)]
            rec = World(table)
            if crowd:
                rec.scene = {n: p for n, p in world.scene.items() if n != d.slug}
            th = random_throw(table, 1 + i % 2, np.random.default_rng([3, i]))
            t0 = time.perf_counter()
            rep = rec.throw(d.slug, model, th, player=1 + i % 2, record=True)
            wall = time.perf_counter() - t0
            rec.close()
            ratios.append(wall / rep.sim_time_s)
            durations.append(rep.sim_time_s)
        ratios.sort()
        p90 = ratios[int(0.9 * (len(ratios) - 1))]
        print(f"release to outcome known, {len(ratios)} throws onto {label} (trajectory "
              f"recorded): median {100 * statistics.median(ratios):.1f}% of the throw's real "
              f"duration, 90th percentile {100 * p90:.1f}%, worst {100 * ratios[-1]:.1f}%; "
              f"throws last {statistics.median(durations):.2f} s (median)")
    renderer.close()
    world.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
