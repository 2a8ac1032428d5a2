"""Online play on PostgreSQL (issue #27, docs/online.md, "Several server processes"): `bao serve --db
postgresql://...` processes sharing one database, each telling its own clients of the moves the others take
(LISTEN/NOTIFY). A real PostgreSQL: a throwaway cluster (tests/bao_testkit/pgrig.py) or BAO_TEST_PG's; without
one these tests are skipped with the reason in one line. The same kill on one SQLite process, for comparison."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bao import notation
from bao_host.online.client import Api, OnlineError, Seat
from bao_testkit import pgrig, simrig

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
