import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(autouse=True)
def _no_simulated_board_left_running() -> Iterator[None]:
    """A test that starts a simulated board (bao_host.boards.sim.SimRunner) or a fault proxy stops it: a thread
    left scanning would slow down every test after it."""
    yield
    left = [t.name for t in threading.enumerate() if t.name in ("simulated-board", "fault-proxy") and t.is_alive()]
    assert not left, f"threads left running: {left}"
