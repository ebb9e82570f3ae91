"""The window client of `tabletop join` (Deep White Sea): the game's own window, with the
same controls as local play, on a session whose every step comes from the server.

- `Bridge` keeps the connection (`simulator.net.client.Client`) in an asyncio loop on a
  thread of its own, since Panda3D's loop holds the main thread; the window takes the
  server's steps from it in order and sends its person's actions through it.
- `NetSession` is the window's `GameSession` fed by the server: the state is the one the
  server sent (checked against the line's digest), an action's animations are worked out
  from the poses before and after it, and a throw is played back from the trajectory the
  server recorded at 60 Hz, never simulated here. It plays no step itself.
- `net_app(App)` is the game's window class, changed in three places: a person's action
  goes to the server instead of the engine; the "bot thread" waits for the server's next
  step whenever it is not this seat's turn (or an action is on its way); starting again is
  the lobby's business.
- With `--auto KIND` the window's seat is played by that bot (`auto`, a chooser of
  `simulator.net.client.make_chooser`): on the window's thinking thread it chooses from
  the state shown, sends the action, and waits for the server's step like any other.

The lobby (make or pick a table, a seat, bots for empty seats, watching) is the terminal's
(`tabletop join` without `--table`), then the window opens on the table chosen.
"""

from __future__ import annotations

import asyncio
import json
import queue
import sys
import threading
from typing import Any

from rules.core.match import Match, from_json, to_json
from rules.registry import lookup
from simulator.net.client import Chooser, Client, ClientError, TableRecord, make_chooser
from simulator.physics.world import Frame
from simulator.plugins import load_plugins
from simulator.render.core.playback import playback_of
from simulator.render.core.session import StepResult
from simulator.render.deep_white_sea.session import GAME, GameSession, ThrowAnim, _spec_of

STEP, REFUSED, CLOSED = "step", "refused", "closed"


