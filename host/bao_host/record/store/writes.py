"""Putting games into the library: imported transcripts, names, and the rows a board's game makes."""

from __future__ import annotations

import json
import sqlite3

from bao import core, notation, position_json

from bao_host.record.store.errors import StoreError, guarded
from bao_host.record.store.files import atomic_write
from bao_host.record.store.progress import Progress
from bao_host.record.store.rows import COMMENTS, Game, game_columns, now, pos_key
from bao_host.record.textcheck import TextError, check_headers, check_name, loads_object


class Writes(Progress):
    """Storing games and moves, and writing their transcripts."""

    def _insert_game(
        self,
        db: sqlite3.Connection,
        key: str,
        source: str,
        start: core.Position,
        headers: dict[str, str],
        board_id: str = "",
        board_game: str = "",
        firmware: str = "",
    ) -> int:
        cols = game_columns(key, source, start, headers, board_id, board_game, firmware)
        t = now()
        cur = db.execute(
            "INSERT INTO games (key, board_id, board_game, source, south, north, place, date, ruleset,"
            " options, first, start, result, status, firmware, extra, created, updated)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (*cols.values(), t, t),
        )
        gid = int(cur.lastrowid or 0)
        for name in (cols["south"], cols["north"]):
            if name:
                db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (name, gid))
        return gid

    def _insert_move(
        self, db: sqlite3.Connection, game: int, ply: int, text: str, p: core.Position, seq: int | None
    ) -> None:
        k = pos_key(p)
        db.execute("INSERT OR IGNORE INTO positions VALUES (?, ?)", (k, position_json.dumps(p, False)))
        db.execute("INSERT INTO moves VALUES (?,?,?,?,?,?)", (game, ply, text, k, seq, now()))

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

    @guarded
    def name_players(
        self, ref: int | str, south: str | None = None, north: str | None = None, place: str | None = None
    ) -> Game:
        g = self.game(ref)
        try:
            south, north, place = (
                None if v is None else check_name(w, v)
                for w, v in (("South's name", south), ("North's name", north), ("the place", place))
            )
        except TextError as e:
            raise StoreError(str(e)) from None
        with self._tx() as db:
            for col, val in (("south", south), ("north", north), ("place", place)):
                if val is not None:
                    db.execute(f"UPDATE games SET {col}=?, updated=? WHERE id=?", (val, now(), g.id))
                    if col != "place" and val:
                        db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (val, g.id))
        self._after_change(g.id)
        return self.game(g.id)

    @guarded
    def mark_abandoned(self, game_id: int) -> bool:
        """A game left unfinished for a new one (the terminal UI's `n`): status 'abandoned' instead of
        'playing'. False (nothing changed) when the game is over or abandoned already."""
        with self._tx() as db:
            changed = db.execute(
                "UPDATE games SET status='abandoned', updated=? WHERE id=? AND status='playing'", (now(), game_id)
            ).rowcount
        return changed > 0

    @guarded
    def import_text(
        self, text: str, key: str | None = None, source: str = "import", names: dict[str, str] | None = None
    ) -> Game:
        """Store a transcript after checking it by replay; StoreError names the first bad move."""
        return self._import(text, key, source, names)

    def _import(
        self,
        text: str,
        key: str | None = None,
        source: str = "import",
        names: dict[str, str] | None = None,
        board_id: str = "",
        board_game: str = "",
        write: bool = True,
    ) -> Game:
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
