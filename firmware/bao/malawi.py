# The Malawi kuu games' rules that bao.core hands over (M7, M18, M20-M22): their options, the advanced
# placement one ply per seed, and the threatened pit. Loaded when a kuu game's Rules are made; a Zanzibar
# or basic Malawi game never loads it. Its entry points reuse names the board interns anyway (update,
# options, play, moves, takasia): a Pico's name pool must not grow (docs/architecture.md).
from bao.core import (
    HOUSE,
    IN_HAND,
    NONE,
    RIGHT,
    RING,
    STEP_LIFT,
    STEP_SOW,
    STEP_STORE,
    STORE,
    TAKASIA,
    TO_MOVE,
    WINNER,
    InvalidPositionError,
    Position,
    Rules,
    _capture_starts,
    _ends,
    _finite_captures,
    _front_empty,
    _write,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x: int) -> int:  # type: ignore[misc]
        return x


# bao.core's private layout and move bits (bao.kuu names them for the host)
_MUST = const(39)
_PLACING = const(40)
_DROP = const(512)
_TAKE_SHIFT = const(10)
_NEMO = const(20)
_M20 = const(32)  # an account step's mark (bao.core, kind | mark << 4): the rule it follows
_M21 = const(48)
_M22 = const(64)
_DEFAULTS = {"kuu_twos": (6, 7), "threat_start": "front", "placement_capture": True}


def update(rules: Rules, more: dict) -> None:
    """The kuu games' options, checked, into rules.kuu = (advanced, the 2s' pits, threat_start is "any",
    placement_capture, and play and takasia: the placement's ply and M18's threatened pit, which bao.core
    calls without an import each time: about 0.08 ms of Pico time saved a call).
    M7: the front pits of the two 2s of the lost Figure 2 (ruling: 6 and 7, as Zanzibar R1; any pair that
    leaves no capture at the start: not pit 4, which faces the other kuu, nor a pair whose pits face each
    other). M18: a threatened pit may start a takata when it is the only start the basic
    rules allow, front row first ("front", ruling), or only when no pit of either row could ("any"). M21:
    the second player may take one pit before placing (ruling: optional, "can also")."""
    for key in more:
        if key not in _DEFAULTS:
            raise TypeError("unknown rule option %r" % (key,))
    twos = more.get("kuu_twos", (6, 7))
    if (not isinstance(twos, (list, tuple)) or len(twos) != 2 or twos[0] == twos[1]
            or [k for k in twos if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 8 or k == 5]):
        raise InvalidPositionError("option kuu_twos must be two different front pits 1..8 other than the kuu (5)")
    if 4 in twos or twos[0] + twos[1] == 9:  # pit k faces pit 9 - k
        raise InvalidPositionError("M7: option kuu_twos may not hold pit 4 (it faces the other kuu) nor two pits"
                                   " that face each other: the first move is a takata, no capture at the start")
    threat = more.get("threat_start", "front")
    if threat not in ("front", "any"):
        raise InvalidPositionError("option threat_start must be 'front' or 'any'")
    rules.kuu = (rules.ruleset == "malawi-advanced", (min(twos), max(twos)), threat == "any",
                 bool(more.get("placement_capture", True)), play, takasia)


def options(rules: Rules, out: dict) -> None:
    """Adds to out the kuu options that differ from the defaults (as JSON values)."""
    _, twos, threat_any, take, _, _ = rules.kuu
    if twos != (6, 7):
        out["kuu_twos"] = list(twos)
    if threat_any:
        out["threat_start"] = "any"
    if not take:
        out["placement_capture"] = False


def _take_ring(d: bytearray, me: int, k: int) -> int:
    """M21: the opponent's ring facing the mover's k-th occupied front pit (k = 1..3), or NONE for k = 0."""
    if not k:
        return NONE
    for r in range(8):
        if d[me + r]:
            k -= 1
            if not k:
                return 7 - r
    return NONE


