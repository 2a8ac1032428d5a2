# Self-test of the assembled board, run on the board itself (no PC needed):
#   walk(hw)        LED walk: each pit lights in turn in pit-index order (A1..A8, B8..B1, a1..a8, b8..b1,
#                   i.e. clockwise round each side); a light out of place is an LED wired out of order.
#   touch_test(hw)  "touch each lit pit": each pit lights in turn; the raw sensor bit that answers the touch
#                   is recorded. run() stores the result as JSON in flash (PATH);
#                   PicoHardware(pit_sensor_bit=load_mapping()) then reads a miswired board correctly.
# Entry: selftest.main() (REPL or `mpremote exec`), or the application calls run(hw) when gesture() sees the
# four corner pits (B1, B8, b1, b8) held. hw: a Hardware with read_raw() (PicoHardware, RpiHardware).
import json

from baoboard.compat import const  # runs on the Pi too (CPython)
from baoboard.drivers import board_config as cfg

PATH = "/selftest.json"
_PITS = const(32)
_NONE = const(255)
_CORNERS = (15, 8, 31, 24)  # B1, B8, b1, b8


def _sleeper():
    import time

    if hasattr(time, "sleep_ms"):
        return time.sleep_ms
    return lambda ms: time.sleep(ms / 1000)


def name(i: int) -> str:
    return cfg.PIT_NAMES[2 * i : 2 * i + 2]


def gesture(bitmap: bytearray) -> bool:
    """True while the four corner pits are all touched (the way into the self-test without a PC)."""
    for i in _CORNERS:
        if not bitmap[i >> 3] & (1 << (i & 7)):
            return False
    return True


def _light(hw, frame: bytearray, pit: int, r: int, g: int, b: int) -> None:
    for j in range(len(frame)):
        frame[j] = 0
    if pit >= 0:
        frame[3 * pit] = r
        frame[3 * pit + 1] = g
        frame[3 * pit + 2] = b
    hw.show(frame)


def walk(hw, ms: int = 150, sleep_ms=None) -> None:
    sleep_ms = sleep_ms or _sleeper()
    frame = bytearray(3 * _PITS)
    for i in range(_PITS):
        _light(hw, frame, i, 0, 0, 255)
        hw.feed_watchdog()
        sleep_ms(ms)
    _light(hw, frame, -1, 0, 0, 0)


def _raw_bits(raw) -> list:
    out = []
    for s in range(8 * len(raw)):
        if raw[s >> 3] & (1 << (s & 7)):
            out.append(s)
    return out


def touch_test(hw, timeout_ms: int = 20000, poll_ms: int = 10, stable: int = 3, sleep_ms=None) -> dict:
    """Light each pit in turn and wait for one sensor bit to answer (steady for `stable` reads), then for
    the release. Returns {"pit_sensor_bit": [...], "expected": [...], "mismatches": [...], "missing": [...],
    "duplicates": [...], "ok": bool}; 255 marks a pit that never answered."""
    sleep_ms = sleep_ms or _sleeper()
    frame = bytearray(3 * _PITS)
    seen = [_NONE] * _PITS
    polls = max(1, timeout_ms // poll_ms)
    for i in range(_PITS):
        _light(hw, frame, i, 0, 255, 0)
        last, count = -1, 0
        for _ in range(polls):
            hw.feed_watchdog()
            bits = _raw_bits(hw.read_raw())
            bit = bits[0] if len(bits) == 1 else -1
            count = count + 1 if bit == last and bit >= 0 else 0
            last = bit
            if count >= stable:
                seen[i] = bit
                break
            sleep_ms(poll_ms)
        _light(hw, frame, i, 255, 255, 255)
        for _ in range(polls):  # wait for the hand to leave
            hw.feed_watchdog()
            if not _raw_bits(hw.read_raw()):
                break
            sleep_ms(poll_ms)
    _light(hw, frame, -1, 0, 0, 0)
    expected = [cfg.PIT_SENSOR_BIT[i] for i in range(_PITS)]
    dup = [b for b in range(8 * cfg.SENS_CHIPS) if seen.count(b) > 1]
    return {
        "version": 1,
        "pit_sensor_bit": seen,
        "expected": expected,
        "mismatches": [name(i) for i in range(_PITS) if seen[i] != _NONE and seen[i] != expected[i]],
        "missing": [name(i) for i in range(_PITS) if seen[i] == _NONE],
        "duplicates": dup,
        "ok": seen == expected,
    }


def save(result: dict, path: str = PATH) -> None:
    with open(path, "w") as f:
        json.dump(result, f)


def load_mapping(path: str = PATH):
    """The recorded pit -> sensor bit mapping as bytes, or None (no file, or an incomplete recording)."""
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        return None
    seen = result.get("pit_sensor_bit")
    if not isinstance(seen, list) or len(seen) != _PITS or result.get("missing") or result.get("duplicates"):
        return None
    return bytes(seen)


def run(hw, path: str = PATH, sleep_ms=None, timeout_ms: int = 20000) -> dict:
    walk(hw, sleep_ms=sleep_ms)
    result = touch_test(hw, timeout_ms, sleep_ms=sleep_ms)
    save(result, path)
    frame = bytearray(3 * _PITS)
    for i in range(_PITS):  # the verdict: all green, or the pits that failed in red
        bad = name(i) in result["mismatches"] or name(i) in result["missing"]
        frame[3 * i] = 255 if bad else 0
        frame[3 * i + 1] = 0 if bad else 255
    hw.show(frame)
    return result


def self_test(hw, path: str = PATH, timeout_ms: int = 20000) -> dict:
    """The hardware's self-test (baoboard.hal.Hardware.self_test): run it, then read the pits through the
    mapping it recorded, when it found one."""
    result = run(hw, path, timeout_ms=timeout_ms)
    mapping = load_mapping(path)
    if mapping is not None:
        hw.use_mapping(mapping)
    return result


def main() -> dict:
    from baoboard.drivers.pico import PicoHardware

    result = run(PicoHardware())
    print("selftest:", "ok" if result["ok"] else result)
    return result
