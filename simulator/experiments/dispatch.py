"""Running an experiment: throws in chunks on local processes or a Ray cluster, each chunk
committed to the store as it arrives, resumable after any interruption.

Chunk c holds the throw indices in [c * chunk_size, (c + 1) * chunk_size) not yet stored.
Throw i is drawn from its own seed (config.draw_throw) and simulated in a fresh Bullet
world (World rebuilds for every throw), so its row is the same whichever process, backend
or run computes it; the store's primary key on the index makes "none twice" structural.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dice_models import DataError
from simulator.experiments.config import (
    DrawnThrow,
    Experiment,
    StopRule,
    draw_throw,
    lowest_face,
    quat_rows,
)
from simulator.experiments.stats import Sprt
from simulator.experiments.store import DB_NAME, Store, ThrowRow
from simulator.physics import DiePose, DieShape, PhysicsError, die_shape
from simulator.physics.engines import make_world
from simulator.physics.settings import versions

BACKENDS = ("local", "ray", "gpu", "warp-cpu")  # gpu, warp-cpu: MuJoCo Warp (batched.py)


@dataclass(frozen=True)
class RunSummary:
    out: str
    throws_target: int
    stored: int  # rows in the store after this run
    ran: int  # throws simulated by this run
    seconds: float
    stop: dict[str, Any] | None  # the sequential test's decision, if it made one

    @property
    def throws_per_s(self) -> float:
        return self.ran / self.seconds if self.seconds > 0 else 0.0


_FROZEN: list[bool] = []  # this process has frozen its set-up


def freeze_once() -> None:
    """Move what a worker holds once set up (the modules, the physics, the die) out of the
    garbage collector's sight, once a process: the throws' short-lived objects set off
    collections that walked all of it, about 5% of a worker's time (the lab ran at
    0.88-0.91 of World.throw alone in one process; 1.00-1.02 with this). Collected first,
    so no garbage is frozen; once only, since what is frozen is never collected as a cycle
    (the calibration makes a simulator for every trial: those stay collectable)."""
    if not _FROZEN:
        gc.collect()
        gc.freeze()
        _FROZEN.append(True)


class ThrowSimulator:
    """Simulates throws of one experiment in this process; one per worker."""

    def __init__(self, exp: Experiment) -> None:
        self.exp = exp
        self.shape = die_shape(exp.die)
        self.world = make_world(exp.table, exp.physics)  # the experiment's engine
        freeze_once()

    def run(self, indices: list[int]) -> list[ThrowRow]:
        # All of a chunk's throws are drawn first: drawn between two simulations, each draw
        # ran on caches the physics had just flushed, at several times its cost.
        return [self.simulate(drawn) for drawn in
                [draw_throw(self.exp, i, self.shape) for i in indices]]

    def simulate(self, drawn: DrawnThrow) -> ThrowRow:
        world = self.world
        try:
            report = world.throw("die", self.exp.die, drawn.throw)
        except PhysicsError as exc:
            return error_row(drawn, type(exc).__name__)
        finally:
            world.scene.clear()
        return row_of(drawn, self.shape, report.outcome, report.sim_time_s, report.steps)


def row_of(drawn: DrawnThrow, shape: DieShape, out: DiePose, sim_time_s: float, steps: int) -> ThrowRow:
    """A stored row: the drawn throw's facts and how the die came to rest (every backend)."""
    down = lowest_face(shape.poly.normals.tolist(), quat_rows(out.quaternion)[2])
    return ThrowRow(drawn.index, drawn.initial_down, drawn.height, drawn.speed, drawn.spin,
                    drawn.energy_j, out.status, out.reason, int(out.face), int(shape.values[down]),
                    float(sim_time_s), int(steps), drawn.style)


