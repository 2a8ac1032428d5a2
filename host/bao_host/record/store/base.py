"""The store's shared state: the database, the root folder, the lock and the problems found."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Self

from bao_host.record.lock import LibraryLock
from bao_host.record.store.rows import Game


class StoreBase:
    """What every part of the store shares: the open database, the library's root and lock, the problems
    found, and the transaction every change runs in."""

    busy_timeout = 10.0  # seconds SQLite waits for another process's lock (each attempt)
    busy_attempts = 3  # attempts at opening a busy library, each reported
    root: Path
    db: sqlite3.Connection
    problems: list[str]
    readonly: bool
    lock: LibraryLock | None
    _report: Callable[[str], None] | None
    _own_lock: bool
    _stale: set[int]  # games whose transcript is behind the database (a failed write)

    @property
    def holds_lock(self) -> bool:
        return self.lock is not None and self.lock.held

    def _drop_lock(self) -> None:
        if self._own_lock and self.lock is not None:
            self.lock.release()
            self.lock, self._own_lock = None, False

    def _problem(self, msg: str) -> None:
        self.problems.append(msg)
        if self._report is not None:
            self._report(msg)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.db.close()
        self._drop_lock()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            # (a COMMIT that failed, disk full or busy, leaves the transaction open: end it, or every later
            # BEGIN fails and the lock stays held)
            with contextlib.suppress(sqlite3.Error):
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
            raise

    def transcript_path(self, game: Game) -> Path:
        return self.root / "games" / (game.key + ".txt")

    def events_path(self, key: str) -> Path:
        return self.root / "games" / (key + ".jsonl")
