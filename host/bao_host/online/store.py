"""The server's online games, durable in a database: one interface (GameStore), two implementations.

- SqliteStore, the embedded default: the library's SQLite database (index.sqlite3 of `bao serve --data`),
  one server process.
- PostgresStore (bao_host.online.store_pg, `bao serve --db postgresql://...`): one PostgreSQL database
  shared by several server processes; each change is announced to the others with NOTIFY in the
  transaction that makes it, and each process LISTENs (GameStore.listen) to bring the games it holds up
  to date and tell its own clients.

Tables of their own beside the library's (the library's schema is not touched): a game, its two seats (a
seat's token kept as its SHA-256 only), its clock, its rematch, its moves. Every accepted move is one
transaction, committed before anyone is told of it: a server killed at any instant comes back with every
move it has announced (SqliteStore says how far a power cut is covered). When a game ends it is stored
in the library as an ordinary game (key `online-<id>`, the same moves, a header `online game: <id>`)
through the library's own import, so `bao games`, `bao export` and the web library show it; a server
stopped between the two stores it at its next start.

    st = open_store(root, db)              # (bao_host.online.stores) db: None (SQLite in root) or postgresql://
    st.create(gid, rules, start, invite_digest) / st.seat(gid, side, token_digest, name)
    st.add_move(gid, ply, text, side)      # False when that ply is already stored
    st.add_moves(rows) -> [stored?]        # many moves (of many games), one transaction
    st.finish(gid, status, result, reason) / st.stored_in_library(gid, key)
    st.load(gid) -> dict | None, st.moves(gid), st.seats(gid), st.unfiled()
    await st.listen(on_change)             # the other processes' changes: on_change(game, kind, ply, moves)
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
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
CREATE TABLE IF NOT EXISTS online_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
SCHEMA_VERSION = 2  # 2: the takebacks asked for (online_takebacks), the lobby's index
MIGRATIONS = {  # version -> what makes a database of the version before it this one
    2: """
