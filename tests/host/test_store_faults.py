"""The store under faults, in the spirit of SQLite's own tests (issue #14): a logger's work (a board game
through ingest, the players named, a transcript imported) is run again and again with one fault injected at
each I/O call in turn (every SQL statement, every file opened, fsync'd or renamed): an I/O error, a full
disk, a lock held by another process, and a crash (the process stops there). After each run, with the board
resending what it did not see acknowledged and the logger restarted after a crash, the library holds every
event exactly once, in order, in the database, the transcript and the event log; an error is never called
damage and no database is set aside.

Then the cases the adversarial campaign found: a reader that meets a busy lock, damaged pages, a WAL that
lost its last frames, a deleted or damaged event log, a database rebuilt from the files."""

from __future__ import annotations

import errno
import json
import os
import random
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from bao import core, notation
from bao_host.cli import main
from bao_host.record.lock import LibraryLock
from bao_host.record.store import Store, StoreBusy, StoreDamaged, StoreError, StoreFull, StoreReadOnly, classify
from bao_host.record.store import files as store_files
from bao_testkit.simrig import T1994

P1994 = notation.replay(T1994)
PLIES = 6
BOARD = "B1"


class Crash(BaseException):
    """The process stops here (nothing after it runs; SQLite rolls back what was not committed)."""


def sqlite_error(code: int, text: str) -> sqlite3.OperationalError:
    e = sqlite3.OperationalError(text)
    e.sqlite_errorcode = code  # type: ignore[attr-defined]
    return e


KINDS: dict[str, Callable[[str], BaseException]] = {
    "io error": lambda at: (
        sqlite_error(sqlite3.SQLITE_IOERR, "disk I/O error")
        if at == "sql"
        else OSError(errno.EIO, "Input/output error")
    ),
    "disk full": lambda at: (
        sqlite_error(sqlite3.SQLITE_FULL, "database or disk is full")
        if at == "sql"
        else OSError(errno.ENOSPC, "No space left on device")
    ),
    "lock held elsewhere": lambda at: (
        sqlite_error(sqlite3.SQLITE_BUSY, "database is locked")
        if at == "sql"
        else OSError(errno.EAGAIN, "Resource temporarily unavailable")
    ),
    "crash": lambda at: Crash(),
}


@dataclass
class Plan:
    """Counts the I/O calls; raises kind's fault at call number `at` (once)."""

    kind: str = ""
    at: int = -1
    calls: int = 0
    armed: bool = False  # counting (only during the logger's work, not the checks after it)
    fired: str = ""  # where the fault went off
    seen: list[str] = field(default_factory=list)

    def hit(self, where: str) -> None:
        if not self.armed:
            return
        self.calls += 1
        if self.calls == self.at and not self.fired:
            self.fired = where
            raise KINDS[self.kind]("sql" if where.startswith("sql") else "file")


