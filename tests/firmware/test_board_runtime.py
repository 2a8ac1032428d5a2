# The board's run loop (baoboard.runtime.Supervisor), as firmware/main.py, `bao board` and every simulated
# board run it: a fault is reported on the serial link, the application starts again from its journal after
# a pause (200 ms, 2 s from the 5th restart on) during which the watchdog goes hungry; KeyboardInterrupt
# passes through (a healthy idle loop allocating nothing: test_board_idle). Runs on CPython and the MicroPython
# unix ports.
from baoboard.simhw import Hands, SimHardware, SimulatedBoard
from board_util import Host, TempFiles, plies


class Failing(SimHardware):
    """A sensor chain that fails on the next `fault` scans, raising `e` (names the board has interned anyway:
    each new name is a qstr in the test's Pico-sized heap, tools/run_mp_tests.py HEAPS)."""

    def __init__(self):
        super().__init__()
        self.fault = 0
        self.e = OSError("sensor chain gone")

    def read_pits(self, bitmap):
        if self.fault:
            self.fault -= 1
            raise self.e
        SimHardware.read_pits(self, bitmap)


def board():
    import random

    random.seed(9)  # the board's epoch, and so its heap layout, the same on every run (board_util.board)
    hw = Failing()
    faults = []
    st = TempFiles()
    b = SimulatedBoard(st, "test", hw=hw, on_error=faults.append)
    return b, hw, faults, st


def test_a_fault_is_reported_and_the_game_comes_back_from_the_journal():
    b, hw, faults, st = board()
    host = Host(hw)
    seen = bytearray()  # what the board writes, as the host reads it
    take = hw.on_write

    def on_write(data):
        seen.extend(data)
        take(data)

    hw.on_write = on_write
    hands = Hands(b)
    g = plies()
    for _ in range(2):
        p, m, _ = next(g)
        hands.perform(p, m)
        host.poll()
        seen[:] = b""  # (only what comes after matters: the heap is a Pico's)
    before = bytes(b.app.p.d)
    hw.fault = 1
    b.run(1, 5)  # the scan that fails
    assert b.app is None and len(faults) == 1 and b.runtime.restarts == 1
    out = bytes(seen)
    assert b"N0 ERROR OSError('sensor chain gone'" in out, out
    host.poll()
    seen[:] = b""
    feeds, steps = hw.feeds, b.runtime.steps
    b.run(39, 5)  # 195 ms: still waiting, and the watchdog is not fed
    assert b.app is None and hw.feeds == feeds and b.runtime.steps == steps
    b.run(1, 5)  # 200 ms after the fault: started again from the journal
    assert b.app is not None and bytes(b.app.p.d) == before
    assert hw.feeds == feeds + 1 and bytes(seen).count(b"HELLO") == 1
    p, m, _ = next(g)  # and the game goes on
    hands.perform(p, m)
    hands.scan(5)
    host.poll()
    assert len(host.moves()) == 3 and host.gaps == 0
    st.close()


def test_restarts_slow_down_from_the_fifth_on():
    b, hw, faults, st = board()
    hw.fault = 1000000  # for ever
    feeds = hw.feeds
    b.run(1000, 5)  # 5 s of board time: faults at 0, 0.2, 0.4, 0.6, 0.8 s, then 2.8 and 4.8 s
    assert b.runtime.restarts == 7 and len(faults) == 7
    assert hw.feeds == feeds  # a failing loop starves the watchdog: the hardware resets the board
    st.close()


def test_keyboard_interrupt_passes_through():
    b, hw, faults, st = board()
    hw.fault = 1
    hw.e = KeyboardInterrupt()
    try:
        b.run(3, 5)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("KeyboardInterrupt was caught")
    assert faults == [] and b.runtime.restarts == 0
    st.close()
