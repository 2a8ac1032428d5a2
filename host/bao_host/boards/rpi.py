"""The board's Hardware on a Raspberry Pi: the same reference board (hardware/) driven through RPi.GPIO.

A Pi wired to the board's controller header J1 (hardware/README.md) runs the very same board application
as the Pico. Linux gives no precise timing, which is why the board uses clocked parts only: the 74HC165
sensor chain and the APA102/SK9822 LED chain latch data on clock edges that this driver makes itself, so a
preempted process merely stretches a clock period. Pins (BCM numbers) and the pit mappings come from
baoboard.drivers.board_config, generated from hardware/board.json.

RPi.GPIO is optional (pip install 'bao-board[rpi]' gives the rpi-lgpio shim, the same API on a Pi 5) and
is imported only when a RpiHardware is made without a `gpio` module of its own (the tests pass a fake).

The serial link is a pyserial URL: a tty (`/dev/ttyAMA0`, a USB gadget `/dev/ttyGS0`), `socket://host:port`
to a logger listening elsewhere, or `loop://`; or any object with read(n)/write(b) (a logger in the same
process). Writes that cannot be delivered are dropped, like the Pico's USB-CDC with no host.
"""

from __future__ import annotations

import importlib
import time
from typing import Any, Protocol

from baoboard.drivers import board_config as cfg
from baoboard.drivers.apa102 import APA102
from baoboard.drivers.sr74hc165 import SR74HC165, to_pits
from baoboard.hal import Hardware

PITS = 32


