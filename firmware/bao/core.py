# The Bao rules core: positions, legal moves, and the sowing engine with its step-by-step account.
# Runs unchanged on CPython 3.11+ and MicroPython 1.22+. Rule numbers: Donkers "Zanzibar Bao rules for
# the computer" (1.x-4.x), project rulings (G*, R*, M*: shared/rulings.md).
#
# A position is one bytearray (pits, stores, houses, side to move, takasia, result) plus its Rules.
# The Malawi kuu games (M5-M25) reuse the Zanzibar fields: store = nemo left, house = kuu status,
# takasia = the threatened pit of M18; they add must_capture (M19) and placing (M22).
# Pits: index = side * 16 + ring, side 0 = South, 1 = North; ring 0..7 = front pits 1..8, ring 8..15 =
# back pits 8..1, so ring + 1 is one step clockwise (G5). A_i faces a_(9-i): ring r faces ring 7 - r.
# A move is a small int: ring | RIGHT (the direction letter is R) | PLAY (plays the house); legal_moves
# adds descriptive bits (TAKASA, TAKASIA, _NAMUA: played in the namua stage). A drop of the advanced
# placement (M22) is ring | take << 4 (take: 0, or 1..3 = which of the mover's occupied front pits faces
# the pit he takes, M21) with the descriptive bits _DROP and the taken pit's ring + 1 above _TAKE_SHIFT:
# only one kind of move is legal in a position, so identities stay within 6 bits (the engine's tables).
try:
    import micropython  # (the compiler reads @micropython.viper itself; the name says which Python this is)
    from micropython import const
except ImportError:  # CPython
    micropython = None  # type: ignore[assignment]

    def const(x: int) -> int:  # type: ignore[misc]
        return x


SOUTH = const(0)
NORTH = const(1)

# Layout of Position.d
STORE = const(32)  # 32: South's store, 33: North's
HOUSE = const(34)  # bit 0: South owns its house, bit 1: North
TO_MOVE = const(35)
TAKASIA = const(36)  # ring of the side to move's takasia-ed front pit, or NONE
WINNER = const(37)  # SOUTH, NORTH or NONE
IN_HAND = const(38)  # seeds still in hand when a move ended the game half-way
# Private (no name on a Pico: its name pool must not grow; bao.kuu names them for the host):
_MUST = const(39)  # M19: ring of the opponent's front pit the side to move must capture first, or NONE
_PLACING = const(40)  # M22: seeds the side to move still has to place (advanced placement)
_SIZE = const(41)
NONE = const(255)

# Move bits
RING = const(15)
RIGHT = const(16)
PLAY = const(32)
IDENTITY = const(63)
TAKASA = const(64)  # not a capture move
MAKES_TAKASIA = const(128)
_NAMUA = const(256)  # played in the namua stage (store seed first)
_DROP = const(512)  # a placement drop (M22)
_TAKE_SHIFT = const(10)  # drops: (taken ring + 1) << _TAKE_SHIFT when the drop takes a pit first (M21)

# Account steps. The rules core records a move's account compactly, 4 bytes a step, in a bytearray the
# caller passes (play_raw's rec; nothing allocated per step): kind | mark << 4, pit, a, b (a & 255: a
# direction -1 is 255). bao.explain.steps expands it into the tuples below, what core.account returns;
# pits are global indices.
STEP_STORE = const(1)  # (STEP_STORE, pit): a seed from the store into pit (2.2)
STEP_LIFT = const(2)  # (STEP_LIFT, pit, n): the move lifts n seeds from pit
STEP_TAX = const(3)  # (STEP_TAX, pit, 2): two seeds taken out of the lone house (2.4b)
STEP_SOW = const(4)  # (STEP_SOW, first_pit, direction, n): n seeds, one per pit from first_pit on
STEP_CAPTURE = const(5)  # (STEP_CAPTURE, captured_pit, n, kichwa_pit, direction) (1.4); the bytes omit the
# direction: it is +1 from the left kichwa (ring 0), -1 from the right one (ring 7)
STEP_RELAY = const(6)  # (STEP_RELAY, pit, n): endelea, lift n seeds and sow on (1.6)
STEP_HOUSE = const(7)  # (STEP_HOUSE, pit, played): the house decision (2.5b)
STEP_END = const(8)  # (STEP_END, pit, reason)
# In the kuu games a step may carry a mark (the high nibble of its kind byte; as a tuple, one more item):
# 1 "kuu", a step of the kuu rules (bao.explain names the ruling), or 2-4 the Malawi rule it follows
# ("M20", "M21", "M22"); the board's recogniser reads the same kinds. The placement (M20-M22) is told with
# the same kinds: STEP_LIFT of the pits gathered (and of the pit taken), STEP_STORE of the nemo as the
# first seed placed, STEP_SOW of one seed per later drop.
_KUU = const(16)  # kind | _KUU: a step of the kuu rules


def _write(rec: bytearray, kind: int, pit: int, a: int, b: int) -> None:
    """One step of an account (4 bytes: no object allocated; the bytearray grows in place)."""
    rec.append(kind)
    rec.append(pit)
    rec.append(a & 255)
    rec.append(b)


# Why a move ended (STEP_END reasons, and the low bits of _play's status)
END_EMPTY = const(0)  # last seed into an empty pit (1.5)
END_HOUSE = const(1)  # namua takasa ends in the owned house with 6+ seeds (2.5b(1))
END_HOUSE_STOP = const(2)  # capture move stops in the owned house: the player's choice (2.5b(2), R5)
END_TAKASIA = const(3)  # sowing ended in the takasia-ed pit (4.1b)
END_OWN_FRONT_EMPTY = const(4)  # the mover's front row emptied half-way: the mover loses (1.2, R9)
END_OPP_FRONT_EMPTY = const(5)  # a capture emptied the opponent's front row: the mover wins (1.2, R9)
END_SLEEP = const(6)  # a never-ending move sleeps where its state first repeats (M4)
END_INFINITE = const(7)  # a never-ending move: illegal (1.5a, R10)
END_MASK = const(15)
_CAPTURING = const(16)
DECISION = const(32)  # the move reached a house decision and stopped
BOUNDED = const(64)  # END_INFINITE by the bound on seeds sown (R10), not by a repeated state
_ENDED = const(128)  # _sow's last yield: its status
_STEPS = const(0)  # _sow's stop_after: no checks, a yield at every relay
_SERVE_EVERY = const(31)  # serve() is called when the relay count & this is 0 (M4's runs, below)
# None, or what long sowings call every few relays (M4's runs that look for a never-ending move's first
# repeat, and the native kernel's returns): the board serves its scan loop from it while such a move is
# listed or played (baoboard.app.App.serve; docs/architecture.md, Timing budgets). A run with a recorder
# that has a flush (the board's, baoboard.recogniser.Sequence) is served from there.
serve = None  # type: object

