# Runs ON the emulated Pico (python tools/bench_pico.py --stand-still) or on the MicroPython unix port
# (... --stand-still --unix): the scan loop's longest stand-still in play. The board application on simulated
# hardware whose sensor read notes the time since the one before it (Pico time on a Pico): the longest gap
# between two scans is the longest time a touch could wait unseen, the LEDs stand still and the watchdog
# waits; long work scans from inside itself (App.serve), so a step may be longer than its gaps. Both are
# reported, for three sets of play:
#   game:    the 1994 game, every activation made by simulated hands (each pit held 4 scans, 5 ms apart)
#   slow:    the slowest position known (Malawi, A4L* sleeps at the bound, M4), set by the host's SETPOS:
#            each of its start pits lifted (then the boundary set again, not timed), and A4L* performed
#   random:  every other position of POSITIONS, likewise: SETPOS, each start pit lifted, its longest move
#            performed
# The steps in which the board does a quiet moment's work (no hand on it for a while between moves: the
# journal's compaction or a sector erased ahead, the outbox's retransmission timer; App.step) are counted
# apart: a touch made in them waits, but none is made then by definition of the moment. So are the steps
# running a host command (SETPOS): its code loaded from flash, the position set, its moves listed.
# A move with more than 2 * _ENDS activations has its middle ones fed straight to App.activation (not timed:
# each is an ordinary step's work; 12,416 through the hands would take minutes of Pico time).
# Set by whoever sends this code: POSITIONS (a file, one position's JSON a line: the first is the slow
# one), GAME (the 1994 game's file), and JOURNAL_ROOT (a folder: the journal as main.py puts it, on a Pico
# on flash sectors of its own, baoboard.flashres; "": in RAM). Prints one JSON line.
import gc
import json
import time

try:
    from micropython import stack_use
except ImportError:

    def stack_use():
        return 0


from bao import core, position_json  # noqa: E402
from bao.core import format_move  # noqa: E402
from baoboard.app import App  # noqa: E402
from baoboard.recogniser import sequence  # noqa: E402
from baoboard.simhw import SimHardware  # noqa: E402
from baoproto.frames import decode, encode  # noqa: E402

_ENDS = 20


class Timed(SimHardware):
    """Simulated hardware whose sensor read times the gap since the one before (a scan's stand-still), and
    a host at the other end of its link that acknowledges every event (the journal stays recording)."""

    def __init__(self):
        super().__init__()
        self.last = time.ticks_us()
        self.t0 = time.ticks_ms()
        self.gap = 0  # the longest gap in play
        self.qgap = 0  # ... that ended a step doing a quiet moment's work (App.step: journal, outbox timer)
        self.cgap = 0  # ... in or after a step running a host command (SETPOS: its code loaded, the position set)
        self.kind = 0  # 1: the gap now running began in a quiet moment's work, 2: in a host command
        self.quiet = 0  # 1: the step now running did that work
        self.cmd = 0  # 1: the step now running runs a host command
        self.reads = 0  # sensor reads in the step now running (the first is the step's, the others a long work's)
        self.where = None  # where the longest gap in play ended: [read in its step, phase, activations in the move]
        self.epoch = ""
        self.events = 0
        self.buf = b""
        self.replies = 0
        self.on_write = self.take
        self.stack = 0  # the most C stack in use at a sensor read (micropython.stack_use; 0 where there is none)

    def ticks_ms(self):
        """The simulated scans' time (5 ms a step) plus the time the board's work really took: long work's
        budget (App.serve) is in time the work takes."""
        return self.t + time.ticks_diff(time.ticks_ms(), self.t0)

    def read_pits(self, bitmap):
        su = stack_use()  # (a scan is the deepest call long work makes: App.serve)
        if su > self.stack:
            self.stack = su
        t = time.ticks_us()
        g = time.ticks_diff(t, self.last)
        if self.kind == 2:
            if g > self.cgap:
                self.cgap = g
        elif self.kind:
            if g > self.qgap:
                self.qgap = g
        elif g > self.gap:
            self.gap = g
            self.where = [self.reads + 1, app.rec.phase, app.rec.steps]
        self.reads += 1
        self.kind = 2 if self.cmd else 0
        self.last = t
        SimHardware.read_pits(self, bitmap)

    def mark(self):
        """Untimed work was done between two scans: the next gap starts now."""
        self.last = time.ticks_us()

    def take(self, data):
        data = self.buf + data
        i = data.rfind(b"\n") + 1
        self.buf = data[i:]
        for line in data[:i].split(b"\n"):
            f = decode(line) if line else 0
            if isinstance(f, int):
                continue
            if f[0] == "H":
                for w in f[3].split(" "):
                    if w.startswith("epoch="):
                        self.epoch = w[6:]
            elif f[0] == "E" and f[1] > self.events:
                self.events = f[1]
            elif f[0] == "R":
                self.replies += 1

    def ack(self):
        if self.events:
            self.rx.extend(encode("A", self.events, "ACK", self.epoch))