class FaultyConnection:
    """A sqlite3 connection whose every statement is an I/O call of the plan."""

    def __init__(self, db: sqlite3.Connection, plan: Plan) -> None:
        self._db, self._plan = db, plan

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._plan.hit("sql " + sql.split()[0])
        return self._db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._plan.hit("sql " + sql.split()[0])
        return self._db.executemany(sql, *args)

    def executescript(self, sql: str) -> sqlite3.Cursor:
        self._plan.hit("sql script")
        return self._db.executescript(sql)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class FaultyOs:
    """The `os` of the store's file writes (record/store/files.py), with replace/fsync/open as I/O calls of the plan."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan

    def replace(self, a: Any, b: Any) -> None:
        self._plan.hit("rename")
        os.replace(a, b)

    def fsync(self, fd: int) -> None:
        self._plan.hit("fsync")
        os.fsync(fd)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[Plan]:
    plan = Plan()
    real_connect = Store._connect
    real_open = open

    def connect(self: Store, path: Path) -> Any:
        plan.hit("sql open")
        return FaultyConnection(real_connect(self, path), plan)

    def faulty_open(*args: Any, **kwargs: Any) -> Any:
        plan.hit("open")
        return real_open(*args, **kwargs)

    for name in ("read_text", "read_bytes", "mkdir"):  # the store's reads of its files, and its folders
        real = getattr(Path, name)

        def path_call(self: Path, *args: Any, real: Any = real, name: str = name, **kwargs: Any) -> Any:
            plan.hit(name)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, path_call)
    monkeypatch.setattr(Store, "_connect", connect)
    monkeypatch.setattr(Store, "busy_timeout", 1.0)  # (a real lock left behind would fail the run, not hang it)
    monkeypatch.setattr(store_files, "os", FaultyOs(plan))  # (every write of the store's files is made there)
    monkeypatch.setattr(store_files, "open", faulty_open, raising=False)
    yield plan


def events() -> list[tuple[int, str, Callable[[Store, int | None], Any]]]:
    """The board's events: GAME, then PLIES moves of the 1994 game, as (seq, type, effect)."""
    out: list[tuple[int, str, Callable[[Store, int | None], Any]]] = [
        (1, "GAME", lambda st, g: st.op_start_game(BOARD, "g1", core.initial(), {}))
    ]
    for i in range(PLIES):
        out.append((i + 2, "MOVE", lambda st, g, i=i: st.op_move(g, i + 1, T1994.plies[i], P1994[i + 1], i + 2)))
    return out


GAME_TEXT = (Path(__file__).parents[2] / "games" / "zanzibar-1994.txt").read_text()


def logger_work(root: Path, plan: Plan) -> dict[str, int]:
    """What a logger does, with the board resending every event not acknowledged and a restart after a
    crash. Returns how often each kind of error was met (each must be a StoreError of the right class)."""
    plan.armed = True
    try:
        return _logger_work(root, plan)
    finally:
        plan.armed = False


def _logger_work(root: Path, plan: Plan) -> dict[str, int]:
    seen: dict[str, int] = {}
    st: Store | None = None
    work = events()
    k = 0
    named = imported = False
    for _ in range(200):  # bounded: each fault fires once
        try:
            if st is None:
                st = Store(root)
            while k < len(work):
                seq, typ, effect = work[k]
                gid = st.find_board_game(BOARD, "g1")
                st.ingest(BOARD, "e1", seq, typ, f"E{seq} {typ}", effect(st, gid.id if gid else None))
                k += 1  # stored: acknowledged
            if not named:
                st.name_players(1, south="Ali", north="Bibi")
                named = True
            if not imported:
                try:
                    st.import_text(GAME_TEXT)
                except StoreError as e:
                    if "already in the library" not in str(e):
                        raise
                imported = True
            st.close()
            return seen
        except Crash:  # the process died: SQLite rolls back what it had not committed, its locks go
            if st is not None:
                st.close()
            st = None  # restarted: a new process opens the store again
        except StoreError as e:
            name = type(e).__name__
            seen[name] = seen.get(name, 0) + 1
            if isinstance(e, StoreDamaged):
                raise AssertionError(f"an injected {plan.kind} at {plan.fired} was called damage: {e}") from e
    raise AssertionError("the work never finished")


def check_library(root: Path) -> None:
    """Exactly the played events and moves, once each, in the database, the transcript and the event log."""
    assert not list(root.glob("*.corrupt-*")), "a database was set aside"
    with Store(root, readonly=True) as st:
        games = st.games()
        board = [g for g in games if g.board_id == BOARD]
        assert len(board) == 1 and board[0].plies == T1994.plies[:PLIES]
        assert (board[0].south, board[0].north) == ("Ali", "Bibi")
        seqs = [r["seq"] for r in st.db.execute("SELECT seq FROM events ORDER BY id")]
        assert seqs == list(range(1, PLIES + 2))
        assert [g.source for g in games] == ["board", "import"] and len(games[1].plies) == 52
        for g in games:
            t = notation.parse_transcript((root / "games" / (g.key + ".txt")).read_text())
            assert t.plies == g.plies and t.headers.get("south") == (g.south or "?")
        lines = (root / "games" / (board[0].key + ".jsonl")).read_text().splitlines()
        assert [json.loads(x)["seq"] for x in lines] == list(range(1, PLIES + 2))


