# The sowing engine: one move played on a position's bytes in place, with its step-by-step account, and the
# watch for a move that never ends (R10, M4). The hot path of the rules core: sow() is the loop over a
# move's relays; its steps are the first lift (_namua_lift, _mtaji_lift), the capture (_capture), the house
# and R9's ends (_house, _behind) and, on MicroPython, a native kernel for the plain stretch (_advance).
#
# _advance sows the seeds one by one and does the relays and captures at which nothing else can happen,
# with their steps of the account (a bytearray's, up to 36 bytes a call); sow() keeps every decision (the
# end of a move, the houses, takasia, R9, Brent's check, the bound) and calls it again after each. CPython,
# and a recorder that takes the account relay by relay, run sow()'s bytecode alone. So the firmware's .mpy
# carry machine code made for the machine that runs them (mpy-cross -march: armv6m for a Pico, x64 and x86
# for the unix ports), loadable only on the MicroPython release whose mpy-cross made them
# (docs/rules.md, "Speed on the board"; docs/benchmarks.md).
try:
    import micropython  # (the compiler reads @micropython.viper itself; the name says which Python this is)
    from micropython import const
except ImportError:  # CPython
    micropython = None  # type: ignore[assignment]

    def const(x: int) -> int:  # type: ignore[misc]
        return x


from bao.layout import (
    BOUNDED,
    CAPTURING,
    DECISION,
    END_EMPTY,
    END_HOUSE,
    END_HOUSE_STOP,
    END_INFINITE,
    END_OPP_FRONT_EMPTY,
    END_OWN_FRONT_EMPTY,
    END_SLEEP,
    END_TAKASIA,
    HOUSE,
    IN_HAND,
    MARK_KUU,
    PLAY,
    RIGHT,
    RING,
    STEP_CAPTURE,
    STEP_END,
    STEP_HOUSE,
    STEP_LIFT,
    STEP_RELAY,
    STEP_SOW,
    STEP_STORE,
    STEP_TAX,
    STORE,
    TAKASIA,
    TO_MOVE,
    WINNER,
    front_empty,
    write_step,
)

ENDED = const(128)  # sow()'s last yield: its status | ENDED (a relay's key is below 32)
STEPS = const(0)  # sow()'s stop_after: no checks, a yield at every relay (M4's searches)
_NO_BOUND = const(1 << 29)  # seeds a move may drop when the game has no bound (sow_bound 0)


if micropython:

    @micropython.viper
    def _advance(d: ptr8, rec: ptr8, a: int, p: int, k: int, x: int, limit: int,  # noqa: F821 (viper)
                 budget: int) -> int:
        """sow()'s plain stretch, native: sow the k seeds in hand on from pit p (me + ring; bit 5 set:
        anti-clockwise), then capture and relay on while only a capture that leaves the opponent a front
        row, or a relay, can happen where the last seed falls: no end (1.5), not the owned house, not the
        takasia-ed ring, not Brent's saved key, no sowing round the row's end next (R9's check), at most
        `limit` relays more (sow() checks the next one), and the bound not passed: `budget` is the seeds the
        move may still drop (R10, M4: every seed sown counts). x: bit 0 capturing, bit 1 a capture empties
        both houses (R6), bit 2 the capture's kuu mark, bits 3-10 the takasia-ed ring, bits 11-16 the saved
        key + 1. Each step's 4 bytes (STEP_SOW, STEP_RELAY, STEP_CAPTURE) go into rec from offset a, 36
        bytes at most (a < 0: no account); d[34] is HOUSE. Returns the ring the last seed fell in | bit 4:
        anti-clockwise | captures << 5 | relays << 8 | seeds sown << 14."""
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
            seeds += k
            budget -= k
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
            if pos == 4 and int(d[34]) & hbit:
                break  # the owned house (2.5b, R5; M12, M15)
            if pos == takasia:
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
    _advance = None  # type: ignore[assignment]
_buf = None  # the kernel's account scratch: views of its first 4, 12, 20, 28 and 36 bytes (made at first use)


def _scratch(rec: object) -> "tuple | None":
    """The kernel's account scratch for rec, or None when the kernel cannot write rec's steps: no kernel
    (CPython), or a recorder that is not a bytearray (baoboard.recogniser takes the account relay by relay)."""
    global _buf
    if _advance is None or not isinstance(rec, bytearray):
        return None
    if _buf is None:
        # (whole views made once: a slice at each call would be an object allocated right behind the
        # account, which then could not grow in place; a long account would be copied instead)
        b = memoryview(bytearray(36))
        _buf = (b[:4], b[:12], b[:20], b[:28], b)  # type: ignore[assignment]
    return _buf


