# A simulated Hardware (baoboard.hal) for the simulated board and the tests: sensors set by simulated
# hands, the LED frame and the serial link kept in memory. Runs on CPython and the MicroPython unix port.
#   hw = SimHardware(); app = App(hw, storage); app.boot()
#   hands = Hands(app, hw); hands.tap(pit); hands.perform(position, move)
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
        self.on_write = None  # type: object  # optional callback(bytes) instead of buffering in tx

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

    def serial_read(self, buf: bytearray) -> int:
        n = len(self.rx)
        if not n:
            return 0
        if n > len(buf):
            n = len(buf)
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def serial_write(self, data: bytes) -> None:
        if self.on_write is not None:
            self.on_write(data)  # type: ignore[operator]
        else:
            self.tx.extend(data)

    def feed_watchdog(self) -> None:
        self.feeds += 1

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


class Hands:
    """Simulated hands: each activation holds a pit's sensor for `hold` scans, then releases it for
    `gap` scans; each scan advances the clock by `scan_ms` and runs one app step."""

    def __init__(self, app: object, hw: SimHardware, hold: int = 4, gap: int = 4, scan_ms: int = 5) -> None:
        self.app = app
        self.hw = hw
        self.hold = hold
        self.gap = gap
        self.scan_ms = scan_ms
        self.on_scan = None  # type: object  # optional callback() after each scan (sleep, power cuts)

    def scan(self, n: int = 1) -> None:
        for _ in range(n):
            self.hw.t += self.scan_ms
            self.app.step()  # type: ignore[attr-defined]
            if self.on_scan is not None:
                self.on_scan()  # type: ignore[operator]

    def tap(self, pit: int) -> None:
        self.hw.set_pit(pit, True)
        self.scan(self.hold)
        self.hw.set_pit(pit, False)
        self.scan(self.gap)

    def perform(self, p: object, move: int, merge: bool = False) -> None:
        from baoboard.recogniser import activations

        for pit in activations(p, move, merge):
            self.tap(pit)
