"""The store: a library opened for reading or writing, its lock taken, its database checked."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from bao_host.record.lock import LibraryLock, LockHeld
from bao_host.record.store.errors import StoreBusy, StoreDamaged, StoreError, classify, missing_table
from bao_host.record.store.files import rename
from bao_host.record.store.puzzle_ratings import PuzzleRatings
from bao_host.record.store.recovery import Recovery
from bao_host.record.store.rows import default_data_dir, lenient_text, now
from bao_host.record.store.schema import DB_NAME, connect, create, migrate


class FailedIntegrity(Exception):
    """The integrity check failed (its first finding)."""


class Store(Recovery, PuzzleRatings):
    """The game store in `root`. Not thread-safe: one logger process writes it (others may read).

    readonly=True: open an existing library and change nothing (StoreError when there is none). A writer
    takes the library's lock (`lock`, held by the caller; else taken while opening, when it is free) and
    only then checks the database's integrity and, when `repair`, the derived files."""

    def __init__(
        self,
        root: Path | str | None = None,
        report: Callable[[str], None] | None = None,
        repair: bool = True,
        readonly: bool = False,
        lock: LibraryLock | None = None,
    ) -> None:
        self.root = Path(root) if root is not None else default_data_dir()
        self.problems: list[str] = []
        self.readonly = readonly
        self._report = report
        self.lock = lock
        self._own_lock = False
        self._stale: set[int] = set()  # games whose transcript is behind the database (a failed write)
        if readonly:
            self.db = self._open_reader()
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / "games").mkdir(exist_ok=True)
            (self.root / "boards").mkdir(exist_ok=True)
            if self.lock is None:
                self._take_lock()
            self.db = self._open_db()
            if repair and self.holds_lock:
                self.repair()
        except (OSError, sqlite3.Error) as e:
            self._drop_lock()
            with contextlib.suppress(Exception):
                self.db.close()
            raise classify(e, self.root) from e
        except BaseException:
            self._drop_lock()
            raise
        if self._own_lock:  # a short-lived writer (`bao import`, `bao name`): the logger may start now
            self._drop_lock()

    def _take_lock(self) -> None:
        lock = LibraryLock(self.root)
        try:
            lock.acquire("a library command")
        except LockHeld:
            return  # a logger runs: write through SQLite only, leave repairs to it
        self.lock, self._own_lock = lock, True

    def _connect(self, path: Path) -> sqlite3.Connection:
        return connect(path, self.busy_timeout)

    def _patiently(self, what: Callable[[], sqlite3.Connection]) -> sqlite3.Connection:
        """what(), tried again while the library is busy (each try waits busy_timeout); StoreBusy at last."""
        for attempt in range(1, self.busy_attempts + 1):
            try:
                return what()
            except sqlite3.Error as e:
                err = classify(e, self.root)
                if not isinstance(err, StoreBusy) or attempt == self.busy_attempts:
                    raise err from e
                self._problem(
                    f"{self.root}: the game library is busy (another process holds its lock): "
                    f"waiting (attempt {attempt + 1} of {self.busy_attempts})"
                )
        raise AssertionError("unreachable")

    def _open_reader(self) -> sqlite3.Connection:
        path = self.root / DB_NAME
        if not path.exists() and (self.root / "games").is_dir():
            raise StoreError(
                f"the game library in {self.root} has no database ({DB_NAME}): the next `bao log`, "
                "`bao import` or `bao name` rebuilds it from the transcripts and event logs"
            )
        if not path.exists():
            raise StoreError(f"no game library in {self.root} (`bao import` or `bao log` makes one there)")

        def connect() -> sqlite3.Connection:
            uri = f"{path.resolve().as_uri()}?mode=ro"
            try:
                return opened(uri)
            except sqlite3.Error as e:
                # A WAL database in a folder nobody can write: its -shm cannot be made, and with no -wal
                # file no writer is at work (a writer has one open): read it as the immutable file it is.
                cantopen = ((getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF) == sqlite3.SQLITE_CANTOPEN
                if not cantopen or Path(str(path) + "-wal").exists():
                    raise
                return opened(uri + "&immutable=1")

        def opened(uri: str) -> sqlite3.Connection:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=self.busy_timeout)
            try:
                db.row_factory = sqlite3.Row
                db.text_factory = lenient_text
                db.execute("SELECT COUNT(*) FROM games").fetchone()  # reads the schema: busy or damaged here
            except sqlite3.OperationalError as e:
                db.close()
                if not missing_table(e):
                    raise
                # (a database whose every commit was in its WAL file, that file deleted: an empty file)
                raise StoreError(
                    f"the game library in {self.root} has an empty database ({DB_NAME} holds no "
                    "games table: its -wal file lost?): nothing was changed; the next `bao log` "
                    "(or `bao import`, `bao name`) restores it from the transcripts and event "
                    "logs"
                ) from None
            except BaseException:
                db.close()
                raise
            return db

        try:
            return self._patiently(connect)
        except StoreDamaged as e:
            raise StoreDamaged(
                f"{e}: nothing was changed; the next `bao log` (or `bao import`, `bao name`) "
                "sets it aside and rebuilds it from the transcripts and event logs"
            ) from None

    def _open_db(self) -> sqlite3.Connection:
        path = self.root / DB_NAME

        def connect() -> sqlite3.Connection:
            db = self._connect(path)
            try:
                if self.holds_lock:
                    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
                    if ok != "ok":
                        raise FailedIntegrity(str(ok))
                create(db)
                migrate(db, self.root)
            except BaseException:
                db.close()
                raise
            return db

        try:
            return self._patiently(connect)
        except (FailedIntegrity, StoreDamaged) as e:
            if not self.holds_lock:
                raise StoreDamaged(
                    f"{self.root}: the game library's database is damaged ({e}); it is in use by "
                    "a logger, which sets it aside and rebuilds it when it starts again"
                ) from None
            return self._set_aside(path, str(e))

    def _set_aside(self, path: Path, why: str) -> sqlite3.Connection:
        """The database failed its integrity check: keep it aside (nothing is deleted) and rebuild."""
        aside = path.with_name(f"{DB_NAME}.corrupt-{int(now())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                rename(src, Path(str(aside) + suffix))
        self._problem(
            f"{path}: corrupt database ({why}): set aside as {aside.name},"
            " rebuilding from the transcripts and event logs"
        )
        db = self._connect(path)
        create(db)
        self.db = db
        self._rebuild_from_files()
        return db
