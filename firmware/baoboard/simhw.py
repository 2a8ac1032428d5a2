# A simulated Hardware (baoboard.hal) for the simulated board and the tests: sensors set by simulated
# hands, the LED frame and the serial link kept in memory, a clock that moves only when the board sleeps.
# Runs on CPython and the MicroPython unix port.
#   board = SimulatedBoard(storage)     the board's run loop (baoboard.runtime) on a SimHardware
#   board.set_pit(pit, on); board.run(steps, ms); board.app, board.hw
#   hands = Hands(board); hands.tap(pit); hands.perform(position, move); hands.scan(n)
# Hands take any board with set_pit(pit, on) and run(steps, ms): this one, and the host's simulated boards
# (bao_host.boards.sim: in-process, the MicroPython unix port, the emulated Pico), whose hands add mistakes.
try:
    from typing import Any, Callable  # noqa: F401  (Callable: read in a type comment)

    from baoboard.protocols import Storage  # (a stub: no module at run time)
except ImportError:
    pass

from baoboard.compat import const

FRAME_BYTES = const(96)


class SimHardware:
    def __init__(self) -> None:
        self.raw = bytearray(4)
        self.frame = bytearray(FRAME_BYTES)
        self.shows = 0
        self.t = 0
        self.rx = bytearray()  # host -> board, not yet read
        self.tx = bytearray()  # board -> host, not yet taken
        self.button_mask = 0
        self.feeds = 0
        self.on_write = None  # type: Callable[[bytes], object] | None  # optional callback(bytes) instead of buffering in tx

    def read_pits(self, bitmap: bytearray) -> None:
        raw = self.raw
        for b in range(4):
            bitmap[b] = raw[b]

    def show(self, frame: bytearray) -> None:
        self.frame[:] = frame
        self.shows += 1

    def buttons(self) -> int:
        return self.button_mask

    def ticks_ms(self) -> int:
        return self.t

    def sleep_ms(self, scan_ms: float) -> None:
        """The board's pause between two scans: simulated time passes."""
        self.t += int(scan_ms)

    def serial_read(self, buf: bytearray) -> int:
        n = len(self.rx)
        if not n:
            return 0
        if n > len(buf):
            n = len(buf)
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def serial_write(self, data: "bytes | memoryview") -> None:
        if self.on_write is not None:  # (bytes: a STATE line is written from the board's one buffer)
            self.on_write(data if type(data) is bytes else bytes(data))
        else:
            self.tx.extend(data)

    def feed_watchdog(self) -> None:
        self.feeds += 1

    def self_test(self, path: str, timeout_ms: int) -> None:  # no sensor chain: no self-test (baoboard.hal)
        return None

    def read_raw(self) -> None:  # no sensor chain: no self-test (baoboard.hal)
        return None

    def use_mapping(self, pit_sensor_bit: bytes) -> None:
        return None

    def set_pit(self, pit: int, on: bool) -> None:
        if on:
            self.raw[pit >> 3] |= 1 << (pit & 7)
        else:
            self.raw[pit >> 3] &= ~(1 << (pit & 7))

    def rgb(self, pit: int) -> int:
        f = self.frame
        return (f[3 * pit] << 16) | (f[3 * pit + 1] << 8) | f[3 * pit + 2]


class SimulatedBoard:
    """The board's run loop (baoboard.runtime.Supervisor) on a SimHardware: run(steps, scan_ms) scans `steps`
    times, `scan_ms` of simulated time apart. on_error(exception): see Supervisor; hw: a SimHardware of the
    caller's (its serial output wired before the board boots and says HELLO)."""

    def __init__(
        self,
        storage: "Storage",
        board_id: str = "board",
        stable: int = 3,
        on_error: "Any" = None,
        hw: "SimHardware | None" = None,
    ) -> None:
        from baoboard.runtime import Supervisor

        self.hw = hw if hw is not None else SimHardware()
        self.runtime = Supervisor(self.hw, storage, board_id, stable, on_error)
        self.runtime.start()

    @property
    def app(self) -> "Any":
        """The running application (None while it waits to start again after a fault)."""
        return self.runtime.app

    def set_pit(self, pit: int, on: bool) -> None:
        self.hw.set_pit(pit, on)

    def run(self, steps: int, scan_ms: int) -> None:
        self.runtime.run(self.hw.sleep_ms, scan_ms, steps)

    def switch_off(self) -> None:
        """The host quits (not a power cut): the application is told (App.switch_off)."""
        if self.runtime.app is not None:
            self.runtime.app.switch_off()


class Hands:
    """Simulated hands on a board (set_pit, run): each activation holds a pit's sensor for `hold` scans,
    then releases it for `gap` scans, `scan_ms` of the board's time apart."""

    def __init__(self, board: "Any", hold: int = 4, gap: int = 4, scan_ms: int = 5) -> None:
        self.board = board
        self.hold = hold
        self.gap = gap
        self.scan_ms = scan_ms
        self.taps = 0

    def scan(self, n: int = 1) -> None:
        self.board.run(n, self.scan_ms)

    def tap(self, pit: int) -> None:
        b = self.board
        b.set_pit(pit, True)
        b.run(self.hold, self.scan_ms)
        b.set_pit(pit, False)
        b.run(self.gap, self.scan_ms)
        self.taps += 1

    def perform(self, p: "Any", move: int, merge: bool = False) -> bool:
        """Every activation of the legal move `move` from p; True when made to its end (here a power cut
        raises PowerCut out of the board; the host's hands see the board start again)."""
        from baoboard.recogniser import activations

        for pit in activations(p, move, merge):
            self.tap(pit)
        return True


def touches(p: "Any", move: int, merge: bool = False) -> "Any":
    """The activations of the legal move `move` from p, one by one, each as (pit, avoid): avoid, 32 bytes,
    marks the pits a hand's mistake just before it must not touch, those the board would take as part of a
    legal move then (a mistake must be refused: a start pit, the pits the move may go on to, the start pit
    again while the seeds may be put back). The simulated hands with mistakes follow it (the host's)."""
    from bao.rules import legal_moves

    from baoboard.recogniser import IDLE, OPT, PIT, Recogniser, activations

    shadow = Recogniser()  # what the board will accept next
    shadow.start(p, legal_moves(p))
    for pit in activations(p, move, merge):
        avoid = bytearray(32)
        if shadow.phase == IDLE:
            for m, _ in shadow.moves:
                avoid[shadow.first_pit(m)] = 1
        else:
            if shadow.start_pit >= 0:
                avoid[shadow.start_pit] = 1  # seeds put back: not a mistake
            for i in range(shadow.n):
                e = shadow.expected(i)
                if e >= 0:
                    avoid[e & PIT] = 1
                    if e & OPT:
                        avoid[shadow.after_optional(i) & PIT] = 1
        yield pit, avoid
        shadow.feed(pit)
