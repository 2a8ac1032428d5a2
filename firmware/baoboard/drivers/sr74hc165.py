# 74HC165 parallel-in/serial-out chain read over machine.SPI.
# Latch/clock order: /PL low loads all inputs at once (the clock is ignored while /PL is low), /PL high
# freezes them; then QH of the first chip already shows its D7, so no clock edge may come before the
# first sample. Each rising CP edge shifts by one (the next chip's QH enters through SER). SPI mode 2
# (polarity 1, phase 0): the Pico samples on the falling edge, the chip shifts on the rising edge, so
# setup and hold are half a clock each. Read byte k = chip k (k=0 nearest the Pico), bit n = input Dn.
from machine import SPI, Pin


class SR74HC165:
    def __init__(self, spi: SPI, latch: Pin, chips: int) -> None:
        self._spi = spi
        self._pl = latch
        self._pl.value(1)
        self.buf = bytearray(chips)

    def read(self) -> bytearray:
        """Sample all inputs into self.buf (allocated once) and return it."""
        pl = self._pl
        pl.value(0)  # parallel load
        pl.value(1)  # hold, shift enabled
        self._spi.readinto(self.buf, 0)
        return self.buf