def _namua_lift(d: bytearray, me: int, r: int, right: int, kuu: bool, rec: "bytearray | None") -> int:
    """The first step of a namua (or nemo) move: the store's seed into ring r (2.2), then a capture at once
    (2.3) or the seeds to sow (2.4b, R4: the house's tax; M13, M14: the kuu's). Returns the seeds in hand |
    (direction + 1) << 8 | capturing << 10 (direction 0: a capture chooses it at its kichwa, R3)."""
    s = me >> 4
    hbit = 1 << s
    kt = MARK_KUU if kuu else 0
    d[STORE + s] -= 1
    d[me + r] += 1
    if rec is not None:
        write_step(rec, STEP_STORE | kt, me + r, 0, 0)
    if d[(me ^ 16) + 7 - r]:
        return 1 << 8 | 1 << 10  # 2.3: the seed lands opposite a non-empty pit: capture at once
    direction = 2 if right else 0
    if kuu and r == 4 and d[HOUSE] & hbit:
        # M13: the lone kuu is taxed two seeds; M14: with exactly 8 before the nemo all 9 are sown
        hand = 9 if d[me + 4] == 9 else 2
        d[me + 4] -= hand
        if rec is not None:
            write_step(rec, (STEP_LIFT if hand == 9 else STEP_TAX) | kt, me + 4, hand, 0)
        if not d[me + 4]:
            d[HOUSE] &= ~hbit  # M16: emptied (also by a tax of its last seed)
        return hand | direction << 8
    if r == 4 and d[HOUSE] & hbit and d[me + 4] > 6:
        d[me + 4] -= 2  # 2.4b, R4: the 2-seed tax; the house stays owned
        if rec is not None:
            write_step(rec, STEP_TAX, me + 4, 2, 0)
        return 2 | direction << 8
    hand = d[me + r]
    d[me + r] = 0
    if r == 4:
        d[HOUSE] &= ~hbit  # 2.5a: emptied
    if rec is not None:
        write_step(rec, STEP_LIFT, me + r, hand, 0)
    return hand | direction << 8


def _mtaji_lift(d: bytearray, me: int, r: int, right: int, kuu: bool, rec: "bytearray | None") -> int:
    """The first step of a mtaji (second-stage) move: lift ring r. As _namua_lift returns."""
    hbit = 1 << (me >> 4)
    if r < 8:
        direction = 1 if right else -1  # G6 (bao.layout.ring_direction, inlined: the hot path)
    else:
        direction = -1 if right else 1
    hand = d[me + r]
    d[me + r] = 0
    if r == 4:
        d[HOUSE] &= ~hbit
    capturing = 0
    if 2 <= hand <= 15:  # 3.4: a capture move lifts 2..15 seeds and its first sowing ends in a capture
        e = (r + direction * hand) & 15
        if e < 8 and d[me + e] and d[(me ^ 16) + 7 - e]:
            capturing = 1
    if kuu and not capturing:
        d[HOUSE] &= ~hbit  # M17: the first takata of the second stage ends the kuu's status
    if rec is not None:
        write_step(rec, STEP_LIFT, me + r, hand, 0)
    return hand | (direction + 1) << 8 | capturing << 10


def _capture(d: bytearray, me: int, pos: int, direction: int, move: int, mark: int, r6: bool,
             rec: "bytearray | None") -> int:
    """1.4, 1.6c: the last seed fell in front ring pos, facing seeds: capture them, to be sown in from a
    kichwa (1.4a/b, R3). Returns the seeds captured | (direction + 1) << 8, the direction they are sown in;
    -1 when the capture emptied the opponent's front row: the mover has won (1.2, R9)."""
    op = me ^ 16
    t = op + 7 - pos
    n = d[t]
    d[t] = 0
    if pos == 3:
        d[HOUSE] &= ~(1 << (op >> 4))  # 2.5a: the opponent's house is emptied
    if r6:
        d[HOUSE] = 0  # R6: the first capture of the mtaji stage ends both houses (not M17)
    if pos < 2 or (pos < 6 and (direction == 1 or (direction == 0 and not move & RIGHT))):
        k, direction = 0, 1  # 1.4a/b, R3: from the left kichwa (pit 1) clockwise
    else:
        k, direction = 7, -1  # from the right kichwa (pit 8) anti-clockwise
    if rec is not None:
        write_step(rec, STEP_CAPTURE | mark, t, n, me + k)
    if front_empty(d, op):
        if rec is not None:
            write_step(rec, STEP_END, t, END_OPP_FRONT_EMPTY, 0)
        d[WINNER] = me >> 4
        d[IN_HAND] = n
        return -1
    return n | (direction + 1) << 8


