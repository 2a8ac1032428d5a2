"""The online store `bao serve` was told of (bao_host.online.store: the interface and SQLite's; store_pg:
PostgreSQL's)."""

from __future__ import annotations

from pathlib import Path

from bao_host.online.store import GameStore, SqliteStore


def open_store(root: Path, db: str | None) -> GameStore:
    """SQLite in the library folder root, or PostgreSQL at db (a postgresql:// address)."""
    if db is None:
        return SqliteStore(root)
    from bao_host.online.store_pg import PostgresStore  # (psycopg only when asked for)

    return PostgresStore(db)
