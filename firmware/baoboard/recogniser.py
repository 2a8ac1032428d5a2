# Move recognition: pit activations -> the move the player is performing (gestures: docs/leds.md, "Gestures").
# The board owns the seed counts; a sensor only says "a hand was here". So each legal move is turned into
# the sequence of activations a player makes performing it (from the rules core's account): lift the
# start pit, drop one seed per pit, empty the opponent's pit on a capture, drop into the kichwa, lift a
# relay pit... Every legal move is a candidate; each activation keeps the candidates that expected it.
# One left and complete: the move is recognised. An activation no candidate expects is flagged and
# changes nothing, so a wrong drop never corrupts the state.
# Sequences are built when the first activation picks the start pit (an allocation per candidate, not per
# scan); following a move pit by pit allocates nothing. The recogniser keeps the legal moves as codes
# (bao.rules.legal_move_codes: no child positions in RAM); the recognised move's position is played at its end.
# A never-ending candidate's sequence (M4) takes long to build: its account serves the board's scan loop
# as it is taken (Sequence.flush calls bao.sowing.serve; docs/architecture.md, Timing budgets).
from bao import sowing
from bao.layout import (
    RING,
    STEP_CAPTURE,
    STEP_END,
    STEP_HOUSE,
    STEP_LIFT,
    STEP_RELAY,
    STEP_SOW,
    STEP_TAX,
    STORE,
    TO_MOVE,
)
from bao.position import Position
from bao.rules import play

from baoboard.compat import const, modules_now, unload_new

try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Any  # noqa: F401

    from baoboard.debounce import Debouncer  # noqa: F401
except ImportError:
    pass

# Sequence bytes: pit index | flags
PIT = const(31)
LIFT = const(32)  # the hand takes seeds out (otherwise it drops one seed in)
OPT = const(64)  # may be merged with the activation before it (same pit: drop then lift in one go)
KICHWA = const(128)  # the first drop of captured seeds

# bao.layout's numbers read here, as constants the compiler folds (tests/host/test_rules_structure.py checks each
# against the layout): the advanced placement's move bit and state byte (M22)
_DROP = const(512)  # layout.DROP
_PLACING = const(40)  # layout.PLACING

_TOUCHED = const(32)  # a move's first touches kept (Recogniser.touched: a dead start pit's evidence, baoboard.sensors)
_NOT_KEPT = const(255)  # Recogniser._kept: no refused touch kept as a move's (else its pit)

# Phases
IDLE = const(0)  # between moves: waiting for the side to move to start
MOVING = const(1)  # a move is under way
DECISION = const(2)  # 2.5b: the move may stop in the house or play it on
OVER = const(3)  # the game is over

# feed() results
R_IGNORED = const(0)  # nothing changed (a correction tap on a flagged pit, or the game is over)
R_PROGRESS = const(1)  # the activation was expected; the move goes on
R_WRONG = const(2)  # flagged: wrong_pit, wrong_rule, wrong_reason say what and why
R_DONE = const(3)  # a move is complete: done_move, done_child; refeed >= 0: feed that pit again next
R_DECISION = const(4)  # the move reached the house decision (lift the house to play it on)
R_UNDO = const(5)  # undo gesture at a move boundary: take the last move back
R_CANCEL = const(6)  # undo gesture during a move: the move in progress is abandoned
R_PUTBACK = const(7)  # the lifted start pit was put back before any drop: back to the boundary

_TAPS = const(3)  # taps on one flagged pit that make the undo gesture
_TAP_MS = const(2000)  # ... within this time


_KEEP = const(512)  # account bytes a Sequence holds before it turns them into activations (128 steps)
_SCRATCH = const(128)  # activations a Sequence writes into its scratch before it counts first


