"""Network play (issue 19): `tabletop serve` and its clients over real sockets.

Every server here listens on port 0 (a free port, read back), so tests never depend on a
fixed port. The clients are `simulator.net.client.Client`, the one `tabletop join` uses;
a seat is played by the game's own players on the client's side (`make_chooser`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from rules.core import RulesError
from rules.core.bots import make_agent
from rules.core.runner import to_json, verify_log
from simulator.net import protocol
from simulator.net.client import Client, ClientError, TableRecord, make_chooser
from simulator.net.load import run_load, server_said, start_server
from simulator.net.server import TableServer, port_of
from simulator.net.table import LOG_FILE, TABLE_FILE, GameTable

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]

# Each game with the seats its test uses ("open" ones are played by the two clients).
GAMES = {
    "diced": (["open", "open", "random"], {}),
    "deep-white-sea": (["open", "open"], {}),  # the physics table: throws have trajectories
    "dday": (["open", "open"], {}),
    "dicewar": (["open", "open"], {}),
    "diceland-hex": (["open", "open"], {}),
}


def run(make: Callable[[], Awaitable[T]], timeout: float = 120.0) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(make(), timeout)

    return asyncio.run(bounded())


class Served:
    """A TableServer listening on a free port, for one `async with`."""

    def __init__(self, games_dir: Path | None) -> None:
        self.tables = TableServer(games_dir)

    async def __aenter__(self) -> Served:
        self.tables.load()
        self.server = await self.tables.start("127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{port_of(self.server)}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()
        await self.tables.close()


async def seated(url: str, game: str, seed: int) -> tuple[Client, Client, TableRecord,
                                                          TableRecord, str]:
    """Two clients in the two seats of a new table, the first followed until a person is
    to move."""
    a, b = await Client.open(url), await Client.open(url)
    table = await a.create(game, ["open", "open"], seed=seed)
    ra, rb = await a.join(table, 0), await b.join(table, 1)
    await a.follow(ra, until=lambda r: r.to_move is not None)
    return a, b, ra, rb, table


async def reply_to(client: Client) -> dict[str, Any]:
    """The next event that is not a step of a table followed: the reply to what was sent."""
    while True:
        event = await client.next_event()
        if event["type"] not in ("step", "seats"):
            return event


def files_of(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def log_lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / LOG_FILE).read_text().splitlines()]


def write_log(path: Path, record: TableRecord) -> Path:
    """The lines a client was sent, as the server writes its log (a server kept in memory
    writes none; these are the same lines, and each state it was sent hashed to its line's
    digest)."""
    path.write_text("".join(json.dumps(line) + "\n" for line in record.lines))
    return path


# -- a whole game of each game ------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_two_clients_play_a_whole_game_and_the_servers_log_verifies(game: str,
                                                                    tmp_path: Path) -> None:
    seats, options = GAMES[game]

    async def play() -> tuple[TableRecord, TableRecord, str]:
        async with Served(tmp_path) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            table = await a.create(game, seats, seed=5, options=options)
            ra, rb = await a.join(table, 0, "ann"), await b.join(table, 1, "bob")
            await asyncio.gather(a.follow(ra, make_chooser(game, "random", 1)),
                                 b.follow(rb, make_chooser(game, "random", 2)))
            await a.close()
            await b.close()
            return ra, rb, table

    ra, rb, table = run(play)
    folder = tmp_path / table
    result = verify_log(folder / LOG_FILE)
    assert result.ok, result.message
    logged = log_lines(folder)
    # Both clients saw every line, in order, as the server logged it; each state they were
    # sent hashed to its line's digest (TableRecord.take checks that as it takes a line).
    assert ra.lines == logged and rb.lines == logged
    assert logged[0]["players"][:2] == ["human", "human"] and logged[-1]["type"] == "end"
    digests = [x.get("digest") for x in logged[1:-1]]
    assert digests == [x.get("digest") for x in ra.lines[1:-1]] == \
        [x.get("digest") for x in rb.lines[1:-1]]
    if game == "deep-white-sea":
        throws = [i for i, x in enumerate(logged) if x.get("type") == "action"
                  and x["action"][0] == "throw"]
        assert throws and sorted(ra.trajectories) == sorted(rb.trajectories) == throws
        frames = ra.trajectories[throws[0]]["frames"]
        # 60 Hz frames (1/60 s apart; a gap where every die rested), and the final resting
        # frame, which may fall on the last regular one
        gaps = [(f1["t"] - f0["t"]) * 60 for f0, f1 in zip(frames, frames[1:], strict=False)]
        assert len(frames) > 10 and min(gaps[:-1]) > 0.999 and gaps[-1] >= 0
        assert sum(abs(g - 1) < 1e-3 for g in gaps) >= len(gaps) - 2
        # The thrown die's last recorded pose is where the table's outcome put it.
        first = logged[throws[0]]
        die, outcome = first["action"][1], first["results"][0]["outcome"]
        last = [f["poses"][die] for f in frames if die in f["poses"]][-1]
        assert last[0][:2] == pytest.approx(outcome["position"][:2], abs=1e-6)


def test_a_seat_played_by_a_client_bot_is_logged_as_what_played_it(tmp_path: Path) -> None:
    """The client says what plays its seat (`join`'s `kind`: `tabletop join --auto`); the
    log's header records it in `played_by` (the seat stays `human` to verify: its moves
    come from outside and are checked for legality), the lobby shows it, and the log
    verifies. An unknown kind is refused before the seat is taken; a doctored `played_by`
    does not verify."""

    async def play() -> tuple[list[str], dict[str, Any], TableRecord]:
        async with Served(None) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            table = await a.create("dicewar", ["open", "open"], seed=1)
            refused = []
            for kind in ("banana", "human-ish"):
                with pytest.raises(ClientError) as err:
                    await a.join(table, 0, kind=kind)
                refused.append(str(err.value))
            ra = await a.join(table, 0, kind="random")
            rb = await b.join(table, 1)
            summary = (await a.tables())[0]
            await asyncio.gather(a.follow(ra, make_chooser("dicewar", "random", 1)),
                                 b.follow(rb, make_chooser("dicewar", "random", 2)))
            await a.close()
            await b.close()
            return refused, summary, ra

    refused, summary, ra = run(play)
    assert refused[0].startswith("server: join: kind: not a player of dicewar (got 'banana')")
    assert refused[1].startswith("server: join: kind: not a player of dicewar")
    assert [seat.get("played_by") for seat in summary["seats"]] == ["random", None]
    path = write_log(tmp_path / LOG_FILE, ra)
    header = ra.lines[0]
    assert header["players"] == ["human", "human"]
    assert header["played_by"] == ["random", "human"]
    assert header["names"][0].endswith("(random, client)") and header["names"][1].endswith(
        "(human)")
    result = verify_log(path)
    assert result.ok, result.message
    text = path.read_text()
    for doctored in ('"played_by": ["human", "human"]', '"played_by": ["banana", "human"]',
                     '"played_by": ["random", "greedy"]', '"played_by": ["random"]'):
        bad = tmp_path / "doctored.jsonl"
        bad.write_text(text.replace('"played_by": ["random", "human"]', doctored, 1))
        with contextlib.suppress(RulesError):  # refused in one line: as good
            assert not verify_log(bad).ok, doctored


def test_a_waiting_table_resumed_keeps_what_a_client_plays_its_seat_with(
        tmp_path: Path) -> None:
    """A table autosaved while still waiting for players keeps, when it is loaded, what a
    client plays a taken seat with (`played_by`): the header written when the last seat is
    taken names it, and the log verifies. An autosave's `played_by` that is no player of
    the game, or on a seat no person holds, is refused in one line naming the field."""
    table = GameTable.create("t1", "dicewar", ["open", "open"], 5, {}, "seeded", tmp_path)
    table.take_seat(0, "ann", "random")
    table.close()
    folder = tmp_path / "t1"
    saved = json.loads((folder / TABLE_FILE).read_text())
    table = GameTable.load(folder)
    assert [seat.public().get("played_by") for seat in table.seats] == ["random", None]
    table.take_seat(1, "bob")
    assert table.lines[0]["played_by"] == ["random", "human"]
    mover = make_agent("random", table.module, np.random.default_rng(2))
    while not table.finished:
        seat = table.to_move()
        if seat is None:
            table.auto_step()
        else:
            table.person_step(seat, to_json(mover.step(table.state)))
    table.close()
    result = verify_log(folder / LOG_FILE)
    assert result.ok, result.message
    for seat, played_by, why in ((0, "banana", "seats.0.played_by: not a player of dicewar"),
                                 (1, "random", "seats.1.played_by: only a person's seat")):
        doctored = tmp_path / f"doctored-{seat}"
        doctored.mkdir()
        data = json.loads(json.dumps(saved))
        data["seats"][seat]["played_by"] = played_by
        (doctored / TABLE_FILE).write_text(json.dumps(data))
        with pytest.raises(RulesError) as err:
            GameTable.load(doctored)
        assert str(err.value).startswith(f"{doctored / TABLE_FILE}: {why}"), str(err.value)


def test_a_spectator_sees_every_step_and_cannot_act(tmp_path: Path) -> None:
    async def play() -> tuple[TableRecord, list[dict[str, Any]], str]:
        async with Served(tmp_path) as s:
            a, w = await Client.open(s.url), await Client.open(s.url)
            table = await a.create("dicewar", ["open", "random"], seed=2)
            watched = await w.watch(table)
            ra = await a.join(table, 0)
            refusals = []
            for token in ("", "x" * 32):
                with pytest.raises(ClientError) as err:
                    await w.request("act", table=table, seat=0, token=token, action=["pass"])
                refusals.append(str(err.value))
            await asyncio.gather(a.follow(ra, make_chooser("dicewar", "random", 1)),
                                 w.follow(watched))
            await a.close()
            await w.close()
            return watched, [{"m": m} for m in refusals], table

    watched, refusals, table = run(play)
    assert watched.lines == log_lines(tmp_path / table)
    assert "token" in refusals[0]["m"] and "not the token of seat 0" in refusals[1]["m"]


# -- bad messages never hurt the table ------------------------------------------------------


def test_a_client_cannot_make_the_server_read_its_files(tmp_path: Path) -> None:
    """Options that name files (crews, maps, boards, tribes) are refused: only shipped names
    (a game would read `--crews /etc/passwd` as a crew file)."""
    async def create() -> tuple[list[str], list[dict[str, Any]]]:
        async with Served(tmp_path) as s:
            c = await Client.open(s.url)
            refused = []
            for game, options in (("deep-white-sea", {"crews": "white,/etc/passwd"}),
                                  ("dday", {"map": "../maps/x.yaml"}),
                                  ("diceland-hex", {"board": "boards\\b.yml"})):
                with pytest.raises(ClientError) as err:
                    await c.create(game, ["open", "open"], options=options)
                refused.append(str(err.value))
            await c.create("diceland-hex", ["open", "open"], options={"board": "classic"})
            tables = await c.tables()
            await c.close()
            return refused, tables

    refused, tables = run(create)
    assert all("never its own files" in r for r in refused), refused
    assert [t["options"]["board"] for t in tables] == ["classic"]


def test_a_refused_create_takes_no_table_id_nor_the_folder_of_one_not_resumed(
        tmp_path: Path) -> None:
    """Ids are taken only by tables made: after refused creates (each refusal naming its
    field) the first table made is the first free id; a folder the server did not resume
    (a damaged autosave) keeps its id and its files."""
    (tmp_path / "t1").mkdir()
    (tmp_path / "t1" / TABLE_FILE).write_text('{"type": "tabletop-table"}')
    kept = files_of(tmp_path / "t1")

    async def create() -> tuple[list[str], list[str]]:
        async with Served(tmp_path) as s:
            c = await Client.open(s.url)
            refused = []
            for game, seats, options in (("chess", ["open", "open"], {}),
                                         ("dicewar", ["open"] * 3, {}),
                                         ("dicewar", ["open", "banana"], {}),
                                         ("dicewar", ["open", "open"], {"ruins": "x"})):
                with pytest.raises(ClientError) as err:
                    await c.create(game, seats, options=options)
                refused.append(str(err.value))
            made = [await c.create("dicewar", ["open", "open"]) for _ in range(2)]
            await c.close()
            return refused, made

    refused, made = run(create)
    assert [r.split(":")[1:3] for r in refused] == [[" create", " game"], [" create", " seats"],
                                                     [" create", " seats"],
                                                     [" create", " options"]], refused
    assert made == ["t2", "t3"]
    assert files_of(tmp_path / "t1") == kept


def test_every_refusal_names_its_request_and_field_before_any_value(tmp_path: Path) -> None:
    """Each refusal reads "REQUEST: FIELD: reason", and a value it echoes comes last,
    shortened: a long value never hides why it was refused."""
    import re

    async def probe() -> list[str]:
        async with Served(tmp_path) as s:
            a = await Client.open(s.url)
            t = await a.create("dicewar", ["open", "open"])
            ra = await a.join(t, 0)
            long = "z" * 300
            requests: list[tuple[str, dict[str, Any]]] = [
                ("join", {"table": "t9", "seat": 0}), ("join", {"table": t, "seat": 5}),
                ("join", {"table": t, "seat": 0}), ("join", {"table": t, "seat": 1, "kind": "x"}),
                ("bot", {"table": t, "seat": 1, "kind": "x", "token": ra.token}),
                ("bot", {"table": t, "seat": 5, "kind": "random", "token": ra.token}),
                ("rejoin", {"table": t, "seat": 1, "token": "B" * 20}),
                ("act", {"table": t, "seat": 0, "token": ra.token, "action": ["pass"]}),
                ("create", {"game": "dicewar", "seats": ["open"] * 2,
                            "options": {"ruins": long}}),
                ("create", {"game": "deep-white-sea", "seats": ["open"] * 2,
                            "options": {"table": long[:150]}}),
                ("create", {"game": "deep-white-sea", "seats": ["open"] * 2,
                            "options": {"crews": "../" + long[:150]}}),
                ("create", {"game": "diced", "seats": ["open"] * 2}),
                ("watch", {"table": "T" * 32}),
                ("join", {"table": {"id": long}, "seat": 0})]
            out = []
            for kind, fields in requests:
                with pytest.raises(ClientError) as err:
                    await a.request(kind, **fields)
                out.append(str(err.value).removeprefix("server: "))
            await a.close()
            return out

    for (kind, text) in zip(["join"] * 4 + ["bot"] * 2 + ["rejoin", "act"] + ["create"] * 4
                            + ["watch", "join"], run(probe), strict=True):
        assert re.match(rf"{kind}: [a-z_/]+: [a-z]", text), text
        assert "zzz" not in text or re.search(r"\(got [^()]*\)$", text), text
        assert len(text) < 200, text


def test_bad_messages_are_refused_and_change_nothing(tmp_path: Path) -> None:
    """Another seat's action, a forged or missing token, malformed and oversized messages:
    each gets an error reply; the table's state, log and autosave stay as they were, and
    the server goes on serving another table."""

    async def probe() -> dict[str, Any]:
        async with Served(tmp_path) as s:
            a, b, ra, rb, table = await seated(s.url, "diceland-hex", 1)
            mover, other = (ra, rb) if ra.to_move == 0 else (rb, ra)
            sender = b if other is rb else a
            folder = tmp_path / table
            before = files_of(folder), ra.lines[-1]
            legal = make_chooser("diceland-hex", "random", 3)(ra.state or {})
            sent = [
                # another seat's action with one's own token
                {"type": "act", "table": table, "seat": mover.seat, "token": other.token,
                 "action": legal},
                # one's own seat out of turn
                {"type": "act", "table": table, "seat": other.seat, "token": other.token,
                 "action": legal},
                # a forged token, and no token
                {"type": "act", "table": table, "seat": mover.seat, "token": "A" * 32,
                 "action": legal},
                {"type": "act", "table": table, "seat": mover.seat, "action": legal},
                # an illegal action in turn, a wrong field type, an unknown field
                {"type": "act", "table": table, "seat": mover.seat, "token": mover.token,
                 "action": ["fly", 99]},
                {"type": "act", "table": table, "seat": "0", "token": mover.token,
                 "action": legal},
                {"type": "act", "table": table, "seat": mover.seat, "token": mover.token,
                 "action": legal, "cheat": True},
                # a legal action in turn, but chosen at another step than the table's latest
                {"type": "act", "table": table, "seat": mover.seat, "token": mover.token,
                 "action": legal, "at": len(ra.lines)},
                {"type": "act", "table": table, "seat": mover.seat, "token": mover.token,
                 "action": legal, "at": -1},
                {"type": "launch"},
                # a wrong-typed table, long enough that an echo first would hide the reason
                {"type": "join", "table": {"id": "x" * 500}, "seat": 0},
            ]
            replies = []
            for message in sent:
                await sender.send_raw(json.dumps(message))
                replies.append(await reply_to(sender))
            raw = ["{not json", "[1, 2]", '{"type": "list", "id": NaN}',
                   json.dumps({"type": "hello", "name": "x" * (protocol.MAX_MESSAGE_BYTES + 1)}),
                   b"\x00\x01binary", "[" * 5000 + "]" * 5000]
            for text in raw:
                await sender.send_raw(text)
                replies.append(await reply_to(sender))
            # another table is served all the while
            c = await Client.open(s.url)
            elsewhere = await c.create("diced", ["random", "random", "random"], seed=4)
            served = await c.tables()
            after = files_of(folder), s.tables.tables[table].game.lines[-1]
            # the one whose turn it is still plays on
            state_after = s.tables.tables[table].game.state.serialize()
            for client in (a, b, c):
                await client.close()
            return {"replies": replies, "before": before, "after": after, "served": served,
                    "elsewhere": elsewhere, "refused": s.tables.refused, "state": state_after,
                    "sent_state": ra.state, "lines": len(ra.lines)}

    out = run(probe)
    assert [r["type"] for r in out["replies"]] == ["error"] * 17
    words = [r["message"] for r in out["replies"]]
    assert "not the token of seat" in words[0]
    assert "turn" in words[1]
    assert "not the token of seat" in words[2]
    assert "'token' is a required property" in words[3]
    assert words[4] == (f"act: action: not a legal action at step {out['lines'] - 1}: "
                        '["fly", 99]')
    assert words[5] == 'act: seat: must be a whole number (got "0")'
    assert "'cheat' was unexpected" in words[6]
    n = out["lines"]  # the table is at step n - 1
    assert words[7] == (f"act: at: the action was chosen at step {n}, but the table is at step "
                        f"{n - 1}; choose again from the state it was sent")
    assert words[8] == "act: at: must be at least 0 (got -1)"
    assert words[9].startswith("type: unknown message type (known: act, bot, create, ")
    assert words[9].endswith('): "launch"')
    # the field and the reason first, then the value, shortened
    assert words[10].startswith('join: table: must be a string (got {"id": "xxx')
    assert words[10].endswith('...)') and len(words[10]) < 120
    assert "not JSON" in words[11] and "must be a JSON object" in words[12]
    assert "NaN is not a JSON number" in words[13]
    assert f"over the limit of {protocol.MAX_MESSAGE_BYTES}" in words[14]
    assert "binary" in words[15] and "not acceptable JSON" in words[16]
    assert out["before"] == out["after"]  # log, autosave and last line as they were
    assert out["state"] == out["sent_state"]
    assert out["refused"] == 17
    assert any(t["table"] == out["elsewhere"] for t in out["served"])


def test_an_action_the_table_cannot_take_is_refused_and_the_table_plays_on(
        tmp_path: Path) -> None:
    """Deep White Sea lists a throw as the placeholder ["throw", DIE]; sent as it is, it
    once passed the legality check, raised IndexError and stopped the table for everyone.
    Now it is refused to its sender in one line naming the field, and the same seat's real
    throw is then taken."""
    import numpy as np

    from rules import registry
    from rules.core.runner import to_json
    from rules.deep_white_sea.bots import aimed_throw, throw_action

    module = registry.lookup("deep-white-sea").module()

    async def play() -> dict[str, Any]:
        async with Served(tmp_path) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            table = await a.create("deep-white-sea", ["open", "open"], seed=3,
                                   options={"table": "kinematic"})
            ra, rb = await a.join(table, 0), await b.join(table, 1)
            clients, tokens = (a, b), (ra.token, rb.token)
            choose = make_chooser("deep-white-sea", "random", 1)
            while True:  # the players' own choices until a throw is offered (a follows)
                await a.follow(ra, until=lambda r: r.to_move is not None)
                seat = int(ra.to_move or 0)
                state = module.deserialize(ra.state or {})
                throw = next((x for x in state.legal_actions() if x[0] == "throw"), None)
                if throw is not None:
                    break
                held = len(ra.lines)
                await clients[seat].send("act", table=table, seat=seat, token=tokens[seat],
                                         action=choose(ra.state or {}), at=held - 1)
                await a.follow(ra, until=lambda r, n=held: len(r.lines) > n)
            held = len(ra.lines)
            with pytest.raises(ClientError) as refused:
                await clients[seat].request("act", table=table, seat=seat, token=tokens[seat],
                                            action=list(throw), at=held - 1)
            status = s.tables.tables[table].game.summary()
            real = throw_action(throw[1], aimed_throw(state, seat, (0.0, 0.0),
                                                      np.random.default_rng(1)))
            await clients[seat].send("act", table=table, seat=seat, token=tokens[seat],
                                     action=to_json(real), at=held - 1)
            await a.follow(ra, until=lambda r: len(r.lines) > held)
            for c in clients:
                await c.close()
            return {"refused": str(refused.value), "status": status, "seat": seat,
                    "throw": list(throw), "next": ra.lines[held], "table": table}

    out = run(play)
    assert out["refused"].startswith("server: act: action: listed by the game only as a "
                                     "placeholder: send it with its parameters at step "), out
    assert out["refused"].endswith(json.dumps(out["throw"]))
    assert out["status"]["status"] == "playing" and out["status"]["error"] is None
    assert out["next"]["type"] == "action" and out["next"]["player"] == out["seat"]
    assert out["next"]["action"][:2] == out["throw"] and len(out["next"]["action"]) == 3
    assert log_lines(tmp_path / out["table"])[-1] == out["next"]


def test_a_failure_of_ours_on_an_action_is_said_and_the_table_plays_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    """A bug on our side while a person's action is taken (the engine raising what it
    never should): the action is refused in one line, the server's log says why (the
    traceback), the state is as it was, and the game plays on to an end that verifies."""
    from rules.dicewar.game import DiceWarState

    apply = DiceWarState.apply_action
    failed: list[Any] = []

    def buggy(self: DiceWarState, action: Any) -> None:
        if not failed and self.current_player() == 0:
            failed.append(action)
            raise KeyError("a bug")
        apply(self, action)

    monkeypatch.setattr(DiceWarState, "apply_action", buggy)

    async def play() -> tuple[TableRecord, list[str]]:
        async with Served(None) as s:
            a = await Client.open(s.url)
            table = await a.create("dicewar", ["open", "random"], seed=2)
            ra = await a.join(table, 0)
            told: list[str] = []
            await a.follow(ra, make_chooser("dicewar", "random", 1),
                           lambda r, line: told.append(str(line.get("message", ""))))
            await a.close()
            return ra, told

    ra, told = run(play)
    refusals = [x for x in told if x]
    assert refusals == ["act: action: the server failed on it (a bug; the server's log says "
                        "why); nothing changed, the table goes on"]
    assert any("seat 0's action" in r.getMessage() and r.exc_info for r in caplog.records)
    assert failed and ra.finished
    result = verify_log(write_log(tmp_path / LOG_FILE, ra))
    assert result.ok, result.message


def test_a_flood_is_refused_then_closed_and_others_are_served(tmp_path: Path) -> None:
    async def flood() -> dict[str, Any]:
        async with Served(tmp_path) as s:
            a, b, ra, rb, table = await seated(s.url, "dicewar", 3)
            folder = tmp_path / table
            before = files_of(folder)
            mover = ra if ra.to_move == 0 else rb
            flooder = a if mover is rb else b
            other_seat = 1 - int(mover.seat or 0)
            other_token = rb.token if mover is ra else ra.token
            message = json.dumps({"type": "act", "table": table, "seat": other_seat,
                                  "token": other_token, "action": ["pass"]})
            t0 = time.perf_counter()
            with pytest.raises(ClientError):
                # far more than the bucket refills while they go, however slow the machine
                for _ in range(protocol.BURST + protocol.CLOSE_AFTER + 700):
                    await flooder.send_raw(message)
                    await asyncio.sleep(0)
                while True:
                    await flooder.next_event()
            # a client at another table is answered at once meanwhile, and the table's
            # own mover still plays
            c = await Client.open(s.url)
            t_list = time.perf_counter()
            await c.tables()
            answer_s = time.perf_counter() - t_list
            after = files_of(folder)
            chooser = make_chooser("dicewar", "random", 9)
            client = a if mover is ra else b
            held = len(ra.lines)
            await client.send("act", table=table, seat=mover.seat, token=mover.token,
                              action=chooser(ra.state or {}))
            await client.follow(mover, until=lambda r: len(r.lines) > held)
            for x in (a, b, c):
                await x.close()
            return {"before": before, "after": after, "answer_s": answer_s,
                    "closed": flooder.closed, "flood_s": time.perf_counter() - t0}

    out = run(flood)
    assert out["closed"].startswith("1008")
    assert out["before"] == out["after"]
    assert out["answer_s"] < 1.0


def test_a_frame_past_the_hard_limit_closes_only_that_connection(tmp_path: Path) -> None:
    async def big() -> tuple[str | None, int]:
        async with Served(tmp_path) as s:
            a = await Client.open(s.url)
            await a.send_raw("x" * (protocol.HARD_LIMIT_BYTES + 1))
            with pytest.raises(ClientError):
                await a.next_event()
            c = await Client.open(s.url)
            n = len(await c.tables())
            await c.close()
            return a.closed, n

    closed, n = run(big)
    assert closed is not None and closed.startswith("1009") and n == 0


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop a server as a service manager does (SIGTERM): it closes cleanly, exit 0. (Not
    SIGINT: a test run started in the background by a script ignores it, and so do the
    servers it starts.)"""
    proc.terminate()
    try:
        code = proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    assert code == 0, f"tabletop serve: exit {code} on SIGTERM; it said: {server_said(proc)[-2000:]}"


