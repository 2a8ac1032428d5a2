# The board's run loop when nothing happens: a healthy idle loop allocates nothing (MicroPython's heap lock;
# skipped on CPython). Apart from test_board_runtime only for the heap: each module's names (qstrs) are
# interned in the same Pico-sized heap as the board (tools/run_mp_tests.py, HEAPS).
import sys

from baoboard.simhw import SimulatedBoard
from board_util import Host, TempFiles


def test_an_idle_loop_allocates_nothing():
    if sys.implementation.name != "micropython":
        import pytest

        pytest.skip("the heap lock is MicroPython's")
    import random

    import micropython

    random.seed(9)  # the board's epoch, and so its heap layout, the same on every run (board_util.board)
    faults = []
    st = TempFiles()
    b = SimulatedBoard(st, "test", on_error=faults.append)
    hw = b.hw
    host = Host(hw)
    b.run(10, 5)
    host.poll()  # the host has every event: nothing to resend
    b.run(10, 5)
    run, sleep = b.runtime.run, hw.sleep_ms
    micropython.heap_lock()
    try:
        run(sleep, 5, 200)  # 1 s of scans: the guide's blinking included
    finally:
        micropython.heap_unlock()
    assert faults == [] and b.runtime.steps >= 220
    st.close()