def error_row(drawn: DrawnThrow, error: str) -> ThrowRow:
    """A stored row of a throw whose simulation failed (`error`: the PhysicsError's name)."""
    return ThrowRow(drawn.index, drawn.initial_down, drawn.height, drawn.speed, drawn.spin,
                    drawn.energy_j, "error", error, None, None, 0.0, 0, drawn.style)


def run_experiment(exp: Experiment, out: str | Path, throws: int | None = None, workers: int = 1,
                   backend: str = "local", ray_address: str | None = None,
                   progress: bool = True, batch: int | None = None) -> RunSummary:
    """Run (or resume) `exp` into `out` until it holds `throws` throws (the experiment's
    count by default) or its stopping rule decides. The batched backends (gpu, warp-cpu)
    simulate with MuJoCo Warp, `batch` throws at once: their experiment's engine is
    mujoco-warp."""
    exp, batched, target = _checked(exp, throws, workers, backend, batch)
    # Ray is started or reached before a new store is made: a cluster that cannot be had is
    # one line and leaves no results file behind. Resuming, only once there are throws to run.
    fresh = not _has_results(out)
    session = _RaySession(workers, ray_address) if backend == "ray" and fresh else None
    try:
        store = Store.create_or_open(out, exp)
    except BaseException:
        if session is not None:
            session.close()
        raise
    t0 = time.perf_counter()
    try:
        seq = _Sequential(exp.stop, len(exp.faces)) if exp.stop is not None else None
        decision = store.stop_decision()
        if seq is not None and decision is None:
            decision = seq.feed(store.rows())
            if decision is not None:  # killed between the deciding chunk and recording it
                store.record_stop(decision)
        if decision is not None:
            return RunSummary(str(out), target, store.count(), 0, 0.0, decision)
        done = store.done_indices()
        chunks = list(_missing_chunks(target, exp.chunk_size, done))
        todo = sum(len(c) for c in chunks)
        bar = _Progress(target, len(done), exp.name, enabled=progress and todo > 0)
        if not chunks:
            stream: Any = iter(())
        elif batched:
            from simulator.experiments.batched import batched_stream

            stream = batched_stream(exp, chunks, backend, batch)
        elif backend == "ray":
            if session is None:
                session = _RaySession(workers, ray_address)
            stream = _RayStream(exp, chunks, workers, session)
        else:
            stream = _local_stream(exp, chunks, workers)
        ran, decision = _feed(stream, store, bar, seq)
        seconds = time.perf_counter() - t0
        store.log_run({"backend": backend, "workers": workers, "ray_address": ray_address,
                       "batch": batch,
                       "ran": ran, "seconds": round(seconds, 3), "target": target,
                       "pid": os.getpid(), "versions": versions()})
        return RunSummary(str(out), target, store.count(), ran, seconds, decision)
    finally:
        store.close()
        if session is not None:
            session.close()


def _checked(exp: Experiment, throws: int | None, workers: int, backend: str,
             batch: int | None) -> tuple[Experiment, bool, int]:
    """The run's arguments checked before anything is written: the experiment (on the
    mujoco-warp engine for a batched backend), whether the backend is batched, and the
    throws to reach."""
    if backend not in BACKENDS:
        raise DataError("--backend", "backend", f"must be one of {', '.join(BACKENDS)}", backend)
    batched = backend in ("gpu", "warp-cpu")
    if batched:  # fail on the setup (no extra, no GPU) before anything is written
        from simulator.experiments.batched import device_for

        device_for(backend)
        exp = exp.with_(physics=exp.physics.with_(engine="mujoco-warp"))
        if batch is not None and batch < 1:
            raise DataError("--batch", "batch", "must be at least 1", batch)
    elif exp.physics.engine == "mujoco-warp":
        raise DataError("--backend", "backend", "the mujoco-warp engine runs on the gpu or "
                        "warp-cpu backend", backend)
    if workers < 1:
        raise DataError("--workers", "workers", "must be at least 1", workers)
    target = exp.throws if throws is None else throws
    if target < 1:
        raise DataError("--throws", "throws", "must be at least 1", target)
    return exp, batched, target


