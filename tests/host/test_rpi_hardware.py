"""RpiHardware (host/bao_host/boards/rpi.py) against the chip models through a fake RPi.GPIO."""

from __future__ import annotations

import importlib
import importlib.util
import os
import socket
import threading
from pathlib import Path

import pytest
from bao_host.boards.rpi import RpiHardware
from baoboard.drivers import board_config as cfg
from fake_gpio import make

NAMES = [cfg.PIT_NAMES[2 * i : 2 * i + 2] for i in range(32)]


def only(i: int) -> bytearray:
    bm = bytearray(4)
    bm[i >> 3] |= 1 << (i & 7)
    return bm


def test_every_pit_reads_at_its_index() -> None:
    board, gpio = make()
    hw = RpiHardware(gpio=gpio)
    bm = bytearray(4)
    for i, name in enumerate(NAMES):
        board.touch([name])
        hw.read_pits(bm)
        assert bm == only(i), name
    board.touch(NAMES)
    hw.read_pits(bm)
    assert bm == b"\xff\xff\xff\xff"


def test_a_swapped_chain_reads_wrong() -> None:
    board, gpio = make(swap_chips=True)
    hw = RpiHardware(gpio=gpio)
    board.touch(["A1"])
    bm = bytearray(4)
    hw.read_pits(bm)
    assert bm != only(0)


@pytest.mark.parametrize("kind", ["apa102", "sk9822"])
def test_show_lights_every_pit(kind: str) -> None:
    board, gpio = make(kind)
    hw = RpiHardware(gpio=gpio)
    frame = bytearray(96)
    for i in range(32):
        frame[3 * i : 3 * i + 3] = bytes([i, 255 - i, 3 * i])
    hw.show(frame)
    for i in range(32):
        assert board.pit_colour(i) == (cfg.LED_BRIGHTNESS_CAP, i, 255 - i, 3 * i)
    assert board.leds.bad_frames() == 0 and board.leds.hazards == 0


def test_brightness_is_capped() -> None:
    board, gpio = make()
    hw = RpiHardware(gpio=gpio, brightness=31)
    assert hw.brightness == cfg.LED_BRIGHTNESS_CAP
    hw.show(bytearray(b"\xff" * 96))
    assert board.pit_colour(0) == (cfg.LED_BRIGHTNESS_CAP, 255, 255, 255)


def test_serial_over_a_pyserial_url() -> None:
    _, gpio = make()
    hw = RpiHardware("loop://", gpio=gpio)
    hw.serial_write(b"E1 MOVE a5\n")
    buf = bytearray(64)
    n = hw.serial_read(buf)
    assert bytes(buf[:n]) == b"E1 MOVE a5\n"
    assert hw.serial_read(buf) == 0
    hw.close()
    assert set(gpio.cleaned) == {cfg.RPI_SENS_PL, cfg.RPI_SENS_CLK, cfg.RPI_SENS_QH, cfg.RPI_LED_CLK, cfg.RPI_LED_DAT}


def test_serial_over_a_socket_to_a_logger() -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    got: list[bytes] = []

    def logger() -> None:
        conn, _ = srv.accept()
        conn.settimeout(5)
        got.append(conn.recv(100))
        conn.sendall(b"C1 ACK 1\n")
        conn.close()

    t = threading.Thread(target=logger)
    t.start()
    _, gpio = make()
    hw = RpiHardware(f"socket://127.0.0.1:{srv.getsockname()[1]}", gpio=gpio)
    hw.serial_write(b"H0 HELLO\n")
    t.join(5)
    buf = bytearray(64)
    n = 0
    for _ in range(200):
        n = hw.serial_read(buf)
        if n:
            break
        threading.Event().wait(0.01)
    assert got == [b"H0 HELLO\n"] and bytes(buf[:n]) == b"C1 ACK 1\n"
    srv.close()


