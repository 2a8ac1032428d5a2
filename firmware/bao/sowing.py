# The sowing engine: one move played on a position's bytes in place, with its step-by-step account, and the
# watch for a move that never ends (R10, M4). The hot path of the rules core: sow() is the loop over a
# move's relays; its steps are the first lift (_namua_lift, _mtaji_lift), the capture (_capture), the house
# and R9's ends (_landing, _house, _behind) and, on MicroPython, a native kernel for the plain stretch
# (_advance). The steps run at every move are @micropython.native: a bytecode function with more than 11
# words of locals and stack allocates its frame on the heap at each call, a native one does not.
#
# _advance sows the seeds one by one and does the relays and captures at which nothing else can happen,
# with their steps of the account (a bytearray's, up to _SCRATCH bytes a call); sow() keeps every decision (the
# end of a move, the houses, takasia, R9, Brent's check, the bound) and calls it again after each. CPython,
# and a recorder that takes the account relay by relay, run sow()'s bytecode alone. So the firmware's .mpy
# carry machine code made for the machine that runs them (mpy-cross -march: armv6m for a Pico, x64 and x86
# for the unix ports), loadable only on the MicroPython release whose mpy-cross made them
# (docs/rules.md, "Speed on the board"; docs/benchmarks.md).
try:
    import micropython  # (the compiler reads @micropython.viper and .native itself)
    from micropython import const

    _NATIVE = True
except ImportError:  # CPython: the decorators are no-ops, and there is no kernel
    _NATIVE = False

    class micropython:  # type: ignore[no-redef]  # (CPython's stand-in for the module)
        @staticmethod
        def native(f: "Callable") -> "Callable":
            return f

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr


# The builtins the hot path calls, as names of this module: MicroPython looks a name up in the module's dict,
# then searches the builtins' table one entry after another
from builtins import isinstance  # noqa: A004, UP029

from bao.layout import front_empty, write_step

try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Callable, Iterator  # noqa: F401

    from micropython import Const_T  # noqa: F401  (names of the stubs: these two fail on CPython too)

    from bao.position import Position, Rules  # noqa: F401
    from bao.protocols import Account  # noqa: F401
except ImportError:
    pass

# None, or what long work calls every few relays: the board serves its scan loop from it while a never-ending
# move (M4, R10) is played or listed (baoboard.app.App.serve sets it for the length of a step;
# docs/architecture.md, Timing budgets). Called at each capture and at Brent's save points (where the native
# kernel returns from its longest stretches), and by bao.rules' searches for a never-ending move's first
# repeat.
serve = None  # type: Callable[[], None] | None

ENDED = const(128)  # sow()'s last yield: its status | ENDED (a relay's key is below 32)
STEPS = const(0)  # sow()'s stop_after: no checks, a yield at every relay (M4's searches)
_NO_BOUND = const(1 << 29)  # seeds a move may drop when the game has no bound (sow_bound 0)
# The kernel's account scratch: its first sowing and up to 15 relays or captures, each with its sowing (4 bytes
# a step): the kernel plays up to the first Brent save point (relay 8) in one call, and a capture's chain on.
_SCRATCH = const(4 + 8 * 15)

# bao.layout's numbers that the hot path reads, as constants the compiler folds into the bytecode
# (MicroPython reads an imported name from a dictionary at each use): each is the layout's own,
# checked by tests/host/test_rules_structure.py.
_BOUNDED = const(64)  # layout.BOUNDED
_CAPTURING = const(16)  # layout.CAPTURING
_DECISION = const(32)  # layout.DECISION
_END_EMPTY = const(0)  # layout.END_EMPTY
_END_HOUSE = const(1)  # layout.END_HOUSE
_END_HOUSE_STOP = const(2)  # layout.END_HOUSE_STOP
_END_INFINITE = const(7)  # layout.END_INFINITE
_END_OPP_FRONT_EMPTY = const(5)  # layout.END_OPP_FRONT_EMPTY
_END_OWN_FRONT_EMPTY = const(4)  # layout.END_OWN_FRONT_EMPTY
_END_SLEEP = const(6)  # layout.END_SLEEP
_END_TAKASIA = const(3)  # layout.END_TAKASIA
_HOUSE = const(34)  # layout.HOUSE
_IN_HAND = const(38)  # layout.IN_HAND
_MARK_KUU = const(16)  # layout.MARK_KUU
_PLAY = const(32)  # layout.PLAY
_RIGHT = const(16)  # layout.RIGHT
_RING = const(15)  # layout.RING
_STEP_CAPTURE = const(5)  # layout.STEP_CAPTURE
_STEP_END = const(8)  # layout.STEP_END
_STEP_HOUSE = const(7)  # layout.STEP_HOUSE
_STEP_LIFT = const(2)  # layout.STEP_LIFT
_STEP_RELAY = const(6)  # layout.STEP_RELAY
_STEP_SOW = const(4)  # layout.STEP_SOW
_STEP_STORE = const(1)  # layout.STEP_STORE
_STEP_TAX = const(3)  # layout.STEP_TAX
_STORE = const(32)  # layout.STORE
_TAKASIA = const(36)  # layout.TAKASIA
_TO_MOVE = const(35)  # layout.TO_MOVE
_WINNER = const(37)  # layout.WINNER



