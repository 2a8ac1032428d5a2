"""The UIs' LED frame read through the protocol (bao_host.ui.ledfeed, issue #24): each STATE's frame, SNAP
between them for the blinking, and no SNAP while the board's engine searches (a host command stops the
search and it begins again, docs/protocol.md), so the computer still answers a UI that reads the frame as
often as it can."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bao import core, notation
from bao_host.record.logger import Logger
from bao_host.record.store import Store
from bao_host.ui.adapter import make_board
from bao_host.ui.ledfeed import LedFeed
from bao_testkit.simrig import wait_for
from baoboard.recogniser import PIT, activations


def test_the_computer_answers_a_ui_that_reads_the_frame_at_every_tick(tmp_path: Path) -> None:
    store = Store(tmp_path / "data")
    board, pump, _ = make_board(Logger(store), tmp_path / "flash")
    board.feed = feed = LedFeed(board.session.logger, board.session, every=0.0)  # a read at every call
    view = board.session.logger.view
    link = board.session.link
    command = link.command
    interrupted: list[str] = []  # the commands sent after South's move, before the computer's was lit

    def counted(typ: str, payload: str = "", timeout: float | None = None) -> Any:
        s, p = view.state, view.position  # (the board's STATE comes after its search; the MOVE before it)
        lit = s is not None and p is not None and s.pos == bytes(p.d) and s.shown >= 0
        if p is not None and p.to_move == core.NORTH and len(view.plies) == 1 and not lit:
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
