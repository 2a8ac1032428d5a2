# Why an activation is not part of a legal move, in words citing the rule where a move was attempted
# (bao.reasons). The recogniser loads this module, and bao.reasons, for one refused activation and drops
# them after it (baoboard.compat.unload_new): they are not in the board's RAM during play.
from bao.core import PLAY, RIGHT, RING, TO_MOVE, pit_name, ring_direction


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
    elif moving and r.steps == 1 and not r.namua():  # type: ignore[attr-defined]
        ring = r.start_pit & 15  # type: ignore[attr-defined]
        if (pit >> 4) == side:
            for right in (0, RIGHT):
                if (ring + ring_direction(ring, right)) & 15 == pit & 15:
                    attempt = ring | right  # the first drop names the direction the player tried
    if attempt >= 0:
        try:
            from bao.reasons import why_illegal
        except ImportError:  # reasons not on this board: a short reason still goes out
            pass
        else:
            return why_illegal(p, attempt & (RING | RIGHT | PLAY))
    return ("", pit_name(pit) + " is not the pit to play now")
