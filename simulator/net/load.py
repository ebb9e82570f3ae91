"""Load on a table server: many tables at once, each played by simulated clients.

`run_load` starts `tabletop serve` in a process of its own (so the clients' work does not
share its interpreter), makes `tables` tables of one game, and for each table opens one
connection per seat, each playing its seat with a bot on the client's side (as `tabletop
join --auto` does), plus `watchers` spectators. It measures:

- tables and actions (every log line after the header: rolls, bots, persons) a second,
  over the wall time from the first table made to the last game over;
- latency from a person's action leaving its client to the step reaching the last client
  at that table (every seat and spectator), median and 99th percentile, in ms.

`benchmarks/bench_server.py` is its command line; tests run it small.
"""

from __future__ import annotations

import asyncio
import collections
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulator.net.client import Client, TableRecord, make_chooser

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class LoadResult:
    game: str
    tables: int
    clients: int
    wall_s: float
    steps: int  # log lines after the headers, all tables
    person_actions: int
    latency_ms: tuple[float, ...]  # one per person action

    @property
    def tables_per_s(self) -> float:
        return self.tables / self.wall_s

    @property
    def actions_per_s(self) -> float:
        return self.steps / self.wall_s

    def latency(self, q: float) -> float:
        """The q-quantile of the latencies (ms), by the nearest rank."""
        ordered = sorted(self.latency_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]

    def lines(self) -> list[str]:
        return [
            f"server load: {self.tables} tables of {self.game}, {self.clients} clients, "
            f"{self.wall_s:.2f} s wall",
            f"  tables per second:  {self.tables_per_s:.2f} /s",
            f"  actions per second: {self.actions_per_s:.1f} /s ({self.steps} steps, "
            f"{self.person_actions} sent by clients)",
            f"  latency, action to the last client's event: median "
            f"{statistics.median(self.latency_ms) if self.latency_ms else float('nan'):.2f} ms, "
            f"p99 {self.latency(0.99):.2f} ms",
        ]


def start_server(games_dir: Path, quiet: bool = True) -> tuple[subprocess.Popen[str], str]:
    """`tabletop serve --port 0` in a process of its own; (process, its ws:// URL)."""
    command = [sys.executable, "-m", "simulator.cli.main", "serve", "--port", "0",
               "--games-dir", str(games_dir)]
    proc = subprocess.Popen(command + (["--quiet"] if quiet else []), cwd=ROOT, text=True,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError(f"tabletop serve did not start: {line.strip()}")
    # Read the rest of its stderr as it comes, so a server with much to say never blocks on
    # a full pipe; the last lines are kept (`server_said`).
    said: collections.deque[str] = collections.deque(maxlen=200)
    SAID[proc.pid] = said
    threading.Thread(target=lambda: said.extend(proc.stderr or ()), daemon=True).start()
    return proc, line.split("listening on ")[1].split(";")[0].strip()


SAID: dict[int, collections.deque[str]] = {}


def server_said(proc: subprocess.Popen[str]) -> str:
    """The last lines a server started by `start_server` wrote to stderr."""
    return "".join(SAID.get(proc.pid, ()))


def run_load(game: str = "dicewar", tables: int = 20, seats: int = 2, watchers: int = 0,
             seed: int = 0, games_dir: Path | None = None) -> LoadResult:
    """Serve `tables` games played by simulated clients (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="tabletop-load-") as scratch:
        proc, url = start_server(games_dir or Path(scratch))
        try:
            return asyncio.run(_load(url, game, tables, seats, watchers, seed))
        finally:
            proc.terminate()
            proc.wait(30)


async def _load(url: str, game: str, tables: int, seats: int, watchers: int,
                seed: int) -> LoadResult:
    sent_at: dict[tuple[str, int], float] = {}
    last_at: dict[tuple[str, int], float] = {}
    arrivals: dict[tuple[str, int], int] = {}
    per_table = seats + watchers

    def sent(record: TableRecord) -> None:
        sent_at[(record.table, len(record.lines))] = time.perf_counter()

    def tell(record: TableRecord, line: dict[str, Any]) -> None:
        key = (record.table, len(record.lines) - 1)
        last_at[key] = time.perf_counter()
        arrivals[key] = arrivals.get(key, 0) + 1

    t0 = time.perf_counter()
    games = await asyncio.gather(*(_table(url, game, seats, watchers, seed + i, sent, tell)
                                   for i in range(tables)))
    wall = time.perf_counter() - t0
    latency = tuple(1000.0 * (last_at[k] - t) for k, t in sent_at.items()
                    if arrivals.get(k) == per_table)
    steps = sum(len(lines) - 1 for lines in games)
    return LoadResult(game, tables, tables * per_table, wall, steps, len(sent_at), latency)


async def _table(url: str, game: str, seats: int, watchers: int, seed: int,
                 sent: Any, tell: Any) -> list[dict[str, Any]]:
    clients = [await Client.open(url) for _ in range(seats + watchers)]
    try:
        table = await clients[0].create(game, ["open"] * seats, seed=seed)
        records = [await c.join(table, i) for i, c in enumerate(clients[:seats])]
        records += [await c.watch(table) for c in clients[seats:]]
        choosers: list[Any] = [make_chooser(game, "random", seed * 100 + i) for i in range(seats)]
        choosers += [None] * watchers
        await asyncio.gather(*(c.follow(r, ch, tell, sent=sent)
                               for c, r, ch in zip(clients, records, choosers, strict=True)))
        return records[0].lines
    finally:
        for c in clients:
            await c.close()