class Bridge:
    """A connection to the server run on its own thread (see the module docstring)."""

    def __init__(self, url: str, table: str, seat: int | None, token: str | None,
                 timeout: float = 30.0) -> None:
        self.items: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="tabletop-join")
        self.thread.start()
        self.client: Client | None = None
        self._act_id: int | None = None
        self._ids = iter(range(1_000_000, 2**31))
        future = asyncio.run_coroutine_threadsafe(self._open(url, table, seat, token), self.loop)
        self.record: TableRecord = future.result(timeout)

    async def _open(self, url: str, table: str, seat: int | None,
                    token: str | None) -> TableRecord:
        self.client = await Client.open(url)
        if seat is None or token is None:
            record = await self.client.watch(table)
        else:
            record = await self.client.rejoin(table, seat, token)
        asyncio.ensure_future(self._pump(record))
        return record

    async def _pump(self, record: TableRecord) -> None:
        """Hand the window every new step of the table, in order, and the refusals of its
        actions; the end of the connection last."""
        assert self.client is not None
        try:
            while True:
                event = await self.client.next_event()
                if event.get("type") == "error" and event.get("id") == self._act_id:
                    self._act_id = None
                    self.items.put((REFUSED, str(event.get("message"))))
                elif (event.get("type") == "step" and event.get("table") == record.table
                      and record.take(event["index"], event["line"], event["state"],
                                      event["to_move"])):
                    self.items.put((STEP, event))
        except ClientError as exc:
            self.items.put((CLOSED, str(exc)))

    def send_act(self, action: Any, at: int) -> None:
        """Send the seat's action, chosen at step `at` (the server refuses it if the
        table has moved on since)."""
        assert self.client is not None and self.record.seat is not None
        self._act_id = next(self._ids)
        coroutine = self.client.send("act", id=self._act_id, table=self.record.table,
                                     seat=self.record.seat, token=self.record.token,
                                     action=to_json(action), at=at)
        asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def next(self, timeout: float | None = None) -> tuple[str, Any]:
        return self.items.get(timeout=timeout)

    def close(self) -> None:
        """Close the connection and stop the thread (again: nothing)."""
        if not self.thread.is_alive():
            return
        if self.client is not None:
            asyncio.run_coroutine_threadsafe(self.client.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class NetSession(GameSession):
    """A Deep White Sea `GameSession` whose steps are the server's (module docstring)."""

    def __init__(self, bridge: Bridge, auto: Chooser | None = None,
                 auto_kind: str = "") -> None:  # no GameSession.__init__: no game of its own
        record = bridge.record
        header = record.lines[0] if record.lines else {}
        self.bridge = bridge
        self.auto = auto if record.seat is not None else None
        self.spec = lookup(GAME)
        self.module = self.spec.module()
        load_plugins()  # the physics table's scene format
        self.seat = record.seat
        mine = auto_kind if self.auto is not None and auto_kind else "human"
        self.players = [mine if i == record.seat else "remote" for i in range(2)]
        self.seed = int(header.get("seed", 0))
        self.options = dict(header.get("options") or {})
        # The server's game, as a match holding the state it sent (its steps are the server's).
        self.match = Match(self.spec, self.module.deserialize(record.state or {}), self.players)
        self.state.take_events()
        self.agents = [None, None]
        self.history: list[StepResult] = []
        self.step = max(0, len(record.lines) - 1)
        self.to_move = record.to_move
        self.pending = False  # an action of ours is on its way to the server

    def is_bot_turn(self) -> bool:
        """Is the window to wait for the server (anyone's turn but ours, or ours sent), or
        for its own bot (`auto`)?"""
        return not self.state.is_terminal() and (self.pending or self.seat is None
                                                 or self.to_move != self.seat
                                                 or self.auto is not None)

    def bot_action(self) -> tuple[str, Any]:
        """The server's next step (or a refusal, or the end of the connection): waited for
        on the window's thinking thread; at our turn with `auto`, our bot's action is
        chosen and sent first."""
        if self.auto is not None and not self.pending and self.to_move == self.seat:
            self.send(self.auto(_plain(self.state.serialize())))
        return self.bridge.next()

    def send(self, action: Any) -> None:
        self.pending = True
        self.bridge.send_act(action, self.step)

    def apply(self, action: Any) -> StepResult:
        """Take one of the server's steps (`action` is its `step` event) and work out what
        to show."""
        event = action
        line = event["line"]
        before = self.poses()
        state = self.module.deserialize(event["state"])
        state.take_events()
        if line.get("type") == "action":
            act = from_json(line["action"])
            throw_anim = self._throw_anim(act, line, event.get("trajectory"))
            self.state = state
            out = StepResult(act, str(line["text"]), int(line["player"]), list(line["events"]))
            out.anims = self._animations(act, before, self.poses(), throw_anim)
        else:  # the header, a roll (not in this game), the end
            self.state = state
            out = StepResult(None, "", -1, list(line.get("events", [])))
        self.step, self.to_move, self.pending = event["index"], event["to_move"], False
        self.history.append(out)
        return out

    def close(self) -> None:
        self.bridge.close()

    def _throw_anim(self, action: Any, line: dict[str, Any],
                    trajectory: dict[str, Any] | None) -> ThrowAnim | None:
        """A throw as the server recorded it: its frames, with the dice it left off the
        table falling on to the floor."""
        if not (action[0] == "throw" and len(action) == 3 and trajectory):
            return None
        throw = _spec_of(action[2])
        frames = [Frame(float(f["t"]), {n: (tuple(p), tuple(q)) for n, (p, q) in f["poses"].items()})
                  for f in trajectory.get("frames", [])]
        result = (line.get("results") or [{}])[0]
        outcome = result.get("outcome") or {}
        afters = [outcome, *(d.get("after", {}) for d in result.get("disturbed", []))]
        fell = tuple(str(p.get("die")) for p in afters if p.get("reason") == "fell_off")
        playback = playback_of(frames, floor_z=-self.table_spec.height + 0.03, fell=fell)
        return ThrowAnim(action[1], throw, playback, 0.0, bool(result.get("foul")))


class ServerMoves:
    """What both window clients change in a game's window (mixed in before its class): a
    person's action goes to the server; the server's steps come through `take_result`
    (from the window's waiting thread), with refusals and the end of the connection said
    in the window; starting again is the lobby's. A class fills in `send_to_server`,
    `take_step`, `waiting` and `stop_waiting`."""

    def apply(self, action: Any, bot: bool = False) -> Any:
        if bot:  # one of the server's steps
            return super().apply(action, bot=True)  # type: ignore[misc]
        self.send_to_server(action)
        self.message = "sent to the server"
        self.refresh_texts()  # type: ignore[attr-defined]
        return None

    def take_result(self, result: Any) -> None:
        kind, payload = result
        if kind == STEP:
            self.take_step(payload)
            return
        self.stop_waiting()
        if kind == REFUSED:
            self.message = f"the server refused it: {payload}"
        else:
            self.paused = True
            self.message = f"the connection ended: {payload}"
        self.log_lines.append(self.message)  # type: ignore[attr-defined]
        self.refresh()  # type: ignore[attr-defined]

    def thinking_text(self) -> str:
        return "waiting for the server" if self.waiting() else "waiting for the table"

    def restart(self) -> None:
        self.message = "a new game is a new table: tabletop join (the lobby)"
        self.refresh_texts()  # type: ignore[attr-defined]

    def send_to_server(self, action: Any) -> None:
        raise NotImplementedError

    def take_step(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    def waiting(self) -> bool:
        raise NotImplementedError

    def stop_waiting(self) -> None:
        raise NotImplementedError


def net_app(app_class: Any) -> Any:
    """Deep White Sea's window class playing through the server (module docstring)."""

    class NetApp(ServerMoves, app_class):  # type: ignore[misc, valid-type]
        def send_to_server(self, action: Any) -> None:
            self.session.send(action)

        def take_step(self, event: dict[str, Any]) -> None:
            app_class.take_result(self, event)  # applied as a bot's step: the StepResult shown

        def waiting(self) -> bool:
            return bool(self.session.pending)

        def stop_waiting(self) -> None:
            self.session.pending = False

        def anim_lead(self, anim: Any, bot: bool) -> float:
            # Only the other seats' throws wind up first; ours flies as the drag ended.
            mine = self.session.seat is not None and self.session.history \
                and self.session.history[-1].player == self.session.seat
            return 0.0 if mine else float(super().anim_lead(anim, bot))

    NetApp.__name__ = f"Net{app_class.__name__}"
    return NetApp


def dice_net_session(record: TableRecord, game: str) -> Any:
    """A d6 game's window session (`simulator.render.d6.session.DiceSession`) that
    mirrors the server's table: set up as the log's header says, at the state the server
    sent; every later step is the server's, replayed through it and checked against the
    server's digest (`net_dice_app`)."""
    from simulator.render.d6.session import DiceSession

    header = record.lines[0]
    kinds = [str(k) for k in header["players"]]
    session = DiceSession(game, ["human"] * len(kinds), int(header["seed"]),
                          dict(header.get("options") or {}))
    session.players = ["human" if i == record.seat else "remote" if k == "human" else k
                       for i, k in enumerate(kinds)]
    session.state = session.module.deserialize(record.state or {})
    session.state.take_events()
    session.step = len(record.lines) - 1
    players = [x["player"] for x in record.lines if x.get("type") == "action"]
    session.last_player = players[-1] if players else 0
    return session


def net_dice_app(app_class: Any) -> Any:
    """A d6 game's window class playing through the server: the server's rolls are thrown
    in the tray showing the server's faces (as the replay viewer shows a log's), its
    actions applied; after each the state must hash to the server's digest, else the
    server's state is taken (and said)."""

    class NetDiceApp(ServerMoves, app_class):  # type: ignore[misc, valid-type]
        def init_game(self) -> None:
            super().init_game()
            self.bridge: Bridge = self.session.bridge_
            self.auto: Chooser | None = getattr(self.session, "auto_", None)
            self.pending = False
            self.server: dict[int, dict[str, Any]] = {}  # step -> its `step` event

        def our_turn(self) -> bool:
            s = self.session
            seat = self.bridge.record.seat
            return (not s.state.is_terminal() and seat is not None
                    and not s.state.is_chance_node() and int(s.state.current_player()) == seat)

        def bot_turn(self) -> bool:
            return not self.session.state.is_terminal() and (
                self.pending or not self.our_turn() or self.auto is not None)

        def think(self) -> Any:
            """The server's next step; at our turn with `auto`, our bot's action first."""
            if self.auto is not None and not self.pending and self.our_turn():
                self.send_to_server(self.auto(_plain(self.session.state.serialize())))
            return self.bridge.next()

        def send_to_server(self, action: Any) -> None:
            self.pending = True
            self.bridge.send_act(action, self.session.step)

        def waiting(self) -> bool:
            return self.pending

        def stop_waiting(self) -> None:
            self.pending = False

        def take_step(self, event: dict[str, Any]) -> None:
            line = event["line"]
            if line.get("type") not in ("chance", "action") or event["index"] <= self.session.step:
                return  # the header or the end line; a step the state already holds
            self.pending = False
            k = self.session.step
            self.server[k + 1] = event
            self.replay_step(line)  # a roll checks itself once its faces are applied
            if line["type"] == "action":
                self._check_replayed(k)

        def _check_replayed(self, k: int) -> None:
            """After step k + 1: the state must be the server's."""
            from rules.core.runner import digest

            s = self.session
            event = self.server.pop(k + 1, None)
            if event is None or s.step != k + 1:
                return
            if digest(s.state) != event["line"].get("digest"):
                s.state = s.module.deserialize(event["state"])
                s.state.take_events()
                self.log_lines.append(f"step {k + 1}: the table here differed from the "
                                      "server's; showing the server's")
                self.sync_scene()
                self.refresh()

    NetDiceApp.__name__ = f"Net{app_class.__name__}"
    return NetDiceApp


async def play_window(client: Client, record: TableRecord, game: str, args: Any) -> int:
    """`tabletop join` with a window: the lobby's connection is closed and the window's
    own takes the seat back with its token (or watches), on a thread beside Panda3D."""
    from simulator.render import WindowError
    from simulator.render.app import display_problem, window_module

    problem = display_problem()
    if problem is not None:
        raise WindowError(f"{problem}: use --headless to play in the terminal")
    module = window_module(game)
    if module is None:
        raise WindowError(f"{game} has no 3D table yet: use --headless")
    if not record.lines:
        print(f"waiting at table {record.table} for every seat to be taken", file=sys.stderr)
        await client.follow(record, until=lambda r: bool(r.lines))
    url, table, seat, token = args.url, record.table, record.seat, record.token
    await client.close()
    # Panda3D runs in this (the main) thread until the window closes; this event loop has
    # nothing more to do meanwhile, and the window's connection has a loop of its own.
    bridge = Bridge(url, table, seat, token)
    try:
        return int(window_app(bridge, game, module, args.auto, args.seed).run())
    finally:
        bridge.close()


def window_app(bridge: Bridge, game: str, module: Any, auto: str | None = None,
               seed: int = 0) -> Any:
    """The window for `game` (`module`: its window module) on the table `bridge` holds;
    `auto`: the bot kind that plays its seat (`--auto`; None or "human": the person)."""
    chooser = None
    if auto and auto != "human" and bridge.record.seat is not None:
        chooser = make_chooser(game, auto, seed)
    if game == GAME:
        return net_app(module.App)(NetSession(bridge, chooser, auto or ""))
    session = dice_net_session(bridge.record, game)
    session.bridge_ = bridge
    session.auto_ = chooser
    if chooser is not None and bridge.record.seat is not None:
        session.players[bridge.record.seat] = str(auto)
    return net_dice_app(module.App)(session)


def _plain(state: dict[str, Any]) -> dict[str, Any]:
    """A state's JSON as plain data sharing nothing with the game (a chooser rebuilds its
    own state from it)."""
    return dict(json.loads(json.dumps(state)))