def count_calls(tmp: Path, faults: Plan) -> int:
    faults.kind, faults.at, faults.calls = "crash", -1, 0
    logger_work(tmp / "dry", faults)
    check_library(tmp / "dry")
    return faults.calls


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory when there is one (/dev/shm): the runs are many, and an fsync on a loaded disk
    costs more than everything else they do; the faults are injected above the file system anyway."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="bao-store-faults-", dir=shm))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_fault_at_every_io_call(kind: str, scratch: Path, faults: Plan) -> None:
    tmp_path = scratch
    total = count_calls(tmp_path, faults)
    assert total > 100  # every statement, open, fsync and rename of the work
    classes: dict[str, int] = {}
    for at in range(1, total + 1):
        faults.kind, faults.at, faults.calls, faults.fired = kind, at, 0, ""
        root = tmp_path / f"run{at}"
        for name, n in logger_work(root, faults).items():
            classes[name] = classes.get(name, 0) + n
        assert faults.fired, f"call {at} of {total}: no fault fired"
        # the derived files are right while it runs (not only after a repair), and after a restart
        check_library(root)
        Store(root).close()
        check_library(root)
    want = {"io error": "StoreError", "disk full": "StoreFull", "lock held elsewhere": "StoreBusy"}.get(kind)
    if want is not None:
        assert set(classes) <= {want, "StoreError"} and classes.get(want, 0) > 0, classes
    print(f"\n{kind}: a fault at each of {total} I/O calls: 0 lost, 0 doubled, 0 reordered; errors met {classes}")


# ---- the cases found by the campaign ---------------------------------------------------------------------


def library(tmp_path: Path, plies: int = 12) -> Path:
    """A library with one board game: its GAME event and `plies` moves of the 1994 game."""
    root = tmp_path / "lib"
    with Store(root) as st:
        gid = st.ingest(BOARD, "e1", 1, "GAME", "E1", st.op_start_game(BOARD, "g1", core.initial(), {})).game
        assert gid is not None
        for i in range(plies):
            move(st, gid, i)
    return root


def hold_lock(root: Path) -> sqlite3.Connection:
    """Another process's exclusive lock on the database (a long write, a backup tool)."""
    con = sqlite3.connect(root / "index.sqlite3", isolation_level=None)
    con.execute("PRAGMA locking_mode=EXCLUSIVE")
    con.execute("BEGIN EXCLUSIVE")
    con.execute("INSERT INTO meta VALUES ('held', 'x')")
    return con


def test_a_busy_library_is_waited_for_reported_never_called_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = library(tmp_path)
    monkeypatch.setattr(Store, "busy_timeout", 0.05)
    held = hold_lock(root)
    try:
        before = sorted(p.name for p in root.rglob("*"))
        for argv in (["games"], ["game", "1"], ["export", "1"]):
            assert main([*argv, "--data", str(root)]) == 1
            err = capsys.readouterr().err
            assert "busy" in err and "waiting (attempt 2 of 3)" in err and "corrupt" not in err, err
            assert err.splitlines()[-1].startswith("bao: ") and "try again" in err.splitlines()[-1]
        with pytest.raises(StoreBusy):
            Store(root)  # a writer too: busy, not damage
        assert sorted(p.name for p in root.rglob("*")) == before  # nothing renamed, removed or made
    finally:
        held.close()
    assert main(["games", "--data", str(root)]) == 0  # the lock is gone: it works again
    assert "12" in capsys.readouterr().out