def _house(d: bytearray, me: int, capturing: bool, move: int, mark: int, rec: "bytearray | None") -> int:
    """The sowing ended in the owned house where it may stop (2.5b, R5; M12, M15): the move's status, or -1
    when it plays the house on."""
    if not capturing:
        if rec is not None:
            write_step(rec, STEP_END | mark, me + 4, END_HOUSE, 0)
        return END_HOUSE  # 2.5b(1), R5; M12: a nemo takata sleeps in the kuu
    if not move & PLAY:
        if rec is not None:
            write_step(rec, STEP_HOUSE | mark, me + 4, 0, 0)
            write_step(rec, STEP_END | mark, me + 4, END_HOUSE_STOP, 0)
        return END_HOUSE_STOP | CAPTURING | DECISION  # 2.5b(2); M15: sleep in or relay the kuu
    if rec is not None:
        write_step(rec, STEP_HOUSE | mark, me + 4, 1, 0)
    return -1


def _behind(d: bytearray, me: int, pos: int, direction: int, hand: int, rec: "bytearray | None") -> int:
    """R9: the next seed goes round the row's end while the front row is empty: the mover loses at once."""
    pos = (pos + direction) & 15
    d[me + pos] += 1
    if rec is not None:
        write_step(rec, STEP_SOW, me + pos, direction, 1)
        write_step(rec, STEP_END, me + pos, END_OWN_FRONT_EMPTY, 0)
    d[WINNER] = (me >> 4) ^ 1
    d[IN_HAND] = hand - 1
    return END_OWN_FRONT_EMPTY


def _verdict(status: int, left: int, sleep: bool, relays: int) -> int:
    """sow()'s last yield for a move that ended by itself: R10 makes it never-ending when it has dropped
    more seeds than the bound (left < 0); under M4 it ended before the relay at which it would sleep."""
    if left < 0 and not sleep:
        return END_INFINITE | BOUNDED | (relays << 8) | ENDED
    return status | ENDED