def clear(d):
    """A fresh journal folder (tools/pico/onpico/board_steps.py's)."""
    import os

    try:
        for name in os.listdir(d):
            if name == "jflash":
                clear(d + "/jflash")
                os.rmdir(d + "/jflash")
            else:
                os.remove(d + "/" + name)
    except OSError:
        os.mkdir(d)


try:
    JOURNAL_ROOT  # noqa: B018
except NameError:
    JOURNAL_ROOT = ""
if JOURNAL_ROOT:
    from baoboard.flashres import journal_storage

    clear(JOURNAL_ROOT)
    storage = journal_storage(JOURNAL_ROOT)
else:
    from baoboard.memstorage import FakeStorage

    storage = FakeStorage()

hw = Timed()
app = App(hw, storage, board_id="bench")
app.boot()
gc.collect()
worst = [0, 0, 0, 0]  # of the set being played: the longest step in play, steps, in a quiet moment's work, in
# a host command's


def quietly(job):
    """job, noted as the work the board does in a quiet moment (no hand on it between moves: App.step)."""

    def run(*args):
        hw.quiet = 1
        return job(*args)

    return run


app.journal.maintain = quietly(app.journal.maintain)
app.outbox.poll = quietly(app.outbox.poll)
command = app.outbox.on_command


def commanded(*args):
    hw.cmd = hw.kind = 2  # (the gap running since the step's scan: the command's too)
    return command(*args)


app.outbox.on_command = commanded


def step():
    hw.t += 5
    hw.quiet = 0
    hw.cmd = 0
    hw.reads = 0
    t0 = time.ticks_us()
    app.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    k = 3 if hw.cmd else 2 if hw.quiet else 0
    if dt > worst[k]:
        worst[k] = dt
    worst[1] += 1
    hw.kind = 2 if hw.cmd else hw.quiet


def tap(pit):
    hw.set_pit(pit, True)
    for _ in range(4):
        step()
    hw.set_pit(pit, False)
    for _ in range(4):
        step()


def perform(p, m):
    """m from p through the hands (its middle fed straight, untimed, when it is long)."""
    acts = sequence(p, m)
    n = len(acts)
    hw.mark()
    for i in range(n):
        pit = acts[i] & 31
        if i < _ENDS or i >= n - _ENDS:
            tap(pit)
        else:
            app.activation(pit, hw.t)
            if i == n - _ENDS - 1:
                hw.mark()
    acts = None
    hw.ack()  # the host acknowledges the move's events at once
    for _ in range(80):  # the players' pause after a move (the journal's work ahead)
        step()


def begin():
    gc.collect()
    worst[0] = worst[1] = worst[2] = worst[3] = 0
    hw.mark()
    hw.gap = hw.qgap = hw.cgap = hw.stack = 0


def done(name, out):
    out[name] = {
        "gap_ms": hw.gap / 1000,
        "step_ms": worst[0] / 1000,
        "steps": worst[1],
        "quiet_gap_ms": hw.qgap / 1000,
        "quiet_step_ms": worst[2] / 1000,
        "where": hw.where,
        "command_gap_ms": hw.cgap / 1000,
        "command_step_ms": worst[3] / 1000,
        "stack": hw.stack,
    }


cmd = [100]  # the host's command numbers


def setpos(text):
    replies = hw.replies
    cmd[0] += 1
    hw.rx.extend(encode("C", cmd[0], "SETPOS", text))
    for _ in range(40):
        step()
        if hw.replies > replies:
            break
    assert app.p.d == position_json.loads(text).d, "SETPOS not taken"


def position(text):
    """SETPOS, each start pit lifted, the longest move performed."""
    setpos(text)
    p = app.p
    firsts = []
    for m in app.rec.codes:
        f = app.rec.first_pit(m)
        if f not in firsts:
            firsts.append(f)
    for f in firsts:
        tap(f)
        if app.p is not p:  # a placement drop (M22) is a move of one activation: the position again
            setpos(text)
        else:
            app.boundary(p, hw.t)  # (the lift taken back: not timed)
            hw.mark()
    longest = -1
    most = -1
    for m in app.rec.codes:
        k = len(sequence(p, m))
        if k > most:
            most = k
            longest = m
    hw.mark()
    perform(p, longest)
    return format_move(longest, p.d[core.TO_MOVE]), most


def plies():
    p = core.initial()
    with open(GAME) as f:  # noqa: F821  (set by whoever sends this code)
        for line in f:
            colon = line.find(":")
            if colon < 0 or not line[:colon].strip().isdigit():
                continue
            for text in line[colon + 1 :].split(";")[0].split():
                side = p.d[core.TO_MOVE]
                m = [c for c in core.legal_move_codes(p) if format_move(c, side) == text][0]
                yield p, m
                p = core.play(p, m)


out = {}
begin()
for p, m in plies():
    perform(p, m)
done("game", out)
num = 0
with open(POSITIONS) as f:  # noqa: F821
    first = True
    begin()
    for line in f:
        text = line.strip()
        if not text:
            continue
        num += 1
        played = position(text)
        if first:
            out["slow_move"] = played
            done("slow", out)
            begin()
            first = False
    done("random", out)
    out["positions"] = num
print(json.dumps(out))