ZANZIBAR = "zanzibar"
MALAWI = "malawi"
# M5: the kuu games, intermediate (the kuu and the nemo stage) and advanced (after a free placement)
RULESETS = (ZANZIBAR, MALAWI, "malawi-intermediate", "malawi-advanced")  # the host's choices come from here
_NEMO = const(20)  # M7: nemo in each store at the start of a kuu game


class BaoError(ValueError):
    """Base of the rules core's errors."""


class InvalidPositionError(BaoError):
    """A position that cannot occur (wrong seed count, bad field...)."""


class IllegalMoveError(BaoError):
    """A move that the rules do not allow here; the message cites the rule ("2.4b: ...")."""

    def __init__(self, reason: str, rule: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class NotationError(BaoError):
    """Move or transcript text that cannot be read."""


class Rules:
    """A ruleset and its named options (every choice the rulings leave open)."""

    def __init__(
        self,
        ruleset: str = ZANZIBAR,
        takasia: "bool | None" = None,
        house_stop_any_count: bool = False,
        mtaji_takasa_house_stop: bool = False,
        infinite: "str | None" = None,
        lone_kichwa: "str | None" = None,
        sow_bound: int = 10000,
        relay_limit: "int | None" = None,
        **more: object,
    ) -> None:
        if ruleset not in RULESETS:
            raise InvalidPositionError("unknown ruleset %r (%s)" % (str(ruleset)[:40], " or ".join(RULESETS)))
        malawi = ruleset != ZANZIBAR  # M1-M4 hold in every Malawi game
        kuu = ruleset == "malawi-intermediate" or ruleset == "malawi-advanced"
        self.ruleset = ruleset
        self.malawi = malawi
        # R8 / 4.1: the takasia rule (transcript header "takasia: yes|no"); the basic Malawi game has none
        # (M1); the kuu games' threatened pit (M18) is their takasia.
        self.takasia = (not malawi or kuu) if takasia is None else bool(takasia) and (not malawi or kuu)
        # M5-M22: () outside the kuu games; in them, bao.malawi.update makes it (advanced, the 2s' pits,
        # threat_start is "any", placement_capture, bao.malawi.play) from the options kuu_twos, threat_start
        # and placement_capture (M7, M18, M21), which only that module names.
        self.kuu = ()  # type: tuple
        if kuu:
            from bao import malawi as kuu_rules

            kuu_rules.update(self, more)
        elif more:
            raise TypeError("unknown rule option")
        # R5: a capture move may stop in the owned house only with 6+ seeds (ruling); True: any count.
        self.house_stop_any_count = bool(house_stop_any_count)
        # R5: a mtaji-stage takasa does not stop in a still-owned house (ruling, 3.2); True: it does.
        self.mtaji_takasa_house_stop = bool(mtaji_takasa_house_stop)
        # R10: never-ending moves are illegal (Zanzibar); M4: they sleep where their state repeats.
        self.infinite = infinite or ("sleep" if malawi else "illegal")
        # 2.4a/3.5b: a lone kichwa may not be sown towards the back row; M3: it may, and loses at once.
        self.lone_kichwa = lone_kichwa or ("loses" if malawi else "forbidden")
        # R10 (revised, rule 1.5a's designated bound) and M4: a move that has sown more than this many
        # seeds is taken as never-ending, so every move is decided in bounded time (a Pico's watchdog);
        # 0: no bound, exact cycle detection only (research). relay_limit, the bound's forerunner, is
        # accepted from older stored options and ignored.
        if not isinstance(sow_bound, int) or isinstance(sow_bound, bool) or sow_bound < 0:
            raise InvalidPositionError("option sow_bound must be a whole number of seeds >= 0 (0: no bound)")
        self.sow_bound = sow_bound
        if self.infinite not in ("illegal", "sleep"):
            raise InvalidPositionError("option infinite must be 'illegal' or 'sleep'")
        if self.lone_kichwa not in ("forbidden", "loses"):
            raise InvalidPositionError("option lone_kichwa must be 'forbidden' or 'loses'")

    def options(self) -> dict:
        """The options that differ from the ruleset's defaults (what a position or header must carry)."""
        base = Rules(self.ruleset)
        out = {}
        for key in ("takasia", "house_stop_any_count", "mtaji_takasa_house_stop", "infinite", "lone_kichwa",
                    "sow_bound"):
            if getattr(self, key) != getattr(base, key):
                out[key] = getattr(self, key)
        if self.kuu:
            from bao import malawi as kuu_rules

            kuu_rules.options(self, out)
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self.ruleset == other.ruleset and self.options() == other.options()

    def __repr__(self) -> str:
        return "Rules(%r, %r)" % (self.ruleset, self.options())


_DEFAULT_RULES = {}  # type: dict


def rules_for(ruleset: str) -> Rules:
    """A shared Rules object with the ruleset's defaults."""
    r = _DEFAULT_RULES.get(ruleset)
    if r is None:
        r = _DEFAULT_RULES[ruleset] = Rules(ruleset)
    return r


class Position:
    """A Bao position. `d` is the raw bytearray (layout above); use the accessors outside hot paths."""

    def __init__(self, d: "bytearray | None" = None, rules: "Rules | None" = None) -> None:
        if d is None:
            d = bytearray(_SIZE)
            d[TAKASIA] = NONE
            d[WINNER] = NONE
            d[_MUST] = NONE
        self.d = d
        self.rules = rules or rules_for(ZANZIBAR)

    def copy(self) -> "Position":
        return Position(bytearray(self.d), self.rules)

    # Readable accessors
    @property
    def to_move(self) -> int:
        return self.d[TO_MOVE]

    @property
    def winner(self) -> "int | None":
        w = self.d[WINNER]
        return None if w == NONE else w

    @property
    def in_hand(self) -> int:
        return self.d[IN_HAND]

    @property
    def takasia(self) -> "int | None":
        """Global index of the side to move's takasia-ed pit, or None."""
        t = self.d[TAKASIA]
        return None if t == NONE else (self.d[TO_MOVE] << 4) + t

    def store(self, side: int) -> int:
        return self.d[STORE + side]

    def owns_house(self, side: int) -> bool:
        return bool(self.d[HOUSE] & (1 << side))

    def seeds(self, pit: int) -> int:
        return self.d[pit]

    def in_namua(self, side: "int | None" = None) -> bool:
        """R2: a side is in the namua stage while its store is not empty."""
        return self.d[STORE + (self.d[TO_MOVE] if side is None else side)] > 0

    def key(self) -> bytes:
        """Hashable identity of the position (for transposition tables and equality)."""
        return bytes(self.d)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.d == other.d and self.rules == other.rules

    def __hash__(self) -> int:
        return hash(bytes(self.d))

    def __repr__(self) -> str:
        return "<Position %s to move>" % ("South" if self.d[TO_MOVE] == SOUTH else "North")


def initial(ruleset: str = ZANZIBAR, rules: "Rules | None" = None, first: int = SOUTH) -> Position:
    """The start position: R1 (Zanzibar), M1 (Malawi: 2 seeds everywhere; `first` chosen by lot) or M7
    (the kuu games: kuu 8, two 2s, 20 nemo each; `first` by lot)."""
    rules = rules or rules_for(ruleset)
    p = Position(None, rules)
    d = p.d
    if rules.kuu:
        twos = rules.kuu[1]
        for side in (SOUTH, NORTH):
            base = side << 4
            d[base + 4] = 8  # M6, M7: the kuu, front pit 5
            d[base + twos[0] - 1] = 2
            d[base + twos[1] - 1] = 2
            d[STORE + side] = _NEMO
        d[HOUSE] = 3
        d[TO_MOVE] = first
    elif rules.ruleset == MALAWI:
        for i in range(32):
            d[i] = 2
        d[TO_MOVE] = first
    else:
        for side in (SOUTH, NORTH):
            base = side << 4
            d[base + 4] = 6  # the nyumba, pit 5
            d[base + 5] = 2
            d[base + 6] = 2
            d[STORE + side] = 22
        d[HOUSE] = 3
        d[TO_MOVE] = SOUTH
    return p


# Geometry helpers
def pit_name(pit: int) -> str:
    """Global pit index -> "A1".."B8" (South) / "a1".."b8" (North)."""
    side, ring = pit >> 4, pit & 15
    if ring < 8:
        return ("A" if side == SOUTH else "a") + str(ring + 1)
    return ("B" if side == SOUTH else "b") + str(16 - ring)


def ring_direction(ring: int, right: int) -> int:
    """G6: the letter R moves towards pit 8 on either row: +1 (clockwise) on the front row, -1 behind."""
    if ring < 8:
        return 1 if right else -1
    return -1 if right else 1


# Move text (rulings G7): writing a move is here, next to pit names, because the board writes every move
# it reports and should not load bao.notation (parsing, transcripts) for it; bao.notation re-exports these.
DONKERS = "donkers"
KIBA = "kiba"
DIALECTS = (DONKERS, KIBA)


def _marks(dialect: str) -> tuple:
    if dialect == DONKERS:
        return "L", "R", ">"
    if dialect == KIBA:
        return "<", ">", "+"
    raise NotationError("unknown dialect %r (donkers or kiba)" % (dialect,))


def format_move(move: int, side: int, dialect: str = DONKERS) -> str:
    """Text of a move as returned by legal_moves (its descriptive bits say takasa, takasia, namua)."""
    left, right, house = _marks(dialect)
    r = move & RING
    out = ""
    if move & _DROP:  # M22, M25: "@A4", the second player's first drop "xA3@a4"
        t = (move >> _TAKE_SHIFT) & 15
        if t:
            out = "x" + pit_name(((side ^ 1) << 4) + t - 1)
        return out + "@" + pit_name((side << 4) + r)
    if move & _NAMUA:
        out = str(r + 1)
        if move & TAKASA or 1 < r < 6:
            out += right if move & RIGHT else left
    else:
        if r < 8:
            out = ("A" if side == 0 else "a") + str(r + 1)
        else:
            out = ("B" if side == 0 else "b") + str(16 - r)
        out += right if move & RIGHT else left
    if move & TAKASA:
        out += "**" if move & MAKES_TAKASIA else "*"
    if move & PLAY:
        out += house
    return out


def _front_empty(d: bytearray, base: int) -> bool:
    for i in range(base, base + 8):
        if d[i]:
            return False
    return True


# The sowing engine, the hot path: _sow in bytecode, and on MicroPython a small native kernel, _advance, for
# its plain stretch: the seeds sown one by one, and the relays and captures at which nothing else can happen,
# with their steps of the account (a bytearray's, up to 36 bytes a call). In bytecode a seed cost about 11 us
# of Pico time and a relay 60 us more; native, a few us. _sow calls the kernel for each sowing and keeps
# every decision (the end of a move, the houses, takasia, R9, Brent's check, the bound), about 60 us around
# each call. CPython, and a recorder that takes the account relay by relay, run _sow's bytecode alone. So
# the firmware's .mpy carry machine code, made for the machine that runs them (mpy-cross -march: armv6m for
# a Pico, x64 and x86 for the unix ports), and load only on the MicroPython release whose mpy-cross made
# them; on a Pico the kernels take about 3.2 KB of heap. @micropython.native on all of _sow was measured
# before (unix port, perft(8): 257-291 ms as bytecode, 237 ms native) and left out: 15 % for several KB more.
if micropython:

    @micropython.viper
    def _advance(d: ptr8, rec: ptr8, a: int, p: int, k: int, x: int, limit: int,  # noqa: F821 (viper)
                 budget: int) -> int:
        """_sow's plain stretch, native: sow the k seeds in hand on from pit p (me + ring; bit 5 set:
        anti-clockwise), then capture and relay on while only a capture that leaves the opponent a front
        row, or a relay, can happen where the last seed falls: no end (1.5), not the owned house, not the
        takasia-ed ring, not Brent's saved key, no sowing round the row's end next (R9's check), at most
        `limit` relays more (_sow checks the next one) and `budget` seeds relayed (R10's bound). x: bit 0
        capturing, bit 1 a capture empties both houses (R6), bit 2 the capture's kuu mark, bits 3-10 the
        takasia-ed ring, bits 11-16 the saved key + 1. Each step's 4 bytes (STEP_SOW, STEP_RELAY,
        STEP_CAPTURE) go into rec from offset a, 36 bytes at most (a < 0: no account). Returns the ring the
        last seed fell in | bit 4: anti-clockwise | captures << 5 | relays << 8 | seeds relayed << 14."""
        me = p & 16
        pos = p & 15
        step = 1
        if p & 32:
            step = -1
        op = me ^ 16
        hbit = 1 << (me >> 4)
        takasia = (x >> 3) & 255
        key0 = (x >> 11) - 1
        capturing = x & 1
        end = a + 28  # room for one more relay or capture and its sowing in 36 bytes
        if limit > 63:
            limit = 63
        done = 0
        caps = 0
        seeds = 0
        while True:
            if a >= 0:
                rec[a] = 4  # STEP_SOW, first pit, direction, n
                rec[a + 1] = me + ((pos + step) & 15)
                rec[a + 2] = step & 255
                rec[a + 3] = k
                a += 4
            while k > 0:
                pos = (pos + step) & 15
                d[me + pos] += 1
                k -= 1
            c = int(d[me + pos])
            if c == 1 or a > end:
                break  # the move ends here (1.5), or no room for the next steps
            if capturing and pos < 8 and int(d[op + 7 - pos]):
                t = op + 7 - pos  # 1.4, 1.6c: capture the opposite pit, sow it in from a kichwa
                i = op
                while i < op + 8 and (i == t or d[i] == 0):
                    i += 1
                if i == op + 8:
                    break  # the capture empties the opponent's front row: the move ends (1.2), _sow's end
                k = int(d[t])
                d[t] = 0
                if pos == 3:
                    d[34] = int(d[34]) & (255 - (1 << (op >> 4)))  # 2.5a: HOUSE, the opponent's emptied
                if x & 2:
                    d[34] = 0  # R6
                kichwa = 7
                if pos < 2 or (pos < 6 and step == 1):
                    kichwa = 0
                step = 1 - ((kichwa >> 2) << 1)  # from the left kichwa clockwise, from the right anti-clockwise
                if a >= 0:
                    rec[a] = 5 | ((x & 4) << 2)  # STEP_CAPTURE (| _KUU), pit, n, kichwa
                    rec[a + 1] = t
                    rec[a + 2] = k
                    rec[a + 3] = me + kichwa
                    a += 4
                pos = (kichwa - step) & 15
                caps += 1
                continue
            if pos == 4 and int(d[34]) & hbit:
                break  # the owned house (2.5b, R5; M12, M15): HOUSE
            if pos == takasia:
                break  # 4.1b, M18
            key = pos
            if step < 0:
                key = pos | 16
            if key == key0 or done == limit or c > budget:
                break  # maybe the state Brent saved; a relay _sow checks; the bound
            if (pos == 7 and step == 1) or (pos == 0 and step == -1):
                break  # the next sowing starts behind: R9's check is _sow's
            done += 1
            seeds += c
            budget -= c
            k = c
            d[me + pos] = 0
            if a >= 0:
                rec[a] = 6  # STEP_RELAY, pit, n
                rec[a + 1] = me + pos
                rec[a + 2] = c
                rec[a + 3] = 0
                a += 4
        neg = 0
        if step < 0:
            neg = 16
        return pos | neg | (caps << 5) | (done << 8) | (seeds << 14)

    @micropython.viper
    def _starts(d: ptr8, out: object, me: int, must: int) -> int:  # noqa: F821 (viper)
        """_capture_starts' mtaji stage, native: appends to out each start whose first sowing ends in
        an occupied front pit facing seeds (3.4), M19's pit (must) if there is one."""
        op = me ^ 16
        ends = 0
        for e in range(8):
            if int(d[me + e]) and int(d[op + 7 - e]) and (must == 255 or must == 7 - e):
                ends |= 1 << e
        if ends == 0:
            return 0
        for r in range(16):
            n = int(d[me + r])
            if n >= 2 and n <= 15:
                if r > 7:
                    n = -n  # G6
                if (ends >> ((r - n) & 15)) & 1:
                    out.append(r)  # type: ignore[attr-defined]
                if (ends >> ((r + n) & 15)) & 1:
                    out.append(r | 16)  # type: ignore[attr-defined]  # RIGHT
        return 0

else:
    _advance = _starts = None  # type: ignore[assignment]
_buf = None  # the kernel's account scratch: views of its first 4, 12, 20, 28 and 36 bytes (made at first use)


def _sow(p: Position, move: int, rec: "bytearray | None", stop_after: int):  # type: ignore[no-untyped-def]
    """Play `move` on p.d in place; with rec, each step of the account is appended to it. A generator
    whose one yield is the status | _ENDED (END_MASK bits: END_*, plus _CAPTURING and DECISION; next()
    reads it): a never-ending move is found exactly by Brent's cycle detection on the state at each
    relay, in constant memory, or taken as never-ending once its relays have sown more seeds than the
    game's bound (R10, 1.5a). For a never-ending move the status is END_INFINITE (p is then garbage)
    with, above bit 8, the loop's length, or with BOUNDED set the relay at whose end the bound was
    passed. stop_after > 0 ends the move at that relay (M4's sleep, no bound). M4 (infinite "sleep"): a
    move that passes the bound sleeps at the end of that relay at once, with BOUNDED and that relay
    above bit 8 (play_raw checks that its state did not repeat before). stop_after _STEPS: no check,
    the generator yields a key at every relay (the state before the lift, with p.d), then its status
    (M4's searches step two runs). The checks are here, not in a caller driving the generator relay by
    relay: a resumption and the caller's loop cost about 20 us of Pico time a relay."""
    global _buf
    d = p.d
    rules = p.rules
    s = d[TO_MOVE]
    o = s ^ 1
    me = s << 4
    op = o << 4
    hbit = 1 << s
    r = move & RING
    right = move & RIGHT
    namua = d[STORE + s] > 0
    kuu = rules.kuu
    house_rules = namua or rules.mtaji_takasa_house_stop
    # 2.5b: the house stops a namua sowing with 6+ seeds; M12, M15: the kuu with status whatever it holds
    house_min = 0 if kuu else 6
    kt = _KUU if kuu else 0  # the account's mark of a kuu-game step (bao.explain cites M9-M18)
    ktn = kt if namua else 0
    takasia = d[TAKASIA]
    # Brent's first saved state at relay 8, not 1: most moves end before it, with no copy of the state
    # allocated (the loop and its exact length are found from any relay on; _first_repeat finds where
    # it starts)
    saved = None
    saved_key = -1
    saved_at = 0
    power = 8
    steps = stop_after == _STEPS
    if steps:
        stop_after = 1
    next_save = -1 if steps else power  # stepping: no check (M4's searches compare the states)
    relays = 0
    bound = rules.sow_bound if stop_after < 0 else 0
    sleep = rules.infinite == "sleep"
    passed = 0
    left = bound if bound else 1 << 29  # seeds the relays may still lift and sow before the bound
    flush = None
    fast = _advance  # the native kernel (MicroPython), with a bytearray account or none
    out = d  # where the kernel writes the account's steps (from offset at; at -1: no account)
    at = -1
    if rec is not None:
        add = rec.append  # (a bound method: the account's hot steps)
        # a recorder may take the account relay by relay (baoboard.recogniser.Sequence); a bytearray has no flush
        flush = getattr(rec, "flush", None)
        if flush is not None or not isinstance(rec, bytearray) or fast is None:
            fast = None  # type: ignore[assignment]
        else:
            if _buf is None:
                # (whole views made once: a slice at each call would be an object allocated right behind
                # the account, which then could not grow in place; a long account would be copied instead)
                b = memoryview(bytearray(36))
                _buf = (b[:4], b[:12], b[:20], b[:28], b)  # type: ignore[assignment]
            out = _buf[4]  # type: ignore[index, assignment]
            at = 0
    direction = 0  # namua captures choose their direction at the first capture
    hand = 0
    pos = r
    capturing = False
    if namua:
        d[STORE + s] -= 1
        d[me + r] += 1
        if rec is not None:
            _write(rec, STEP_STORE | kt, me + r, 0, 0)
        if d[op + 7 - r]:
            capturing = True  # 2.3: the seed lands opposite a non-empty pit: capture at once
        else:
            direction = 1 if right else -1
            if kuu and r == 4 and d[HOUSE] & hbit:
                # M13: the lone kuu is taxed two seeds; M14: with exactly 8 before the nemo all 9 are sown
                if d[me + 4] == 9:
                    hand = 9
                    d[me + 4] = 0
                    if rec is not None:
                        _write(rec, STEP_LIFT | kt, me + 4, 9, 0)
                else:
                    hand = 2
                    d[me + 4] -= 2
                    if rec is not None:
                        _write(rec, STEP_TAX | kt, me + 4, 2, 0)
                if not d[me + 4]:
                    d[HOUSE] &= ~hbit  # M16: emptied (also by a tax of its last seed)
            elif r == 4 and d[HOUSE] & hbit and d[me + 4] > 6:
                hand = 2  # 2.4b, R4: the 2-seed tax; the house stays owned
                d[me + 4] -= 2
                if rec is not None:
                    _write(rec, STEP_TAX, me + 4, 2, 0)
            else:
                hand = d[me + r]
                d[me + r] = 0
                if r == 4:
                    d[HOUSE] &= ~hbit  # 2.5a: emptied
                if rec is not None:
                    _write(rec, STEP_LIFT, me + r, hand, 0)
    else:
        direction = (1 if right else -1) if r < 8 else (-1 if right else 1)  # G6 (ring_direction, inlined)
        hand = d[me + r]
        d[me + r] = 0
        if r == 4:
            d[HOUSE] &= ~hbit
        if 2 <= hand <= 15:  # 3.4: a capture move lifts 2..15 seeds and its first sowing ends in a capture
            e = (r + direction * hand) & 15
            capturing = e < 8 and d[me + e] > 0 and d[op + 7 - e] > 0
        if kuu and not capturing:
            d[HOUSE] &= ~hbit  # M17: the first takata of the second stage ends the kuu's status
        if rec is not None:  # (_write inlined: every mtaji move's first step)
            add(STEP_LIFT)
            add(me + r)
            add(hand)
            add(0)
    # the kernel's flags (_advance) and the next relay it must leave to the checks below
    flags = (1 if capturing else 0) | (0 if namua or kuu else 2) | (ktn >> 2) | (takasia << 3)
    limit = stop_after if stop_after > 0 and (next_save < 0 or stop_after < next_save) else next_save
    while True:
        if hand:
            if (pos == 7 and direction == 1) or (pos == 0 and direction == -1):
                if _front_empty(d, me):  # R9: the first seed goes behind and the front row is empty
                    pos = (pos + direction) & 15
                    d[me + pos] += 1
                    if rec is not None:
                        _write(rec, STEP_SOW, me + pos, direction, 1)
                        _write(rec, STEP_END, me + pos, END_OWN_FRONT_EMPTY, 0)
                    d[WINNER] = o
                    d[IN_HAND] = hand - 1
                    yield (END_OWN_FRONT_EMPTY | (_CAPTURING if capturing else 0)) | _ENDED
                    return
            if fast is not None:
                n = fast(d, out, at, me + pos + (direction & 32), hand, flags, limit - relays - 1,  # type: ignore[arg-type]
                         left)
                if at == 0:  # the steps it wrote: a sowing, then two for each relay or capture
                    rec.extend(_buf[((n >> 5) & 7) + ((n >> 8) & 63)])  # type: ignore[index, union-attr]
                pos = n & 15
                direction = 1 - ((n >> 3) & 2)
                relays += (n >> 8) & 63
                left -= n >> 14
                if serve is not None and not steps:  # (the kernel returns at Brent's saves: a few times)
                    serve()  # type: ignore[operator]
            else:
                if rec is not None:  # (_write inlined: the two steps of every relay)
                    add(STEP_SOW)
                    add(me + ((pos + direction) & 15))
                    add(direction & 255)
                    add(hand)
                for _ in range(hand):
                    pos = (pos + direction) & 15
                    d[me + pos] += 1
            hand = 0
        c = d[me + pos]
        if c == 1:
            if rec is not None:  # (_write inlined: most moves' last step)
                add(STEP_END)
                add(me + pos)
                add(END_EMPTY)
                add(0)
            yield (END_EMPTY | (_CAPTURING if capturing else 0)) | _ENDED
            return
        if capturing and pos < 8 and d[op + 7 - pos]:
            # 1.4 / 1.6c: capture the opposite pit and sow its seeds in from a kichwa
            t = op + 7 - pos
            n = d[t]
            d[t] = 0
            if pos == 3:
                d[HOUSE] &= ~(1 << o)  # 2.5a: the opponent's house is emptied
            if not namua and not kuu:
                d[HOUSE] = 0  # R6: the first capture of the mtaji stage ends both houses (not M17)
            if pos < 2 or (pos < 6 and (direction == 1 or (direction == 0 and not right))):
                k, direction = 0, 1  # 1.4a/b, R3: from the left kichwa (pit 1) clockwise
            else:
                k, direction = 7, -1  # from the right kichwa (pit 8) anti-clockwise
            if rec is not None:
                _write(rec, STEP_CAPTURE | ktn, t, n, me + k)
            if _front_empty(d, op):
                if rec is not None:
                    _write(rec, STEP_END, t, END_OPP_FRONT_EMPTY, 0)
                d[WINNER] = s
                d[IN_HAND] = n
                yield END_OPP_FRONT_EMPTY | _CAPTURING | _ENDED
                return
            pos = (k - direction) & 15
            hand = n
            continue
        if pos == 4 and d[HOUSE] & hbit and house_rules and (
                c >= house_min or (capturing and rules.house_stop_any_count)):
            if not capturing:
                if rec is not None:
                    _write(rec, STEP_END | kt, me + 4, END_HOUSE, 0)
                yield END_HOUSE | _ENDED  # 2.5b(1), R5; M12: a nemo takata sleeps in the kuu
                return
            if not move & PLAY:
                if rec is not None:
                    _write(rec, STEP_HOUSE | kt, me + 4, 0, 0)
                    _write(rec, STEP_END | kt, me + 4, END_HOUSE_STOP, 0)
                yield END_HOUSE_STOP | _CAPTURING | DECISION | _ENDED  # 2.5b(2); M15: sleep or relay the kuu
                return
            if rec is not None:
                _write(rec, STEP_HOUSE | kt, me + 4, 1, 0)
        elif pos == takasia and not capturing:
            if rec is not None:
                _write(rec, STEP_END | kt, me + pos, END_TAKASIA, 0)
            yield END_TAKASIA | _ENDED  # 4.1b; M18: a sowing ending in the threatened pit ends the move
            return
        key = pos if direction > 0 else pos | 16  # with d, the state before the lift
        relays += 1
        if relays == stop_after:
            if not steps:
                if rec is not None:
                    _write(rec, STEP_END, me + pos, END_SLEEP, 0)
                yield END_SLEEP | passed | _ENDED
                return
            yield key
            stop_after += 1
            limit = stop_after
        elif key == saved_key and d == saved:
            yield END_INFINITE | ((relays - saved_at) << 8) | _ENDED
            return
        if bound:
            left -= c  # the seeds this relay lifts and sows
            if left < 0:
                if not sleep:
                    yield END_INFINITE | BOUNDED | ((relays + 1) << 8) | _ENDED
                    return
                bound = 0
                stop_after = limit = relays + 1  # M4: the move sleeps at the end of this relay
                passed = BOUNDED | (stop_after << 8)
        if relays == next_save:
            if saved is None:
                saved = bytearray(d)
            else:
                saved[:] = d
            saved_key = key
            flags = (flags & 2047) | ((key + 1) << 11)
            saved_at = relays
            power <<= 1
            next_save = relays + power
            limit = stop_after if 0 < stop_after < next_save else next_save
        # 1.6: endelea
        hand = c
        d[me + pos] = 0
        if pos == 4:
            d[HOUSE] &= ~hbit  # 2.5a: the house is emptied (played or sown out)
        if rec is not None:
            add(STEP_RELAY)
            add(me + pos)
            add(hand)
            add(0)
            if flush is not None:
                flush()


def _first_repeat(p: Position, move: int, cycle: int) -> int:
    """M4: the relay number at which a never-ending move's state first repeats. `cycle` is the loop
    length Brent found; two runs `cycle` relays apart meet at the loop's start (mu); the first repeat
    is relay mu + cycle."""
    a = p.copy()
    b = p.copy()
    ga = _sow(a, move, None, _STEPS)
    gb = _sow(b, move, None, _STEPS)
    ka = 0
    for i in range(cycle):
        ka = next(ga)
        if not i & _SERVE_EVERY and serve is not None:
            serve()  # type: ignore[operator]
    mu = 0
    while True:
        ka = next(ga)
        kb = next(gb)
        mu += 1
        if not mu & _SERVE_EVERY and serve is not None:
            serve()  # type: ignore[operator]
        if ka == kb and a.d == b.d:
            return mu + cycle


def _repeat_before(p: Position, move: int, b: int) -> int:
    """M4: a move that passed the bound and slept at relay b sleeps earlier if its state first repeated
    before b: then the state at b is on the loop, whose length is under b, so it comes back within b
    relays; if it does not, nothing repeated before b. Returns the relay of the first repeat if it is
    before b, else 0 (2b relays, no account; Brent alone could need 3b to tell)."""
    q = p.copy()
    d = q.d
    g = _sow(q, move, None, _STEPS)
    key = 0
    for i in range(b):
        key = next(g)
        if not i & _SERVE_EVERY and serve is not None:
            serve()  # type: ignore[operator]
    at_b = bytearray(d)
    for cycle in range(1, b):
        if not cycle & _SERVE_EVERY and serve is not None:
            serve()  # type: ignore[operator]
        try:
            if next(g) == key and d == at_b:
                first = _first_repeat(p, move, cycle)
                return first if first < b else 0
        except StopIteration:
            return 0
    return 0


def play_raw(p: Position, move: int, rec: "bytearray | None" = None) -> "tuple[Position, int]":
    """Play a move on a copy of p without checking its legality. Returns (child, status); the child has
    the opponent to move (in the placement, once the mover has placed every seed). An illegal
    never-ending move gives status END_INFINITE."""
    k = p.rules.kuu
    if k and k[0] and (p.d[_PLACING] or p.d[STORE + p.d[TO_MOVE]] == _NEMO):
        child = p.copy()
        k[4](child, move, rec)  # M22: the advanced placement, one ply per seed (bao.malawi.play)
        return child, END_EMPTY
    child = Position(bytearray(p.d), p.rules)  # (p.copy() inlined: the hot path)
    status = next(_sow(child, move, rec, -1)) ^ _ENDED
    if status & BOUNDED or status & END_MASK == END_INFINITE:
        if p.rules.infinite != "sleep":
            return child, status
        # M4: the move sleeps where its state first repeats (Brent found the loop), or at the end of the
        # relay that passed the bound (as played, with its account) unless its state repeated before
        if status & BOUNDED:
            first = _repeat_before(p, move, status >> 8)
        else:
            first = _first_repeat(p, move, status >> 8)
        if first:
            child = p.copy()
            if rec is not None:
                rec[:] = b""  # the account again, from its start
            status = next(_sow(child, move, rec, first)) ^ _ENDED
    d = child.d
    if k:
        # M19: the threatened pit, still occupied (not started from, M18), must be captured first next
        t = d[TAKASIA]
        d[_MUST] = t if t != NONE and d[WINNER] == NONE and d[(d[TO_MOVE] << 4) + t] else NONE
    d[TO_MOVE] ^= 1
    d[TAKASIA] = NONE
    return child, status & 255 & ~BOUNDED


# Move generation
def _capture_starts(p: Position) -> "list[int]":
    """Moves whose first step is a capture (2.3 namua; 3.4 mtaji: 2..15 seeds, ends opposite seeds)."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = (s ^ 1) << 4
    out = []  # type: list[int]
    if d[STORE + s]:
        ban = NONE
        if p.rules.kuu and d[HOUSE] == 3 and d[op + 3]:
            ban = 3  # M11: not the opponent's kuu first while the own kuu faces seeds
        for r in range(8):
            if d[me + r] and d[op + 7 - r] and r != ban:
                if r < 2:
                    out.append(r)  # 1.4b: forced to the left kichwa, written L
                elif r > 5:
                    out.append(r | RIGHT)
                else:
                    out.append(r)  # type: ignore[attr-defined]
                    out.append(r | RIGHT)
        return out
    if _starts is not None:
        _starts(d, out, me, d[_MUST])  # type: ignore[arg-type]  # (native: the loops below cost 0.4 ms of Pico time in bytecode)
        return out
    must = d[_MUST]  # M19: only captures whose first captured pit is this one
    for r in range(16):
        n = d[me + r]
        if 2 <= n <= 15:
            if r > 7:
                n = -n  # G6: R is +1 on the front row, -1 behind (ring_direction, inlined: the hot path)
            for right in (0, RIGHT):
                e = (r + n if right else r - n) & 15
                if e < 8 and d[me + e] and d[op + 7 - e] and (must == NONE or must == 7 - e):
                    out.append(r | right)
    return out


def _takasa_starts(p: Position, front: bool) -> "list[int]":
    """Candidate takasa moves (2.4 namua, 3.5 mtaji), before the never-ending check."""
    d = p.d
    rules = p.rules
    s = d[TO_MOVE]
    me = s << 4
    out = []  # type: list[int]
    namua = d[STORE + s] > 0
    kuu = rules.kuu
    owned = d[HOUSE] & (1 << s)
    if kuu and owned and not namua and d[me + 4] > 1:
        return [4, 4 | RIGHT] if front else out  # M17: the first takata of the second stage is the kuu's
    filled = 0
    multi = 0
    for r in range(8):
        if d[me + r]:
            filled += 1
            if d[me + r] > 1:
                multi += 1
    if kuu and namua and owned:
        if filled == 1:
            return [4, 4 | RIGHT] if front else out  # M13, M14: the lone kuu is taxed (or sown whole)
        if d[me + 4] > 1:
            multi -= 1  # M12: the singleton rule does not count the kuu with status
    if not front:
        if namua:
            return out  # 2.4: namua takasa never starts on the back row
        for r in range(8, 16):
            if d[me + r] >= 2:
                out.append(r)
                out.append(r | RIGHT)
        return out
    takasia = d[TAKASIA]
    for r in range(8):
        n = d[me + r]
        if not n:
            continue
        if namua:
            if kuu:
                if r == 4 and owned:
                    continue  # M12: no takata from the kuu with status
                if n == 1 and multi:
                    continue  # M12: a singleton only when no other front pit holds 2+
            elif r == 4 and owned and n >= 6 and filled > 1:
                continue  # 2.4b
            elif n == 1 and not owned and multi:
                continue  # 2.4c
        else:
            if n < 2:
                continue  # 3.3
            if r == takasia and not kuu:
                continue  # 4.1
        lone_kichwa = filled == 1 and (r == 0 or r == 7) and rules.lone_kichwa == "forbidden"
        if not (lone_kichwa and r == 0):
            out.append(r)  # L
        if not (lone_kichwa and r == 7):
            out.append(r | RIGHT)  # 2.4a, 3.5b: not towards the back row
    if kuu and takasia != NONE and not namua:
        # M18: no takata from the threatened pit unless it is the only start the basic rules allow
        others = False
        for m in out:
            if m & RING != takasia:
                others = True
        if others or (rules.kuu[2] and _takasa_starts(p, False)):  # threat_start "any"
            out = [m for m in out if m & RING != takasia]
    return out


def _expand(p: Position, move: int, out: list, flags: int, keep: "bool | bytearray" = True) -> None:
    """Simulate one candidate; append (move, child), or only the move when keep is False, or (move,
    child, account) when keep is a bytearray (the scratch the account is recorded in, then copied)."""
    rec = None if keep is True or keep is False else keep
    if rec is not None:
        rec[:] = b""
    child, status = play_raw(p, move, rec)
    if status & END_MASK == END_INFINITE:
        return
    m = move | flags
    if flags & TAKASA and not flags & _NAMUA and p.rules.takasia and child.d[WINNER] == NONE:
        t = _takasia_pit(child)  # R8: only a mtaji-stage takasa can make a takasia
        if t != NONE:
            child.d[TAKASIA] = t
            m |= MAKES_TAKASIA
    out.append(m if keep is False else (m, child) if rec is None else (m, child, bytes(rec)))
    if status & DECISION:
        if rec is not None:
            rec[:] = b""
        child, status = play_raw(p, move | PLAY, rec)
        if status & END_MASK != END_INFINITE:
            m = move | PLAY | flags
            out.append(m if keep is False else (m, child) if rec is None else (m, child, bytes(rec)))


def _finite_captures(p: Position, first_only: bool = False, keep: "bool | bytearray" = True) -> list:
    """The capture moves that end (R10), as legal_moves lists them; first_only: whether there is one, as
    a list of at most one move code (played in one scratch position, no child kept: the takasia checks)."""
    if first_only:
        starts = _capture_starts(p)
        k = p.rules.kuu
        if not starts or p.rules.infinite == "sleep" or (
                k and k[0] and (p.d[_PLACING] or p.d[STORE + p.d[TO_MOVE]] == _NEMO)):
            return starts[:1]  # M4: a never-ending move sleeps, a legal move; a placement drop always ends
        for m in starts:
            if _ends(p, m):
                return [m]
        return []
    out = []  # type: list
    flags = _NAMUA if p.d[STORE + p.d[TO_MOVE]] else 0
    for m in _capture_starts(p):
        _expand(p, m, out, flags, keep)
    return out


def _ends(p: Position, move: int) -> bool:
    """Whether `move` from p ends (R10), played on p.d itself, which is then put back as it was: no child
    kept, no position made (a new position costs about 0.17 ms of Pico time, the copy of p.d 0.06 ms).
    The checks of _finite_captures(first_only), R8's _takasia_pit and M18's bao.malawi.takasia: p is a
    position they are making (were _sow to raise, p.d would be left half-played)."""
    d = p.d
    before = bytes(d)
    ends = next(_sow(p, move, None, -1)) & END_MASK != END_INFINITE
    d[:] = before
    return ends


def _generate(p: Position, keep: "bool | bytearray") -> list:
    d = p.d
    if d[WINNER] != NONE:
        return []
    k = p.rules.kuu
    if k and k[0] and (d[_PLACING] or d[STORE + d[TO_MOVE]] == _NEMO):
        from bao import malawi as kuu_rules  # M20-M22: a placement drop

        return kuu_rules.moves(p, keep)
    s = d[TO_MOVE]
    namua = d[STORE + s] > 0
    out = _finite_captures(p, False, keep)  # 1.7a: captures are compulsory
    if out:
        return out
    flags = TAKASA | (_NAMUA if namua else 0)
    for m in _takasa_starts(p, True):
        _expand(p, m, out, flags, keep)
    if not out and not namua:
        for m in _takasa_starts(p, False):  # 3.5a: the back row only when the front row cannot
            _expand(p, m, out, flags, keep)
    return out


def legal_moves(p: Position, accounts: bool = False) -> list:
    """Every legal move with the position it leads to: a list of (move, child). The stop and the
    play-the-house choice of 2.5b are two moves. Empty when the game is over. With accounts, each
    candidate is played once with its account recorded: (move, child, account), the account compact
    (bytes, 4 a step: bao.explain.steps reads them)."""
    return _generate(p, bytearray() if accounts else True)


def legal_move_codes(p: Position) -> "list[int]":
    """The legal moves without their positions: what the board keeps (a few hundred bytes)."""
    return _generate(p, False)


def play(p: Position, move: int, rec: "bytearray | None" = None) -> Position:
    """The position after a legal move (as listed by legal_moves or legal_move_codes), with the
    takasia it makes. With rec (a bytearray, or an object with append and slice assignment, and a flush
    the core calls at each relay if it has one), the move's account is appended to it (4 bytes a step)."""
    child, _ = play_raw(p, move & IDENTITY, rec)
    if move & MAKES_TAKASIA:
        child.d[TAKASIA] = _takasia_pit(child)
    return child


def _takasia_pit(child: Position) -> int:
    """R8 / 4.1: after X's mtaji takasa, Y (to move in child) has no capture and X, if to move, could
    capture exactly one of Y's front pits first: that pit is takasia-ed, unless 4.1a/4.1c exempt it.
    Returns Y's ring or NONE."""
    k = child.rules.kuu
    if k:
        return k[5](child)  # type: ignore[no-any-return]  # M18: bao.malawi.takasia
    # The cheap conditions first (no sowing): most takasa moves fail one of them, and the others need
    # a capture played to its end to know it is finite.
    d = child.d
    y = d[TO_MOVE]
    ybase = y << 4
    occupied = multi = 0
    for n in d[ybase:ybase + 8]:
        if n:
            occupied += 1
            if n > 1:
                multi += 1
    if occupied == 1:
        return NONE  # 4.1a: the only occupied front pit
    house = d[HOUSE] & (1 << y)
    xme = (y ^ 1) << 4
    d[TO_MOVE] = y ^ 1  # X's captures: child seen with X to move for a moment (no copy)
    starts = _capture_starts(child)
    d[TO_MOVE] = y
    for m in starts:
        r = m & RING
        t = 7 - ((r + ring_direction(r, m & RIGHT) * d[xme + r]) & 15)  # Y's pit this capture takes first
        if not ((t == 4 and house) or (multi == 1 and d[ybase + t] > 1)):
            break
    else:
        return NONE  # every pit X could take first is exempt (4.1a, 4.1c), or there is none
    # R8: Y has a capture (a finite one, R10: _finite_captures(child, True) inlined); with never-ending
    # moves sleeping (M4, option infinite) every move ends
    play = child.rules.infinite != "sleep"
    for m in _capture_starts(child):
        if not play or _ends(child, m):
            return NONE
    # X's captures, each played to its end (only a finite one counts)
    target = NONE
    for m in starts:
        r = m & RING
        t = 7 - ((r + ring_direction(r, m & RIGHT) * d[xme + r]) & 15)
        if t == target:
            continue
        if play:
            d[TO_MOVE] = y ^ 1  # (child seen with X to move again, for _ends)
            ends = _ends(child, m)
            d[TO_MOVE] = y
            if not ends:
                continue
        if target != NONE or (t == 4 and house) or (multi == 1 and d[ybase + t] > 1):
            return NONE  # two or more targets, or one that is exempt (4.1a, 4.1c): no more to play
        target = t
    return target


def is_game_over(p: Position) -> bool:
    return p.d[WINNER] != NONE or not legal_moves(p)


def outcome(p: Position, moves: "list | None" = None) -> "int | None":
    """The winner if the game is over (1.2: front row emptied, possibly half-way through a move, or no
    legal move for the side to move), else None."""
    if p.d[WINNER] != NONE:
        return p.d[WINNER]
    if moves is None:
        moves = legal_moves(p)
    return None if moves else p.d[TO_MOVE] ^ 1


def __getattr__(name: str) -> object:
    """core.find_move, core.account, core.perft, core.seed_total, core.pit_index: the host's questions, in
    bao.query (loaded the first time one is asked for: the board never asks, so their code is not in its RAM;
    the board's SHOW finds a move through bao.notation, where find_move is). (is_game_over stays: with it
    this module has 74 globals, a table of 97; with 73 the table is full, and every name of a builtin its
    functions look up (range, len) probes all of it before it reaches the builtins: 4% slower.)"""
    if name.startswith("__"):  # (CPython's import asks for __path__ and the like: not a question)
        raise AttributeError(name)
    from bao import query

    return getattr(query, name)
