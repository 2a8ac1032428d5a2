# The STATE notice (docs/protocol.md, "State"; the names: baoproto.state): what the board guides now, written
# at the end of a scan whose LEDs changed for a reason other than blinking, and only when it differs from the
# last one written (the frame aside: it blinks). A host of protocol 3 reads it to say the step in words and
# show its colours, the same on every board. The line is written into one buffer, allocated once; nothing is
# allocated for it but the refusal's text, when there is one.
try:  # for the annotations only
    from typing import Any, Callable

    from baoboard.recogniser import Recogniser
except ImportError:
    pass

from bao.layout import TO_MOVE
from baoproto import state as S
from baoproto.crc import crc32_hex

from baoboard.compat import MICROPYTHON, const, micropython
from baoboard.recogniser import KICHWA, LIFT, MOVING, OPT, PIT, Recogniser

# the longest STATE line: its fields at their longest (every pit listed, the largest numbers: test_board_state's
# busiest state) and room after them for a refusal's text (cut to fit: the ILLEGAL event has it whole)
_LINE = const(704)
_TRAILER = const(11)  # " *CRC\n"
_LOWHEX = b"0123456789abcdef"

if MICROPYTHON:

    @micropython.viper
    def _copy(into, at: int, text, n: int):  # (viper: the buffers are objects, cast below)
        """text's first n bytes into `into` from at: text may be a str (a buffer on MicroPython), read in place."""
        dst = ptr8(into)  # noqa: F821 (viper's own)
        src = ptr8(text)  # noqa: F821
        for i in range(n):
            dst[at + i] = src[i]

else:

    def _copy(into, at: int, text, n: int):  # (CPython: a str is no buffer)
        into[at : at + n] = text.encode()[:n]


