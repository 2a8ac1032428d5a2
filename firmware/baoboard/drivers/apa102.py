# APA102 / SK9822 clocked RGB LEDs: the chip's encoding, separate from how the bytes travel (as
# micropython-lib's ssd1306 separates chip from bus). `write(buf)` sends the bytes with data valid on the
# rising clock edge (SPI mode 0): machine.SPI.write on the Pico (PicoHardware), bit-banged GPIO on a
# Raspberry Pi (host/bao_host/boards/rpi.py), anything in tests.
# Frame: 4 zero bytes (start), per LED 0b111bbbbb (global brightness 0..31) then B, G, R, then an end
# frame of zero bytes: 32 zero bits latch an SK9822, and one more clock per two LEDs pushes the data
# through the chain (each LED delays it by half a clock). One buffer, allocated once.
from baoboard.compat import const

_START = const(4)


class APA102:
    def __init__(self, write, count: int, cap: int, end_bytes: int, led_pit: "bytes | None" = None) -> None:
        """write(buf): the transport. led_pit[k]: the pit index LED k sits under (show() puts a pit-indexed
        frame into chain order); None: LED k shows pit k."""
        self._write = write
        self.count = count
        self.led_pit = led_pit if led_pit is not None else bytes(range(count))
        self.cap = cap if 0 <= cap <= 31 else 31
        self.brightness = self.cap
        self.buf = bytearray(_START + 4 * count + end_bytes)  # start and end frames stay zero
        self.set_brightness(self.cap)

    def set_brightness(self, level: int) -> None:
        """Global brightness 0..31, never above the cap (the power budget)."""
        if level > self.cap:
            level = self.cap
        if level < 0:
            level = 0
        self.brightness = level
        buf = self.buf
        head = 0xE0 | level
        for k in range(self.count):
            buf[_START + 4 * k] = head

    def set(self, k: int, r: int, g: int, b: int) -> None:
        o = _START + 4 * k
        buf = self.buf
        buf[o + 1] = b
        buf[o + 2] = g
        buf[o + 3] = r

    def show(self, frame) -> None:
        """Light the LEDs from a frame of R, G, B per pit index (3 bytes each), in the chain's order."""
        buf = self.buf
        lp = self.led_pit
        for k in range(self.count):
            o = 3 * lp[k]
            d = _START + 4 * k
            buf[d + 1] = frame[o + 2]  # B
            buf[d + 2] = frame[o + 1]  # G
            buf[d + 3] = frame[o]  # R
        self._write(buf)

    def write(self) -> None:
        self._write(self.buf)
