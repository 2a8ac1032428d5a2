# APA102 / SK9822 clocked RGB LEDs over machine.SPI (mode 0: data valid on the rising clock edge).
# Frame: 4 zero bytes (start), per LED 0b111bbbbb (global brightness 0..31) then B, G, R, then an end
# frame of zero bytes: 32 zero bits latch an SK9822, and one more clock per two LEDs pushes the data
# through the chain (each LED delays it by half a clock). One buffer, allocated once.
from machine import SPI
from micropython import const

_START = const(4)


class APA102:
    def __init__(self, spi: SPI, count: int, cap: int, end_bytes: int) -> None:
        self._spi = spi
        self.count = count
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

    def write(self) -> None:
        self._spi.write(self.buf)