def sow(p: object, move: int, rec: "bytearray | None", stop_after: int):  # type: ignore[no-untyped-def]
    """Play `move` on p.d in place (p: a bao.position.Position); with rec, each step of the account is
    appended to it. A generator whose one yield is the status | ENDED (END_MASK bits: END_*, plus CAPTURING
    and DECISION). A never-ending move (status END_INFINITE; p is then garbage) is found exactly by Brent's
    cycle detection on the state at each relay, in constant memory (above bit 8: the loop's length), or is
    taken as one once it has dropped more seeds than the game's bound since it began, the first sowing's
    and the captured seeds' included (R10, 1.5a; BOUNDED, above bit 8 the relay at which it stopped). A
    finite move that passed the bound is never-ending too; under M4 (infinite "sleep") a move that passed
    it sleeps at the next relay (END_SLEEP | BOUNDED; bao.rules.play_raw checks that its state did not
    repeat before) and a move that ends by itself before that relay ends so. stop_after > 0 ends the move
    at that relay (M4's sleep, no bound). stop_after STEPS: no check, a yield of the key (the state before
    the lift, with p.d) at every relay, then the status (M4's searches step two runs). The checks are here,
    not in a caller driving the generator relay by relay: a resumption and the caller's loop cost more."""
    d = p.d  # type: ignore[attr-defined]
    rules = p.rules  # type: ignore[attr-defined]
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    hbit = 1 << s
    kuu = rules.kuu is not None
    namua = d[STORE + s] > 0
    if namua:
        first = _namua_lift(d, me, move & RING, move & RIGHT, kuu, rec)
    else:
        first = _mtaji_lift(d, me, move & RING, move & RIGHT, kuu, rec)
    hand = first & 255
    direction = ((first >> 8) & 3) - 1
    capturing = first >> 10
    pos = move & RING
    house_rules = namua or rules.mtaji_takasa_house_stop
    house_min = 0 if kuu else 6  # 2.5b: 6+ seeds stop a namua sowing; M12, M15: the kuu whatever it holds
    any_count = rules.house_stop_any_count
    mark = MARK_KUU if kuu and namua else 0  # the account's mark of a nemo-stage step (bao.explain: M9-M18)
    takasia = d[TAKASIA]
    steps = stop_after == STEPS
    if steps:
        stop_after = 1
    bound = rules.sow_bound if stop_after < 0 else 0
    left = (bound - (1 if namua else 0)) if bound else _NO_BOUND  # the store's seed is dropped too (2.2)
    sleep = rules.infinite == "sleep"
    # Brent's first saved state at relay 8, not 1: most moves end before it, with no copy of the state
    # allocated (the loop and its exact length are found from any relay on; bao.rules finds its start)
    saved = None
    saved_key = -1
    saved_at = relays = 0
    power = 8
    next_save = -1 if steps else power  # stepping: no check (M4's searches compare the states)
    flush = getattr(rec, "flush", None)  # a recorder may take the account relay by relay
    add = rec.append if rec is not None else None  # (a bound method: the account's hot steps)
    bufs = _scratch(rec) if rec is not None else None
    fast = _advance if rec is None or bufs is not None else None
    out = d if bufs is None else bufs[4]  # where the kernel writes the account's steps (from offset at)
    at = -1 if bufs is None else 0
    # the kernel's flags (_advance) and the next relay it must leave to the checks below
    flags = capturing | (0 if namua or kuu else 2) | (mark >> 2) | (takasia << 3)
    limit = stop_after if stop_after > 0 and (next_save < 0 or stop_after < next_save) else next_save
    while True:
        if hand:
            if ((pos == 7 and direction == 1) or (pos == 0 and direction == -1)) and front_empty(d, me):
                status = _behind(d, me, pos, direction, hand, rec) | (CAPTURING if capturing else 0)
                yield _verdict(status, left, sleep, relays)
                return
            if fast is not None:
                n = fast(d, out, at, me + pos + (direction & 32), hand, flags, limit - relays - 1, left)
                if at == 0:  # the steps it wrote: a sowing, then two for each relay or capture
                    rec.extend(bufs[((n >> 5) & 7) + ((n >> 8) & 63)])  # type: ignore[index, union-attr]
                pos = n & 15
                direction = 1 - ((n >> 3) & 2)
                relays += (n >> 8) & 63
                if bound:
                    left -= n >> 14
            else:
                if rec is not None:  # (write_step inlined: the two steps of every relay)
                    add(STEP_SOW)
                    add(me + ((pos + direction) & 15))
                    add(direction & 255)
                    add(hand)
                for _ in range(hand):
                    pos = (pos + direction) & 15
                    d[me + pos] += 1
                if bound:
                    left -= hand
            hand = 0
        c = d[me + pos]
        status = -1  # the move goes on
        if c == 1:
            if rec is not None:
                write_step(rec, STEP_END, me + pos, END_EMPTY, 0)
            status = END_EMPTY | (CAPTURING if capturing else 0)
        elif capturing and pos < 8 and d[op + 7 - pos]:
            hand = _capture(d, me, pos, direction, move, mark, not namua and not kuu, rec)
            if hand < 0:
                status = END_OPP_FRONT_EMPTY | CAPTURING
            else:
                direction = (hand >> 8) - 1
                pos = 15 if direction > 0 else 8  # one step before the kichwa the seeds are sown in from
                hand &= 255
                continue
        elif pos == 4 and d[HOUSE] & hbit and house_rules and (c >= house_min or (capturing and any_count)):
            status = _house(d, me, capturing, move, MARK_KUU if kuu else 0, rec)
        elif pos == takasia and not capturing:
            if rec is not None:
                write_step(rec, STEP_END | (MARK_KUU if kuu else 0), me + pos, END_TAKASIA, 0)
            status = END_TAKASIA  # 4.1b; M18: a sowing ending in the threatened pit ends the move
        if status >= 0:
            yield _verdict(status, left, sleep, relays)
            return
        key = pos if direction > 0 else pos | 16  # with d, the state before the lift
        relays += 1
        if relays == stop_after or (left < 0 and sleep):
            if not steps:
                if rec is not None:
                    write_step(rec, STEP_END, me + pos, END_SLEEP, 0)
                yield END_SLEEP | (BOUNDED | (relays << 8) if left < 0 else 0) | ENDED  # M4
                return
            yield key
            stop_after += 1
            limit = stop_after
        elif key == saved_key and d == saved:
            yield END_INFINITE | ((relays - saved_at) << 8) | ENDED
            return
        elif left < 0:
            yield END_INFINITE | BOUNDED | (relays << 8) | ENDED  # R10: it has sown more than the bound
            return
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
        hand = c  # 1.6: endelea
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