def _feed(stream: Any, store: Store, bar: _Progress,
          seq: _Sequential | None) -> tuple[int, dict[str, Any] | None]:
    """Store the stream's chunks as they come, until it ends or the stopping rule decides;
    the throws run and the decision. The stream is closed either way."""
    ran = 0
    decision: dict[str, Any] | None = None
    try:
        with bar:
            for rows in stream:
                store.add_chunk(rows)
                ran += len(rows)
                bar.advance(len(rows))
                if seq is not None:
                    decision = seq.feed(rows)
                    if decision is not None:
                        store.record_stop(decision)
                        break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return ran, decision


def _has_results(out: str | Path) -> bool:
    try:
        db = Path(out) / DB_NAME
        return db.is_file() and db.stat().st_size > 0
    except OSError:  # Store.create_or_open says what is wrong with --out
        return False


# -- sequential stopping ------------------------------------------------------------------


class _Sequential:
    """Feeds rows to the SPRT in throw order (chunks arrive in any order), so the stopping
    point is the same whatever the backend or worker count."""

    def __init__(self, rule: StopRule, k: int) -> None:
        self.rule = rule
        self.sprt = Sprt(1.0 / k, rule.p1, rule.alpha, rule.beta)
        self.next = 0
        self.pending: dict[int, ThrowRow] = {}

    def feed(self, rows: list[ThrowRow]) -> dict[str, Any] | None:
        for r in rows:
            self.pending[r.idx] = r
        while self.next in self.pending:
            row = self.pending.pop(self.next)
            self.next += 1
            if row.status != "on_table":
                continue  # no face: no evidence either way
            verdict = self.sprt.update(row.face == self.rule.face)
            if verdict is not None:
                return {"rule": "sprt", "decision": verdict, "throws": self.next,
                        "on_table": self.sprt.n, "llr": self.sprt.llr, "face": self.rule.face,
                        "p1": self.rule.p1}
        return None


def sprt_over(rows: list[ThrowRow], rule: StopRule, k: int) -> dict[str, Any]:
    """The SPRT's state after `rows` (in throw order): its decision, or 'undecided'."""
    seq = _Sequential(rule, k)
    decision = seq.feed(rows)
    if decision is not None:
        return decision
    return {"rule": "sprt", "decision": "undecided", "throws": seq.next, "on_table": seq.sprt.n,
            "llr": seq.sprt.llr, "face": rule.face, "p1": rule.p1}


# -- chunks and backends ------------------------------------------------------------------


def _missing_chunks(target: int, size: int, done: set[int]) -> Iterator[list[int]]:
    for start in range(0, target, size):
        chunk = [i for i in range(start, min(start + size, target)) if i not in done]
        if chunk:
            yield chunk


Stream = Iterable[list[ThrowRow]]


def _local_stream(exp: Experiment, chunks: list[list[int]], workers: int) -> Stream:
    if workers == 1 or len(chunks) <= 1:
        return _in_process(exp, chunks)
    return _PoolStream(exp, chunks, workers)


def _in_process(exp: Experiment, chunks: list[list[int]]) -> Iterator[list[ThrowRow]]:
    sim = ThrowSimulator(exp)
    for chunk in chunks:
        yield sim.run(chunk)