def test_writes_that_cannot_go_anywhere_are_dropped() -> None:
    class Broken:
        def read(self, n: int) -> bytes:
            raise OSError("gone")

        def write(self, b: bytes) -> int:
            raise OSError("gone")

    _, gpio = make()
    hw = RpiHardware(Broken(), gpio=gpio)
    hw.serial_write(b"x")
    assert hw.serial_read(bytearray(4)) == 0
    assert RpiHardware(gpio=gpio).serial_read(bytearray(4)) == 0


def test_ticks_and_watchdog() -> None:
    _, gpio = make()
    hw = RpiHardware(gpio=gpio)
    t = hw.ticks_ms()
    assert t >= 0
    hw._t0 -= 13 * 86400  # 13 days up: past MicroPython's 2**30 ms wrap, which the app's CPython ticks_diff
    assert hw.ticks_ms() - t > 1 << 30  # (a subtraction) would not survive
    hw.feed_watchdog()


def _raspberry_pi_model() -> str | None:
    """The board's model when this runs on a Raspberry Pi (the device tree says so), else None."""
    try:
        model = Path("/proc/device-tree/model").read_bytes().decode("ascii", "replace").rstrip("\0")
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


PI_MODEL = _raspberry_pi_model()
on_a_pi = pytest.mark.skipif(
    PI_MODEL is None,
    reason="not a Raspberry Pi (/proc/device-tree/model): the real-GPIO "
    "checks run on a Pi, the same driver is checked above against the chip models",
)
PINS = {
    "sensor /PL": cfg.RPI_SENS_PL,
    "sensor CLK": cfg.RPI_SENS_CLK,
    "sensor QH": cfg.RPI_SENS_QH,
    "LED CLK": cfg.RPI_LED_CLK,
    "LED DAT": cfg.RPI_LED_DAT,
}


def test_off_a_pi_rpi_gpio_is_imported_only_when_needed() -> None:
    if PI_MODEL is not None or importlib.util.find_spec("RPi") is not None:
        pytest.skip(f"RPi.GPIO is there ({PI_MODEL or 'installed off a Pi'}): the on-a-Pi tests below use it")
    with pytest.raises(ImportError):
        RpiHardware()


@on_a_pi
def test_on_a_pi_the_driver_owns_its_pins_and_clocks_both_chains() -> None:
    """On a real Pi (nothing need be wired): RPi.GPIO (or rpi-lgpio) is installed, RpiHardware sets each pin
    of board_config's J1 wiring to its direction, clocks a whole sensor chain and LED frame through them,
    keeps time, and gives the pins back."""
    gpio = importlib.import_module("RPi.GPIO")  # on a Pi: pip install 'bao-board[rpi]'
    hw = RpiHardware()
    try:
        directions = {name: gpio.gpio_function(pin) for name, pin in PINS.items()}
        assert directions == {name: gpio.IN if name == "sensor QH" else gpio.OUT for name in PINS}, directions
        assert len(hw.read_raw()) == cfg.SENS_CHIPS
        bm = bytearray(4)
        hw.read_pits(bm)
        hw.show(bytearray(3 * 32))  # every LED off, through the real pins
        assert gpio.input(cfg.RPI_SENS_PL) == gpio.HIGH  # the 74HC165s left shifting, not loading
        t = hw.ticks_ms()
        threading.Event().wait(0.02)
        assert hw.ticks_ms() > t
    finally:
        hw.close()


@pytest.mark.skipif(
    PI_MODEL is None or not os.environ.get("BAO_BOARD_WIRED"),
    reason="needs a Pi with the assembled board on J1 and nobody touching it (BAO_BOARD_WIRED=1)",
)
def test_on_a_pi_with_the_board_wired_no_pit_reads_touched() -> None:
    hw = RpiHardware()
    try:
        bm = bytearray(4)
        for _ in range(10):
            hw.read_pits(bm)
            assert bm == bytearray(4), bm.hex()
    finally:
        hw.close()
