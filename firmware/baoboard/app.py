# The board application: scan -> debounce -> recogniser -> rules core -> journal -> outbox -> serial,
# and the LED guide. It is handed a hardware object (baoboard.hal.Hardware) and a Storage; it imports no
# hardware module, so the same code runs on the Pico, in the simulated board and in the tests.
#   app = App(hw, storage, board_id="e661...", fw="0.1.0"); app.boot(); while True: app.step()
# (the board's run loop, baoboard.runtime, does that, and restarts it after a fault).
# step() is one scan-loop iteration; when nothing happens it allocates nothing (tools/bench_board.py).
# Host commands (docs/protocol.md): NEW, SETPOS, SETUP, UNDO, MODE, BRIGHT, SNAP, SHOW, STOP, PING, CPU, HINT, run by
# baoboard.commands, which is loaded for each command and dropped after it. What the rare jobs may change,
# they change through these methods (their state is read freely):
#   post_game(start, position)   a GAME event, then play from start
#   boundary(p, now)             a move boundary: p is the position on the board, a move half made dropped
#   commit(move, child, now)     a MOVE (and END) event          post_end()             the END event
#   undo(now) -> bool            take the last move back         request_selftest(ms)   after this step
#   resume(now)                  take the game up again after the scan loop stood still (the self-test)
# and the guide's settings (guide.mode, guide.brightness) and the recogniser's hint (rec.hint); a host
# command's changes are shown at the end of its step. (On the Bao-board image the code and its names are
# in flash; `make deploy`'s .mpy files intern each name in the Pico's RAM: docs/architecture.md, Memory on
# the board.)
# RAM (docs/benchmarks.md, Board): the legal moves are kept as codes, the moves and pending events on
# flash (the journal), and code for rare jobs (commands, the computer, reasons of illegal attempts) only while
# it runs.
try:
    from typing import Any

    from bao.position import Position

    from baoboard.hal import Hardware
    from baoboard.protocols import Storage  # (a stub: no module at run time)
except ImportError:
    pass

import gc
import json

# (the rules core's layers, not bao.core's facade: its names would take heap on the board)
from bao import position_json, sowing
from bao.layout import TO_MOVE, pit_name
from bao.movetext import format_move
from bao.position import initial
from bao.rules import legal_move_codes, outcome
from baoproto.frames import move_payload
from baoproto.state import PROTO_SETUP, PROTO_STATE

from baoboard import recogniser as R
from baoboard.compat import const, get_ident, modules_now, ticks_diff, unload_new
from baoboard.debounce import Debouncer
from baoboard.guide import Guide
from baoboard.journal import Journal
from baoboard.outbox import Outbox
from baoboard.state import StateLine

FW_VERSION = "0.1.0"
_HOST_MS = const(15000)  # no valid frame from the host for this long: "no host connected"
_BUTTON_UNDO = const(1)  # optional buttons: take the last move back
_BUTTON_NEW = const(2)  # start a new game (same ruleset)
_SELFTEST_HOLD_MS = const(2000)  # the four corner pits held this long: the self-test (hardware/README.md)
_HINT_HOLD_MS = const(1000)  # one side's two back-row ends held this long, then let go: a hint (docs/leds.md)
_CPU_HOLD_MS = const(3000)  # ... held this long: play the computer, one level up (off after the last)
_QUIET_MS = const(150)  # no activation for this long, no hand on the board: the journal's work is done
_PAIR = const(75)  # baoboard.debounce: kind[_PAIR], two start pits suspect of a dead input (baoboard.sensors)
# Long work (a never-ending move's candidates, M4: their accounts when its start pit is lifted, its listing
# at a move boundary, the move played) serves the scan loop: at least every _SLICE_MS of its ticks, or
# every _SLICE_UNITS calls of App.serve whatever the clock says (a simulated clock stands still while the
# work runs), one scan (docs/architecture.md, Timing budgets)
_SLICE_MS = const(20)
_SLICE_UNITS = const(16)