def play(p: Position, move: int, rec: "bytearray | None") -> None:
    """One ply of the advanced placement (M20-M22) on p.d in place. The first drop lifts the mover's seeds
    outside the kuu, takes the pit chosen (M21, second player), and places the nemo; each later drop
    places one seed in hand. The turn passes when none is left."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    r = move & RING
    if d[_PLACING]:
        d[me + r] += 1
        d[_PLACING] -= 1
        if rec is not None:
            _write(rec, STEP_SOW | _M22, me + r, 1, 1)
    else:
        # M21: the pit taken faces an occupied pit before the lift
        t = _take_ring(d, me, (move >> 4) & 3) if move & 48 else NONE
        n = 0
        kuu = me + 4
        for i in range(me, me + 16):
            k = d[i]
            if k and i != kuu:
                if rec is not None:
                    _write(rec, STEP_LIFT | _M20, i, k, 0)
                n += k
                d[i] = 0
        if t != NONE:
            k = d[op + t]
            if rec is not None:
                _write(rec, STEP_LIFT | _M21, op + t, k, 0)
            n += k
            d[op + t] = 0
            if t == 4:
                d[HOUSE] &= ~(1 << (op >> 4))  # M16: the opponent's kuu is emptied
            if _front_empty(d, op):  # M23: never from M7's opening, only from a position set so
                d[WINNER] = s
                d[IN_HAND] = n
                return
        d[STORE + s] -= 1
        d[me + r] += 1
        if rec is not None:
            _write(rec, STEP_STORE | _M20, me + r, 0, 0)
        d[_PLACING] = n
    if not d[_PLACING]:
        d[TO_MOVE] = s ^ 1


def moves(p: Position, keep: "bool | bytearray") -> list:
    """M20-M22: the placement's plies: a drop into any of the mover's 16 pits, and before the second
    player's first drop, optionally the take of one opponent pit facing an occupied front pit (M21)."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    takes = [0]
    if not d[_PLACING] and p.rules.kuu[3] and d[STORE + (s ^ 1)] != _NEMO:
        k = 0
        for r in range(8):
            if d[me + r]:
                k += 1
                if d[op + 7 - r] and k < 4:
                    takes.append((k << 4) | ((8 - r) << _TAKE_SHIFT))
    out = []  # type: list
    rec = None if keep is True or keep is False else keep  # with their accounts: the scratch they go in
    for t in takes:
        if keep is False:
            for r in range(16):
                out.append(r | t | _DROP)
            continue
        # The drop into ring 0 played once; the other 15 drops of this take differ from it only in the pit
        # the last seed goes into, the pit of the account's last step (the first drop's lift and take are
        # the same): each is a copy of it with that seed moved (a first drop that ends the game at its
        # take, M23, places nothing: its 16 drops lead to the same position)
        first = Position(bytearray(d), p.rules)
        if rec is not None:
            rec[:] = b""
        play(first, t | _DROP, rec)
        fd = first.d
        placed = fd[WINNER] == NONE
        for r in range(16):
            cd = bytearray(fd)
            if placed:
                cd[me] -= 1
                cd[me + r] += 1
                if rec is not None:
                    rec[len(rec) - 3] = me + r
            child = Position(cd, p.rules)
            out.append((r | t | _DROP, child) if rec is None else (r | t | _DROP, child, bytes(rec)))
    return out


def takasia(child: Position) -> int:
    """M18: after X's second-stage takata, Y (to move in child) has no capture and every capture move
    X could make captures first in one and the same front pit of Y: that pit is threatened (no exception,
    unlike R8). Returns Y's ring or NONE."""
    d = child.d
    if d[STORE] or d[STORE + 1] or _finite_captures(child, True):
        return NONE
    y = d[TO_MOVE]
    must = d[_MUST]
    threat = d[TAKASIA]
    # X's captures: child seen with X to move, no pit of Y's to capture first and no threat, for a moment
    # (no copy: a new position costs about 0.17 ms of Pico time)
    d[TO_MOVE] = y ^ 1
    d[_MUST] = NONE
    d[TAKASIA] = NONE
    xme = (y ^ 1) << 4
    check = child.rules.infinite != "sleep"  # a sleeping move is legal (M24): nothing to check
    target = NONE
    for m in _capture_starts(child):
        r = m & RING
        n = d[xme + r] if r < 8 else -d[xme + r]  # G6 (core.ring_direction, inlined)
        t = 7 - ((r + n if m & RIGHT else r - n) & 15)
        if t == target:
            continue
        if check and not _ends(child, m):  # (played on d, then put back)
            continue
        if target != NONE:
            target = NONE  # two pits or more: no threat
            break
        target = t
    d[TO_MOVE] = y
    d[_MUST] = must
    d[TAKASIA] = threat
    return target
