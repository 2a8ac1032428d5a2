# The link's work is bounded per scan (issue #26): a burst of host lines (a reconnecting logger's HELLO, line
# noise, a NAK, a PING, a SNAP) must not keep the board from its sensors past a quick touch. The simulated
# clock stands still while the board works, so here the link's work moves it: each line the board writes (an
# answer, a notice, an event sent again) costs it LINE_MS, and a hand holds a pit HOLD_MS of that clock. A
# board that took a whole read of the link in one scan answered several lines in it and read its sensors too
# seldom for the debounce (3 agreeing scans) to see the touch.
from baoboard.simhw import SimHardware, SimulatedBoard
from baoproto.frames import encode
from board_util import Host, TempFiles, plies
from fwtest_util import Lcg

LINE_MS = 6  # the board's clock, per line it writes (decoding a host's line, encoding its answer)
HOLD_MS = 50  # a quick touch (bao_testkit.picofuzz: 10 scans of 5 ms)
SCAN_MS = 1  # the pause between two scans (baoboard.runtime)


class LinkClock(SimHardware):
    """Simulated hardware whose clock the link's writes move, with one hand on it: touch(pit) holds the
    pit from now for HOLD_MS of the board's clock (the sensor read says so), then lets it go."""

    def __init__(self):
        super().__init__()
        self.pit = -1
        self.until = 0
        self.reads = 0
        self.most = 0  # the most lines written between two sensor reads
        self.lines = 0

    def serial_write(self, data):
        self.t += LINE_MS
        self.lines += 1
        super().serial_write(data)

    def read_pits(self, bitmap):
        if self.pit >= 0:
            self.set_pit(self.pit, self.t < self.until)
        self.reads += 1
        if self.lines > self.most:
            self.most = self.lines
        self.lines = 0
        super().read_pits(bitmap)


def burst(k, rng):
    """A burst of host lines as a faulty link delivers them: a HELLO, short noise lines, a NAK the board
    refuses (no epoch), a PING and a SNAP, command ids from k."""
    b = b"\n" + encode("C", k, "HELLO", "4,3,2,1")
    for _ in range(6):
        n = 5 + rng.below(8)
        noise = bytearray(n)
        for i in range(n):
            noise[i] = 32 + rng.below(95)
        b += bytes(noise) + b"\n"
    return b + b"A1 NAK bad=2\n" + encode("C", k + 1, "PING") + encode("C", k + 2, "SNAP")


def _board():
    import random

    random.seed(9)  # (the board's epoch: board_util.board)
    st = TempFiles()
    hw = LinkClock()
    b = SimulatedBoard(st, "test", 3, hw=hw)
    host = Host(hw)
    host.command(1, "HELLO", "4,3,2,1")
    b.run(20, SCAN_MS)
    host.poll()  # (the host has every event: a HELLO sends nothing again)
    b.run(20, SCAN_MS)
    return b, hw, host, st


def _touch(b, hw, pit):
    """One touch of HOLD_MS, then as long again with the pit let go."""
    hw.pit = pit
    hw.until = hw.t + HOLD_MS
    while hw.t < hw.until + HOLD_MS:
        b.run(1, SCAN_MS)
    hw.pit = -1


def test_a_burst_of_host_lines_before_every_other_touch_loses_no_touch_of_a_move():
    from baoboard.recogniser import activations

    b, hw, host, st = _board()
    p, m, text = next(plies())
    rng = Lcg(2)
    acts = activations(p, m)
    for k in range(len(acts)):
        if k % 2 == 1:
            host.send(burst(100 + 10 * k, rng))
        _touch(b, hw, acts[k])
    b.run(50, SCAN_MS)
    host.poll()
    refused = [e for e in host.events if e[1] == "ILLEGAL"]
    assert (host.moves(), refused) == ([text], []), (host.moves(), refused)
    # every command of every burst answered, once; every noise line refused with one notice
    snaps = [r for r in host.replies if r[0] % 10 == 2 and r[0] > 100]
    assert len(snaps) == len(acts) // 2 and all(r[1] == "OK" for r in snaps), host.replies
    # the link's work between two sensor reads: one line answered, and what it brings (a HELLO's STATE, one
    # event of a pass sent again), never the burst
    assert hw.most <= 3, hw.most
    st.close()


def test_a_hello_in_a_move_sends_the_events_waiting_again_one_a_scan_and_loses_no_touch():
    # A host that acknowledged none of the last moves says HELLO again in the middle of the next one: the
    # board sends every event it waits for again (the pass), one a scan, while the touches are taken.
    from baoboard.recogniser import activations

    b, hw, host, st = _board()
    plays = plies()
    played = []
    for _ in range(5):
        p, m, text = next(plays)
        for pit in activations(p, m):
            _touch(b, hw, pit)
        played.append(text)
    p, m, text = next(plays)
    played.append(text)
    acts = activations(p, m)
    _touch(b, hw, acts[0])
    host.command(50, "HELLO", "4,3,2,1")
    for pit in acts[1:]:
        _touch(b, hw, pit)
    b.run(50, SCAN_MS)
    assert (host.moves(), host.gaps) == (played, 0) and host.dups >= 5, (host.moves(), host.gaps, host.dups)
    assert hw.most <= 3, hw.most
    st.close()
