"""Network play: the table server (`tabletop serve`) and its clients (`tabletop join`).

- `protocol`: the messages and their schemas (size, rate, types and ranges).
- `table`: one table's game, seats, log and autosave (no sockets).
- `server`: the asyncio/websockets server holding the tables.
- `client`: the lobby, following a table and playing a seat (terminal or bot).

It sits below `simulator.cli` (whose `serve` and `join` commands start it) and imports nothing
from it: it uses the registry, the runner's steps and the plug-ins (`simulator.plugins`: the
physics table, the dice rollers) the way `tabletop play` does.
"""
