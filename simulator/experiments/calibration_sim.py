"""Calibration's simulation: an object of a dataset thrown with trial contact values
(`simulate`, the pooled `Simulator`) and the fit's objective (`chi_square`). Split from
`calibrate`, which re-exports these names.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from dice_models.materials import (
    MaterialLibrary,
    library,
    overlay,
)
from simulator.experiments.config import Experiment, ThrowDistribution
from simulator.experiments.datasets import SHARE, DataObject
from simulator.experiments.stats import homogeneity
from simulator.physics import PhysicsSettings


@dataclass(frozen=True)
class SimCounts:
    counts: tuple[int, ...]  # on-table throws per outcome group
    off_table: int  # fell off, cocked or overhanging: not counted
    errors: int  # physics errors: not counted

    @property
    def n(self) -> int:
        return sum(self.counts)


def base_parameters(obj: DataObject) -> dict[str, float]:
    pair = library().pair(*obj.pair)
    return {"friction": pair.friction, "restitution": pair.restitution, "throw_scale": 1.0,
            "spinning_friction": pair.spinning_friction, **style_shares(obj.throw)}


def style_shares(throw: ThrowDistribution) -> dict[str, float]:
    """The styles' weights as the fit's shares (datasets.SHARE): `share.NAME` of every style
    but the last, its weight over the weights of itself and the styles after it."""
    out: dict[str, float] = {}
    styles = throw.styles
    for i, st in enumerate(styles[:-1]):
        rest = sum(s.weight for s in styles[i:])  # summed afresh: a running difference
        out[SHARE + st.name] = min(1.0, st.weight / rest) if rest > 0 else 0.0  # can pass 1
    return out


def style_weights(throw: ThrowDistribution, params: dict[str, float]) -> list[float]:
    """The mixture's weights (summing to 1) from the shares in `params` (the throw's own
    where `params` has none)."""
    own = style_shares(throw)
    left, weights = 1.0, []
    for st in throw.styles[:-1]:
        share = min(1.0, max(0.0, params.get(SHARE + st.name, own[SHARE + st.name])))
        weights.append(left * share)
        left *= 1.0 - share
    return [*weights, left]


def _scaled(t: ThrowDistribution, s: float) -> ThrowDistribution:
    return replace(t, speed=(t.speed[0] * s, t.speed[1] * s), spin=(t.spin[0] * s, t.spin[1] * s))


def experiment_for(obj: DataObject, params: dict[str, float], seed: int,
                   engine: str = "pybullet", time_step: float | None = None) -> Experiment:
    s = params.get("throw_scale", 1.0)
    t = obj.throw
    if t.styles:  # every style's speed and spin scaled, the weights from the shares
        throw = replace(t, styles=tuple(
            replace(st, weight=w, throw=_scaled(st.throw, s))
            for st, w in zip(t.styles, style_weights(t, params), strict=True)))
    else:
        throw = _scaled(t, s)
    # Throw i of object j: default_rng([seed', i]) with seed' = seed * 1000 + j (config's rule).
    return Experiment(name=obj.name, source=obj.die.source, die=obj.die,
                      table=obj.table, throw=throw,
                      throws=1, chunk_size=1, seed=seed * 1000 + obj.index,
                      physics=(PhysicsSettings(engine=engine) if time_step is None else
                               PhysicsSettings(engine=engine, time_step=time_step)))


def trial_library(obj: DataObject, params: dict[str, float]) -> MaterialLibrary:
    """The pair values of a trial as a library for overlay(): friction, restitution and the
    spinning lever arm as given, the rolling lever arm as given or else the pair's data."""
    die, surface = obj.pair
    base = library().pair(die, surface)
    key = (die.name, surface.name) if die.name <= surface.name else (surface.name, die.name)
    stated = {"friction": params["friction"], "restitution": params["restitution"],
              "rolling_friction": params.get("rolling_friction", base.rolling_friction),
              "spinning_friction": params.get("spinning_friction", base.spinning_friction),
              "source": "calibration trial"}
    return MaterialLibrary({die.name: die, surface.name: surface}, {key: stated})


def simulate(obj: DataObject, params: dict[str, float], seed: int, indices: Sequence[int],
             engine: str = "pybullet", time_step: float | None = None) -> SimCounts:
    """Throw `obj` at `params` for the given throw indices on `engine` (at `time_step`, the
    default step when None); count on-table outcomes by group."""
    from simulator.experiments.dispatch import ThrowSimulator

    exp = experiment_for(obj, params, seed, engine, time_step)
    group_of = {v: gi for gi, (_, vals) in enumerate(obj.groups) for v in vals}
    counts = [0] * len(obj.groups)
    off = err = 0
    with overlay(trial_library(obj, params)):
        sim = ThrowSimulator(exp)  # a fresh world: its contact cache must see this trial
        try:
            rows = sim.run(list(indices))
        finally:
            sim.world.close()
    for r in rows:
        if r.status == "on_table" and r.face is not None:
            counts[group_of[r.face]] += 1
        elif r.status == "error":
            err += 1
        else:
            off += 1
    return SimCounts(tuple(counts), off, err)