class StateLine:
    def __init__(self) -> None:
        self.buf = bytearray(_LINE)
        # the last line written, up to its frame, kept as its length and CRC-32 rather than a copy (a second
        # buffer of the line's size): two different states agree on both once in 2**32 changes, and then the
        # host misses one STATE, not an event (events are journaled and acknowledged; a STATE is a notice)
        self.last_n = 0  # (0: none written since the host's HELLO)
        self.check = bytearray(8)  # this line's fields' CRC, in hex (baoproto.crc.crc32_hex: no allocation)
        self.last_check = bytearray(8)
        self.last_why = ""  # its refusal's text (compared by identity: the recogniser keeps one)
        self.seen = bytearray(32)  # pits already listed in one of the lists
        self.mv = memoryview(self.buf)
        self.n = 0

    def forget(self) -> None:
        """A new host: the next state is written whatever the last one was."""
        self.last_n = 0

    def send(
        self, rec: "Recogniser", frame: bytearray, write: "Callable[[memoryview], object]", setup: "Any" = None
    ) -> bool:
        """Write the recogniser's state (rec) as a STATE notice with `frame`, through write(bytes), unless
        it is the one written last. setup: the set-up under way (baoboard.setup_mode.Setup) for a host of
        protocol 5, else None. True if written."""
        self.n = 0
        self.put(b"N0 STATE")
        self.fields(rec)
        if setup is not None:
            self.setup(setup)
        n = self.n
        why = rec.wrong_reason if rec.wrong_pit >= 0 else ""
        check = self.check
        crc32_hex(self.buf, n, check, 0)
        if n == self.last_n and why is self.last_why and check == self.last_check:
            return False
        self.last_n = n
        for i in range(8):
            self.last_check[i] = check[i]
        self.last_why = why
        self.put(S.LEDS)
        self.hexes(frame, _LOWHEX)
        if why:
            self.put(S.WHY)
            w = why.encode()  # (the text of a refusal: one allocation, on a refused touch's state only)
            room = _LINE - _TRAILER - self.n  # (a text too long for the line is cut, never written past it)
            k = len(w) if len(w) < room else room
            for i in range(k):
                self.byte(w[i])
        self.trailer()
        write(self.mv[: self.n])
        return True

    def fields(self, r: "Recogniser") -> None:
        """The state's fields of the Recogniser r (send's rec)."""
        ph = r.phase
        p = r.p
        self.put(S.STAGE)
        self.put(S.STAGES[ph])
        d = p.d
        self.put(S.SIDE)
        self.byte(78 if d[TO_MOVE] else 83)  # N, S
        self.put(S.POS)
        self.hexes(d, _LOWHEX)
        steps = r.steps
        if steps:
            self.put(S.STEPS)
            self.number(steps)
        if steps == 1 and r.start_pit >= 0:
            self.put(S.LIFTED)
            self.pit(r.start_pit)
        if ph == MOVING or ph == 2:  # (2: the house decision)
            self.next_pits(r)
        if r.wrong_pit >= 0:
            self.put(S.WRONG)
            self.pit(r.wrong_pit)
            rule = r.wrong_rule
            if rule:
                self.put(S.RULE)
                self.text(rule)
        self.shown(r)

    @micropython.native  # (as bytecode, its frame is too large for the C stack: on the heap at each call)
    def next_pits(self, r: "Recogniser") -> None:
        """The pits the move may go on to (the drops, the lifts, the kichwas), as the LED guide lights
        them, and the move followed with how far it is made."""
        n = r.n
        if not n:
            return
        seen = self.seen  # each pit's kind where a candidate first expects it (1 drop, 2 lift, 3 kichwa)
        for i in range(32):
            seen[i] = 0
        first = -1
        many = False
        for i in range(n):
            e = r.expected(i)
            if e >= 0:
                e2 = r.after_optional(i) if e & OPT else e
                _mark(seen, e)
                _mark(seen, e2)
                if first < 0:
                    first = e2 & PIT
                elif e2 & PIT != first:
                    many = True
        self.kind(r, S.DROP, 1)
        self.kind(r, S.LIFT, 2)
        self.kind(r, S.KICHWA, 3)
        if many:
            self.put(S.CHOICE)
        self.put(S.MOVE)
        self.number(r.c_move[0])
        self.put(S.AT)
        self.number(r.c_pos[0])

    @micropython.native  # (as bytecode, its frame is too large for the C stack: on the heap at each call)
    def kind(self, r: "Recogniser", key: bytes, kind: int) -> None:
        """The expected pits of one kind (1 drop, 2 lift, 3 kichwa: next_pits' marks), each once, in the
        order the candidates expect them, after `key`."""
        said = False
        for i in range(r.n):
            e = r.expected(i)
            if e < 0:
                continue
            said = self.listed(e, kind, key, said)
            if e & OPT:
                said = self.listed(r.after_optional(i), kind, key, said)

    def listed(self, b: int, kind: int, key: bytes, said: bool) -> bool:
        """List sequence byte b's pit if it is of `kind` and not listed yet; True once the list has begun."""
        if b < 0 or self.seen[b & PIT] != kind:
            return said
        self.seen[b & PIT] = 0  # (listed)
        self.put(key if not said else b",")
        self.pit(b & PIT)
        return True

    def shown(self, r: "Recogniser") -> None:
        hint = r.hint
        if hint < 0 or r.phase != 0:
            return
        for m in r.codes:
            if m & 63 == hint:
                self.put(S.SHOWN)
                self.pit(r.first_pit(m))
                e = r.hint_to
                if e >= 0:
                    self.put(S.TO)
                    self.pit(e & PIT)
                return

    def setup(self, s: "Any") -> None:
        """The set-up's phase (protocol 5): the places left to put right, or the pit whose hand it waits for
        to leave (docs/protocol.md, "Set-up mode"): a host that lost a SETUP notice, or came late, reads it."""
        self.put(S.SETUP)
        left = s.places - s.step
        if left > 0:
            self.put(S.SETUP_STEPS)
            self.number(left)
        else:
            self.put(S.SETUP_WAIT)
            self.pit(s.last_pit)

    # ---- writing into the buffer
    def put(self, b: bytes) -> None:
        buf = self.buf
        n = self.n
        for i in range(len(b)):
            buf[n + i] = b[i]
        self.n = n + len(b)

    def text(self, s: str) -> None:
        """An ASCII text (a rule's number), read where it is on MicroPython: no bytes object made of it."""
        _copy(self.buf, self.n, s, len(s))
        self.n += len(s)

    def byte(self, c: int) -> None:
        self.buf[self.n] = c
        self.n += 1

    def number(self, v: int) -> None:
        """v >= 0 in decimal."""
        if v >= 10:
            self.number(v // 10)
        self.byte(48 + v % 10)

    def pit(self, pit: int) -> None:
        """A pit's name (bao.layout.pit_name: A1..A8 front, B8..B1 back; a, b North's)."""
        ring = pit & 15
        self.byte((65 if pit < 16 else 97) + (ring >> 3))
        self.byte(49 + (ring if ring < 8 else 15 - ring))

    @micropython.native  # (as bytecode, its frame is too large for the C stack: on the heap at each call)
    def hexes(self, data: "bytes | bytearray", digits: bytes) -> None:
        buf = self.buf  # (straight into the buffer: a call a digit made the LEDs' field a long piece of a scan)
        n = self.n
        for i in range(len(data)):
            v = data[i]
            buf[n] = digits[v >> 4]
            buf[n + 1] = digits[v & 15]
            n += 2
        self.n = n

    def trailer(self) -> None:
        """ " *CRC\\n": the frame's check (baoproto.frames), of the line so far."""
        n = self.n
        self.put(b" *")
        crc32_hex(self.buf, n, self.buf, n + 2)
        self.n = n + 10
        self.byte(10)


def _mark(seen: bytearray, b: int) -> None:
    """The kind of sequence byte b's pit where it is first expected (1 drop, 2 lift, 3 kichwa)."""
    if b >= 0 and not seen[b & PIT]:
        seen[b & PIT] = 2 if b & LIFT else 3 if b & KICHWA else 1
