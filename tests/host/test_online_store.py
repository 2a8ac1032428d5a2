"""The online games' store on SQLite (docs/online.md, "Durability and the library", "Takeback", the lobby):
what lived in one server process's memory is in the database, so a restarted server still has it; a library
of the first online schema opens and is brought up to date; one of a newer bao is refused in one line."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import onlinerig
from bao_host.online import store as online_store
from bao_host.online.client import OnlineError
from bao_host.online.store import SqliteStore
from bao_host.record.store import DB_NAME

# The online tables as the first version made them (no version kept, no takebacks table).
SCHEMA_1 = """
CREATE TABLE online_games (
    id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, options TEXT NOT NULL, start TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'waiting', result TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '',
    invite TEXT NOT NULL DEFAULT '', library TEXT NOT NULL DEFAULT '', created REAL NOT NULL,
    updated REAL NOT NULL);
CREATE TABLE online_seats (
    game TEXT NOT NULL REFERENCES online_games(id), side TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL DEFAULT '', PRIMARY KEY (game, side));
CREATE TABLE online_clocks (
    game TEXT PRIMARY KEY REFERENCES online_games(id), base REAL NOT NULL, increment REAL NOT NULL,
    started REAL);
CREATE TABLE online_rematches (
    game TEXT PRIMARY KEY REFERENCES online_games(id), next TEXT NOT NULL REFERENCES online_games(id));
CREATE TABLE online_moves (
    game TEXT NOT NULL REFERENCES online_games(id), ply INTEGER NOT NULL, move TEXT NOT NULL,
    side TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (game, ply));
"""


def _page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode())


def test_a_takeback_asked_is_still_asked_after_a_restart(tmp_path: Path) -> None:
    """South asks to take back her move after North's answer; the server restarts; the state still says it is
    asked, and North's acceptance takes the game back (it was refused: the request was in memory only)."""
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        api = server.api
        s = api.create("zanzibar", "S", "Alice")
        n = api.join(s.invite, "Bob")
        api.move(s, 1, "7L*")
        api.move(n, 2, "5R")
        assert api.takeback(s, 0)["takeback"] == {"by": "S", "plies": 0}
        server.stop()
        server.start()
        assert api.state(s.game)["takeback"] == {"by": "S", "plies": 0}
        api.accept_takeback(n, 0)
        state = api.state(s.game)
        assert (state["moves"], state["takeback"]) == ([], None)
        # a move answers a takeback asked for (no), and that too outlives a restart
        api.move(s, 1, "7L*")
        api.takeback(s, 0)
        api.move(n, 2, "5R")
        server.stop()
        server.start()
        state = api.state(s.game)
        assert (state["moves"], state["takeback"]) == (["7L*", "5R"], None)
        try:
            api.accept_takeback(n, 0)
            raise AssertionError("a takeback answered by a move was accepted")
        except OnlineError as e:
            assert (e.status, str(e)) == (409, "no takeback to that many moves is asked of you")
    finally:
        server.stop()


def test_the_lobby_lists_the_stored_games_after_a_restart(tmp_path: Path) -> None:
    """The lobby (the page and GET /online/v1/games) lists the games waiting or being played from the store:
    after a restart too, before anybody asked for them (it listed none: it read this process's memory)."""
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        api = server.api
        waiting = api.create("malawi", "N", "Carol")
        s = api.create("zanzibar", "S", "Alice")
        api.join(s.invite, "Bob")
        over = api.create("zanzibar", "S", "Eve")
        api.join(over.invite, "Frank")
        api.resign(over)
        server.stop()
        server.start()
        listed = api.request("GET", "/games")["games"]
        assert listed == [
            {
                "game": s.game,
                "ruleset": "zanzibar",
                "seats": {"S": "Alice", "N": "Bob"},
                "status": "playing",
                "plies": 0,
            },
            {
                "game": waiting.game,
                "ruleset": "malawi",
                "seats": {"S": "", "N": "Carol"},
                "status": "waiting",
                "plies": 0,
            },
        ]
        page = _page(server.url + "/online")
        assert f"/online/game/{s.game}/watch" in page and f"/online/game/{waiting.game}/watch" in page
        assert "<b>Alice</b> (South) – <b>Bob</b> (North), playing, 0 moves" in page
        assert "Eve" not in page and waiting.invite not in page
    finally:
        server.stop()


def _first_schema_library(root: Path) -> None:
    root.mkdir(parents=True)
    db = sqlite3.connect(root / DB_NAME)
    db.executescript(SCHEMA_1)
    db.execute(
        "INSERT INTO online_games VALUES ('old1', 'zanzibar', '{}', ?, 'playing', '', '', '', '', 1.0, 1.0)",
        (_start(),),
    )
    db.execute("INSERT INTO online_seats VALUES ('old1', 'S', 'd1', 'Alice'), ('old1', 'N', 'd2', 'Bob')")
    db.execute("INSERT INTO online_moves VALUES ('old1', 1, '7L*', 'S', 2.0)")
    db.commit()
    db.close()


def _start() -> str:
    from bao import core, position_json

    return position_json.dumps(core.initial("zanzibar", core.Rules("zanzibar"), core.SOUTH), False)


def test_a_library_of_the_first_online_schema_opens_and_is_migrated(tmp_path: Path) -> None:
    root = tmp_path / "old"
    _first_schema_library(root)
    st = SqliteStore(root)
    try:
        assert st.moves("old1") == ["7L*"] and st.seats("old1")["N"] == ("d2", "Bob")
        assert st.takeback("old1") is None
        st.ask_takeback("old1", "S", 0)
        assert st.takeback("old1") == ("S", 0)
        assert [g["id"] for g in st.live()] == ["old1"]
    finally:
        st.close()
    db = sqlite3.connect(root / DB_NAME)
    assert db.execute("SELECT value FROM online_meta WHERE key='schema'").fetchone() == (
        str(online_store.SCHEMA_VERSION),
    )
    db.close()
    SqliteStore(root).close()  # (opened again: nothing to do)


def test_a_newer_online_schema_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "new"
    SqliteStore(root).close()
    db = sqlite3.connect(root / DB_NAME)
    db.execute(
        "UPDATE online_meta SET value=? WHERE key='schema'", (str(getattr(online_store, "SCHEMA_VERSION", 1) + 1),)
    )
    db.commit()
    db.close()
    r = subprocess.run(
        [sys.executable, "-m", "bao_host.cli", "serve", "--sim", "0", "--port", "0", "--data", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "stored by a newer bao" in r.stderr and "upgrade bao" in r.stderr
