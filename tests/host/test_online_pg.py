"""Online play on PostgreSQL (issue #27, docs/online.md, "Several server processes"): `bao serve --db
postgresql://...` processes sharing one database, each telling its own clients of the moves the others take
(LISTEN/NOTIFY). A real PostgreSQL: a throwaway cluster (tests/bao_testkit/pgrig.py) or BAO_TEST_PG's; without
one these tests are skipped with the reason in one line. The same kill on one SQLite process, for comparison."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import onlinerig
import pytest
from bao import notation
from bao_host.online.client import Api, OnlineError, Seat
from bao_host.record.store import Store
from bao_testkit import pgrig, simrig
from test_online_store import SCHEMA_1

WHY = pgrig.pg_missing()
needs_pg = pytest.mark.skipif(WHY is not None, reason=WHY or "")
ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
PLIES = [
    notation.format_move(notation.parse_move(p, t)[0], p.to_move) for p, t in zip(notation.replay(T1994), T1994.plies)
]


@pytest.fixture(scope="module")
def pg() -> Iterator[pgrig.Cluster]:
    with pgrig.cluster() as c:
        yield c


class Client(threading.Thread):
    """A scripted player on one server: follows the game's event stream (again from the moves it holds
    after a loss), keeps every move event as it came, and sends its side's next move of the transcript."""

    def __init__(self, url: str, seat: Seat) -> None:
        super().__init__(name=f"client-{seat.side}", daemon=True)
        self.api, self.seat = Api(url, timeout=5.0), seat
        self.seen: list[int] = []  # the plies of every move event received, in order (repeats kept)
        self.held = 0
        self.downs = 0
        self.done = threading.Event()

    def run(self) -> None:
        end = time.monotonic() + 120
        while not self.done.is_set() and time.monotonic() < end:
            try:
                if self.seat.side == "S" and self.held == 0:
                    self._send(1)
                for kind, data in self.api.stream(self.seat.game, self.held, timeout=10):
                    if kind == "move":
                        self._moved(int(data["ply"]))
                    if self.done.is_set():
                        return
            except OnlineError:
                pass
            self.downs += 1
            time.sleep(0.1)

    def _moved(self, ply: int) -> None:
        self.seen.append(ply)
        if ply != self.held + 1:
            return
        self.held = ply
        if ply == len(PLIES):
            self.done.set()
        elif (ply % 2 == 0) == (self.seat.side == "S"):  # the next ply is this side's (South plays the odd ones)
            self._send(ply + 1)

    def _send(self, ply: int) -> None:
        end = time.monotonic() + 60
        while True:  # (the server may be away: sent again until it answers; a repeat is harmless)
            try:
                self.api.move(self.seat, ply, PLIES[ply - 1])
                return
            except OnlineError as e:
                if e.status or time.monotonic() > end:
                    raise
                time.sleep(0.1)


def _pair(url_s: str, url_n: str) -> tuple[Seat, Seat]:
    s = Api(url_s).create("zanzibar", "S", "Alice")
    n = Api(url_n).join(s.invite, "Bob")
    return s, n


def _through_a_kill(a: pgrig.Serve, b: pgrig.Serve) -> tuple[Seat, list[str]]:
    """The 1994 game, Alice (South) on a and Bob (North) on b; a killed (SIGKILL) at ply 20 and started again.
    Each client is told of every move once and in order; the game on the server is the transcript's."""
    try:
        s, n = _pair(a.url, b.url)
        alice, bob = Client(a.url, s), Client(b.url, n)
        alice.start()
        bob.start()
        simrig.wait_for(lambda: alice.held >= 20, 60, what="ply 20")
        a.kill()
        a.start()
        for c in (alice, bob):
            c.join(120)
            assert c.done.is_set(), f"{c.seat.side} holds {c.held} plies"
        moves = [Api(url).state(s.game)["moves"] for url in (a.url, b.url)]
    finally:
        a.stop()
        b.stop()
    assert alice.downs >= 1  # (Alice's stream was cut by the kill: she came back)
    assert alice.seen == bob.seen == list(range(1, len(PLIES) + 1)), f"{alice.seen} {bob.seen}"
    assert moves[0] == moves[1] == PLIES
    return s, moves[0]


def test_one_sqlite_process_killed_mid_game_loses_nothing(tmp_path: Path) -> None:
    """On SQLite (one process, both clients on it): the process killed at ply 20 and started again."""
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server")
    _through_a_kill(a.start(), a)


