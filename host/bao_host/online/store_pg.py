"""The online games on PostgreSQL (`bao serve --db postgresql://...`): several server processes share them.

The same tables and SQL as SQLite's (bao_host.online.store); psycopg 3 runs them. Each write announces
what it changed with pg_notify in its own transaction, so the announcement goes out when (and only if) it
commits, on the channel CHANNEL: {"o": origin, "g": game, "k": kind, "p": ply, "m": [[ply, move, received],
...]}, origin being the store that wrote (a process ignores its own), m the moves stored (a follower
needs no query for them). listen() holds a second connection that LISTENs; once it listens, at the start
and after a lost connection, it reports ANY_GAME (whatever came before is read from the tables)."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from bao_host.online.store import ANY_GAME, Change, GameStore, OnChange, Row, Step, locked, migrate

try:
    import psycopg
    from psycopg.rows import dict_row
except ImportError:  # (an optional dependency: SQLite needs none)
    psycopg = None  # type: ignore[assignment]

CHANNEL = "bao_online"
RETRY = 1.0  # seconds between two attempts to listen again
SCHEMA_LOCK = 0x62616F  # an advisory lock: two processes starting at once create the tables once


class PgError(Exception):
    """PostgreSQL is not there, or refuses: one line for the user."""


def _sql(sql: str) -> Any:
    """SQLite's placeholders as psycopg's (no statement here has a literal '?')."""
    return sql.replace("?", "%s")


def connect(url: str, autocommit: bool = True) -> Any:
    if psycopg is None:
        raise PgError("--db postgresql://... needs psycopg: pip install 'bao-board[postgres]'")
    if not url.startswith(("postgresql://", "postgres://")):
        raise PgError(f"{url[:60]!r} is no PostgreSQL address (postgresql://USER@HOST/DB)")
    try:
        return psycopg.connect(url, autocommit=autocommit, row_factory=dict_row, connect_timeout=10)
    except psycopg.Error as e:
        raise PgError(f"could not connect to PostgreSQL: {str(e).strip().splitlines()[0]}") from None


class PostgresStore(GameStore):
    shared = True

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.origin = secrets.token_hex(6)  # this store's name in its announcements
        self.db = connect(url)
        try:
            with self.db.transaction():
                self.db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                migrate(self._ddl)
        except BaseException:
            self.db.close()
            raise

    def _ddl(self, sql: str, args: tuple[object, ...]) -> list[Row]:
        """One statement of the schema's migration (SQLite's REAL is PostgreSQL's DOUBLE PRECISION)."""
        if sql.startswith("CREATE"):
            sql = sql.replace("REAL", "DOUBLE PRECISION")
        cur = self.db.execute(_sql(sql), args)
        rows: list[Row] = cur.fetchall() if cur.description else []
        return rows

    @locked
    def close(self) -> None:
        self.db.close()

    def _conn(self) -> Any:
        if self.db.closed or self.db.broken:  # (the database restarted: connect again)
            self.db = connect(self.url)
        return self.db

    def _rows(self, sql: str, args: tuple[object, ...]) -> list[Row]:
        rows: list[Row] = self._conn().execute(_sql(sql), args).fetchall()
        return rows

    def _run(self, steps: list[Step], changes: list[Change]) -> list[int]:
        db = self._conn()
        counts = []
        with db.transaction():
            with db.cursor() as cur:
                for sql, args in steps:
                    cur.execute(_sql(sql), args)
                    counts.append(cur.rowcount)
                for gid, kind, ply, moved in changes:
                    said = json.dumps({"o": self.origin, "g": gid, "k": kind, "p": ply, "m": moved})
                    cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, said))
        return counts

    async def listen(self, on_change: OnChange) -> None:
        assert psycopg is not None
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    # what changed while nobody listened: after a lost connection, and at the start too (a
                    # process started again serves its clients at once: a game read before its LISTEN, a move
                    # another process stored meanwhile, and that game waited for a next move that never came)
                    on_change(ANY_GAME, "", 0, [])
                    async for n in conn.notifies():
                        self._heard(n.payload, on_change)
            except psycopg.OperationalError:
                await asyncio.sleep(RETRY)

    def _heard(self, payload: str, on_change: OnChange) -> None:
        try:
            d = json.loads(payload)
            if d["o"] != self.origin:
                on_change(str(d["g"]), str(d["k"]), int(d["p"]), [(int(p), str(m), float(t)) for p, m, t in d["m"]])
        except (ValueError, KeyError, TypeError):
            pass  # (not one of ours: another program on the channel)
