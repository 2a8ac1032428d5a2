# The APA102/SK9822 driver against the LED chain model (tests/firmware/fakes_chips.py).
import fakes_machine

fakes_machine.install()

from baoboard.drivers import board_config as cfg  # noqa: E402
from baoboard.drivers.apa102 import APA102  # noqa: E402
from fakes_board import FakeBoard  # noqa: E402
from fakes_machine import SPI, Pin  # noqa: E402


def _leds(kind, end_bytes=cfg.LED_END_BYTES, polarity=cfg.LED_POL, phase=cfg.LED_PHA):
    board = FakeBoard(kind)
    spi = SPI(
        cfg.LED_SPI,
        cfg.LED_BAUD,
        polarity=polarity,
        phase=phase,
        sck=Pin(cfg.LED_SCK),
        mosi=Pin(cfg.LED_MOSI),
        miso=Pin(cfg.LED_MISO),
    )
    return board, APA102(spi.write, cfg.LEDS, cfg.LED_BRIGHTNESS_CAP, end_bytes)


def _colour(k, salt=0):
    return (k * 7 + salt) & 0xFF, (k * 13 + 1 + salt) & 0xFF, (255 - k - salt) & 0xFF


def _fill(leds, salt=0):
    for k in range(cfg.LEDS):
        r, g, b = _colour(k, salt)
        leds.set(k, r, g, b)


def _check_all(board, salt=0):
    for k in range(cfg.LEDS):
        r, g, b = _colour(k, salt)
        assert board.leds.colour(k) == (cfg.LED_BRIGHTNESS_CAP, r, g, b), k


def test_every_led_gets_its_colour_apa102_and_sk9822():
    for kind in ("apa102", "sk9822"):
        board, leds = _leds(kind)
        _fill(leds)
        leds.write()
        _check_all(board)
        assert board.leds.hazards == 0 and board.leds.bad_frames() == 0


def test_the_next_frame_replaces_the_last():
    for kind in ("apa102", "sk9822"):
        board, leds = _leds(kind)
        _fill(leds, 0)
        leds.write()
        _fill(leds, 50)
        leds.write()
        _check_all(board, 50)


def test_brightness_never_exceeds_the_cap():
    board, leds = _leds("sk9822")
    leds.set_brightness(31)
    assert leds.brightness == cfg.LED_BRIGHTNESS_CAP
    leds.set(3, 255, 255, 255)
    leds.write()
    assert board.leds.colour(3) == (cfg.LED_BRIGHTNESS_CAP, 255, 255, 255)
    leds.set_brightness(1)
    leds.write()
    assert board.leds.colour(3)[0] == 1


def test_one_buffer_with_start_and_end_frames():
    _, leds = _leds("sk9822")
    buf = leds.buf
    assert len(buf) == 4 + 4 * cfg.LEDS + cfg.LED_END_BYTES
    leds.set(0, 1, 2, 3)
    leds.write()
    assert leds.buf is buf
    assert bytes(buf[:4]) == bytes(4) and bytes(buf[-cfg.LED_END_BYTES :]) == bytes(cfg.LED_END_BYTES)
    assert buf[4] == 0xE0 | cfg.LED_BRIGHTNESS_CAP and bytes(buf[5:8]) == b"\x03\x02\x01"  # B, G, R


def test_the_model_catches_a_short_end_frame():
    board, leds = _leds("apa102", end_bytes=0)  # no clocks to push the data down the chain
    _fill(leds)
    leds.write()
    assert board.leds.colour(cfg.LEDS - 1) is None
    board, leds = _leds("sk9822", end_bytes=2)  # enough for an APA102, not for the SK9822 latch
    _fill(leds)
    leds.write()
    assert board.leds.colour(cfg.LEDS - 1) is None


def test_the_model_catches_a_wrong_clock_phase():
    board, leds = _leds("sk9822", polarity=0, phase=1)  # data changes on the rising edge that samples it
    _fill(leds)
    leds.write()
    assert board.leds.hazards > 0