@needs_pg
def test_two_server_processes_share_the_1994_game_through_a_kill(pg: pgrig.Cluster, tmp_path: Path) -> None:
    """Alice on one process, Bob on the other, one PostgreSQL: each is told of every move, once and in order;
    Alice's process is killed (SIGKILL) mid-game and started again: nothing lost, nothing doubled."""
    db = pg.database("share_1994")
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    b = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    s, _ = _through_a_kill(a, b)
    import psycopg

    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT ply, move FROM online_moves WHERE game=%s ORDER BY ply", (s.game,)).fetchall()
    assert [m for _, m in rows] == PLIES and [p for p, _ in rows] == list(range(1, len(PLIES) + 1))


@needs_pg
def test_one_ply_sent_to_both_processes_is_stored_once(pg: pgrig.Cluster, tmp_path: Path) -> None:
    """The same seat's ply sent to two processes at once: stored once, both answers say it is played; a
    different move for a ply the other process took is refused; the game and its state are the same on both."""
    db = pg.database("one_ply")
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    b = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    try:
        s, n = _pair(a.url, b.url)
        answers: list[dict[str, object]] = []
        both = [
            threading.Thread(target=lambda u=u: answers.append(Api(u).move(s, 1, PLIES[0]))) for u in (a.url, b.url)
        ]
        for t in both:
            t.start()
        for t in both:
            t.join(30)
        assert sorted(bool(x.get("duplicate")) for x in answers) == [False, True]
        Api(b.url).move(n, 2, PLIES[1])
        with pytest.raises(OnlineError) as e:  # ply 2 is North's on b: a stale or forged other move for it
            Api(a.url).move(n, 2, "4R>" if PLIES[1] != "4R>" else "4L<")
        assert e.value.status in (409, 422)
        assert Api(a.url).state(s.game)["moves"] == Api(b.url).state(s.game)["moves"] == PLIES[:2]
        Api(a.url).resign(s)
        simrig.wait_for(lambda: Api(b.url).state(s.game)["status"] == "over", 10, what="the end on b")
    finally:
        a.stop()
        b.stop()


@needs_pg
def test_a_stream_opened_while_a_move_is_stored_tells_it_once(pg: pgrig.Cluster, tmp_path: Path) -> None:
    """A follower that comes while a move is being stored (held up here by a lock on the moves' table) is
    told of it once, when it is stored: not in the game so far and again as it is told."""
    import psycopg

    db = pg.database("stream_once")
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    try:
        s, _ = _pair(a.url, a.url)
        api = Api(a.url, timeout=30)
        with psycopg.connect(db) as lock:
            lock.execute("LOCK TABLE online_moves IN EXCLUSIVE MODE")  # (until this transaction ends)
            mover = threading.Thread(target=api.move, args=(s, 1, PLIES[0]))
            mover.start()
            simrig.wait_for(
                lambda: lock.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()[0],
                30,
                what="the move's insert to wait for the lock",
            )
            events = api.stream(s.game, 0, timeout=30)
            kind, _ = next(events)
            assert kind == "state"
        mover.join(30)
        seen = []
        for kind, data in events:
            if kind == "move":
                seen.append(data["ply"])
                if len(seen) == 1:
                    api.resign(s)  # (the stream's end: the game's)
            elif kind == "state" and data["status"] == "over":
                break
        assert seen == [1]
    finally:
        a.stop()


def test_a_bad_database_address_is_one_line(tmp_path: Path) -> None:
    for db, code, said in (
        ("mysql://x/y", 2, "--db takes a postgresql:// address"),
        (f"postgresql://nobody@/nothing?host={tmp_path}&port=1", 1, "could not connect to PostgreSQL"),
    ):
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "bao_host.cli",
                "serve",
                "--sim",
                "0",
                "--port",
                "0",
                "--data",
                str(tmp_path / "d"),
                "--db",
                db,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == code and said in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@needs_pg
