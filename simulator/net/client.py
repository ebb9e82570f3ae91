"""A client of the table server: the lobby requests, following a table step by step, and
playing a seat, by a person in the terminal or by a bot on the client's side.

A client never decides anything: every step comes from the server as a log line with the
state after it. The client checks that the state it was sent hashes to the line's digest,
keeps the lines in order (a line it already holds, re-sent after a rejoin, must be the same),
and, when its seat is to move, rebuilds the state with the game's own `deserialize` so the
game's own terminal player (`make_agent('human', ...)`: the same choices and prompts as
`tabletop play --headless`) or a bot can choose. The server checks the action again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from rules import registry
from rules.core.bots import make_agent
from rules.core.runner import digest_of, to_json
from simulator.net import protocol
from simulator.plugins import load_plugins

Chooser = Callable[[dict[str, Any]], Any]
# Choosers run in threads (a person may take their time while steps arrive), and a Deep
# White Sea state brings a PyBullet world, which is not safe to use from two threads at
# once: two tables' bots choosing together in one process (the load bench) made Bullet end
# the process (exit 0, no traceback). One chooser works at a time.
ENGINE_LOCK = threading.Lock()


class ClientError(ValueError):
    """The server refused a request, went away, or sent what cannot be true: one line."""


@dataclass
class TableRecord:
    """What a client has seen of one table: every log line in order and the state now."""

    table: str
    seat: int | None = None
    token: str | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] | None = None
    to_move: int | None = None
    trajectories: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return bool(self.lines) and self.lines[-1].get("type") == "end"

    def take(self, index: int, line: dict[str, Any], state: dict[str, Any],
             to_move: int | None) -> bool:
        """Take line `index` with the state after it; False if it was already held (then
        it must be the same line). A gap or a state that does not match the line's digest
        is a `ClientError`."""
        wanted = line.get("digest", line.get("initial_digest"))
        if wanted is not None and digest_of(state) != wanted:
            raise ClientError(f"table {self.table}: line {index}: the state sent does not "
                              f"hash to the line's digest {wanted}")
        if index < len(self.lines):
            if self.lines[index] != line:
                raise ClientError(f"table {self.table}: line {index} was re-sent changed")
            return False
        if index != len(self.lines):
            raise ClientError(f"table {self.table}: line {index} came after line "
                              f"{len(self.lines) - 1}: lines were lost")
        self.lines.append(line)
        self.state, self.to_move = state, to_move
        return True


class Client:
    """One connection to a table server. `request` waits for a reply; the steps of the
    tables followed arrive in `events` in the order the server sent them."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._reader = asyncio.create_task(self._read())
        self.closed: str | None = None

    @classmethod
    async def open(cls, url: str) -> Client:
        try:
            ws = await connect(url, max_size=None, open_timeout=10)
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise ClientError(f"cannot connect to {url}: {exc or type(exc).__name__}") from None
        client = cls(ws)
        welcome = await client.next_event()
        if welcome.get("type") != "welcome" or welcome.get("protocol") != protocol.PROTOCOL:
            raise ClientError(f"{url}: not a tabletop server of protocol {protocol.PROTOCOL}")
        return client

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    async def request(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for its reply; an `error` reply is a `ClientError`."""
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        await self.send(kind, id=ident, **fields)
        reply = await future
        if reply.get("type") == "error":
            raise ClientError(f"server: {reply.get('message')}")
        return reply

    async def send(self, kind: str, /, **fields: Any) -> None:
        await self.send_raw(json.dumps({"type": kind, **fields}))

    async def send_raw(self, data: str | bytes) -> None:
        """Send a frame as it is (tests send what a broken or hostile client would)."""
        try:
            await self.ws.send(data)
        except ConnectionClosed:
            raise ClientError(f"the server closed the connection ({self.closed})") from None

    async def next_event(self) -> dict[str, Any]:
        event = await self.events.get()
        if event is None:
            raise ClientError(f"the server closed the connection ({self.closed})")
        return event

    # -- the lobby ------------------------------------------------------------------------

    async def tables(self) -> list[dict[str, Any]]:
        return list((await self.request("list"))["tables"])

    async def create(self, game: str, seats: list[str], seed: int = 0,
                     options: dict[str, Any] | None = None, dice: str = "seeded") -> str:
        reply = await self.request("create", game=game, seats=seats, seed=seed,
                                   options=options or {}, dice=dice)
        return str(reply["table"]["table"])

    async def join(self, table: str, seat: int, name: str = "",
                   kind: str | None = None) -> TableRecord:
        """Take `seat`; `kind` tells the server what plays it here ("human" when not
        given; a bot kind: `--auto`), which its log records."""
        return self._record(await self.request("join", table=table, seat=seat,
                                               **({"name": name} if name else {}),
                                               **({"kind": kind} if kind else {})))

    async def rejoin(self, table: str, seat: int, token: str) -> TableRecord:
        record = self._record(await self.request("rejoin", table=table, seat=seat, token=token))
        record.token = token
        return record

    async def watch(self, table: str) -> TableRecord:
        return self._record(await self.request("watch", table=table))

    async def add_bot(self, record: TableRecord, seat: int, kind: str) -> None:
        assert record.token is not None and record.seat is not None
        await self.request("bot", table=record.table, seat=seat, kind=kind, token=record.token)

    # -- following and playing --------------------------------------------------------------

    async def follow(self, record: TableRecord, chooser: Chooser | None = None,
                     tell: Callable[[TableRecord, dict[str, Any]], None] | None = None,
                     until: Callable[[TableRecord], bool] | None = None,
                     sent: Callable[[TableRecord], None] | None = None) -> TableRecord:
        """Take the table's steps until the game ends (or `until(record)`); when the seat
        is to move, ask `chooser(state)` for an action (in a thread: a person may take
        their time while steps keep arriving) and send it. `tell(record, line)` hears
        every new line; `sent(record)` hears that an action went (the load bench times
        from there)."""
        acting: asyncio.Task[Any] | None = None
        chosen_at = 0  # the step the action being chosen was chosen at
        act_id: int | None = None
        while not record.finished and not (until is not None and until(record)):
            if (chooser is not None and acting is None and act_id is None
                    and record.to_move is not None and record.to_move == record.seat):
                acting = asyncio.ensure_future(asyncio.to_thread(chooser, record.state or {}))
                chosen_at = len(record.lines) - 1
            getter = asyncio.ensure_future(self.next_event())
            waiting = {getter} if acting is None else {getter, acting}
            try:
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if acting is not None and acting in done:
                    action, acting = acting.result(), None
                    act_id = next(self._ids)
                    await self.send("act", id=act_id, table=record.table, seat=record.seat,
                                    token=record.token, action=to_json(action), at=chosen_at)
                    if sent is not None:
                        sent(record)
            except BaseException:  # stopped by the caller or a closed connection: no task left
                for task in waiting:
                    task.cancel()
                raise
            if not getter.done():  # (an event that came in during the send is kept)
                getter.cancel()
                continue
            event = getter.result()
            if event.get("type") == "error":
                if event.get("id") is not None and event.get("id") == act_id:
                    act_id = None  # refused: choose again
                    if tell is not None:
                        tell(record, {"type": "refused", "message": event.get("message")})
                    continue
                if event.get("table") == record.table:
                    raise ClientError(f"server: {event.get('message')}")
                continue
            if event.get("type") != "step" or event.get("table") != record.table:
                continue
            if record.take(event["index"], event["line"], event["state"], event["to_move"]):
                act_id = None
                if "trajectory" in event:
                    record.trajectories[event["index"]] = event["trajectory"]
                if tell is not None:
                    tell(record, event["line"])
        if acting is not None:
            acting.cancel()
        return record

    # -- helpers ----------------------------------------------------------------------------

    def _record(self, reply: dict[str, Any]) -> TableRecord:
        record = TableRecord(reply["table"]["table"], reply.get("seat"), reply.get("token"))
        lines = reply["lines"]
        # Only the newest line comes with its state (checked against its digest); the
        # earlier ones are checked by the order of the steps that follow.
        record.lines.extend(lines[:-1])
        if lines:
            record.take(len(lines) - 1, lines[-1], reply["state"], reply["to_move"])
        else:
            record.state, record.to_move = reply["state"], reply["to_move"]
        return record

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                ident = message.get("id")
                future = self._pending.pop(ident, None) if isinstance(ident, int) else None
                if future is not None and not future.done():
                    future.set_result(message)
                else:
                    self.events.put_nowait(message)
        except ConnectionClosed as exc:
            self.closed = f"{exc.rcvd.code} {exc.rcvd.reason}" if exc.rcvd else "no close frame"
        finally:
            if self.closed is None:
                self.closed = "closed"
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ClientError(f"the server closed the connection "
                                                     f"({self.closed})"))
            self.events.put_nowait(None)


def make_chooser(game: str, kind: str, seed: int = 0,
                 input_fn: Callable[[str], str] | None = None,
                 output_fn: Callable[[str], None] | None = None) -> Chooser:
    """Who chooses for a seat on the client: 'human' (the game's own terminal player) or a
    bot kind the game knows. It works on the state the server sent, rebuilt by the game's
    `deserialize` (Deep White Sea's physics table included, to list what may be tipped)."""
    spec = registry.lookup(game)
    load_plugins()
    module = spec.module()
    if kind != "human" and kind not in spec.bots:
        raise ClientError(f"--auto: unknown player {kind!r} for {game}"
                          + registry.did_you_mean(kind, list(spec.bots)))
    agent = make_agent(kind, module, np.random.default_rng(seed))
    if kind == "human" and (input_fn is not None or output_fn is not None):
        if input_fn is not None:
            agent.input_fn = input_fn  # type: ignore[attr-defined]
        if output_fn is not None:
            agent.output_fn = output_fn  # type: ignore[attr-defined]

    def choose(state: dict[str, Any]) -> Any:
        with ENGINE_LOCK:
            return to_json(agent.step(module.deserialize(state)))

    return choose


def telling(out: Callable[[str], None]) -> Callable[[TableRecord, dict[str, Any]], None]:
    """A `tell` that prints the game as `tabletop play` does: who did what, and what
    happened; a throw's trajectory is named by its frames."""

    def tell(record: TableRecord, line: dict[str, Any]) -> None:
        kind = line.get("type")
        names = record.lines[0].get("names", []) if record.lines else []
        if kind == "header":
            out(f"{line.get('game')}: {', '.join(map(str, names))}; seed {line.get('seed')}")
        elif kind == "action":
            out(f"{_name(names, line.get('player'))}: {line.get('text')}")
            trajectory = record.trajectories.get(len(record.lines) - 1)
            if trajectory is not None:
                frames = trajectory.get("frames", [])
                seconds = frames[-1]["t"] if frames else 0.0
                out(f"  (the server's throw: {len(frames)} frames at 60 Hz, {seconds:.2f} s)")
        elif kind == "end":
            winners = [_name(names, w) for w in line.get("winners", [])]
            out(f"End after {line.get('steps')} steps; winner(s): {', '.join(winners) or 'none'}")
        elif kind == "refused":
            out(f"  refused: {line.get('message')}")
        for event in line.get("events", []):
            out(f"  {event}")

    return tell


def _name(names: list[Any], seat: Any) -> str:
    return str(names[seat]) if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"
