# PicoHardware (the board's Hardware on a Pico) against the chip models: pit mapping, LEDs, serial, watchdog.
import fakes_machine

fakes_machine.install()

from baoboard.drivers import board_config as cfg  # noqa: E402
from baoboard.drivers.pico import PicoHardware  # noqa: E402
from fakes_board import FakeBoard  # noqa: E402
from fakes_chips import load_board, pit_index  # noqa: E402


class _Stream:
    def __init__(self, data=b""):
        self.data = bytearray(data)
        self.out = bytearray()

    def readinto(self, buf):
        if not self.data:
            return 0
        buf[0] = self.data[0]
        self.data = self.data[1:]
        return 1

    def write(self, b):
        self.out.extend(b)


class _Poller:
    def __init__(self, stream):
        self.s = stream

    def ipoll(self, timeout=-1, flags=0):
        return [(self.s, 1)] if self.s.data else []


def _hw(kind="sk9822", data=b"", swap_chips=False, chips=None, **kw):
    board = FakeBoard(kind, swap_chips=swap_chips, chips=chips)
    s = _Stream(data)
    return board, PicoHardware(serial_in=s, serial_out=s, poller=_Poller(s), **kw), s


def _only(i):
    bm = bytearray(4)
    bm[i >> 3] |= 1 << (i & 7)
    return bm


NAMES = [
    "A1",
    "A2",
    "A3",
    "A4",
    "A5",
    "A6",
    "A7",
    "A8",
    "B8",
    "B7",
    "B6",
    "B5",
    "B4",
    "B3",
    "B2",
    "B1",
    "a1",
    "a2",
    "a3",
    "a4",
    "a5",
    "a6",
    "a7",
    "a8",
    "b8",
    "b7",
    "b6",
    "b5",
    "b4",
    "b3",
    "b2",
    "b1",
]


def test_the_global_index_contract():
    for i, name in enumerate(NAMES):
        assert pit_index(name) == i
        assert cfg.PIT_NAMES[2 * i : 2 * i + 2] == name


def test_read_pits_reports_each_touched_pit_at_its_index():
    board, hw, _ = _hw()
    bm = bytearray(4)
    for i, name in enumerate(NAMES):
        board.touch([name])
        hw.read_pits(bm)
        assert bm == _only(i), name
    board.touch(["A1", "b1", "B8", "a8"])
    hw.read_pits(bm)
    assert bm == bytes([1, 1 << 0, 1 << 7, 1 << 7])
    board.touch([])
    hw.read_pits(bm)
    assert bm == bytes(4)


def test_a_swapped_chain_reads_the_wrong_pits():
    board, hw, _ = _hw(swap_chips=True)
    bm = bytearray(4)
    board.touch(["A1"])
    hw.read_pits(bm)
    assert bm != _only(0)


def test_show_lights_each_pit_with_its_colour():
    for kind in ("apa102", "sk9822"):
        board, hw, _ = _hw(kind)
        frame = bytearray(96)
        for i in range(32):
            frame[3 * i], frame[3 * i + 1], frame[3 * i + 2] = i + 1, 2 * i, 200 - i
        hw.show(frame)
        for i in range(32):
            assert board.pit_colour(i) == (cfg.LED_BRIGHTNESS_CAP, i + 1, 2 * i, 200 - i), NAMES[i]
        assert board.leds.hazards == 0


def test_one_pit_lit_is_that_pit():
    board, hw, _ = _hw()
    frame = bytearray(96)
    frame[3 * 21 + 1] = 255  # a6 green
    hw.show(frame)
    assert board.lit_pits() == [21]


def test_serial_read_takes_what_is_there_without_blocking():
    board, hw, s = _hw(data=b"H1 x\n")
    buf = bytearray(3)
    assert hw.serial_read(buf) == 3 and bytes(buf) == b"H1 "
    assert hw.serial_read(buf) == 2 and bytes(buf[:2]) == b"x\n"
    assert hw.serial_read(buf) == 0
    hw.serial_write(b"E1 MOVE\n")
    assert bytes(s.out) == b"E1 MOVE\n"


def test_watchdog_starts_at_the_first_feed():
    board, hw, _ = _hw()
    assert board.wdt is None
    hw.feed_watchdog()
    hw.feed_watchdog()
    assert board.wdt.timeout == cfg.WATCHDOG_MS and board.wdt.fed == 2
    board, hw, _ = _hw(watchdog_ms=0)
    hw.feed_watchdog()
    assert board.wdt is None


def test_a_calibrated_mapping_replaces_the_table():
    # a board with D0 and D1 of the second chip swapped: a recorded mapping makes it read right again
    chips = list(load_board()["chips"])
    c = chips[1]
    chips[1] = c[2:4] + c[0:2] + c[4:]
    p, q = pit_index(c[0:2]), pit_index(c[2:4])
    board, hw, _ = _hw(chips=chips)
    bm = bytearray(4)
    board.touch([c[0:2]])
    hw.read_pits(bm)
    assert bm == _only(q)
    fixed = bytearray(cfg.PIT_SENSOR_BIT)
    fixed[p], fixed[q] = fixed[q], fixed[p]
    board, hw, _ = _hw(chips=chips, pit_sensor_bit=bytes(fixed))
    board.touch([c[0:2]])
    hw.read_pits(bm)
    assert bm == _only(p)


def test_the_viper_loops_give_the_portable_loops_bytes():
    # baoboard.drivers.pico_loops: native code on the Pico and on both unix ports (make test-mp compiles it for
    # each), plain Python on CPython; it must load on all of them (PicoHardware's portable loops are only for a
    # Pico whose MicroPython cannot load it), and give the portable loops' bytes
    from baoboard.drivers import pico as pico_driver
    from baoboard.drivers.apa102 import APA102
    from baoboard.drivers.sr74hc165 import to_pits

    assert pico_driver.chain_frame is not None and pico_driver.chain_pits is not None
    seed = 12345
    order = list(range(32))
    for trial in range(20):
        for i in range(31, 0, -1):  # a shuffled mapping: any calibration's table
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            j = seed % (i + 1)
            order[i], order[j] = order[j], order[i]
        table = bytes(order)
        frame = bytearray(96)
        raw = bytearray(4)
        for i in range(96):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            frame[i] = seed >> 16 & 255
            if i < 4:
                raw[i] = seed >> 8 & 255
        portable = APA102(lambda b: None, 32, 31, 6, table)
        portable.show(frame)
        fast = APA102(lambda b: None, 32, 31, 6, table)
        pico_driver.chain_frame(fast.buf, frame, fast.led_pit, 32)
        assert fast.buf == portable.buf, trial
        a, b = bytearray(4), bytearray(b"\xff\xff\xff\xff")
        to_pits(raw, table, a)
        pico_driver.chain_pits(raw, table, b)
        assert a == b, trial
