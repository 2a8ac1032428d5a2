# The rules: which moves are legal in a position (captures first, 1.7a; the namua and mtaji starts, 2.3-3.5),
# the position each leads to, the takasia a move makes (R8, 4.1), never-ending moves (R10 illegal; M4 asleep)
# and the outcome (1.2). Played by the sowing engine (bao.sowing); a plugged-in ruleset's own rules (the
# Malawi kuu games' placement and threatened pit, bao.malawi.Game) are reached through position.rules.kuu.
try:
    import micropython  # (the compiler reads @micropython.viper itself)
    from micropython import const

    _VIPER = True
except ImportError:  # CPython: no viper code
    _VIPER = False

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr


# The builtins the hot path calls, as names of this module: MicroPython looks a name up in the module's dict,
# then searches the builtins' table one entry after another
from builtins import bytearray, bytes, next  # noqa: A004, UP029

from bao import sowing
from bao.position import Position

try:  # for the annotations only: names of the stubs, none there at run time (these imports always fail)
    from micropython import Const_T

    from bao.protocols import Account
except ImportError:
    pass
from bao.sowing import STEPS, sow

# bao.layout's numbers that the hot path reads, as constants the compiler folds into the bytecode
# (MicroPython reads an imported name from a dictionary at each use): each is the layout's own,
# checked by tests/host/test_rules_structure.py.
_BOUNDED = const(64)  # layout.BOUNDED
_DECISION = const(32)  # layout.DECISION
_END_EMPTY = const(0)  # layout.END_EMPTY
_END_INFINITE = const(7)  # layout.END_INFINITE
_END_MASK = const(15)  # layout.END_MASK
_HOUSE = const(34)  # layout.HOUSE
_IDENTITY = const(63)  # layout.IDENTITY
_MAKES_TAKASIA = const(128)  # layout.MAKES_TAKASIA
_MUST = const(39)  # layout.MUST
_NAMUA = const(256)  # layout.NAMUA
_NONE = const(255)  # layout.NONE
_PLAY = const(32)  # layout.PLAY
_RIGHT = const(16)  # layout.RIGHT
_RING = const(15)  # layout.RING
_STORE = const(32)  # layout.STORE
_TAKASA = const(64)  # layout.TAKASA
_TAKASIA = const(36)  # layout.TAKASIA
_TO_MOVE = const(35)  # layout.TO_MOVE
_WINNER = const(37)  # layout.WINNER
_ENDED = const(128)  # sowing.ENDED


