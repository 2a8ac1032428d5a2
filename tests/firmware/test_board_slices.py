# Long work serves the scan loop (App.serve, docs/architecture.md "Timing budgets"): in the slowest Malawi
# position known, a never-ending candidate (A4L*, M4: it sleeps at the bound on seeds sown) takes long to
# list at a move boundary and to turn into activations when its pit is lifted. The board keeps scanning
# meanwhile: the touches made then are kept and recognised in order once the work is done, the LEDs show
# the lift acknowledged, the watchdog is fed. The simulated clock stands still while the board works: the
# scans counted here come from the work's own measure (App.serve every few dozen relays), not from time.
import gc

from bao import core, position_json
from baoboard import recogniser as R
from board_util import board

# test_board_recogniser's SLOW_MALAWI (that module is not imported here: its code would fill a 64 KB heap)
SLOW_MALAWI = (
    '{"to_move":"S","A":[2,1,0,11,3,6,11,0],"B":[1,2,1,0,6,1,0,1],"a":[1,1,0,1,1,0,0,0],'
    '"b":[3,2,0,5,2,2,0,0],"store":{"S":0,"N":0},"house":{"S":false,"N":false},"takasia":null,'
    '"ruleset":"malawi"}'
)
A4 = 3  # South's A4 (ring 3); A4L* is move 3
# baoboard.guide's LIFTED (dim yellow, 0x806000) at the default brightness (64 of 255)
LIFTED_LIT = ((0x80 * 64 >> 8) << 16) | ((0x60 * 64 >> 8) << 8)


class Scans:
    """Counts the board's scans (sensor reads) inside one step of its run loop, and plays a script of
    touches on them: script[k] = pit pressed at the k-th scan of the step (released 4 scans later)."""

    def __init__(self, app, hw):
        self.app = app
        self.hw = hw
        self.read = hw.read_pits
        self.n = 0  # scans in the step being watched
        self.script = {}
        self.watch = -1  # a pit whose colour is noted at each scan after the first (nothing allocated meanwhile)
        self.first = -1  # its colour at the second scan
        self.lifted = 0  # scans after the second that found it lit as lifted
        self.feeds = 0
        hw.read_pits = self.scan

    def scan(self, bitmap):
        self.n += 1  # (the LEDs as the scan before left them)
        act = self.script.get(self.n)
        if act is not None:
            self.hw.set_pit(act[0], act[1])
        if self.watch >= 0 and self.n == 2:
            self.first = self.hw.rgb(self.watch)
        elif self.watch >= 0 and self.n > 2 and self.hw.rgb(self.watch) == LIFTED_LIT:
            self.lifted += 1
        self.read(bitmap)

    def step(self):
        """One step of the board's run loop: the scans it made."""
        self.n = 0
        feeds = self.hw.feeds
        self.app.step()
        self.feeds = self.hw.feeds - feeds
        return self.n


def _setpos(app, hw, host, scans):
    """The host sets the slowest position (its frame comes in over a few steps): the most scans a step
    made."""
    host.command(7, "SETPOS", SLOW_MALAWI)
    n = 0
    for _ in range(20):  # (a 64-byte read a step)
        n = max(n, scans.step())
        if host.replies:
            break
    assert host.replies[-1][:2] == (7, "OK"), host.replies
    assert app.p.d == position_json.loads(SLOW_MALAWI).d and len(app.rec.codes) == 10
    return n


def _first_drops(p):
    """A4L*'s first activations: the lift, then its drops as far as a bound of 100 seeds lets it go (the
    same start as at the real bound; its 12,416 activations would not fit beside the board in 64 KB)."""
    acts = R.activations(core.Position(p.d, core.Rules(core.MALAWI, sow_bound=100)), A4)
    assert len(acts) > 20 and acts[0] == A4
    return acts


