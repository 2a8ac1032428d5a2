"""The game store: every game the host has seen, in a data directory.

Layout of the data directory (``--data DIR``; the platform's user data folder by default)::

    index.sqlite3            SQLite (WAL): boards, games, players, moves, positions, events, the engine's
                             analyses of games (`bao analyse`)  -- the authority
    games/<key>.txt          the game's transcript in Donkers notation with its header
    games/<key>.jsonl        every event received for the game, one JSON object a line
    boards/<board>.jsonl     events of a board that belong to no game (errors, notices before a game)

Crash safety: each received event is applied in ONE SQLite transaction (synchronous=FULL) keyed by
(board id, game id, sequence number), so an event seen twice is stored once, and a kill at any instant
leaves either the whole event or none of it. The transcript and the JSON-lines file are derived from the
database: the transcript is rewritten atomically (temporary file, fsync, rename) after every change and
the JSON-lines file is appended after the commit; `Store.open` repairs both from the database, so a crash
between the commit and the file writes loses nothing and duplicates nothing. Corrupt or half-written
files are reported (``Store.problems``) and repaired or set aside; they never stop the store.

Writers and readers: `Store(root)` writes; `Store(root, readonly=True)` (`bao games`, `bao game`, `bao
export`) opens the database read-only and changes nothing, whatever it finds. Only the holder of the library's
lock (record/lock.py: `bao log` for its whole run, any other writer while it opens the store) repairs the
derived files, and only it sets a database aside, and only when SQLite's integrity check fails. Errors are
classified (`StoreBusy`: another process holds SQLite's lock past the busy timeout; `StoreReadOnly`;
`StoreFull`; `StoreDamaged`): none of the first three is damage, each is a one-line message and the
operation can be retried when the cause is gone.

Recovery keeps what it had: the event logs (games/<key>.jsonl, boards/<board>.jsonl) hold every event with
its board id, epoch and sequence number, so a database rebuilt from the transcripts gets its events, its
boards and the resume point back from them; a database that lost commits (its WAL cut short) is completed
from the transcripts and event logs instead of overwriting them; a damaged or missing event log is written
again from the database.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from bao import core, kuu, notation, position_json

from bao_host.record.lock import LibraryLock, LockHeld, pid_alive
from bao_host.record.textcheck import TextError, check_headers, check_name, loads_object

SCHEMA_VERSION = 2  # 2: the analyses table (a library of version 1 is migrated when a writer opens it)
DB_NAME = "index.sqlite3"

_SCHEMA = """
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
"""
_SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,120}")  # a game key that can name a file in games/

HEADER_ORDER = ("South", "North", "place", "date", "ruleset", "takasia", "options", "first", "result",
                "winner", "board", "board game", "firmware")


# An event's effect: runs inside the event's transaction, returns (game id or None, flag).
Op = Callable[[sqlite3.Connection], tuple[int | None, str]]


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


def classify(e: BaseException, where: Path | str = "") -> StoreError:
    """The StoreError an OSError or sqlite3.Error means (busy, read-only, full, damaged, other), one line."""
    if isinstance(e, StoreError):
        return e
    at = f"{where}: " if where else ""
    if isinstance(e, sqlite3.Error):
        code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
        if code in _BUSY:
            return StoreBusy(f"{at}the game library is busy (another process holds its database's lock): "
                             "try again in a moment")
        if code in _READONLY:
            return StoreReadOnly(f"{at}the game library cannot be written (read-only): {e}")
        if code == sqlite3.SQLITE_CANTOPEN:  # (its -wal and -shm files cannot be made: a read-only folder)
            return StoreReadOnly(f"{at}the game library cannot be written or opened ({e}): is its folder "
                                 "read-only?")
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


def _guarded(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """SQLite's and the file system's errors leave a store method as the StoreError they mean."""

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except (sqlite3.Error, OSError) as e:
            raise classify(e) from e

    return run


def _reading(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """A read whose stored data does not parse (damaged pages that SQLite did not notice): StoreDamaged."""

    guarded = _guarded(fn)

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return guarded(*args, **kwargs)
        except (ValueError, KeyError, IndexError, TypeError, core.BaoError) as e:
            raise StoreDamaged(f"the game library holds data that cannot be read ({type(e).__name__}: {e}): "
                               "the next `bao log` checks the database and rebuilds it if it is damaged") from e

    return run


@dataclass
class Game:
    id: int
    key: str
    board_id: str
    board_game: str
    source: str
    south: str
    north: str
    place: str
    date: str
    ruleset: str
    options: dict[str, Any]
    first: str
    start: str
    result: str
    status: str
    firmware: str
    extra: dict[str, str]
    created: float
    updated: float
    plies: list[str] = field(default_factory=list)

    def rules(self) -> core.Rules:
        return core.Rules(self.ruleset, **self.options)

    def start_position(self) -> core.Position:
        return position_json.loads(self.start)

    def headers(self) -> dict[str, str]:
        """The transcript header (Donkers notation) of the game."""
        h: dict[str, str] = {"South": self.south or "?", "North": self.north or "?"}
        if self.place:
            h["place"] = self.place
        h["date"] = self.date or "?"
        h["ruleset"] = self.ruleset
        opts = dict(self.options)
        if "takasia" in opts:
            h["takasia"] = "yes" if opts.pop("takasia") else "no"
        elif self.ruleset == core.ZANZIBAR:
            h["takasia"] = "yes"
        if opts:
            h["options"] = json.dumps(opts, sort_keys=True)
        if self.first != "South":
            h["first"] = self.first
        h["result"] = self.result or "*"
        if self.board_id:
            h["board"] = self.board_id
            h["board game"] = self.board_game
        if self.firmware:
            h["firmware"] = self.firmware
        for k, v in self.extra.items():
            if k not in h and k != COMMENTS and not (k == "comments" and self._legacy_comments()):
                h[k] = str(v)
        return h

    def _legacy_comments(self) -> dict[int, str]:
        """Comments stored by an older version under "comments", where an imported header may be too: a game
        imported since holds its move comments under COMMENTS (if none, {}), and its "comments" is a header."""
        return {} if COMMENTS in self.extra else _comments(self.extra.get("comments"))

    def comments(self) -> dict[int, str]:
        return _comments(self.extra.get(COMMENTS)) if COMMENTS in self.extra else self._legacy_comments()

    def transcript(self) -> str:
        return notation.format_transcript(self.headers(), self.plies, self.comments())


COMMENTS = "_comments"  # the key of the move comments in a game's `extra` (a header key never starts with _)


def _comments(raw: object) -> dict[int, str]:
    """Move comments as stored (a JSON object, move number -> text); {} when raw is anything else."""
    if not isinstance(raw, str):
        return {}
    obj = loads_object(raw)
    try:
        return {int(k): str(v) for k, v in obj.items()}
    except ValueError:
        return {}


@dataclass
class Ingest:
    """What happened to one received event."""

    duplicate: bool
    game: int | None = None
    flag: str = ""


class _Damage(Exception):
    """The integrity check failed (its first finding)."""


class DamagedRow(StoreDamaged):
    """A game's row holds text that is not UTF-8 (a damaged page that SQLite's integrity check does not see):
    that game cannot be read; the others can."""

    def __init__(self, game: int, columns: list[str]) -> None:
        self.game, self.columns = game, columns
        super().__init__(f"game {game} is damaged (its {', '.join(columns)} cannot be read): the next `bao log` "
                         "rebuilds it from its transcript and event log")


def _lenient_text(raw: bytes) -> str:
    """A TEXT value as Python text: bytes that are not UTF-8 (damage) become lone surrogates, which
    `_unreadable` finds, instead of an error that would stop every query touching the row."""
    return raw.decode("utf-8", "surrogateescape")


def _unreadable(value: object) -> bool:
    """A text read through `_lenient_text` that held bytes which are not UTF-8."""
    return isinstance(value, str) and any("\udc80" <= c <= "\udcff" for c in value)


def _damaged_columns(row: sqlite3.Row) -> list[str]:
    return [k for k in row.keys() if _unreadable(row[k])]


def _event_record(r: sqlite3.Row) -> str:
    """An event as a line of its event log: with its board id, epoch and sequence number, all a database
    rebuilt from the files needs."""
    rec: dict[str, Any] = {"t": round(r["received"], 3), "board": r["board_id"], "stream": r["stream"],
                           "seq": r["seq"], "type": r["type"], "raw": r["raw"]}
    if r["flag"]:
        rec["flag"] = r["flag"]
    return json.dumps(rec)


def _like(text: str) -> str:
    """text for a LIKE pattern (ESCAPE '\\'), matched as itself: % and _ are no wildcards."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("bao-board", appauthor=False))


