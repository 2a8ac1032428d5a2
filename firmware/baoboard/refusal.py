# Why an activation is not part of a legal move, in words citing the rule where a move was attempted
# (bao.reasons). The recogniser loads this module, and bao.reasons, for one refused activation and drops
# them after it (baoboard.compat.unload_new): they are not in the board's RAM during play.
try:  # for the annotations only
    from typing import Any  # noqa: F401
except ImportError:
    pass

from bao.core import PLAY, RIGHT, RING, TAKASA, TO_MOVE, pit_name, ring_direction


def explain(rec: object, pit: int, boundary: bool, moving: bool) -> tuple:
    """(rule, reason) for the activation of `pit` that the recogniser `rec` refused; boundary: at a move
    boundary (an attempted start) rather than during a move; moving: the recogniser is in a move (MOVING)."""
    r = rec  # type: ignore[assignment]
    p = r.p  # type: ignore[attr-defined]
    d = p.d
    side = d[TO_MOVE]
    attempt = -1
    if boundary and (pit >> 4) == side:
        attempt = pit & 15  # a start from this pit (either direction would be refused)
    elif moving and (pit >> 4) == side and _first_drop(r):
        ring = r.start_pit & 15  # type: ignore[attr-defined]
        for right in (0, RIGHT):
            if (ring + ring_direction(ring, right)) & 15 == pit & 15:
                attempt = ring | right  # the first drop names the direction the player tried
        for m in r.codes:  # type: ignore[attr-defined]
            if m & (RING | RIGHT) == attempt:
                attempt = -1  # a legal direction (another candidate's drop went wrong): no attempt to name
    if attempt >= 0:
        try:
            from bao.reasons import why_illegal
        except ImportError:  # reasons not on this board: a short reason still goes out
            pass
        else:
            return why_illegal(p, attempt & (RING | RIGHT | PLAY))
    return ("", pit_name(pit) + " is not the pit to play now")


def _first_drop(r: "Any") -> bool:
    """The refused activation came where a move's first drop was due: after the lift (mtaji), after the store
    seed and the lift of a namua takasa (2.4a: the lone kichwa's direction); a namua capture's second step is
    the captured pit, not a drop."""
    if not r.namua():
        return r.steps == 1  # type: ignore[no-any-return]
    if r.steps != 2:
        return False
    ring = r.start_pit & 15
    for m in r.codes:
        if m & RING == ring and not m & TAKASA:
            return False
    return True
