# The advanced game's placement (M20-M22), one ply per seed: loaded by that game only, while it places.
from bao.core import (
    DROP,
    HOUSE,
    IN_HAND,
    NEMO,
    NONE,
    PLACING,
    RING,
    STEP_LIFT,
    STEP_SOW,
    STEP_STORE,
    STORE,
    TAKE_SHIFT,
    TO_MOVE,
    WINNER,
    Position,
    _front_empty,
    play_raw,
)


def take_ring(d: bytearray, me: int, k: int) -> int:
    """M21: the opponent's ring facing the mover's k-th occupied front pit (k = 1..3), or NONE for k = 0."""
    if not k:
        return NONE
    for r in range(8):
        if d[me + r]:
            k -= 1
            if not k:
                return 7 - r
    return NONE


def drop(p: Position, move: int, rec: "list | None") -> None:
    """One ply of the advanced placement (M20-M22) on p.d in place. The first drop lifts the mover's seeds
    outside the kuu, takes the pit chosen (M21, second player), and places the nemo; each later drop
    places one seed in hand. The turn passes when none is left."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    r = move & RING
    if d[PLACING]:
        d[me + r] += 1
        d[PLACING] -= 1
        if rec is not None:
            rec.append((STEP_SOW, me + r, 1, 1, "M22"))
    else:
        t = take_ring(d, me, (move >> 4) & 3)  # faces an occupied pit before the lift (M21)
        n = 0
        for i in range(16):
            if i != 4 and d[me + i]:
                if rec is not None:
                    rec.append((STEP_LIFT, me + i, d[me + i], "M20"))
                n += d[me + i]
                d[me + i] = 0
        if t != NONE:
            k = d[op + t]
            if rec is not None:
                rec.append((STEP_LIFT, op + t, k, "M21"))
            n += k
            d[op + t] = 0
            if t == 4:
                d[HOUSE] &= ~(1 << (op >> 4))  # M16: the opponent's kuu is emptied
            if _front_empty(d, op):  # M23: only with kuu_twos holding pit 4
                d[WINNER] = s
                d[IN_HAND] = n
                return
        d[STORE + s] -= 1
        d[me + r] += 1
        if rec is not None:
            rec.append((STEP_STORE, me + r, "M20"))
        d[PLACING] = n
    if not d[PLACING]:
        d[TO_MOVE] = s ^ 1


def drops(p: Position, keep: bool) -> list:
    """M20-M22: the placement's plies: a drop into any of the mover's 16 pits, and before the second
    player's first drop, optionally the take of one opponent pit facing an occupied front pit (M21)."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    takes = [0]
    if not d[PLACING] and p.rules.placement_capture and d[STORE + (s ^ 1)] != NEMO:
        k = 0
        for r in range(8):
            if d[me + r]:
                k += 1
                if d[op + 7 - r] and k < 4:
                    takes.append((k << 4) | ((8 - r) << TAKE_SHIFT))
    out = []  # type: list
    for t in takes:
        for r in range(16):
            m = r | t | DROP
            if keep:
                out.append((m, play_raw(p, m)[0]))
            else:
                out.append(m)
    return out
