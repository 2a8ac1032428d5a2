"""The store's errors: each a one-line message of what failed and whether a retry can help."""

from __future__ import annotations

import errno
import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from bao import core


class StoreError(Exception):
    """A store operation that cannot be done (unknown game, unreadable import, ...): one-line message."""


class StoreBusy(StoreError):
    """Another process holds the database's lock past the busy timeout: try again later."""


class StoreReadOnly(StoreError):
    """The data folder or the database cannot be written (read-only folder, permissions)."""


class StoreFull(StoreError):
    """The disk (or the user's quota) is full."""


class StoreDamaged(StoreError):
    """SQLite says the database is damaged (integrity check, malformed page)."""


_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_READONLY = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH}
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_FULL_ERRNO = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READONLY_ERRNO = {errno.EROFS, errno.EACCES, errno.EPERM}


def missing_table(e: sqlite3.OperationalError) -> bool:
    """Whether sqlite's error is a table the database does not have: a library of an older schema, read
    before a writer migrated it (or a database emptied by a lost -wal file)."""
    return "no such table" in str(e)


def classify(e: BaseException, where: Path | str = "") -> StoreError:
    """The StoreError an OSError or sqlite3.Error means (busy, read-only, full, damaged, other), one line."""
    if isinstance(e, StoreError):
        return e
    at = f"{where}: " if where else ""
    if isinstance(e, sqlite3.Error):
        code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
        if code in _BUSY:
            return StoreBusy(
                f"{at}the game library is busy (another process holds its database's lock): try again in a moment"
            )
        if code in _READONLY:
            return StoreReadOnly(f"{at}the game library cannot be written (read-only): {e}")
        if code == sqlite3.SQLITE_CANTOPEN:  # (its -wal and -shm files cannot be made: a read-only folder)
            return StoreReadOnly(f"{at}the game library cannot be written or opened ({e}): is its folder read-only?")
        if code == sqlite3.SQLITE_FULL:
            return StoreFull(f"{at}the disk is full: free some space (nothing stored was lost)")
        if code in _DAMAGED or (not code and "malformed" in str(e)):
            return StoreDamaged(f"{at}the game library's database is damaged ({e})")
        return StoreError(f"{at}the game library's database failed: {e}")
    if isinstance(e, OSError):
        why = e.strerror or str(e)
        if e.errno in _FULL_ERRNO:
            return StoreFull(f"{at}the disk is full ({why}): free some space (nothing stored was lost)")
        if e.errno in _READONLY_ERRNO:
            return StoreReadOnly(f"{at}the game library cannot be written ({why})")
        return StoreError(f"{at}{why}")
    return StoreError(f"{at}{type(e).__name__}: {e}")


_P = ParamSpec("_P")
_R = TypeVar("_R")


def guarded(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """SQLite's and the file system's errors leave a store method as the StoreError they mean."""

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except (sqlite3.Error, OSError) as e:
            raise classify(e) from e

    return run


def reading(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """A read whose stored data does not parse (damaged pages that SQLite did not notice): StoreDamaged."""

    checked = guarded(fn)

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return checked(*args, **kwargs)
        except (ValueError, KeyError, IndexError, TypeError, core.BaoError) as e:
            raise StoreDamaged(
                f"the game library holds data that cannot be read ({type(e).__name__}: {e}): "
                "the next `bao log` checks the database and rebuilds it if it is damaged"
            ) from e

    return run


class DamagedRow(StoreDamaged):
    """A game's row holds text that is not UTF-8 (a damaged page that SQLite's integrity check does not see):
    that game cannot be read; the others can."""

    def __init__(self, game: int, columns: list[str]) -> None:
        self.game, self.columns = game, columns
        super().__init__(
            f"game {game} is damaged (its {', '.join(columns)} cannot be read): the next `bao log` "
            "rebuilds it from its transcript and event log"
        )