class Sequence:
    """What sequence() records a move's account in (bao.rules.play(p, move, seq)): its append is its buffer's,
    bytes at C speed, and the core calls flush at each relay. A short account stays whole in the buffer;
    a longer one is turned into activations _KEEP bytes at a time, counted first (out None), then, the
    move played again, written into out, allocated once at its size: a sleeping Malawi move's 12,000
    activations never need its 19 KB account in RAM. One is kept for all the candidates of a lift: its
    buffers are allocated once."""

    def __init__(self) -> None:
        self.rec = bytearray()  # the account's bytes not yet turned into activations
        self.append = self.rec.append
        self.out = None  # type: bytearray | None
        self.namua = False
        self.n = 0  # activations counted, or written into out
        self.kichwa = 0  # the next drop is the first of captured seeds
        self.play = False  # the house is played on (2.5b): its lift is a gesture of its own
        self._buf = bytearray(_SCRATCH)  # a short sequence, before it is copied at its size

    def __setitem__(self, key: object, value: object) -> None:  # rec[:] = b"": the account from its start
        self.rec[:] = b""
        self.start(self.out)

    def start(self, out: "bytearray | None") -> None:
        """Turn the steps from the move's first on into activations: written into out, or counted (None)."""
        self.out = out
        self.n = 0
        self.kichwa = 0
        self.play = False

    def flush(self) -> None:
        if len(self.rec) >= _KEEP:
            _fill(self)
            self.rec[:] = b""
            # a long account (a never-ending move's, M4) serves the board's scan loop as it is taken
            # (bao.sowing.serve: the application's, App.serve)
            if sowing.serve is not None:
                sowing.serve()


def _fill(seq: Sequence) -> None:
    """The activations of the steps in seq.rec (4 bytes each): counted into seq.n, or written into seq.out.
    A run that goes past out's end is one that the core plays again from its start (M4: a never-ending
    move sleeps where its state first repeated, found after): nothing more is written in it."""
    rec = seq.rec
    out = seq.out
    j = seq.n
    kichwa = seq.kichwa
    try:
        for i in range(0, len(rec), 4):
            k = rec[i] & 15
            pit = rec[i + 1]
            if k == STEP_SOW:
                if out is None:
                    j += rec[i + 3]
                    kichwa = 0
                    continue
                ring = pit & 15
                step = 1 if rec[i + 2] == 1 else 15  # a direction of -1 is recorded as 255
                for _ in range(rec[i + 3]):
                    out[j] = (pit & 16) + ring | kichwa
                    kichwa = 0
                    ring = (ring + step) & 15
                    j += 1
                kichwa = 0
                continue
            if k == STEP_HOUSE:
                seq.play = rec[i + 2] != 0
                continue
            if k == STEP_END:
                continue
            if k == STEP_LIFT:
                # mtaji: lifting the start pit is the first gesture; namua: the store seed just went into
                # this pit, so the lift may come in the same hand movement
                pit |= LIFT | (OPT if seq.namua else 0)
            elif k == STEP_TAX:
                pit |= LIFT | OPT  # 2.4b: two seeds out of the house, right after the store seed
            elif k == STEP_CAPTURE:
                pit |= LIFT
                kichwa = KICHWA
            elif k == STEP_RELAY:
                # playing the house on (2.5b) is chosen by lifting it: that lift cannot be merged away
                pit |= LIFT | (0 if seq.play else OPT)
                seq.play = False
            if out is not None:
                out[j] = pit
            j += 1
    except IndexError:
        pass
    seq.n = j
    seq.kichwa = kichwa


def sequence(p: "Position", move: int, seq: "Sequence | None" = None) -> bytearray:
    """The activation bytes (pit | LIFT | OPT | KICHWA) of a legal move of p, from its account as the rules
    core records it, allocated once at its size (seq: a Sequence kept between calls, or a new one)."""
    d = p.d
    if seq is None:
        seq = Sequence()
    seq.rec[:] = b""
    seq.start(None)
    # the advanced placement's lifts (M20, M21: the pits emptied before the first drop) are gestures of
    # their own, not merged with the store seed's drop
    seq.namua = d[STORE + d[TO_MOVE]] > 0 and not move & _DROP
    play(p, move, seq)
    whole = not seq.n  # no step turned into activations yet: the account is all in seq.rec
    if whole:
        seq.out = seq._buf  # written into the scratch, copied at its size: one pass
        _fill(seq)
        if seq.n < _SCRATCH:
            return seq._buf[: seq.n]
        seq.start(None)  # longer than the scratch: counted first
    _fill(seq)  # the count (of what is left in seq.rec of a long account)
    out = bytearray(seq.n)
    seq.start(out)
    if not whole:  # played again, written as it goes
        seq.rec[:] = b""
        play(p, move, seq)
    _fill(seq)
    return out


