"""`tabletop join URL`: play at a table server (`tabletop serve`), or watch.

    tabletop join ws://host:8765 --headless                     # the lobby, in the terminal
    tabletop join ws://host:8765 --create diced --seats open,open,random --headless
    tabletop join ws://host:8765 --table t3 --seat 1 --headless
    tabletop join ws://host:8765 --table t3 --seat 1 --token SECRET --headless   # take it back
    tabletop join ws://host:8765 --table t3 --watch --headless

Joining a seat prints its secret token: with it, a client that lost its connection (or
whose server restarted) takes the seat back with `--token`. `--bots KIND` puts a bot in
every seat still open once seated; `--auto KIND` lets a bot play this client's seat. The
server decides everything; the client shows each step and, at its seat's turn, asks with
the same prompts as `tabletop play --headless`. A game with a 3D window opens it unless
`--headless` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from typing import Any

from rules import registry
from simulator.cli.args import seed
from simulator.cli.main import UsageError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("join", help="play or watch at a table server",
                              description="Play or watch at a table server (tabletop serve).",
                              epilog=seats_help(),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url", help="the server, e.g. ws://localhost:8765")
    p.add_argument("--table", default=None, help="the table's id (see the lobby)")
    p.add_argument("--seat", type=int, default=None,
                   help="the seat to take, from 0 (default: the first open one)")
    p.add_argument("--watch", action="store_true", help="spectate instead of taking a seat")
    p.add_argument("--token", default=None, help="the seat's token: take the seat back")
    p.add_argument("--name", default="", help="your name at the table")
    p.add_argument("--create", metavar="GAME", default=None, help="make a new table of GAME")
    p.add_argument("--seats", default=None,
                   help="--create: one per seat, 'open' for a person or a bot kind "
                        "(default: open seats for the game's fewest players; how many "
                        "each game takes is listed below)")
    p.add_argument("--seed", type=seed, default=0, help="--create: seed for dice and bots")
    p.add_argument("--dice", choices=("seeded", "physics"), default="seeded",
                   help="--create: seeded random dice, or physics dice thrown into a tray")
    p.add_argument("--bots", metavar="KIND", default=None,
                   help="once seated, put a bot of this kind in every open seat")
    p.add_argument("--auto", metavar="KIND", default=None,
                   help="let a bot of this kind play this client's seat")
    p.add_argument("--headless", action="store_true",
                   help="no 3D window; play in the terminal")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="--create: a game option, e.g. --option table=kinematic or "
                        "--option pool=9 (see tabletop play --help); repeat for more")
    p.set_defaults(func=run)


def seats_help() -> str:
    """How many seats each game takes and its bot kinds, from the game registry."""
    rows = []
    for name in registry.names():
        spec = registry.lookup(name)
        seats = (f"{spec.min_players}" if spec.min_players == spec.max_players
                 else f"{spec.min_players} to {spec.max_players}")
        rows.append(f"  {name:<15} {seats} seats; bots: {', '.join(spec.bots)}")
    return ("seats each game takes (--create GAME --seats one per seat, 'open' or a bot):\n"
            + "\n".join(rows))


def run(args: argparse.Namespace) -> int:
    from simulator.net.client import ClientError

    if not args.url.startswith(("ws://", "wss://")):
        raise UsageError(f"url: must start with ws:// or wss:// (got {args.url[:80]!r})")
    if args.create is not None:
        registry.lookup(args.create)  # an unknown game is refused before connecting
    try:
        return asyncio.run(_session(args))
    except ClientError as exc:
        raise UsageError(str(exc)) from None


async def _session(args: argparse.Namespace) -> int:
    from simulator.net.client import Client, ClientError, TableRecord

    client = await Client.open(args.url)
    try:
        record: TableRecord | None
        if args.create is not None:
            table = await client.create(args.create, _seats(args), args.seed, _options(args),
                                        args.dice)
            print(f"created table {table}", file=sys.stderr)
            record = await _sit(client, args, table)
        elif args.table is not None:
            record = await _sit(client, args, args.table)
        else:
            record = await _lobby(client, args)
            if record is not None and record.seat is not None and not args.bots:
                await _offer_bots(client, record)
        if record is None:
            return 0
        game = await _game_of(client, record.table)
        if record.seat is not None and args.bots:
            for seat in _open_seats(await client.tables(), record.table):
                await client.add_bot(record, seat, args.bots)
        window = None if args.headless else _window_of(game)
        if window is not None:
            return int(await window(client, record, game, args))
        return await _play_in_terminal(client, record, game, args)
    except ClientError:
        raise
    finally:
        await client.close()


async def _sit(client: Any, args: argparse.Namespace, table: str) -> Any:
    if args.watch:
        return await client.watch(table)
    if args.token is not None:
        if args.seat is None:
            raise UsageError("--token: give the seat it belongs to with --seat")
        return await client.rejoin(table, args.seat, args.token)
    seat = args.seat
    if seat is None:
        open_seats = _open_seats(await client.tables(), table)
        if not open_seats:
            raise UsageError(f"table {table} has no open seat; --watch to spectate")
        seat = open_seats[0]
    record = await client.join(table, seat, args.name, args.auto)
    print(f"seat {seat} of table {table} is yours; its token is {record.token} "
          f"(take it back with --table {table} --seat {seat} --token {record.token})",
          file=sys.stderr)
    return record


async def _lobby(client: Any, args: argparse.Namespace) -> Any:
    """The terminal lobby: list the tables, make one, take a seat or watch."""
    from simulator.net.client import ClientError

    help_line = ("commands: list | new GAME SEAT,SEAT,... | join TABLE SEAT | "
                 "watch TABLE | quit")
    print(help_line)
    _show_tables(await client.tables())
    while True:
        try:
            words = (await asyncio.to_thread(input, "lobby> ")).split()
        except EOFError:
            return None
        try:
            if not words:
                continue
            if words[0] == "quit":
                return None
            if words[0] == "list":
                _show_tables(await client.tables())
            elif words[0] == "new" and len(words) == 3:
                table = await client.create(words[1], words[2].split(","), args.seed,
                                            _options(args), args.dice)
                print(f"created table {table}")
            elif words[0] == "join" and len(words) == 3 and words[2].isdigit():
                args.seat = int(words[2])
                return await _sit(client, args, words[1])
            elif words[0] == "watch" and len(words) == 2:
                return await client.watch(words[1])
            else:
                print(help_line)
        except (ClientError, UsageError) as exc:
            print(f"  {exc}")


async def _offer_bots(client: Any, record: Any) -> None:
    """In the lobby, once seated: bots for the seats still open, or wait for people."""
    from simulator.net.client import ClientError

    while True:
        open_seats = _open_seats(await client.tables(), record.table)
        if not open_seats:
            return
        try:
            words = (await asyncio.to_thread(
                input, f"open seats {', '.join(map(str, open_seats))}: 'bot SEAT KIND' puts a "
                "bot there; Enter waits for people: ")).split()
        except EOFError:
            return
        if not words:
            return
        if len(words) == 3 and words[0] == "bot" and words[1].isdigit():
            try:
                await client.add_bot(record, int(words[1]), words[2])
            except ClientError as exc:
                print(f"  {exc}")
        else:
            print("  type 'bot SEAT KIND' (e.g. 'bot 1 random') or press Enter")


async def _play_in_terminal(client: Any, record: Any, game: str, args: argparse.Namespace) -> int:
    from simulator.net.client import make_chooser, telling

    chooser = None
    if record.seat is not None:
        chooser = make_chooser(game, args.auto or "human", args.seed)
    tell = telling(lambda line: print(line, flush=True))
    for line in record.lines:  # what happened before we came
        tell(record, line)
    if _open_seats(await client.tables(), record.table):
        print(f"waiting at table {record.table} for every seat to be taken", file=sys.stderr)
    await client.follow(record, chooser, tell)
    return 0


async def _game_of(client: Any, table: str) -> str:
    for t in await client.tables():
        if t["table"] == table:
            return str(t["game"])
    raise UsageError(f"no table {table!r}")


def _open_seats(tables: list[dict[str, Any]], table: str) -> list[int]:
    for t in tables:
        if t["table"] == table:
            return [i for i, s in enumerate(t["seats"]) if s["kind"] == "open"]
    return []


def _show_tables(tables: list[dict[str, Any]]) -> None:
    if not tables:
        print("  no tables yet")
    for t in tables:
        seats = ", ".join(f"{i}: {s['name'] or s['kind']}" for i, s in enumerate(t["seats"]))
        print(f"  {t['table']}  {t['game']}  {t['status']}, {t['steps']} steps  [{seats}]")


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """`--option NAME=VALUE`s as the game's option types say (the server checks them)."""
    out: dict[str, Any] = {}
    spec = registry.lookup(args.create) if args.create else None
    kinds = {o.name: o.kind for o in spec.options} if spec is not None else {}
    for item in args.option:
        name, eq, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not eq or not name:
            raise UsageError(f"--option: must be NAME=VALUE (got {item[:80]!r})")
        kind = kinds.get(name, str)
        if kind is bool:
            if text.lower() not in ("true", "false", "yes", "no", "1", "0"):
                raise UsageError(f"--option {name}: must be true or false (got {text[:40]!r})")
            out[name] = text.lower() in ("true", "yes", "1")
        elif kind is int:
            try:
                out[name] = int(text)
            except ValueError:
                raise UsageError(f"--option {name}: must be a whole number "
                                 f"(got {text[:40]!r})") from None
        else:
            out[name] = text
    return out


def _seats(args: argparse.Namespace) -> list[str]:
    if args.seats:
        return [s.strip() for s in args.seats.split(",") if s.strip()]
    return ["open"] * registry.lookup(args.create).min_players


def _window_of(game: str) -> Any:
    """The window client for a game with a 3D table (`simulator.render`'s window modules,
    found by name without importing Panda3D), else None: the terminal."""
    from simulator.render import window_games

    if game not in window_games():
        return None
    return importlib.import_module("simulator.net.window").play_window
