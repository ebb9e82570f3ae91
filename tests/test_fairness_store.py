"""The fairness store refuses, reading only, a results file it cannot trust: a damaged
page, another program's SQLite file, bad JSON in `meta`; one line, exit status 2, the file
left byte for byte as it was (issue 15, item 13)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dice_models import DataError
from simulator.cli.main import main as cli
from simulator.experiments import Store, load_experiment
from simulator.experiments.store import DB_NAME, ThrowRow

EXP = """
name: store-check
die: paper-d8
surface: felt
throw: {height: [0.15, 0.3], speed: [0.2, 1.2], spin: [0, 20], orientation: uniform}
throws: 600
chunk_size: 50
seed: 3
"""
PAGE = 4096  # SQLite's default page size, which the store keeps


def _store_with_rows(tmp_path: Path, n: int = 600) -> tuple[Path, Path]:
    """A results directory as a run leaves it (written through the store, n throws)."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    out = tmp_path / "out"
    store = Store.create_or_open(out, load_experiment(cfg))
    rows = [ThrowRow(i, 1 + i % 8, 0.2, 0.5, 3.0, 0.01, "on_table", None, 1 + (i * 5) % 8,
                     8 - (i * 5) % 8, 1.25, 600) for i in range(n)]
    for k in range(0, n, 50):
        store.add_chunk(rows[k:k + 50])
    store.close()
    return cfg, out


def _damage_a_page(db: Path) -> None:
    """Overwrite the middle of one of the throws table's pages, as a bad sector would."""
    data = bytearray(db.read_bytes())
    assert len(data) >= 6 * PAGE
    page = len(data) // PAGE - 2  # a leaf page of throws, near the end
    start = page * PAGE + 200
    data[start:start + 1200] = bytes((i * 37 + 11) % 256 for i in range(1200))
    db.write_bytes(bytes(data))


def _one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def test_a_damaged_results_file_is_refused_and_left_as_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg, out = _store_with_rows(tmp_path)
    db = out / DB_NAME
    _damage_a_page(db)
    before = db.read_bytes()
    with pytest.raises(DataError, match="damaged"):
        Store.open(out)
    for argv in (["fairness", "run", str(cfg), "--out", str(out), "--no-progress"],
                 ["fairness", "report", str(out), "--no-plots"]):
        assert cli(argv) == 2, argv
        err = capsys.readouterr().err
        assert _one_line(err) and "damaged" in err and DB_NAME in err, err
        assert db.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == [DB_NAME]  # no journal or WAL made


def test_a_foreign_sqlite_file_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    out = tmp_path / "out"
    out.mkdir()
    db = out / DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
    conn.execute("INSERT INTO recipes VALUES ('bread', 240)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    assert before[18:20] == b"\x01\x01"  # a rollback-journal file, not write-ahead logging
    for argv in (["fairness", "run", str(cfg), "--out", str(out), "--no-progress"],
                 ["fairness", "report", str(out), "--no-plots"]):
        assert cli(argv) == 2, argv
        err = capsys.readouterr().err
        assert _one_line(err) and "not a results database" in err, err
        assert db.read_bytes() == before  # not switched to WAL, not touched at all
    assert sorted(p.name for p in out.iterdir()) == [DB_NAME]


@pytest.mark.parametrize("key", ["experiment", "format", "runs"])
def test_bad_json_in_meta_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      key: str) -> None:
    _, out = _store_with_rows(tmp_path, 100)
    db = out / DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '{\"oops\": ')", (key,))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    assert cli(["fairness", "report", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and f"meta '{key}'" in err and "not JSON" in err, err
    assert db.read_bytes() == before


def test_random_bytes_as_results_are_one_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / DB_NAME).write_bytes(bytes((i * 131 + 7) % 256 for i in range(10_000)))
    assert cli(["fairness", "report", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "not an SQLite file" in err


def test_report_plots_where_they_cannot_be_written_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _store_with_rows(tmp_path, 100)
    blocker = tmp_path / "plots"
    blocker.write_text("a file where the plots folder should go\n")
    assert cli(["fairness", "report", str(out), "--plots", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "plots" in err and "not a directory" in err, err
    assert cli(["fairness", "report", str(out), "--plots", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert _one_line(err), err


def test_series_png_into_a_missing_directory_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP + "series: {name: energy, parameter: speed, value: 1.0}\n")
    out = tmp_path / "out"
    store = Store.create_or_open(out, load_experiment(cfg))
    store.add_chunk([ThrowRow(i, 1, 0.2, 0.5, 3.0, 0.01, "on_table", None, 1 + i % 8, 1, 1.0, 9)
                     for i in range(40)])
    store.close()
    target = tmp_path / "missing" / "series.png"
    assert cli(["fairness", "series", str(out), "--png", str(target)]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "does not exist" in err, err
    assert cli(["fairness", "series", str(out), "--png", str(tmp_path / "series.png")]) == 0
    assert (tmp_path / "series.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_whole_store_still_opens_and_resumes(tmp_path: Path) -> None:
    _, out = _store_with_rows(tmp_path)
    store = Store.open(out)
    try:
        assert store.count() == 600
    finally:
        store.close()