class Link(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...


def open_link(url: str) -> Any:
    """A non-blocking pyserial port for a URL (a device path, socket://host:port, loop://, rfc2217://...)."""
    import serial

    return serial.serial_for_url(url, baudrate=115200, timeout=0, write_timeout=0.5)


class LinkSerial:
    """The clock and serial side of a Hardware on a PC or a Pi: `link` is any object with read(n) and
    write(data) (a pyserial port, a socket wrapper) or None; `_t0` is the start time."""

    link: Any
    _t0: float

    def ticks_ms(self) -> int:
        """Milliseconds since start, not wrapped: under CPython the application's ticks_diff is a plain
        subtraction (MicroPython's ticks_ms wraps at 2**30, after 12.4 days, and its ticks_diff knows)."""
        return int((time.monotonic() - self._t0) * 1000)

    def serial_read(self, buf: bytearray) -> int:
        if self.link is None:
            return 0
        try:
            data = self.link.read(len(buf))
        except (OSError, ValueError):
            return 0
        n = len(data) if data else 0
        buf[:n] = data[:n] if n else b""
        return n

    def serial_write(self, data: bytes | memoryview) -> None:
        if self.link is None:
            return
        try:
            self.link.write(data)
        except (OSError, ValueError):  # pyserial's SerialException and SerialTimeoutException are OSErrors
            pass

    def close_link(self) -> None:
        close = getattr(self.link, "close", None)
        if close is not None:
            close()


class _OutPin:
    """A GPIO output as the chip drivers want a pin: value(v), the level held for half a clock period."""

    def __init__(self, hw: RpiHardware, pin: int) -> None:
        self.hw = hw
        self.pin = pin

    def value(self, v: int) -> None:
        g = self.hw.gpio
        g.output(self.pin, g.HIGH if v else g.LOW)
        self.hw._wait()


class RpiHardware(LinkSerial, Hardware):
    def __init__(
        self,
        link: str | Link | None = None,
        *,
        gpio: Any = None,
        pit_sensor_bit: bytes | None = None,
        brightness: int = cfg.LED_BRIGHTNESS_CAP,
        half_period_s: float = 0.0,
    ) -> None:
        """link: a pyserial URL or a read/write object (None: no serial link).
        gpio: a module with the RPi.GPIO API (default: import RPi.GPIO).
        pit_sensor_bit: a mapping recorded by the self-test instead of board_config's.
        brightness: global LED brightness 0..31, never above the board's cap.
        half_period_s: extra time per clock half period (long wires); 0 is as fast as Python goes."""
        if gpio is None:
            gpio = importlib.import_module("RPi.GPIO")
        self.gpio = gpio
        self.half = half_period_s
        gpio.setwarnings(False)
        gpio.setmode(gpio.BCM)
        gpio.setup(cfg.RPI_SENS_PL, gpio.OUT, initial=gpio.HIGH)
        gpio.setup(cfg.RPI_SENS_CLK, gpio.OUT, initial=gpio.LOW)
        gpio.setup(cfg.RPI_SENS_QH, gpio.IN)
        gpio.setup(cfg.RPI_LED_CLK, gpio.OUT, initial=gpio.LOW)
        gpio.setup(cfg.RPI_LED_DAT, gpio.OUT, initial=gpio.LOW)
        self.pit_sensor_bit = pit_sensor_bit if pit_sensor_bit is not None else bytes(cfg.PIT_SENSOR_BIT)
        # the chips' protocols are the firmware's drivers; this class only clocks the bits (GPIO transport)
        self.sensors = SR74HC165(self._shift_in, _OutPin(self, cfg.RPI_SENS_PL), cfg.SENS_CHIPS)
        self.leds = APA102(self._write_leds, cfg.LEDS, cfg.LED_BRIGHTNESS_CAP, cfg.LED_END_BYTES, cfg.LED_PIT)
        self.set_brightness(brightness)
        self.link: Any = open_link(link) if isinstance(link, str) else link
        self._t0 = time.monotonic()

    # -------------------------------------------------------------------------------------- chains

    def _wait(self) -> None:
        if self.half > 0:
            time.sleep(self.half)

    def _shift_in(self, raw: bytearray) -> None:
        """8 bits per chip, D7 first: QH shows the next bit while the clock is low; each rising edge shifts."""
        g, qh, clk = self.gpio, cfg.RPI_SENS_QH, cfg.RPI_SENS_CLK
        for k in range(len(raw)):
            v = 0
            for _ in range(8):
                v = (v << 1) | (1 if g.input(qh) else 0)
                g.output(clk, g.HIGH)
                self._wait()
                g.output(clk, g.LOW)
                self._wait()
            raw[k] = v

    def read_raw(self) -> bytearray:
        """The 74HC165 chain as read: byte k = chip k, bit n = input Dn."""
        return self.sensors.read()

    def self_test(self, path: str, timeout_ms: int) -> dict[str, Any]:
        from baoboard.drivers.selftest import self_test

        result: dict[str, Any] = self_test(self, path, timeout_ms)
        return result

    def use_mapping(self, pit_sensor_bit: bytes) -> None:
        self.pit_sensor_bit = pit_sensor_bit

    def read_pits(self, bitmap: bytearray) -> None:
        to_pits(self.sensors.read(), self.pit_sensor_bit, bitmap)

    @property
    def brightness(self) -> int:
        return int(self.leds.brightness)

    def set_brightness(self, level: int) -> None:
        """Global brightness 0..31, capped at board_config.LED_BRIGHTNESS_CAP (the USB power budget)."""
        self.leds.set_brightness(level)

    def show(self, frame: bytearray) -> None:
        self.leds.show(frame)

    def _write_leds(self, buf: bytearray) -> None:
        """Data set while the clock is low, taken by the LED on the rising edge (SPI mode 0), MSB first."""
        g, clk, dat = self.gpio, cfg.RPI_LED_CLK, cfg.RPI_LED_DAT
        level = -1
        for byte in buf:
            for k in range(7, -1, -1):
                bit = (byte >> k) & 1
                if bit != level:
                    g.output(dat, g.HIGH if bit else g.LOW)
                    level = bit
                self._wait()
                g.output(clk, g.HIGH)
                self._wait()
                g.output(clk, g.LOW)

    # ---------------------------------------------------------------------------- the rest of Hardware

    def feed_watchdog(self) -> None:
        return None

    def close(self) -> None:
        """Lights off, pins released, link closed."""
        try:
            self.show(bytearray(3 * PITS))
        finally:
            self.gpio.cleanup([cfg.RPI_SENS_PL, cfg.RPI_SENS_CLK, cfg.RPI_SENS_QH, cfg.RPI_LED_CLK, cfg.RPI_LED_DAT])
            self.close_link()