# -- reconnecting, and restarting the server ------------------------------------------------


def test_a_killed_client_takes_its_seat_back_with_its_token(tmp_path: Path) -> None:
    """The client drops its connection right after sending a throw (Deep White Sea, on the
    physics table): the throw is decided on the server all the same; with its token the
    client takes its seat back, is sent the whole game so far, and finishes it."""

    async def play() -> tuple[TableRecord, TableRecord, str, int]:
        async with Served(tmp_path) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            table = await a.create("deep-white-sea", ["open", "open"], seed=7)
            ra, rb = await a.join(table, 0), await b.join(table, 1)
            choose_a = make_chooser("deep-white-sea", "random", 1)
            b_done = asyncio.ensure_future(b.follow(rb, make_chooser("deep-white-sea",
                                                                      "random", 2)))
            # play seat 0 until it is to throw, then send the throw and vanish
            while True:
                await a.follow(ra, until=lambda r: r.to_move == 0)
                action = choose_a(ra.state or {})
                if action[0] == "throw":
                    break
                await a.send("act", table=table, seat=0, token=ra.token, action=action)
                count = len(ra.lines)
                await a.follow(ra, until=lambda r, n=count: len(r.lines) > n)
            held = len(ra.lines)
            await a.send("act", table=table, seat=0, token=ra.token, action=action)
            # Gone before hearing anything back (the action itself has reached the server:
            # a reset can drop data the server's socket has not read yet).
            await asyncio.sleep(0.05)
            a.ws.transport.abort()
            with pytest.raises(ClientError):
                await a.tables()
            # a forged token does not get the seat
            a2 = await Client.open(s.url)
            with pytest.raises(ClientError, match="not the token of seat 0"):
                await a2.rejoin(table, 0, "B" * 32)
            await asyncio.sleep(0.5)
            again = await a2.rejoin(table, 0, ra.token or "")
            assert len(again.lines) > held  # the throw was taken while it was away
            await asyncio.gather(a2.follow(again, choose_a), b_done)
            await a2.close()
            await b.close()
            return again, rb, table, held

    again, rb, table, held = run(play)
    logged = log_lines(tmp_path / table)
    assert again.lines == rb.lines == logged
    assert logged[held]["action"][0] == "throw" and logged[held]["player"] == 0
    result = verify_log(tmp_path / table / LOG_FILE)
    assert result.ok, result.message


