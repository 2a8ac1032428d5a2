# The board self-test: LED walk and "touch each lit pit", with a simulated finger that looks at the LED
# chain model and touches the sensor of the pit it sees lit.
import fakes_machine

fakes_machine.install()

import os  # noqa: E402

from baoboard.drivers import board_config as cfg  # noqa: E402
from baoboard.drivers import selftest  # noqa: E402
from baoboard.drivers.pico import PicoHardware  # noqa: E402
from fakes_board import FakeBoard  # noqa: E402
from fakes_chips import load_board, pit_index  # noqa: E402
from fwtest_util import temp_path  # noqa: E402

PATH = temp_path("bao_selftest_test-") + ".json"  # its own file: another run at the same time has another


class _Finger:
    """Touches the pit lit green, lets go when it turns white (the self-test's acknowledgement)."""

    def __init__(self, board, names):
        self.board = board
        self.names = names
        self.sleeps = 0

    def __call__(self, ms):
        self.sleeps += 1
        lit = self.board.lit_pits()
        if len(lit) == 1:
            c = self.board.pit_colour(lit[0])
            self.board.touch([self.names[lit[0]]] if c[1:] == (0, 255, 0) else [])
        else:
            self.board.touch([])


def _names():
    return [cfg.PIT_NAMES[2 * i : 2 * i + 2] for i in range(32)]


class _Serial:
    def readinto(self, b):
        return 0

    def write(self, b):
        pass

    def ipoll(self, t=-1, f=0):
        return []


def _run(chips=None):
    board = FakeBoard(chips=chips)
    s = _Serial()
    hw = PicoHardware(serial_in=s, serial_out=s, poller=s, watchdog_ms=0)
    finger = _Finger(board, _names())
    return board, hw, selftest.run(hw, PATH, sleep_ms=finger, timeout_ms=300), finger


def test_the_walk_lights_every_pit_in_index_order():
    board = FakeBoard()
    s = _Serial()
    hw = PicoHardware(serial_in=s, serial_out=s, poller=s, watchdog_ms=0)
    seen = []
    selftest.walk(hw, sleep_ms=lambda ms: seen.append(board.lit_pits()))
    assert seen == [[i] for i in range(32)]
    assert board.lit_pits() == []


def test_touch_test_records_the_wiring_of_a_good_board():
    board, hw, result, _ = _run()
    assert result["ok"] and result["mismatches"] == [] and result["missing"] == []
    assert bytes(result["pit_sensor_bit"]) == cfg.PIT_SENSOR_BIT
    assert selftest.load_mapping(PATH) == cfg.PIT_SENSOR_BIT
    assert len(board.lit_pits()) == 32  # the verdict: every pit green
    os.remove(PATH)


def test_touch_test_finds_a_miswired_pair_and_the_mapping_fixes_it():
    chips = list(load_board()["chips"])
    c = chips[2]
    chips[2] = c[2:4] + c[0:2] + c[4:]  # two sensor wires swapped on the third chip
    board, hw, result, _ = _run(chips)
    assert not result["ok"]
    assert sorted(result["mismatches"]) == sorted([c[0:2], c[2:4]])
    mapping = selftest.load_mapping(PATH)
    hw2 = PicoHardware(serial_in=_Serial(), serial_out=_Serial(), poller=_Serial(), pit_sensor_bit=mapping)
    board.touch([c[0:2]])
    bm = bytearray(4)
    hw2.read_pits(bm)
    i = pit_index(c[0:2])
    assert bm[i >> 3] == 1 << (i & 7) and sum(bm) == bm[i >> 3]
    os.remove(PATH)


def test_a_dead_sensor_is_reported_missing():
    chips = list(load_board()["chips"])
    dead = chips[0][0:2]
    chips[0] = "xx" + chips[0][2:]  # its module is not connected: the input never goes high
    board, hw, result, _ = _run(chips)
    assert result["missing"] == [dead] and selftest.load_mapping(PATH) is None
    os.remove(PATH)


def test_the_corner_gesture():
    bm = bytearray(4)
    assert not selftest.gesture(bm)
    for name in ("B1", "B8", "b1", "b8"):
        i = pit_index(name)
        bm[i >> 3] |= 1 << (i & 7)
    assert selftest.gesture(bm)