if _NATIVE:

    # _advance: sow()'s plain stretch, native. Sow the k seeds in hand on from pit p (me + ring; bit 5 set:
    # anti-clockwise), then capture and relay on while only a capture that leaves the opponent a front row,
    # or a relay, can happen where the last seed falls: no end (1.5), not the owned house, not the
    # takasia-ed ring, not Brent's saved key, no sowing round the row's end next (R9's check), at most
    # `limit` relays more (sow() checks the next one), and the bound not passed: `budget` is the seeds the
    # move may still drop (R10, M4: every seed sown counts). x: bit 0 capturing, bit 1 a capture empties
    # both houses (R6), bit 2 the capture's kuu mark, bits 3-10 the takasia-ed ring, bits 11-16 the saved
    # key + 1. Each step's 4 bytes (STEP_SOW, STEP_RELAY, STEP_CAPTURE) go into rec from offset a, _SCRATCH bytes
    # at most (a < 0: no account); d[34] is HOUSE. Returns the ring the last seed fell in | bit 4:
    # anti-clockwise | captures << 5 | relays << 8 | seeds sown << 14.
    @micropython.viper
    def _advance(d: ptr8, rec: ptr8, a: int, p: int, k: int, x: int, limit: int,  # noqa: F821, PLR0915 (viper)
                 budget: int) -> int:
        """sow()'s plain stretch, native (the comment above)."""
        me = p & 16
        pos = p & 15
        step = 1 - ((p >> 4) & 2)  # bit 5: -1
        op = me ^ 16
        key0 = (x >> 11) - 1
        end = a + _SCRATCH - 8  # room for one more relay or capture and its sowing
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
            seeds += k
            budget -= k
            while k > 0:
                pos = (pos + step) & 15
                d[me + pos] += 1
                k -= 1
            c = int(d[me + pos])
            if c == 1 or a > end:
                break  # the move ends here (1.5), or no room for the next steps
            if x & 1 and pos < 8 and int(d[op + 7 - pos]):  # capturing
                t = op + 7 - pos  # 1.4, 1.6c: capture the opposite pit, sow it in from a kichwa
                i = op
                while i < op + 8 and (i == t or d[i] == 0):
                    i += 1
                if i == op + 8:
                    break  # the capture empties the opponent's front row: the move ends (1.2), sow()'s end
                k = int(d[t])
                d[t] = 0
                if pos == 3:
                    d[34] = int(d[34]) & (255 - (1 << (op >> 4)))  # 2.5a: the opponent's house emptied
                if x & 2:
                    d[34] = 0  # R6
                kichwa = 7
                if pos < 2 or (pos < 6 and step == 1):
                    kichwa = 0
                step = 1 - ((kichwa >> 2) << 1)  # from the left kichwa clockwise, from the right anti-clockwise
                if a >= 0:
                    rec[a] = 5 | ((x & 4) << 2)  # STEP_CAPTURE (| MARK_KUU), pit, n, kichwa
                    rec[a + 1] = t
                    rec[a + 2] = k
                    rec[a + 3] = me + kichwa
                    a += 4
                pos = (kichwa - step) & 15
                caps += 1
                continue
            if pos == 4 and int(d[34]) & (1 << (me >> 4)):
                break  # the owned house (2.5b, R5; M12, M15)
            if pos == (x >> 3) & 255:
                break  # 4.1b, M18
            key = pos
            if step < 0:
                key = pos | 16
            if key == key0 or done == limit or budget < 0:
                break  # maybe the state Brent saved; a relay sow() checks; the bound passed
            if (pos == 7 and step == 1) or (pos == 0 and step == -1):
                break  # the next sowing starts behind: R9's check is sow()'s
            done += 1
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

