"""The table server's messages: what a client may send, checked before anything acts on it.

Every message is one JSON object in one WebSocket text frame, with a `type`. A message from
a client is refused, with an `error` reply naming the field and the value, when it is
larger than `MAX_MESSAGE_BYTES`, is not UTF-8 JSON (NaN and Infinity included: they are not
JSON), nests deeper than `MAX_DEPTH`, or breaks its type's schema below (unknown fields,
wrong types, out-of-range numbers, over-long texts and lists). The schemas are JSON Schema
(draft 2020-12), checked by the `jsonschema` library rather than by hand, so the limits are
data that can be read in one place.

Client to server:

- `list`: the tables. `create`: a new table (`game`, `seats`: each "open" for a person or a
  bot kind, `seed`, `options`, `dice`).
- `join` (`table`, `seat`, `name`, `kind`): take an open seat; the reply carries the seat's
  secret token. `kind` says what plays the seat on the client: "human" (the default) or
  a bot kind of the game (`tabletop join --auto KIND`); the log's header records it.
  `watch` (`table`): spectate. `rejoin` (`table`, `seat`, `token`): take one's seat back
  after a disconnect (or a server restart).
- `bot` (`table`, `seat`, `kind`, `token`): a seated player puts a bot in an open seat
  before the game starts.
- `act` (`table`, `seat`, `token`, `action`, `at`): play an action (a JSON list, as in the
  logs). `at`, the index of the table's latest step the action was chosen at, is optional;
  the stock clients send it, and the server refuses an action chosen at an earlier step
  (one sent twice, or chosen before the table moved on).

Server to client: `welcome`, `tables`, `created`, `joined`, `seat` (a seat changed), `step`
(one log line with its state `digest`, the state after it, whose turn it is, and for a
throw on the physics table its `trajectory` at 60 Hz), `error` (`message`, `request`).
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

PROTOCOL = 1
# A message a client may send (an action with a 13-number throw is under 1 KiB): larger ones
# are refused with an error reply and the connection stays. WebSocket frames past
# HARD_LIMIT_BYTES make the library close the connection (1009, "message too big").
MAX_MESSAGE_BYTES = 16 * 1024
HARD_LIMIT_BYTES = 256 * 1024
MAX_DEPTH = 8  # JSON nesting a message may have (an action is 3 deep)
# Flood control per connection: a token bucket of BURST messages refilled at RATE a second;
# a connection refused CLOSE_AFTER times for flooding is closed (1008, policy violation).
RATE_PER_S = 50.0
BURST = 100
CLOSE_AFTER = 200

TABLE_ID = {"type": "string", "pattern": "^[a-z0-9-]{1,32}$"}
SEAT = {"type": "integer", "minimum": 0, "maximum": 7}
TOKEN = {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"}
NAME = {"type": "string", "minLength": 1, "maxLength": 40}
KIND = {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,19}$"}
_SCALAR = {"anyOf": [{"type": "string", "maxLength": 100},
                     {"type": "integer", "minimum": -1_000_000_000, "maximum": 1_000_000_000},
                     {"type": "number", "minimum": -1e6, "maximum": 1e6},
                     {"type": "boolean"}]}
_PART = {"anyOf": [_SCALAR, {"type": "array", "maxItems": 32,
                             "items": {"anyOf": [_SCALAR, {"type": "array", "maxItems": 32,
                                                           "items": _SCALAR}]}}]}
ACTION = {"type": "array", "minItems": 1, "maxItems": 16, "items": _PART}
OPTION_VALUE = {"anyOf": [{"type": "string", "maxLength": 200},
                          {"type": "integer", "minimum": -1_000_000_000, "maximum": 1_000_000_000},
                          {"type": "boolean"}, {"type": "null"}]}


def _message(kind: str, fields: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "required": ["type", *required],
            "properties": {"type": {"const": kind}, "id": {"type": "integer", "minimum": 0,
                                                           "maximum": 2**31}, **fields}}


SCHEMAS: dict[str, dict[str, Any]] = {
    "hello": _message("hello", {"name": NAME}),
    "list": _message("list", {}),
    "create": _message("create", {
        "game": {"type": "string", "maxLength": 40},
        "seats": {"type": "array", "minItems": 1, "maxItems": 8, "items": KIND},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "options": {"type": "object", "maxProperties": 16,
                    "propertyNames": {"pattern": "^[a-z][a-z0-9_]{0,39}$"},
                    "additionalProperties": OPTION_VALUE},
        "dice": {"enum": ["seeded", "physics"]},
    }, ("game", "seats")),
    "join": _message("join", {"table": TABLE_ID, "seat": SEAT, "name": NAME, "kind": KIND},
                     ("table", "seat")),
    "watch": _message("watch", {"table": TABLE_ID}, ("table",)),
    "rejoin": _message("rejoin", {"table": TABLE_ID, "seat": SEAT, "token": TOKEN},
                       ("table", "seat", "token")),
    "bot": _message("bot", {"table": TABLE_ID, "seat": SEAT, "kind": KIND, "token": TOKEN},
                    ("table", "seat", "kind", "token")),
    "act": _message("act", {"table": TABLE_ID, "seat": SEAT, "token": TOKEN, "action": ACTION,
                            "at": {"type": "integer", "minimum": 0, "maximum": 2**31}},
                    ("table", "seat", "token", "action")),
}
_VALIDATORS = {kind: Draft202012Validator(schema) for kind, schema in SCHEMAS.items()}
for _schema in SCHEMAS.values():
    Draft202012Validator.check_schema(_schema)


class ProtocolError(ValueError):
    """A message the server refuses: one line naming the field and the value. `request_id`
    is the message's `id` when it had a good one, so the reply can name the request."""

    def __init__(self, message: str, request_id: int | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def parse(raw: str | bytes) -> dict[str, Any]:
    """A client's message, checked against its type's schema; else `ProtocolError`."""
    if isinstance(raw, bytes):
        raise ProtocolError("message: must be a text frame of JSON, not binary")
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message: {size} bytes is over the limit of {MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"message: not JSON ({exc.msg} at character {exc.pos})") from None
    except (RecursionError, ValueError) as exc:  # NaN, Infinity; an int past 4300 digits
        raise ProtocolError(f"message: not acceptable JSON ({_cut(str(exc))})") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"message: must be a JSON object (got {type(data).__name__})")
    ident = data.get("id")
    ident = ident if isinstance(ident, int) and not isinstance(ident, bool) else None
    if _depth(data) > MAX_DEPTH:
        raise ProtocolError(f"message: nested deeper than {MAX_DEPTH} levels", ident)
    kind = data.get("type")
    validator = _VALIDATORS.get(kind) if isinstance(kind, str) else None
    if validator is None:
        raise ProtocolError(f"type: unknown message type (known: {', '.join(sorted(SCHEMAS))}): "
                            f"{shorten(kind)}", ident)
    error = _first_error(validator, data)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "message"
        raise ProtocolError(f"{kind}: {where}: {_reason(error)}", ident)
    return data