def test_a_takeback_and_the_lobby_are_shared_by_two_processes(pg: pgrig.Cluster, tmp_path: Path) -> None:
    """What lived in one process's memory is in the database: a game made on a is in b's lobby (the page and
    GET /online/v1/games); South asks a takeback on a, b's followers are told it is asked, North accepts it
    on b, and both processes have the game taken back."""
    db = pg.database("shared_memory")
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    b = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    try:
        waiting = Api(a.url).create("malawi", "N", "Carol")
        s, n = _pair(a.url, b.url)
        want = [
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
        assert Api(b.url).request("GET", "/games")["games"] == want
        with urllib.request.urlopen(b.url + "/online", timeout=10) as r:
            assert f"/online/game/{waiting.game}/watch" in r.read().decode()
        Api(a.url).move(s, 1, PLIES[0])
        Api(b.url).move(n, 2, PLIES[1])
        events = Api(b.url).stream(s.game, 2, timeout=30)
        assert next(events)[0] == "state"
        Api(a.url).takeback(s, 0)
        kind, state = next(events)
        assert (kind, state["takeback"]) == ("state", {"by": "S", "plies": 0})
        Api(b.url).accept_takeback(n, 0)
        kind, state = next(events)
        assert (kind, state["plies"], state["takeback"]) == ("state", 0, None)
        simrig.wait_for(lambda: Api(a.url).state(s.game)["plies"] == 0, 10, what="the takeback on a")
        assert Api(a.url).state(s.game)["takeback"] is None
    finally:
        a.stop()
        b.stop()


@needs_pg
def test_a_process_listening_late_reads_again_what_it_holds(pg: pgrig.Cluster) -> None:
    # CI: a server process killed and started again read a game for its client before its LISTEN was up; the
    # other process stored the opponent's move in between, and the board never lit it. Once it listens, the
    # store reports ANY_GAME: the process reads again every game it holds.
    import asyncio

    from bao_host.online.store import ANY_GAME
    from bao_host.online.store_pg import PostgresStore

    st = PostgresStore(pg.database("late_listener"))
    heard: list[str] = []

    async def listening() -> None:
        first = asyncio.Event()

        def on_change(gid: str, *_: object) -> None:
            heard.append(gid)
            first.set()

        task = asyncio.get_running_loop().create_task(st.listen(on_change))
        try:
            await asyncio.wait_for(first.wait(), 10)  # (bounded: no report at all fails below)
        except TimeoutError:
            pass
        finally:
            task.cancel()

    try:
        asyncio.run(listening())
    finally:
        st.close()
    assert heard[:1] == [ANY_GAME]


@needs_pg
def test_a_database_of_the_first_online_schema_is_migrated(pg: pgrig.Cluster) -> None:
    import psycopg
    from bao_host.online import store as online_store
    from bao_host.online.store_pg import PostgresStore

    db = pg.database("first_schema")
    with psycopg.connect(db, autocommit=True) as conn:
        for stmt in online_store.statements(SCHEMA_1.replace("REAL", "DOUBLE PRECISION")):
            conn.execute(stmt)
        conn.execute("INSERT INTO online_games VALUES ('old1', 'zanzibar', '{}', '', 'playing', '', '', '', '', 1, 1)")
        conn.execute("INSERT INTO online_moves VALUES ('old1', 1, '7L*', 'S', 2)")
    st = PostgresStore(db)
    try:
        assert st.moves("old1") == ["7L*"] and st.takeback("old1") is None
        st.ask_takeback("old1", "S", 0)
        assert st.takeback("old1") == ("S", 0)
    finally:
        st.close()
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT value FROM online_meta WHERE key='schema'").fetchone()
    assert row == (str(online_store.SCHEMA_VERSION),)


@needs_pg
def test_two_simulated_boards_on_two_processes_play_the_1994_game(pg: pgrig.Cluster, tmp_path: Path) -> None:
    """`bao online`'s client (the Bridge) with a simulated board (the unchanged firmware) on each of two server
    processes sharing PostgreSQL: Alice on a, Bob on b, every move made on its mover's board, lit on the
    other's and sown there; a killed (SIGKILL) at ply 20 and started again. Both local libraries and the
    database hold the game; the server's library (one --data for both processes) has it once."""
    db = pg.database("boards_1994")
    a = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    b = pgrig.Serve(pgrig.free_port(), tmp_path / "server", db=db).start()
    g = simrig.game_1994()
    alice, bob = onlinerig.pair(a.url, tmp_path, url_b=b.url)

    def kill_a() -> None:
        a.kill()
        a.start()

    try:
        onlinerig.play_remote(g, [alice, bob], onlinerig.Process(b.url), after={20: kill_a})
        alice.bridge.api.resign(alice.bridge.seat)
        onlinerig.wait_end([alice, bob])
        game = alice.bridge.seat.game
        states = [Api(u).state(game) for u in (a.url, b.url)]
    finally:
        alice.close()
        bob.close()
        a.stop()
        b.stop()
    for state in states:
        assert (state["status"], state["result"], state["moves"]) == ("over", "North wins", g.plies)
    assert any("does not answer" in x or "events stopped" in x for x in alice.said)  # (a was away)
    for lib in (tmp_path / "alice" / "library", tmp_path / "bob" / "library", tmp_path / "server"):
        with Store(lib, readonly=True) as st:
            found = [st.game(x.id) for x in st.games() if st.game(x.id).headers().get("online game") == game]
            assert [(x.plies, x.result) for x in found] == [(g.plies, "North wins")], lib
