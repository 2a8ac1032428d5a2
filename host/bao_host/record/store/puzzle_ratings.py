"""Puzzle solvers' ratings (Glicko-2, docs/puzzles.md): each solver's and each puzzle's rating, deviation and
volatility, and every attempt, kept in the library. The store keeps numbers; bao_host.puzzles computes them."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bao_host.record.store.errors import StoreReadOnly, guarded, missing_table, reading
from bao_host.record.store.queries import Queries
from bao_host.record.store.rows import now


@dataclass(frozen=True)
class Rated:
    """A solver's or a puzzle's Glicko-2 numbers, and how many attempts made them (0: never rated)."""

    rating: float
    rd: float
    vol: float
    attempts: int = 0
    solved: int = 0


class PuzzleRatings(Queries):
    """Ratings of solvers and puzzles, and the attempts."""

    @reading
    def solver_rating(self, name: str) -> Rated | None:
        return self._rated("SELECT rating, rd, vol, attempts, solved FROM puzzle_solvers WHERE name=?", name)

    @reading
    def puzzle_rating(self, puzzle: str) -> Rated | None:
        return self._rated("SELECT rating, rd, vol, attempts, solved FROM puzzle_ratings WHERE puzzle=?", puzzle)

    def _rated(self, sql: str, key: str) -> Rated | None:
        try:
            row = self.db.execute(sql, (key,)).fetchone()
        except sqlite3.OperationalError as e:  # a library of schema 2 read before a writer migrated it
            if not missing_table(e):
                raise
            return None
        if row is None:
            return None
        return Rated(float(row[0]), float(row[1]), float(row[2]), int(row[3]), int(row[4]))

    @reading
    def solved_puzzles(self, name: str) -> dict[str, bool]:
        """Each puzzle the solver tried: whether the last attempt found the solution."""
        try:
            rows = self.db.execute(
                "SELECT puzzle, correct FROM puzzle_attempts WHERE solver=? ORDER BY id", (name,)
            ).fetchall()
        except sqlite3.OperationalError as e:
            if not missing_table(e):
                raise
            return {}
        return {str(r[0]): bool(r[1]) for r in rows}

    @guarded
    def record_attempt(
        self, solver: str, puzzle: str, move: str, correct: bool, solver_after: Rated, puzzle_after: Rated
    ) -> None:
        """One attempt and both new ratings, in one transaction (all of it kept, or none)."""
        if self.readonly:
            raise StoreReadOnly(f"{self.root}: opened for reading only")
        with self._tx() as db:
            db.execute(
                "INSERT INTO puzzle_attempts (solver, puzzle, move, correct, rating, at) VALUES (?,?,?,?,?,?)",
                (solver, puzzle, move, int(correct), solver_after.rating, now()),
            )
            for table, key, r in (("puzzle_solvers", "name", solver_after), ("puzzle_ratings", "puzzle", puzzle_after)):
                db.execute(
                    f"INSERT INTO {table} ({key}, rating, rd, vol, attempts, solved) VALUES (?,?,?,?,1,?) "
                    f"ON CONFLICT({key}) DO UPDATE SET rating=excluded.rating, rd=excluded.rd, "
                    "vol=excluded.vol, attempts=attempts+1, solved=solved+excluded.solved",
                    ((solver if table == "puzzle_solvers" else puzzle), r.rating, r.rd, r.vol, int(correct)),
                )
