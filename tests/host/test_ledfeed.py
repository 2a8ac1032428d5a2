"""The UIs' LED frame read through the protocol (bao_host.ui.ledfeed, issue #24): each STATE's frame, SNAP
between them for the blinking, and no SNAP while the board's engine searches (a host command stops the
search and it begins again, docs/protocol.md), so the computer still answers a UI that reads the frame as
often as it can."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bao import core, notation
from bao_host.record.logger import Logger
from bao_host.record.store import Store
from bao_host.ui.adapter import make_board
from bao_host.ui.ledfeed import LedFeed
from bao_testkit.simrig import wait_for
from baoboard import opponent
from baoboard.recogniser import PIT, activations
from baoproto.frames import MAX_BOARD_LINE, LineAssembler, decode


def _thinking(view: Any) -> bool:
    """The board's computer searching, as the board says it (not as the feed judges): South has moved, the
    computer's move is not lit yet."""
    s, p = view.state, view.position  # (the board's STATE comes after its search; the MOVE before it)
    lit = s is not None and p is not None and s.pos == bytes(p.d) and s.shown >= 0
    return p is not None and p.to_move == core.NORTH and len(view.plies) == 1 and not lit


def test_the_computer_answers_a_ui_that_reads_the_frame_at_every_tick(tmp_path: Path) -> None:
    store = Store(tmp_path / "data")
    board, pump, _ = make_board(Logger(store), tmp_path / "flash")
    board.feed = feed = LedFeed(board.session.logger, board.session, every=0.0)  # a read at every call
    view = board.session.logger.view
    link = board.session.link
    command = link.command
    interrupted: list[str] = []  # the commands sent after South's move, before the computer's was lit

    def counted(typ: str, payload: str = "", timeout: float | None = None) -> Any:
        if _thinking(view):
            interrupted.append(typ)
        return command(typ, payload, timeout)

    link.command = counted  # type: ignore[method-assign]

    def tick() -> None:  # the UI's loop: the link pumped, the frame drawn
        pump()
        board.poll()
        board.leds()

    try:
        wait_for(lambda: board.session.connected and view.state is not None, 60, tick, "the board")
        board.computer("N", 4)  # the board's engine at its strongest: its search lasts many ticks
        wait_for(lambda: feed.cpu == "N 4", 30, tick, "the board to say who the computer plays")
        p = view.state.position() if view.state is not None else None
        assert p is not None
        for pit in activations(p, notation.parse_move(p, "7L*")[0]):
            board.runner.tap(pit & PIT).wait(60)
        wait_for(lambda: view.state is not None and view.state.side == core.NORTH, 60, tick, "South's move")
        state = wait_for(lambda: view.state if view.state.shown >= 0 else None, 120, tick, "the computer's move")
        assert state.side == core.NORTH
        assert interrupted == [], "the frame was read while the board's engine searched: the search stops"
        lit = bytes(feed.frame())
        assert lit[3 * state.shown + 1] > 0  # its start lit (green), as the frame the board said
    finally:
        board.session.close()
        board.close()
        store.close()


def _serial_while_busy(board: Any) -> None:
    """The host's bytes reach the in-process board while it computes, as a UART's reach a real board: the
    simulated board's thread otherwise hands them over between two scans only, so after a whole search,
    and a read during the search could never stop it as it stops a board's (docs/protocol.md)."""
    runner = board.runner
    hw = runner.board.hw
    read = hw.serial_read

    def arrived_meanwhile(buf: bytearray) -> int:
        runner.pump()  # (the board's thread, holding the runner's lock: the bytes waiting on the line)
        return int(read(buf))

    hw.serial_read = arrived_meanwhile


def test_a_ui_reading_the_frame_often_does_not_restart_the_boards_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The feed reads the frame (SNAP) at every tick of the UI's loop, and the board's search lasts many
    # ticks (level 4 given a Pico's search time on CPython: many more nodes): each read that reached the
    # board while it searched would stop the search and begin it again.
    monkeypatch.setattr(opponent, "NODES", opponent.NODES[:4] + (50_000,))
    store = Store(tmp_path / "data")
    board, pump, _ = make_board(Logger(store), tmp_path / "flash")
    _serial_while_busy(board)
    board.feed = feed = LedFeed(board.session.logger, board.session, every=0.0)
    view = board.session.logger.view
    said: list[str] = []  # the board's CPU notices (its computer's move found), as the line carries them

    def line(raw: bytes) -> None:
        f = decode(raw)
        if not isinstance(f, int) and f[0] == "N" and f[2] == "CPU":
            said.append(f[3])

    board.runner.on_serial = LineAssembler(MAX_BOARD_LINE, line, lambda code: None).feed
    link = board.session.link
    command = link.command
    sent_while_thinking: list[str] = []  # the commands the UI sent while the board said it searched
    frames_while_thinking: set[bytes] = set()  # the frames the UI showed then

    def counted(typ: str, payload: str = "", timeout: float | None = None) -> Any:
        if _thinking(view):
            sent_while_thinking.append(typ)
        return command(typ, payload, timeout)

    link.command = counted  # type: ignore[method-assign]

    def tick() -> None:  # the UI's loop: the link pumped, the frame drawn
        pump()
        board.poll()
        shown = bytes(board.leds())
        if _thinking(view):
            frames_while_thinking.add(shown)

    def computers_move() -> Any:
        s, p = view.state, view.position
        if sent_while_thinking:
            return "restarted"  # (fails below, at once: it would begin again at every read)
        return s if s is not None and p is not None and s.pos == bytes(p.d) and s.shown >= 0 else None

    try:
        wait_for(lambda: board.session.connected and view.state is not None, 60, tick, "the board")
        board.computer("N", 4)
        wait_for(lambda: feed.cpu == "N 4", 30, tick, "the board to say who the computer plays")
        p = view.state.position() if view.state is not None else None
        assert p is not None
        for pit in activations(p, notation.parse_move(p, "7L*")[0]):  # (queued: the UI's loop goes on,
            board.runner.tap(pit & PIT)  # as a player's clicks leave it, while the board searches after them)
        wait_for(lambda: len(view.plies) == 1, 60, tick, "South's move")
        state = wait_for(computers_move, 120, tick, "the computer's move")
        assert sent_while_thinking == [], "the UI read the board while it searched: each read began it again"
        assert state.side == core.NORTH
        assert frames_while_thinking, "the UI never saw the board searching: the test tells nothing"
        lit = bytes(feed.frame())
        assert lit[3 * state.shown + 1] > 0  # its start lit (green), as the frame the board said
        assert len(said) == 1, said  # the computer's move found and said once
    finally:
        board.session.close()
        board.close()
        store.close()
