"""The engine's analyses of games (`bao analyse`), kept in the library."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bao_host.record.store.errors import StoreError, StoreReadOnly, guarded, missing_table, reading
from bao_host.record.store.queries import Queries
from bao_host.record.store.rows import Game, now
from bao_host.record.store.schema import legacy_analysis


class Analyses(Queries):
    """Keeping and reading the analysis of a game."""

    @guarded
    def save_analysis(self, game_id: int, plies: int, data: dict[str, Any]) -> None:
        """Keep the analysis of the game's first `plies` plies (GameAnalysis.to_json()), replacing an older one."""
        if self.readonly:
            raise StoreReadOnly(f"{self.root}: opened for reading only")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is None:
                raise StoreError(f"no game {game_id} in {self.root} (see `bao games`)")
            db.execute("INSERT OR REPLACE INTO analyses VALUES (?,?,?,?)", (game_id, plies, json.dumps(data), now()))

    @reading
    def analysis(self, game: Game) -> tuple[int, dict[str, Any]] | None:
        """(plies analysed, the analysis) kept for the game, or None. A library of schema 1 that no writer has
        migrated yet (read only) has no analyses table: its analysis is read from the file it kept then."""
        try:
            row = self.db.execute("SELECT plies, json FROM analyses WHERE game=?", (game.id,)).fetchone()
        except sqlite3.OperationalError as e:
            if not missing_table(e):
                raise
            data = legacy_analysis(self.root, game.key)
            return None if data is None else (min(len(data["plies"]), len(game.plies)), data)
        if row is None:
            return None
        data = json.loads(row["json"])
        if not isinstance(data, dict) or not isinstance(data.get("plies"), list):
            raise ValueError(f"the analysis of game {game.id} is not an analysis")
        return int(row["plies"]), data