def test_a_seat_taken_back_while_a_step_is_saved_is_sent_it_once_told_and_may_act(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step is told only after its autosave is written. A client that takes its seat
    back meanwhile is answered once the step is told, with the turn its actions are gated
    by: the action it sends at once is taken, not refused as "nobody's turn" (the race a
    CI run met), and it never hears of a step a restarted server would not know."""
    held, release = threading.Event(), threading.Event()
    write = GameTable.write_autosave

    def slow_write(self: GameTable, data: dict[str, Any] | None) -> None:
        # hold the save of a bot's step that hands the turn to seat 0
        if not release.is_set() and self.to_move() == 0 and self.lines[-1].get("player") == 1:
            held.set()
            release.wait(60)
        write(self, data)

    monkeypatch.setattr(GameTable, "write_autosave", slow_write)

    async def play() -> tuple[bool, TableRecord, Any, dict[str, Any], str]:
        async with Served(tmp_path) as s:
            try:
                a, c = await Client.open(s.url), await Client.open(s.url)
                table = await a.create("dicewar", ["open", "random"], seed=2)
                ra = await a.join(table, 0)
                playing = asyncio.ensure_future(a.follow(ra, make_chooser("dicewar", "random",
                                                                          1)))
                assert await asyncio.to_thread(held.wait, 60)
                playing.cancel()
                a.ws.transport.abort()
                rejoining = asyncio.ensure_future(c.rejoin(table, 0, ra.token or ""))
                await asyncio.sleep(0.3)
                answered_while_held = rejoining.done()
            finally:
                release.set()
            back = await rejoining
            action = make_chooser("dicewar", "random", 3)(back.state or {})
            await c.send("act", id=10**6, table=table, seat=0, token=back.token, action=action)
            await c.tables()  # the server takes one connection's messages in order
            while True:
                event = await c.next_event()
                if event["type"] == "error" or (event["type"] == "step"
                                                and event["line"].get("player") == 0):
                    break
            await c.close()
            return answered_while_held, back, action, event, table

    answered_while_held, back, action, event, table = run(play)
    assert not answered_while_held
    assert back.to_move == 0 and back.lines[-1]["player"] == 1  # the bot's step, told
    assert event["type"] == "step", event.get("message")
    assert event["index"] == len(back.lines)  # the next step after what the rejoin was sent
    assert event["line"]["action"] == json.loads(json.dumps(action))
    assert log_lines(tmp_path / table)[event["index"]] == event["line"]


def test_a_save_that_fails_stops_only_its_table_and_its_players_are_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills while a step is saved (our side, not the client's): that table
    stops, its player hears so at once (rather than waiting for a step that never comes),
    its seat's actions are refused with the reason, and another table plays on."""
    write = GameTable.write_autosave

    def full_disk(self: GameTable, data: dict[str, Any] | None) -> None:
        if self.id == "t1" and len(self.lines) > 3:
            raise OSError(28, "No space left on device")
        write(self, data)

    monkeypatch.setattr(GameTable, "write_autosave", full_disk)

    async def play() -> tuple[str, str, TableRecord]:
        async with Served(tmp_path) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            t1 = await a.create("dicewar", ["open", "random"], seed=2)
            t2 = await b.create("dicewar", ["open", "random"], seed=2)
            ra, rb = await a.join(t1, 0), await b.join(t2, 0)
            with pytest.raises(ClientError) as stopped:
                await a.follow(ra, make_chooser("dicewar", "random", 1))
            with pytest.raises(ClientError) as refused:
                await a.request("act", table=t1, seat=0, token=ra.token, action=["pass"])
            await b.follow(rb, make_chooser("dicewar", "random", 1))
            await a.close()
            await b.close()
            return str(stopped.value), str(refused.value), rb

    stopped, refused, rb = run(play)
    assert stopped == "server: table t1 stopped: the server failed (its log says why)"
    assert "it is nobody's (the table stopped) turn at table t1" in refused
    assert rb.finished and verify_log(tmp_path / rb.table / LOG_FILE).ok


def test_a_killed_server_restarts_and_resumes_every_table(tmp_path: Path) -> None:
    """SIGKILL the server mid-game (a bot seat and the dice play with it, so the random
    streams must be resumed too); a new server on the same --games-dir loads the table,
    both people take their seats back with their tokens, the game ends, and the one log
    of the whole game verifies."""
    proc, url = start_server(tmp_path)
    try:
        async def first() -> tuple[str, list[tuple[int, str]], int]:
            a, b = await Client.open(url), await Client.open(url)
            table = await a.create("diced", ["open", "random", "open"], seed=11)
            ra, rb = await a.join(table, 0), await b.join(table, 2)
            chooser_a, chooser_b = (make_chooser("diced", "random", 1),
                                    make_chooser("diced", "random", 2))
            await asyncio.gather(a.follow(ra, chooser_a, until=lambda r: len(r.lines) > 30),
                                 b.follow(rb, chooser_b, until=lambda r: len(r.lines) > 30))
            await a.close()
            await b.close()
            return table, [(0, ra.token or ""), (2, rb.token or "")], len(ra.lines)

        table, tokens, seen = run(first)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        saved = json.loads((tmp_path / table / TABLE_FILE).read_text())
        assert saved["log_lines"] >= seen > 30
        proc, url = start_server(tmp_path)

        async def second() -> list[TableRecord]:
            clients = [await Client.open(url) for _ in tokens]
            tables = await clients[0].tables()
            assert [t["table"] for t in tables] == [table] and tables[0]["status"] == "playing"
            records = [await c.rejoin(table, seat, token)
                       for c, (seat, token) in zip(clients, tokens, strict=True)]
            await asyncio.gather(*(c.follow(r, make_chooser("diced", "random", 5 + i))
                                   for i, (c, r) in enumerate(zip(clients, records, strict=True))))
            for c in clients:
                await c.close()
            return records

        records = run(second)
    finally:
        stop(proc)
    logged = log_lines(tmp_path / table)
    assert records[0].lines == records[1].lines == logged and logged[-1]["type"] == "end"
    result = verify_log(tmp_path / table / LOG_FILE)
    assert result.ok, result.message


def test_a_log_line_past_the_autosave_is_cut_on_resuming(tmp_path: Path) -> None:
    """A crash between a log line and its autosave: the table resumes from the autosave
    and the log is cut back to it (then the game plays on and verifies)."""
    game = GameTable.create("t1", "dicewar", ["random", "random"], 3, {}, "seeded", tmp_path)
    for _ in range(5):
        game.auto_step()
    game.close()
    folder = tmp_path / "t1"
    autosave = (folder / TABLE_FILE).read_text()
    game = GameTable.load(folder)
    game.auto_step()  # a sixth line ...
    game.close()
    (folder / TABLE_FILE).write_text(autosave)  # ... whose autosave never landed
    game = GameTable.load(folder)
    assert len(game.lines) == 6
    while not game.finished:
        game.auto_step()
    game.close()
    assert verify_log(folder / LOG_FILE).ok


def test_a_damaged_autosave_is_one_line_and_the_other_tables_resume(tmp_path: Path,
                                                                   caplog: Any) -> None:
    for name in ("t1", "t2"):
        GameTable.create(name, "dicewar", ["open", "random"], 3, {}, "seeded", tmp_path).close()
    (tmp_path / "t1" / TABLE_FILE).write_text('{"type": "tabletop-table", "format": 1}')
    server = TableServer(tmp_path)
    assert server.load() == ["t2"]
    assert any("t1/table.json" in r.getMessage() and "bad or missing field" in r.getMessage()
               for r in caplog.records)


# -- the command line --------------------------------------------------------------------------


def test_join_without_a_server_and_serve_on_a_taken_port_are_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    join = subprocess.run([sys.executable, "-m", "simulator.cli.main", "join", "ws://127.0.0.1:9",
                           "--headless"], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=60)
    assert join.returncode == 2 and "cannot connect to ws://127.0.0.1:9" in join.stderr
    assert len(join.stderr.strip().splitlines()) == 1
    proc, url = start_server(tmp_path)
    try:
        port = url.rsplit(":", 1)[1]
        serve = subprocess.run([sys.executable, "-m", "simulator.cli.main", "serve", "--port", port],
                               cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
        assert serve.returncode == 2 and "cannot listen" in serve.stderr
        # a terminal client plays a whole game through the running server
        played = subprocess.run([sys.executable, "-m", "simulator.cli.main", "join", url,
                                 "--create", "diced", "--seats", "open,random,random",
                                 "--auto", "greedy", "--headless"], cwd=ROOT,
                                capture_output=True, text=True, env=env, timeout=120)
        assert played.returncode == 0, played.stderr
        assert "End after" in played.stdout and "seat 0 of table t1 is yours" in played.stderr
        # the terminal lobby: a table made, seat 0 taken, a bot put in each open seat
        lobby = subprocess.run([sys.executable, "-m", "simulator.cli.main", "join", url,
                                "--auto", "random", "--headless"], cwd=ROOT, input=(
                                    "new dicewar open,open\njoin t2 0\nbot 1 randm\n"
                                    "bot 1 random\n"), capture_output=True, text=True, env=env,
                               timeout=120)
        assert lobby.returncode == 0, lobby.stderr
        assert "created table t2" in lobby.stdout and "did you mean random?" in lobby.stdout
        assert "End after" in lobby.stdout
    finally:
        stop(proc)
    assert verify_log(tmp_path / "t1" / LOG_FILE).ok
    # the seats the clients' --auto bots played are logged as what played them
    assert log_lines(tmp_path / "t1")[0]["played_by"] == ["greedy", "random", "random"]
    assert log_lines(tmp_path / "t2")[0]["played_by"] == ["random", "random"]


def test_join_help_says_how_many_seats_each_game_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """`tabletop join --help` lists every registered game with its seats and bots (read
    from the registry)."""
    from rules import registry
    from simulator.cli.main import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["join", "--help"])
    text = capsys.readouterr().out
    for name in registry.names():
        spec = registry.lookup(name)
        seats = (f"{spec.min_players}" if spec.min_players == spec.max_players
                 else f"{spec.min_players} to {spec.max_players}")
        assert any(line.split()[:1] == [name] and f" {seats} seats; bots: "
                   f"{', '.join(spec.bots)}" in line for line in text.splitlines()), name


# -- load ----------------------------------------------------------------------------------


def test_the_load_run_plays_every_table_to_the_end_and_times_every_action(tmp_path: Path) -> None:
    """What benchmarks/bench_server.py prints, small: 3 tables with a spectator each."""
    result = run_load("diceland-hex", tables=3, seats=2, watchers=1, seed=4, games_dir=tmp_path)
    logs = sorted(tmp_path.glob(f"*/{LOG_FILE}"))
    assert len(logs) == 3 and all(verify_log(p).ok for p in logs)
    assert result.steps == sum(len(log_lines(p.parent)) - 1 for p in logs)
    assert result.clients == 9 and result.person_actions > 0
    # every action sent was heard by all three clients at its table, and timed
    assert len(result.latency_ms) == result.person_actions
    assert 0 < result.latency(0.5) <= result.latency(0.99) < 10_000
    assert result.lines()[1].startswith("  tables per second:")


# -- the window's session (no display needed) -----------------------------------------------


def test_the_window_session_plays_a_seat_through_the_server_and_shows_its_throws(
        tmp_path: Path) -> None:
    """`tabletop join` with a window: NetSession (what the Deep White Sea window plays on)
    takes seat 0 back with its token over a Bridge, sends its person's actions and shows
    each server step: the state is the server's, and a throw's animation is the server's
    recorded trajectory, ending where the table's outcome put the die."""
    from simulator.net.window import STEP, Bridge, NetSession
    from simulator.render.deep_white_sea.session import ThrowAnim

    async def serve_and_wait() -> None:
        async with Served(tmp_path) as s:
            a, b = await Client.open(s.url), await Client.open(s.url)
            table = await a.create("deep-white-sea", ["open", "random"], seed=3)
            ra = await a.join(table, 0)
            await a.close()
            out.update(url=s.url, table=table, token=ra.token)
            ready.set()
            await asyncio.to_thread(done_flag.wait, 300)
            await b.close()

    ready = threading.Event()
    done_flag = threading.Event()
    out: dict[str, Any] = {}
    server = threading.Thread(target=lambda: asyncio.run(serve_and_wait()))
    server.start()
    try:
        assert ready.wait(60)
        session = NetSession(Bridge(out["url"], out["table"], 0, out["token"]))
        choose = make_chooser("deep-white-sea", "random", 4)
        throws, steps = [], 0
        while not session.state.is_terminal() and steps < 400:
            if not session.is_bot_turn():
                session.send(choose(json.loads(json.dumps(session.state.serialize()))))
                assert session.is_bot_turn()  # waiting for the server now
                continue
            kind, event = session.bot_action()
            assert kind == STEP, event
            shown = session.apply(event)
            steps += 1
            assert session.step == event["index"] and session.state.serialize() == event["state"]
            for anim in shown.anims:
                if isinstance(anim, ThrowAnim):
                    outcome = event["line"]["results"][0]["outcome"]
                    end = anim.playback.poses_at(anim.playback.duration)[anim.die]
                    if outcome["status"] == "on_table":
                        assert end[0][:2] == pytest.approx(outcome["position"][:2], abs=1e-6)
                    throws.append((event["line"]["player"], anim.playback.duration))
        session.close()
        assert session.state.is_terminal() and steps > 10
        assert {seat for seat, _ in throws} == {0, 1} and all(d > 0.1 for _, d in throws)
    finally:
        done_flag.set()
        server.join(60)
    logged = log_lines(tmp_path / out["table"])
    assert logged[-1]["type"] == "end" and verify_log(tmp_path / out["table"] / LOG_FILE).ok


def test_the_window_session_lets_its_auto_bot_play_its_seat(tmp_path: Path) -> None:
    """`tabletop join --auto KIND` with a window: the window's seat is played by that bot.
    The session never waits for a person (every turn is the "bot thread"'s): at its seat's
    turn it chooses, sends, and takes the server's step like any other."""
    from simulator.net.window import STEP, Bridge, NetSession

    async def serve_and_wait() -> None:
        async with Served(tmp_path) as s:
            a = await Client.open(s.url)
            table = await a.create("deep-white-sea", ["open", "random"], seed=3,
                                   options={"table": "kinematic"})
            ra = await a.join(table, 0, kind="random")
            await a.close()
            out.update(url=s.url, table=table, token=ra.token)
            ready.set()
            await asyncio.to_thread(done_flag.wait, 120)

    ready, done_flag = threading.Event(), threading.Event()
    out: dict[str, Any] = {}
    server = threading.Thread(target=lambda: asyncio.run(serve_and_wait()))
    server.start()
    try:
        assert ready.wait(60)
        session = NetSession(Bridge(out["url"], out["table"], 0, out["token"]),
                             make_chooser("deep-white-sea", "random", 4), "random")
        ours = 0
        while not session.state.is_terminal() and ours < 4:
            assert session.is_bot_turn()  # never a person's turn in the window
            kind, event = session.bot_action()
            assert kind == STEP, event
            session.apply(event)
            ours += event["line"].get("type") == "action" and event["line"]["player"] == 0
        session.close()
        assert ours == 4 and session.player_name(0).endswith("(random)")
    finally:
        done_flag.set()
        server.join(60)


@pytest.mark.display
def test_the_window_plays_a_seat_through_the_server(xvfb_display: str, tmp_path: Path) -> None:
    """The Deep White Sea window, under Xvfb, through its own handlers (tests/
    window_net_script.py): the first die placed with Enter and a throw by a drag reach the
    server, the throw is played back from the server's trajectory (no physics here), and
    the dice stand where the server's state puts them."""
    script = Path(__file__).with_name("window_net_script.py")
    env = {**os.environ, "DISPLAY": xvfb_display, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["class"] == "NetTableApp" and out["placed"]
    assert out["pending_after_release"] is True  # the drag's throw went to the server
    assert out["thrown"] == ["throw", out["die"]]
    assert out["playback_s"] > 0.2 and out["physics_s"] == 0.0
    assert out["scene_vs_server_m"] < 1e-6
    logged = log_lines(tmp_path / out["table"])
    assert any(x.get("type") == "action" and x["player"] == 0 and x["action"][:2] == out["thrown"]
               for x in logged)


@pytest.mark.display
def test_a_d6_games_window_plays_through_the_server(xvfb_display: str, tmp_path: Path) -> None:
    """Diced's window (tests/window_net_script.py ... diced) plays seat 0 by its keyboard
    list against two server bots for 30 steps: rolls are thrown in the tray showing the
    server's faces, and the window's state is the server's after each step (its digest),
    with no step where it differed."""
    script = Path(__file__).with_name("window_net_script.py")
    env = {**os.environ, "DISPLAY": xvfb_display, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script), str(tmp_path), "diced"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    logged = log_lines(tmp_path / out["table"])
    assert out["steps"] >= 30 and out["chosen"] > 0 and out["rolls_shown"]
    assert out["digest"] == logged[out["steps"]]["digest"]
    assert out["differed"] == []


@pytest.mark.display
def test_a_d6_window_with_auto_lets_its_bot_play_its_seat(xvfb_display: str,
                                                          tmp_path: Path) -> None:
    """`tabletop join --auto random` with a window (Diced): nothing is pressed, the window
    never waits for a person, its bot plays seat 0 through the server, and the server's
    log says so."""
    script = Path(__file__).with_name("window_net_script.py")
    env = {**os.environ, "DISPLAY": xvfb_display, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script), str(tmp_path), "diced", "random"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    logged = log_lines(tmp_path / out["table"])
    assert out["asked"] == 0 and out["chosen"] == 0 and out["steps"] >= 8
    assert any(x.get("type") == "action" and x["player"] == 0 for x in logged[1:out["steps"] + 1])
    assert logged[0]["played_by"] == ["random", "random", "random"]
    assert out["digest"] == logged[out["steps"]]["digest"] and out["differed"] == []


def test_the_load_bench_runs_deep_white_sea_tables_side_by_side(tmp_path: Path) -> None:
    """`python -m benchmarks.bench_server` on two Deep White Sea tables at once (in a process
    of its own: two tables' bots choosing together in one process once made PyBullet end it,
    exit 0 and nothing printed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_server", "--game",
                           "deep-white-sea", "--tables", "2"], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("server load: 2 tables of deep-white-sea, 4 clients"), lines
    assert "actions per second" in lines[2] and "median" in lines[3] and "p99" in lines[3]
