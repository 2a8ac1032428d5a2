"""The logger's serial session (bao_host.record.session.LinkSession over bao_host.record.link): an event is
acknowledged only once it is on disk, a failed write is retried from the board's own resend; finding the board (USB
vendor id, a board id seen before) and finding it again on another device path; the simulator's counts pit by pit."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bao import core
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.cli import log as log_commands
from bao_host.cli.log import find_board
from bao_host.record.logger import Logger, Result
from bao_host.record.session import LinkSession
from bao_host.record.state import expected_counts
from bao_host.record.store import Store
from bao_testkit.simrig import ROOT, game_1994, wait_for
from baoboard.memstorage import FakeStorage
from baoboard.recogniser import activations, sequence


@pytest.fixture
def board() -> Any:
    link = PtyLink()
    runner = SimRunner(CPythonBoard(storage=FakeStorage(), board_id="sim-session"), link).start()
    yield runner, link
    runner.close()


def test_an_event_is_acknowledged_only_once_it_is_stored(tmp_path: Path, board: Any) -> None:
    runner, link = board
    st = Store(tmp_path)
    lg = Logger(st)
    s = LinkSession(link.path, lg)
    failures = {"left": 3}
    real = lg.event

    def flaky(seq: int, typ: str, payload: str, raw: str, epoch: str | None = None) -> Result:
        if typ == "MOVE" and failures["left"] > 0:  # the disk fails under the first MOVE, three times
            failures["left"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return real(seq, typ, payload, raw, epoch=epoch)

    lg.event = flaky  # type: ignore[method-assign]
    ever_ahead = []

    def poll() -> None:
        s.poll(0.005)
        stored = st.last_seq("sim-session", s.link.info.epoch) if s.link.info else 0
        if runner.wire.acked > stored:
            ever_ahead.append((runner.wire.acked, stored))
        if runner.idle:
            runner.scans(40)  # the board's clock runs on: its resend timer

    try:
        wait_for(lambda: s.connected and lg.view.game_id is not None, 60, poll, "the handshake")
        g = game_1994()
        for p, m in g.moves[:4]:
            job = runner.perform(p, m)
            wait_for(job.done.is_set, 60, poll, "the hands")
        wait_for(lambda: runner.wire.synced and len(st.games()[0].plies) == 4, 120, poll, "the moves stored")
        assert ever_ahead == []  # the board never heard of an event that was not on disk
        assert failures["left"] == 0
        assert st.games()[0].plies == g.plies[:4]
        assert st.db.execute("SELECT COUNT(*) FROM events WHERE type='MOVE'").fetchone()[0] == 4
        said = [m.text for m in lg.messages if "could not be stored" in m.text]
        assert len(said) == 3 and "disk I/O error" in said[0]
    finally:
        s.close()
        st.close()


def test_find_board_by_board_id_then_by_vendor_id(monkeypatch: pytest.MonkeyPatch) -> None:
    ports = [
        SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, serial_number="A1"),
        SimpleNamespace(device="/dev/ttyACM0", vid=0x2E8A, serial_number="OTHER"),
        SimpleNamespace(device="/dev/ttyACM1", vid=0x2E8A, serial_number="E6614103E7"),
        SimpleNamespace(device="/dev/ttyUSB1", vid=None, serial_number=None),
    ]
    monkeypatch.setattr(log_commands.list_ports, "comports", lambda: ports)
    assert find_board(["e6614103e7"]) == "/dev/ttyACM1"  # a board seen before first (any case)
    assert find_board([]) == "/dev/ttyACM0"  # else the first RP2040
    monkeypatch.setattr(log_commands.list_ports, "comports", lambda: ports[:1])
    assert find_board(["e6614103e7"]) is None


def test_the_board_is_found_again_on_another_path(tmp_path: Path, board: Any) -> None:
    runner, link = board
    with Store(tmp_path) as st:
        lg = Logger(st)
        # the device path it had is gone; locate() finds it where it came back
        s = LinkSession("socket://127.0.0.1:9", lg, locate=lambda: link.path, backoff=(0.05, 0.2))
        wait_for(lambda: s.connected and lg.view.game_id is not None, 60, lambda: s.poll(0.02), "the board")
        assert s.url == link.path and any("board found on" in m.text for m in lg.messages)
        s.close()


def test_bao_log_waits_for_a_board(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "bao_host.cli", "log", "--data", str(tmp_path), "--duration", "1.5", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert r.returncode == 0 and "looking for a Bao board" in r.stderr and "Traceback" not in r.stderr


def test_counts_pit_by_pit_end_at_the_rules_core_position() -> None:
    rng = random.Random(5)
    for ruleset in (core.ZANZIBAR, core.MALAWI):
        p = core.initial(ruleset)
        for _ in range(60):
            moves = core.legal_moves(p)
            if not moves:
                break
            for m, child in moves:
                n = len(sequence(p, m))
                assert expected_counts(p, m, n) == child.counts()
                assert all(min(expected_counts(p, m, k)) >= 0 for k in range(n))
            p = rng.choice(moves)[1]


def test_the_simulated_board_shows_counts_pit_by_pit(board: Any, tmp_path: Path) -> None:
    # as the board says them to a host of protocol 4 (its STATE notice), which the simulator reads on its line
    runner, link = board
    st = Store(tmp_path / "data")
    s = LinkSession(link.path, Logger(st))
    try:
        wait_for(lambda: runner.board.state is not None, 60, lambda: s.poll(0.005), "the board's STATE")
        g = game_1994()
        p, m = g.moves[0]  # 7L*: a seed from the store into a7 (namua), then captures and sowing
        seen = []
        for pit in list(activations(p, m))[:-1]:
            before = runner.board.state
            runner.tap(pit).wait()
            wait_for(lambda b=before: runner.board.state is not b, 60, lambda: s.poll(0.005), "the next STATE")
            seen.append(runner.counts())
    finally:
        s.close()
        st.close()
    a7 = core.pit_index("A7")
    assert seen[0][a7] == p.d[a7] + 1 and seen[0][core.STORE] == p.d[core.STORE] - 1
    assert all(sum(c) <= 64 for c in seen)  # (seeds in a hand are on no pit)
    assert len({tuple(c) for c in seen}) == len(seen)  # each activation changes what is shown
