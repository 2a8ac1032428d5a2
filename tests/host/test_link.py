"""The host link against a scripted board: the real firmware Outbox + Journal on an in-memory flash, served on
socket://127.0.0.1 (and one run over a pseudo-terminal), with disconnects, reboots, garbage and bad versions."""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any

import pytest
from bao_host.record.link import CommandError, Link, ProtocolVersionError
from bao_testkit.simrig import wait_for
from baoboard.journal import Journal
from baoboard.memstorage import FakeStorage
from baoboard.outbox import Outbox
from baoproto.frames import encode

EPOCH = "0badcafe"
# How long a reply or an event may take before the test fails. A bound, not a pause: the tests go on as
# soon as it comes, and on a loaded machine (other jobs, the whole suite) the board's thread can wait
# seconds for a core.
PATIENCE = 30.0


class FakeBoard:
    """The board's transport, unchanged, behind a TCP socket; `drop()` unplugs, `reboot()` power-cycles."""

    def __init__(self, hello: str = "fw=test rules=1 board=test1") -> None:
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.srv.settimeout(0.05)
        self.url = f"socket://127.0.0.1:{self.srv.getsockname()[1]}"
        self.fs = FakeStorage()
        self.lock = threading.RLock()
        self.conn: socket.socket | None = None
        self.hello = hello
        self.commands: list[tuple[int, str, str]] = []
        self.connections = 0
        self.stop = False
        self.boot()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def boot(self) -> None:
        with self.lock:
            j = Journal(self.fs, epoch_fn=lambda: EPOCH)
            j.open()
            self.ob = Outbox(j, self.write, lambda: int(time.monotonic() * 1000), hello=self.hello, timeout_ms=200)
            self.ob.on_command = self.handle
            self.ob.start()

    def handle(self, cid: int, typ: str, payload: str) -> tuple[bool, str]:
        self.commands.append((cid, typ, payload))
        if typ == "MODE":
            return (payload in ("teach", "play", "silent"), "" if payload != "loud" else "badarg mode")
        if typ == "SNAP":
            return (True, '{"moves":' + str(len(self.ob.journal.moves)) + "}")
        return (False, "unknown " + typ)

    def write(self, data: bytes) -> None:
        c = self.conn
        if c is None:
            raise OSError("no host")
        c.sendall(data)

    def raw(self, data: bytes) -> bool:
        with self.lock:
            try:
                self.write(data)
                return True
            except OSError:
                return False

    def post(self, typ: str, payload: str = "") -> int:
        with self.lock:
            return self.ob.post(typ, payload)

    def drop(self) -> None:
        with self.lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

    def reboot(self) -> None:
        self.drop()
        self.boot()

    def run(self) -> None:
        while not self.stop:
            if self.conn is None:
                try:
                    c, _ = self.srv.accept()
                except OSError:
                    continue
                c.settimeout(0.02)
                with self.lock:
                    self.conn = c
                    self.connections += 1
            try:
                data = self.conn.recv(4096) if self.conn is not None else b""
                if self.conn is not None and data == b"":
                    self.drop()
                    continue
            except TimeoutError:
                data = b""
            except OSError:
                self.drop()
                continue
            with self.lock:
                try:
                    if data:
                        self.ob.feed(data)
                    self.ob.poll()
                except OSError:
                    self.conn = None

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.drop()
        self.srv.close()


@pytest.fixture
def board() -> Any:
    b = FakeBoard()
    yield b
    b.close()


def collect(link: Link, n: int, timeout: float = PATIENCE) -> list[Any]:
    got: list[Any] = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        for ev in link.poll(0.05):
            got.append(ev)
            link.ack(ev.seq)
    return got


def test_handshake_events_acks(board: FakeBoard) -> None:
    board.post("GAME", '{"ruleset":"zanzibar","options":{}}')
    link = Link(board.url, reply_timeout=PATIENCE)
    info = link.connect()
    assert (info.proto, info.board, info.epoch, info.last) == (5, "test1", EPOCH, 1)
    for i in range(5):
        board.post("MOVE", f'a{i + 1}> {{"n":{i}}}')
    got = collect(link, 6)
    assert [e.seq for e in got] == list(range(1, 7))
    assert got[1].words()[0] == "a1>" and got[1].json() == {"n": 0}
    assert got[0].json()["ruleset"] == "zanzibar"
    wait_for(
        lambda: board.ob.journal.pending == [] and board.ob.journal.acked == 6,
        PATIENCE,
        what="the board's journal to take the acks",
    )
    link.close()


def test_commands(board: FakeBoard) -> None:
    link = Link(board.url, reply_timeout=PATIENCE)
    link.connect()
    assert link.mode("teach").ok
    with pytest.raises(CommandError):
        link.command("MODE", "loud").check()
    assert link.command("FROB").payload == "unknown FROB"
    assert link.snapshot() == {"moves": 0}
    assert [c[1] for c in board.commands] == ["MODE", "MODE", "FROB", "SNAP"]
    link.close()


