"""A whole 74HC165 stuck, on the chip models (tests/firmware/fakes_chips.py): the board application on the
Pico's drivers (baoboard.drivers.pico over the fake machine module), a chip of the sensor chain reading all
its inputs active, or none of them ever (its byte stuck at 0, found in play). One ERROR event names the chip
and its eight pits; they are lit and ignored. (CPython only:
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


class _ChipHands:
    """A board as simhw.Hands drive it (set_pit, run), here the application on the Pico's drivers over the chip
    models: a touch is the TTP223's output on its 74HC165 input, per hardware/board.json."""

    def __init__(self, app, hw, board):
        self.app, self.hw, self.board = app, hw, board
        self.input_of = {}
        from fakes_chips import pit_index, pit_names

        for c, inputs in enumerate(board.chip_inputs):
            for k, name in enumerate(pit_names(inputs)):
                self.input_of[pit_index(name)] = (c, k)

    def set_pit(self, pit, on):
        c, k = self.input_of[pit]
        self.board.chain.set_input(c, k, on)

    def run(self, steps, ms):
        for _ in range(steps):
            self.app.step()
            self.hw.t += ms

    def events(self, typ):
        """The payloads of the board's events of type typ, each once (with no host acknowledging, they are sent
        again)."""
        seen = {}
        for line in bytes(self.hw.stream.out).split(b"\n"):
            words = line.split(b" ", 2)
            if line.startswith(b"E") and len(words) == 3 and words[1] == typ.encode():
                seen[int(words[0][1:])] = words[2].rsplit(b" *", 1)[0].decode()
        return [seen[n] for n in sorted(seen)]


def test_a_chip_reading_nothing_is_found_in_play_and_play_goes_on():
    """U1 (row B) with its eight inputs pulled to 0 (its row's ribbon off: the 100 kOhm network holds them low):
    a byte of the chain that reads 0 whatever the hands do. A person plays the 1994 game (a touch the board
    flags is made again after a look); the board finds the chip silent from the moves that went on past its
    pits, reports one ERROR naming U1 and its pits, lights them magenta, and records all 20 moves as played."""
    import random

    from bao import core
    from baoboard.recogniser import activations
    from baoboard.simhw import Hands
    from board_util import plies

    random.seed(9)
    board = FakeBoard()
    hw = ClockedPico()
    app = App(hw, FakeStorage(), board_id="chips")
    app.boot()
    app.guide.brightness = 255
    cut = board.chain.set_input

    def set_input(chip, k, level):  # U1's inputs never go high
        cut(chip, k, level and chip != 0)

    board.chain.set_input = set_input
    chips = _ChipHands(app, hw, board)
    hands = Hands(chips)
    want = []
    for p, m, _ in plies():
        if len(want) == 20:
            break
        want.append(core.format_move(m, p.d[core.TO_MOVE]))
        for pit in activations(p, m):
            for _ in range(3):
                flagged = len(chips.events("ILLEGAL"))
                hands.tap(pit)
                if len(chips.events("ILLEGAL")) == flagged:
                    break
                hands.scan(3000 // hands.scan_ms)
    assert [m.split(" ")[0] for m in chips.events("MOVE")] == want
    [error] = chips.events("ERROR")
    assert '"silent"' in error and '"U1"' in error and '"B1"' in error and '"B8"' in error, error
    assert len(chips.events("ILLEGAL")) == 1
    assert bytes(app.deb.faulty) == b"\x00\xff\x00\x00"
    for pit in range(8, 16):
        _, r, g, b = board.pit_colour(pit)
        assert r == b > 0 and g == 0, (pit, board.pit_colour(pit))  # magenta


def test_a_chip_stuck_active_makes_no_gesture():
    """Issue #26 item 2: U1 (row B: B8..B1) reads all 8 inputs active (its row's supply, ribbon or chip): B1 and
    B8 among them, as a player's hands hold them to let the computer play (3 s). A fault explains every input
    of a chip together: the board chooses no computer, and 20 s later reports the chip; no hint either when it
    is let go."""
    import random

    random.seed(9)
    board = FakeBoard()
    hw = ClockedPico()
    app = App(hw, FakeStorage(), board_id="chips")
    app.boot()
    chips = _ChipHands(app, hw, board)
    for k in range(8):
        board.chain.set_input(0, k, True)  # the first chip of the chain, U1 (row B), reads 0xFF
    chips.run(21000 // 5, 5)
    assert app.cpu == -1 and b" CPU " not in bytes(hw.stream.out), chips.events("CPU")
    [error] = chips.events("ERROR")
    assert '"chip"' in error and '"U1"' in error and '"B1"' in error and '"B8"' in error, error
    for k in range(8):
        board.chain.set_input(0, k, False)
    chips.run(3000 // 5, 5)
    assert app.cpu == -1 and chips.events("HINT") == [] and app.think_due == 0
    # the gesture itself still works: B1 and B8 held by a player's hands, the rest of row B idle
    chips.set_pit(8, True)
    chips.set_pit(15, True)
    chips.run(3500 // 5, 5)
    assert app.cpu == 1, app.cpu  # South holds its two ends: the computer plays North