def test_readers_never_modify_the_library(tmp_path: Path) -> None:
    root = library(tmp_path)
    key = Store(root, readonly=True).games()[0].key
    inflight = root / "games" / f"{key}.txt.{os.getpid() + 1}.tmp"  # another writer's file in flight
    inflight.write_text("in flight")
    (root / "games" / (key + ".txt")).write_text("damaged")
    lock = LibraryLock(root)
    lock.acquire("bao log")  # a logger runs
    try:
        snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "sqlite3" not in p.name}
        with Store(root, readonly=True) as st:
            assert len(st.games()[0].plies) == 12 and st.problems == []
        with Store(root) as st:  # a writer that does not hold the lock repairs nothing either
            assert st.problems == [] and not st.holds_lock
        assert {p: p.read_bytes() for p in snapshot} == snapshot
    finally:
        lock.release()


def test_damaged_pages_give_a_clear_message_and_a_writer_rebuilds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = library(tmp_path)
    with Store(root) as st:
        st.import_text((Path(__file__).parents[2] / "games" / "zanzibar-1994.txt").read_text())
    db = root / "index.sqlite3"
    clean = db.read_bytes()
    page = 4096
    pages = len(clean) // page
    rng = random.Random(14)
    outcomes: dict[str, int] = {}
    for trial in range(40):
        data = bytearray(clean)
        for p in rng.sample(range(1, pages), min(3, pages - 1)):  # 3 damaged pages (page 0: the header)
            for _ in range(20):
                data[p * page + rng.randrange(page)] = rng.randrange(256)
        db.write_bytes(bytes(data))
        for argv in (["games"], ["game", "1", "--no-boards"], ["export", "2"]):
            status = main([*argv, "--data", str(root)])
            out, err = capsys.readouterr()
            assert "Traceback" not in err and "internal error" not in err, (trial, argv, err)
            if status:
                assert err.count("\n") == 1 and ("damaged" in err or "failed" in err or "no game" in err), err
            outcomes[f"{argv[0]} {'ok' if status == 0 else 'refused'}"] = (
                outcomes.get(f"{argv[0]} {'ok' if status == 0 else 'refused'}", 0) + 1
            )
        assert db.read_bytes() == bytes(data)  # readers changed nothing
        # the logger (the lock's holder) checks it, sets it aside when damaged, rebuilds: nothing lost
        with Store(root) as st:
            games = st.games()
            assert [len(g.plies) for g in games] in ([12, 52], [52, 12]), (trial, st.problems)
            board = next(g for g in games if g.board_id)
            assert board.board_id == BOARD and board.board_game == "g1"
            assert st.last_seq(BOARD, "e1") == 13 and len(st.events(board.id)) == 13
        for p in root.glob("index.sqlite3.corrupt-*"):
            p.unlink()
        db.write_bytes(clean)
        for s in ("-wal", "-shm"):
            (root / ("index.sqlite3" + s)).unlink(missing_ok=True)
    assert outcomes.get("games refused", 0) > 0  # some damage was seen by the readers


def test_a_rebuilt_database_keeps_board_ids_events_and_the_resume_point(tmp_path: Path) -> None:
    root = library(tmp_path)
    with Store(root, readonly=True) as st:
        before = [dict(r) for r in st.db.execute("SELECT board_id, stream, seq, type, raw FROM events ORDER BY seq")]
    for s in ("", "-wal", "-shm"):
        (root / ("index.sqlite3" + s)).unlink(missing_ok=True)
    (root / "index.sqlite3").write_bytes(b"not a database" * 300)
    with Store(root) as st:
        assert any("corrupt database" in p for p in st.problems)
        g = st.games()[0]
        assert (g.board_id, g.board_game, g.source, g.status) == (BOARD, "g1", "board", "playing")
        assert g.plies == T1994.plies[:12]
        after = [dict(r) for r in st.db.execute("SELECT board_id, stream, seq, type, raw FROM events ORDER BY seq")]
        assert after == before and st.last_seq(BOARD, "e1") == 13  # the logger resumes after event 13
        assert [r["board_id"] for r in st.known_boards()] == [BOARD]
        # and it goes on from there: event 14 is move 13
        st.ingest(BOARD, "e1", 14, "MOVE", "E14", st.op_move(g.id, 13, T1994.plies[12], P1994[13], 14))
        assert len(st.game(g.id).plies) == 13


