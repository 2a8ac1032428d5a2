# The board notices its own broken sensors (issue #14; baoboard.debounce, docs/leds.md "Broken sensors"):
# a pit stuck active, a pit flickering far faster than a hand, a whole 74HC165 byte stuck. Each is
# reported once as an ERROR event naming the pit and its chip, lit, and ignored; a drop into an ignored
# pit is taken as made, so play goes on; noise never makes the undo gesture. On the simulated board (its
# sensors faulted as below) and on the chip models of tests/firmware/fakes_chips.py (a stuck chip).
from bao import core
from bao.core import format_move
from baoboard.simhw import Hands, SimHardware, SimulatedBoard
from board_util import Host, TempFiles, plies
from fwtest_util import Lcg


def _magenta(hw, pit):
    c = hw.rgb(pit)
    return c >> 16 > 200 and (c >> 8) & 255 == 0 and c & 255 > 200


class Faulty(SimHardware):
    """Sensors with faults: `stuck` bits always read active; pit `flicker` also reads active, at random, at
    `rate` percent of the scans (noise on its line: a hand on it is still seen)."""

    def __init__(self):
        super().__init__()
        self.stuck = bytearray(4)
        self.flicker = -1
        self.rate = 0
        self.rng = Lcg(5)

    def read_pits(self, bitmap):
        SimHardware.read_pits(self, bitmap)
        for b in range(4):
            bitmap[b] |= self.stuck[b]
        f = self.flicker
        if f >= 0:
            if self.rng.below(100) < self.rate:
                bitmap[f >> 3] |= 1 << (f & 7)


def _board():
    import random

    random.seed(9)
    hw = Faulty()
    st = TempFiles()
    b = SimulatedBoard(st, "test", hw=hw)
    b.app.guide.brightness = 255  # colours as they are
    return b, hw, Host(hw), Hands(b), st


def _errors(host):
    return [e for e in host.events if e[1] == "ERROR"]


def _play(b, hands, host, n):
    """The 1994 game's first n plies, performed by the hands; returns the moves as the board writes them."""
    want = []
    for p, m, _ in plies():
        if len(want) == n:
            break
        want.append(format_move(m, p.d[core.TO_MOVE]))
        hands.perform(p, m)
        host.poll()
    return want


def test_a_stuck_pit_is_reported_lit_and_ignored_and_play_goes_on():
    b, hw, host, hands, st = _board()
    hw.stuck[0] = 1 << 4  # A5 reads active for good
    hands.scan(21000 // hands.scan_ms)  # 21 s
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1, errs
    e = errs[0][2]
    for word in ('"stuck"', '"A5"', '"U2"', '"D4"'):
        assert word in e, (word, e)
    assert _magenta(hw, 4)
    # the first 8 plies sow through A5 three times: those drops are taken as made (the 9th starts at A5:
    # a start cannot be guessed, the host's SHOW and a working sensor remain)
    want = _play(b, hands, host, 8)
    assert host.moves() == want
    ill = [x for x in host.events if x[1] == "ILLEGAL"]  # (about 300 for 60 moves before)
    assert len(ill) <= 1 and all(x[0] < errs[0][0] for x in ill), ill  # the touch that stuck, only
    hw.stuck[0] = 0  # the sensor works again: after 2 s idle it is read again
    hands.scan(2500 // hands.scan_ms)
    assert bytes(b.app.deb.faulty) == bytes(4) and not _magenta(hw, 4)
    st.close()


def test_a_flickering_pit_is_reported_and_never_makes_the_undo_gesture():
    b, hw, host, hands, st = _board()
    want = _play(b, hands, host, 2)
    hw.flicker = 27  # b5, North's back row: flickering at 30 % of the scans while the board sits idle
    hw.rate = 30
    hands.scan(20000 // hands.scan_ms)
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1 and '"flicker"' in errs[0][2] and '"b5"' in errs[0][2], errs
    assert not [x for x in host.events if x[1] == "UNDO"]  # (the triple touch was made by noise before)
    assert len([x for x in host.events if x[1] == "ILLEGAL"]) <= 3  # (was 824)
    assert host.moves() == want and b.app.journal.nmoves == 2
    assert _magenta(hw, 27)
    st.close()


def test_a_slow_flicker_during_play_changes_no_move():
    b, hw, host, hands, st = _board()
    hw.flicker = 22  # a7: sown through by North six times, never a start
    hw.rate = 5
    want = _play(b, hands, host, 14)
    assert host.moves() == want
    errs = _errors(host)
    assert len(errs) == 1 and "\"a7\"" in errs[0][2], errs
    st.close()