def _now() -> float:
    return time.time()


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)[:60] or "_"


def pos_key(p: core.Position) -> str:
    d = bytes(p.d)
    if d[kuu.MUST:] == bytes((core.NONE, 0)):
        d = d[:kuu.MUST]  # no forced capture, nothing to place (M19, M22): the key libraries made before them use
    return d.hex() + ("" if not p.rules.options() else json.dumps(p.rules.options(), sort_keys=True))


def atomic_write(path: Path, text: str) -> None:
    """Write text to path so that a crash leaves the old file or the new one, never half of either. The
    temporary file carries the writer's pid: a repair removes it only when that process is gone."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _game_columns(key: str, source: str, start: core.Position, headers: dict[str, str], board_id: str = "",
                  board_game: str = "", firmware: str = "") -> dict[str, Any]:
    """The text columns of a games row (in the table's order, up to `extra`) for a game with this start and
    transcript header; StoreError when the header is not one the library stores."""
    h = {k.lower(): v for k, v in headers.items()}
    known = {"south", "north", "place", "date", "ruleset", "takasia", "options", "first", "result",
             "winner", "board", "board game", "firmware"}
    extra = {k: v for k, v in headers.items() if k.lower() not in known}
    try:
        check_headers(headers)
    except TextError as e:
        raise StoreError(f"not stored: {e}") from None
    south = h.get("south", "").strip()
    north = h.get("north", "").strip()
    result = h.get("result", "").strip()
    if result in ("*", "?"):
        result = ""
    if not result and h.get("winner"):
        result = h["winner"].strip() + " wins"
    return {"key": key, "board_id": board_id, "board_game": board_game, "source": source,
            "south": "" if south == "?" else south, "north": "" if north == "?" else north,
            "place": h.get("place", ""), "date": h.get("date", "").strip() or time.strftime("%Y-%m-%d"),
            "ruleset": start.rules.ruleset, "options": json.dumps(start.rules.options(), sort_keys=True),
            "first": "North" if start.to_move == core.NORTH else "South",
            "start": position_json.dumps(start, False), "result": result,
            "status": "over" if result else "playing", "firmware": firmware or h.get("firmware", ""),
            "extra": json.dumps(extra)}


class Store:
    """The game store in `root`. Not thread-safe: one logger process writes it (others may read).

    readonly=True: open an existing library and change nothing (StoreError when there is none). A writer
    takes the library's lock (`lock`, held by the caller; else taken while opening, when it is free) and
    only then checks the database's integrity and, when `repair`, the derived files."""

    busy_timeout = 10.0  # seconds SQLite waits for another process's lock (each attempt)
    busy_attempts = 3  # attempts at opening a busy library, each reported

    def __init__(self, root: Path | str | None = None, report: Callable[[str], None] | None = None,
                 repair: bool = True, readonly: bool = False, lock: LibraryLock | None = None) -> None:
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

    @property
    def holds_lock(self) -> bool:
        return self.lock is not None and self.lock.held

    def _take_lock(self) -> None:
        lock = LibraryLock(self.root)
        try:
            lock.acquire("a library command")
        except LockHeld:
            return  # a logger runs: write through SQLite only, leave repairs to it
        self.lock, self._own_lock = lock, True

    def _drop_lock(self) -> None:
        if self._own_lock and self.lock is not None:
            self.lock.release()
            self.lock, self._own_lock = None, False

    # -- opening and checking -------------------------------------------------------------------------
    def _problem(self, msg: str) -> None:
        self.problems.append(msg)
        if self._report is not None:
            self._report(msg)

    def _connect(self, path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, timeout=self.busy_timeout)
        db.row_factory = sqlite3.Row
        db.text_factory = _lenient_text
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _patiently(self, what: Callable[[], sqlite3.Connection]) -> sqlite3.Connection:
        """what(), tried again while the library is busy (each try waits busy_timeout); StoreBusy at last."""
        for attempt in range(1, self.busy_attempts + 1):
            try:
                return what()
            except sqlite3.Error as e:
                err = classify(e, self.root)
                if not isinstance(err, StoreBusy) or attempt == self.busy_attempts:
                    raise err from e
                self._problem(f"{self.root}: the game library is busy (another process holds its lock): "
                              f"waiting (attempt {attempt + 1} of {self.busy_attempts})")
        raise AssertionError("unreachable")

    def _open_reader(self) -> sqlite3.Connection:
        path = self.root / DB_NAME
        if not path.exists() and (self.root / "games").is_dir():
            raise StoreError(f"the game library in {self.root} has no database ({DB_NAME}): the next `bao log`, "
                             "`bao import` or `bao name` rebuilds it from the transcripts and event logs")
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
                db.text_factory = _lenient_text
                db.execute("SELECT COUNT(*) FROM games").fetchone()  # reads the schema: busy or damaged here
            except sqlite3.OperationalError as e:
                db.close()
                if "no such table" not in str(e):
                    raise
                # (a database whose every commit was in its WAL file, that file deleted: an empty file)
                raise StoreError(f"the game library in {self.root} has an empty database ({DB_NAME} holds no "
                                 "games table: its -wal file lost?): nothing was changed; the next `bao log` "
                                 "(or `bao import`, `bao name`) restores it from the transcripts and event "
                                 "logs") from None
            except BaseException:
                db.close()
                raise
            return db

        try:
            return self._patiently(connect)
        except StoreDamaged as e:
            raise StoreDamaged(f"{e}: nothing was changed; the next `bao log` (or `bao import`, `bao name`) "
                               "sets it aside and rebuilds it from the transcripts and event logs") from None

    def _open_db(self) -> sqlite3.Connection:
        path = self.root / DB_NAME

        def connect() -> sqlite3.Connection:
            db = self._connect(path)
            try:
                if self.holds_lock:
                    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
                    if ok != "ok":
                        raise _Damage(str(ok))
                db.executescript(_SCHEMA)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                self._migrate(db)
            except BaseException:
                db.close()
                raise
            return db

        try:
            return self._patiently(connect)
        except (_Damage, StoreDamaged) as e:
            if not self.holds_lock:
                raise StoreDamaged(f"{self.root}: the game library's database is damaged ({e}); it is in use by "
                                   "a logger, which sets it aside and rebuilds it when it starts again") from None
            return self._set_aside(path, str(e))

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Bring a library of an older schema to this one (its new tables were just made, empty). From 1: the
        analyses that `bao analyse` kept beside the transcripts (games/<key>.analysis.json) move into the
        analyses table (the files stay)."""
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        version = int(row[0]) if row is not None and str(row[0]).isdigit() else SCHEMA_VERSION
        if version >= SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            if version < 2:
                for gid, key, plies in db.execute(
                        "SELECT id, key, (SELECT COUNT(*) FROM moves WHERE game=games.id) FROM games").fetchall():
                    data = self._legacy_analysis(key)
                    if data is not None:
                        db.execute("INSERT OR IGNORE INTO analyses VALUES (?,?,?,?)",
                                   (gid, min(len(data["plies"]), plies), json.dumps(data), _now()))
            db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    def _legacy_analysis(self, key: str) -> dict[str, Any] | None:
        """games/<key>.analysis.json as schema 1 kept it, when it is readable; else None."""
        if not _SAFE_KEY.fullmatch(key) or ".." in key:
            return None
        try:
            data = json.loads((self.root / "games" / (key + ".analysis.json")).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("plies"), list):
            return None
        return data

    def _set_aside(self, path: Path, why: str) -> sqlite3.Connection:
        """The database failed its integrity check: keep it aside (nothing is deleted) and rebuild."""
        aside = path.with_name(f"{DB_NAME}.corrupt-{int(_now())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        self._problem(f"{path}: corrupt database ({why}): set aside as {aside.name},"
                      " rebuilding from the transcripts and event logs")
        db = self._connect(path)
        db.executescript(_SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        self.db = db
        self._rebuild_from_files()
        return db

    def _rebuild_from_files(self) -> None:
        for path in sorted((self.root / "games").glob("*.txt")):
            self._restore_game(path.stem)
        for path in sorted((self.root / "boards").glob("*.jsonl")):
            self._restore_events(path, None)

    def _restore_game(self, key: str) -> None:
        """A game the database does not have, from its transcript and its event log (board ids, events and
        with them the resume point)."""
        path = self.root / "games" / (key + ".txt")
        try:
            text = path.read_text(encoding="utf-8")
            t = notation.parse_transcript(text)
            h = {k.lower(): v for k, v in t.headers.items()}
            board_id = h.get("board", "").strip()
            source = "board" if board_id else "rebuilt"
            g = self._import(text, key=key, source=source, board_id=board_id,
                             board_game=h.get("board game", "").strip(), write=False)
        except (StoreError, OSError, UnicodeError, core.BaoError) as e:
            self._problem(f"{path}: cannot be rebuilt: {e}")
            return
        self._restore_events(self.events_path(key), g.id)

    def _restore_events(self, path: Path, game: int | None) -> int:
        """Insert the events of an event log that the database does not hold; how many were missing."""
        if not path.exists():
            return 0
        rows = []
        for line in path.read_bytes().split(b"\n"):
            o = loads_object(line.decode("utf-8", "replace"))
            if not {"board", "stream", "seq", "type", "raw"} <= o.keys():
                continue
            try:
                rows.append((str(o["board"]), str(o["stream"]), int(o["seq"]), game, str(o["type"]),
                             str(o["raw"]), float(o.get("t", 0.0)), str(o.get("flag", ""))))
            except (TypeError, ValueError):
                continue
        n = 0
        with self._tx() as db:
            for r in rows:
                cur = db.execute("INSERT OR IGNORE INTO events (board_id, stream, seq, game, type, raw, received,"
                                 " flag, logged) VALUES (?,?,?,?,?,?,?,?,1)", r)
                n += cur.rowcount
                db.execute("INSERT OR IGNORE INTO boards (board_id, first_seen, last_seen) VALUES (?,?,?)",
                           (r[0], r[6], r[6]))
        return n

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.db.close()
        self._drop_lock()

    def __enter__(self) -> Store:
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

    @_guarded
    def repair(self) -> None:
        """Bring the database and the derived files in line; report what was wrong. Only the holder of the
        library's lock repairs: a reader or a second writer never changes files another process may write."""
        if not self.holds_lock:
            raise StoreError("only the holder of the library's lock repairs it")
        self._remove_stale_temporaries()
        self._rebuild_damaged_rows()
        known = {r["key"]: int(r["id"]) for r in self.db.execute("SELECT id, key FROM games").fetchall()}
        # 1. what the files hold and the database lost (a WAL cut short, a database rebuilt)
        for path in sorted((self.root / "games").glob("*.txt")):
            if path.stem not in known:
                self._problem(f"{path}: transcript not in the database: restored from it and its event log")
                self._restore_game(path.stem)
            else:
                self._complete_game(known[path.stem], path)
        # 2. the derived files from the database
        for row in self.db.execute("SELECT id FROM games ORDER BY id").fetchall():
            try:
                game = self.game(row["id"])
            except DamagedRow:
                continue  # (said by _rebuild_damaged_rows: it could not be rebuilt; the others go on)
            path = self.transcript_path(game)
            want = game.transcript()
            try:
                have = path.read_text(encoding="utf-8") if path.exists() else None
            except (OSError, UnicodeError) as e:
                have = f"<unreadable: {e}>"
            if have != want:
                if have is not None:
                    self._problem(f"{path}: transcript differs from the database (corrupt or half-written): "
                                  "rewritten")
                atomic_write(path, want)
            self._check_jsonl(self.events_path(game.key), game.id)
        for path in (self.root / "boards").glob("*.jsonl"):
            self._check_jsonl(path, None)
        self._flush_event_logs()

    def _rebuild_damaged_rows(self) -> None:
        """Rows holding text that is not UTF-8 pass SQLite's integrity check (a damaged page of text): each
        damaged column of a game, and each damaged move, is rebuilt from the game's transcript (with the
        board id and board game its header took from the event log); the rest of the row is kept. A game
        whose transcript cannot give the text back stays as it is, said, and skipped by readers."""
        rows = self.db.execute("SELECT * FROM games ORDER BY id").fetchall()
        damaged = []
        for r in rows:
            moves = self.db.execute("SELECT ply, text FROM moves WHERE game=? ORDER BY ply", (r["id"],)).fetchall()
            bad_plies = [int(m["ply"]) for m in moves if _unreadable(m["text"])]
            if _damaged_columns(r) or bad_plies:
                damaged.append((r, bad_plies))
        if not damaged:
            return
        claimed = {r["key"] for r in rows if not _unreadable(r["key"])}
        spare = [p for p in sorted((self.root / "games").glob("*.txt")) if p.stem not in claimed]
        for r, bad_plies in damaged:
            cols = _damaged_columns(r) + (["moves"] if bad_plies else [])
            why = self._rebuild_row(r, bad_plies, spare)
            key = "?" if _unreadable(r["key"]) else r["key"]
            if why:
                self._problem(f"game {r['id']} ({key}) is damaged (its {', '.join(cols)} cannot be read) and "
                              f"cannot be rebuilt: {why}; the other games are kept and shown")
            else:
                self._problem(f"game {r['id']} ({key}) was damaged (its {', '.join(cols)} could not be read): "
                              "rebuilt from its transcript and event log")

    def _rebuild_row(self, r: sqlite3.Row, bad_plies: list[int], spare: list[Path]) -> str:
        """Rebuild the damaged text of games row r and of its moves `bad_plies`; '' when done, else why not.
        spare: the transcripts no readable row claims (the damaged row's own when its key is damaged)."""
        if not _unreadable(r["key"]):
            path = self.root / "games" / (r["key"] + ".txt")
        else:
            candidates = spare
            if not _unreadable(r["board_id"]) and not _unreadable(r["board_game"]) and r["board_id"]:
                candidates = [p for p in spare if self._transcript_names(p, r["board_id"], r["board_game"])]
            if len(candidates) != 1:
                return f"its key is damaged and {len(candidates)} transcripts could be its own"
            path = candidates[0]
        try:
            t = notation.parse_transcript(path.read_text(encoding="utf-8"))
            positions = notation.replay(t)
        except (OSError, UnicodeError, core.BaoError, notation.ReplayError) as e:
            return f"its transcript {path.name} cannot be read ({e})"
        h = {k.lower(): v.strip() for k, v in t.headers.items()}
        board_id = h.get("board", "")
        fresh = _game_columns(path.stem, "board" if board_id else "rebuilt", positions[0], t.headers, board_id,
                              h.get("board game", ""))
        fresh["extra"] = json.dumps({**loads_object(fresh["extra"]),
                                     COMMENTS: json.dumps({str(k): v for k, v in t.comments.items()})})
        if any(p > len(t.plies) for p in bad_plies):
            return f"its transcript {path.name} holds fewer moves than the database"
        with self._tx() as db:
            for col in _damaged_columns(r):
                if col in fresh:
                    db.execute(f"UPDATE games SET {col}=? WHERE id=?", (fresh[col], r["id"]))
            for ply in bad_plies:
                db.execute("UPDATE moves SET text=? WHERE game=? AND ply=?", (t.plies[ply - 1], r["id"], ply))
        return ""

    def _transcript_names(self, path: Path, board_id: str, board_game: str) -> bool:
        """Whether the transcript at path is the one of the board's game (its header says so)."""
        try:
            h = {k.lower(): v.strip() for k, v in
                 notation.parse_transcript(path.read_text(encoding="utf-8")).headers.items()}
        except (OSError, UnicodeError, core.BaoError, notation.ReplayError):
            return False
        return h.get("board") == board_id and h.get("board game") == board_game

    def _remove_stale_temporaries(self) -> None:
        for path in list((self.root / "games").glob("*.tmp")) + list((self.root / "boards").glob("*.tmp")):
            pid = path.name.split(".")[-2] if path.name.count(".") >= 2 else ""
            if pid.isdigit() and int(pid) != os.getpid() and pid_alive(int(pid)):
                continue  # another writer's file in flight (`bao name` while the logger starts)
            self._problem(f"{path}: half-written file left by a crash: removed")
            with contextlib.suppress(OSError):
                path.unlink()

    def _complete_game(self, gid: int, path: Path) -> None:
        """When the game's event log holds events the database lost, the database lost commits: take them
        back from the event log, and the moves from the transcript (written before the event log), instead
        of cutting the transcript to what the database kept."""
        missing = self._restore_events(self.events_path(path.stem), gid)
        if not missing:
            return
        g = self.game(gid)
        try:
            t = notation.parse_transcript(path.read_text(encoding="utf-8"))
            positions = notation.replay(t)
        except (OSError, UnicodeError, core.BaoError, notation.ReplayError) as e:
            self._problem(f"{path}: the database lost {missing} events of this game, and its transcript "
                          f"cannot give the moves back ({e}): kept as {path.name}.lost")
            with contextlib.suppress(OSError):
                os.replace(path, path.with_name(path.name + ".lost"))
            return
        if len(t.plies) > len(g.plies) and t.plies[:len(g.plies)] == g.plies \
                and positions[0].d == g.start_position().d:
            with self._tx() as db:
                for i in range(len(g.plies), len(t.plies)):
                    self._insert_move(db, gid, i + 1, t.plies[i], positions[i + 1], None)
                result = t.headers.get("result", "").strip()
                if result not in ("", "*", "?"):
                    db.execute("UPDATE games SET result=?, status='over' WHERE id=?", (result, gid))
            self._problem(f"{path}: the database had lost {missing} events and {len(t.plies) - len(g.plies)} "
                          "moves of this game: restored from its event log and transcript")
        else:
            self._problem(f"{path}: the database had lost {missing} events of this game: restored from its "
                          "event log")

    def _check_jsonl(self, path: Path, game: int | None) -> None:
        """An event log holds every event the database logged for it: unreadable lines are dropped (the
        database keeps the event), missing ones (a deleted or damaged file) written again."""
        data = b""
        if path.exists():
            try:
                data = path.read_bytes()
            except OSError as e:
                self._problem(f"{path}: unreadable: {e}")
                return
        good: list[bytes] = []
        present: set[tuple[str, str, int]] = set()
        bad = 0
        lines = data.split(b"\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                o = json.loads(line)
                if not isinstance(o, dict):
                    raise ValueError("not an object")
            except ValueError:
                bad += 1
                last = i == len(lines) - 1
                what = "half-written line" if last else "not JSON"
                self._problem(f"{path} line {i + 1}: {what}: dropped (the database keeps the event)")
                continue
            good.append(line)
            with contextlib.suppress(KeyError, TypeError, ValueError):
                present.add((str(o["board"]), str(o.get("stream", "")), int(o["seq"])))
        if game is not None:
            rows = self.db.execute("SELECT e.* FROM events e WHERE e.game=? AND e.logged=1 ORDER BY e.id",
                                   (game,)).fetchall()
        else:
            rows = [r for r in self.db.execute("SELECT * FROM events WHERE game IS NULL AND logged=1 ORDER BY id")
                    if self.root / "boards" / (_safe(r["board_id"]) + ".jsonl") == path]
        missing = [r for r in rows if (r["board_id"], r["stream"], r["seq"]) not in present]
        if missing:
            self._problem(f"{path}: {len(missing)} events missing (a deleted or damaged event log): written "
                          "again from the database")
        if bad or missing:
            text = "".join(g.decode("utf-8", "replace") + "\n" for g in good)
            atomic_write(path, text + "".join(_event_record(r) + "\n" for r in missing))

    # -- paths ----------------------------------------------------------------------------------------
    def transcript_path(self, game: Game) -> Path:
        return self.root / "games" / (game.key + ".txt")

    def events_path(self, key: str) -> Path:
        return self.root / "games" / (key + ".jsonl")

    # -- boards ---------------------------------------------------------------------------------------
    @_guarded
    def board_seen(self, board_id: str, firmware: str = "", port: str = "") -> None:
        now = _now()
        with self._tx() as db:
            db.execute(
                "INSERT INTO boards (board_id, firmware, first_seen, last_seen, port) VALUES (?,?,?,?,?) "
                "ON CONFLICT(board_id) DO UPDATE SET firmware=excluded.firmware,"
                " last_seen=excluded.last_seen, port=excluded.port", (board_id, firmware, now, now, port))

    @_guarded
    def known_boards(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM boards ORDER BY last_seen DESC").fetchall()

    # -- games ----------------------------------------------------------------------------------------
    def _row_to_game(self, row: sqlite3.Row) -> Game:
        """The game of a games row; DamagedRow when the row or one of its moves holds unreadable text."""
        plies = [r["text"] for r in self.db.execute(
            "SELECT text FROM moves WHERE game=? ORDER BY ply", (row["id"],))]
        damaged = _damaged_columns(row) + (["moves"] if any(_unreadable(p) for p in plies) else [])
        if damaged:
            raise DamagedRow(int(row["id"]), damaged)
        return Game(id=row["id"], key=row["key"], board_id=row["board_id"], board_game=row["board_game"],
                    source=row["source"], south=row["south"], north=row["north"], place=row["place"],
                    date=row["date"], ruleset=row["ruleset"], options=loads_object(row["options"]),
                    first=row["first"], start=row["start"], result=row["result"], status=row["status"],
                    firmware=row["firmware"], extra=loads_object(row["extra"]), created=row["created"],
                    updated=row["updated"], plies=plies)

    @_reading
    def game(self, ref: int | str) -> Game:
        """A game by its number (as listed by `bao games`) or its key; StoreError if there is none."""
        row = None
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            row = self.db.execute("SELECT * FROM games WHERE id=?", (int(ref),)).fetchone()
        if row is None:
            row = self.db.execute("SELECT * FROM games WHERE key=?", (str(ref),)).fetchone()
        if row is None:
            raise StoreError(f"no game {ref} in {self.root} (see `bao games`)")
        try:
            return self._row_to_game(row)
        except DamagedRow:
            if self.readonly or not self.holds_lock:
                raise
        self._rebuild_damaged_rows()  # damaged while the logger ran: it rebuilds the row and goes on
        return self._row_to_game(self.db.execute("SELECT * FROM games WHERE id=?", (row["id"],)).fetchone())

    @_reading
    def find_board_game(self, board_id: str, board_game: str) -> Game | None:
        row = self.db.execute("SELECT * FROM games WHERE board_id=? AND board_game=?",
                              (board_id, board_game)).fetchone()
        return None if row is None else self._row_to_game(row)

    @_guarded
    def last_board_game(self, board_id: str) -> int | None:
        """The id of the newest game logged from board_id, None when it has none."""
        row = self.db.execute("SELECT id FROM games WHERE board_id=? ORDER BY id DESC LIMIT 1",
                              (board_id,)).fetchone()
        return None if row is None else int(row[0])

    @_reading
    def games(self, player: str | None = None, date: str | None = None, result: str | None = None,
              board: str | None = None, status: str | None = None) -> list[Game]:
        q = "SELECT * FROM games WHERE 1=1"
        args: list[Any] = []
        if player:
            q += " AND (south LIKE ? ESCAPE '\\' OR north LIKE ? ESCAPE '\\')"
            args += ["%" + _like(player) + "%"] * 2
        if date:
            q += " AND date LIKE ? ESCAPE '\\'"
            args.append(_like(date) + "%")
        if result:
            q += " AND result LIKE ? ESCAPE '\\'"
            args.append("%" + _like(result) + "%")
        if board:
            q += " AND board_id=?"
            args.append(board)
        if status:
            q += " AND status=?"
            args.append(status)
        q += " ORDER BY id"
        out = []
        for r in self.db.execute(q, args).fetchall():
            try:
                out.append(self._row_to_game(r))
            except DamagedRow as e:  # the others are still shown; this one is named
                self._problem(f"{e}; not listed")
        return out

    @_reading
    def positions(self, game_id: int) -> list[core.Position]:
        """The start position and the position after each stored move."""
        g = self.game(game_id)
        out = [g.start_position()]
        for r in self.db.execute("SELECT p.json FROM moves m JOIN positions p ON p.key = m.position "
                                 "WHERE m.game=? ORDER BY m.ply", (game_id,)):
            out.append(position_json.loads(r["json"]))
        if len(out) != len(g.plies) + 1:
            raise IndexError(f"game {game_id}: {len(g.plies)} moves but {len(out) - 1} positions")
        return out

    @_reading
    def current_position(self, game_id: int) -> core.Position:
        row = self.db.execute("SELECT p.json FROM moves m JOIN positions p ON p.key = m.position "
                              "WHERE m.game=? ORDER BY m.ply DESC LIMIT 1", (game_id,)).fetchone()
        if row is None:
            return self.game(game_id).start_position()
        return position_json.loads(row["json"])

    @_guarded
    def games_with_position(self, p: core.Position) -> list[tuple[int, int]]:
        """(game, ply) pairs where the position p arose."""
        return [(r["game"], r["ply"]) for r in self.db.execute(
            "SELECT game, ply FROM moves WHERE position=? ORDER BY game, ply", (pos_key(p),))]

    def _insert_game(self, db: sqlite3.Connection, key: str, source: str, start: core.Position,
                     headers: dict[str, str], board_id: str = "", board_game: str = "",
                     firmware: str = "") -> int:
        cols = _game_columns(key, source, start, headers, board_id, board_game, firmware)
        now = _now()
        cur = db.execute(
            "INSERT INTO games (key, board_id, board_game, source, south, north, place, date, ruleset,"
            " options, first, start, result, status, firmware, extra, created, updated)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (*cols.values(), now, now))
        gid = int(cur.lastrowid or 0)
        for name in (cols["south"], cols["north"]):
            if name:
                db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (name, gid))
        return gid

    def _insert_move(self, db: sqlite3.Connection, game: int, ply: int, text: str, p: core.Position,
                     seq: int | None) -> None:
        k = pos_key(p)
        db.execute("INSERT OR IGNORE INTO positions VALUES (?, ?)", (k, position_json.dumps(p, False)))
        db.execute("INSERT INTO moves VALUES (?,?,?,?,?,?)", (game, ply, text, k, seq, _now()))

    def _after_change(self, game_id: int) -> None:
        g = self.game(game_id)
        atomic_write(self.transcript_path(g), g.transcript())

    def _write_transcript(self, g: Game) -> None:
        """The transcript of g, written when the file is not what the database says."""
        path, want = self.transcript_path(g), g.transcript()
        try:
            if path.read_text(encoding="utf-8") == want:
                return
        except (OSError, UnicodeError):
            pass
        atomic_write(path, want)

    @_guarded
    def name_players(self, ref: int | str, south: str | None = None, north: str | None = None,
                     place: str | None = None) -> Game:
        g = self.game(ref)
        try:
            south, north, place = (None if v is None else check_name(w, v)
                                   for w, v in (("South's name", south), ("North's name", north),
                                                ("the place", place)))
        except TextError as e:
            raise StoreError(str(e)) from None
        with self._tx() as db:
            for col, val in (("south", south), ("north", north), ("place", place)):
                if val is not None:
                    db.execute(f"UPDATE games SET {col}=?, updated=? WHERE id=?", (val, _now(), g.id))
                    if col != "place" and val:
                        db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (val, g.id))
        self._after_change(g.id)
        return self.game(g.id)

    @_guarded
    def mark_abandoned(self, game_id: int) -> bool:
        """A game left unfinished for a new one (the terminal UI's `n`): status 'abandoned' instead of
        'playing'. False (nothing changed) when the game is over or abandoned already."""
        with self._tx() as db:
            changed = db.execute("UPDATE games SET status='abandoned', updated=? WHERE id=? AND status='playing'",
                                 (_now(), game_id)).rowcount
        return changed > 0

    @_guarded
    def import_text(self, text: str, key: str | None = None, source: str = "import",
                    names: dict[str, str] | None = None) -> Game:
        """Store a transcript after checking it by replay; StoreError names the first bad move."""
        return self._import(text, key, source, names)

    def _import(self, text: str, key: str | None = None, source: str = "import",
                names: dict[str, str] | None = None, board_id: str = "", board_game: str = "",
                write: bool = True) -> Game:
        try:
            t = notation.parse_transcript(text)
            check_headers(t.headers)
            positions = notation.replay(t)
        except (notation.ReplayError, core.BaoError, TextError) as e:
            raise StoreError(f"not imported: {e}") from None
        headers = {k: v for k, v in t.headers.items()}
        for k, v in (names or {}).items():
            try:
                headers[k.lower()] = check_name(f"{k}'s name", v)
            except TextError as e:
                raise StoreError(f"not imported: {e}") from None
        if "result" not in headers and "winner" not in headers:
            w = core.outcome(positions[-1])
            if w is not None:
                headers["result"] = ("South" if w == core.SOUTH else "North") + " wins"
        if key is None:
            import hashlib

            digest = hashlib.sha256(notation.format_transcript(t.headers, t.plies).encode()).hexdigest()[:10]
            key = "import-" + digest
            if self.db.execute("SELECT 1 FROM games WHERE key=?", (key,)).fetchone():
                have = self.game(key)
                self._write_transcript(have)  # (an import whose transcript write failed is tried again)
                raise StoreError(f"already in the library as {have.id}")
        with self._tx() as db:
            gid = self._insert_game(db, key, source, positions[0], headers, board_id, board_game)
            for i, text_ in enumerate(t.plies):
                self._insert_move(db, gid, i + 1, text_, positions[i + 1], None)
            extra = self.game_extra(db, gid)  # (always, {} too: a "comments" header is then no old comments)
            extra[COMMENTS] = json.dumps({str(k): v for k, v in t.comments.items()})
            db.execute("UPDATE games SET extra=? WHERE id=?", (json.dumps(extra), gid))
        if write:
            self._after_change(gid)
        return self.game(gid)

    def game_extra(self, db: sqlite3.Connection, gid: int) -> dict[str, str]:
        return dict(loads_object(db.execute("SELECT extra FROM games WHERE id=?", (gid,)).fetchone()[0]))

    # -- events from a board ----------------------------------------------------------------------------
    @_guarded
    def last_seq(self, board_id: str, stream: str) -> int:
        """The highest sequence number stored for a board's event stream (epoch), 0 if none: where a
        restarted logger resumes (docs/protocol.md)."""
        row = self.db.execute("SELECT MAX(seq) FROM events WHERE board_id=? AND stream=?",
                              (board_id, stream)).fetchone()
        return int(row[0] or 0)

    @_guarded
    def seen(self, board_id: str, stream: str, seq: int) -> bool:
        return self.db.execute("SELECT 1 FROM events WHERE board_id=? AND stream=? AND seq=?",
                               (board_id, stream, seq)).fetchone() is not None

    @_guarded
    def ingest(self, board_id: str, stream: str, seq: int, etype: str, raw: str,
               apply: Op | None = None) -> Ingest:
        """Record one sequenced event and apply its effect, atomically and at most once.

        `apply(db)` runs inside the transaction and returns (game id or None, flag); a non-empty flag
        marks the event as not applied (a move that does not follow, ...). Use the `op_*` helpers.
        A transcript that could not be written after a commit (disk full, ...) is written at the next call,
        duplicate or not: the board resends the event it did not see acknowledged."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM events WHERE board_id=? AND stream=? AND seq=?",
                          (board_id, stream, seq)).fetchone():
                duplicate = True
            else:
                duplicate = False
                game, flag = apply(db) if apply is not None else (None, "")
                db.execute("INSERT INTO events (board_id, stream, seq, game, type, raw, received, flag)"
                           " VALUES (?,?,?,?,?,?,?,?)", (board_id, stream, seq, game, etype, raw, _now(), flag))
        if not duplicate and game is not None:
            self._stale.add(game)
        for gid in sorted(self._stale):
            self._after_change(gid)
            self._stale.discard(gid)
        self._flush_event_logs()
        return Ingest(duplicate=True) if duplicate else Ingest(duplicate=False, game=game, flag=flag)

    @_guarded
    def log_unsequenced(self, board_id: str, raw: str, note: str = "") -> None:
        """Append a received frame that carries no sequence number (a notice, a bad line) to the board log."""
        rec = {"t": round(_now(), 3), "board": board_id, "raw": raw}
        if note:
            rec["note"] = note
        self._append(self.root / "boards" / (_safe(board_id or "unknown") + ".jsonl"), [json.dumps(rec)])

    def _append(self, path: Path, lines: list[str]) -> None:
        with open(path, "a", encoding="utf-8") as f:
            # A half-written last line (crash) would glue onto ours: start on a fresh line.
            if f.tell() > 0:
                with open(path, "rb") as r:
                    r.seek(-1, os.SEEK_END)
                    if r.read(1) != b"\n":
                        f.write("\n")
            f.write("".join(s + "\n" for s in lines))
            f.flush()
            os.fsync(f.fileno())

    def _flush_event_logs(self) -> None:
        """Append events committed to the database but not yet to their JSON-lines file."""
        rows = self.db.execute("SELECT e.*, g.key AS gkey FROM events e LEFT JOIN games g ON g.id = e.game "
                               "WHERE e.logged = 0 ORDER BY e.id").fetchall()
        if not rows:
            return
        by_path: dict[Path, list[sqlite3.Row]] = {}
        for r in rows:
            if r["gkey"]:
                path = self.events_path(r["gkey"])
            else:
                path = self.root / "boards" / (_safe(r["board_id"]) + ".jsonl")
            by_path.setdefault(path, []).append(r)
        for path, rs in by_path.items():
            present: set[tuple[str, str, int]] = set()
            if path.exists():  # after a crash between the append and the flag update
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        o = json.loads(line)
                        if "seq" in o:
                            present.add((o["board"], o.get("stream", ""), int(o["seq"])))
            recs = [_event_record(r) for r in rs if (r["board_id"], r["stream"], r["seq"]) not in present]
            if recs:
                self._append(path, recs)
            with self._tx() as db:
                db.executemany("UPDATE events SET logged=1 WHERE id=?", [(r["id"],) for r in rs])

    # -- the engine's analyses (`bao analyse`) -----------------------------------------------------------
    @_guarded
    def save_analysis(self, game_id: int, plies: int, data: dict[str, Any]) -> None:
        """Keep the analysis of the game's first `plies` plies (GameAnalysis.to_json()), replacing an older one."""
        if self.readonly:
            raise StoreReadOnly(f"{self.root}: opened for reading only")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is None:
                raise StoreError(f"no game {game_id} in {self.root} (see `bao games`)")
            db.execute("INSERT OR REPLACE INTO analyses VALUES (?,?,?,?)",
                       (game_id, plies, json.dumps(data), _now()))

    @_reading
    def analysis(self, game: Game) -> tuple[int, dict[str, Any]] | None:
        """(plies analysed, the analysis) kept for the game, or None. A library of schema 1 that no writer has
        migrated yet (read only) has no analyses table: its analysis is read from the file it kept then."""
        try:
            row = self.db.execute("SELECT plies, json FROM analyses WHERE game=?", (game.id,)).fetchone()
        except sqlite3.OperationalError as e:
            if "no such table" not in str(e):
                raise
            data = self._legacy_analysis(game.key)
            return None if data is None else (min(len(data["plies"]), len(game.plies)), data)
        if row is None:
            return None
        data = json.loads(row["json"])
        if not isinstance(data, dict) or not isinstance(data.get("plies"), list):
            raise ValueError(f"the analysis of game {game.id} is not an analysis")
        return int(row["plies"]), data

    @_reading
    def events(self, game_id: int) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM events WHERE game=? ORDER BY id", (game_id,)).fetchall()

    # Effects, for ingest(): each returns a function run inside the event's transaction.
    def op_start_game(self, board_id: str, board_game: str, start: core.Position, headers: dict[str, str],
                      firmware: str = "", leaves: int | None = None) -> Op:
        """leaves: the game this one is started before its end (the board's GAME after a NEW): 'abandoned'
        in the same transaction, when it is still 'playing'."""
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            row = db.execute("SELECT id FROM games WHERE board_id=? AND board_game=?",
                             (board_id, board_game)).fetchone()
            if row is not None:
                return int(row[0]), ""
            if leaves is not None:
                db.execute("UPDATE games SET status='abandoned', updated=? WHERE id=? AND status='playing'",
                           (_now(), leaves))
            key = "{}-{}-{}".format(time.strftime("%Y%m%d"), _safe(board_id), _safe(board_game))
            return self._insert_game(db, key, "board", start, headers, board_id, board_game, firmware), ""
        return run

    def op_move(self, game_id: int, ply: int, text: str, child: core.Position, seq: int,
                result: str = "") -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            n = db.execute("SELECT COUNT(*) FROM moves WHERE game=?", (game_id,)).fetchone()[0]
            if n != ply - 1:
                return game_id, f"ply {ply} arrives after {n} stored moves: not stored"
            self._insert_move(db, game_id, ply, text, child, seq)
            db.execute("UPDATE games SET updated=?, result=CASE WHEN ?<>'' THEN ? ELSE result END,"
                       " status=CASE WHEN ?<>'' THEN 'over' ELSE status END WHERE id=?",
                       (_now(), result, result, result, game_id))
            return game_id, ""
        return run

    def op_undo(self, game_id: int, plies: int = 1) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            for _ in range(plies):
                db.execute("DELETE FROM moves WHERE game=? AND ply=(SELECT MAX(ply) FROM moves WHERE game=?)",
                           (game_id, game_id))
            db.execute("UPDATE games SET result='', status='playing', updated=? WHERE id=?",
                       (_now(), game_id))
            return game_id, ""
        return run

    def op_end(self, game_id: int, result: str) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            db.execute("UPDATE games SET result=?, status='over', updated=? WHERE id=?",
                       (result, _now(), game_id))
            return game_id, ""
        return run

    def op_flag(self, game_id: int | None, flag: str) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            return game_id, flag
        return run
