# The 74HC165 chain driver against the chip model (tests/firmware/fakes_chips.py); CPython and MicroPython.
import fakes_machine

fakes_machine.install()

from baoboard.drivers import board_config as cfg  # noqa: E402
from baoboard.drivers.sr74hc165 import SR74HC165  # noqa: E402
from fakes_board import FakeBoard  # noqa: E402
from fakes_chips import pit_names  # noqa: E402
from fakes_machine import SPI, Pin  # noqa: E402
from fwtest_util import Lcg  # noqa: E402


def _driver(board, polarity=cfg.SENS_POL, phase=cfg.SENS_PHA):
    spi = SPI(
        cfg.SENS_SPI,
        cfg.SENS_BAUD,
        polarity=polarity,
        phase=phase,
        sck=Pin(cfg.SENS_SCK),
        mosi=Pin(cfg.SENS_MOSI),
        miso=Pin(cfg.SENS_MISO),
    )
    return SR74HC165(lambda buf: spi.readinto(buf, 0), Pin(cfg.SENS_PL, Pin.OUT, value=1), cfg.SENS_CHIPS), spi


def _expected(board, pits):
    """Chip c -> byte c, input Dk -> bit k, straight from board.json's chip list."""
    out = bytearray(len(board.chip_inputs))
    for c, inputs in enumerate(board.wiring["chips"]):
        for k, name in enumerate(pit_names(inputs)):
            if name in pits:
                out[c] |= 1 << k
    return bytes(out)


def _all_names(board):
    return [n for chip in board.wiring["chips"] for n in pit_names(chip)]


def test_every_single_input_lands_on_its_bit():
    board = FakeBoard()
    drv, spi = _driver(board)
    for name in _all_names(board):
        board.touch([name])
        assert bytes(drv.read()) == _expected(board, [name]), name
    assert spi.hazards == 0  # mode 2: sampled on the falling edge, shifted on the rising edge


def test_random_patterns_and_nothing_touched():
    board = FakeBoard()
    drv, _ = _driver(board)
    every = _all_names(board)
    rng = Lcg(7)
    for _ in range(20):
        chosen = [n for n in every if rng.below(3) == 0]
        board.touch(chosen)
        assert bytes(drv.read()) == _expected(board, chosen)
    board.touch([])
    assert bytes(drv.read()) == bytes(4)
    board.touch(every)
    assert bytes(drv.read()) == b"\xff\xff\xff\xff"


def test_each_read_latches_the_present_inputs():
    board = FakeBoard()
    drv, _ = _driver(board)
    board.touch(["A1"])
    drv.read()
    board.touch(["b8"])  # a driver that clocked before latching would still report A1
    assert bytes(drv.read()) == _expected(board, ["b8"])
    assert board.chain.loads == 2 and board.chain.shifts == 1 + 2 * 32  # + the rising edge as SPI idles high


def test_the_buffer_is_allocated_once():
    board = FakeBoard()
    drv, _ = _driver(board)
    b1 = drv.read()
    b2 = drv.read()
    assert b1 is b2 and len(b1) == cfg.SENS_CHIPS


class _ClockFirst(SR74HC165):
    """A broken driver: reads, then latches (the latch order the model must catch)."""

    def read(self):
        self._shift_in(self.buf)
        self._pl.value(0)
        self._pl.value(1)
        return self.buf


class _LatchHeldLow(SR74HC165):
    def read(self):
        self._pl.value(0)
        self._shift_in(self.buf)
        self._pl.value(1)
        return self.buf


def test_the_model_catches_a_wrong_latch_order():
    board = FakeBoard()
    drv, _ = _driver(board)
    bad = _ClockFirst(drv._shift_in, drv._pl, cfg.SENS_CHIPS)
    board.touch(["A3"])
    assert bytes(bad.read()) != _expected(board, ["A3"])
    board = FakeBoard()
    drv, _ = _driver(board)
    held = _LatchHeldLow(drv._shift_in, drv._pl, cfg.SENS_CHIPS)
    board.touch(["A3", "B2"])
    assert bytes(held.read()) != _expected(board, ["A3", "B2"])


def test_the_model_catches_a_wrong_clock_phase():
    board = FakeBoard()
    drv, _ = _driver(board, polarity=0, phase=1)  # mode 1: the first rising edge shifts D7 away unread
    board.touch(["B8"])  # U1.D7: the very first bit out
    assert bytes(drv.read()) != _expected(board, ["B8"])


def test_mode_0_reads_right_only_by_propagation_delay():
    board = FakeBoard()
    drv, spi = _driver(board, polarity=0, phase=0)
    board.touch(["B8", "a1"])
    assert bytes(drv.read()) == _expected(board, ["B8", "a1"])
    assert spi.hazards > 0  # sampled on the very edge that shifts: the model flags it


def test_the_model_catches_a_swapped_chain():
    board = FakeBoard(swap_chips=True)
    drv, _ = _driver(board)
    board.touch(["B1"])
    assert bytes(drv.read()) != _expected(FakeBoard(), ["B1"])
