# The threatened pit of the Malawi kuu games (M18), computed after each second-stage takata: loaded by
# those games only.
from bao.core import (
    END_INFINITE,
    END_MASK,
    MUST,
    NONE,
    RIGHT,
    RING,
    STORE,
    TAKASIA,
    TO_MOVE,
    Position,
    _capture_starts,
    _finite_captures,
    play_raw,
    ring_direction,
)


def threat_pit(child: Position) -> int:
    """M18: after X's second-stage takata, Y (to move in child) has no capture and every capture move
    X could make captures first in one and the same front pit of Y: that pit is threatened (no exception,
    unlike R8). Returns Y's ring or NONE."""
    d = child.d
    if d[STORE] or d[STORE + 1] or _finite_captures(child, True):
        return NONE
    x_view = child.copy()
    xd = x_view.d
    y = xd[TO_MOVE]
    xd[TO_MOVE] = y ^ 1
    xd[MUST] = NONE
    xd[TAKASIA] = NONE
    xme = (y ^ 1) << 4
    check = child.rules.infinite != "sleep"  # a sleeping move is legal (M24): nothing to check
    target = NONE
    for m in _capture_starts(x_view):
        r = m & RING
        t = 7 - ((r + ring_direction(r, m & RIGHT) * xd[xme + r]) & 15)
        if t == target:
            continue
        if check and play_raw(x_view, m)[1] & END_MASK == END_INFINITE:
            continue
        if target != NONE:
            return NONE
        target = t
    return target
