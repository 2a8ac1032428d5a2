# The board's Hardware on a Raspberry Pi Pico: 74HC165 sensors on SPI0, SK9822/APA102 LEDs on SPI1,
# serial over USB-CDC (sys.stdin/stdout), machine.WDT. Pins and pit mappings come from board_config,
# generated from hardware/board.json. Everything is allocated in __init__; the hot methods allocate nothing.
#
# USB-CDC facts (MicroPython rp2): a received 0x03 (Ctrl-C) raises KeyboardInterrupt in the running
# program and is removed from the input, unless micropython.kbd_intr(-1) (raw_serial=True) turns that off;
# bytes written while no host holds the port open (DTR low) are dropped, not queued; while a host holds
# it open but does not read, a write waits for buffer space and gives up after a timeout.
import sys
import time

import micropython
from machine import SPI, WDT, Pin
from micropython import const

from baoboard.drivers import board_config as cfg
from baoboard.drivers.apa102 import APA102
from baoboard.drivers.sr74hc165 import SR74HC165, to_pits
from baoboard.hal import Hardware

try:  # the per-scan and per-frame loops as viper code; the portable loops where it cannot load (its header)
    from baoboard.drivers.pico_loops import chain_frame, chain_pits
except (ImportError, ValueError):
    chain_frame = None  # type: ignore[assignment]  # (None: the portable frame loop)
    chain_pits = to_pits  # type: ignore[assignment]  # (the same arguments)

_WDT_MAX_MS = const(8388)  # the RP2040 watchdog's longest timeout


class PicoHardware(Hardware):
    def __init__(
        self,
        pit_sensor_bit: bytes | None = None,
        raw_serial: bool = False,
        watchdog_ms: int = cfg.WATCHDOG_MS,
        serial_in=None,
        serial_out=None,
        poller=None,
        self_test=None,
    ) -> None:
        """pit_sensor_bit: a calibrated mapping (selftest.load_mapping()) instead of board_config's.
        self_test: the self-test this hardware runs (selftest.self_test, handed in: main.py), or None.
        raw_serial: let 0x03 through as data (Ctrl-C then no longer stops the program).
        watchdog_ms: 0 for no watchdog; it starts at the first feed_watchdog() and cannot be stopped.
        serial_in/serial_out/poller: other streams than USB (tests); poller has serial_in registered."""
        sspi = SPI(
            cfg.SENS_SPI,
            cfg.SENS_BAUD,
            polarity=cfg.SENS_POL,
            phase=cfg.SENS_PHA,
            sck=Pin(cfg.SENS_SCK),
            mosi=Pin(cfg.SENS_MOSI),
            miso=Pin(cfg.SENS_MISO),
        )
        self._sspi = sspi
        self._self_test = self_test
        self.sensors = SR74HC165(self._shift_in, Pin(cfg.SENS_PL, Pin.OUT, value=1), cfg.SENS_CHIPS)
        lspi = SPI(
            cfg.LED_SPI,
            cfg.LED_BAUD,
            polarity=cfg.LED_POL,
            phase=cfg.LED_PHA,
            sck=Pin(cfg.LED_SCK),
            mosi=Pin(cfg.LED_MOSI),
            miso=Pin(cfg.LED_MISO),
        )
        self.leds = APA102(lspi.write, cfg.LEDS, cfg.LED_BRIGHTNESS_CAP, cfg.LED_END_BYTES, cfg.LED_PIT)
        self.pit_sensor_bit = pit_sensor_bit if pit_sensor_bit is not None else cfg.PIT_SENSOR_BIT
        self._wdt_ms = watchdog_ms if watchdog_ms <= _WDT_MAX_MS else _WDT_MAX_MS
        self._wdt: WDT | None = None
        src = serial_in if serial_in is not None else sys.stdin
        self._in = src.buffer if hasattr(src, "buffer") else src
        out = serial_out if serial_out is not None else sys.stdout
        self._out = out.buffer if hasattr(out, "buffer") else out
        if poller is None:
            import select

            poller = select.poll()
            poller.register(src, select.POLLIN)
        self._poll = poller
        self._one = bytearray(1)
        if raw_serial:
            micropython.kbd_intr(-1)

    def read_raw(self) -> bytearray:
        """The chain as read: bit (s & 7) of byte (s >> 3) is sensor bit s (board.json's numbering)."""
        return self.sensors.read()

    def self_test(self, path: str, timeout_ms: int) -> "dict | None":
        run = self._self_test
        return None if run is None else run(self, path, timeout_ms)

    def _shift_in(self, buf: bytearray) -> None:
        self._sspi.readinto(buf, 0)

    def use_mapping(self, pit_sensor_bit: bytes) -> None:
        self.pit_sensor_bit = pit_sensor_bit

    def read_pits(self, bitmap: bytearray) -> None:
        chain_pits(self.sensors.read(), self.pit_sensor_bit, bitmap)

    def show(self, frame: bytearray) -> None:
        leds = self.leds
        if chain_frame is None:
            leds.show(frame)
        else:
            chain_frame(leds.buf, frame, leds.led_pit, leds.count)
            leds.write()

    def ticks_ms(self) -> int:
        return time.ticks_ms()  # type: ignore[return-value]  # (the stubs' tick type: an int on the board)

    def serial_read(self, buf: bytearray) -> int:
        n = 0
        one = self._one
        while n < len(buf):
            ready = False
            for _ in self._poll.ipoll(0):
                ready = True
            if not ready or not self._in.readinto(one):  # type: ignore[misc]  # (the stubs' readinto says None)
                break
            buf[n] = one[0]
            n += 1
        return n

    def serial_write(self, data: "bytes | memoryview") -> None:
        self._out.write(data)  # type: ignore[arg-type]  # (the stubs say bytes: a stream takes any buffer)

    def feed_watchdog(self) -> None:
        if self._wdt_ms <= 0:
            return
        if self._wdt is None:
            self._wdt = WDT(timeout=self._wdt_ms)
        self._wdt.feed()
