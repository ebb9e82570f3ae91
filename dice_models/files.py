"""Reading user files, written once for the whole project: bounded, UTF-8, one-line errors.

Every YAML file (dice, tables, experiments, crews, maps, tribes, boards, materials,
datasets) goes through `read_yaml`, and every JSON text (saves, logs, scenes, baselines)
through `read_text` and `parse_json`, so that each bound below holds everywhere:

- the file is read up to a size limit, never whole (`/dev/zero` or a 10 GB file given as a
  die is one error line, not a full memory);
- the bytes must be UTF-8; the error names the byte offset of the first bad byte;
- a YAML document may not expand, through its aliases, to more than `MAX_YAML_NODES`
  nodes: a 1 KB "billion laughs" file is refused at once instead of every validator
  walking (and every error line printing) billions of nodes;
- nesting too deep for the parsers' recursion is a data error, not a RecursionError;
- YAML numbers follow YAML 1.2 as well as 1.1, so `3e-3` and `1e3` are floats (PyYAML's
  1.1 resolver reads them as strings, and `mass: 3e-3` was refused as "not a number").
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml

from dice_models.errors import DataError, shown

# The largest shipped YAML file is about 20 KB and the largest dataset about 2 KB; 4 MiB
# leaves room for hand-written files of any sensible size while PyYAML (pure Python) still
# parses the largest in a few seconds.
MAX_YAML_BYTES = 4 * 1024 * 1024
# Saves, logs and baselines are JSON written by us; a long game's log is a few MB.
MAX_TEXT_BYTES = 256 * 1024 * 1024
# Nodes a YAML document may expand to, counting every alias as a copy of its anchor.
MAX_YAML_NODES = 1_000_000
# Nesting a YAML document may have: no data file of ours goes past 6; PyYAML's composer
# recurses per level, and 5000 levels took seconds to unwind (minutes under a tracer).
MAX_YAML_DEPTH = 100


def resolve_named(name_or_path: str | Path, folder: Path, what: str, *,
                  lower: bool = False) -> Path:
    """A shipped `folder/<name>.yaml` by name, or a file by path.

    An argument is a path when it ends in .yaml/.yml or names a directory; a bare name is
    the shipped file first, so a folder or file called `d6` in the current directory does
    not hide the shipped die `d6` (it did: `--dice physics` failed on a directory `d6`). A
    bare name that is not shipped may still be a file here. `lower` folds a bare name's case
    (crews are named by team). Unknown names get a did-you-mean."""
    text = str(name_or_path)
    p = Path(text)
    if p.suffix in (".yaml", ".yml") or os.sep in text or "/" in text:
        return p
    shipped = folder / f"{text.lower() if lower else text}.yaml"
    if text and is_file(shipped):
        return shipped
    if is_file(p):
        return p
    names = sorted(q.stem for q in folder.glob("*.yaml"))
    close = difflib.get_close_matches(text.lower() if lower else text, names, n=1)
    hint = f"; did you mean {close[0]}?" if close else f"; known: {', '.join(names)}"
    raise DataError(what, "name", f"unknown {what} {shown(text)}{hint}", show_value=False)


def is_file(path: str | Path) -> bool:
    """Is `path` a regular file? False, not an OSError, for a name too long for the system
    (Path.is_file lets ENAMETOOLONG through; a fuzzed 300-character name was a traceback)."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def read_bytes(path: str | Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """At most `limit` bytes of `path`; a larger file, or one that cannot be read, is one line."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise DataError(path, "file", f"cannot read: {exc.strerror or exc}",
                        show_value=False) from None
    if len(data) > limit:
        raise DataError(path, "file", f"too large (over {limit:,} bytes)", show_value=False)
    return data


def decode_utf8(data: bytes, source: str | Path) -> str:
    """`data` as text; bytes that are not UTF-8 are one line naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(source, "file", f"not UTF-8 text (byte 0x{data[exc.start]:02x} at byte "
                        f"offset {exc.start})", show_value=False) from None


def read_text(path: str | Path, limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of `path`, read up to `limit` bytes."""
    return decode_utf8(read_bytes(path, limit), path)