def shorten(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to `limit` characters: what an error line echoes, after its
    field and its reason."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    return _cut(text, limit)


def encode(kind: str, **fields: Any) -> str:
    """A server message as the JSON text that goes on the wire."""
    return json.dumps({"type": kind, **fields}, separators=(",", ":"))


def _first_error(validator: Draft202012Validator, data: dict[str, Any]) -> ValidationError | None:
    """The most telling error (jsonschema's `best_match`), so `anyOf` failures name the
    deepest field rather than the whole action."""
    from jsonschema.exceptions import best_match

    return best_match(validator.iter_errors(data))


_TYPE_WORDS = {"string": "a string", "integer": "a whole number", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "an object",
               "null": "null"}


def _reason(error: ValidationError) -> str:
    """Why a value breaks its schema, in words, with the value (shortened) last: a long or
    deeply nested value never hides the reason."""
    rule, limit, value = error.validator, error.validator_value, error.instance
    got = f" (got {shorten(value)})"
    if "propertyNames" in error.schema_path:
        return f"a name must match {limit}{got}"
    if rule == "type":
        return f"must be {_TYPE_WORDS.get(str(limit), repr(limit))}{got}"
    if rule == "anyOf":  # the forms allowed, by their types
        types = [s.get("type") for s in limit if isinstance(s, dict)]
        if "number" in types:
            types = [x for x in types if x != "integer"]
        words = list(dict.fromkeys(_TYPE_WORDS.get(str(x), str(x)) for x in types))
        listed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)
        return f"must be {listed}{got}"
    if rule == "pattern":
        return f"must match {limit}{got}"
    if rule == "enum":
        return f"must be one of {', '.join(json.dumps(x) for x in limit)}{got}"
    if rule == "const":
        return f"must be {json.dumps(limit)}{got}"
    if rule in ("minimum", "maximum"):
        return f"must be at {'least' if rule == 'minimum' else 'most'} {limit}{got}"
    if rule in ("minLength", "minItems") and limit == 1:
        return "must not be empty"
    if rule in ("minLength", "maxLength"):
        return (f"must be at {'least' if rule == 'minLength' else 'most'} {limit} characters "
                f"long (got {len(value)})")
    if rule in ("minItems", "maxItems", "maxProperties"):
        return (f"must have at {'least' if rule == 'minItems' else 'most'} {limit} "
                f"{'items' if rule != 'maxProperties' else 'entries'} (got {len(value)})")
    if rule in ("required", "additionalProperties"):  # they name the fields, not values
        return _cut(error.message)
    return f"breaks the schema's {rule!r} rule{got}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deep `value` nests (iterative: a message nested a thousand deep must not
    recurse)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
    return deepest


def _cut(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
