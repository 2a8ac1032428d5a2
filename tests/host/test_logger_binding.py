"""The logger is bound to its board and its library (issue #14): another board on its port is refused in
the handshake and never acknowledged; a second `bao log` on the same library is refused, naming the first;
a stale lock is taken over; serial ports are opened exclusively; by-id paths are preferred; after a gap the
logger re-anchors on the position the board sends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bao import notation, position_json
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.cli import log as log_commands
from bao_host.cli.log import find_board, stable_path
from bao_host.record.link import Link, LinkError
from bao_host.record.lock import LibraryLock, LockHeld
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from bao_testkit.faultproxy import FaultProxy, Rates
from bao_testkit.simrig import ROOT, T1994, wait_for
from baoboard.memstorage import FakeStorage
from test_log_bad_input import ScriptedBoard, game_line, move_line

BAO = [sys.executable, "-m", "bao_host.cli"]
QUIET = Rates(0, 0, 0, 0, 0)


def hello_of(board: str, last: int, acked: int = 0, epoch: str = "e1") -> str:
    return f"OK proto=1 fw=9.9.9 rules=1 board={board} epoch={epoch} last={last} acked={acked}"


def addr(b: ScriptedBoard) -> tuple[str, int]:
    host, port = b.url.removeprefix("socket://").split(":")
    return host, int(port)


def test_another_board_on_the_port_is_refused_and_never_acknowledged(tmp_path: Path) -> None:
    a = ScriptedBoard(hello_of("board-A", 3), [game_line(1), move_line(2, 0), move_line(3, 1)])
    b = ScriptedBoard(hello_of("board-B", 3), [game_line(1), move_line(2, 0), move_line(3, 1)])
    proxy = FaultProxy(addr(a), 1, QUIET).start()
    st = Store(tmp_path)
    lg = Logger(st)
    s = LinkSession(proxy.url, lg, backoff=(0.02, 0.1))
    try:
        wait_for(lambda: a.acked == 3, 60, lambda: s.poll(0.01), "board A's events")
        proxy.switch(addr(b))  # the path is reused by another board
        wait_for(lambda: s.link.stats.refused >= 2, 60, lambda: s.poll(0.01), "board B refused twice")
        assert b.acked == 0 and "HELLO" in b.commands  # it was asked who it is, and nothing more
        assert [g.board_id for g in st.games()] == ["board-A"] and len(st.games()[0].plies) == 2
        refused = [m.text for m in lg.messages if "refused board" in m.text]
        assert len(refused) == 1  # said once, however often it is retried
        assert "board-B" in refused[0] and "board-A" in refused[0]
        proxy.switch(addr(a))  # its own board back: logging goes on
        wait_for(
            lambda: s.connected and s.link.info is not None and s.link.info.board == "board-A",
            60,
            lambda: s.poll(0.01),
            "board A again",
        )
    finally:
        s.close()
        st.close()
        proxy.stop()
        a.close()
        b.close()


def test_a_logger_given_a_board_id_refuses_any_other(tmp_path: Path) -> None:
    b = ScriptedBoard(hello_of("board-B", 1), [game_line(1)])
    with Store(tmp_path) as st:
        lg = Logger(st)
        s = LinkSession(b.url, lg, backoff=(0.02, 0.1), board="board-A")
        try:
            wait_for(lambda: s.link.stats.refused >= 1, 60, lambda: s.poll(0.01), "the refusal")
            assert b.acked == 0 and st.games() == [] and not s.connected
        finally:
            s.close()
    b.close()


def test_a_second_logger_on_the_same_library_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "lib"
    cmd = [*BAO, "log", "--port", "/dev/ttyNOPE", "--quiet", "--data", str(data)]
    first = subprocess.Popen([*cmd, "--duration", "120"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        wait_for(lambda: LibraryLock(data).holder()[0] == first.pid, 60, None, "the first logger's lock")
        second = subprocess.run([*cmd, "--duration", "5"], capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert second.returncode == 1
        assert f"in use by bao log (pid {first.pid})" in second.stderr and "one logger per library" in second.stderr, (
            second.stderr
        )
        assert "Traceback" not in second.stderr
    finally:
        first.kill()
        first.wait(10)
        assert first.stderr is not None
        first.stderr.close()
    # killed with SIGKILL: its lock file stays, with its pid: stale, taken over by the next logger
    assert LibraryLock(data).holder()[0] == first.pid
    third = subprocess.run([*cmd, "--duration", "0.5"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert third.returncode == 0 and "stale lock" in third.stderr and f"pid {first.pid}) is gone" in third.stderr


def test_the_library_lock_in_process(tmp_path: Path) -> None:
    a, b = LibraryLock(tmp_path), LibraryLock(tmp_path)
    a.acquire("bao log")
    with pytest.raises(LockHeld, match=f"bao log \\(pid {os.getpid()}\\)"):
        b.acquire("bao log")
    a.release()
    b.acquire("bao log")
    assert b.held and b.stale == ""
    b.release()


@pytest.fixture
def pty_board() -> Any:
    link = PtyLink()
    runner = SimRunner(CPythonBoard(storage=FakeStorage(), board_id="sim-excl"), link).start()
    yield link
    runner.close()


def test_the_serial_port_is_opened_exclusively(pty_board: Any) -> None:
    first = Link(pty_board.path)
    first.connect(timeout=30)
    try:
        second = Link(pty_board.path)
        with pytest.raises(LinkError, match="exclusive"):
            second.connect(timeout=1)
    finally:
        first.close()


def test_by_id_paths_are_preferred_and_a_bound_logger_looks_for_its_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = tmp_path / "ttyACM7"
    dev.write_text("")
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "usb-MicroPython_Board_in_FS_mode_E6614103E7-if00").symlink_to(dev)
    assert stable_path(str(dev), by_id) == str(by_id / "usb-MicroPython_Board_in_FS_mode_E6614103E7-if00")
    assert stable_path("/dev/ttyNOPE", by_id) == "/dev/ttyNOPE"
    monkeypatch.setattr(log_commands, "BY_ID", by_id)
    ports = [
        SimpleNamespace(device="/dev/ttyACM0", vid=0x2E8A, serial_number="OTHER"),
        SimpleNamespace(device=str(dev), vid=0x2E8A, serial_number="E6614103E7"),
    ]
    monkeypatch.setattr(log_commands.list_ports, "comports", lambda: ports)
    assert find_board([]) == "/dev/ttyACM0"
    assert find_board([], bound="e6614103e7").endswith("E6614103E7-if00")
    monkeypatch.setattr(log_commands.list_ports, "comports", lambda: ports[:1])
    assert find_board([], bound="E6614103E7") is None  # another board is not ours


def test_after_a_gap_the_logger_re_anchors_on_the_boards_position(tmp_path: Path) -> None:
    positions = notation.replay(T1994)
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello({"proto": "1", "board": "B1", "epoch": "e1"})
        lg.event(1, "GAME", '{"ruleset": "zanzibar"}', "E1 GAME")
        for i in range(4):
            lg.event(i + 2, "MOVE", f"{T1994.plies[i]} {position_json.dumps(positions[i + 1], False)}", "E")
        # events 6..9 (moves 5..8) were acknowledged to a logger whose store lost them
        lg.gap("B1", "e1", 6, 9)
        for i in range(8, 12):
            lg.event(i + 2, "MOVE", f"{T1994.plies[i]} {position_json.dumps(positions[i + 1], False)}", "E")
        games = st.games()
        assert [len(g.plies) for g in games] == [4, 3]  # the old record, and the game continued
        assert games[1].start_position().d == positions[9].d and games[1].board_id == "B1"
        assert games[1].plies == T1994.plies[9:12]
        assert st.current_position(games[1].id).d == positions[12].d
        assert st.db.execute("SELECT COUNT(*) FROM events WHERE flag<>''").fetchone()[0] == 0
        gap = st.db.execute("SELECT * FROM events WHERE type='GAP'").fetchall()
        assert len(gap) == 1 and gap[0]["game"] == games[0].id and gap[0]["raw"] == "GAP 6..9"
        assert any("re-anchored" in m.text for m in lg.messages)
        # without a gap, a move that does not follow is flagged, as before
        lg.event(20, "MOVE", f"{T1994.plies[0]} {position_json.dumps(positions[1], False)}", "E")
        assert st.db.execute("SELECT COUNT(*) FROM events WHERE flag<>''").fetchone()[0] == 1
        assert len(st.games()) == 2


def test_a_gap_seen_in_the_handshake_is_recorded(tmp_path: Path) -> None:
    # the board says events up to 5 were acknowledged; this library holds none of them (another one got them)
    lines = [move_line(6, 4), move_line(7, 5)]
    b = ScriptedBoard(hello_of("board-G", 7, acked=5), lines)
    with Store(tmp_path) as st:
        lg = Logger(st)
        s = LinkSession(b.url, lg, backoff=(0.02, 0.1))
        try:
            wait_for(lambda: b.acked == 7, 60, lambda: s.poll(0.01), "the events after the gap")
            assert [e["type"] for e in st.db.execute("SELECT type FROM events ORDER BY id")] == ["GAP", "MOVE", "MOVE"]
            games = st.games()
            assert len(games) == 1 and games[0].plies == T1994.plies[5:6]  # re-anchored after move 5
            assert games[0].start_position().d == notation.replay(T1994)[5].d
        finally:
            s.close()
    b.close()


def _logger_waits_then_resumes(
    tmp_path: Path,
    data: Path,
    block: Callable[[subprocess.Popen[str]], None],
    unblock: Callable[[subprocess.Popen[str]], None],
    said: str,
    preexec: Callable[[], None] | None = None,
) -> None:
    """`bao log` started while the data folder cannot be written: one clear message, nothing acknowledged
    (the board keeps its events), and logging resumes by itself once the cause is gone."""
    board = ScriptedBoard(hello_of("board-RO", 3), [game_line(1), move_line(2, 0), move_line(3, 1)])
    # (its messages through a pipe: a file would meet the full disk too)
    proc = subprocess.Popen(
        [*BAO, "log", "--port", board.url, "--quiet", "--data", str(data)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=preexec,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    try:
        block(proc)
        wait_for(lambda: said in "".join(lines), 60, None, f"the message {said!r}")
        assert board.acked == 0 and board.commands == []  # not even connected: nothing can be lost
        unblock(proc)
        wait_for(lambda: board.acked == 3, 90, None, "the events stored once the folder can be written")
    finally:
        proc.terminate()
        proc.wait(30)
        reader.join(10)
        board.close()
    text = "".join(lines)
    assert text.count(said) == 1 and "Traceback" not in text, text
    with Store(data, readonly=True) as st:
        assert st.games()[0].plies == T1994.plies[:2]


def test_a_read_only_data_folder_at_start_is_waited_for(tmp_path: Path) -> None:
    data = tmp_path / "lib"
    data.mkdir()
    if subprocess.run(["chattr", "+i", str(data)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here (an immutable folder stands for a read-only one)")
    try:
        _logger_waits_then_resumes(
            tmp_path,
            data,
            lambda p: None,
            lambda p: subprocess.run(["chattr", "-i", str(data)], check=True),
            "cannot be written",
        )
    finally:
        subprocess.run(["chattr", "-i", str(data)], capture_output=True)


def test_a_full_disk_at_start_is_waited_for(tmp_path: Path) -> None:
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "prlimit"):
        pytest.skip("no prlimit: cannot give the logger its disk space back")

    def no_space() -> None:  # every write that grows a file fails (EFBIG), as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))

    def space(p: subprocess.Popen[str]) -> None:
        resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    _logger_waits_then_resumes(tmp_path, tmp_path / "lib", lambda p: None, space, "the disk is full", preexec=no_space)


def test_bao_board_log_holds_the_library_lock_as_bao_log_does(tmp_path: Path) -> None:
    """`bao board --log` is a logger too: refused (its board not started) while a `bao log` holds the library,
    and while it runs, a `bao log` on the same folder is refused naming it; it lets go when it stops."""
    from bao_host import cli

    data = tmp_path / "lib"
    board = ["board", "--hal", "sim", "--log", "--store", str(data), "--data", str(tmp_path / "flash"), "--quiet"]
    log_cmd = [*BAO, "log", "--port", "/dev/ttyNOPE", "--quiet", "--data", str(data)]
    first = subprocess.Popen([*log_cmd, "--duration", "120"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        wait_for(lambda: LibraryLock(data).holder()[0] == first.pid, 60, None, "bao log's lock")
        err = _stderr_of(lambda: cli.main([*board, "--duration", "30"]))
        assert err.status == 2, err.text
        [line] = err.text.strip().splitlines()
        assert f"in use by bao log (pid {first.pid})" in line and "one logger per library" in line, line
        assert "--store" in line
        assert not (tmp_path / "flash" / "journal").exists() and "flash in" not in err.text  # never started
    finally:
        first.kill()
        first.wait(10)
        assert first.stderr is not None
        first.stderr.close()

    args = cli.build_parser().parse_args([*board, "--duration", "120"])
    stop = threading.Event()
    status: list[int] = []
    t = threading.Thread(target=lambda: status.append(args.func(args, stop=stop)), daemon=True)
    t.start()
    try:
        wait_for(
            lambda: LibraryLock(data).holder() == (os.getpid(), "bao board --log"), 60, None, "bao board --log's lock"
        )
        second = subprocess.run([*log_cmd, "--duration", "30"], capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert second.returncode == 1, second.stderr
        assert f"in use by bao board --log (pid {os.getpid()})" in second.stderr, second.stderr
        assert "one logger per library" in second.stderr and "Traceback" not in second.stderr
    finally:
        stop.set()
        t.join(60)
    assert status == [0] and not t.is_alive()
    assert LibraryLock(data).holder() == (0, "")  # let go: the next logger starts
    after = LibraryLock(data)
    after.acquire("bao log")
    assert after.stale == ""
    after.release()


def _stderr_of(call: Callable[[], int]) -> SimpleNamespace:
    import io
    from contextlib import redirect_stderr

    buf = io.StringIO()
    with redirect_stderr(buf):
        status = call()
    return SimpleNamespace(status=status, text=buf.getvalue())


def test_a_restarted_logger_keeps_the_librarys_board_and_refuses_another(tmp_path: Path) -> None:
    """Issue #26 item 6: the binding belongs to the library. A `bao log` restarted without --board on a library
    that holds board A's games refuses board B on its path (nothing acknowledged) until told `--board B`."""
    data = tmp_path / "lib"
    a = ScriptedBoard(hello_of("board-A", 2), [game_line(1), move_line(2, 0)])
    b = ScriptedBoard(hello_of("board-B", 2), [game_line(1), move_line(2, 0)])
    cmd = [*BAO, "log", "--quiet", "--data", str(data)]

    def run(board: ScriptedBoard, *extra: str) -> str:  # a logger's run of 8 s, on board's path
        r = subprocess.run(
            [*cmd, "--port", board.url, "--duration", "8", *extra],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        return r.stderr

    try:
        run(a)
        assert a.acked == 2
        said = run(b)  # the logger restarted (after a kill, a reboot): board B is on the path now
        assert b.acked == 0 and "Traceback" not in said
        [refusal] = [x for x in said.splitlines() if "refused board" in x]
        assert "board-B" in refusal and "board-A" in refusal and "--board board-B" in refusal, refusal
        with Store(data, readonly=True) as st:
            assert [g.board_id for g in st.games()] == ["board-A"]
        run(b, "--board", "board-B")  # told: it is logged into this library
        assert b.acked == 2
        with Store(data, readonly=True) as st:
            assert sorted(g.board_id for g in st.games()) == ["board-A", "board-B"]
    finally:
        a.close()
        b.close()