CREATE TABLE IF NOT EXISTS online_takebacks (
    game TEXT PRIMARY KEY REFERENCES online_games(id), side TEXT NOT NULL, plies INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS online_games_live ON online_games (status, created);
""",
}

MOVE = "m"  # a change announced to the other processes: moves (up to a ply) ...
STATE = "s"  # ... or anything else of a game (seats, status, clock, rematch)
ANY_GAME = "*"  # on_change's game when the changes in between may have been missed (a lost connection)

Row = dict[str, Any]
Step = tuple[str, tuple[object, ...]]
Moved = list[tuple[int, str, float]]  # moves announced: (ply, move, received)
Change = tuple[str, str, int, Moved]  # (game, MOVE or STATE, ply, the moves stored)
OnChange = Callable[[str, str, int, Moved], None]
_F = TypeVar("_F", bound=Callable[..., Any])
Execute = Callable[[str, tuple[object, ...]], list[Row]]


class SchemaError(Exception):
    """The online tables are of a newer bao than this one: one line for the user."""


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def migrate(execute: Execute) -> int:
    """The online tables made, or brought to SCHEMA_VERSION, by the caller's transaction (execute runs one
    statement in it): a database of an older bao (version 1 kept no version: its tables are there) gets what
    each later version added, its games untouched; a newer bao's is refused (it may hold what this one cannot
    read). The version the database had."""
    for stmt in statements(SCHEMA):
        execute(stmt, ())
    row = execute("SELECT value FROM online_meta WHERE key='schema'", ())
    version = int(row[0]["value"]) if row and str(row[0]["value"]).isdigit() else 1
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"the online games were stored by a newer bao (online schema {version}, this one reads up to "
            f"{SCHEMA_VERSION}): upgrade bao"
        )
    for v in range(version + 1, SCHEMA_VERSION + 1):
        for stmt in statements(MIGRATIONS[v]):
            execute(stmt, ())
    if version != SCHEMA_VERSION:
        execute(
            "INSERT INTO online_meta VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (str(SCHEMA_VERSION),),
        )
    return version


def locked(fn: _F) -> _F:
    """One thread at a time on the connection (the server's loop, and the thread that commits moves)."""

    @functools.wraps(fn)
    def run(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return fn(self, *args, **kwargs)

    return run  # type: ignore[return-value]


class GameStore(ABC):
    """What the server asks of its database. The SQL is written once (SQLite's `?` placeholders); an
    implementation runs statements (_rows, _run) and says whether other processes share the games."""

    shared = False  # True: other server processes change the same games (listen() hears them)
    waits = True  # True: a commit waits for a disk or a network (the server commits on a thread of its own)

    def __init__(self) -> None:
        self.lock = threading.RLock()

    # -- what an implementation provides ---------------------------------------------------------------
    @abstractmethod
    def _rows(self, sql: str, args: tuple[object, ...]) -> list[Row]:
        """The rows a query returns, as dicts."""

    @abstractmethod
    def _run(self, steps: list[Step], changes: list[Change]) -> list[int]:
        """The statements in one transaction (rolled back whole on an error), each one's row count; the
        changes announced to the other processes when it commits."""

    @abstractmethod
    def close(self) -> None:
        """The connections closed."""

    async def listen(self, on_change: OnChange) -> None:
        """Calls on_change(game, kind, ply, moves) for each change another process makes (the moves it
        stored, for MOVE: a follower needs no query for them), until cancelled. One
        process alone on its database hears nothing: this returns at once."""
        return None

    # -- the games --------------------------------------------------------------------------------------
    def _one(self, sql: str, args: tuple[object, ...]) -> Row | None:
        rows = self._rows(sql, args)
        return rows[0] if rows else None

    @locked
    def create(self, gid: str, ruleset: str, options: str, start: str, invite: str) -> None:
        now = time.time()
        self._run(
            [
                (
                    "INSERT INTO online_games (id, ruleset, options, start, invite, created, updated)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (gid, ruleset, options, start, invite, now, now),
                )
            ],
            [],
        )

    @locked
    def rematch(self, gid: str) -> str | None:
        r = self._one("SELECT next FROM online_rematches WHERE game=?", (gid,))
        return None if r is None else str(r["next"])

    @locked
    def set_rematch(self, gid: str, nxt: str) -> None:
        self._run([("INSERT INTO online_rematches VALUES (?,?)", (gid, nxt))], [(gid, STATE, 0, [])])

    @locked
    def set_clock(self, gid: str, base: float, increment: float) -> None:
        self._run([("INSERT INTO online_clocks (game, base, increment) VALUES (?,?,?)", (gid, base, increment))], [])

    @locked
    def start_clock(self, gid: str, when: float) -> None:
        self._run(
            [("UPDATE online_clocks SET started=? WHERE game=? AND started IS NULL", (when, gid))],
            [(gid, STATE, 0, [])],
        )

    @locked
    def clock(self, gid: str) -> tuple[float, float, float | None] | None:
        """(base, increment, started) of the game's clock, None without one."""
        r = self._one("SELECT base, increment, started FROM online_clocks WHERE game=?", (gid,))
        if r is None:
            return None
        return float(r["base"]), float(r["increment"]), None if r["started"] is None else float(r["started"])

    @locked
    def move_times(self, gid: str) -> list[float]:
        return [
            float(r["received"])
            for r in self._rows("SELECT received FROM online_moves WHERE game=? ORDER BY ply", (gid,))
        ]

    @locked
    def seat(self, gid: str, side: str, token: str, name: str, used_invite: bool = False) -> None:
        """A seat taken (the creator's, or the invited player's: the invitation is then used up and the
        game starts), in one transaction."""
        steps: list[Step] = [("INSERT INTO online_seats VALUES (?,?,?,?)", (gid, side, token, name))]
        if used_invite:
            steps.append(
                ("UPDATE online_games SET invite='', status='playing', updated=? WHERE id=?", (time.time(), gid))
            )
        self._run(steps, [(gid, STATE, 0, [])])

    @locked
    def add_move(self, gid: str, ply: int, text: str, side: str) -> bool:
        return self.add_moves([(gid, ply, text, side, time.time())])[0]

    @locked
    def add_moves(self, rows: list[tuple[str, int, str, str, float]]) -> list[bool]:
        """Moves (game, ply, text, side, received) in one transaction: one commit for every move that came
        meanwhile. Each one's answer: False when its ply was stored already (by another process). A move
        answers a takeback asked for in its game: no (the request is gone with it)."""
        moved: dict[str, Moved] = {}
        for gid, ply, text, _, received in rows:
            moved.setdefault(gid, []).append((ply, text, received))
        steps: list[Step] = [
            ("INSERT INTO online_moves VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING", row) for row in rows
        ]
        games = tuple(moved)
        steps.append((f"DELETE FROM online_takebacks WHERE game IN ({','.join('?' * len(games))})", games))
        counts = self._run(steps, [(gid, MOVE, m[-1][0], m) for gid, m in moved.items()])
        return [n == 1 for n in counts[: len(rows)]]

    @locked
    def ask_takeback(self, gid: str, side: str | None, plies: int = 0) -> None:
        """A takeback asked for by `side`, to `plies` moves (it replaces one asked before); None: the one asked
        for declined or withdrawn."""
        steps: list[Step] = [("DELETE FROM online_takebacks WHERE game=?", (gid,))]
        if side is not None:
            steps.append(("INSERT INTO online_takebacks VALUES (?,?,?)", (gid, side, plies)))
        self._run(steps, [(gid, STATE, 0, [])])

    @locked
    def takeback(self, gid: str) -> tuple[str, int] | None:
        """(the side asking, the moves to go back to) of the takeback asked for in the game, None without one."""
        r = self._one("SELECT side, plies FROM online_takebacks WHERE game=?", (gid,))
        return None if r is None else (str(r["side"]), int(r["plies"]))

    @locked
    def take_back(self, gid: str, side: str, plies: int) -> bool:
        """The takeback `side` asked for, to `plies` moves, accepted: the moves after them are gone, in one
        transaction with the request, and only while it is still asked for (False: it is not; nothing changed,
        as when another process took it back or a move answered it meanwhile)."""
        asked = "EXISTS (SELECT 1 FROM online_takebacks WHERE game=? AND side=? AND plies=?)"
        counts = self._run(
            [
                (f"DELETE FROM online_moves WHERE game=? AND ply>? AND {asked}", (gid, plies, gid, side, plies)),
                ("DELETE FROM online_takebacks WHERE game=? AND side=? AND plies=?", (gid, side, plies)),
            ],
            [(gid, STATE, plies, [])],
        )
        return counts[1] == 1

    @locked
    def live(self, limit: int = 100) -> list[Row]:
        """The games waiting for a player or being played, the newest first (the lobby: every process on a
        shared database lists the same): id, ruleset, status, south, north (names, '' for a seat not taken),
        plies."""
        return self._rows(
            "SELECT g.id, g.ruleset, g.status,"
            " COALESCE((SELECT name FROM online_seats WHERE game=g.id AND side='S'), '') AS south,"
            " COALESCE((SELECT name FROM online_seats WHERE game=g.id AND side='N'), '') AS north,"
            " (SELECT COUNT(*) FROM online_moves WHERE game=g.id) AS plies"
            " FROM online_games g WHERE g.status IN ('waiting', 'playing') ORDER BY g.created DESC, g.id LIMIT ?",
            (limit,),
        )

    @locked
    def plies(self, gid: str) -> int:
        r = self._one("SELECT COUNT(*) AS n FROM online_moves WHERE game=?", (gid,))
        return 0 if r is None else int(r["n"])

    @locked
    def finish(self, gid: str, status: str, result: str, reason: str) -> None:
        self._run(
            [
                (
                    "UPDATE online_games SET status=?, result=?, reason=?, invite='', updated=? WHERE id=?",
                    (status, result, reason, time.time(), gid),
                )
            ],
            [(gid, STATE, 0, [])],
        )

    @locked
    def stored_in_library(self, gid: str, key: str) -> None:
        self._run([("UPDATE online_games SET library=? WHERE id=?", (key, gid))], [])

    @locked
    def load(self, gid: str) -> Row | None:
        return self._one("SELECT * FROM online_games WHERE id=?", (gid,))

    @locked
    def by_invite(self, invite: str) -> Row | None:
        if not invite:
            return None
        return self._one("SELECT * FROM online_games WHERE invite=?", (invite,))

    @locked
    def moves(self, gid: str, after: int = 0) -> list[str]:
        """The game's moves from ply after + 1 on."""
        return [
            str(r["move"])
            for r in self._rows("SELECT move FROM online_moves WHERE game=? AND ply>? ORDER BY ply", (gid, after))
        ]

    @locked
    def seats(self, gid: str) -> dict[str, tuple[str, str]]:
        """side -> (token digest, name)"""
        return {
            str(r["side"]): (str(r["token"]), str(r["name"]))
            for r in self._rows("SELECT * FROM online_seats WHERE game=?", (gid,))
        }

    @locked
    def unfiled(self) -> list[str]:
        """Games that ended but are not in the library yet (the server stopped in between)."""
        return [
            str(r["id"])
            for r in self._rows(
                "SELECT id FROM online_games WHERE status IN ('over', 'aborted') AND library='' ORDER BY created", ()
            )
        ]


class SqliteStore(GameStore):
    """The games in the library's own SQLite file: one server process. WAL with synchronous=FULL: a move is
    on the disk before it is answered or announced, so neither a killed server process nor a power cut of
    its machine loses a move a player was told of. The commit waits for the disk, so the server commits on a
    thread, one transaction for every move that came meanwhile (a group commit: the disk's wait is shared);
    the WAL is copied into the database by a thread of its own (checkpoints) every CHECKPOINT seconds."""

    waits = True
    CHECKPOINT = 1.0

    def __init__(self, root: Path) -> None:
        super().__init__()
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / DB_NAME
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA wal_autocheckpoint=0")  # (checkpoints: _checkpoints, on its thread)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            migrate(lambda sql, args: [dict(r) for r in self.db.execute(sql, args).fetchall()])
        except BaseException:
            self.db.execute("ROLLBACK")
            self.db.close()
            raise
        self.db.execute("COMMIT")
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoints, name="online-checkpoint", daemon=True)
        self._checkpointer.start()

    def _checkpoints(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        try:
            while not self._stop.wait(self.CHECKPOINT):
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # (never waits for the writer, nor it for this)
        except sqlite3.Error:
            pass  # (the library's own connections checkpoint too)
        finally:
            db.close()

    def close(self) -> None:
        self._stop.set()
        self._checkpointer.join(10)
        with self.lock:
            self.db.close()

    def _rows(self, sql: str, args: tuple[object, ...]) -> list[Row]:
        return [dict(r) for r in self.db.execute(sql, args)]

    def _run(self, steps: list[Step], changes: list[Change]) -> list[int]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            counts = [self.db.execute(sql, args).rowcount for sql, args in steps]
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return counts


OnlineStore = SqliteStore  # (the name the first version had)
