"""The table server behind `tabletop serve`: one authority for any number of tables.

Clients send the messages `simulator.net.protocol` checks; the server runs every rule
engine and the physics, and tells each client at a table every step in order (the log
line with its state digest, the state after it, whose turn it is, a throw's trajectory).

How the table is kept safe:

- Every message is checked (size, rate, schema) before anything reads it; a bad one gets an
  `error` reply and a log line, and changes nothing. A connection that floods is closed.
- A seat is taken with `join`, which answers with a secret token; `act` and `bot` must
  carry the token of their seat (compared in constant time), and an action is taken only
  from the seat whose turn it is and only if the engine finds it legal. A spectator holds
  no token and so cannot act.
- All game work (engines, bots, physics, saving) runs in one worker thread, one job at a
  time, so the event loop keeps answering every client while a throw is simulated, and no
  two jobs ever touch a table at once. Each table has one driver task that takes its steps
  (the server's own: rolls and bots; a person's: from the table's queue); a client's
  connection only queues its action, so a client that disconnects mid-throw loses nothing.
  A client that joins, watches or takes its seat back is sent the table between two steps
  (each table's `telling` lock), so every step it is sent was saved and told, and the turn
  it is sent is the one its actions are checked against.
- Each table keeps its log and autosave in `--games-dir` (`simulator.net.table`); a server
  started again on the folder loads every table and goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from dice_models.errors import DataError
from rules import registry
from rules.core import RulesError, TableError
from simulator.net import protocol
from simulator.net.protocol import ProtocolError, encode
from simulator.net.table import HUMAN, LOG_FILE, TABLE_FILE, GameTable, Step, StepFailed

log = logging.getLogger("tabletop.serve")
T = TypeVar("T")

MAX_TABLES = 1000
OUTBOX = 10_000  # messages waiting for a slow client before its connection is closed
QUEUE = 4  # a person's actions waiting at their table
SAVERS = 8  # autosaves written at once


@dataclass(eq=False)
class Peer:
    """One connection: its outbox (a writer task sends it in order), its flood bucket, and
    the tables it follows."""

    ws: ServerConnection
    outbox: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(OUTBOX))
    tokens: float = float(protocol.BURST)
    stamp: float = field(default_factory=time.monotonic)
    refused: int = 0
    name: str = ""

    @property
    def peer(self) -> str:
        address = self.ws.remote_address
        return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)

    def send(self, kind: str, **fields: Any) -> None:
        try:
            self.outbox.put_nowait(encode(kind, **fields))
        except asyncio.QueueFull:  # it has stopped reading: it may rejoin and be sent all
            log.warning("%s: too slow; closing", self.peer)
            asyncio.ensure_future(self.ws.close(1008, "too slow"))

    def allow(self) -> bool:
        """Take a token from the flood bucket (RATE_PER_S, BURST)."""
        now = time.monotonic()
        self.tokens = min(float(protocol.BURST),
                          self.tokens + (now - self.stamp) * protocol.RATE_PER_S)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False)
class LiveTable:
    """A table being served: the game, who follows it, and the persons' queued actions."""

    game: GameTable
    followers: set[Peer] = field(default_factory=set)
    # (client, seat, action, request id, the step it was chosen at)
    queue: asyncio.Queue[tuple[Peer, int, Any, int | None, int | None]] = field(
        default_factory=lambda: asyncio.Queue(QUEUE))
    to_move: int | None = None  # the seat a person must act for (read by the handlers)
    driver: asyncio.Task[None] | None = None
    # Held while a step is taken and told, and while a client is sent the table so far: a
    # client is never sent a step before it is saved and told, and the turn it is sent is
    # the one `to_move` gates its actions by.
    telling: asyncio.Lock = field(default_factory=asyncio.Lock)


