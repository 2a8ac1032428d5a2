"""The events a board sends, stored at most once each, their effects, and their event logs."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from bao import core

from bao_host.record.store.errors import guarded
from bao_host.record.store.files import append_lines
from bao_host.record.store.rows import Ingest, event_record, now, safe_name
from bao_host.record.store.writes import Writes

# An event's effect: runs inside the event's transaction, returns (game id or None, flag).
Op = Callable[[sqlite3.Connection], tuple[int | None, str]]


class Events(Writes):
    """Storing a board's events, each once, with its effect on the games."""

    @guarded
    def last_seq(self, board_id: str, stream: str) -> int:
        """The highest sequence number stored for a board's event stream (epoch), 0 if none: where a
        restarted logger resumes (docs/protocol.md)."""
        row = self.db.execute(
            "SELECT MAX(seq) FROM events WHERE board_id=? AND stream=?", (board_id, stream)
        ).fetchone()
        return int(row[0] or 0)

    @guarded
    def seen(self, board_id: str, stream: str, seq: int) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM events WHERE board_id=? AND stream=? AND seq=?", (board_id, stream, seq)
            ).fetchone()
            is not None
        )

    @guarded
    def ingest(self, board_id: str, stream: str, seq: int, etype: str, raw: str, apply: Op | None = None) -> Ingest:
        """Record one sequenced event and apply its effect, atomically and at most once.

        `apply(db)` runs inside the transaction and returns (game id or None, flag); a non-empty flag
        marks the event as not applied (a move that does not follow, ...). Use the `op_*` helpers.
        A transcript that could not be written after a commit (disk full, ...) is written at the next call,
        duplicate or not: the board resends the event it did not see acknowledged."""
        with self._tx() as db:
            if db.execute(
                "SELECT 1 FROM events WHERE board_id=? AND stream=? AND seq=?", (board_id, stream, seq)
            ).fetchone():
                duplicate = True
            else:
                duplicate = False
                game, flag = apply(db) if apply is not None else (None, "")
                db.execute(
                    "INSERT INTO events (board_id, stream, seq, game, type, raw, received, flag)"
                    " VALUES (?,?,?,?,?,?,?,?)",
                    (board_id, stream, seq, game, etype, raw, now(), flag),
                )
        if not duplicate and game is not None:
            self._stale.add(game)
        for gid in sorted(self._stale):
            self._after_change(gid)
            self._stale.discard(gid)
        self._flush_event_logs()
        return Ingest(duplicate=True) if duplicate else Ingest(duplicate=False, game=game, flag=flag)

    @guarded
    def log_unsequenced(self, board_id: str, raw: str, note: str = "") -> None:
        """Append a received frame that carries no sequence number (a notice, a bad line) to the board log."""
        rec = {"t": round(now(), 3), "board": board_id, "raw": raw}
        if note:
            rec["note"] = note
        append_lines(self.root / "boards" / (safe_name(board_id or "unknown") + ".jsonl"), [json.dumps(rec)])

    def _flush_event_logs(self) -> None:
        """Append events committed to the database but not yet to their JSON-lines file."""
        rows = self.db.execute(
            "SELECT e.*, g.key AS gkey FROM events e LEFT JOIN games g ON g.id = e.game "
            "WHERE e.logged = 0 ORDER BY e.id"
        ).fetchall()
        if not rows:
            return
        by_path: dict[Path, list[sqlite3.Row]] = {}
        for r in rows:
            if r["gkey"]:
                path = self.events_path(r["gkey"])
            else:
                path = self.root / "boards" / (safe_name(r["board_id"]) + ".jsonl")
            by_path.setdefault(path, []).append(r)
        for path, rs in by_path.items():
            present: set[tuple[str, str, int]] = set()
            if path.exists():  # after a crash between the append and the flag update
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        o = json.loads(line)
                        if "seq" in o:
                            present.add((o["board"], o.get("stream", ""), int(o["seq"])))
            recs = [event_record(r) for r in rs if (r["board_id"], r["stream"], r["seq"]) not in present]
            if recs:
                append_lines(path, recs)
            with self._tx() as db:
                db.executemany("UPDATE events SET logged=1 WHERE id=?", [(r["id"],) for r in rs])

    def op_start_game(
        self,
        board_id: str,
        board_game: str,
        start: core.Position,
        headers: dict[str, str],
        firmware: str = "",
        leaves: int | None = None,
        source: str = "board",
    ) -> Op:
        """leaves: the game this one is started before its end (the board's GAME after a NEW): 'abandoned'
        in the same transaction, when it is still 'playing'. source: 'board', or a kind of rows.PRACTICE (a
        lesson's task, a puzzle: its own row, which `games` leaves out by default)."""

        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            row = db.execute(
                "SELECT id FROM games WHERE board_id=? AND board_game=?", (board_id, board_game)
            ).fetchone()
            if row is not None:
                return int(row[0]), ""
            if leaves is not None:
                db.execute(
                    "UPDATE games SET status='abandoned', updated=? WHERE id=? AND status='playing'", (now(), leaves)
                )
            key = "{}-{}-{}".format(time.strftime("%Y%m%d"), safe_name(board_id), safe_name(board_game))
            return self._insert_game(db, key, source, start, headers, board_id, board_game, firmware), ""

        return run

    def op_move(self, game_id: int, ply: int, text: str, child: core.Position, seq: int, result: str = "") -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            n = db.execute("SELECT COUNT(*) FROM moves WHERE game=?", (game_id,)).fetchone()[0]
            if n != ply - 1:
                return game_id, f"ply {ply} arrives after {n} stored moves: not stored"
            self._insert_move(db, game_id, ply, text, child, seq)
            db.execute(
                "UPDATE games SET updated=?, result=CASE WHEN ?<>'' THEN ? ELSE result END,"
                " status=CASE WHEN ?<>'' THEN 'over' ELSE status END WHERE id=?",
                (now(), result, result, result, game_id),
            )
            return game_id, ""

        return run

    def op_undo(self, game_id: int, plies: int = 1) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            for _ in range(plies):
                db.execute(
                    "DELETE FROM moves WHERE game=? AND ply=(SELECT MAX(ply) FROM moves WHERE game=?)",
                    (game_id, game_id),
                )
            db.execute("UPDATE games SET result='', status='playing', updated=? WHERE id=?", (now(), game_id))
            return game_id, ""

        return run

    def op_end(self, game_id: int, result: str) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            db.execute("UPDATE games SET result=?, status='over', updated=? WHERE id=?", (result, now(), game_id))
            return game_id, ""

        return run

    def op_flag(self, game_id: int | None, flag: str) -> Op:
        def run(db: sqlite3.Connection) -> tuple[int | None, str]:
            return game_id, flag

        return run
