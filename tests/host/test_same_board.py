"""Every UI reads the board through the protocol (issue #24): the words and the seed counts the terminal UI,
the web board and `bao log`'s view show come from what the board says on its serial line (its STATE notice,
protocol 4), never from the firmware's inside. So a board on a serial line that the host does not run is
guided in `bao log`'s view and on a web page with the terminal UI's words, and `make run` shows the same
guidance, pit by pit, on the simulated board and on the Bao-board image in the emulated Pico (the last test:
`make test-pico`)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bao import core
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner, touches
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.state import BoardState
from bao_host.record.store import Store
from bao_host.ui.adapter import make_board
from bao_host.ui.live import live_view
from bao_host.ui.web.live import LiveBoard
from bao_testkit.simrig import game_1994, wait_for
from rich.console import Console

FIRST, SECOND = game_1994().moves[:2]  # 7L* then 5R of the 1994 game: a namua capture, then a plain move


def _touches() -> list[int]:
    """The first two moves of the 1994 game touch by touch, with a wrong touch (b4: no move goes there) after
    the first move's start."""
    first = [pit for pit, _ in touches(*FIRST)]
    return [first[0], core.pit_index("b4"), *first[1:], *(pit for pit, _ in touches(*SECOND))]


def _follow(view: Any, tap: Callable[[int], None], step: Callable[[], None], said: Callable[[], Any]) -> list[Any]:
    """What `said()` shows at the start and after each touch, each once the board has said its new state."""
    wait_for(lambda: view.state is not None and view.game_id is not None, 120, step, "the board's first STATE")
    seen = [said()]
    for pit in _touches():
        before = view.state
        tap(pit)
        wait_for(lambda b=before: view.state is not b, 120, step, f"the board's STATE after {core.pit_name(pit)}")
        seen.append(said())
    return seen


def _text(renderable: Any) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(renderable)
    return out.getvalue()


def test_a_board_on_a_serial_line_is_guided_in_bao_log_and_on_a_web_page(tmp_path: Path) -> None:
    # the simulated board on a pseudo-terminal, as a board on USB: the host only reads its line
    (tmp_path / "flash").mkdir()
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(tmp_path / "flash"), board_id="usb-like"), link).start()
    store = Store(tmp_path / "data")
    logger = Logger(store)
    session = LinkSession(link.path, logger)
    page = LiveBoard("usb-like", logger, session=session)
    try:
        seen = _follow(
            logger.view,
            lambda pit: runner.tap(pit).wait(60),
            lambda: session.poll(0.005),
            lambda: (page.snapshot(), _text(live_view(logger))),
        )
    finally:
        session.close()
        runner.close()
        store.close()
    guides = [snap["guide"] for snap, _ in seen]
    step = "lift the seeds of A7 (yellow) and sow on; or choose the direction: drop one seed into A6 or A8 (blue)"
    assert guides[:5] == [
        "South to move: put a seed from the store into a green pit",
        step,
        "b4 refused (pink ✕), 1.3: the seeds go one by one into the next pits; " + step,
        "choose the direction: drop one seed into A6 or A8 (blue)",
        "drop one seed into A5 (white)",
    ]
    assert "1.4 capture: lift the seeds of A4 (red)" in guides
    assert guides[-1] == "South to move: put a seed from the store into a green pit"
    for (_, text), guide in zip(seen, guides):
        assert guide in text.replace("\n", "")  # bao log's view says the page's words
    # the page's seeds pit by pit: the store's seed into A7, A7's seeds lifted to be sown on
    a7 = core.pit_index("A7")
    before = FIRST[0].counts()[a7]
    assert [snap["counts"][a7] for snap, _ in seen[:4]] == [before, before + 1, before + 1, 0]
    assert [snap["stores"][0] for snap, _ in seen[:2]] == [22, 21]


def _said(board: Any) -> tuple[str, list[int], tuple[int, int], bytes]:
    """What make run's UIs show of the board (the terminal UI and the web board read the same adapter):
    the guidance, the seeds, the stores, and the LED frame the board drew with its state (a refused pit
    aside: it blinks, lit or dark as the board's clock had it at that instant)."""
    state: BoardState | None = board.session.logger.view.state
    leds = bytearray(state.leds if state is not None else b"")
    if state is not None and state.wrong >= 0:
        leds[3 * state.wrong : 3 * state.wrong + 3] = bytes(3)
    return board.step_guidance(), board.counts(), board.stores(), bytes(leds)


def _run(runtime: str, tmp_path: Path) -> list[Any]:
    store = Store(tmp_path / runtime / "data")
    logger = Logger(store)
    board, pump, _ = make_board(logger, tmp_path / runtime / "flash", runtime=runtime)

    def step() -> None:
        pump()
        board.poll()

    try:
        return _follow(logger.view, lambda pit: board.runner.tap(pit).wait(600), step, lambda: _said(board))
    finally:
        board.session.close()
        board.close()
        store.close()


@pytest.mark.pico
def test_make_run_shows_the_same_guidance_on_the_simulated_board_and_the_emulated_pico(tmp_path: Path) -> None:
    from bao_host.boards.pico import PicoUnavailable, check_available

    try:
        check_available()
    except PicoUnavailable as e:
        pytest.skip(f"no emulated Pico: {e}")
    sim = _run("cpython", tmp_path)
    pico = _run("pico", tmp_path)
    assert len(sim) == len(_touches()) + 1
    assert pico == sim