class TableServer:
    """The tables and the clients (see the module docstring)."""

    def __init__(self, games_dir: Path | None = None, max_tables: int = MAX_TABLES) -> None:
        self.games_dir = games_dir
        self.max_tables = max_tables
        self.tables: dict[str, LiveTable] = {}
        self.clients: set[Peer] = set()
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="tabletop-table")
        # Autosaves wait on the disk (fsync), not on Python: several at once, each table's
        # in order (its driver waits for its save before telling the step).
        self._saver = ThreadPoolExecutor(SAVERS, thread_name_prefix="tabletop-save")
        self._next = 1
        self.refused = 0  # messages refused, all clients together (the tests read it)

    # -- starting -------------------------------------------------------------------------

    def load(self) -> list[str]:
        """Load every table autosaved under `games_dir`; one error line per damaged one
        (which stays on disk as it is and is not served). The ids loaded."""
        if self.games_dir is None or not self.games_dir.is_dir():
            return []
        for folder in sorted(self.games_dir.iterdir()):
            if not (folder / TABLE_FILE).is_file():
                continue
            try:
                game = GameTable.load(folder)
            except (RulesError, DataError) as exc:
                log.error("not resumed: %s", exc)
                continue
            game.defer_saves = True
            self.tables[game.id] = LiveTable(game, to_move=game.to_move())
            number = re.fullmatch(r"t(\d+)", game.id)
            if number:
                self._next = max(self._next, int(number.group(1)) + 1)
        return list(self.tables)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> Server:
        """Listen (port 0: any free port; read it from `port_of`) and drive every loaded
        table that was playing."""
        server = await serve(self.handle, host, port, max_size=protocol.HARD_LIMIT_BYTES,
                             max_queue=64)
        for live in self.tables.values():
            self._kick(live)
        return server

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        for live in list(self.tables.values()):
            if live.driver is not None:
                live.driver.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await live.driver
        # an autosave under way when its driver was cancelled is finished before any log
        # is closed
        await loop.run_in_executor(None, self._saver.shutdown)
        await loop.run_in_executor(self._worker, self._close_tables)
        self._worker.shutdown(wait=True)

    def _close_tables(self) -> None:
        for live in list(self.tables.values()):
            live.game.close()

    # -- a connection ---------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        client = Peer(ws)
        self.clients.add(client)
        writer = asyncio.create_task(self._write(client))
        client.send("welcome", protocol=protocol.PROTOCOL, games=registry.names())
        try:
            async for raw in ws:
                if not client.allow():
                    client.refused += 1
                    self._refuse(client, None, "too many messages: at most "
                                 f"{protocol.RATE_PER_S:g} a second (bursts of {protocol.BURST})")
                    if client.refused >= protocol.CLOSE_AFTER:
                        log.warning("%s: flooding; closing", client.peer)
                        await ws.close(1008, "flooding")
                        break
                    continue
                try:
                    message = protocol.parse(raw)
                except ProtocolError as exc:
                    request = None if exc.request_id is None else {"id": exc.request_id}
                    self._refuse(client, request, str(exc))
                    continue
                await self._dispatch(client, message)
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            for live in self.tables.values():
                live.followers.discard(client)
            writer.cancel()

    async def _write(self, client: Peer) -> None:
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                await client.ws.send(await client.outbox.get())

    def _refuse(self, client: Peer, request: dict[str, Any] | None, message: str) -> None:
        self.refused += 1
        log.info("%s: refused: %s", client.peer, message)
        reply: dict[str, Any] = {"message": message}
        if request is not None:
            if "type" in request:
                reply["request"] = request["type"]
            if "id" in request:
                reply["id"] = request["id"]
        client.send("error", **reply)

    async def _dispatch(self, client: Peer, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        try:
            if kind == "hello":
                client.name = msg.get("name", "")
                self._reply(client, msg, "hello", name=client.name)
            elif kind == "list":
                self._reply(client, msg, "tables",
                            tables=[t.game.summary() for t in self.tables.values()])
            elif kind == "create":
                await self._create(client, msg)
            else:
                live = self.tables.get(msg["table"])
                if live is None:
                    raise RulesError(f"{kind}: table: no table {msg['table']!r}")
                await getattr(self, f"_{kind}")(client, msg, live)
        except (RulesError, DataError) as exc:  # the client's mistake: nothing changed
            text = str(exc)  # named by its request, then its field
            self._refuse(client, msg, text if text.startswith(f"{kind}: ") else f"{kind}: {text}")
        except TableError as exc:
            self._refuse(client, msg, f"{kind}: the table could not settle it, try another: {exc}")

    def _reply(self, client: Peer, request: dict[str, Any], kind: str, **fields: Any) -> None:
        if "id" in request:
            fields["id"] = request["id"]
        client.send(kind, **fields)

    async def _create(self, client: Peer, msg: dict[str, Any]) -> None:
        if len(self.tables) >= self.max_tables:
            raise RulesError(f"create: the server holds its limit of {self.max_tables} tables")
        for name, value in (msg.get("options") or {}).items():
            if isinstance(value, str) and _names_a_file(value):
                raise RulesError(f"create: options/{name}: the server plays shipped crews, "
                                 "maps, boards and tribes by name, never its own files "
                                 f"(got {protocol.shorten(value)})")
        game = await self._run(self._make_table, msg)
        game.defer_saves = True
        live = LiveTable(game)
        self.tables[game.id] = live
        log.info("%s: created %s (%s, seats %s)", client.peer, game.id, game.spec.name,
                 ",".join(msg["seats"]))
        self._reply(client, msg, "created", table=game.summary())
        if game.started:  # bots only: it plays at once
            self._tell_start(live)

    def _make_table(self, msg: dict[str, Any]) -> GameTable:
        """A new table as `create` asks (in the worker: one at a time). It takes the next
        id only once it is made (a refused `create` uses none up), and never the id of a
        folder already in `games_dir` (a table that was not resumed keeps its files)."""
        number = self._next
        while self.games_dir is not None and (self.games_dir / f"t{number}").exists():
            number += 1
        try:
            game = GameTable.create(f"t{number}", msg["game"], list(msg["seats"]),
                                    int(msg.get("seed", 0)), dict(msg.get("options") or {}),
                                    msg.get("dice", "seeded"), self.games_dir)
        except (RulesError, DataError) as exc:
            raise RulesError(f"create: {exc}") from None
        self._next = number + 1
        return game

    async def _join(self, client: Peer, msg: dict[str, Any], live: LiveTable) -> None:
        seat = msg["seat"]
        async with live.telling:
            token = await self._run(live.game.take_seat, seat, msg.get("name") or
                                    client.name or f"seat {seat}", msg.get("kind", HUMAN))
            await self._follow(client, msg, live, seat, token)
            self._seats_changed(live)

    async def _watch(self, client: Peer, msg: dict[str, Any], live: LiveTable) -> None:
        async with live.telling:
            await self._follow(client, msg, live, None, None)

    async def _rejoin(self, client: Peer, msg: dict[str, Any], live: LiveTable) -> None:
        if not live.game.owns(msg["seat"], msg["token"]):
            raise RulesError(f"rejoin: token: not the token of seat {msg['seat']} of "
                             f"table {live.game.id}")
        async with live.telling:
            await self._follow(client, msg, live, msg["seat"], None)

    async def _bot(self, client: Peer, msg: dict[str, Any], live: LiveTable) -> None:
        if not any(live.game.owns(i, msg["token"]) for i in range(len(live.game.seats))):
            raise RulesError(f"bot: token: only a player seated at table {live.game.id} may "
                             "add a bot")
        async with live.telling:
            await self._run(live.game.put_bot, msg["seat"], msg["kind"])
            self._reply(client, msg, "seats", table=live.game.summary())
            self._seats_changed(live)

    async def _act(self, client: Peer, msg: dict[str, Any], live: LiveTable) -> None:
        seat, table = msg["seat"], live.game.id
        if not live.game.owns(seat, msg["token"]):
            raise RulesError(f"act: token: not the token of seat {seat} of table {table}")
        if live.to_move != seat:
            raise RulesError(f"act: seat: it is {_whose(live)} turn at table {table}, not seat "
                             f"{seat}'s")
        try:
            live.queue.put_nowait((client, seat, msg["action"], msg.get("id"), msg.get("at")))
        except asyncio.QueueFull:
            raise RulesError(f"act: table {table} is busy with seat {seat}'s earlier "
                             "actions") from None

    # -- tables ---------------------------------------------------------------------------

    async def _follow(self, client: Peer, msg: dict[str, Any], live: LiveTable,
                      seat: int | None, token: str | None) -> None:
        """Send the client the table so far (every log line, the state now, whose turn)
        and follow it; the caller holds `live.telling`, so every step in the snapshot has
        been saved and told, and the client follows from the next step on (it tells a
        repeated line by its index)."""
        summary, lines, state, to_move = await self._run(_snapshot, live.game)
        live.followers.add(client)
        fields: dict[str, Any] = {"table": summary, "seat": seat, "lines": lines,
                                  "state": state, "to_move": to_move}
        if token is not None:
            fields["token"] = token
        self._reply(client, msg, "joined", **fields)

    def _seats_changed(self, live: LiveTable) -> None:
        for c in live.followers:
            c.send("seats", table=live.game.summary())
        if live.game.started and live.driver is None:
            self._tell_start(live)

    def _tell_start(self, live: LiveTable) -> None:
        header = live.game.lines[0]
        state = live.game.snapshot()
        live.to_move = live.game.to_move()
        for c in live.followers:
            c.send("step", table=live.game.id, index=0, line=header, state=state,
                   to_move=live.to_move)
        self._kick(live)

    def _kick(self, live: LiveTable) -> None:
        if live.game.started and not live.game.finished and live.driver is None:
            live.driver = asyncio.create_task(self._drive(live))

    async def _drive(self, live: LiveTable) -> None:
        """Take the table's steps until the game ends: the server's own at once, a
        person's when they send it."""
        game = live.game
        try:
            while not game.finished and not game.error:
                live.to_move = game.to_move()
                if game.server_turn():
                    async with live.telling:
                        try:
                            step = await self._run(game.auto_step)
                        except TableError as exc:
                            log.error("table %s stopped: %s", game.id, exc)
                            for c in live.followers:
                                c.send("error", message=f"table {game.id} stopped: {exc}",
                                       table=game.id)
                            return
                        await self._broadcast(live, step)
                    continue
                client, seat, action, ident, at = await live.queue.get()
                request = {"type": "act", **({"id": ident} if ident is not None else {})}
                if seat != game.to_move():
                    self._refuse(client, request, f"act: seat: it is not seat {seat}'s turn")
                    continue
                if at is not None and at != len(game.lines) - 1:
                    self._refuse(client, request, f"act: at: the action was chosen at step {at}, "
                                 f"but the table is at step {len(game.lines) - 1}; choose again "
                                 "from the state it was sent")
                    continue
                async with live.telling:
                    try:
                        step = await self._run(game.person_step, seat, action)
                    except RulesError as exc:
                        self._refuse(client, request, str(exc))
                        continue
                    except TableError as exc:
                        self._refuse(client, request, "act: action: the table could not settle "
                                     f"it, nothing changed; try another ({exc})")
                        continue
                    except StepFailed as exc:  # our bug, the state put back: the table goes on
                        log.error("table %s: seat %d's action %s failed: %s", game.id, seat,
                                  protocol.shorten(action), exc, exc_info=exc)
                        self._refuse(client, request, "act: action: the server failed on it (a "
                                     "bug; the server's log says why); nothing changed, the "
                                     "table goes on")
                        continue
                    await self._broadcast(live, step)
        except Exception:  # our bug: say so, stop this table, keep serving the others
            log.exception("table %s: driver failed", game.id)
            game.error = "the server failed (its log says why)"
            for c in live.followers:
                c.send("error", message=f"table {game.id} stopped: {game.error}",
                       table=game.id)
        finally:
            live.to_move = game.to_move()

    async def _broadcast(self, live: LiveTable, step: Step) -> None:
        """Write the step's autosave, then tell every follower: nobody hears of a step a
        restarted server would not know."""
        if step.autosave is not None:
            loop = asyncio.get_running_loop()
            await asyncio.shield(loop.run_in_executor(self._saver, live.game.write_autosave,
                                                      step.autosave))
        live.to_move = step.to_move
        fields: dict[str, Any] = {"table": live.game.id, "index": step.index, "line": step.line,
                                  "state": step.state, "to_move": step.to_move}
        if step.trajectory is not None:
            fields["trajectory"] = step.trajectory
        text = encode("step", **fields)
        for c in live.followers:
            try:
                c.outbox.put_nowait(text)
            except asyncio.QueueFull:
                asyncio.ensure_future(c.ws.close(1008, "too slow"))

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run game work in the one worker thread, shielded: a client that goes away while
        its step is taken does not stop the step."""
        loop = asyncio.get_running_loop()
        return await asyncio.shield(loop.run_in_executor(self._worker, fn, *args))


def _names_a_file(value: str) -> bool:
    """Would a game read `value` as a file path (a crew, map, board or tribe file)? A
    client may not make the server read its files (`dice_models.files.resolve_named` takes
    a path where a name has a separator or a YAML suffix)."""
    parts = [p.strip() for p in value.split(",")]
    return any("/" in p or "\\" in p or p.startswith(".") or p.endswith((".yaml", ".yml"))
               for p in parts)


def _snapshot(game: GameTable) -> tuple[dict[str, Any], list[dict[str, Any]],
                                         dict[str, Any], int | None]:
    """The summary, the lines, the state and whose turn it is, read together in the
    worker (no step can change them half-way)."""
    return game.summary(), game.history(), game.snapshot(), game.to_move()


def _whose(live: LiveTable) -> str:
    """Whose turn it is, in words for a refusal."""
    if live.to_move is not None:
        return f"seat {live.to_move}'s"
    return {"stopped": "nobody's (the table stopped)", "over": "nobody's (the game is over)",
            "waiting": "nobody's (the game has not started)"}.get(
                live.game.status, "the server's (dice or a bot)")


def port_of(server: Server) -> int:
    """The port a server listens on (it may have been asked for port 0)."""
    for sock in server.sockets:
        return int(sock.getsockname()[1])
    raise RuntimeError("the server listens on no socket")


async def run_server(host: str, port: int, games_dir: Path | None,
                     ready: Callable[[int, list[str]], None] | None = None) -> None:
    """`tabletop serve`: load the tables, listen, serve until interrupted (Ctrl-C) or
    asked to stop (SIGTERM, as a service manager does: then it closes cleanly and the
    command exits 0; a background job started by a script ignores SIGINT)."""
    tables = TableServer(games_dir)
    loaded = tables.load()
    server = await tables.start(host, port)
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals here (Windows)
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    if ready is not None:
        ready(port_of(server), loaded)
    try:
        serving = asyncio.ensure_future(server.serve_forever())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        for task in (serving, stopping):
            task.cancel()
    finally:
        server.close()
        await tables.close()


__all__ = ["LOG_FILE", "TABLE_FILE", "TableServer", "port_of", "run_server"]
