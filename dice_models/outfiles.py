"""Writing output files so that a failure never costs what was there before.

Every file the program writes (saves, logs, trajectories, plots, pictures, reports) goes
through here: the bytes go to a temporary file in the same directory, are fsynced, and the
temporary file is renamed over the target. A full disk, a size limit (`ulimit -f`) or a
kill half-way leaves the old file whole and no stray temporary behind. A path that cannot
be written (missing directory, a directory where a file is wanted, no space, no permission)
raises `OutputError`, one line naming the path, which the CLI reports with exit status 2.

This sits at the bottom layer (beside `DataError`) so the rule engines' `save_game` and the
simulator's commands share it.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from dice_models.errors import DataError

# Why a write failed, in words; anything else falls back to the OS's own text.
_REASONS = {
    errno.ENOENT: "its directory does not exist",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EISDIR: "it is a directory",
    errno.ENOSPC: "no space left on the device",
    errno.EFBIG: "the file would exceed the size limit",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many symbolic links",
}


_MKDIR = "cannot create the folder"


class OutputError(DataError):
    """An output file or folder that could not be written: `<path>: <what>: cannot write:
    <why>` (or `cannot create the folder: <why>`)."""

    def __init__(self, path: str | Path, what: str, reason: str, doing: str = "cannot write") -> None:
        super().__init__(path, what, f"{doing}: {reason}", show_value=False)


def reason(exc: OSError) -> str:
    """An OSError as a few words (no traceback, no errno number)."""
    if exc.errno in _REASONS:
        return _REASONS[exc.errno]
    return exc.strerror or type(exc).__name__


def check_target(path: str | Path, what: str = "output") -> Path:
    """Refuse, before any work is done, a target that can never be written: a directory, or
    a file in a directory that does not exist. (Space and permission show at the write.)"""
    p = Path(path)
    parent = p.parent
    try:  # a name too long for the system makes even these questions fail
        if p.is_dir():
            raise OutputError(p, what, _REASONS[errno.EISDIR])
        if not parent.exists():
            raise OutputError(p, what, f"directory {_cut(parent)!r} does not exist")
        if not parent.is_dir():
            raise OutputError(p, what, f"{_cut(parent)!r} is not a directory")
    except OSError as exc:
        raise OutputError(p, what, reason(exc)) from None
    return p


@contextmanager
def replacing(path: str | Path, what: str = "output") -> Iterator[Path]:
    """A temporary path beside `path` for a writer that takes a file name (matplotlib's
    `savefig`, PIL's `save`); when the block ends without an error the temporary file is
    fsynced and renamed over `path`, otherwise removed."""
    target = check_target(path, what)
    if target.exists() and not target.is_file():
        # A device or pipe (/dev/stdout, /dev/full): written where it is, nothing to replace.
        try:
            yield target
        except OSError as exc:
            raise OutputError(target, what, reason(exc)) from None
        return
    try:
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                        suffix=".tmp" + target.suffix)
    except OSError as exc:
        raise OutputError(target, what, reason(exc)) from None
    os.close(fd)
    tmp = Path(tmp_name)
    # A size limit would kill us with SIGXFSZ before the write could fail with EFBIG.
    old = _ignore_sigxfsz()
    try:
        yield tmp
        _fsync_file(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would outlive the rename
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(target, what, reason(exc)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        _restore_sigxfsz(old)


def write_bytes(path: str | Path, data: bytes, what: str = "output") -> Path:
    """Write `data` to `path` atomically (temp file, fsync, rename)."""
    with replacing(path, what) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
    return Path(path)


def write_with(path: str | Path, writer: Callable[[Path], object], what: str = "output") -> Path:
    """Atomically write `path` with a library's own writer that takes a file name:
    `write_with(p, lambda t: fig.savefig(t, dpi=100))`, `write_with(p, image.save)`. The
    temporary name keeps the target's extension last, so the writer picks the same format."""
    with replacing(path, what) as tmp:
        writer(tmp)
    return Path(path)


def write_text(path: str | Path, text: str, what: str = "output") -> Path:
    return write_bytes(path, text.encode("utf-8"), what)


def write_json(path: str | Path, data: Any, what: str = "output", indent: int | None = None) -> Path:
    return write_text(path, json.dumps(data, indent=indent) + "\n", what)


def ensure_dir(path: str | Path, what: str = "output") -> Path:
    """Make an output directory (and its parents); one line if it cannot be."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(p, what, "it is a file, not a directory", _MKDIR) from None
    except OSError as exc:
        raise OutputError(p, what, reason(exc), _MKDIR) from None
    return p


class LineFile:
    """A text file written a line at a time while something runs (a game log). Lines go to
    a temporary file beside the target, flushed each time; `close()` fsyncs it and renames
    it over the target, so an old file is only ever replaced by a whole new one (an
    interrupted game still keeps what was logged). The file is opened at the first write, so
    input refused before then leaves an existing file as it was. A write that fails (no
    space, size limit) does not stop the caller: it is kept in `error`, later lines are
    dropped, and `close()` removes the temporary file and leaves the target untouched."""

    def __init__(self, path: str | Path, what: str = "output") -> None:
        self.path = Path(path)
        self.what = what
        self.error: OutputError | None = None
        self.lines = 0
        self._file: Any = None
        self._tmp: Path | None = None
        self._old: Any = None

    def write(self, text: str) -> int:
        if self.error is not None:
            return 0
        if self._file is None:
            self._open()  # a target that cannot be written at all is refused at once
        try:
            n = int(self._file.write(text))
            self._file.flush()
        except OSError as exc:
            self._fail(exc)
            return 0
        self.lines += text.count("\n")
        return n

    def flush(self) -> None:
        """Lines are flushed as they are written (the runner's protocol asks for this)."""

    def close(self) -> None:
        if self._file is None:
            return
        try:
            if self.error is None:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            if self.error is None and self._tmp is not None:
                os.replace(self._tmp, self.path)
                self._tmp = None
                _fsync_dir(self.path.parent)
        except OSError as exc:
            self._fail(exc)
        finally:
            if self._tmp is not None:
                self._tmp.unlink(missing_ok=True)
            _restore_sigxfsz(self._old)

    def _open(self) -> None:
        check_target(self.path, self.what)
        try:
            if self.path.exists() and not self.path.is_file():  # a device or pipe
                self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - see close()
                self._old = _ignore_sigxfsz()
                return
            fd, tmp_name = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.",
                                            suffix=".tmp")
        except OSError as exc:
            raise OutputError(self.path, self.what, reason(exc)) from None
        self._old = _ignore_sigxfsz()
        self._tmp = Path(tmp_name)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fd, 0o666 & ~umask)
        self._file = os.fdopen(fd, "w", encoding="utf-8")

    def _fail(self, exc: OSError) -> None:
        self.error = OutputError(self.path, self.what, reason(exc))
        if self._file is not None:
            with suppress(OSError):  # the buffered bytes that failed cannot be written either
                self._file.close()
            self._file = None
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None


def _cut(path: Path, limit: int = 100) -> str:
    text = str(path)
    return text if len(text) <= limit else text[:limit] + "..."


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    """So the rename itself survives a power cut (not every file system allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _ignore_sigxfsz() -> Any:
    sig = getattr(signal, "SIGXFSZ", None)
    if sig is None:
        return None
    try:
        return signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave the handler alone
        return None


def _restore_sigxfsz(old: Any) -> None:
    sig = getattr(signal, "SIGXFSZ", None)
    if sig is not None and old is not None:
        with suppress(ValueError):
            signal.signal(sig, old)
