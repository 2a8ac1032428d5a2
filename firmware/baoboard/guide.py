# The LED guide: the recogniser's state -> one 96-byte frame (R, G, B per pit, pit-index order).
# The colour grammar is docs/leds.md (picture: docs/leds.svg, made by tools/leds_svg.py). render() writes
# into one preallocated frame and allocates nothing; blinking follows the clock, so the application
# renders again when phase() changes even if nothing else did.
from bao.layout import NONE, TAKASIA, TO_MOVE

from baoboard.compat import const

try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Any  # noqa: F401

    from baoboard.recogniser import Recogniser
except ImportError:
    pass
from baoboard.recogniser import DECISION, IDLE, KICHWA, LIFT, MOVING, OPT, OVER, PIT

FRAME_BYTES = const(96)

# Colours (0xRRGGBB at full brightness); the names are the grammar's words
START = const(0x00A000)  # green: a pit the side to move may start from
_HINT = const(0x00FF40)  # bright green: the start of the move the host asked to show
CHOICE = const(0x0040FF)  # blue: one of several pits the next seed may go to (a direction choice)
NEXT = const(0xFFFFFF)  # white: the pit the next seed goes into
LIFTED = const(0x806000)  # dim yellow: the pit the hand is sowing from
RELAY = const(0xFFB000)  # yellow: lift this pit (endelea, 1.6)
CAPTURE = const(0xFF0000)  # red: the opponent's pit to empty (1.4)
KICHWA_C = const(0x00FFFF)  # cyan: the kichwa where the captured seeds go in
HOUSE = const(0xFF6000)  # amber, blinking with the relay's yellow (the other phase, teach mode): 2.5b, stop
# (opponent moves) or play the house (lift it); the words name both (docs/leds.md, bao_host.ui.steps)
TAKASIA_C = const(0xA000FF)  # purple: the takasia-ed pit (4.1): no takasa from it
WRONG = const(0xFF0040)  # red-pink, fast blink: that activation was not part of a legal move
RESTORE = const(0xFF4000)  # orange, blinking: put the seeds of these pits back (after an undo)
WIN = const(0xFFC000)  # gold: the winner's pits
LOSE = const(0x200000)  # dim red: the loser's pits
NOHOST = const(0x000030)  # dim blue, slow blink on the four corner pits: no host connected
_FAULT = const(0xFF00FF)  # magenta, steady: a pit whose sensor is faulty, ignored (baoboard.debounce)
_SUSPECT = const(75)  # baoboard.debounce: kind[75], the second of two pits suspect of a dead input (kind[73]:
# the first, kind[74]: the refused touches they explain alike); blinking magenta once the refusal names them
_UNRECORDED = const(0x303030)  # dim white instead: nor is this game recorded (the journal is full)
_SIDE = const(0x6000FF)  # violet: who plays a side just chosen (never a move's green): the computer, as many of
# its front pits blinking as its level; the host (its engine, or a player far away), one front pit walking

_TEACH = const(0)
PLAY = const(1)
SILENT = const(2)
MODES = ("teach", "play", "silent")

_SHOW_MS = const(3000)  # how long play mode shows the legal pits after an error or a request
_RESTORE_MS = const(6000)
# bao.layout's state bytes of the kuu games, as constants the compiler folds (tests/host/test_rules_structure.py
# checks each against the layout): M19's forced capture, M22's seeds to place
_STORE = const(32)  # layout.STORE
_MUST = const(39)  # layout.MUST
_PLACING = const(40)  # layout.PLACING
_NEMO = const(20)  # the seeds in a store before the first drop of the advanced placement (M20)
_DARK = bytes(FRAME_BYTES)  # every LED off
CORNERS = (8, 15, 24, 31)  # B1, B8... the back-row ends: never confused with play on the front row


