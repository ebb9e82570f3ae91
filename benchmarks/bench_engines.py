"""Speed of the physics engines (issue 20, item 4), ratios in one run.

CPU (default): MuJoCo's world against PyBullet's World on the same throws of one die, per
core (process CPU time), interleaved in rounds; target: MuJoCo / PyBullet >= 1.5. Both the
lab's throws (released over the table's middle, benchmarks/experiments/fair-paper-d8.yaml)
and throws from a player's edge.

--backend gpu (or warp-cpu): the batched MuJoCo Warp backend's throws per second at --batch,
and the face counts of the fair die with a chi-square test against 1/k; target: 10^6 paper
d8 throws in under a minute on one GPU (benchmarks/gpu_check.sh).

    python -m benchmarks.bench_engines [--die paper-d8] [--throws 400] [--rounds 5]
    python -m benchmarks.bench_engines --backend gpu --batch 65536 --throws 1000000
"""

from __future__ import annotations

import argparse
import json
import sys

from simulator.bench.engines import batched_speed, engine_speed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--die", default="paper-d8")
    p.add_argument("--throws", type=int, default=400)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--backend", choices=("cpu", "gpu", "warp-cpu"), default="cpu")
    p.add_argument("--batch", type=int, default=8192)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.backend != "cpu":
        from scipy.stats import chisquare

        res = batched_speed(args.backend, args.batch, args.throws, args.die)
        counts = list(res["faces"].values())
        res["chi2_p"] = float(chisquare(counts).pvalue) if sum(counts) else None
        if args.json:
            print(json.dumps(res, indent=1))
            return 0
        print(f"{res['backend']} ({res['device']}), batch {res['batch']}: {res['throws']} throws of "
              f"{args.die} in {res['seconds']:.1f} s = {res['throws_per_s']:.0f} throws/s "
              f"(10^6 throws in {1e6 / res['throws_per_s']:.0f} s)")
        print(f"outcomes: {res['outcomes']}")
        print(f"faces on the table: {res['faces']}; chi-square against 1/k: p = {res['chi2_p']:.3g}")
        return 0
    rows = [engine_speed(args.die, args.throws, args.rounds, kind) for kind in ("lab", "table")]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        t = r["throws_per_cpu_s"]
        print(f"{r['die']}, {r['kind']} throws, {r['throws']} in {r['rounds']} rounds: PyBullet World "
              f"{t['pybullet']:.0f} throws/CPU s, MuJoCo {t['mujoco']:.0f} throws/CPU s, "
              f"MuJoCo / PyBullet {r['ratio_mujoco_over_pybullet']:.2f} (target >= 1.5)")
        print(f"  outcomes: PyBullet {r['outcomes']['pybullet']}, MuJoCo {r['outcomes']['mujoco']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