_POOL_OBJECTS: dict[str, DataObject] = {}


def _init_worker(objects: list[DataObject]) -> None:
    for o in objects:
        _POOL_OBJECTS[_key(o)] = o


def _init_pool_worker(objects: list[DataObject]) -> None:
    """A pool worker's set-up: Ctrl-C is the calling process's to handle, not the worker's."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(objects)


def _key(o: DataObject) -> str:
    return f"{o.die.source}#{o.index}"


def _task(args: tuple[str, dict[str, float], int, int, int, str, float | None]) -> SimCounts:
    key, params, seed, lo, hi, engine, time_step = args
    return simulate(_POOL_OBJECTS[key], params, seed, range(lo, hi), engine, time_step)


class Simulator:
    """Throws objects at parameter points, `throws` each, on `workers` processes; caches
    every (object, point, seed). Chunks of CHUNK throws keep both cores busy."""

    CHUNK = 50

    def __init__(self, objects: Sequence[DataObject], throws: int, workers: int = 1,
                 engine: str = "pybullet", time_step: float | None = None) -> None:
        self.throws = throws
        self.engine = engine
        self.time_step = time_step
        self.workers = workers
        self.cache: dict[tuple[str, tuple[tuple[str, float], ...], int], SimCounts] = {}
        self.evaluations = 0
        self.thrown = 0
        self._pool: Any = None
        self._objects = list(objects)

    def __enter__(self) -> Simulator:
        if self.workers > 1:
            # An executor, not a multiprocessing.Pool: a worker that dies (a crash, the OOM
            # killer) breaks the pool with an error here, where a Pool's map waits for ever.
            # Forked before the executor's thread starts (set-up shared, patched settings too).
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                             initializer=_init_pool_worker, initargs=(self._objects,))
        else:
            _init_worker(self._objects)
        return self

    def __exit__(self, error: type[BaseException] | None, *_: Any) -> None:
        if self._pool is not None:
            if error is not None:  # interrupted (Ctrl-C, a test's time-out): no wait on a worker
                for proc in list(self._pool._processes.values()):
                    proc.kill()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(self, objects: Sequence[DataObject], params: dict[str, float], seed: int) -> list[SimCounts]:
        pkey = tuple(sorted((k, round(v, 12)) for k, v in params.items()))
        todo = [o for o in objects if (_key(o), pkey, seed) not in self.cache]
        if todo:
            self.evaluations += 1
            tasks = [(_key(o), params, seed, lo, min(lo + self.CHUNK, self.throws), self.engine,
                      self.time_step)
                     for o in todo for lo in range(0, self.throws, self.CHUNK)]
            parts = (list(self._pool.map(_task, tasks)) if self._pool is not None
                     else [_task(t) for t in tasks])
            self.thrown += len(todo) * self.throws
            it = iter(parts)
            for o in todo:
                acc = [0] * len(o.groups)
                off = err = 0
                for _ in range(0, self.throws, self.CHUNK):
                    part = next(it)
                    acc = [a + b for a, b in zip(acc, part.counts, strict=True)]
                    off += part.off_table
                    err += part.errors
                self.cache[(_key(o), pkey, seed)] = SimCounts(tuple(acc), off, err)
        return [self.cache[(_key(o), pkey, seed)] for o in objects]


# -- the fit ------------------------------------------------------------------------------


def chi_square(objects: Sequence[DataObject], sims: Sequence[SimCounts],
               binomial: bool = False) -> tuple[float, int]:
    """Sum of the homogeneity X^2 of measured against simulated counts, and its degrees of
    freedom (groups seen in neither are dropped). The measured counts weigh as N / their
    dispersion (`binomial`: as N). An object no throw of which stayed on the table scores as
    if every group were missed by a wide margin."""
    total, df = 0.0, 0
    for o, s in zip(objects, sims, strict=True):
        assert o.counts is not None
        if s.n == 0:
            total += 1e4
            df += len(o.groups) - 1
            continue
        measured = list(o.counts) if binomial else list(o.effective_counts())
        res = homogeneity(measured, list(s.counts))
        total += res.statistic
        df += res.df
    return total, df


def phi_df(objects: Sequence[DataObject]) -> int | None:
    """The degrees of freedom of the dispersion the objects' counts are weighed by (the
    fewest, where they differ); None where every one is binomial."""
    dfs = [o.dispersion_df for o in objects if o.counts is not None and o.dispersion_df]
    return min(dfs) if dfs else None