def test_setpos_of_the_slowest_position_serves_the_scan_loop():
    app, hw, hands, host, st = board()
    scans = Scans(app, hw)
    hands.scan(2)
    n = _setpos(app, hw, host, scans)
    # the boundary's listing plays A4L* past the bound and checks where its state first repeats (M4): it
    # scans, and feeds the watchdog, while it does
    assert n > 5 and scans.feeds >= n, (n, scans.feeds)
    st.close()


def test_lifting_a4_keeps_scanning_and_recognises_the_touches_made_meanwhile():
    app, hw, hands, host, st = board()
    scans = Scans(app, hw)
    hands.scan(2)
    _setpos(app, hw, host, scans)
    acts = _first_drops(app.p)
    # the first three drops of A4L*, each held 3 scans (the debounce: 3) and let go for 3, made while the
    # board turns its candidates' accounts into activations
    for i, pit in enumerate(acts[1:4]):
        scans.script[4 + 6 * i] = (pit, True)
        scans.script[7 + 6 * i] = (pit, False)
    gc.collect()  # (as the board does at each move: the lift's sequences are 12 KB in one piece)
    hw.set_pit(A4, True)
    scans.watch = A4
    lifted = 0
    for _ in range(3):  # the debounce: the lift is taken at the third scan
        lifted = scans.step()
    n = lifted
    # spread over many scans (all three touches made in them); the lifted pit lit as lifted from the first
    # scan the work made on
    assert n > 20, n
    # (at the second scan the LEDs are the step's before: A4 a start, green)
    assert scans.first != LIFTED_LIT and scans.lifted == n - 2, (scans.first, scans.lifted, n)
    assert scans.feeds >= n
    # the three drops made meanwhile are recognised in order, once the work is done
    rec = app.rec
    assert rec.phase == R.MOVING and rec.steps == 4 and rec.wrong_pit < 0, (rec.phase, rec.steps)
    assert [rec.c_move[i] & 63 for i in range(rec.n)] == [A4]  # A4R* went with the first drop
    assert rec.expected(0) & R.PIT == acts[4]
    assert hw.rgb(acts[4]) != 0  # the next drop is lit
    hw.set_pit(A4, False)
    st.close()


def test_a_wrong_touch_during_the_work_is_flagged_after_it():
    app, hw, hands, host, st = board()
    scans = Scans(app, hw)
    hands.scan(2)
    _setpos(app, hw, host, scans)
    acts = _first_drops(app.p)
    wrong = 16 + 2  # North's a3: no candidate's first drop
    assert wrong not in (acts[1], R.activations(app.p, A4 | core.RIGHT)[1])
    scans.script[4] = (wrong, True)
    scans.script[7] = (wrong, False)
    gc.collect()
    hw.set_pit(A4, True)
    for _ in range(3):
        scans.step()
    rec = app.rec
    assert rec.steps == 1 and rec.n == 2 and rec.wrong_pit == wrong, (rec.steps, rec.n, rec.wrong_pit)
    host.poll()
    assert host.events[-1][1] == "ILLEGAL" and '"a3"' in host.events[-1][2], host.events[-1]
    st.close()


def test_a_compaction_in_play_serves_the_scan_loop():
    # The journal's compaction copies the game's moves and the events waiting for a host into a new
    # checkpoint: with no host acknowledging, the 1994 game's records grow past the journal's limit and a
    # move's step compacts them. The board scans between the checkpoint's records as it writes them.
    from board_util import plies

    app, hw, hands, host, st = board()
    scans = Scans(app, hw)
    compact = app.journal.compact
    during = []  # scans made inside each compaction

    def watched():
        n = scans.n
        ok = compact()
        during.append(scans.n - n)
        return ok

    app.journal.compact = watched
    hands.scan(2)
    for p, m, _ in plies():
        hands.perform(p, m)
        hands.scan(2)
        if during:
            break
        host.poll(ack=False)  # nothing acknowledged: every event waits in the checkpoint too
    assert during and app.journal.nmoves > 20, (during, app.journal.nmoves)
    assert during[0] >= 2, during
    st.close()
