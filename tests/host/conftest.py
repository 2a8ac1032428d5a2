import functools
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(autouse=True)
def _pilot_waits_for_the_screen_not_for_an_idle_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's Pilot, around each event it posts, waits for the screen to handle its messages, then for the
    process's CPU time to stop advancing, at most a second (textual._wait.wait_for_idle). A simulated board
    runs in the test's process and never lets it idle: each click waited four seconds for nothing. The tests
    wait for what a person would see (a frame, a line, a move stored), so the idle wait is kept short."""
    import textual.pilot

    monkeypatch.setattr(textual.pilot, "wait_for_idle", functools.partial(textual.pilot.wait_for_idle, max_sleep=0.05))


@pytest.fixture(autouse=True)
def _no_simulated_board_left_running() -> Iterator[None]:
    """A test that starts a simulated board (bao_host.boards.sim.SimRunner) or a fault proxy stops it: a thread
    left scanning would slow down every test after it."""
    yield
    left = [t.name for t in threading.enumerate() if t.name in ("simulated-board", "fault-proxy") and t.is_alive()]
    assert not left, f"threads left running: {left}"
