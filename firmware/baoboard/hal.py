# The hardware interface of the board application. The application never imports a hardware module:
# it is handed an object with these methods. Implementations: the Pico drivers (baoboard.drivers),
# the Raspberry Pi driver (host), the simulated board (host) and the test fakes.
#
# Pits are numbered by their global index everywhere on the board, the same index the rules core uses:
#   index = side * 16 + ring, side 0 = South, 1 = North;
#   ring 0..7 = front-row pits 1..8 (A1..A8 / a1..a8), ring 8..15 = back-row pits 8..1 (B8..B1 / b8..b1).
# So one step of +1 in ring order is one step clockwise (rulings G5). The board description in hardware/
# maps each index to its sensor bit and LED position on the real chains; drivers apply that mapping, so
# the application only ever sees pit indices.
from baoboard.compat import const

PITS = const(32)
FRAME_BYTES = const(96)  # 3 bytes (R, G, B) per pit, in pit-index order


class Hardware:
    """Base class and documentation of the interface; every method must be overridden."""

    def read_pits(self, bitmap: bytearray) -> None:
        """Fill bitmap (4 bytes, preallocated by the caller) with the raw sensor states:
        bit (i & 7) of byte (i >> 3) is set while pit i senses a hand or a seed. No debouncing here."""
        raise NotImplementedError

    def show(self, frame: bytearray) -> None:
        """Light the LEDs: frame holds FRAME_BYTES bytes, R,G,B of pit i at 3*i. The driver applies the
        brightness cap; it must not allocate."""
        raise NotImplementedError

    def buttons(self) -> int:
        """Bit mask of the optional buttons that are pressed (0 on a board without buttons)."""
        return 0

    def ticks_ms(self) -> int:
        """A millisecond clock (wrapping like time.ticks_ms on MicroPython)."""
        raise NotImplementedError

    def serial_read(self, buf: bytearray) -> int:
        """Read what has arrived on the serial link into buf without blocking; return the byte count."""
        raise NotImplementedError

    def serial_write(self, data: "bytes | memoryview") -> None:
        """Write to the serial link (a STATE line comes as a view of the board's one buffer). Must not block
        for long when no host holds the port open."""
        raise NotImplementedError

    def feed_watchdog(self) -> None:
        """Feed the hardware watchdog (a no-op where there is none)."""
        return None

    def read_raw(self) -> "bytearray | None":
        """The sensor chain as read, bit (s & 7) of byte (s >> 3) = sensor bit s (hardware/board.json's
        numbering), for the self-test; None where the hardware has no sensor chain (the simulated board)."""
        return None

    def self_test(self, path: str, timeout_ms: int) -> "dict | None":
        """Run the self-test on this hardware (the LED walk, then "touch each lit pit", each waited for
        timeout_ms: baoboard.drivers.selftest), record the mapping it finds at `path` and read the pits
        through it from then on; its result (the SELFTEST event's JSON). None where there is no sensor
        chain to test (the simulated board). The self-test comes with the hardware: the application imports
        no driver."""
        return None

    def use_mapping(self, pit_sensor_bit: bytes) -> None:
        """Read the pits through this mapping (pit i = sensor bit pit_sensor_bit[i]) from now on: what
        the self-test recorded. A no-op where there is no sensor chain."""
        return None
