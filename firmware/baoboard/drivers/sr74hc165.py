# 74HC165 parallel-in/serial-out chain: the chip's protocol, separate from how the bits are clocked in.
# Latch/clock order: /PL low loads all inputs at once (the clock is ignored while /PL is low), /PL high
# freezes them; then QH of the first chip already shows its D7, so no clock edge may come before the
# first sample. Each rising CP edge shifts by one (the next chip's QH enters through SER).
# `shift_in(buf)` clocks len(buf) bytes in, MSB first, sampling before each rising edge: machine.SPI's
# readinto(buf, 0) in mode 2 (polarity 1, phase 0: the Pico samples on the falling edge, the chip shifts
# on the rising one) on the Pico, bit-banged GPIO on a Raspberry Pi. Read byte k = chip k (k=0 nearest the
# controller), bit n = input Dn. `latch` is a pin object with value().


class SR74HC165:
    def __init__(self, shift_in, latch, chips: int) -> None:
        self._shift_in = shift_in
        self._pl = latch
        self._pl.value(1)
        self.buf = bytearray(chips)

    def read(self) -> bytearray:
        """Sample all inputs into self.buf (allocated once) and return it."""
        pl = self._pl
        pl.value(0)  # parallel load
        pl.value(1)  # hold, shift enabled
        self._shift_in(self.buf)
        return self.buf


def to_pits(raw, pit_sensor_bit, bitmap: bytearray) -> None:
    """The chain's bits (sensor bit s = bit s & 7 of raw[s >> 3]) as the pit bitmap of baoboard.hal:
    pit i is sensor pit_sensor_bit[i]."""
    bitmap[0] = bitmap[1] = bitmap[2] = bitmap[3] = 0
    for i in range(32):
        s = pit_sensor_bit[i]
        if raw[s >> 3] & (1 << (s & 7)):
            bitmap[i >> 3] |= 1 << (i & 7)