def read_yaml(path: str | Path) -> Any:
    """Parse a YAML file with the bounded safe loader; anything wrong with it is one line."""
    return parse_yaml(read_text(path, MAX_YAML_BYTES), path)


def parse_yaml(text: str, source: str | Path) -> Any:
    """Parse YAML text with the bounded safe loader (see the module docstring)."""
    if len(text) > MAX_YAML_BYTES:
        raise DataError(source, "file", f"too large (over {MAX_YAML_BYTES:,} characters)",
                        show_value=False)
    try:
        loader = _BoundedLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.reader.ReaderError as exc:
        raise DataError(source, "file", f"malformed YAML: character {exc.character:#x} is not "
                        f"allowed in YAML (character offset {exc.position})",
                        show_value=False) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "file"
        problem = getattr(exc, "problem", None) or str(exc)
        raise DataError(source, where, f"malformed YAML: {_folded(problem)}",
                        show_value=False) from None
    except _TooDeep:
        raise DataError(source, "file", f"YAML nested over {MAX_YAML_DEPTH} levels deep",
                        show_value=False) from None
    except _TooLarge:
        raise DataError(source, "file", f"YAML expands to over {MAX_YAML_NODES:,} nodes "
                        "through its aliases", show_value=False) from None
    except RecursionError:
        raise DataError(source, "file", "YAML nested too deeply", show_value=False) from None
    except ValueError:  # an integer past Python's 4300-digit conversion limit
        raise DataError(source, "file", "malformed YAML: an integer too long to read",
                        show_value=False) from None


def parse_json(text: str, source: str | Path, what: str = "JSON") -> Any:
    """Parse JSON text; malformed or absurdly nested text is one line naming the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(source, f"line {exc.lineno}", f"malformed {what}: {exc.msg}",
                        show_value=False) from None
    except RecursionError:
        raise DataError(source, "file", f"{what} nested too deeply", show_value=False) from None
    except ValueError:  # an integer past Python's 4300-digit conversion limit
        raise DataError(source, "file", f"malformed {what}: an integer too long to read",
                        show_value=False) from None


def _folded(text: object) -> str:
    """`text` with its line breaks and runs of spaces folded, for an error line."""
    return " ".join(str(text).split())


# -- the bounded loader ----------------------------------------------------------------------


class _TooLarge(Exception):
    """The document's alias expansion passed MAX_YAML_NODES."""


# YAML 1.2 floats that YAML 1.1 (PyYAML) reads as strings: an exponent without a dot or
# without a sign (`3e-3`, `1e3`, `2.5e3`). Those with a dot and a signed exponent, `.inf`
# and `.nan` are PyYAML's own resolver's.
_FLOAT_12 = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")


class _TooDeep(Exception):
    """The document nests deeper than MAX_YAML_DEPTH."""


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader with YAML 1.2 exponents and caps on nesting and alias expansion."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _TooDeep
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            _expanded_size(node, {})
        return node


_BoundedLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12,
                                     list("-+0123456789."))


def _expanded_size(node: yaml.Node, seen: dict[int, int]) -> int:
    """Nodes `node` stands for once every alias is copied out; memoised per node, so linear
    in the composed graph however many times an anchor is reused. Iterative, so a deeply
    nested document cannot overflow the stack here. A node inside itself (`&a [*a]`)
    expands without end."""
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    open_nodes: set[int] = set()
    while stack:
        current, children_done = stack.pop()
        key = id(current)
        children = _children(current)
        if not children_done:
            if key in seen:
                continue
            if key in open_nodes:
                raise _TooLarge
            open_nodes.add(key)
            stack.append((current, True))
            stack.extend((child, False) for child in children if id(child) not in seen)
            continue
        open_nodes.discard(key)
        total = 1 + sum(seen[id(child)] for child in children)
        if total > MAX_YAML_NODES:
            raise _TooLarge
        seen[key] = total
    return seen[id(node)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
