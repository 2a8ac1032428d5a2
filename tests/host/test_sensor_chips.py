"""A whole 74HC165 stuck, on the chip models (tests/firmware/fakes_chips.py): the board application on the
Pico's drivers (baoboard.drivers.pico over the fake machine module), a chip of the sensor chain reading all
its inputs active. One ERROR event names the chip and its eight pits; they are lit and ignored. (CPython only:
the application, the drivers and the chip models need more than a Pico's heap in one process; the firmware's
part runs on MicroPython in tests/firmware/test_board_health.py.)"""
import fakes_machine

fakes_machine.install()

from baoboard.app import App  # noqa: E402
from baoboard.drivers.pico import PicoHardware  # noqa: E402
from baoboard.memstorage import FakeStorage  # noqa: E402
from fakes_board import FakeBoard  # noqa: E402


class _Null:
    def readinto(self, buf):
        return 0

    def write(self, b):
        self.out.extend(b)


class _Poller:
    def ipoll(self, timeout=-1, flags=0):
        return []


class ClockedPico(PicoHardware):
    """The Pico's drivers with a simulated clock (the scan loop's time) and the serial output kept."""

    def __init__(self):
        s = _Null()
        s.out = bytearray()
        self.stream = s
        super().__init__(serial_in=s, serial_out=s, poller=_Poller(), watchdog_ms=0)
        self.t = 0

    def ticks_ms(self):
        return self.t


def test_a_chip_stuck_active_is_one_error_naming_the_chip_and_its_pits_are_ignored():
    import random

    random.seed(9)
    board = FakeBoard()
    hw = ClockedPico()
    app = App(hw, FakeStorage(), board_id="chips")
    app.boot()
    for k in range(8):
        board.chain.set_input(1, k, True)  # the second chip of the chain, U2 (row A), reads 0xFF
    for _ in range(21000 // 5):  # 21 s of scans, 5 ms apart
        app.step()
        hw.t += 5
    out = bytes(hw.stream.out)
    errors = [line for line in out.split(b"\n") if b" ERROR " in line]
    assert len(errors) == 1, errors
    e = errors[0].decode()
    assert '"chip"' in e and '"U2"' in e and '"A1"' in e and '"A8"' in e, e
    assert b"ILLEGAL" not in out.split(b" ERROR ")[1]  # nothing from the chip once it is ignored
    assert bytes(app.deb.faulty) == b"\xff\x00\x00\x00"
    lit = board.lit_pits()
    for pit in range(8):
        _, r, g, b = board.pit_colour(pit)
        assert pit in lit and r == b > 0 and g == 0, (pit, board.pit_colour(pit))  # magenta
