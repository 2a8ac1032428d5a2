"""The store's database: its tables, their version, and the migration of an older library."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from bao_host.record.store.rows import lenient_text, now

SCHEMA_VERSION = 4  # 2: the analyses table; 3: the lessons table; 4: the puzzle ratings (an older library is
# migrated when a writer opens it)
DB_NAME = "index.sqlite3"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS boards (
    board_id TEXT PRIMARY KEY, firmware TEXT NOT NULL DEFAULT '', first_seen REAL NOT NULL,
    last_seen REAL NOT NULL, port TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS players (name TEXT PRIMARY KEY, first_game INTEGER);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, board_id TEXT NOT NULL DEFAULT '',
    board_game TEXT NOT NULL DEFAULT '', source TEXT NOT NULL, south TEXT NOT NULL DEFAULT '',
    north TEXT NOT NULL DEFAULT '', place TEXT NOT NULL DEFAULT '', date TEXT NOT NULL DEFAULT '',
    ruleset TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}', first TEXT NOT NULL DEFAULT 'South',
    start TEXT NOT NULL, result TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT 'playing',
    firmware TEXT NOT NULL DEFAULT '', extra TEXT NOT NULL DEFAULT '{}', created REAL NOT NULL,
    updated REAL NOT NULL);
CREATE INDEX IF NOT EXISTS games_board ON games (board_id, board_game);
CREATE INDEX IF NOT EXISTS games_players ON games (south, north);
CREATE TABLE IF NOT EXISTS positions (key TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id), ply INTEGER NOT NULL, text TEXT NOT NULL,
    position TEXT NOT NULL REFERENCES positions(key), seq INTEGER, received REAL NOT NULL,
    PRIMARY KEY (game, ply));
CREATE INDEX IF NOT EXISTS moves_position ON moves (position);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, board_id TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL,
    game INTEGER, type TEXT NOT NULL, raw TEXT NOT NULL, received REAL NOT NULL,
    flag TEXT NOT NULL DEFAULT '', logged INTEGER NOT NULL DEFAULT 0,
    UNIQUE (board_id, stream, seq));
CREATE INDEX IF NOT EXISTS events_game ON events (game);
CREATE TABLE IF NOT EXISTS analyses (
    game INTEGER PRIMARY KEY REFERENCES games(id), plies INTEGER NOT NULL, json TEXT NOT NULL,
    created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS lessons (
    name TEXT NOT NULL, learner TEXT NOT NULL DEFAULT '', tasks INTEGER NOT NULL, tasks_done INTEGER NOT NULL,
    wrong INTEGER NOT NULL DEFAULT 0, done REAL, updated REAL NOT NULL, PRIMARY KEY (name, learner));
CREATE TABLE IF NOT EXISTS puzzle_solvers (
    name TEXT PRIMARY KEY, rating REAL NOT NULL, rd REAL NOT NULL, vol REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, solved INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS puzzle_ratings (
    puzzle TEXT PRIMARY KEY, rating REAL NOT NULL, rd REAL NOT NULL, vol REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, solved INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS puzzle_attempts (
    id INTEGER PRIMARY KEY, solver TEXT NOT NULL, puzzle TEXT NOT NULL, move TEXT NOT NULL,
    correct INTEGER NOT NULL, rating REAL NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS puzzle_attempts_solver ON puzzle_attempts (solver);
"""
SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,120}")  # a game key that can name a file in games/


def connect(path: Path, timeout: float) -> sqlite3.Connection:
    """A writer's connection to the database at path (WAL, every commit synced, foreign keys checked)."""
    db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    db.row_factory = sqlite3.Row
    db.text_factory = lenient_text
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def create(db: sqlite3.Connection) -> None:
    """The tables this schema has and the database lacks (all of them in a new database)."""
    db.executescript(SCHEMA)
    db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))


def migrate(db: sqlite3.Connection, root: Path) -> None:
    """Bring a library of an older schema to this one (its new tables were just made, empty). From 1: the
    analyses that `bao analyse` kept beside the transcripts (games/<key>.analysis.json) move into the
    analyses table (the files stay). From 2 and 3: the lessons table (a learner's progress, issue #28) and the
    puzzle tables start empty (made by `create`): nothing to move."""
    row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    version = int(row[0]) if row is not None and str(row[0]).isdigit() else SCHEMA_VERSION
    if version >= SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if version < 2:
            for gid, key, plies in db.execute(
                "SELECT id, key, (SELECT COUNT(*) FROM moves WHERE game=games.id) FROM games"
            ).fetchall():
                data = legacy_analysis(root, key)
                if data is not None:
                    db.execute(
                        "INSERT OR IGNORE INTO analyses VALUES (?,?,?,?)",
                        (gid, min(len(data["plies"]), plies), json.dumps(data), now()),
                    )
        db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise


def legacy_analysis(root: Path, key: str) -> dict[str, Any] | None:
    """games/<key>.analysis.json as schema 1 kept it, when it is readable; else None."""
    if not SAFE_KEY.fullmatch(key) or ".." in key:
        return None
    try:
        data = json.loads((root / "games" / (key + ".analysis.json")).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("plies"), list):
        return None
    return data