class App:
    def __init__(
        self, hw: "Hardware", storage: "Storage", board_id: str = "board", fw: str = FW_VERSION, stable: int = 3
    ) -> None:
        if hasattr(gc, "mem_free"):  # MicroPython: the long-lived buffers below go low in a heap freed of what
            gc.collect()  # a previous run left (a test of gc, not a global: a global's name is a qstr)
        self.hw = hw
        self.storage = storage
        self.selftest_due = False  # set by the gesture or the SELFTEST command; run at the end of a step
        self.selftest_ms = 20000  # the self-test's wait for each touch (SELFTEST <ms> sets it)
        # the scan loop's own ticks and counters
        self.shown_phase = -1  # the guide's blink phase last shown, or -1
        self.rx_at = 0  # tick of the last valid frame from the host
        self.corners_at = -1  # tick since which the four corner pits are all held, or -1
        self.pair_at = -1  # tick since one side's two back-row ends are held; -1 not held, -2 used up
        self.act_at = 0  # tick of the last activation handled (the quiet moment's clock)
        self.behind = True  # the journal may have work for a quiet moment (Journal.maintain)
        self.collect_due = False  # a collection waits for the next quiet moment (App.work)
        self.searching = False  # the computer's search runs, and calls step() itself (baoboard.opponent)
        self.scan_at = 0  # tick of the last scan: the step's, or one long work served (App.serve)
        self.units = 0  # long work's calls of App.serve since that scan
        self.owner = get_ident()  # the thread that runs the steps: only its long work is served (App.serve)
        self.served = self.serve  # (bound once: bao.sowing.serve during each step, allocated once)
        self.bitmap = bytearray(4)
        self.rx = bytearray(64)  # the link's last read: rx[rx_i:rx_n] still to be taken, a line a step (listen)
        self.rx_i = 0
        self.rx_n = 0
        self.deb = Debouncer(stable)  # and the sensors' health: a faulty pit is ignored, lit, reported
        self.rec = R.Recogniser()
        self.rec.deb = self.deb  # (noise makes no gesture; drops into ignored pits are taken as made)
        self.guide = Guide()
        self.guide.faulty = self.deb.faulty
        self.journal = Journal(storage)
        from bao import RULES_VERSION

        hello = f"fw={fw} rules={RULES_VERSION} board={board_id}"
        self.outbox = Outbox(self.journal, hw.serial_write, hw.ticks_ms, hello=hello)
        self.outbox.on_command = self.command
        self.outbox.defer = True  # (commands run in the scan, one a scan: App.scan)
        self.outbox.paced = True  # (the events a pass sends again: one a scan, App.listen)
        self.state_line = StateLine()  # the STATE notice, for a host of protocol 3 (baoboard.state)
        self.state_due = False  # the guide drew a new state (not a blink): tell the host at the scan's end
        self.hellos = 0  # the outbox's HELLOs seen: a new host is told the state
        self.p = initial()
        self.dirty = True
        self.rx_frames = -1
        self.buttons = 0
        self.loops = 0
        self.moves_done = 0
        self.fault = ""  # set when something is wrong that a restart should fix: the watchdog is then starved
        self.cpu = -1  # the side the computer plays (0 South, 1 North), or -1: two players
        self.level = 1  # the computer's level: 1..4 the board's engine (baoboard.opponent), 0 the host's (SHOW)
        self.think_due = 0  # at the end of this step, search: 1 the computer's move, 2 a hint
        self.setup = None  # type: Any  # the set-up mode while it runs (baoboard.setup_mode.Setup): its touches, LEDs

    # ---- boot and game state
    def boot(self) -> None:
        self.hw.read_pits(self.bitmap)  # a pit sensed when the power comes is no touch: a TTP223 takes what it
        self.deb.reset(self.bitmap)  # senses at power-up as its baseline (a hand left on a pit through a
        # power cut: a touch here would start a move the player is not making; a stuck pit is found by time)
        self.journal.open()
        self.rx_at = self.hw.ticks_ms()
        self.outbox.start()  # HELLO, then every event the host has not acknowledged
        p = self.rare("restore")  # the game the journal holds (baoboard.commands, dropped before its moves)
        if p is None:
            self.post_game(initial(), None)
        else:
            self.boundary(p, self.hw.ticks_ms())
            if self.guide.winner >= 0 and self.journal.ended is None:
                self.post_end()  # the power went between the last move and its END event
            elif self.journal.begun >= 0:  # the power went in the middle of a move: the pits it may have
                self.rare("cut", self.hw.ticks_ms())  # touched are set up again, not guessed (#28)
        self.recording()
        if hasattr(gc, "mem_free"):  # play (this ends main.py's collection every KB while loading): in a small
            gc.threshold(-1)  # heap, a collection once half the room left is allocated, so the garbage is
            if gc.mem_free() < 65536:  # reused before a move's records spread over it; on a Pico (far more
                gc.collect()  # free) only those at each move (App.commit), as fast as without the policy
                gc.threshold(gc.mem_free() // 2)  # (docs/architecture.md, Memory on the board)

    def switch_off(self) -> None:
        """Switched off on purpose (a simulated board's host quits; a Pico has no such moment): a move begun is
        journalled as left so, and the next boot says that, not a power cut (Journal.stop)."""
        self.journal.stop()

    def recording(self, full: bool = False) -> None:
        """Tell the player, and a host, when the game is not recorded (too many events wait for a host), or
        when a move was refused (full: the flash has no room for its record; the guide's 2)."""
        off = 2 if full else int(not self.journal.recording)
        if off == 2:
            self.outbox.notice("FULL", "pending=%d" % self.journal.npending)  # (docs/protocol.md: refused)
        elif off:
            self.outbox.notice("UNRECORDED", "pending=%d" % self.journal.npending)
        if off != self.guide.unrecorded:
            self.guide.unrecorded = off
            self.dirty = True

    def rare(self, job: str, *args: object) -> "Any":
        """Run baoboard.commands.<job>(self, *args), or for the computer's jobs (think, choose)
        baoboard.opponent.<job>, for a faulty sensor (fault) baoboard.sensors.fault: code for rare jobs
        (restore, undo, host commands, the computer's search, a sensor's fault) is loaded while it runs and
        dropped after it on MicroPython, so it is not in RAM during play. (One method for all: each method's
        name is a qstr in a Pico's RAM for good.)"""
        before = modules_now()
        try:
            if job == "think" or job == "choose":  # (the search loads the engine: not commands' code beside it)
                from baoboard import opponent as jobs
            elif job == "fault":  # (in play, from a refused touch too: not commands' code beside it)
                # (by its dotted name, too long to be interned: the word "sensors" is not a name at boot)
                jobs = __import__("baoboard.sensors", None, None, ("fault",))
            else:
                from baoboard import commands as jobs  # type: ignore[no-redef]  # (one name for the job's module)
            if sowing.serve is not None:  # in a step: a scan before the job, if the code's loading took long
                sowing.serve()
            return getattr(jobs, job)(self, *args)
        finally:
            jobs = None  # type: ignore[assignment]  # (the module's last reference dropped: unload_new)
            unload_new(before)

    def post_game(self, start: "Position", position: "Any", moves: "list | None" = None) -> None:
        """Report a new game (a GAME event; `position`: the start's JSON when it is not the initial one)
        and start it (`moves`: the start's legal move codes, when known)."""
        rules = start.rules
        info = {"ruleset": rules.ruleset, "options": rules.options(), "first": "SN"[start.d[TO_MOVE]]}
        if position is not None:
            info["position"] = position
        seq = self.outbox.post("GAME", json.dumps(info))
        s = self.setup
        if s is not None and s.current() < 0:  # the button while a set-up waits for the hand: the host is told
            s.ready(self)
        self.setup = None  # (a new game ends a set-up: the button, or the set-up's own end)
        self.recording(seq < 0)
        if seq < 0 and self.journal.game is not None:
            return  # no room on the flash for a new game: the game the journal holds goes on
        self.rec.hint = -1
        if sowing.serve is not None:  # in a step: a scan between the event's flash write and the listing
            sowing.serve()
        self.boundary(start, self.hw.ticks_ms(), moves)

    def boundary(self, p: "Position", now: int, moves: "list | None" = None) -> None:
        """A move boundary: p is the board's position (its legal move codes `moves` when known); a move
        half made is dropped, and with it the evidence of a silent chip (baoboard.debounce.new_move)."""
        self.p = p
        self.deb.new_move()
        if moves is None:
            moves = legal_move_codes(p)
        self.rec.start(p, moves)
        w = outcome(p, moves)
        self.guide.winner = -1 if w is None else w
        self.dirty = True
        self.think_due = 1 if w is None and p.d[TO_MOVE] == self.cpu and self.level else 0

    def request_selftest(self, timeout_ms: int) -> None:
        """Run the self-test at the end of this step, waiting timeout_ms for each touch."""
        self.selftest_ms = timeout_ms
        self.selftest_due = True

    def resume(self, now: int) -> None:
        """Take the game up again after the scan loop stood still (the self-test): the hands on the board
        now are no activations, a move half made is dropped, the host counts as just heard."""
        self.hw.read_pits(self.bitmap)
        self.deb.reset(self.bitmap)
        self.boundary(self.p, now)
        self.rx_at = now

    def post_end(self) -> None:
        w = "SN"[self.guide.winner]
        self.outbox.post("END", f'{{"winner":"{w}"}}')

    # ---- the scan loop
    def step(self) -> None:
        """One scan-loop iteration. Long work in it serves the scan loop (bao.sowing.serve: App.serve); the
        hook is this application's for the step only (a step inside the computer's search keeps it)."""
        was = sowing.serve
        sowing.serve = self.served
        self.owner = get_ident()
        try:
            self.scan()
        finally:
            sowing.serve = was

    def serve(self) -> None:
        """Called every few dozen relays by long work (a never-ending move, M4; bao.sowing.serve,
        recogniser.Sequence.flush): once _SLICE_MS passed since the last scan, or after _SLICE_UNITS calls,
        one scan: the sensors read and debounced (the activations wait in the debouncer's queue, in order,
        for the step to take them once the work is done), the LEDs shown as the recogniser stands (a lifted
        pit acknowledged), the watchdog fed. Nothing else: the link, the buttons and the gestures wait for
        the step (a host's frames wait in the serial buffer; one lost there is sent again, docs/protocol.md)."""
        if get_ident() != self.owner:  # the rules core run by another thread (a logger in the same process)
            return
        hw = self.hw
        self.units += 1
        now = hw.ticks_ms()
        if self.units < _SLICE_UNITS and ticks_diff(now, self.scan_at) < _SLICE_MS:
            return
        self.units = 0
        self.scan_at = now
        bm = self.bitmap
        hw.read_pits(bm)
        f = self.deb.faulty
        for b in range(4):
            bm[b] &= ~f[b]
        self.deb.scan(bm, now)
        self.show(now, self.guide.phase(now))
        if not self.fault:
            hw.feed_watchdog()

    def scan(self) -> None:
        """One scan: the sensors (and the gestures and moves they make), the link, the buttons, the LEDs, then
        at most one piece of other work (a job, the journal's or the outbox's)."""
        hw = self.hw
        now = hw.ticks_ms()
        self.scan_at = now
        self.units = 0
        bm = self.bitmap
        hw.read_pits(bm)
        deb = self.deb
        # (the scan loop's period is in every touch's latency, three scans of it: each call below is made only
        # when it has work; docs/benchmarks.md, Emulated Pico)
        if ticks_diff(now, deb.check_at) >= 0 and deb.poll(bm, now):  # a sensor found faulty: the job
            self.rare("fault", now)  # reports it (an ERROR event)
        held = bm[1] & 0x81 == 0x81 or bm[3] & 0x81 == 0x81  # a gesture's pair of pits (or a hold's end)
        g = self.gesture_pits(bm) if held else 0
        f = deb.faulty
        if f[0] | f[1] | f[2] | f[3]:
            for b in range(4):
                bm[b] &= ~f[b]  # a faulty pit is ignored: play goes on without it
            g &= bm[1] | (bm[3] << 8)
        if held or self.corners_at != -1 or self.pair_at != -1:
            self.gestures(g, now)
        if not deb.quiet(bm):
            self.activations(now)
        ph = self.guide.phase(now)  # the LEDs as soon as the touches are taken (the link's work is no part of
        if self.dirty or ph != self.shown_phase:  # a touch's latency), again below if the rest changed them
            self.show(now, ph)
        # the link: one piece of its work a scan (issue #26: a burst of host lines in one step kept the board
        # from its sensors past a quick touch): the oldest command that waits (Outbox.defer: run here, not
        # inside the link's calls), else one line from the host; the rest waits (in rx, the serial buffer)
        ran = bool(self.outbox.pending) and not self.searching  # (in the search's steps they stop it, and wait)
        if ran:
            self.outbox.run_pending()
        self.listen(now, ran)
        b = hw.buttons()
        if b != self.buttons:
            self.press(b, now)
        if self.setup is not None:  # (the set-up's wait for the hand to leave its last place ends in time)
            self.setup.tick(self, now)
        if self.dirty:  # (a host's command, a button, the set-up's end)
            self.show(now, ph)
        if self.selftest_due or self.think_due or not (ran or self.rec.steps or bm[0] | bm[1] | bm[2] | bm[3]):
            self.work(now, ran)  # (else, a hand on the board or a move under way: work would find nothing)
        if self.state_due:
            self.tell()
        self.loops += 1
        if not self.fault:
            hw.feed_watchdog()

    def gesture_pits(self, bm: bytearray) -> int:
        """The gestures' pits held: B8 (8) and B1 (15) in byte 1 (bits 7, 0), b8 (24) and b1 (31) in byte 3
        (bits 15, 8 here). A pit of a chip that reads every input active is none (the chip's fault explains
        it, before it is found: it starts no computer, no self-test, no hint)."""
        g1 = bm[1]
        g3 = bm[3]
        if g1 & 0x81 == 0x81 or g3 & 0x81 == 0x81:
            w = getattr(self.hw, "pit_sensor_bit", None)  # pit -> sensor bit, chip = bit >> 3 (None: a chip a byte)
            idle = 0  # the chips with an input that reads idle
            for i in range(32):
                if not bm[i >> 3] & (1 << (i & 7)):
                    idle |= 1 << ((i >> 3) if w is None else (w[i] >> 3))
            for i in (8, 15, 24, 31):
                if not idle & (1 << ((i >> 3) if w is None else (w[i] >> 3))):
                    if i < 16:
                        g1 &= ~(1 << (i & 7))
                    else:
                        g3 &= ~(1 << (i & 7))
        return g1 | (g3 << 8)

    def gestures(self, g: int, now: int) -> None:
        """The holds (docs/leds.md): the four corners, the self-test; one side's two back-row ends, the
        computer (held long) or a hint (let go sooner). g: gesture_pits(), the faulty pits taken out."""
        south = g & 0x81 == 0x81
        north = g & 0x8100 == 0x8100
        if south and north:  # B8, B1, b8, b1 all held
            if self.corners_at < 0:
                self.corners_at = now
            elif ticks_diff(now, self.corners_at) >= _SELFTEST_HOLD_MS and self.hw.read_raw() is not None:
                self.request_selftest(20000)
                self.corners_at = -1
        else:
            self.corners_at = -1
        pair = south + 2 * north  # South's B1+B8 (1), North's b1+b8 (2)
        if pair == 1 or pair == 2:
            if self.pair_at == -1:
                self.pair_at = now
            elif self.pair_at >= 0 and ticks_diff(now, self.pair_at) >= _CPU_HOLD_MS:
                self.pair_at = -2  # chosen: nothing more until the pits are let go
                self.rare("choose", 2 - pair, now)  # the player plays the side held, the computer the other
                self.dirty = True
        elif pair == 0:
            if self.pair_at >= 0 and ticks_diff(now, self.pair_at) >= _HINT_HOLD_MS:
                self.boundary(self.p, now)  # the hold's touches were no move
                if self.p.d[TO_MOVE] != self.cpu and self.guide.winner < 0:
                    self.think_due = 2
            self.pair_at = -1
        else:
            self.pair_at = -2  # all four held: the self-test, no hint

    def activations(self, now: int) -> None:
        """The scan's activations, in order (and those a long work's scans kept, App.serve, waiting in the
        queue); then a move that waits for a step in a faulty pit goes on (baoboard.sensors)."""
        deb = self.deb
        if not deb.scan(self.bitmap, now) and deb.head == deb.tail:
            return
        while True:
            pit = deb.pop()
            if pit < 0:
                break
            self.act_at = deb.last_tick
            self.behind = True
            self.activation(pit, now)
        f = deb.faulty
        rec = self.rec
        if f[0] | f[1] | f[2] | f[3] and rec.phase == R.MOVING and rec.n:
            e = rec.expected(0)  # (a cheap look first: the job's code is loaded only when it has work)
            if e >= 0 and f[(e & R.PIT) >> 3] & (1 << (e & 7)):
                self.rare("fault", now)

    def take(self) -> None:
        """One line from the host, at most: the rest of the link's last read, up to its first line's end,
        else a new read's."""
        rx = self.rx
        i = self.rx_i
        n = self.rx_n
        j = rx.find(b"\n", i, n) if i < n else -1
        if j < 0:  # no whole line held: what is held begins one, the next read may end it
            if i < n:
                self.outbox.feed(rx, n, i)
            i = 0
            n = self.rx_n = self.hw.serial_read(rx)
            j = rx.find(b"\n", 0, n) if n else -1
        end = n if j < 0 else j + 1
        self.rx_i = end
        if i < end:
            self.outbox.feed(rx, end, i)

    def listen(self, now: int, ran: bool) -> None:
        """The host's frames, one line a scan, and one event of a pass sent again (Outbox.paced), unless a
        command ran in it (the rest of a read waits in rx, later bytes in the serial buffer); and whether a
        host is there (a valid frame in the last _HOST_MS)."""
        ob = self.outbox
        if not ran:
            self.take()
            ob.pump()
        if ob.rx_frames != self.rx_frames:
            self.rx_frames = ob.rx_frames
            self.rx_at = now
            if not self.guide.host:
                self.guide.host = True
                self.dirty = True
        elif self.guide.host and ticks_diff(now, self.rx_at) > _HOST_MS:
            self.guide.host = False
            self.dirty = True
        if ob.hellos != self.hellos:  # a host said HELLO: it is told the state, whatever was said
            self.hellos = ob.hellos
            self.state_line.forget()
            self.state_due = True
            s = self.setup
            if s is not None and s.current() >= 0:  # and the set-up step it waits for: a host that came after
                s.say(self)  # it began (the set-up a power cut mid-move boots into) would not know it (#28)
            elif s is not None:  # or the wait for the hand to leave the place put right last (done wait=)
                s.say_done(self)

    def press(self, b: int, now: int) -> None:
        """The optional buttons (b: those down now, not those down before): undo, a new game."""
        pressed = b & ~self.buttons
        self.buttons = b
        if pressed & _BUTTON_UNDO:
            self.undo(now)
        if pressed & _BUTTON_NEW:
            self.post_game(initial(self.p.rules.ruleset, self.p.rules), None)

    def work(self, now: int, busy: bool = False) -> None:
        """At most one piece of work besides the scan: the self-test, the computer's search, or in a quiet
        moment the journal's or the outbox's (not after a host's command: busy)."""
        bm = self.bitmap  # (the faulty pits taken out: scan)
        if self.searching:
            pass  # this step runs inside the computer's search: no job of its own (a new search waits for it)
        elif self.selftest_due:
            self.selftest_due = False
            self.rare("selftest", now)
        elif self.think_due and self.setup is None:
            hint = self.think_due == 2
            self.think_due = 0
            self.searching = True  # the search serves the scan loop: it calls step() every few nodes
            self.rare("think", hint)
            self.searching = False
            self.dirty = True
        elif (
            not busy
            and not (bm[0] | bm[1] | bm[2] | bm[3])
            and self.rec.steps == 0
            and ticks_diff(now, self.act_at) >= _QUIET_MS
        ):
            # nobody touching the board between moves: the work that no touch should wait for, one piece
            # per step. The journal's (raw flash: a compaction, or a sector erased ahead; flashlog), once
            # per pause; else the outbox's retransmission timer: a pass reads up to `window` events back
            # from flash, so a touch would wait for it (docs/benchmarks.md, Emulated Pico). A new event
            # still goes out at once, a NAK and an ack are answered at once.
            if self.collect_due:  # (a compaction's garbage, while nobody waits: in a step of its own, not
                self.collect_due = False  # after a sector erase in the same stand-still)
                gc.collect()
            elif self.behind:
                self.collect_due = self.journal.maintain() and hasattr(gc, "mem_free")
                self.behind = False
            else:
                self.outbox.poll()

    def show(self, now: int, phase: int) -> None:
        """Light the LEDs as the guide draws the board now (phase: the guide's blink phase at now)."""
        self.shown_phase = phase
        if self.dirty:  # a new state, not a blink: the host is told it (App.tell)
            self.state_due = True
        self.dirty = False
        s = self.setup  # the set-up mode's frame while it runs, and while it waits for the hand to leave the
        if s is not None:  # last place (baoboard.setup_mode)
            self.hw.show(s.render(self.guide, now))
        else:
            self.hw.show(self.guide.render(self.rec, now))

    def tell(self) -> None:
        """The STATE notice (docs/protocol.md, "State"), to a host that speaks protocol 3, when the state the
        guide shows is not the one last told."""
        self.state_due = False
        if self.outbox.proto < PROTO_STATE:
            return
        try:
            s = self.setup if self.outbox.proto >= PROTO_SETUP else None  # (said to a host of protocol 5)
            self.state_line.send(self.rec, self.guide.frame, self.hw.serial_write, s)
        except OSError:  # nobody listening: the next host's HELLO is told the state again
            pass

    def activation(self, pit: int, now: int) -> None:
        if self.setup is not None:  # the set-up mode: a touch confirms the lit place (baoboard.setup_mode)
            self.setup.touch(self, pit, now)
            self.dirty = True
            return
        rec = self.rec
        r = rec.feed(pit, now)
        self.dirty = True
        if r == R.R_PROGRESS and rec.steps == 1:  # a move begun: journalled before its seeds go further,
            self.show(now, self.guide.phase(now))  # so that a power cut leaves no pit guessed (the LEDs first)
            self.journal.begin(pit)
            if self.deb.kind[_PAIR] and self.rare("fault", now, pit, True):  # (a start pit of two suspects: the
                return  # other is dead, the move taken again from the touch they explained; baoboard.sensors)
        elif r == R.R_PUTBACK or r == R.R_CANCEL:
            self.journal.begin(-1)  # the seeds are back where they were: no move is begun
        if r == R.R_DONE:
            again = rec.refeed
            self.commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]  # (R_DONE: the child is set)
            if again >= 0 and self.p.d[TO_MOVE] != self.cpu:
                # the opponent's activation that ended the move (2.5b): their first. Against the computer
                # it is the player's touch, only the stop: the computer has not chosen its move yet
                self.activation(again, now)
        elif r == R.R_WRONG:
            first = rec.phase == R.IDLE and pit >> 4 == self.p.d[TO_MOVE]  # (a move's first touch, the mover's:
            # a dead start pit's move shows first at the pit sown next; the other side's early hand says nothing)
            if (rec.n or first) and not self.deb.blips[pit] and self.rare("fault", now, pit):  # (refused mid-move;
                # noise never counts: a hand makes no pulse shorter than the debounce)
                return  # the move went on past ignored pits, or a chip that senses nothing (baoboard.sensors)
            self.guide.request_show(now)
            reason = rec.wrong_reason
            if self.p.d[TO_MOVE] == self.cpu and rec.hint >= 0:  # sowing the computer's move for it
                reason = (  # (the rule: its turn, 1.1, or the step its move is at: baoboard.refusal)
                    ("the host's engine plays " if self.level == 0 else "the computer plays ")  # (level 0: SHOW)
                    + format_move(rec.codes[0], self.cpu)
                    + ": "
                    + pit_name(pit)
                    + " is not its pit now"
                )
                rec.wrong_reason = reason  # (what the STATE notice says too)
            if rec.wrong_rule and not reason.startswith(rec.wrong_rule):
                reason = rec.wrong_rule + ": " + reason
            self.outbox.post("ILLEGAL", json.dumps({"pit": pit_name(pit), "rule": rec.wrong_rule, "reason": reason}))
        elif r == R.R_IGNORED and pit == rec.wrong_pit and rec.taps == 2 and not rec.looked:  # a refused touch
            self.deb.taken_back()  # taken back: a slip (after a look mid-move: no word either way, Recogniser._wrong)
        elif r == R.R_UNDO:
            self.undo(now)
        elif r == R.R_CANCEL:
            self.outbox.notice("CANCEL", pit_name(pit))

    def commit(self, move: int, child: "Position", now: int) -> None:
        before = self.p
        if self.journal.game is None:  # its GAME found no room (a first boot on a full flash): that first
            self.post_game(before, position_json.to_dict(before))
        text = format_move(move, before.d[TO_MOVE])
        moves = legal_move_codes(child)  # once: for the position's winner and the next boundary
        payload = move_payload(text, position_json.dumps(child, True, moves))
        self.moves_done += 1
        self.rec.hint = -1
        self.boundary(child, now, moves)
        # The LEDs show the next position before its record is written: a synced append to the Pico's
        # LittleFS erases a 4 KB sector (docs/benchmarks.md, Emulated Pico: how long that takes). The move is
        # sent only once it is durable, so a power cut in between loses nothing that was reported: the
        # board comes back at the move before, as after a cut in the middle of a move.
        self.show(now, self.guide.phase(now))
        small = hasattr(gc, "mem_free") and gc.threshold() > 0  # (a small heap: App.boot)
        if small:  # the record and the event in a heap freed of the move's garbage
            gc.collect()
        if self.journal.game is None or self.outbox.post("MOVE", payload) < 0:
            # no room on the flash for its record: the move is not taken (the board goes back to the position
            # before it, as after a power cut in its middle); the pits it changed blink orange to be put back,
            # the corners dim white, and a host hears N0 FULL (docs/protocol.md)
            marks = bytearray(32)
            for i in range(32):
                marks[i] = before.d[i] != child.d[i]
            self.moves_done -= 1
            self.boundary(before, now)
            self.guide.set_restore(marks, now)
            self.recording(True)
            return
        if self.guide.unrecorded == 2:  # room again: the light goes
            self.recording()
        if self.guide.winner >= 0:
            self.post_end()
        if not small and hasattr(gc, "mem_free"):  # a Pico: at the next quiet moment, in a step of its own
            # (App.work): here, deep in the step, the collection also marks what the C stack's stale words
            # still point to, a large part of the move's step (docs/benchmarks.md, Emulated Pico)
            self.collect_due = True

    def undo(self, now: int) -> bool:
        """Take the last move back (the gesture, a button, the host): False if there is none."""
        return bool(self.rare("undo", now))

    # ---- host commands
    def command(self, num: int, typ: str, payload: str) -> "tuple[bool, str]":
        if typ == "PING":  # answered without loading code: also while the computer thinks, beside the engine
            return True, ""
        self.dirty = True
        self.behind = True
        return self.rare("run", typ, payload, self.hw.ticks_ms())