def test_disconnect_reboot_garbage_no_loss_no_duplicate(board: FakeBoard) -> None:
    link = Link(board.url, reply_timeout=PATIENCE, backoff=(0.05, 0.2))
    link.connect()
    got: list[Any] = []
    posted = 0
    faults = 0
    for round_ in range(6):
        for _ in range(4):
            posted += 1
            board.post("MOVE", f"m{posted} {{}}")
        faults += board.raw(b"\x00garbage\r\n" + encode("E", 1, "MOVE", "x")[:-4] + b"XXX\n")
        got += collect(link, 2, timeout=2)
        shaken = link.stats.handshakes
        if round_ % 2 == 0:
            board.drop()  # unplugged
        else:
            board.reboot()  # power cycle: the journal brings back what was not acknowledged
        faults += 1
        end = time.monotonic() + PATIENCE  # the link notices and shakes hands again (each fault on its own)
        while link.stats.handshakes == shaken and time.monotonic() < end:
            got += collect(link, 1, timeout=0.05)
        for _ in range(2):
            posted += 1
            board.post("MOVE", f"m{posted} {{}}")
    got += collect(link, posted - len(got), timeout=PATIENCE)
    assert [e.seq for e in got] == list(range(1, posted + 1))
    assert [e.words()[0] for e in got] == [f"m{i}" for i in range(1, posted + 1)]
    assert link.stats.bad.get("crc", 0) + link.stats.bad.get("syntax", 0) >= 2
    assert link.stats.handshakes >= 7  # the first, and one after each fault
    print("faults injected:", faults, "stats:", link.stats)
    link.close()


def test_host_restart_resumes_without_duplicates(board: FakeBoard) -> None:
    for i in range(5):
        board.post("MOVE", f"m{i + 1} {{}}")
    link = Link(board.url, reply_timeout=PATIENCE)
    link.connect()
    first = collect(link, 3)[:3]
    stored = first[-1].seq  # the logger stored 3 events, then died before acknowledging more
    link.close()
    wait_for(lambda: board.conn is None, PATIENCE, what="the board to see the host go")
    link2 = Link(board.url, reply_timeout=PATIENCE, resume=lambda info: stored if info.epoch == EPOCH else 0)
    link2.connect()
    rest = collect(link2, 2)
    assert [e.seq for e in rest] == [4, 5]
    assert collect(link2, 1, timeout=0.5) == []  # nothing more comes: no duplicate of 1..3
    assert link2.stats.events == 2
    link2.close()


def test_unknown_protocol_version_is_a_clear_error() -> None:
    b = FakeBoard()
    try:
        b.ob.hello = "fw=x"
        b.ob.hello_fields = lambda proto=3: "proto=9 fw=x epoch=1 last=0 acked=0"  # type: ignore[method-assign]
        errors: list[str] = []
        link = Link(b.url, reply_timeout=PATIENCE, on_error=errors.append)
        with pytest.raises(ProtocolVersionError):
            link.connect()
        assert link.stats.proto_errors == 1 and "protocol 9" in errors[-1]
        assert not link.connected
    finally:
        b.close()


def test_events_iterator_reconnects_by_itself(board: FakeBoard) -> None:
    link = Link(board.url, reply_timeout=PATIENCE, backoff=(0.05, 0.1))
    link.connect()
    board.post("GAME", "{}")
    seen: list[int] = []
    for ev in link.events():
        seen.append(ev.seq)
        if ev.seq == 1:
            board.drop()
            board.post("MOVE", "a1> {}")
        if ev.seq == 2:
            link.close()
    assert seen == [1, 2]


def test_over_a_pseudo_terminal() -> None:
    master, slave = os.openpty()
    path = os.ttyname(slave)
    fs = FakeStorage()
    j = Journal(fs, epoch_fn=lambda: EPOCH)
    j.open()
    ob = Outbox(j, lambda d: os.write(master, d) and None, lambda: int(time.monotonic() * 1000), hello="board=pty")
    stop = threading.Event()

    def pump() -> None:
        import select

        while not stop.is_set():
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    ob.feed(os.read(master, 4096))
                except OSError:
                    return
            ob.poll()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        ob.post("GAME", "{}")
        link = Link(path, reply_timeout=PATIENCE)
        assert link.connect().board == "pty"
        assert [e.seq for e in collect(link, 1)] == [1]
        link.close()
    finally:
        stop.set()
        t.join(2)
        os.close(master)
        os.close(slave)


def test_a_host_says_hello_again_to_a_restarted_board_of_version_4(monkeypatch: pytest.MonkeyPatch) -> None:
    # protocol 5 (issue #28) must keep older boards working: a board of version 4 that restarts on the same line
    # says H0 HELLO (proto=1 speaks=4,3,2,1); the host says HELLO again so that it settles on 4 and the board
    # tells it its state (STATE). A host of 5 greeted only a board that speaks 5, and lost STATE after such a
    # restart
    from baoboard import outbox

    monkeypatch.setattr(outbox, "PROTO", 4)
    monkeypatch.setattr(outbox, "SPEAKS", "4,3,2,1")
    b = FakeBoard()
    try:
        link = Link(b.url, reply_timeout=PATIENCE)
        assert link.connect().proto == 4
        b.boot()  # a restart, the line kept (H0 HELLO on it)
        assert b.ob.proto == 0
        wait_for(lambda: link.poll(0.05) is not None and b.ob.proto == 4, PATIENCE, what="HELLO again, version 4")
        link.close()
    finally:
        b.close()
