"""Reading the library: boards, games, their moves and positions, their events."""

from __future__ import annotations

import sqlite3
from typing import Any

from bao import core, position_json

from bao_host.record.store.damage import RowRepair
from bao_host.record.store.errors import DamagedRow, StoreError, guarded, reading
from bao_host.record.store.rows import PRACTICE, Game, damaged_columns, like_pattern, now, pos_key, unreadable
from bao_host.record.textcheck import loads_object

# a game abandoned before its first move: nothing was played in it (SQL, on the games table)
EMPTY_ABANDONED = "status='abandoned' AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game=games.id)"


class Queries(RowRepair):
    """The library's reads (and the boards it has seen)."""

    @guarded
    def board_seen(self, board_id: str, firmware: str = "", port: str = "") -> None:
        t = now()
        with self._tx() as db:
            db.execute(
                "INSERT INTO boards (board_id, firmware, first_seen, last_seen, port) VALUES (?,?,?,?,?) "
                "ON CONFLICT(board_id) DO UPDATE SET firmware=excluded.firmware,"
                " last_seen=excluded.last_seen, port=excluded.port",
                (board_id, firmware, t, t, port),
            )

    @guarded
    def known_boards(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM boards ORDER BY last_seen DESC").fetchall()

    def _row_to_game(self, row: sqlite3.Row) -> Game:
        """The game of a games row; DamagedRow when the row or one of its moves holds unreadable text."""
        plies = [r["text"] for r in self.db.execute("SELECT text FROM moves WHERE game=? ORDER BY ply", (row["id"],))]
        damaged = damaged_columns(row) + (["moves"] if any(unreadable(p) for p in plies) else [])
        if damaged:
            raise DamagedRow(int(row["id"]), damaged)
        return Game(
            id=row["id"],
            key=row["key"],
            board_id=row["board_id"],
            board_game=row["board_game"],
            source=row["source"],
            south=row["south"],
            north=row["north"],
            place=row["place"],
            date=row["date"],
            ruleset=row["ruleset"],
            options=loads_object(row["options"]),
            first=row["first"],
            start=row["start"],
            result=row["result"],
            status=row["status"],
            firmware=row["firmware"],
            extra=loads_object(row["extra"]),
            created=row["created"],
            updated=row["updated"],
            plies=plies,
        )

    @reading
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

    @reading
    def find_board_game(self, board_id: str, board_game: str) -> Game | None:
        row = self.db.execute(
            "SELECT * FROM games WHERE board_id=? AND board_game=?", (board_id, board_game)
        ).fetchone()
        return None if row is None else self._row_to_game(row)

    @guarded
    def last_board_game(self, board_id: str) -> int | None:
        """The id of the newest game logged from board_id, None when it has none."""
        row = self.db.execute("SELECT id FROM games WHERE board_id=? ORDER BY id DESC LIMIT 1", (board_id,)).fetchone()
        return None if row is None else int(row[0])

    @reading
    def games(
        self,
        player: str | None = None,
        date: str | None = None,
        result: str | None = None,
        board: str | None = None,
        status: str | None = None,
        practice: bool = False,
        empty: bool = True,
        ruleset: str | None = None,
    ) -> list[Game]:
        """The games that match, oldest first; a lesson's tasks and the puzzles played on the board
        (rows.PRACTICE) only with practice=True; the games abandoned before their first move (a board's
        new game left at once for another, a lesson, a puzzle) not with empty=False (a list for people)."""
        where, args = self._where(player, date, result, board, status, ruleset)
        if not practice:
            where += f" AND source NOT IN ({','.join('?' * len(PRACTICE))})"
            args += PRACTICE
        if not empty:
            where += f" AND NOT ({EMPTY_ABANDONED})"
        out = []
        for r in self.db.execute(f"SELECT * FROM games WHERE {where} ORDER BY id", args).fetchall():
            try:
                out.append(self._row_to_game(r))
            except DamagedRow as e:  # the others are still shown; this one is named
                self._problem(f"{e}; not listed")
        return out

    @reading
    def left_out(
        self,
        player: str | None = None,
        date: str | None = None,
        result: str | None = None,
        board: str | None = None,
        status: str | None = None,
        ruleset: str | None = None,
    ) -> tuple[int, int]:
        """How many of the games that match games() leaves out by default: the lesson tasks and puzzles played
        on the board (rows.PRACTICE), and the others abandoned before their first move (counted, not read: a
        damaged row is named once, by games())."""
        where, args = self._where(player, date, result, board, status, ruleset)
        inside = ",".join("?" * len(PRACTICE))
        row = self.db.execute(
            f"SELECT COALESCE(SUM(source IN ({inside})), 0),"
            f" COALESCE(SUM(source NOT IN ({inside}) AND {EMPTY_ABANDONED}), 0) FROM games WHERE {where}",
            [*PRACTICE, *PRACTICE, *args],
        ).fetchone()
        return int(row[0]), int(row[1])

    @staticmethod
    def _where(
        player: str | None,
        date: str | None,
        result: str | None,
        board: str | None,
        status: str | None,
        ruleset: str | None = None,
    ) -> tuple[str, list[Any]]:
        """The SQL condition and its arguments of games()' filters."""
        q = "1=1"
        args: list[Any] = []
        if player:
            q += " AND (south LIKE ? ESCAPE '\\' OR north LIKE ? ESCAPE '\\')"
            args += ["%" + like_pattern(player) + "%"] * 2
        if date:
            q += " AND date LIKE ? ESCAPE '\\'"
            args.append(like_pattern(date) + "%")
        if result:
            q += " AND result LIKE ? ESCAPE '\\'"
            args.append("%" + like_pattern(result) + "%")
        if board:
            q += " AND board_id=?"
            args.append(board)
        if status:
            q += " AND status=?"
            args.append(status)
        if ruleset:
            q += " AND ruleset=?"
            args.append(ruleset)
        return q, args

    @reading
    def positions(self, game_id: int) -> list[core.Position]:
        """The start position and the position after each stored move."""
        g = self.game(game_id)
        out = [g.start_position()]
        for r in self.db.execute(
            "SELECT p.json FROM moves m JOIN positions p ON p.key = m.position WHERE m.game=? ORDER BY m.ply",
            (game_id,),
        ):
            out.append(position_json.loads(r["json"]))
        if len(out) != len(g.plies) + 1:
            raise IndexError(f"game {game_id}: {len(g.plies)} moves but {len(out) - 1} positions")
        return out

    @reading
    def current_position(self, game_id: int) -> core.Position:
        row = self.db.execute(
            "SELECT p.json FROM moves m JOIN positions p ON p.key = m.position "
            "WHERE m.game=? ORDER BY m.ply DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        if row is None:
            return self.game(game_id).start_position()
        return position_json.loads(row["json"])

    @guarded
    def games_with_position(self, p: core.Position) -> list[tuple[int, int]]:
        """(game, ply) pairs where the position p arose."""
        return [
            (r["game"], r["ply"])
            for r in self.db.execute("SELECT game, ply FROM moves WHERE position=? ORDER BY game, ply", (pos_key(p),))
        ]

    @reading
    def events(self, game_id: int) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM events WHERE game=? ORDER BY id", (game_id,)).fetchall()
