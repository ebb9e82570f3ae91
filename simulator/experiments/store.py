"""The results of one experiment: an SQLite file in the output directory, one row per throw,
committed a chunk at a time (a chunk's rows go in one transaction, so a run killed at any
moment leaves whole chunks and nothing else).

The directory belongs to one experiment, named by its fingerprint (`Experiment.identity`);
opening it for another experiment is refused before anything is written.

What the store holds is checksummed (format 2): a SHA-256 per chunk of rows (chunk c: the
throws with index in [c * N, (c + 1) * N), N = `meta.chunk_rows`, the experiment's chunk size
when the store was made) over the rows as SQLite hands them back, in throw order, as compact
JSON (`_chunk_sum`), in table `chunk_sums`; and one per `meta` value, in `meta_sums`. Each is
written in the transaction that writes what it covers. Every open (report, compare, resume)
recomputes them all, so a flipped bit anywhere in the rows or the meta values is one error
line naming the chunk, never other figures. A store of format 1 (no checksums) is reported
with a warning and never resumed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from itertools import groupby
from pathlib import Path
from typing import Any

from dice_models import DataError
from dice_models.errors import one_line
from dice_models.files import is_file
from dice_models.outfiles import OutputError, ensure_dir, reason
from simulator.experiments.config import Experiment

DB_NAME = "results.sqlite"
# 3: each row records the throw's style (a throw of styles, docs/impacts.md; '' for one
# distribution); 2: checksums per chunk of rows and per meta value, no style (read, not
# resumed); 1: no checksums either (read with a warning)
FORMAT = 3
UNCHECKED_FORMAT = 1
FORMATS = (1, 2, 3)


@dataclass(frozen=True)
class ThrowRow:
    """One throw: what was released and how it ended. `face` is the face value up and
    `final_down` the face value down (None when the simulation failed)."""

    idx: int
    initial_down: int
    height_m: float
    speed_ms: float
    spin_rads: float
    energy_j: float
    status: str  # 'on_table', 'off_table' or 'error'
    reason: str | None  # off_table: fell_off, leaning (cocked), overhang; error: its class
    face: int | None
    final_down: int | None
    settle_time_s: float
    steps: int
    style: str = ""  # the style the throw drew ('' for a throw of one distribution)


COLUMNS = tuple(f.name for f in fields(ThrowRow))
OLD_COLUMNS = COLUMNS[:-1]  # a store of format 1 or 2: no style
_as_tuple = operator.attrgetter(*COLUMNS)  # dataclasses.astuple deep-copies: slow per chunk
_OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS throws (
    idx INTEGER PRIMARY KEY,
    initial_down INTEGER NOT NULL,
    height_m REAL NOT NULL,
    speed_ms REAL NOT NULL,
    spin_rads REAL NOT NULL,
    energy_j REAL NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    face INTEGER,
    final_down INTEGER,
    settle_time_s REAL NOT NULL,
    steps INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunk_sums (
    chunk INTEGER PRIMARY KEY,
    rows INTEGER NOT NULL,
    sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta_sums (key TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
"""
_SCHEMA = _OLD_SCHEMA.replace("    steps INTEGER NOT NULL\n);",
                              "    steps INTEGER NOT NULL,\n    style TEXT NOT NULL\n);")
assert _SCHEMA != _OLD_SCHEMA


def _select(columns: tuple[str, ...]) -> str:
    return f"SELECT {', '.join(columns)} FROM throws"




