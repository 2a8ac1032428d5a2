"""Rows the integrity check passes but Python cannot read (text that is not UTF-8), rebuilt from the transcripts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bao import core, notation

from bao_host.record.store.base import StoreBase
from bao_host.record.store.rows import COMMENTS, damaged_columns, game_columns, unreadable
from bao_host.record.textcheck import loads_object


class RowRepair(StoreBase):
    """Rebuilding a damaged games row, or damaged moves, from the game's transcript."""

    def _rebuild_damaged_rows(self) -> None:
        """Rows holding text that is not UTF-8 pass SQLite's integrity check (a damaged page of text): each
        damaged column of a game, and each damaged move, is rebuilt from the game's transcript (with the
        board id and board game its header took from the event log); the rest of the row is kept. A game
        whose transcript cannot give the text back stays as it is, said, and skipped by readers."""
        rows = self.db.execute("SELECT * FROM games ORDER BY id").fetchall()
        damaged = []
        for r in rows:
            moves = self.db.execute("SELECT ply, text FROM moves WHERE game=? ORDER BY ply", (r["id"],)).fetchall()
            bad_plies = [int(m["ply"]) for m in moves if unreadable(m["text"])]
            if damaged_columns(r) or bad_plies:
                damaged.append((r, bad_plies))
        if not damaged:
            return
        claimed = {r["key"] for r in rows if not unreadable(r["key"])}
        spare = [p for p in sorted((self.root / "games").glob("*.txt")) if p.stem not in claimed]
        for r, bad_plies in damaged:
            cols = damaged_columns(r) + (["moves"] if bad_plies else [])
            why = self._rebuild_row(r, bad_plies, spare)
            key = "?" if unreadable(r["key"]) else r["key"]
            if why:
                self._problem(
                    f"game {r['id']} ({key}) is damaged (its {', '.join(cols)} cannot be read) and "
                    f"cannot be rebuilt: {why}; the other games are kept and shown"
                )
            else:
                self._problem(
                    f"game {r['id']} ({key}) was damaged (its {', '.join(cols)} could not be read): "
                    "rebuilt from its transcript and event log"
                )

    def _rebuild_row(self, r: sqlite3.Row, bad_plies: list[int], spare: list[Path]) -> str:
        """Rebuild the damaged text of games row r and of its moves `bad_plies`; '' when done, else why not.
        spare: the transcripts no readable row claims (the damaged row's own when its key is damaged)."""
        if not unreadable(r["key"]):
            path = self.root / "games" / (r["key"] + ".txt")
        else:
            candidates = spare
            if not unreadable(r["board_id"]) and not unreadable(r["board_game"]) and r["board_id"]:
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
        fresh = game_columns(
            path.stem, "board" if board_id else "rebuilt", positions[0], t.headers, board_id, h.get("board game", "")
        )
        fresh["extra"] = json.dumps(
            {**loads_object(fresh["extra"]), COMMENTS: json.dumps({str(k): v for k, v in t.comments.items()})}
        )
        if any(p > len(t.plies) for p in bad_plies):
            return f"its transcript {path.name} holds fewer moves than the database"
        with self._tx() as db:
            for col in damaged_columns(r):
                if col in fresh:
                    db.execute(f"UPDATE games SET {col}=? WHERE id=?", (fresh[col], r["id"]))
            for ply in bad_plies:
                db.execute("UPDATE moves SET text=? WHERE game=? AND ply=?", (t.plies[ply - 1], r["id"], ply))
        return ""

    def _transcript_names(self, path: Path, board_id: str, board_game: str) -> bool:
        """Whether the transcript at path is the one of the board's game (its header says so)."""
        try:
            h = {
                k.lower(): v.strip()
                for k, v in notation.parse_transcript(path.read_text(encoding="utf-8")).headers.items()
            }
        except (OSError, UnicodeError, core.BaoError, notation.ReplayError):
            return False
        return h.get("board") == board_id and h.get("board game") == board_game
