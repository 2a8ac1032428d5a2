# Sensor faults the board sees for itself (issue #14; docs/leds.md, "Broken sensors"):
#   stuck    a pit that senses a hand far longer than a hand stays (a stuck or shorted sensor, or a TTP223
#            touched at power-up, which then reads inverted: hardware/README.md)
#   flicker  a pit that makes pulses shorter than the debounce (Debouncer.blips), far faster than a hand:
#            a TTP223's push-pull output never does
#   chip     every pit of one 74HC165 stuck at once: the chip or its ribbon (found by the report,
#            baoboard.commands.fault, which knows the wiring)
# A faulty pit is ignored (the application masks it out of every scan before the debouncer) and lit
# (baoboard.guide); each is reported once, as an ERROR event. A stuck pit that reads idle again for
# _CLEAR_CHECKS checks is taken back; a flickering one stays ignored until the board restarts (masked, it
# can no longer be watched). The pits are checked every _CHECK_MS, not every scan; nothing is allocated
# after __init__.
#   h = Health(debouncer)
#   h.check(raw, now)         each scan, with the raw bitmap before masking
#   h.faulty                  bitmap of the pits ignored;  h.count: how many
#   h.pop() -> pit | -1       a pit found faulty and not yet reported;  h.kind[pit]: STUCK or FLICKER
from baoboard.compat import const, ticks_diff

STUCK = const(1)
FLICKER = const(2)
_CHECK_MS = const(100)
_STUCK_CHECKS = const(200)  # active at every check for 20 s: no hand stays so long (the self-test: 2 s)
_CLEAR_CHECKS = const(20)  # idle at every check for 2 s: a stuck pit reads normally again
_FLICKER = const(8)  # blips counted, one forgotten every other check (5 a second): a hand makes none


class Health:
    def __init__(self, deb: object) -> None:
        self.blips = deb.blips  # type: ignore[attr-defined]
        self.faulty = bytearray(4)  # the pits ignored, as the raw bitmap
        self.kind = bytearray(32)  # STUCK or FLICKER for each faulty pit, 0 for a sound one
        self.held = bytearray(32)  # checks in a row a sound pit was active (a stuck one: idle)
        self.unsaid = bytearray(4)  # faulty pits not yet reported
        self.count = 0
        self._at = 0
        self._odd = 0

    def check(self, raw: bytearray, now: int) -> None:
        if ticks_diff(now, self._at) < _CHECK_MS:
            return
        self._at = now
        decay = self._odd
        self._odd ^= 1
        blips = self.blips
        held = self.held
        kind = self.kind
        for i in range(32):
            b = i >> 3
            bit = 1 << (i & 7)
            on = raw[b] & bit
            h = held[i]
            k = kind[i]
            if k == STUCK:
                h = 0 if on else h + 1
                if h >= _CLEAR_CHECKS:
                    kind[i] = 0
                    self.faulty[b] &= ~bit
                    self.unsaid[b] &= ~bit
                    self.count -= 1
                    h = 0
            elif k == 0:
                h = (h + 1 if h < 255 else h) if on else 0
                if h >= _STUCK_CHECKS:
                    k = STUCK
                    h = 0
                elif blips[i] >= _FLICKER:
                    k = FLICKER
                if k:
                    kind[i] = k
                    self.faulty[b] |= bit
                    self.unsaid[b] |= bit
                    self.count += 1
            held[i] = h
            if decay and blips[i]:
                blips[i] -= 1

    def pop(self) -> int:
        u = self.unsaid
        if not (u[0] | u[1] | u[2] | u[3]):
            return -1
        for i in range(32):
            bit = 1 << (i & 7)
            if u[i >> 3] & bit:
                u[i >> 3] &= ~bit
                return i
        return -1