class Store:
    def __init__(self, conn: sqlite3.Connection, path: Path, chunk_rows: int | None,
                 columns: tuple[str, ...] = COLUMNS) -> None:
        self.conn = conn
        self.path = path
        self.chunk_rows = chunk_rows  # rows a checksum covers; None: a store of format 1
        self.columns = columns  # OLD_COLUMNS: a store of format 1 or 2 (no style)
        self._select = _select(columns)

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create_or_open(cls, out_dir: str | Path, exp: Experiment) -> Store:
        """The store of `exp` in `out_dir`: new, or the one a previous run left (which must
        be the same experiment, and checksummed: a store of format 1 is not resumed)."""
        out = Path(out_dir)
        db = out / DB_NAME
        try:  # a name too long for the system makes even these questions fail
            if out.exists() and not out.is_dir():
                raise DataError(out, "--out", "is a file, not a directory", show_value=False)
            resuming = db.exists() and db.stat().st_size > 0
        except OSError as exc:
            raise OutputError(out, "--out", reason(exc)) from None
        if resuming:
            store = cls.open(out, resuming=True)
            if store.columns != COLUMNS:
                store.close()
                raise DataError(db, "format", "is 2, written before the store recorded each "
                                "throw's style: it is not resumed (`fairness report` still "
                                "reads it); run the experiment again with another --out",
                                show_value=False)
            theirs = store.experiment_json()
            if theirs.get("fingerprint") != exp.fingerprint():
                store.close()
                raise DataError(out, "experiment", f"holds results of another experiment "
                                f"({theirs.get('name')!r} from {theirs.get('source')}; "
                                f"{_first_difference(theirs, exp.to_json())} differs); "
                                "choose another --out", show_value=False)
            theirs_code = store._get("physics_code")
            if theirs_code != physics_code():
                store.close()
                raise DataError(out, "physics_code", f"was started with other physics code "
                                f"({theirs_code}, now {physics_code()}): resuming would mix "
                                "results; choose another --out", show_value=False)
            return store
        ensure_dir(out, "--out")
        conn = sqlite3.connect(db, isolation_level=None)
        _tune(conn)
        store = cls(conn, db, exp.chunk_size)
        with store.transaction():  # schema and identity at once: a kill leaves all or nothing
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            store._set("format", FORMAT)
            store._set("chunk_rows", exp.chunk_size)
            store._set("physics_code", physics_code())
            store._set("experiment", exp.to_json())
        return store

    @classmethod
    def open(cls, out_dir: str | Path, resuming: bool = False) -> Store:
        """An existing store, for reading (report, compare) or resuming. The file is checked
        read-only first (see `check_file`: every checksum too), so a damaged or foreign file
        is refused with one line and left exactly as it was: nothing is written to it, not
        even the switch to write-ahead logging. A store of format 1 (no checksums) is read
        with a warning on stderr, and refused when `resuming`."""
        out = Path(out_dir)
        db = out / DB_NAME
        if not is_file(db):
            raise DataError(out, "directory", f"holds no experiment results ({DB_NAME} missing)",
                            show_value=False)
        chunk_rows = check_file(db)
        if chunk_rows is None:
            if resuming:
                raise DataError(db, "format", "is 1, written before the store kept checksums: "
                                "it cannot be checked, so it is not resumed (`fairness report` "
                                "still reads it); run the experiment again with another --out",
                                show_value=False)
            print(f"warning: {one_line(str(db))}: format 1, written before the store kept "
                  "checksums: its rows cannot be checked (a damaged file may report other "
                  "figures)", file=sys.stderr)
        try:
            conn = sqlite3.connect(db, isolation_level=None)
            _tune(conn)
            columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(throws)"))
        except sqlite3.DatabaseError as exc:
            raise DataError(db, "file", f"cannot be opened for writing ({exc})",
                            show_value=False) from None
        return cls(conn, db, chunk_rows, columns)

    def close(self) -> None:
        self.conn.close()

    # -- reading ----------------------------------------------------------------------

    def experiment_json(self) -> dict[str, Any]:
        return self._get("experiment") or {}

    def done_indices(self) -> set[int]:
        with self._sqlite():
            return {r[0] for r in self.conn.execute("SELECT idx FROM throws")}

    def count(self) -> int:
        with self._sqlite():
            return int(self.conn.execute("SELECT COUNT(*) FROM throws").fetchone()[0])

    def rows(self, limit: int | None = None) -> list[ThrowRow]:
        """Rows in throw order; with `limit`, only throws with index below it."""
        sql = self._select
        args: tuple[Any, ...] = ()
        if limit is not None:
            sql += " WHERE idx < ?"
            args = (limit,)
        with self._sqlite():
            return [ThrowRow(*r) for r in self.conn.execute(sql + " ORDER BY idx", args)]

    def iter_rows(self) -> Iterator[ThrowRow]:
        with self._sqlite():
            for r in self.conn.execute(self._select + " ORDER BY idx"):
                yield ThrowRow(*r)

    def stop_decision(self) -> dict[str, Any] | None:
        return self._get("stop_decision")

    def run_log(self) -> list[dict[str, Any]]:
        return self._get("runs") or []

    # -- writing ----------------------------------------------------------------------

    def add_chunk(self, rows: Sequence[ThrowRow]) -> None:
        """Commit one chunk's rows at once, with the checksum of every chunk they fall in
        (rows already stored there are checked first: a damaged chunk is never sealed
        again). A throw index already stored is a bug of ours (the runner only hands out
        missing ones), so the primary key refuses it."""
        with self.transaction():
            chunks = sorted({r.idx // self.chunk_rows for r in rows}) if self.chunk_rows else []
            for c in chunks:
                self._check_chunk(c)
            with self._sqlite():
                self.conn.executemany(
                    f"INSERT INTO throws ({', '.join(COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(COLUMNS))})", [_as_tuple(r) for r in rows])
            for c in chunks:
                self._seal_chunk(c)

    def record_stop(self, decision: dict[str, Any]) -> None:
        """Record a sequential test's decision and drop throws past its stopping point (they
        ran only because chunks run ahead in parallel), in one transaction."""
        last = int(decision["throws"])
        with self.transaction():
            n = self.chunk_rows
            if n is not None and last % n:
                self._check_chunk(last // n)
            with self._sqlite():
                self.conn.execute("DELETE FROM throws WHERE idx >= ?", (last,))
                if n is not None:
                    self.conn.execute("DELETE FROM chunk_sums WHERE chunk >= ?", (-(-last // n),))
            if n is not None and last % n:
                self._seal_chunk(last // n)
            self._set("stop_decision", decision)

    def log_run(self, entry: dict[str, Any]) -> None:
        with self.transaction():
            self._set("runs", [*self.run_log(), entry])

    def transaction(self) -> _Transaction:
        return _Transaction(self.conn, self.path)

    # -- helpers ----------------------------------------------------------------------

    def _chunk(self, c: int) -> list[tuple[Any, ...]]:
        """Chunk c's rows as SQLite hands them back, in throw order."""
        n = self.chunk_rows
        assert n is not None
        with self._sqlite():
            return list(self.conn.execute(self._select + " WHERE idx >= ? AND idx < ? ORDER BY idx",
                                          (c * n, (c + 1) * n)))

    def _check_chunk(self, c: int) -> None:
        assert self.chunk_rows is not None
        with self._sqlite():
            stored = self.conn.execute("SELECT rows, sha256 FROM chunk_sums WHERE chunk=?",
                                       (c,)).fetchone()
        _check_chunk(self.path, self.chunk_rows, c, self._chunk(c), stored)

    def _seal_chunk(self, c: int) -> None:
        rows = self._chunk(c)
        with self._sqlite():
            if rows:
                self.conn.execute("INSERT OR REPLACE INTO chunk_sums (chunk, rows, sha256) "
                                  "VALUES (?, ?, ?)", (c, len(rows), _chunk_sum(rows)))
            else:
                self.conn.execute("DELETE FROM chunk_sums WHERE chunk=?", (c,))

    def _get(self, key: str) -> Any:
        with self._sqlite():
            row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (ValueError, TypeError, RecursionError):  # checked at open; edited since
            raise DataError(self.path, f"meta {key!r}", "is not JSON", _short(row[0])) from None

    def _set(self, key: str, value: Any) -> None:
        text = json.dumps(value, sort_keys=True)
        with self._sqlite():
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, text))
            if self.chunk_rows is not None:
                self.conn.execute("INSERT OR REPLACE INTO meta_sums (key, sha256) VALUES (?, ?)",
                                  (key, _meta_sum(key, text)))

    @contextmanager
    def _sqlite(self) -> Iterator[None]:
        with _sqlite_errors(self.path):
            yield


@contextmanager
def _sqlite_errors(db: Path) -> Iterator[None]:
    """SQLite failing on the file (a page damaged since it was checked, a disk that is full
    or gone) as one error line."""
    try:
        yield
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise DataError(db, "file", f"cannot be read or written ({_sqlite_message(exc)}); it "
                        "was left as the last whole transaction left it", show_value=False) from None


def _sqlite_message(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return _short(exc.object.decode("utf-8", "replace"), 200)
    return _short(str(exc), 200)


class _Transaction:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    def __enter__(self) -> None:
        with _sqlite_errors(self.path):
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        with _sqlite_errors(self.path):
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _chunk_sum(rows: Iterable[tuple[Any, ...]]) -> str:
    """The checksum of one chunk: SHA-256 of its rows (every column, in `COLUMNS` order, as
    SQLite returns them, in throw order) as compact JSON: a list of lists, floats as Python
    writes them (the shortest text that reads back the same bits), None as null; a value a
    damaged record turned into a blob as {"blob": hex}, which no stored row holds."""
    text = json.dumps(list(rows), separators=(",", ":"), default=_blob)
    return hashlib.sha256(text.encode()).hexdigest()


def _blob(value: Any) -> dict[str, str]:
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    raise TypeError(f"{type(value).__name__} in a results row")


def _meta_sum(key: str, text: str) -> str:
    return hashlib.sha256(f"{key}\x00{text}".encode()).hexdigest()


def _check_chunk(db: Path, n: int, c: int, rows: list[tuple[Any, ...]],
                 stored: tuple[Any, Any] | None) -> None:
    """Chunk c's rows against its stored (rows, sha256); a chunk with neither is fine."""
    if not rows and stored is None:
        return
    if stored is None:
        why = f"has {len(rows)} row(s) but no checksum"
    elif not rows:
        why = f"has lost its rows ({stored[0]} stored, none found)"
    elif stored[0] != len(rows):
        why = f"holds {len(rows)} row(s) where {stored[0]} were stored"
    elif stored[1] != _chunk_sum(rows):
        why = f"does not match its checksum ({len(rows)} row(s))"
    else:
        return
    raise DataError(db, f"chunk {c} (throws {c * n}-{(c + 1) * n - 1})", f"{why}: the results "
                    "were changed or damaged since they were written; it was left as it is: "
                    "restore a copy or run again with another --out", show_value=False)


@functools.cache
def physics_code() -> str:
    """A digest of the code that decides a throw's row (physics, die models and their
    geometry, the throw sampler and simulator): a run resumed under other code would mix two
    physics in one experiment."""
    import dice_models
    import simulator.physics

    here = Path(__file__).parent
    files = [here / "config.py", here / "dispatch.py"]
    for pkg in (simulator.physics, dice_models):
        files += sorted(Path(str(pkg.__file__)).parent.glob("*.py"))
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def check_file(db: Path) -> int | None:
    """Refuse, reading only, a results file that is not ours or not whole: not SQLite, the
    tables or columns of another program, a `meta` value that is not JSON, another format
    or no experiment, a file SQLite's integrity check finds damaged (a damaged page once
    showed "612 throws stored" of 600 and then crashed the report), or a chunk of rows or a
    meta value that does not match its checksum (a flipped bit in a row once moved a throw
    from face 2 to face 3 with no error). The check reads every page and every row: about
    a second per 100 MB. Returns the rows a checksum covers, None for a store of format 1."""
    try:
        with open(db, "rb") as fh:
            magic = fh.read(16)
    except OSError as exc:
        raise DataError(db, "file", f"cannot read: {exc.strerror}", show_value=False) from None
    if magic != b"SQLite format 3\x00":
        raise DataError(db, "file", "is not a results database (not an SQLite file)",
                        show_value=False)
    # Without a write-ahead log beside it the file is opened immutable: nothing is created
    # or changed. With one (a run that was killed), read-only, so the log's commits count.
    wal = db.with_name(db.name + "-wal").exists()
    uri = f"{db.resolve().as_uri()}?{'mode=ro' if wal else 'immutable=1'}"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.DatabaseError as exc:
        raise DataError(db, "file", f"cannot be opened ({exc})", show_value=False) from None
    # A damaged record or name may not be UTF-8: read as text with the bad bytes replaced,
    # so it fails its checksum (or the integrity check names it) instead of raising.
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        return _check_contents(db, conn)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # the second: SQLite's message
        # quoted a damaged name that is not UTF-8
        raise DataError(db, "file", f"is not a readable results database ({_sqlite_message(exc)}); "
                        "it was left as it is", show_value=False) from None
    finally:
        conn.close()


def _check_contents(db: Path, conn: sqlite3.Connection) -> int | None:
    problems = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
    if problems != ["ok"]:
        found = _short(" ".join(problems).replace("*** in database main ***", ""))
        raise DataError(db, "file", f"is damaged (SQLite integrity check: {found}); "
                        "it was left as it is: restore a copy or choose another --out",
                        show_value=False)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not {"meta", "throws"} <= tables:
        raise DataError(db, "file", "is not a results database (no 'meta' and 'throws' tables)",
                        show_value=False)
    columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(throws)"))
    if columns not in (COLUMNS, OLD_COLUMNS):
        raise DataError(db, "throws", "is not a results table (other columns)", columns)
    ours = _schema_sql(columns == COLUMNS)
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"):
        if name in ours and sql != ours[name]:  # a flipped bit can make idx no key, a NOT NULL null
            raise DataError(db, f"table {name!r}", "is defined otherwise than a results table's "
                            "(the file was changed or damaged); it was left as it is: restore a "
                            "copy or choose another --out", show_value=False)
    meta: dict[str, Any] = {}
    texts: list[tuple[Any, Any]] = list(conn.execute("SELECT key, value FROM meta"))
    for key, value in texts:
        try:
            meta[str(key)] = json.loads(value)
        except (ValueError, TypeError, RecursionError):  # ValueError: JSONDecodeError too
            raise DataError(db, f"meta {key!r}", "is not JSON", _short(value)) from None
    fmt = meta.get("format")
    if fmt not in FORMATS or isinstance(fmt, bool) or (fmt == FORMAT) != (columns == COLUMNS):
        raise DataError(db, "format", f"unsupported results format (expected {FORMAT}, with "
                        "the style column)", _short(fmt))
    if fmt == UNCHECKED_FORMAT and not {"chunk_sums", "meta_sums"} & tables:
        n = None
    else:  # a format 2 store, or one whose format's bits were flipped to 1
        n = _check_sums(db, conn, texts, meta, tables, columns)
    if not isinstance(meta.get("experiment"), dict):
        raise DataError(db, "experiment", "is missing: not a results database", show_value=False)
    return n


def _check_sums(db: Path, conn: sqlite3.Connection, texts: list[tuple[Any, Any]],
                meta: dict[str, Any], tables: set[str], columns: tuple[str, ...]) -> int:
    """Every meta value and every chunk of rows against its checksum; the rows a checksum
    covers."""
    if not {"chunk_sums", "meta_sums"} <= tables:
        raise DataError(db, "file", "is damaged (format 2 without its checksum tables); it was "
                        "left as it is: restore a copy or choose another --out", show_value=False)
    sums = {key: sha for key, sha in conn.execute("SELECT key, sha256 FROM meta_sums")}
    for key, text in texts:
        if sums.pop(key, None) != _meta_sum(str(key), str(text)):
            raise DataError(db, f"meta {key!r}", "does not match its checksum: the results were "
                            "changed or damaged since they were written; it was left as it is: "
                            "restore a copy or run again with another --out", show_value=False)
    if sums:
        raise DataError(db, f"meta {min(sums)!r}", "is missing (its checksum is stored): the "
                        "results were changed or damaged since they were written; it was left "
                        "as it is: restore a copy or run again with another --out",
                        show_value=False)
    n = meta.get("chunk_rows")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise DataError(db, "meta 'chunk_rows'", "must be a whole number at least 1",
                        _short(n))
    stored = {c: (rows, sha) for c, rows, sha in
              conn.execute("SELECT chunk, rows, sha256 FROM chunk_sums")}
    for c, group in groupby(conn.execute(_select(columns) + " ORDER BY idx"),
                            key=lambda r: r[0] // n):
        _check_chunk(db, n, c, list(group), stored.pop(c, None))
    if stored:
        c = min(stored)
        _check_chunk(db, n, c, [], stored[c])
    return n


@functools.cache
def _schema_sql(styled: bool = True) -> dict[str, str]:
    """Each table's definition as SQLite keeps it in a store this module makes (`styled`:
    today's; else a store of format 1 or 2, without the style column)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMA if styled else _OLD_SCHEMA)
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"))
    finally:
        conn.close()


def _short(value: Any, limit: int = 80) -> str:
    text = " ".join((value if isinstance(value, str) else repr(value)).split())  # one line
    return text if len(text) <= limit else text[:limit] + "..."


def _tune(conn: sqlite3.Connection) -> None:
    """Write-ahead log with NORMAL sync: a commit survives the process being killed at any
    moment (it is in the log before COMMIT returns) without an fsync per chunk; a power cut
    may lose the last chunks but never leaves a broken database, and a rerun redoes them."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")


def _first_difference(theirs: dict[str, Any], ours: dict[str, Any]) -> str:
    for key in ("die", "table", "throw", "seed", "physics", "stop"):
        if theirs.get(key) != ours.get(key):
            return f"'{key}'"
    return "the physics version"
