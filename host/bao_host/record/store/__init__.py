"""The game store: every game the host has seen, in a data directory.

Layout of the data directory (``--data DIR``; the platform's user data folder by default)::

    index.sqlite3            SQLite (WAL): boards, games, players, moves, positions, events, the engine's
                             analyses of games (`bao analyse`), a learner's lessons, puzzle ratings  -- the
                             authority
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

The package's modules, each importing only those above it in this list: errors, rows (a game and the other
values), files (every write of the data folder), schema (tables and migrations), base (the state every part
shares), damage, queries, analyses, progress (a learner's lessons), puzzle_ratings, writes (imports and
names), events, recovery, library (`Store`).
"""

from bao_host.record.store.errors import (
    DamagedRow,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreReadOnly,
    classify,
)
from bao_host.record.store.events import Op
from bao_host.record.store.files import atomic_write
from bao_host.record.store.library import Store
from bao_host.record.store.rows import COMMENTS, HEADER_ORDER, PRACTICE, Game, Ingest, default_data_dir, pos_key
from bao_host.record.store.schema import DB_NAME, SCHEMA_VERSION

__all__ = [
    "COMMENTS",
    "DB_NAME",
    "HEADER_ORDER",
    "PRACTICE",
    "SCHEMA_VERSION",
    "DamagedRow",
    "Game",
    "Ingest",
    "Op",
    "Store",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreFull",
    "StoreReadOnly",
    "atomic_write",
    "classify",
    "default_data_dir",
    "pos_key",
]
