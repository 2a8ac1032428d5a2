# The scan loop skips the debouncer's scan when Debouncer.quiet() says it would do nothing (App.scan): the
# activations, their ticks and the debounced levels must be the same as when every scan is taken, for
# hands and noise alike (pulses shorter than the debounce, holds, several pits at once).
from baoboard.debounce import Debouncer
from fwtest_util import Lcg


def _play(skip_quiet, seed, scans=3000):
    """Random raw bitmaps held for a random number of scans; (pit, tick) of each activation and the levels."""
    rng = Lcg(seed)
    deb = Debouncer(3)
    raw = bytearray(4)
    out = []
    hold = 0
    for now in range(0, scans * 2, 2):
        if hold == 0:
            hold = 1 + rng.below(6)  # 1 or 2 scans: noise; 3 and more: a hand
            raw[rng.below(2)] ^= 1 << rng.below(3)  # (six pits: a pulse often ends on the pit it began on)
            if rng.below(4) == 0:
                raw[rng.below(2)] ^= 1 << rng.below(3)  # two pits change in the same scan
        hold -= 1
        if not (skip_quiet and deb.quiet(raw)):
            deb.scan(raw, now)
        while True:
            pit = deb.pop()
            if pit < 0:
                break
            out.append((pit, deb.last_tick))
    return out, bytes(deb.level), bytes(deb.blips)


def test_skipping_quiet_scans_changes_no_activation_nor_level():
    for seed in (1, 7, 42):
        every = _play(False, seed)
        assert every[0], "the random hands made no activation"
        assert _play(True, seed) == every


def test_quiet_only_when_nothing_settles():
    deb = Debouncer(3)
    raw = bytearray(4)
    assert deb.quiet(raw)
    raw[2] = 4  # a hand arrives: not quiet until it is confirmed, three scans
    for now in (0, 5, 10):
        assert not deb.quiet(raw)
        deb.scan(raw, now)
    assert not deb.quiet(raw)  # its activation waits to be taken
    assert deb.pop() == 18
    assert deb.quiet(raw)
    raw[2] = 0  # it leaves after one scan back: a blip, then quiet again once the count is dropped
    deb.scan(raw, 15)
    raw[2] = 4
    assert not deb.quiet(raw)
    deb.scan(raw, 20)
    assert deb.quiet(raw)
