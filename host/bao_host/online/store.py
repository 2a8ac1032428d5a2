"""The server's online games, durable in the library's SQLite database (index.sqlite3 of `bao serve --data`).

Three tables of their own beside the library's (the library's schema is not touched): a game, its two
seats (a seat's token kept as its SHA-256 only), its moves. Every accepted move is one transaction
(synchronous=FULL) before anyone is told of it: a server killed at any instant comes back with every move
it has announced. When a game ends it is stored in the library as an ordinary game (key `online-<id>`,
the same moves, a header `online game: <id>`) through the library's own import, so `bao games`, `bao
export` and the web library show it; a server stopped between the two stores it at its next start.

    st = OnlineStore(root)                 # its own connection to root/index.sqlite3
    st.create(gid, rules, start, invite_digest) / st.seat(gid, side, token_digest, name)
    st.add_move(gid, ply, text, side)      # False when that ply is already stored
    st.finish(gid, status, result, reason) / st.stored_in_library(gid, key)
    st.load(gid) -> Row | None, st.moves(gid), st.seats(gid), st.unfiled()
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bao_host.record.store import DB_NAME

SCHEMA = """
CREATE TABLE IF NOT EXISTS online_games (
    id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, options TEXT NOT NULL, start TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'waiting', result TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '',
    invite TEXT NOT NULL DEFAULT '', library TEXT NOT NULL DEFAULT '', created REAL NOT NULL,
    updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS online_seats (
    game TEXT NOT NULL REFERENCES online_games(id), side TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL DEFAULT '', PRIMARY KEY (game, side));
CREATE TABLE IF NOT EXISTS online_clocks (
    game TEXT PRIMARY KEY REFERENCES online_games(id), base REAL NOT NULL, increment REAL NOT NULL,
    started REAL);
CREATE TABLE IF NOT EXISTS online_rematches (
    game TEXT PRIMARY KEY REFERENCES online_games(id), next TEXT NOT NULL REFERENCES online_games(id));
CREATE TABLE IF NOT EXISTS online_moves (
    game TEXT NOT NULL REFERENCES online_games(id), ply INTEGER NOT NULL, move TEXT NOT NULL,
    side TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (game, ply));
"""


_F = TypeVar("_F", bound=Callable[..., Any])


def _locked(fn: _F) -> _F:
    """One thread at a time on the connection (the server's loop, and the thread that commits moves)."""
    @functools.wraps(fn)
    def run(self: OnlineStore, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return fn(self, *args, **kwargs)
    return run  # type: ignore[return-value]


class OnlineStore:
    def __init__(self, root: Path) -> None:
        self.lock = threading.RLock()
        root.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(root / DB_NAME, isolation_level=None, timeout=10.0, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    @_locked
    def close(self) -> None:
        self.db.close()

    def _write(self, sql: str, args: tuple[object, ...]) -> int:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            n = self.db.execute(sql, args).rowcount
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return n

    @_locked
    def create(self, gid: str, ruleset: str, options: str, start: str, invite: str) -> None:
        now = time.time()
        self._write("INSERT INTO online_games (id, ruleset, options, start, invite, created, updated)"
                    " VALUES (?,?,?,?,?,?,?)", (gid, ruleset, options, start, invite, now, now))

    @_locked
    def rematch(self, gid: str) -> str | None:
        r = self.db.execute("SELECT next FROM online_rematches WHERE game=?", (gid,)).fetchone()
        return None if r is None else str(r[0])

    @_locked
    def set_rematch(self, gid: str, nxt: str) -> None:
        self._write("INSERT INTO online_rematches VALUES (?,?)", (gid, nxt))

    @_locked
    def set_clock(self, gid: str, base: float, increment: float) -> None:
        self._write("INSERT INTO online_clocks (game, base, increment) VALUES (?,?,?)", (gid, base, increment))

    @_locked
    def start_clock(self, gid: str, when: float) -> None:
        self._write("UPDATE online_clocks SET started=? WHERE game=? AND started IS NULL", (when, gid))

    @_locked
    def clock(self, gid: str) -> tuple[float, float, float | None] | None:
        """(base, increment, started) of the game's clock, None without one."""
        r = self.db.execute("SELECT base, increment, started FROM online_clocks WHERE game=?", (gid,)).fetchone()
        return None if r is None else (float(r[0]), float(r[1]), None if r[2] is None else float(r[2]))

    @_locked
    def move_times(self, gid: str) -> list[float]:
        return [float(r[0]) for r in self.db.execute("SELECT received FROM online_moves WHERE game=? ORDER BY ply",
                                                     (gid,))]

    @_locked
    def seat(self, gid: str, side: str, token: str, name: str, used_invite: bool = False) -> None:
        """A seat taken (the creator's, or the invited player's: the invitation is then used up and the
        game starts), in one transaction."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT INTO online_seats VALUES (?,?,?,?)", (gid, side, token, name))
            if used_invite:
                self.db.execute("UPDATE online_games SET invite='', status='playing', updated=? WHERE id=?",
                                (time.time(), gid))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @_locked
    def add_move(self, gid: str, ply: int, text: str, side: str) -> bool:
        try:
            self._write("INSERT INTO online_moves VALUES (?,?,?,?,?)", (gid, ply, text, side, time.time()))
        except sqlite3.IntegrityError:
            return False
        return True

    @_locked
    def add_moves(self, rows: list[tuple[str, int, str, str, float]]) -> None:
        """Moves (game, ply, text, side, received) in one transaction: one commit for every move that came
        meanwhile."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT INTO online_moves VALUES (?,?,?,?,?)", rows)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @_locked
    def take_back(self, gid: str, plies: int) -> None:
        """A takeback accepted: the moves after the first `plies` are gone."""
        self._write("DELETE FROM online_moves WHERE game=? AND ply>?", (gid, plies))

    @_locked
    def finish(self, gid: str, status: str, result: str, reason: str) -> None:
        self._write("UPDATE online_games SET status=?, result=?, reason=?, invite='', updated=? WHERE id=?",
                    (status, result, reason, time.time(), gid))

    @_locked
    def stored_in_library(self, gid: str, key: str) -> None:
        self._write("UPDATE online_games SET library=? WHERE id=?", (key, gid))

    @_locked
    def load(self, gid: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute("SELECT * FROM online_games WHERE id=?", (gid,)).fetchone()
        return row

    @_locked
    def by_invite(self, invite: str) -> sqlite3.Row | None:
        if not invite:
            return None
        row: sqlite3.Row | None = self.db.execute("SELECT * FROM online_games WHERE invite=?",
                                                  (invite,)).fetchone()
        return row

    @_locked
    def moves(self, gid: str) -> list[str]:
        return [str(r[0]) for r in self.db.execute("SELECT move FROM online_moves WHERE game=? ORDER BY ply",
                                                   (gid,))]

    @_locked
    def seats(self, gid: str) -> dict[str, tuple[str, str]]:
        """side -> (token digest, name)"""
        return {str(r["side"]): (str(r["token"]), str(r["name"]))
                for r in self.db.execute("SELECT * FROM online_seats WHERE game=?", (gid,))}

    @_locked
    def unfiled(self) -> list[str]:
        """Games that ended but are not in the library yet (the server stopped in between)."""
        return [str(r[0]) for r in self.db.execute(
            "SELECT id FROM online_games WHERE status IN ('over', 'aborted') AND library='' ORDER BY created")]
