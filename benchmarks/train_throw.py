"""Learn a throw on `tabletop/DeepWhiteSeaThrow-v0` with the cross-entropy method, on CPU,
in minutes, and show that it beats random throws.

    python -m benchmarks.train_throw [--iterations 12] [--population 20] [--episodes 4]
        [--table physics] [--opponent random] [--out throw_cem.png]

The policy is one Gaussian over the 8 action numbers, the same for every position: each
throw is drawn from it, so it learns where to release, how high, where to aim, how fast
and with what spin, and how precisely (a single fixed throw is a poor policy on the
physics table, where a throw that lands well among some dice falls off among others).
Each iteration draws `population` candidate Gaussians' means around the current one,
scores each by its mean reward per throw over `episodes` seeded episodes (the same seeds
for every candidate of an iteration: common random numbers), and refits the Gaussian to
the best fifth (Rubinstein & Kroese, "The Cross-Entropy Method", 2004), smoothed
(`SMOOTHING` of the new fit) and with a little extra noise so it does not collapse early
(Szita & Lorincz 2006).

At the end the learned Gaussian and uniform random throws each play `--test` fresh
seeded episodes (seeds no training episode used); it prints both mean rewards per throw
with 95% intervals (normal approximation over episodes), their paired difference, and
writes the learning curve (population mean and elite mean per iteration, with 95%
intervals over the population) to `--out` as a PNG, written atomically.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from dice_models import outfiles
from simulator.ai import script_import

ELITE_SHARE = 0.2
EXTRA_NOISE = 0.05  # added to the refitted standard deviation (Szita & Lorincz 2006)
SMOOTHING = 0.7  # share of the new fit in the next Gaussian


def episode_reward(env: Any, policy: tuple[np.ndarray, np.ndarray] | None,
                   seed: int, rng: np.random.Generator) -> float:
    """Mean reward per throw of one seeded episode; `policy` (mean, std) draws each throw
    from its Gaussian, None throws uniformly at random."""
    env.reset(seed=seed)
    rewards = []
    done = False
    while not done:
        action = (rng.uniform(-1, 1, size=8) if policy is None
                  else np.clip(policy[0] + policy[1] * rng.standard_normal(8), -1, 1))
        action = action.astype(np.float32)
        _, reward, term, trunc, _ = env.step(action)
        rewards.append(reward)
        done = term or trunc
    return float(np.mean(rewards)) if rewards else 0.0


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal-approximation interval."""
    a = np.asarray(values, dtype=float)
    half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else 0.0
    return float(a.mean()), float(a.mean() - half), float(a.mean() + half)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--population", type=int, default=20)
    ap.add_argument("--episodes", type=int, default=4, help="episodes per candidate")
    ap.add_argument("--throws", type=int, default=5, help="throws per episode")
    ap.add_argument("--test", type=int, default=60, help="test episodes per policy")
    ap.add_argument("--table", default="physics", choices=("physics", "kinematic"))
    ap.add_argument("--opponent", default="random", choices=("random", "greedy", "planner"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="throw_cem.png")
    args = ap.parse_args()
    outfiles.check_target(args.out)
    throw_env = script_import("simulator.ai.throw_env")
    env = throw_env.DeepWhiteSeaThrowEnv(table=args.table, opponent=args.opponent,
                                         max_throws=args.throws)
    rng = np.random.default_rng(args.seed)
    mean, std = np.zeros(8), np.ones(8)
    n_elite = max(2, int(round(ELITE_SHARE * args.population)))
    curve: list[tuple[float, float, float, float]] = []
    t0 = time.perf_counter()
    for it in range(args.iterations):
        seeds = [10_000 + it * args.episodes + e for e in range(args.episodes)]
        cands = np.clip(mean + std * rng.standard_normal((args.population, 8)), -1, 1)
        scores = [float(np.mean([episode_reward(env, (c, std), s, rng) for s in seeds]))
                  for c in cands]
        order = np.argsort(scores)[::-1]
        elite = cands[order[:n_elite]]
        mean = SMOOTHING * elite.mean(axis=0) + (1 - SMOOTHING) * mean
        std = SMOOTHING * (elite.std(axis=0) + EXTRA_NOISE) + (1 - SMOOTHING) * std
        m, lo, hi = interval(scores)
        best = float(np.mean([scores[i] for i in order[:n_elite]]))
        curve.append((m, lo, hi, best))
        print(f"iteration {it + 1:2d}: population {m:+.2f} [95% {lo:+.2f}, {hi:+.2f}], elite "
              f"{best:+.2f} points a throw; {time.perf_counter() - t0:.0f} s", flush=True)
    test = [1_000_000 + k for k in range(args.test)]
    learned = [episode_reward(env, (mean, std), s, rng) for s in test]
    random = [episode_reward(env, None, s, rng) for s in test]
    for name, values in (("learned throw", learned), ("random throws", random)):
        m, lo, hi = interval(values)
        print(f"{name}: {m:+.2f} points a throw [95% {lo:+.2f}, {hi:+.2f}] over {args.test} "
              "test episodes")
    diff = interval([a - b for a, b in zip(learned, random, strict=True)])
    print(f"learned - random (paired by seed): {diff[0]:+.2f} [95% {diff[1]:+.2f}, "
          f"{diff[2]:+.2f}]; learned throws (scaled action): mean {np.round(mean, 2).tolist()}, "
          f"sd {np.round(std, 2).tolist()}")
    plot(curve, args.out, f"{throw_env.ENV_ID}, {args.table} table")
    print(f"learning curve: {args.out}")


def plot(curve: list[tuple[float, float, float, float]], out: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.arange(1, len(curve) + 1)
    m, lo, hi, best = (np.array(v) for v in zip(*curve, strict=True))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, m, label="population mean")
    ax.fill_between(x, lo, hi, alpha=0.3, label="95% interval")
    ax.plot(x, best, "--", label="elite mean")
    ax.set_xlabel("CEM iteration")
    ax.set_ylabel("reward (points a throw)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    outfiles.write_with(out, lambda p: fig.savefig(p, format="png"))
    plt.close(fig)


if __name__ == "__main__":
    main()