def move(st: Store, gid: int, i: int) -> None:
    """Move i of the 1994 game as the board's event i + 2."""
    st.ingest(BOARD, "e1", i + 2, "MOVE", f"E{i + 2}", st.op_move(gid, i + 1, T1994.plies[i], P1994[i + 1], i + 2))


def test_a_database_that_lost_its_last_commits_does_not_cut_the_transcript(tmp_path: Path) -> None:
    root = library(tmp_path, 9)
    old = (root / "index.sqlite3").read_bytes()  # the database as it was after 9 plies
    with Store(root) as st:
        gid = st.games()[0].id
        for i in range(9, 12):
            move(st, gid, i)
        key = st.game(gid).key
    (root / "index.sqlite3").write_bytes(old)  # ...its WAL lost: the last three commits are gone
    for s in ("-wal", "-shm"):
        (root / ("index.sqlite3" + s)).unlink(missing_ok=True)
    with Store(root) as st:
        assert any("had lost 3 events and 3 moves" in p for p in st.problems), st.problems
        assert st.game(gid).plies == T1994.plies[:12]
        assert st.last_seq(BOARD, "e1") == 13
    t = notation.parse_transcript((root / "games" / (key + ".txt")).read_text())
    assert t.plies == T1994.plies[:12]


def test_a_deleted_or_damaged_event_log_is_written_again(tmp_path: Path) -> None:
    root = library(tmp_path)
    key = Store(root, readonly=True).games()[0].key
    log = root / "games" / (key + ".jsonl")
    want = [json.loads(x)["seq"] for x in log.read_text().splitlines()]
    log.unlink()
    with Store(root) as st:
        assert any("13 events missing" in p for p in st.problems)
    assert [json.loads(x)["seq"] for x in log.read_text().splitlines()] == want
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:3] + ["garbage{"] + lines[6:]) + "\n")
    with Store(root) as st:
        assert any("not JSON" in p for p in st.problems) and any("3 events missing" in p for p in st.problems)
    assert sorted(json.loads(x)["seq"] for x in log.read_text().splitlines()) == want


def test_errors_are_classified() -> None:
    assert isinstance(classify(sqlite_error(sqlite3.SQLITE_BUSY, "database is locked")), StoreBusy)
    assert isinstance(classify(sqlite_error(sqlite3.SQLITE_FULL, "full")), StoreFull)
    assert isinstance(classify(sqlite_error(sqlite3.SQLITE_READONLY, "readonly")), StoreReadOnly)
    assert isinstance(classify(sqlite_error(sqlite3.SQLITE_CORRUPT, "malformed")), StoreDamaged)
    assert isinstance(classify(OSError(errno.ENOSPC, "No space left")), StoreFull)
    assert isinstance(classify(OSError(errno.EROFS, "Read-only file system")), StoreReadOnly)
    e = classify(sqlite_error(sqlite3.SQLITE_IOERR, "disk I/O error"))
    assert type(e) is StoreError and "disk I/O error" in str(e)


