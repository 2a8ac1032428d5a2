"""Bad input to the logger over the wire (a scripted board on 127.0.0.1, `bao log` and its LinkSession on the
other end): garbage, wrong checksums, overlong lines, an unknown protocol version in the handshake, moves that
do not follow. Each gives one clear message; nothing is stored wrongly; the logger does not crash and goes
on. Corrupt or half-written files in the data directory are reported and do not stop the logger."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

from bao import core, notation, position_json
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from bao_testkit.simrig import ROOT, T1994, wait_for
from baoproto.frames import LineAssembler, decode, encode, fields

EPOCH = "0badc0de"
P1994 = notation.replay(T1994)


def hello(proto: int = 1, last: int = 0, board: str = "script-1") -> str:
    return f"proto={proto} fw=9.9.9 rules=1 board={board} epoch={EPOCH} last={last} acked=0"


class ScriptedBoard:
    """A board that is a script: answers the host's HELLO with `reply` ("OK <fields>" or "ERR ..."), then
    sends `lines` as they are (bytes); keeps what the host sends. One host connection at a time."""

    def __init__(self, reply: str, lines: list[bytes]) -> None:
        self.reply = reply
        self.lines = lines
        self.acked = 0
        self.commands: list[str] = []
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.srv.settimeout(0.05)
        self.url = f"socket://127.0.0.1:{self.srv.getsockname()[1]}"
        self._stop = threading.Event()
        self._conn: socket.socket | None = None
        self._asm = LineAssembler(512, self._host_line, lambda code: None)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _host_line(self, line: bytes) -> None:
        f = decode(line)
        if isinstance(f, int) or self._conn is None:
            return
        kind, num, typ, payload = f
        if kind == "A":
            self.acked = max(self.acked, num)
        elif kind == "C":
            self.commands.append(typ)
            if typ == "HELLO":
                ok, _, rest = self.reply.partition(" ")
                try:
                    self._conn.sendall(encode("R", num, ok, rest))
                    for x in self.lines:
                        self._conn.sendall(x)
                except OSError:  # the host went away (a logger that refused this board): serve the next one
                    self._conn.close()
                    self._conn = None

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._conn is None:
                try:
                    self._conn, _ = self.srv.accept()
                    self._conn.settimeout(0.05)
                except OSError:
                    continue
            try:
                data = self._conn.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                data = b""
            if not data:
                self._conn.close()
                self._conn = None
                continue
            self._asm.feed(data)  # (may drop the connection: _host_line)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        if self._conn is not None:
            self._conn.close()
        self.srv.close()


def move_line(seq: int, ply: int, text: str | None = None, pos: core.Position | None = None) -> bytes:
    text = T1994.plies[ply] if text is None else text
    pos = P1994[ply + 1] if pos is None else pos
    return encode("E", seq, "MOVE", text + " " + position_json.dumps(pos, False))


def game_line(seq: int = 1) -> bytes:
    return encode("E", seq, "GAME", json.dumps({"ruleset": "zanzibar", "options": {}}))


def follow(board: ScriptedBoard, tmp: Path, acked: int) -> tuple[Store, Logger, LinkSession]:
    st = Store(tmp)
    lg = Logger(st)
    s = LinkSession(board.url, lg, backoff=(0.05, 0.2))
    wait_for(lambda: board.acked >= acked, 60, lambda: s.poll(0.01), f"the ack of event {acked}")
    for _ in range(10):
        s.poll(0.01)
    return st, lg, s


def test_garbage_and_wrong_checksums_are_dropped_with_one_message_each(tmp_path: Path) -> None:
    good_move = move_line(2, 0)
    bad = [
        b"\x00\xff\xfe garbage \x07\x1b[2J\n",  # line noise
        good_move[:-10] + b"00000000\n",  # a wrong checksum
        good_move.replace(b"7L*", b"7R*", 1),  # a byte changed after the checksum was made
        b"E2 MOVE 7L* {}\n",  # no checksum at all
        b"E" + b"9" * 5000 + b"\n",  # overlong
        encode("A", 1, "WHAT"),  # a well-formed frame of a kind the board does not send
    ]
    board = ScriptedBoard("OK " + hello(last=3), [game_line(), *bad, good_move, move_line(3, 1)])
    try:
        st, lg, s = follow(board, tmp_path, 3)
        [g] = st.games()
        assert g.plies == T1994.plies[:2]  # the good frames only
        assert st.db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 3
        assert lg.counters.bad_frames == 5 and lg.counters.flagged == 0
        dropped = [m.text for m in lg.messages if "bad line" in m.text]
        assert len(dropped) == 5  # one clear message per bad line
        assert any("(crc)" in m for m in dropped) and any("(overlong)" in m for m in dropped)
        assert s.link.stats.unexpected == 1 and s.connected and not s.fatal
        board_log = (tmp_path / "boards" / "script-1.jsonl").read_text().splitlines()
        assert len(board_log) == 5 and all("note" in json.loads(x) for x in board_log)
        s.close()
        st.close()
    finally:
        board.close()


def test_moves_that_do_not_follow_are_flagged_kept_and_shown(tmp_path: Path) -> None:
    other = P1994[2].copy()
    i = next(k for k in range(32) if other.d[k])
    other.d[i] -= 1
    other.d[(i + 1) % 32] += 1
    lines = [
        encode("E", 1, "MOVE", "7L* {}"),  # a move before any game
        game_line(2),
        move_line(3, 0),
        move_line(4, 1, text="B2L"),  # not a legal move there
        move_line(5, 1, pos=other),  # the right move, another position than the rules core computes
        encode("E", 6, "MOVE", T1994.plies[1] + " {not json"),
        encode("E", 7, "GAME", '{"ruleset": "chess"}'),  # an unknown ruleset
        move_line(8, 1),  # and the game goes on
    ]
    board = ScriptedBoard("OK " + hello(last=8), lines)
    try:
        st, lg, s = follow(board, tmp_path, 8)
        [g] = st.games()
        assert g.plies == T1994.plies[:2]
        flagged = st.db.execute("SELECT seq, flag FROM events WHERE flag<>'' ORDER BY seq").fetchall()
        assert [r[0] for r in flagged] == [1, 4, 5, 6, 7]  # kept in the event log, with the reason
        assert "does not follow" in flagged[1][1] and "another position" in flagged[2][1]
        errors = [m.text for m in lg.messages if m.level == "error"]
        assert len(errors) == 5 and all("flagged" in e for e in errors)
        assert lg.counters.flagged == 5 and board.acked == 8  # flagged events are stored, hence acked
        s.close()
        st.close()
    finally:
        board.close()


def _bao_log(data: Path, url: str, seconds: float, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "bao_host.cli",
            "log",
            "--port",
            url,
            "--data",
            str(data),
            "--quiet",
            "--duration",
            str(seconds),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_an_unknown_protocol_version_stops_bao_log_with_one_message(tmp_path: Path) -> None:
    for reply, says in (
        ("OK " + hello(proto=7, last=1), "board speaks protocol 7, this host 5,4,3,2,1"),
        ("ERR proto speaks=7", "board refused protocols 5,4,3,2,1: proto speaks=7"),
    ):
        board = ScriptedBoard(reply, [game_line()])
        try:
            r = _bao_log(tmp_path, board.url, 20)
        finally:
            board.close()
        assert r.returncode == 2, r.stderr
        last = r.stderr.strip().splitlines()[-1]
        assert last == f"bao log: {says}: update the host or the board's firmware", r.stderr
        assert "Traceback" not in r.stderr
        with Store(tmp_path, repair=False) as st:
            assert st.db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
            assert st.games() == []


def test_corrupt_files_in_the_data_dir_are_reported_and_logging_goes_on(tmp_path: Path) -> None:
    # a store with one game, then damaged as crashes and bad disks do
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(fields(hello(board="old-board")), "test")
        lg.event(1, "GAME", '{"ruleset": "zanzibar"}', "E1 GAME")
        for k in range(3):
            lg.event(k + 2, "MOVE", move_line(k + 2, k).decode()[len(f"E{k + 2} MOVE ") : -11], "E")
        g = st.games()[0]
    games = tmp_path / "games"
    (games / (g.key + ".txt")).write_text("South: ?\nNorth: ?\n1: 7L* 6R")  # half-written transcript
    with open(games / (g.key + ".jsonl"), "a") as f:
        f.write('{"t": 1, "board": "old-bo')  # a half-written last line
    (games / "stray.txt.tmp").write_text("half")
    (games / "elsewhere.txt").write_text("not a transcript at all")
    board = ScriptedBoard("OK " + hello(last=2), [game_line(), move_line(2, 0)])
    try:  # (another board than the library's: told so, #26)
        r = _bao_log(tmp_path, board.url, 2.5, "--board", "script-1")
    finally:
        board.close()
    assert r.returncode == 0, r.stderr
    for what in (
        "transcript differs from the database",
        "half-written line",
        "half-written file",
        "not in the database",
    ):
        assert what in r.stderr, (what, r.stderr)
    assert "Traceback" not in r.stderr
    with Store(tmp_path, repair=False) as st:
        old, new = st.games()
        assert old.plies == T1994.plies[:3] and new.plies == T1994.plies[:1]
        assert notation.parse_transcript((games / (old.key + ".txt")).read_text()).plies == T1994.plies[:3]
    # a database that is not one: set aside, rebuilt from the transcripts, and logging goes on
    db = tmp_path / "index.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    board = ScriptedBoard("OK " + hello(board="script-2", last=2), [game_line(), move_line(2, 0)])
    try:
        r = _bao_log(tmp_path, board.url, 2.5, "--board", "script-2")
    finally:
        board.close()
    assert r.returncode == 0, r.stderr
    assert "corrupt database" in r.stderr and "rebuilding from the transcripts" in r.stderr
    with Store(tmp_path, repair=False) as st:
        plies = sorted(len(x.plies) for x in st.games())
        assert plies == [1, 1, 3]  # the two games rebuilt from their transcripts, and the new one
    assert any(p.name.startswith("index.sqlite3.corrupt-") for p in tmp_path.iterdir())


def test_bao_log_live_view(tmp_path: Path) -> None:
    """Without --quiet: the board, the last moves, whose turn, the connection (rich), no error."""
    board = ScriptedBoard("OK " + hello(last=2), [game_line(), move_line(2, 0)])
    try:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "bao_host.cli",
                "log",
                "--port",
                board.url,
                "--data",
                str(tmp_path),
                "--duration",
                "1.5",
                "--south",
                "Ramadhan",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    finally:
        board.close()
    assert r.returncode == 0 and r.stderr == "", r.stderr
    for what in (
        "[connected] socket://127.0.0.1:",
        "last moves: 1.7L*",
        "North to move",
        "Ramadhan (South)",
        "moves stored 1",
    ):
        assert what in r.stdout, (what, r.stdout)
