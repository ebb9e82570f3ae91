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


# -- checksums (issue 38): a flipped bit in the stored results is refused, never reported --

REAL = """
name: checksum-check
die: paper-d8
surface: felt
throw: {height: [0.15, 0.3], speed: [0.2, 1.2], spin: [0, 20], orientation: uniform}
throws: 160
chunk_size: 20
seed: 4
"""


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """A small real run (160 throws, 8 chunks, about a second), made once: its config, its
    directory and its file's bytes."""
    from simulator.experiments import run_experiment

    base = tmp_path_factory.mktemp("real")
    cfg = base / "exp.yaml"
    cfg.write_text(REAL)
    out = base / "out"
    run_experiment(load_experiment(cfg), out, progress=False)
    return cfg, out, (out / DB_NAME).read_bytes()


def _counts_by_sql(db: Path) -> tuple[int, dict[str, int]]:
    """Throws and on-table face counts read straight from the file with plain SQL."""
    conn = sqlite3.connect(db)
    try:
        throws = conn.execute("SELECT COUNT(*) FROM throws").fetchone()[0]
        faces = dict(conn.execute("SELECT face, COUNT(*) FROM throws WHERE status='on_table' "
                                  "GROUP BY face").fetchall())
    finally:
        conn.close()
    return throws, {str(f): n for f, n in faces.items()}