class Recogniser:
    def __init__(self) -> None:
        # the position: an empty board until start() (phase OVER: no activation reaches it), so never None
        self.p = Position()
        self.moves = []  # type: list  # as given to start()
        self.codes = []  # type: list  # the legal moves (ints, with their descriptive bits)
        self.phase = OVER
        self.c_move = []  # type: list  # alive candidates: move (with its descriptive bits)
        self.c_seq = []  # type: list  # bytearray each
        self.c_pos = []  # type: list  # next index into c_seq
        self.n = 0  # alive candidates: the first n entries
        self.steps = 0  # activations accepted in the current move
        self.touched = bytearray(_TOUCHED)  # their pits, the first _TOUCHED (a dead start pit: baoboard.sensors)
        self.start_pit = -1
        self.wrong_pit = -1
        self.wrong_rule = ""
        self.wrong_reason = ""
        self.taps = 0
        self.tap_tick = 0
        self.looked = False  # the last take-back came after a look in the middle of a move (_wrong)
        self.done_move = 0
        self.done_child = None  # type: Position | None
        self.refeed = -1
        self.hint = -1  # a move identity the host asked to show, or -1
        self.hint_to = -1  # with hint: the sequence byte of its first pit after the start (the direction)
        self.deb = None  # type: Debouncer | None  # the Debouncer (the application's): its blips and faulty pits, or None

    # ---- boundaries
    def start(self, p: "Position", moves: list) -> None:
        """A new move boundary: p is the position, moves its legal moves: legal_move_codes(p) (what
        the board passes), or legal_moves(p)'s (move, child) pairs."""
        self.p = p
        self.moves = moves
        if moves and not isinstance(moves[0], int):
            moves = [m[0] for m in moves]
        self.codes = moves
        self.phase = IDLE if moves else OVER
        self.n = 0
        self.c_seq.clear()  # (the last move's candidates: their heap is free between moves)
        self.steps = 0
        self.start_pit = -1
        self.refeed = -1
        self.clear_wrong()

    def clear_wrong(self) -> None:
        self.wrong_pit = -1
        self.taps = 0

    def first_pit(self, move: int) -> int:
        """The pit of a legal move's first activation: namua, the store seed's pit; mtaji, the lift; a
        placement drop, the pit it drops into, or for the first (M20), the first pit it empties."""
        d = self.p.d
        me = d[TO_MOVE] << 4
        if move & _DROP and not d[_PLACING]:
            for i in range(16):
                if i != 4 and d[me + i]:
                    return me + i
        return me + (move & RING)

    def namua(self) -> bool:
        d = self.p.d
        return d[STORE + d[TO_MOVE]] > 0

    # ---- activations
    def feed(self, pit: int, now: int = 0) -> int:
        self.refeed = -1
        ph = self.phase
        if ph == OVER:
            return self._wrong(pit, now, "1.2", "the game is over", True)
        if ph == IDLE:
            return self._first(pit, now)
        r = self._advance(pit)
        if r:
            return r
        if ph == DECISION:
            d = self.p.d
            if (pit >> 4) != d[TO_MOVE]:
                # 2.5b: the opponent's hand moves: the player stopped in the house
                for i in range(self.n):
                    if self.c_pos[i] == len(self.c_seq[i]):
                        self._finish(i)
                        self.refeed = pit
                        return R_DONE
        if self.steps == 1 and pit == self.start_pit and not self.namua():
            self.start(self.p, self.moves)  # the seeds went back into the pit they came from
            return R_PUTBACK
        return self._wrong(pit, now, "", "", False)

    def _first(self, pit: int, now: int) -> int:
        d = self.p.d
        side = d[TO_MOVE]
        c_move = []
        dead = self._dead_starts(side)
        for m in self.codes:
            s = self.first_pit(m)
            if s == pit or dead & (1 << (s & 15)):
                c_move.append(m)
        kept = self._kept(now)  # (touched[1] until the move's next touch: baoboard.sensors._resolve)
        if dead and self._after_dead(c_move, pit):
            self.touched[1] = kept
            return self._settle()
        if dead or not c_move:
            if (pit >> 4) != side:
                who = "South" if side == 0 else "North"
                return self._wrong(pit, now, "1.1", "it is " + who + "'s turn", True)
            return self._wrong(pit, now, "", "", True)
        self.c_move = c_move
        # the lift acknowledged while the sequences are built: a never-ending candidate's take long enough
        # for the board to scan meanwhile (App.serve), which shows this state (the lifted pit, no
        # candidate yet) and keeps the touches made meanwhile for after
        self.n = 0
        self.phase = MOVING
        self.steps = 1
        self.start_pit = pit
        seqs = []
        seq = Sequence()  # each candidate's account in turn
        for m in c_move:
            seqs.append(sequence(self.p, m, seq))
            if sowing.serve is not None:  # (many candidates, each short: the scan loop served between them)
                sowing.serve()
        self.c_seq = seqs
        self.c_pos = [1] * len(c_move)
        self.n = len(c_move)
        self.phase = MOVING
        self.steps = 1
        self.start_pit = self.touched[0] = pit
        self.touched[1] = kept
        self.clear_wrong()
        return self._settle()

    def _dead_starts(self, side: int) -> int:
        """The mover's pits whose sensor is ignored (bit pit & 15): a move from one shows first at the pit
        sown after it (baoboard.sensors: a dead start pit)."""
        deb = self.deb
        if deb is None:
            return 0
        f = deb.faulty
        return f[2 * side] | (f[2 * side + 1] << 8)

    def _after_dead(self, c_move: list, pit: int) -> bool:
        """The candidates of a first touch when some of the mover's pits are ignored: the moves from pit, and
        those from an ignored pit whose first touch after that pit's own steps is at pit (those taken as
        made). False when none: the state is left as it was (the touch refused)."""
        moves = []
        seqs = []
        pos = []
        seq = Sequence()
        for m in c_move:
            s = self.first_pit(m)
            b = sequence(self.p, m, seq)
            j = 1
            if s != pit:
                j = 0
                while j < len(b) and b[j] & PIT == s:
                    j += 1
                if j >= len(b) or b[j] & PIT != pit:
                    continue
                j += 1
            moves.append(m)
            seqs.append(b)
            pos.append(j)
        if moves:
            self.c_move = moves
            self.c_seq = seqs
            self.c_pos = pos
            self.n = len(moves)
            self.phase = MOVING
            self.steps = 1
            self.start_pit = self.touched[0] = pit
            self.clear_wrong()
        return bool(moves)

    def _next(self, seq: "bytearray", j: int, pit: int) -> int:
        """Where a candidate's sequence goes on if this activation is its next one (an optional step may be
        skipped, and drops into ignored pits), or -1 if the candidate did not expect it."""
        n = len(seq)
        deb = self.deb
        while j < n:
            e = seq[j]
            if e & PIT == pit:
                return j + 1
            if e & OPT and j + 1 < n and seq[j + 1] & PIT == pit:
                return j + 2
            if e & LIFT or deb is None or not deb.faulty[(e & PIT) >> 3] & (1 << (e & 7)):
                return -1
            j += 1  # a drop into a pit whose sensor is ignored (baoboard.debounce): taken as made
        return -1

    def _advance(self, pit: int) -> int:
        """Keep the candidates that expected this activation; 0 if none did (nothing changes then)."""
        for i in range(self.n):
            if self._next(self.c_seq[i], self.c_pos[i], pit) >= 0:
                break
        else:
            return 0
        k = 0
        for i in range(self.n):
            seq = self.c_seq[i]
            j = self._next(seq, self.c_pos[i], pit)
            if j >= 0:
                if k != i:
                    self.c_move[k] = self.c_move[i]
                    self.c_seq[k] = seq
                self.c_pos[k] = j
                k += 1
        self.n = k
        if self.steps < _TOUCHED:
            self.touched[self.steps] = pit
        self.steps += 1
        self.clear_wrong()
        return self._settle()

    def _settle(self) -> int:
        complete = -1
        for i in range(self.n):
            if self.c_pos[i] == len(self.c_seq[i]):
                complete = i
        if complete < 0:
            self.phase = MOVING
            return R_PROGRESS
        if self.n == 1:
            self._finish(complete)
            return R_DONE
        self.phase = DECISION  # a complete move and a longer one: 2.5b, stop in the house or play on
        return R_DECISION

    def decide_stop(self) -> int:
        """Take the stop in the house (a button, the host): R_DONE or R_IGNORED outside a decision."""
        if self.phase != DECISION:
            return R_IGNORED
        for i in range(self.n):
            if self.c_pos[i] == len(self.c_seq[i]):
                self._finish(i)
                return R_DONE
        return R_IGNORED

    def _finish(self, i: int) -> None:
        self.done_move = self.c_move[i]
        self.done_child = play(self.p, self.done_move)
        self.phase = OVER  # until the application starts the next boundary
        self.n = 0

    def _kept(self, now: int) -> int:
        """The touch refused just before, between moves, taken as a move's first sensed touch (a dead start
        pit's: baoboard.sensors): not taken back, and this touch at a sowing hand's pace after it (a person
        who reads the board, then tries another pit, makes no move of the two); else _NOT_KEPT."""
        if self.wrong_pit >= 0 and self.taps == 1 and now - self.tap_tick < _TAP_MS:
            return self.wrong_pit
        return _NOT_KEPT

    def _wrong(self, pit: int, now: int, rule: str, reason: str, boundary: bool) -> int:
        late = now - self.tap_tick >= _TAP_MS
        if pit == self.wrong_pit and (not late or self.taps == 1):
            # the same pit again: the seed taken back out of it (absorbed), or the undo gesture. A refused
            # touch is taken back however late (the person read the board first: issue #26's evidence never
            # counts it twice); a late take-back begins no gesture. At once, or between moves, the take-back
            # says the touch was a slip; late in a move it says nothing (a person whose pit before senses
            # nothing takes the seed back too, then puts it there again: baoboard.sensors, a dead input)
            self.taps += 1
            self.looked = late and not boundary
            self.tap_tick = now - _TAP_MS if late else now
            if self.taps >= _TAPS and self.deb is not None and self.deb.blips[pit]:
                # noise never makes a gesture: a hand makes no pulse shorter than the debounce
                self.taps = 1
                return R_IGNORED
            if self.taps >= _TAPS:
                self.clear_wrong()
                if self.phase == MOVING or self.phase == DECISION:
                    self.start(self.p, self.moves)
                    return R_CANCEL
                return R_UNDO
            return R_IGNORED
        if boundary:
            self.touched[0] = self._kept(now)  # (the touch before this one's: baoboard.sensors._history)
        self.wrong_pit = pit
        self.taps = 1
        self.tap_tick = now
        if not reason:  # why, citing the rule: code loaded for this activation only (baoboard.refusal)
            before = modules_now()
            try:
                from baoboard.refusal import explain

                rule, reason = explain(self, pit, boundary, self.phase == MOVING)
            finally:
                explain = None  # type: ignore[assignment]  # (the module's last reference dropped: unload_new)
                unload_new(before)
        self.wrong_rule = rule
        self.wrong_reason = reason
        return R_WRONG

    # ---- what the guide reads
    def expected(self, i: int) -> int:
        """Candidate i's next sequence byte, or -1 when it is complete (skipping nothing)."""
        seq = self.c_seq[i]
        j = self.c_pos[i]
        return seq[j] if j < len(seq) else -1

    def after_optional(self, i: int) -> int:
        """The byte after an optional next one (a merged lift), or -1."""
        seq = self.c_seq[i]
        j = self.c_pos[i] + 1
        return seq[j] if j < len(seq) else -1


def activations(p: "Position", move: int, merge: bool = False) -> bytearray:
    """The pits a player activates performing a legal move (what simulated hands and tests do); with
    merge, optional lifts are made in the same hand movement as the drop before them."""
    out = bytearray()
    for e in sequence(p, move):
        if not (merge and e & OPT):
            out.append(e & PIT)
    return out
