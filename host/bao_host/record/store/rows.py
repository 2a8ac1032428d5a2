"""What the store's rows hold, as Python values: a game, an ingested event, a game's columns, a position's key."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import core, kuu, notation, position_json

from bao_host.record.store.errors import StoreError
from bao_host.record.textcheck import TextError, check_headers, loads_object

# A game's source when the board played a lesson's task or a puzzle (a position the host laid out for it, issue
# #28): kept, but not a game of the club's: `bao games` and the library page leave them out unless asked.
PRACTICE = ("lesson", "puzzle")

HEADER_ORDER = (
    "South",
    "North",
    "place",
    "date",
    "ruleset",
    "takasia",
    "options",
    "first",
    "result",
    "winner",
    "board",
    "board game",
    "firmware",
)


# An event's effect: runs inside the event's transaction, returns (game id or None, flag).
Op = Callable[[sqlite3.Connection], tuple[int | None, str]]


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
        return {} if COMMENTS in self.extra else stored_comments(self.extra.get("comments"))

    def comments(self) -> dict[int, str]:
        return stored_comments(self.extra.get(COMMENTS)) if COMMENTS in self.extra else self._legacy_comments()

    def transcript(self) -> str:
        return notation.format_transcript(self.headers(), self.plies, self.comments())


COMMENTS = "_comments"  # the key of the move comments in a game's `extra` (a header key never starts with _)


def stored_comments(raw: object) -> dict[int, str]:
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


def lenient_text(raw: bytes) -> str:
    """A TEXT value as Python text: bytes that are not UTF-8 (damage) become lone surrogates, which
    `unreadable` finds, instead of an error that would stop every query touching the row."""
    return raw.decode("utf-8", "surrogateescape")


def unreadable(value: object) -> bool:
    """A text read through `lenient_text` that held bytes which are not UTF-8."""
    return isinstance(value, str) and any("\udc80" <= c <= "\udcff" for c in value)


def damaged_columns(row: sqlite3.Row) -> list[str]:
    return [k for k in row.keys() if unreadable(row[k])]


def event_record(r: sqlite3.Row) -> str:
    """An event as a line of its event log: with its board id, epoch and sequence number, all a database
    rebuilt from the files needs."""
    rec: dict[str, Any] = {
        "t": round(r["received"], 3),
        "board": r["board_id"],
        "stream": r["stream"],
        "seq": r["seq"],
        "type": r["type"],
        "raw": r["raw"],
    }
    if r["flag"]:
        rec["flag"] = r["flag"]
    return json.dumps(rec)


def like_pattern(text: str) -> str:
    """text for a LIKE pattern (ESCAPE '\\'), matched as itself: % and _ are no wildcards."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("bao-board", appauthor=False))


def now() -> float:
    return time.time()


def safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)[:60] or "_"


def pos_key(p: core.Position) -> str:
    d = bytes(p.d)
    if d[kuu.MUST :] == bytes((core.NONE, 0)):
        d = d[: kuu.MUST]  # no forced capture, nothing to place (M19, M22): the key libraries made before them use
    return d.hex() + ("" if not p.rules.options() else json.dumps(p.rules.options(), sort_keys=True))


def game_columns(
    key: str,
    source: str,
    start: core.Position,
    headers: dict[str, str],
    board_id: str = "",
    board_game: str = "",
    firmware: str = "",
) -> dict[str, Any]:
    """The text columns of a games row (in the table's order, up to `extra`) for a game with this start and
    transcript header; StoreError when the header is not one the library stores."""
    h = {k.lower(): v for k, v in headers.items()}
    known = {k.lower() for k in HEADER_ORDER}
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
    return {
        "key": key,
        "board_id": board_id,
        "board_game": board_game,
        "source": source,
        "south": "" if south == "?" else south,
        "north": "" if north == "?" else north,
        "place": h.get("place", ""),
        "date": h.get("date", "").strip() or time.strftime("%Y-%m-%d"),
        "ruleset": start.rules.ruleset,
        "options": json.dumps(start.rules.options(), sort_keys=True),
        "first": "North" if start.to_move == core.NORTH else "South",
        "start": position_json.dumps(start, False),
        "result": result,
        "status": "over" if result else "playing",
        "firmware": firmware or h.get("firmware", ""),
        "extra": json.dumps(extra),
    }