def test_library_commands_on_a_read_only_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = library(tmp_path)
    if subprocess.run(["chattr", "+i", str(root), str(root / "games")], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here (an immutable folder stands for a read-only one)")
    game = Path(__file__).parents[2] / "games" / "zanzibar-1994.txt"
    try:
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        for argv in (["import", str(game)], ["name", "1", "--south", "Ali"]):
            assert main([*argv, "--data", str(root)]) == 1
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "cannot be written" in err and "Traceback" not in err, err
        assert main(["games", "--data", str(root)]) == 0  # reading needs no writing
        assert "12" in capsys.readouterr().out
        assert {p: p.read_bytes() for p in before} == before
    finally:
        subprocess.run(["chattr", "-i", str(root), str(root / "games")], capture_output=True)
    assert main(["import", str(game), "--data", str(root)]) == 0  # writable again: it works


def test_a_deleted_database_is_rebuilt_by_the_next_writer_not_by_a_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = library(tmp_path)
    for s in ("", "-wal", "-shm"):
        (root / ("index.sqlite3" + s)).unlink(missing_ok=True)
    assert main(["games", "--data", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no database" in err and "rebuilds it" in err
    assert not (root / "index.sqlite3").exists()  # the reader made nothing
    assert main(["name", "1", "--south", "Ali", "--data", str(root)]) == 0
    capsys.readouterr()
    assert main(["games", "--json", "--data", str(root)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["south"], r["moves"], r["board"]) for r in rows] == [("Ali", 12, BOARD)]
    with Store(root, readonly=True) as st:
        assert st.last_seq(BOARD, "e1") == 13


def test_a_row_with_text_that_is_not_utf8_is_named_skipped_and_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #26 item 1: damaged text passes SQLite's integrity check; it must not brick the library."""
    from bao_testkit.simrig import ROOT
    from test_log_bad_input import ScriptedBoard, move_line
    from test_logger_binding import BAO, hello_of

    root = library(tmp_path)
    with Store(root) as st:
        st.import_text((Path(__file__).parents[2] / "games" / "zanzibar-1994.txt").read_text())
    con = sqlite3.connect(root / "index.sqlite3", isolation_level=None)
    con.execute("UPDATE games SET start=CAST(x'7b22ff1b5b326a' AS TEXT) WHERE id=2")
    # readers: the rest is shown, the damaged game named, never its bytes (an escape sequence here)
    assert main(["games", "--data", str(root)]) == 0
    out, err = capsys.readouterr()
    assert " 12 " in out and "52" not in out and "\x1b" not in out + err
    assert err.count("\n") == 1 and "game 2 is damaged" in err and "bao log` rebuilds it" in err, err
    assert main(["game", "2", "--data", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "game 2 is damaged (its start cannot be read)" in err and "\x1b" not in err
    assert main(["export", "1", "--data", str(root)]) == 0
    capsys.readouterr()
    # the board's game damaged too (a move's text): the logger starts, rebuilds both and goes on recording
    con.execute("UPDATE moves SET text=CAST(x'41ff' AS TEXT) WHERE game=1 AND ply=3")
    con.close()
    board = ScriptedBoard(hello_of(BOARD, 15, acked=13), [move_line(14, 12), move_line(15, 13)])
    try:
        r = subprocess.run(
            [*BAO, "log", "--port", board.url, "--quiet", "--duration", "10", "--data", str(root)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
    finally:
        board.close()
    said = r.stderr
    assert r.returncode == 0 and board.acked == 15, said  # the board's new events recorded and acknowledged
    assert "Traceback" not in said and "game 2 (import-" in said and "rebuilt from its transcript" in said, said
    assert "game 1 (" in said and "(its moves could not be read)" in said, said
    with Store(root, readonly=True) as st:
        one, two = st.games()
        assert st.problems == [] and one.plies == T1994.plies[:14] and two.plies == T1994.plies
        assert st.positions(2)[0].d == core.initial().d and st.last_seq(BOARD, "e1") == 15


def test_a_lost_wal_file_is_said_with_the_way_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #26: every commit still in the WAL file, that file deleted: the database is an empty file. A
    reader says so and how it comes back (not "no such table: games"); the next writer restores it."""
    import shutil

    was = tmp_path / "was"
    with Store(was) as st:
        gid = st.ingest(BOARD, "e1", 1, "GAME", "E1", st.op_start_game(BOARD, "g1", core.initial(), {})).game
        assert gid is not None
        for i in range(6):
            move(st, gid, i)
        root = tmp_path / "lib"  # the library as it is while the logger runs (nothing checkpointed), no -wal
        shutil.copytree(was, root, ignore=shutil.ignore_patterns("*-wal", "*-shm", "lock"))
    assert main(["games", "--data", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such table" not in err and "the next `bao log`" in err, err
    with Store(root) as st:
        assert st.games()[0].plies == T1994.plies[:6] and st.last_seq(BOARD, "e1") == 7