else:
    _advance = None  # type: ignore[assignment]  # (no kernel on CPython: sow() checks for None)
_buf = None  # the kernel's account scratch: views of its first 4, 12, 20 ... _SCRATCH bytes (made at first use)


def _scratch(rec: "Account | None") -> "tuple | None":
    """The kernel's account scratch for rec, or None when the kernel cannot write rec's steps: no kernel
    (CPython), or a recorder that is not a bytearray (baoboard.recogniser takes the account relay by relay)."""
    global _buf
    if _advance is None or not isinstance(rec, bytearray):
        return None
    if _buf is None:
        # (whole views made once: a slice at each call would be an object allocated right behind the
        # account, which then could not grow in place; a long account would be copied instead)
        b = memoryview(bytearray(_SCRATCH))
        _buf = tuple(b[: 4 + 8 * i] for i in range(_SCRATCH // 8 + 1))
    return _buf


@micropython.native
def _namua_lift(d: bytearray, me: int, r: int, right: int, kuu: bool, rec: "Account | None") -> int:
    """The first step of a namua (or nemo) move: the store's seed into ring r (2.2), then a capture at once
    (2.3) or the seeds to sow (2.4b, R4: the house's tax; M13, M14: the kuu's). Returns the seeds in hand |
    (direction + 1) << 8 (0: a capture chooses it at its kichwa, R3) | the kernel's flags << 10 (_advance:
    bit 0 capturing, bit 1 a capture empties both houses, R6, bit 2 a capture's step is the kuu rules')."""
    s = me >> 4
    hbit = 1 << s
    kt = _MARK_KUU if kuu else 0
    d[_STORE + s] -= 1
    d[me + r] += 1
    if rec is not None:
        write_step(rec, _STEP_STORE | kt, me + r, 0, 0)
    mark = 4 << 10 if kuu else 0  # the kernel's flag: a capture's step carries MARK_KUU (bao.explain: M10)
    if d[(me ^ 16) + 7 - r]:
        return 1 << 8 | 1 << 10 | mark  # 2.3: the seed lands opposite a non-empty pit: capture at once
    direction = 2 if right else 0
    if kuu and r == 4 and d[_HOUSE] & hbit:
        # M13: the lone kuu is taxed two seeds; M14: with exactly 8 before the nemo all 9 are sown
        hand = 9 if d[me + 4] == 9 else 2
        d[me + 4] -= hand
        if rec is not None:
            write_step(rec, (_STEP_LIFT if hand == 9 else _STEP_TAX) | kt, me + 4, hand, 0)
        if not d[me + 4]:
            d[_HOUSE] &= ~hbit  # M16: emptied (also by a tax of its last seed)
        return hand | direction << 8 | mark
    if r == 4 and d[_HOUSE] & hbit and d[me + 4] > 6:
        d[me + 4] -= 2  # 2.4b, R4: the 2-seed tax; the house stays owned
        if rec is not None:
            write_step(rec, _STEP_TAX, me + 4, 2, 0)
        return 2 | direction << 8 | mark
    hand = d[me + r]
    d[me + r] = 0
    if r == 4:
        d[_HOUSE] &= ~hbit  # 2.5a: emptied
    if rec is not None:
        write_step(rec, _STEP_LIFT, me + r, hand, 0)
    return hand | direction << 8 | mark


@micropython.native
def _mtaji_lift(d: bytearray, me: int, r: int, right: int, kuu: bool, rec: "Account | None") -> int:
    """The first step of a mtaji (second-stage) move: lift ring r. As _namua_lift returns."""
    hbit = 1 << (me >> 4)
    if r < 8:
        direction = 1 if right else -1  # G6 (bao.layout.ring_direction, inlined: the hot path)
    else:
        direction = -1 if right else 1
    hand = d[me + r]
    d[me + r] = 0
    if r == 4:
        d[_HOUSE] &= ~hbit
    capturing = 0
    if 2 <= hand <= 15:  # 3.4: a capture move lifts 2..15 seeds and its first sowing ends in a capture
        e = (r + direction * hand) & 15
        if e < 8 and d[me + e] and d[(me ^ 16) + 7 - e]:
            capturing = 1
    if kuu and not capturing:
        d[_HOUSE] &= ~hbit  # M17: the first takata of the second stage ends the kuu's status
    if rec is not None:
        write_step(rec, _STEP_LIFT, me + r, hand, 0)
    return hand | (direction + 1) << 8 | capturing << 10 | (0 if kuu else 2 << 10)  # R6: not in the kuu games


@micropython.native
def _capture(d: bytearray, me: int, pos: int, direction: int, move: int, mark: int, r6: int,
             rec: "Account | None") -> int:
    """1.4, 1.6c: the last seed fell in front ring pos, facing seeds: capture them, to be sown in from a
    kichwa (1.4a/b, R3). Returns the seeds captured | (direction + 1) << 8, the direction they are sown in;
    -1 when the capture emptied the opponent's front row: the mover has won (1.2, R9)."""
    if serve is not None:  # (a never-ending move's captures: the board's scan loop is served between them)
        serve()
    op = me ^ 16
    t = op + 7 - pos
    n = d[t]
    d[t] = 0
    if pos == 3:
        d[_HOUSE] &= ~(1 << (op >> 4))  # 2.5a: the opponent's house is emptied
    if r6:
        d[_HOUSE] = 0  # R6: the first capture of the mtaji stage ends both houses (not M17)
    if pos < 2 or (pos < 6 and (direction == 1 or (direction == 0 and not move & _RIGHT))):
        k, direction = 0, 1  # 1.4a/b, R3: from the left kichwa (pit 1) clockwise
    else:
        k, direction = 7, -1  # from the right kichwa (pit 8) anti-clockwise
    if rec is not None:
        write_step(rec, _STEP_CAPTURE | mark, t, n, me + k)
    if front_empty(d, op):
        if rec is not None:
            write_step(rec, _STEP_END, t, _END_OPP_FRONT_EMPTY, 0)
        d[_WINNER] = me >> 4
        d[_IN_HAND] = n
        return -1
    return n | (direction + 1) << 8


def _house(d: bytearray, me: int, capturing: int, move: int, mark: int, rec: "Account | None") -> int:
    """The sowing ended in the owned house where it may stop (2.5b, R5; M12, M15): the move's status, or -1
    when it plays the house on."""
    if not capturing:
        if rec is not None:
            write_step(rec, _STEP_END | mark, me + 4, _END_HOUSE, 0)
        return _END_HOUSE  # 2.5b(1), R5; M12: a nemo takata sleeps in the kuu
    if not move & _PLAY:
        if rec is not None:
            write_step(rec, _STEP_HOUSE | mark, me + 4, 0, 0)
            write_step(rec, _STEP_END | mark, me + 4, _END_HOUSE_STOP, 0)
        return _END_HOUSE_STOP | _CAPTURING | _DECISION  # 2.5b(2); M15: sleep in or relay the kuu
    if rec is not None:
        write_step(rec, _STEP_HOUSE | mark, me + 4, 1, 0)
    return -1


def _behind(d: bytearray, me: int, pos: int, direction: int, hand: int, rec: "Account | None") -> int:
    """R9: the next seed goes round the row's end while the front row is empty: the mover loses at once."""
    pos = (pos + direction) & 15
    d[me + pos] += 1
    if rec is not None:
        write_step(rec, _STEP_SOW, me + pos, direction, 1)
        write_step(rec, _STEP_END, me + pos, _END_OWN_FRONT_EMPTY, 0)
    d[_WINNER] = (me >> 4) ^ 1
    d[_IN_HAND] = hand - 1
    return _END_OWN_FRONT_EMPTY


def _verdict(status: int, left: int, rules: "Rules", relays: int) -> int:
    """sow()'s last yield for a move that ended by itself: R10 makes it never-ending when it has dropped
    more seeds than the bound (left < 0); under M4 it ended before the relay at which it would sleep."""
    if left < 0 and rules.infinite != "sleep":
        return _END_INFINITE | _BOUNDED | (relays << 8) | ENDED
    return status | ENDED


# sow(p, move, rec, stop_after) plays `move` on p.d in place; with rec, each step of the account is appended
# to it. It returns a generator whose one yield is the status | ENDED (END_MASK bits: END_*, plus CAPTURING
# and DECISION). A never-ending move (status END_INFINITE; p is then garbage) is found exactly by Brent's
# cycle detection on the state at each relay, in constant memory (above bit 8: the loop's length), or is
# taken as one once it has dropped more seeds than the game's bound since it began: the store's seed, the
# first sowing's and the captured seeds' count (R10, 1.5a; BOUNDED, above bit 8 the relay at which it
# stopped). A finite move that passed the bound is never-ending too. Under M4 (infinite "sleep") a move that
# passed it sleeps at the next relay, the end of the sowing that passed it (END_SLEEP | BOUNDED;
# bao.rules.play_raw checks that its state did not repeat before), and one that ends by itself before that
# relay ends so: stop_after -1, the default. stop_after > 0 ends the move at that relay (M4's sleep, no
# bound). stop_after STEPS: no check, a yield of the key (the state before the lift, with p.d) at every
# relay, then the status (M4's searches step two runs). The checks are here, not in a caller driving the
# generator relay by relay: a resumption and the caller's loop would cost more. Brent's first saved state is
# at relay 8, not 1: most moves end before it, with no copy of the state allocated (the loop and its exact
# length are found from any relay on; bao.rules finds where it starts). The kernel's flags: capturing, R6
# (the mtaji stage, not the kuu games), the capture's kuu mark (the nemo stage), the takasia-ed ring; above
# bit 10, Brent's saved key + 1.
def sow(p: "Position", move: int, rec: "Account | None", stop_after: int = -1) -> "Iterator[int]":  # noqa: PLR0915
    """Play `move` on p.d (a bao.position.Position's) in place: the generator described above."""
    d = p.d
    rules = p.rules
    me = d[_TO_MOVE] << 4
    namua = d[_STORE + (me >> 4)] > 0
    pos = move & _RING
    first = (_namua_lift if namua else _mtaji_lift)(d, me, pos, move & _RIGHT, rules.kuu is not None, rec)
    hand = first & 255
    direction = ((first >> 8) & 3) - 1
    capturing = (first >> 6) & _CAPTURING  # CAPTURING or 0
    flags = (first >> 10) | (d[_TAKASIA] << 3)
    bounded = 1 if stop_after < 0 and rules.sow_bound > 0 else 0
    left = rules.sow_bound - (1 if namua else 0) if bounded else _NO_BOUND  # the store's seed counts (2.2)
    saved = None  # Brent's state, saved at relays 8, 24, 56... (most moves end before 8: nothing copied)
    next_save = -1 if stop_after == STEPS else 8  # -1: stepping, no check (M4's searches compare the states)
    relays = 0
    fast = _advance if rec is None or _scratch(rec) is not None else None  # (with an account: _buf, its scratch)
    limit = 1 if next_save < 0 else stop_after if 0 < stop_after < 8 else 8  # the kernel leaves this relay to sow()
    while True:
        if hand:
            if ((pos == 7 and direction == 1) or (pos == 0 and direction == -1)) and front_empty(d, me):
                yield _verdict(_behind(d, me, pos, direction, hand, rec) | capturing, left, rules, relays)
                return
            if fast is None:  # bytecode: the seeds one by one (CPython, or a recorder relay by relay)
                if rec is not None:
                    write_step(rec, _STEP_SOW, me + ((pos + direction) & 15), direction, hand)
                for _ in range(hand):
                    pos = (pos + direction) & 15
                    d[me + pos] += 1
                left -= hand * bounded  # the seeds dropped
            else:  # the kernel; with an account, its steps (a sowing, two a relay or capture) via its scratch
                n = fast(d, d if rec is None else _buf[-1], -1 if rec is None else 0, me + pos + (direction & 32),  # type: ignore[index, arg-type]  # (_buf is made with fast: _scratch; ptr8)
                         hand, flags, limit - relays - 1, left)
                if rec is not None:
                    rec.extend(_buf[((n >> 5) & 7) + ((n >> 8) & 63)])  # type: ignore[index, attr-defined]  # (a bytearray rec, _scratch)
                pos = n & 15
                direction = 1 - ((n >> 3) & 2)
                relays += (n >> 8) & 63
                left -= (n >> 14) * bounded  # the seeds dropped
        c = d[me + pos]
        if c == 1:
            if rec is not None:
                write_step(rec, _STEP_END, me + pos, _END_EMPTY, 0)
            status = _END_EMPTY | capturing  # 1.5
        elif capturing and pos < 8 and d[(me ^ 16) + 7 - pos]:
            hand = _capture(d, me, pos, direction, move, flags & 4 and _MARK_KUU, flags & 2, rec)
            if hand >= 0:
                direction = (hand >> 8) - 1
                pos = 15 if direction > 0 else 8  # one step before the kichwa the seeds are sown in from
                hand &= 255
                continue
            status = _END_OPP_FRONT_EMPTY | _CAPTURING
        else:
            status = _landing(d, me, pos, capturing, move, rules, namua, rec) if (
                (pos == 4 and d[_HOUSE] & (1 << (me >> 4))) or pos == (flags >> 3) & 255) else -1
        if status >= 0:
            yield _verdict(status, left, rules, relays) if left < 0 else status | ENDED
            return
        key = pos if direction > 0 else pos | 16  # with d, the state before the lift
        relays += 1
        if next_save < 0:  # stepping
            yield key
            limit = relays + 1
        elif relays == stop_after or left < 0:
            yield _stop(rec, me + pos, relays, left < 0, rules.infinite == "sleep")  # M4, or R10's bound
            return
        elif key + 1 == flags >> 11 and d == saved:  # Brent: the state repeats, a loop since the last save
            yield _END_INFINITE | ((relays - (next_save - 8) // 2) << 8) | ENDED
            return
        if relays == next_save:
            saved = _copy(saved, d)
            flags = (flags & 2047) | ((key + 1) << 11)  # the saved key + 1
            next_save = relays + relays + 8
            limit = stop_after if 0 < stop_after < next_save else next_save
        hand = c  # 1.6: endelea
        d[me + pos] = 0
        d[_HOUSE] &= ~((pos == 4) << (me >> 4))  # 2.5a: a relay from the house empties it (played, sown out)
        if rec is not None:
            _relay_step(rec, me + pos, hand)


def _relay_step(rec: "Account", pit: int, n: int) -> None:
    """STEP_RELAY into the account; a recorder that takes it relay by relay is told (flush)."""
    add = rec.append
    add(_STEP_RELAY)
    add(pit)
    add(n)
    add(0)
    flush = getattr(rec, "flush", None)
    if flush is not None:
        flush()


@micropython.native
def _landing(d: bytearray, me: int, pos: int, capturing: int, move: int, rules: "Rules", namua: int,
             rec: "Account | None") -> int:
    """The last seed fell in the owned house or the takasia-ed pit, no capture: the move's status if it ends
    there (the house, 2.5b, R5, M12, M15; the takasia-ed pit, 4.1b, M18), else -1 (a relay)."""
    kuu = rules.kuu is not None
    if pos == 4 and d[_HOUSE] & (1 << (me >> 4)) and (namua or rules.mtaji_takasa_house_stop) and (
            d[me + 4] >= (0 if kuu else 6) or (capturing and rules.house_stop_any_count)):
        # 2.5b: 6+ seeds stop a namua sowing; M12, M15: the kuu whatever it holds
        return _house(d, me, capturing, move, _MARK_KUU if kuu else 0, rec)
    if pos == d[_TAKASIA] and not capturing:
        if rec is not None:
            write_step(rec, _STEP_END | (_MARK_KUU if kuu else 0), me + pos, _END_TAKASIA, 0)
        return _END_TAKASIA  # 4.1b; M18: a sowing ending in the threatened pit ends the move
    return -1


def _stop(rec: "Account | None", pit: int, relays: int, over: bool, sleep: bool) -> int:
    """The move stops at this relay, where it sleeps (M4: stop_after, or the bound passed, `over`) or, over
    the bound without M4, is never-ending (R10)."""
    if over and not sleep:
        return _END_INFINITE | _BOUNDED | (relays << 8) | ENDED
    if rec is not None:
        write_step(rec, _STEP_END, pit, _END_SLEEP, 0)
    return _END_SLEEP | (_BOUNDED | (relays << 8) if over else 0) | ENDED


def _copy(saved: "bytearray | None", d: bytearray) -> bytearray:
    """Brent's saved state: a copy of d, into the one made at the first save. A save point is where the
    kernel returned after its longest stretches: the board's scan loop is served there (serve)."""
    if serve is not None:
        serve()
    if saved is None:
        return bytearray(d)
    saved[:] = d
    return saved