class Guide:
    def __init__(self) -> None:
        self.frame = bytearray(FRAME_BYTES)
        self.mode = _TEACH
        self.brightness = 64  # 0..255, scales every colour
        self.host = False  # a host has spoken recently
        self.unrecorded = 0  # 1: the game is not recorded, too many events wait for a host (journal); 2: the
        # flash had no room for a move's record, which was refused (App.refuse): shown with a host too
        self.winner = -1  # set by the application when the game is over
        # pits to blink for a while: 1 orange, put right after an undo or a cancelled move (RESTORE); 2 violet,
        # the computer's level (baoboard.opponent); 3 the side the host plays (level 0: its engine, or a player
        # far away), a violet walk. Violet, apart from a lit move's green: a level is no move to make. (The
        # colour is in the marks: no attribute, no name.)
        self.restore = bytearray(32)
        self.restore_to = 0  # the restore marks blink until this tick
        self.show_to = 0  # play mode: show the legal pits until this tick
        self.faulty = bytearray(4)  # pits whose sensor is ignored (the debouncer's: baoboard.debounce)

    def phase(self, now: int) -> int:
        """Changes every 256 ticks: the application renders again when it does (blinking)."""
        return (now >> 8) & 7

    def set_restore(self, marks: "bytearray | None", now: int) -> None:
        for i in range(32):
            self.restore[i] = marks[i] if marks is not None else 0
        self.restore_to = now + _RESTORE_MS

    def request_show(self, now: int) -> None:
        self.show_to = now + _SHOW_MS

    def _px(self, pit: int, rgb: int) -> None:
        f = self.frame
        b = self.brightness
        k = pit * 3
        f[k] = ((rgb >> 16) & 255) * b >> 8
        f[k + 1] = ((rgb >> 8) & 255) * b >> 8
        f[k + 2] = (rgb & 255) * b >> 8

    def clear(self) -> None:
        self.frame[0:FRAME_BYTES] = _DARK  # (one copy, not a loop of bytecode; an explicit slice allocates
        # nothing on MicroPython)

    def render(self, rec: "Recogniser", now: int) -> bytearray:  # noqa: C901, PLR0912
        self.clear()
        if self.mode == SILENT:
            return self.frame
        ph = (now >> 8) & 7
        blink = ph & 1  # 2 Hz
        r = rec
        phase = r.phase
        showing = self.mode == _TEACH or now - self.show_to < 0 or r.wrong_pit >= 0
        if phase == OVER and self.winner >= 0:
            for i in range(32):
                self._px(i, WIN if (i >> 4) == self.winner else LOSE)
        elif phase == IDLE:
            if showing or r.hint >= 0:
                self._starts(r)
            p = r.p
            if showing and p.d[TAKASIA] != NONE:  # and M18's threatened pit
                self._px((p.d[TO_MOVE] << 4) + p.d[TAKASIA], TAKASIA_C)
        elif phase == MOVING or phase == DECISION:
            if showing or r.hint >= 0:  # a shown move: its path too
                self._next(r)
            if phase == DECISION and blink:  # (at the other phase the house shows what _next lit there: the
                self._px(((r.p.d[TO_MOVE]) << 4) + 4, HOUSE)  # relay's yellow, lift it to play on)
        p = r.p
        if showing and phase != OVER and p.rules.kuu:
            # the kuu games' state a player cannot see in the seeds (docs/leds.md; inline: no new names)
            d = p.d
            me = d[TO_MOVE] << 4
            t = d[_MUST]
            if t != NONE and phase == IDLE and blink:  # M19: the threatened pit this move must capture
                self._px((me ^ 16) + t, TAKASIA_C)
            n = d[_PLACING]
            if not n and p.rules.kuu.advanced and d[_STORE + (me >> 4)] == _NEMO:  # M20: before the first drop
                n = 1  # the nemo and the seeds the first drop lifts (M21's take is not known yet)
                for i in range(16):
                    if i != 4:
                        n += d[me + i]
            for i in range(n if n < 16 else 16):  # M22: a gold pit per seed to place, far back row first
                self._px((me ^ 16) + ((i + 8) & 15), WIN)
        if r.wrong_pit >= 0 and not blink:
            self._px(r.wrong_pit, WRONG)
        if now - self.restore_to < 0:
            for i in range(32):
                k = self.restore[i]
                if k == 3:
                    if i & 7 == ph:
                        self._px(i, _SIDE)
                elif k and blink:
                    self._px(i, RESTORE if k == 1 else _SIDE)
        if (not self.host or self.unrecorded == 2) and ph == 0:
            for i in CORNERS:
                self._px(i, _UNRECORDED if self.unrecorded else NOHOST)
        f = self.faulty
        if f[0] | f[1] | f[2] | f[3]:
            for i in range(32):
                if f[i >> 3] & (1 << (i & 7)):
                    self._px(i, _FAULT)
        deb = r.deb
        if deb is not None and deb.kind[_SUSPECT] and deb.kind[_SUSPECT - 1] >= 2 and blink:  # (the board asks:
            self._px(deb.kind[_SUSPECT] - 1, _FAULT)  # one of these two senses nothing, it cannot tell which)
            self._px(deb.kind[_SUSPECT - 2] - 1, _FAULT)
        return self.frame

    def _starts(self, r: "Recogniser") -> None:
        hint = r.hint
        for m in r.codes:
            if hint < 0:
                self._px(r.first_pit(m), START)
            elif m & 63 == hint:
                self._px(r.first_pit(m), _HINT)
        e = r.hint_to
        if hint >= 0 and e >= 0:  # where its first seed goes: the direction
            self._px(e & PIT, self._colour(r, e, False))

    def _next(self, r: "Recogniser") -> None:
        n = r.n
        if r.steps == 1 and r.start_pit >= 0:
            self._px(r.start_pit, LIFTED)
        first = -1
        many = False  # candidates want different pits next: a choice (direction, kichwa)
        seqs = r.c_seq  # (each candidate's next byte read here, as Recogniser.expected reads it: a call less
        at = r.c_pos  # for each, in the frame of every touch)
        for i in range(n):
            seq = seqs[i]
            j = at[i]
            if j >= len(seq):
                continue
            e = seq[j]
            if e & OPT:
                e = r.after_optional(i)
            if first < 0:
                first = e & PIT
            elif e & PIT != first:
                many = True
        for i in range(n):
            seq = seqs[i]
            j = at[i]
            if j >= len(seq):
                continue
            e = seq[j]
            if e & OPT:
                e2 = r.after_optional(i)
                if e2 >= 0:
                    self._px(e2 & PIT, self._colour(r, e2, many))  # the merged lift: show where it goes
            self._px(e & PIT, self._colour(r, e, many))

    def _colour(self, r: "Recogniser", e: int, many: bool) -> int:
        pit = e & PIT
        side = r.p.d[TO_MOVE]
        if e & LIFT:
            return CAPTURE if (pit >> 4) != side else RELAY
        if e & KICHWA:
            return KICHWA_C
        return CHOICE if many else NEXT
