"""The results of one experiment: an SQLite file in the output directory, one row per throw,
committed a chunk at a time (a chunk's rows go in one transaction, so a run killed at any
moment leaves whole chunks and nothing else).

The directory belongs to one experiment, named by its fingerprint (`Experiment.identity`);
opening it for another experiment is refused before anything is written.
"""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from dice_models import DataError
from dice_models.files import is_file
from dice_models.outfiles import OutputError, ensure_dir, reason
from simulator.experiments.config import Experiment

DB_NAME = "results.sqlite"
FORMAT = 1


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


COLUMNS = tuple(f.name for f in fields(ThrowRow))
_as_tuple = operator.attrgetter(*COLUMNS)  # dataclasses.astuple deep-copies: slow per chunk
_SCHEMA = """
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
"""


class Store:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create_or_open(cls, out_dir: str | Path, exp: Experiment) -> Store:
        """The store of `exp` in `out_dir`: new, or the one a previous run left (which must
        be the same experiment)."""
        out = Path(out_dir)
        db = out / DB_NAME
        try:  # a name too long for the system makes even these questions fail
            if out.exists() and not out.is_dir():
                raise DataError(out, "--out", "is a file, not a directory", show_value=False)
            resuming = db.exists() and db.stat().st_size > 0
        except OSError as exc:
            raise OutputError(out, "--out", reason(exc)) from None
        if resuming:
            store = cls.open(out)
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
        store = cls(conn, db)
        with store.transaction():  # schema and identity at once: a kill leaves all or nothing
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            store._set("format", FORMAT)
            store._set("physics_code", physics_code())
            store._set("experiment", exp.to_json())
        return store

    @classmethod
    def open(cls, out_dir: str | Path) -> Store:
        """An existing store, for reading (report, compare) or resuming. The file is checked
        read-only first (see `check_file`), so a damaged or foreign file is refused with one
        line and left exactly as it was: nothing is written to it, not even the switch to
        write-ahead logging."""
        out = Path(out_dir)
        db = out / DB_NAME
        if not is_file(db):
            raise DataError(out, "directory", f"holds no experiment results ({DB_NAME} missing)",
                            show_value=False)
        check_file(db)
        try:
            conn = sqlite3.connect(db, isolation_level=None)
            _tune(conn)
        except sqlite3.DatabaseError as exc:
            raise DataError(db, "file", f"cannot be opened for writing ({exc})",
                            show_value=False) from None
        return cls(conn, db)

    def close(self) -> None:
        self.conn.close()

    # -- reading ----------------------------------------------------------------------

    def experiment_json(self) -> dict[str, Any]:
        return self._get("experiment") or {}

    def done_indices(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT idx FROM throws")}

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM throws").fetchone()[0])

    def rows(self, limit: int | None = None) -> list[ThrowRow]:
        """Rows in throw order; with `limit`, only throws with index below it."""
        sql = f"SELECT {', '.join(COLUMNS)} FROM throws"
        args: tuple[Any, ...] = ()
        if limit is not None:
            sql += " WHERE idx < ?"
            args = (limit,)
        return [ThrowRow(*r) for r in self.conn.execute(sql + " ORDER BY idx", args)]

    def iter_rows(self) -> Iterator[ThrowRow]:
        sql = f"SELECT {', '.join(COLUMNS)} FROM throws ORDER BY idx"
        for r in self.conn.execute(sql):
            yield ThrowRow(*r)

    def stop_decision(self) -> dict[str, Any] | None:
        return self._get("stop_decision")

    def run_log(self) -> list[dict[str, Any]]:
        return self._get("runs") or []

    # -- writing ----------------------------------------------------------------------

    def add_chunk(self, rows: Sequence[ThrowRow]) -> None:
        """Commit one chunk's rows at once. A throw index already stored is a bug of ours
        (the runner only hands out missing ones), so the primary key refuses it."""
        with self.transaction():
            self.conn.executemany(
                f"INSERT INTO throws ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                [_as_tuple(r) for r in rows])

    def record_stop(self, decision: dict[str, Any]) -> None:
        """Record a sequential test's decision and drop throws past its stopping point (they
        ran only because chunks run ahead in parallel), in one transaction."""
        with self.transaction():
            self.conn.execute("DELETE FROM throws WHERE idx >= ?", (int(decision["throws"]),))
            self._set("stop_decision", decision)

    def log_run(self, entry: dict[str, Any]) -> None:
        with self.transaction():
            self._set("runs", [*self.run_log(), entry])

    def transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    # -- helpers ----------------------------------------------------------------------

    def _get(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (ValueError, TypeError, RecursionError):  # checked at open; edited since
            raise DataError(self.path, f"meta {key!r}", "is not JSON", _short(row[0])) from None

    def _set(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                          (key, json.dumps(value, sort_keys=True)))


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


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


def check_file(db: Path) -> None:
    """Refuse, reading only, a results file that is not ours or not whole: not SQLite, the
    tables or columns of another program, a `meta` value that is not JSON, another format
    or no experiment, or a file SQLite's integrity check finds damaged (a damaged page once
    showed "612 throws stored" of 600 and then crashed the report). The check reads every
    page: about a second per 100 MB."""
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
    try:
        _check_contents(db, conn)
    except sqlite3.DatabaseError as exc:
        raise DataError(db, "file", f"is not a readable results database ({exc}); it was left "
                        "as it is", show_value=False) from None
    finally:
        conn.close()


def _check_contents(db: Path, conn: sqlite3.Connection) -> None:
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
    if columns != COLUMNS:
        raise DataError(db, "throws", "is not a results table (other columns)", columns)
    meta: dict[str, Any] = {}
    for key, value in conn.execute("SELECT key, value FROM meta"):
        try:
            meta[str(key)] = json.loads(value)
        except (ValueError, TypeError, RecursionError):  # ValueError: JSONDecodeError too
            raise DataError(db, f"meta {key!r}", "is not JSON", _short(value)) from None
    if meta.get("format") != FORMAT or isinstance(meta.get("format"), bool):
        raise DataError(db, "format", f"unsupported results format (expected {FORMAT})",
                        _short(meta.get("format")))
    if not isinstance(meta.get("experiment"), dict):
        raise DataError(db, "experiment", "is missing: not a results database", show_value=False)


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