if _VIPER:

    @micropython.viper
    def _starts(d: ptr8, out: object, me: int, must: int) -> int:  # noqa: F821 (viper)
        """_mtaji_captures, native: appends to out each start whose first sowing ends in
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
                    out.append(r)  # type: ignore[attr-defined]  # (viper types out as object: a list)
                if (ends >> ((r + n) & 15)) & 1:
                    out.append(r | 16)  # type: ignore[attr-defined]  # (as above) RIGHT
        return 0

else:
    _starts = None  # type: ignore[assignment]  # (no viper on CPython: capture_starts checks for None)


_SERVE_EVERY = const(31)  # M4's searches call sowing.serve when the relay count & this is 0


def _first_repeat(p: Position, move: int, cycle: int) -> int:
    """M4: the relay number at which a never-ending move's state first repeats. `cycle` is the loop
    length Brent found; two runs `cycle` relays apart meet at the loop's start (mu); the first repeat
    is relay mu + cycle."""
    a = p.copy()
    b = p.copy()
    ga = sow(a, move, None, STEPS)
    gb = sow(b, move, None, STEPS)
    ka = 0
    for i in range(cycle):
        ka = next(ga)
        if not i & _SERVE_EVERY and sowing.serve is not None:
            sowing.serve()
    mu = 0
    while True:
        ka = next(ga)
        kb = next(gb)
        mu += 1
        if not mu & _SERVE_EVERY and sowing.serve is not None:
            sowing.serve()
        if ka == kb and a.d == b.d:
            return mu + cycle


def _repeat_before(p: Position, move: int, b: int) -> int:
    """M4: a move that passed the bound and slept at relay b sleeps earlier if its state first repeated
    before b: then the state at b is on the loop, whose length is under b, so it comes back within b
    relays; if it does not, nothing repeated before b. Returns the relay of the first repeat if it is
    before b, else 0 (2b relays, no account; Brent alone could need 3b to tell)."""
    q = p.copy()
    d = q.d
    g = sow(q, move, None, STEPS)
    key = 0
    for i in range(b):
        key = next(g)
        if not i & _SERVE_EVERY and sowing.serve is not None:
            sowing.serve()
    at_b = bytearray(d)
    for cycle in range(1, b):
        if not cycle & _SERVE_EVERY and sowing.serve is not None:
            sowing.serve()
        try:
            if next(g) == key and d == at_b:
                first = _first_repeat(p, move, cycle)
                return first if first < b else 0
        except StopIteration:
            return 0
    return 0


def play_raw(p: Position, move: int, rec: "Account | None" = None) -> "tuple[Position, int]":
    """Play a move on a copy of p without checking its legality. Returns (child, status); the child has
    the opponent to move (in the placement, once the mover has placed every seed). An illegal
    never-ending move gives status END_INFINITE."""
    # (few locals, p.rules.kuu read twice rather than kept: a bytecode function with more than 11 words of
    # locals and stack takes its frame from the heap at each call, and this one runs for every candidate)
    if p.rules.kuu is not None and p.rules.kuu.placing(p.d):
        return _drop(p, move, rec)  # M22
    child = Position(bytearray(p.d), p.rules)  # (p.copy() inlined: the hot path)
    status = next(sow(child, move, rec)) ^ _ENDED
    if status & _BOUNDED or status & _END_MASK == _END_INFINITE:
        if p.rules.infinite != "sleep":
            return child, status
        child, status = _asleep(p, move, rec, child, status)  # M4
    if p.rules.kuu is not None:
        _must_capture(child.d)  # M19
    child.d[_TO_MOVE] ^= 1
    child.d[_TAKASIA] = _NONE
    return child, status & 255 & ~_BOUNDED


def _drop(p: Position, move: int, rec: "Account | None") -> "tuple[Position, int]":
    """M22: a drop of the advanced placement, a ply a seed (play_raw's)."""
    child = p.copy()
    kuu = p.rules.kuu
    if kuu is not None:  # (always: play_raw calls this in a kuu game's placement only)
        kuu.drop(child, move, rec)
    return child, _END_EMPTY


def _asleep(p: Position, move: int, rec: "Account | None", child: Position, status: int) -> "tuple[Position, int]":
    """M4: the move sleeps where its state first repeats (Brent found the loop), or at the end of the relay
    that passed the bound (as played, with its account) unless its state repeated before: (child, status)
    as play_raw has them then."""
    if status & _BOUNDED:
        first = _repeat_before(p, move, status >> 8)
    else:
        first = _first_repeat(p, move, status >> 8)
    if not first:
        return child, status
    child = p.copy()
    if rec is not None:
        rec[:] = b""  # the account again, from its start
    return child, next(sow(child, move, rec, first)) ^ _ENDED


def _must_capture(d: bytearray) -> None:
    """M19: the threatened pit, still occupied (not started from, M18), must be captured first next."""
    t = d[_TAKASIA]
    d[_MUST] = t if t != _NONE and d[_WINNER] == _NONE and d[(d[_TO_MOVE] << 4) + t] else _NONE


# Move generation
def capture_starts(p: Position) -> "list[int]":
    """Moves whose first step is a capture (2.3 namua; 3.4 mtaji: 2..15 seeds, ends opposite seeds)."""
    # (small frames: a bytecode function with more than 11 words of locals and stack takes its frame from
    # the heap at each call, and this one runs for every takasa candidate)
    d = p.d
    s = d[_TO_MOVE]
    if d[_STORE + s]:
        return _namua_captures(p, s)
    out = []  # type: list[int]
    if _starts is not None:
        _starts(d, out, s << 4, d[_MUST])  # type: ignore[arg-type]  # (native: the loops of _mtaji_captures)
        return out
    return _mtaji_captures(d, s << 4, out)


def _namua_captures(p: Position, s: int) -> "list[int]":
    """2.3: a namua move captures when the store's seed lands opposite seeds."""
    d = p.d
    me = s << 4
    op = (s ^ 1) << 4
    out = []  # type: list[int]
    ban = _NONE
    if p.rules.kuu and d[_HOUSE] == 3 and d[op + 3]:
        ban = 3  # M11: not the opponent's kuu first while the own kuu faces seeds
    for r in range(8):
        if d[me + r] and d[op + 7 - r] and r != ban:
            if r < 2:
                out.append(r)  # 1.4b: forced to the left kichwa, written L
            elif r > 5:
                out.append(r | _RIGHT)
            else:
                out.append(r)
                out.append(r | _RIGHT)
    return out


def _mtaji_captures(d: bytearray, me: int, out: "list[int]") -> "list[int]":
    """3.4: a mtaji move captures when it lifts 2..15 seeds and its first sowing ends in a front pit facing
    seeds (CPython; MicroPython runs _starts)."""
    op = me ^ 16
    must = d[_MUST]  # M19: only captures whose first captured pit is this one
    for r in range(16):
        n = d[me + r]
        if 2 <= n <= 15:
            if r > 7:
                n = -n  # G6: R is +1 on the front row, -1 behind (ring_direction, inlined: the hot path)
            for right in (0, _RIGHT):
                e = (r + n if right else r - n) & 15
                if e < 8 and d[me + e] and d[op + 7 - e] and (must == _NONE or must == 7 - e):
                    out.append(r | right)
    return out


def takasa_starts(p: Position, front: bool) -> "list[int]":  # noqa: C901, PLR0912
    """Candidate takasa moves (2.4 namua, 3.5 mtaji), before the never-ending check."""
    d = p.d
    rules = p.rules
    s = d[_TO_MOVE]
    me = s << 4
    out = []  # type: list[int]
    namua = d[_STORE + s] > 0
    kuu = rules.kuu
    owned = d[_HOUSE] & (1 << s)
    if kuu and owned and not namua and d[me + 4] > 1:
        return [4, 4 | _RIGHT] if front else out  # M17: the first takata of the second stage is the kuu's
    filled = 0
    multi = 0
    for r in range(8):
        if d[me + r]:
            filled += 1
            if d[me + r] > 1:
                multi += 1
    if kuu and namua and owned:
        if filled == 1:
            return [4, 4 | _RIGHT] if front else out  # M13, M14: the lone kuu is taxed (or sown whole)
        if d[me + 4] > 1:
            multi -= 1  # M12: the singleton rule does not count the kuu with status
    if not front:
        if namua:
            return out  # 2.4: namua takasa never starts on the back row
        for r in range(8, 16):
            if d[me + r] >= 2:
                out.append(r)
                out.append(r | _RIGHT)
        return out
    takasia = d[_TAKASIA]
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
            out.append(r | _RIGHT)  # 2.4a, 3.5b: not towards the back row
    if kuu and takasia != _NONE and not namua:
        # M18: no takata from the threatened pit unless it is the only start the basic rules allow
        others = False
        for m in out:
            if m & _RING != takasia:
                others = True
        if others or (kuu.threat_any and takasa_starts(p, False)):
            out = [m for m in out if m & _RING != takasia]
    return out


def _expand(p: Position, move: int, out: list, flags: int, keep: "bool | bytearray" = True) -> None:
    """Simulate one candidate; append (move, child), or only the move when keep is False, or (move,
    child, account) when keep is a bytearray (the scratch the account is recorded in, then copied)."""
    rec = None if keep is True or keep is False else keep
    if rec is not None:
        rec[:] = b""
    child, status = play_raw(p, move, rec)
    if status & _END_MASK == _END_INFINITE:
        return
    m = move | flags
    if flags & _TAKASA and not flags & _NAMUA and p.rules.takasia and child.d[_WINNER] == _NONE:
        t = takasia_pit(child)  # R8: only a mtaji-stage takasa can make a takasia
        if t != _NONE:
            child.d[_TAKASIA] = t
            m |= _MAKES_TAKASIA
    out.append(m if keep is False else (m, child) if rec is None else (m, child, bytes(rec)))
    if status & _DECISION:
        if rec is not None:
            rec[:] = b""
        child, status = play_raw(p, move | _PLAY, rec)
        if status & _END_MASK != _END_INFINITE:
            m = move | _PLAY | flags
            out.append(m if keep is False else (m, child) if rec is None else (m, child, bytes(rec)))


def finite_captures(p: Position, first_only: bool = False, keep: "bool | bytearray" = True) -> list:
    """The capture moves that end (R10), as legal_moves lists them; first_only: whether there is one, as
    a list of at most one move code (played in one scratch position, no child kept: the takasia checks)."""
    if first_only:
        starts = capture_starts(p)
        k = p.rules.kuu
        if not starts or p.rules.infinite == "sleep" or (k is not None and k.advanced and k.placing(p.d)):
            return starts[:1]  # M4: a never-ending move sleeps, a legal move; a placement drop always ends
        for m in starts:
            if ends(p, m):
                return [m]
        return []
    out = []  # type: list
    flags = _NAMUA if p.d[_STORE + p.d[_TO_MOVE]] else 0
    for m in capture_starts(p):
        _expand(p, m, out, flags, keep)
    return out


def ends(p: Position, move: int) -> bool:
    """Whether `move` from p ends (R10), played on p.d itself, which is then put back as it was: no child
    kept, no position made (a new position costs more than a copy of p.d; docs/benchmarks.md).
    The checks of finite_captures(first_only), R8's takasia_pit and M18's bao.malawi.takasia: p is a
    position they are making (were sow to raise, p.d would be left half-played)."""
    d = p.d
    before = bytes(d)
    finite = next(sow(p, move, None)) & _END_MASK != _END_INFINITE
    d[:] = before
    return finite


def _generate(p: Position, keep: "bool | bytearray") -> list:
    d = p.d
    if d[_WINNER] != _NONE:
        return []
    k = p.rules.kuu
    if k is not None and k.advanced and k.placing(d):
        return k.drops(p, keep)  # M20-M22: a placement drop
    s = d[_TO_MOVE]
    namua = d[_STORE + s] > 0
    out = finite_captures(p, False, keep)  # 1.7a: captures are compulsory
    if out:
        return out
    flags = _TAKASA | (_NAMUA if namua else 0)
    for m in takasa_starts(p, True):
        _expand(p, m, out, flags, keep)
    if not out and not namua:
        for m in takasa_starts(p, False):  # 3.5a: the back row only when the front row cannot
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


def play(p: Position, move: int, rec: "Account | None" = None) -> Position:
    """The position after a legal move (as listed by legal_moves or legal_move_codes), with the
    takasia it makes. With rec (a bytearray, or an object with append and slice assignment, and a flush
    the core calls at each relay if it has one), the move's account is appended to it (4 bytes a step)."""
    child, _ = play_raw(p, move & _IDENTITY, rec)
    if move & _MAKES_TAKASIA:
        child.d[_TAKASIA] = takasia_pit(child)
    return child


def takasia_pit(child: Position) -> int:
    """R8 / 4.1: after X's mtaji takasa, Y (to move in child) has no capture and X, if to move, could
    capture exactly one of Y's front pits first: that pit is takasia-ed, unless 4.1a/4.1c exempt it.
    Returns Y's ring or NONE."""
    k = child.rules.kuu
    if k is not None:
        return k.threatened(child)  # M18
    # The cheap conditions first (no sowing): most takasa moves fail one of them, and the others need
    # a capture played to its end to know it is finite.
    d = child.d
    y = d[_TO_MOVE]
    ybase = y << 4
    occupied = multi = 0
    for n in d[ybase : ybase + 8]:
        if n:
            occupied += 1
            if n > 1:
                multi += 1
    if occupied == 1:
        return _NONE  # 4.1a: the only occupied front pit
    house = d[_HOUSE] & (1 << y)
    xme = (y ^ 1) << 4
    d[_TO_MOVE] = y ^ 1  # X's captures: child seen with X to move for a moment (no copy)
    starts = capture_starts(child)
    d[_TO_MOVE] = y
    for m in starts:
        r = m & _RING
        n = d[xme + r] if r < 8 else -d[xme + r]  # G6 (ring_direction, inlined: a takasa candidate's check)
        t = 7 - ((r + n if m & _RIGHT else r - n) & 15)  # Y's pit this capture takes first
        if not ((t == 4 and house) or (multi == 1 and d[ybase + t] > 1)):
            break
    else:
        return _NONE  # every pit X could take first is exempt (4.1a, 4.1c), or there is none
    # R8: Y has a capture (a finite one, R10: finite_captures(child, True) inlined); with never-ending
    # moves sleeping (M4, option infinite) every move ends
    check = child.rules.infinite != "sleep"
    for m in capture_starts(child):
        if not check or ends(child, m):
            return _NONE
    # X's captures, each played to its end (only a finite one counts)
    target = _NONE
    for m in starts:
        r = m & _RING
        n = d[xme + r] if r < 8 else -d[xme + r]
        t = 7 - ((r + n if m & _RIGHT else r - n) & 15)
        if t == target:
            continue
        if check:
            d[_TO_MOVE] = y ^ 1  # (child seen with X to move again, for ends)
            finite = ends(child, m)
            d[_TO_MOVE] = y
            if not finite:
                continue
        if target != _NONE or (t == 4 and house) or (multi == 1 and d[ybase + t] > 1):
            return _NONE  # two or more targets, or one that is exempt (4.1a, 4.1c): no more to play
        target = t
    return target


def is_game_over(p: Position) -> bool:
    return p.d[_WINNER] != _NONE or not legal_moves(p)


def outcome(p: Position, moves: "list | None" = None) -> "int | None":
    """The winner if the game is over (1.2: front row emptied, possibly half-way through a move, or no
    legal move for the side to move), else None."""
    if p.d[_WINNER] != _NONE:
        return p.d[_WINNER]
    if moves is None:
        moves = legal_moves(p)
    return None if moves else p.d[_TO_MOVE] ^ 1
