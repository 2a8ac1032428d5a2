"""Recovery: what a crash, a lost WAL or a damaged file left is repaired from what the others hold."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from bao import core, notation

from bao_host.record.lock import pid_alive
from bao_host.record.store.errors import DamagedRow, StoreError, guarded
from bao_host.record.store.events import Events
from bao_host.record.store.files import atomic_write, rename
from bao_host.record.store.rows import event_record, safe_name
from bao_host.record.textcheck import loads_object


class Recovery(Events):
    """Bringing the database and the derived files in line after a crash or damage."""

    @guarded
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
                    self._problem(f"{path}: transcript differs from the database (corrupt or half-written): rewritten")
                atomic_write(path, want)
            self._check_jsonl(self.events_path(game.key), game.id)
        for path in (self.root / "boards").glob("*.jsonl"):
            self._check_jsonl(path, None)
        self._flush_event_logs()

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
            g = self._import(
                text, key=key, source=source, board_id=board_id, board_game=h.get("board game", "").strip(), write=False
            )
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
                rows.append(
                    (
                        str(o["board"]),
                        str(o["stream"]),
                        int(o["seq"]),
                        game,
                        str(o["type"]),
                        str(o["raw"]),
                        float(o.get("t", 0.0)),
                        str(o.get("flag", "")),
                    )
                )
            except (TypeError, ValueError):
                continue
        n = 0
        with self._tx() as db:
            for r in rows:
                cur = db.execute(
                    "INSERT OR IGNORE INTO events (board_id, stream, seq, game, type, raw, received,"
                    " flag, logged) VALUES (?,?,?,?,?,?,?,?,1)",
                    r,
                )
                n += cur.rowcount
                db.execute(
                    "INSERT OR IGNORE INTO boards (board_id, first_seen, last_seen) VALUES (?,?,?)", (r[0], r[6], r[6])
                )
        return n

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
            self._problem(
                f"{path}: the database lost {missing} events of this game, and its transcript "
                f"cannot give the moves back ({e}): kept as {path.name}.lost"
            )
            with contextlib.suppress(OSError):
                rename(path, path.with_name(path.name + ".lost"))
            return
        if (
            len(t.plies) > len(g.plies)
            and t.plies[: len(g.plies)] == g.plies
            and positions[0].d == g.start_position().d
        ):
            with self._tx() as db:
                for i in range(len(g.plies), len(t.plies)):
                    self._insert_move(db, gid, i + 1, t.plies[i], positions[i + 1], None)
                result = t.headers.get("result", "").strip()
                if result not in ("", "*", "?"):
                    db.execute("UPDATE games SET result=?, status='over' WHERE id=?", (result, gid))
            self._problem(
                f"{path}: the database had lost {missing} events and {len(t.plies) - len(g.plies)} "
                "moves of this game: restored from its event log and transcript"
            )
        else:
            self._problem(f"{path}: the database had lost {missing} events of this game: restored from its event log")

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
            rows = self.db.execute(
                "SELECT e.* FROM events e WHERE e.game=? AND e.logged=1 ORDER BY e.id", (game,)
            ).fetchall()
        else:
            rows = [
                r
                for r in self.db.execute("SELECT * FROM events WHERE game IS NULL AND logged=1 ORDER BY id")
                if self.root / "boards" / (safe_name(r["board_id"]) + ".jsonl") == path
            ]
        missing = [r for r in rows if (r["board_id"], r["stream"], r["seq"]) not in present]
        if missing:
            self._problem(
                f"{path}: {len(missing)} events missing (a deleted or damaged event log): written "
                "again from the database"
            )
        if bad or missing:
            text = "".join(g.decode("utf-8", "replace") + "\n" for g in good)
            atomic_write(path, text + "".join(event_record(r) + "\n" for r in missing))
