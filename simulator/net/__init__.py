"""Network play: the table server (`tabletop serve`) and its clients (`tabletop join`).

- `protocol`: the messages and their schemas (size, rate, types and ranges).
- `table`: one table's game, seats, log and autosave (no sockets).
- `server`: the asyncio/websockets server holding the tables.
- `client`: the lobby, following a table and playing a seat (terminal or bot).

This sits beside `simulator.cli` (DESIGN.md: "the `tabletop` command, the network server and
client"): it uses the registry, the runner's steps and the physics table the way `tabletop
play` does.
"""