class _PoolStream:
    """Chunks on forked worker processes. The workers are forked here, before the progress
    bar starts its thread: a fork copies no threads, and a lock one of them held would stay
    held in the child."""

    def __init__(self, exp: Experiment, chunks: list[list[int]], workers: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                        initializer=_init_worker, initargs=(exp,))
        self.queue = iter(chunks)
        self.pending: set[Future[list[ThrowRow]]] = set()
        for chunk in _take(self.queue, 2 * workers):  # the first submit forks every worker
            self.pending.add(self.pool.submit(_worker_run, chunk))

    def __iter__(self) -> Iterator[list[ThrowRow]]:
        while self.pending:
            finished, self.pending = wait(self.pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                for chunk in _take(self.queue, 1):
                    self.pending.add(self.pool.submit(_worker_run, chunk))
                yield fut.result()

    def close(self) -> None:
        # Chunks still running are thrown away (a rerun redoes them): end the workers now
        # rather than wait for them, so Ctrl-C takes effect at once.
        procs = list(getattr(self.pool, "_processes", {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(timeout=5)


_WORKER: dict[str, ThrowSimulator] = {}


def _init_worker(exp: Experiment) -> None:
    # Ctrl-C goes to the whole process group; the parent alone decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    _WORKER["sim"] = ThrowSimulator(exp)


def _die_with_parent() -> None:
    """A run killed with SIGKILL cannot stop its workers; on Linux, ask the kernel to end
    each worker when its parent dies (PR_SET_PDEATHSIG), so none lingers."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before the request was made
        os._exit(1)


def _worker_run(indices: list[int]) -> list[ThrowRow]:
    return _WORKER["sim"].run(indices)


class _RaySession:
    """Ray for one run: a local cluster of `workers` CPUs started here (shut down by
    `close`), or the cluster at `address`. Made before the store, so a cluster that cannot
    be started or reached is one error line and leaves no results file. A connection the
    caller already holds (a script that ran ray.init) is used as it is and left open."""

    def __init__(self, workers: int, address: str | None) -> None:
        ray = self.ray = _import_ray()
        self.address = address
        self.started = False
        if address:
            _check_reachable(address)
        if ray.is_initialized():
            return
        _token_auth_if_available()
        kwargs: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False,
                                  "include_dashboard": False}
        try:
            with _quiet_stderr():
                if address:
                    ray.init(address=address, **kwargs)
                else:  # "local": a new cluster even where one runs or RAY_ADDRESS is set
                    # (ray.init() would join that one, and then refuse num_cpus)
                    ray.init(address="local", num_cpus=workers, **kwargs)
        except Exception as exc:  # ConnectionError, AuthenticationError, ...: the user's setup
            with contextlib.suppress(Exception), _quiet_stderr():
                ray.shutdown()  # what a half-made start left running
            raise _ray_error(exc, address) from None
        self.started = True

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
            self.started = False


class _RayStream:
    """Chunks on the session's cluster, yielded as it finishes them."""

    def __init__(self, exp: Experiment, chunks: list[list[int]], workers: int,
                 session: _RaySession) -> None:
        self.ray = session.ray
        self.exp, self.chunks, self.workers, self.address = exp, chunks, workers, session.address
        self.pending: list[Any] = []

    def __iter__(self) -> Iterator[list[ThrowRow]]:
        ray = self.ray
        remote = ray.remote(num_cpus=1)(ray_run_chunk)
        exp_ref = ray.put(self.exp)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        window = 2 * (max(self.workers, cpus) if self.address else self.workers)
        queue = iter(self.chunks)
        for chunk in _take(queue, window):
            self.pending.append(remote.remote(exp_ref, chunk))
        while self.pending:
            ready, self.pending = ray.wait(self.pending, num_returns=1)
            for chunk in _take(queue, 1):
                self.pending.append(remote.remote(exp_ref, chunk))
            yield ray.get(ready[0])

    def close(self) -> None:
        for ref in self.pending:
            self.ray.cancel(ref, force=True)
        self.pending = []


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise DataError("--backend", "backend", "ray is not installed: pip install 'tabletop[ray]'",
                        show_value=False) from None
    return ray


def _token_auth_if_available() -> None:
    """Send this process's Ray token where it has one and the user set no RAY_AUTH_MODE.

    Ray >= 2.59 starts clusters with token authentication: ray.init() always, `ray start`
    once a token is in ~/.ray/auth_token (which the first local run writes). But given an
    address, ray.init connects without the token unless RAY_AUTH_MODE=token is set, retries
    for 20 s and fails ("cannot start or reach Ray"). So the driver sends the token it has
    (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token), which a cluster without
    authentication accepts too. A mode the user set is kept; Ray before 2.59 ignores it."""
    if "RAY_AUTH_MODE" in os.environ or not _ray_token_here():
        return
    os.environ["RAY_AUTH_MODE"] = "token"
    raylet = sys.modules.get("ray._raylet")
    config = getattr(raylet, "Config", None)
    if config is not None and hasattr(config, "initialize"):
        config.initialize("")  # Ray read its settings when imported: again, with the mode


def _ray_token_here() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return True
    try:
        paths = [Path(os.environ["RAY_AUTH_TOKEN_PATH"])] if os.environ.get("RAY_AUTH_TOKEN_PATH") else []
        paths.append(Path.home() / ".ray" / "auth_token")
        return any(p.is_file() for p in paths)
    except (OSError, RuntimeError):  # RuntimeError: no home directory to be found
        return False


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null while Ray starts or connects: its C++ client writes a
    warning line for every second it retries a cluster (20 of them when a token is refused);
    the run's error is one line, made from the exception."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _ray_error(exc: BaseException, address: str | None) -> DataError:
    """One line for a Ray that could not be started or reached: its first line, or what a
    refused token means."""
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and len(chain) < 8:
        chain.append(e)
        e = e.__cause__ or e.__context__
    text = " ".join(f"{type(e).__name__} {e}" for e in chain)
    if "InvalidAuthToken" in text or "AuthenticationError" in text or "Unauthenticated" in text:
        why = ("the cluster wants its token (token authentication) and this process has "
               "none it accepts: copy the "
               "head node's ~/.ray/auth_token here or set RAY_AUTH_TOKEN to it")
    else:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        why = first[:300]
    if address:
        return DataError("--ray-address", "ray_address", f"cannot reach the Ray cluster: {why}",
                         address)
    return DataError("--backend", "backend", f"cannot start a local Ray cluster: {why}",
                     show_value=False)


def _check_reachable(address: str) -> None:
    """Fail in seconds on a wrong HOST:PORT; Ray itself retries for minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return  # 'auto', 'ray://...' forms: leave them to Ray
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise DataError("--ray-address", "ray_address", f"no Ray head answers there "
                        f"({exc.strerror or exc}); start one with `ray start --head`",
                        address) from None


def ray_run_chunk(exp: Experiment, indices: list[int]) -> list[ThrowRow]:
    """A Ray task: one chunk, on a simulator kept per worker process and experiment."""
    key = exp.fingerprint()
    sim = _WORKER.get(key)
    if sim is None:
        sim = _WORKER[key] = ThrowSimulator(exp)
    return sim.run(indices)


def _take(it: Iterator[list[int]], n: int) -> list[list[int]]:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


class _Progress:
    """A rich progress bar on stderr: throws done, throws per second, time left."""

    def __init__(self, total: int, done: int, label: str, enabled: bool) -> None:
        self.enabled = enabled
        self.total, self.done, self.label = total, done, label
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} throws/s, {task.fields[eta]} left"),
                console=Console(stderr=True), transient=False)
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total,
                                                 completed=self.done, rate="-", eta="-")
            self._t0 = time.perf_counter()
            self._ran = 0
        return self

    def advance(self, n: int) -> None:
        if self._progress is not None:
            self._ran += n
            self.done += n
            rate = self._ran / max(1e-9, time.perf_counter() - self._t0)
            left = int((self.total - self.done) / rate) if rate > 0 else 0
            eta = f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"
            self._progress.update(self._task, advance=n, rate=f"{rate:.0f}", eta=eta)

    def __exit__(self, *_: Any) -> None:
        if self._progress is not None:
            self._progress.stop()