def _copy_run(real: tuple[Path, Path, bytes], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    (out / DB_NAME).write_bytes(real[2])
    return out


def _report_json(out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    import json

    assert cli(["fairness", "report", str(out), "--no-plots", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_clean_store_reports_the_counts_plain_sql_finds(
        real_run: tuple[Path, Path, bytes], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _copy_run(real_run, tmp_path)
    throws, faces = _counts_by_sql(out / DB_NAME)
    assert throws == 160 and sum(faces.values()) > 100
    rep = _report_json(out, capsys)
    assert rep["throws"] == throws
    assert {f: n for f, n in rep["counts"].items() if n} == faces
    assert capsys.readouterr().err == ""  # no warning on a checksummed store
    # and it resumes: 20 more throws, a new chunk sealed, every chunk still checks
    assert cli(["fairness", "run", str(real_run[0]), "--out", str(out), "--throws", "180",
                "--no-progress"]) == 0
    assert "this run: 20 in" in capsys.readouterr().out
    assert _report_json(out, capsys)["throws"] == 180


def _offsets(db: Path) -> dict[int, tuple[str, ...]]:
    """Byte offsets inside what the store `db` holds, each with the part its error names:
    several rows' values and record headers, a status text, the experiment's JSON, the run
    log, a chunk's checksum. A record's header may instead be refused by SQLite's own
    integrity check."""
    import struct

    data = db.read_bytes()
    conn = sqlite3.connect(f"{db.as_uri()}?immutable=1", uri=True)
    try:
        heights = [r[0] for r in conn.execute("SELECT height_m FROM throws ORDER BY idx")]
        sums = [r[0] for r in conn.execute("SELECT sha256 FROM chunk_sums ORDER BY chunk")]
    finally:
        conn.close()
    found: dict[int, tuple[str, ...]] = {}
    for i in (0, 57, 101, 159):  # rows in the first, two middle and the last chunk
        at = data.index(struct.pack(">d", heights[i]))
        c = i // 20
        found[at + 7] = (f"chunk {c} (throws {20 * c}-{20 * c + 19})",)  # last byte: 1 ulp
        found[at - 9] = (f"chunk {c} ", "file: is damaged")  # a serial type of the record
    at = data.index(b"on_table", len(data) // 2)
    found[at + 3] = ("chunk ",)
    found[data.index(b'"alpha": 0.01') + 12] = ("meta 'experiment'",)
    found[data.index(b'"ran": 160') + 8] = ("meta 'runs'",)
    found[data.index(sums[3].encode()) + 10] = ("chunk 3 (throws 60-79)",)
    return found


def test_a_flipped_bit_in_the_stored_results_is_refused_on_report_and_on_resume(
        real_run: tuple[Path, Path, bytes], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    cfg, out, clean = real_run
    offsets = _offsets(out / DB_NAME)
    assert len(offsets) == 12
    for at, names in offsets.items():
        for bit in (0, 5):
            case = tmp_path / f"{at}-{bit}"
            out = case / "out"
            out.mkdir(parents=True)
            data = bytearray(clean)
            data[at] ^= 1 << bit
            db = out / DB_NAME
            db.write_bytes(bytes(data))
            for argv in (["fairness", "report", str(out), "--no-plots"],
                         ["fairness", "run", str(cfg), "--out", str(out), "--throws", "200",
                          "--no-progress"]):
                assert cli(argv) == 2, (at, bit, argv[1])
                captured = capsys.readouterr()
                err = captured.err
                assert captured.out == "" and _one_line(err), (at, err)
                assert any(f"{db}: {name}" in err for name in names), (at, bit, err)
                assert db.read_bytes() == data, at  # left as it was
            assert sorted(p.name for p in out.iterdir()) == [DB_NAME]


def test_a_changed_row_names_its_chunk_and_rows(real_run: tuple[Path, Path, bytes],
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = _copy_run(real_run, tmp_path)
    conn = sqlite3.connect(out / DB_NAME)
    conn.execute("UPDATE throws SET face = 1 + face % 8 WHERE idx = 47")  # 2 -> 3, say
    conn.commit()
    conn.close()
    assert cli(["fairness", "report", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "chunk 2 (throws 40-59): does not match its checksum (20 row(s))" in err
    conn = sqlite3.connect(out / DB_NAME)
    conn.execute("DELETE FROM throws WHERE idx = 100")
    conn.execute("UPDATE throws SET face = 1 + (face + 6) % 8 WHERE idx = 47")  # back again
    conn.commit()
    conn.close()
    assert cli(["fairness", "report", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert "chunk 5 (throws 100-119): holds 19 row(s) where 20 were stored" in err, err


def test_a_bit_flipped_anywhere_is_refused_or_changes_nothing(
        real_run: tuple[Path, Path, bytes], tmp_path: Path) -> None:
    """A sweep over the whole file: a bit flipped at every 97th byte either makes the store
    refuse to open (one DataError) or leaves everything a report reads the same (a byte
    SQLite does not use); never other rows, never another exception."""
    _, real, clean = real_run
    store = Store.open(real)
    want = (store.rows(), store.experiment_json(), store.stop_decision())
    store.close()
    out = _copy_run(real_run, tmp_path)
    db = out / DB_NAME
    refused = same = 0
    for at in range(0, len(clean), 97):
        data = bytearray(clean)
        data[at] ^= 1 << (at % 8)
        db.write_bytes(bytes(data))
        try:
            store = Store.open(out)
        except DataError as exc:
            assert "\n" not in str(exc)
            refused += 1
            continue
        try:
            assert (store.rows(), store.experiment_json(), store.stop_decision()) == want, at
        finally:
            store.close()
        same += 1
    assert refused > 150 and same > 20, (refused, same)


FORMAT_1_SCHEMA = """
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
"""  # simulator/experiments/store.py's schema before checksums (format 1), as it was


def _format_1_store(tmp_path: Path) -> tuple[Path, Path]:
    """A results directory as the store wrote it before checksums (format 1): its schema and
    meta keys, written here with plain SQL."""
    import json

    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    exp = load_experiment(cfg)
    out = tmp_path / "old"
    out.mkdir()
    conn = sqlite3.connect(out / DB_NAME)
    conn.execute("PRAGMA journal_mode=WAL")  # as the store made them
    conn.executescript(FORMAT_1_SCHEMA)
    from simulator.experiments.store import physics_code

    for key, value in (("format", 1), ("physics_code", physics_code()),
                       ("experiment", exp.to_json())):
        conn.execute("INSERT INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))
    conn.executemany("INSERT INTO throws VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                     [(i, 1, 0.2, 0.5, 3.0, 0.01, "on_table", None, 1 + i % 8, 8 - i % 8, 1.0, 9)
                      for i in range(40)])
    conn.commit()
    conn.close()
    return cfg, out


def test_a_store_without_checksums_is_reported_with_a_warning_and_not_resumed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg, out = _format_1_store(tmp_path)
    db = out / DB_NAME
    before = db.read_bytes()
    rep = _report_json(out, capsys)
    assert rep["throws"] == 40 and rep["counts"] == {str(f): 5 for f in range(1, 9)}
    assert cli(["fairness", "report", str(out), "--no-plots"]) == 0
    err = capsys.readouterr().err
    assert _one_line(err) and err.startswith(f"warning: {db}: format 1, written before the "
                                             "store kept checksums"), err
    assert cli(["fairness", "run", str(cfg), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "format: is 1" in err and "another --out" in err, err
    assert db.read_bytes() == before


def test_rows_added_across_chunks_and_cut_by_a_stop_keep_every_checksum(tmp_path: Path) -> None:
    """The batched backends hand the store rows of several chunks at once, a resume fills a
    chunk a first run left part done, and a sequential stop cuts a chunk: each chunk's
    checksum is redone in the same transaction, so the store still opens."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP.replace("chunk_size: 50", "chunk_size: 5"))
    out = tmp_path / "out"

    def row(i: int) -> ThrowRow:
        return ThrowRow(i, 1, 0.2 + i / 1000, 0.5, 3.0, 0.01, "on_table", None, 1 + i % 8, 1,
                        1.0, 9)

    store = Store.create_or_open(out, load_experiment(cfg))
    store.add_chunk([row(i) for i in (3, 4, 5, 6, 7, 12)])  # chunks 0, 1 and 2, each part
    store.close()
    store = Store.create_or_open(out, load_experiment(cfg))  # a resume: checked at open
    store.add_chunk([row(i) for i in (0, 1, 2, 8, 9, 10, 11)])
    store.record_stop({"throws": 7, "decision": "fair"})  # cuts chunk 1, drops chunk 2
    store.close()
    store = Store.open(out)
    try:
        assert [r.idx for r in store.rows()] == list(range(7))
        assert [r[0] for r in store.conn.execute("SELECT chunk FROM chunk_sums")] == [0, 1]
    finally:
        store.close()


def _format_2_store(tmp_path: Path) -> tuple[Path, Path]:
    """A results directory as the store wrote it with checksums but before it recorded each
    throw's style (format 2): FORMAT_1_SCHEMA's rows, their chunk checksums and the meta
    checksums, written here with plain SQL and the store's own checksum functions."""
    import json

    from simulator.experiments.store import _chunk_sum, _meta_sum, physics_code

    cfg = tmp_path / "exp.yaml"
    cfg.write_text(EXP)
    exp = load_experiment(cfg)
    out = tmp_path / "v2"
    out.mkdir()
    conn = sqlite3.connect(out / DB_NAME)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(FORMAT_1_SCHEMA + """
CREATE TABLE IF NOT EXISTS chunk_sums (
    chunk INTEGER PRIMARY KEY,
    rows INTEGER NOT NULL,
    sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta_sums (key TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
""")
    for key, value in (("format", 2), ("chunk_rows", 20), ("physics_code", physics_code()),
                       ("experiment", exp.to_json())):
        text = json.dumps(value, sort_keys=True)
        conn.execute("INSERT INTO meta VALUES (?, ?)", (key, text))
        conn.execute("INSERT INTO meta_sums VALUES (?, ?)", (key, _meta_sum(key, text)))
    rows = [(i, 1, 0.2, 0.5, 3.0, 0.01, "on_table", None, 1 + i % 8, 8 - i % 8, 1.0, 9)
            for i in range(40)]
    conn.executemany("INSERT INTO throws VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    for c in (0, 1):
        conn.execute("INSERT INTO chunk_sums VALUES (?, ?, ?)",
                     (c, 20, _chunk_sum(rows[20 * c:20 * (c + 1)])))
    conn.commit()
    conn.close()
    return cfg, out


def test_a_store_written_before_styles_is_read_but_not_resumed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg, out = _format_2_store(tmp_path)
    db = out / DB_NAME
    before = db.read_bytes()
    store = Store.open(out)
    try:
        rows = store.rows()
    finally:
        store.close()
    assert len(rows) == 40 and {r.style for r in rows} == {""}
    rep = _report_json(out, capsys)
    assert rep["throws"] == 40 and rep["counts"] == {str(f): 5 for f in range(1, 9)}
    assert cli(["fairness", "run", str(cfg), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "format: is 2" in err and "another --out" in err, err
    assert db.read_bytes() == before
    # a bit flipped in a row of the old layout is still caught by its chunk's checksum
    conn = sqlite3.connect(db)
    conn.execute("UPDATE throws SET face = 3 WHERE idx = 25")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="chunk 1"):
        Store.open(out)


def test_each_row_records_the_style_its_throw_drew(tmp_path: Path) -> None:
    # issue 36, item 4: a throw of styles stores the style of every throw, as drawn
    from simulator.experiments.config import draw_throw, parse_experiment
    from simulator.experiments.dispatch import run_experiment

    exp = parse_experiment({"name": "mix", "die": "d6", "throws": 12, "chunk_size": 5, "seed": 4,
                            "throw": {"styles": {"dropped": {"weight": 1},
                                                 "rolled": {"weight": 1}}}}, "mix.yaml")
    run_experiment(exp, tmp_path / "mix", workers=1, progress=False)
    store = Store.open(tmp_path / "mix")
    try:
        rows = store.rows()
    finally:
        store.close()
    assert [r.style for r in rows] == [draw_throw(exp, i).style for i in range(12)]
    assert {r.style for r in rows} == {"dropped", "rolled"}
