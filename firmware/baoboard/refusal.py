# Why an activation is not part of a legal move, in words citing the rule: where a move was attempted, the
# rule it breaks (bao.reasons); elsewhere the rule of the step the move is at (docs/rules.md explains each).
# The recogniser loads this module, and bao.reasons, for one refused activation and drops them after it
# (baoboard.compat.unload_new): they are not in the board's RAM during play.
try:  # for the annotations only
    from typing import Any  # noqa: F401

    from baoboard.recogniser import Recogniser
except ImportError:
    pass

from bao.layout import PLAY, RIGHT, RING, TAKASA, TO_MOVE, ring_direction

from baoboard.compat import const

# baoboard.recogniser's sequence bits and phase (it loads this module: not imported back, no cycle)
_PIT = const(31)
_LIFT = const(32)
_OPT = const(64)
_KICHWA = const(128)
_DECISION = const(2)


def explain(rec: "Recogniser", pit: int, boundary: bool, moving: bool) -> tuple:
    """(rule, reason) for the activation of `pit` that the recogniser `rec` refused; boundary: at a move
    boundary (an attempted start) rather than during a move; moving: the recogniser is in a move (MOVING)."""
    r = rec
    p = r.p
    d = p.d
    side = d[TO_MOVE]
    attempt = -1
    if r.hint >= 0 and len(r.codes) == 1:
        pass  # the lit move followed alone (the computer's): the player tried no move of his own
    elif boundary and (pit >> 4) == side:
        attempt = pit & 15  # a start from this pit (either direction would be refused)
    elif moving and (pit >> 4) == side and _first_drop(r):
        ring = r.start_pit & 15
        for right in (0, RIGHT):
            if (ring + ring_direction(ring, right)) & 15 == pit & 15:
                attempt = ring | right  # the first drop names the direction the player tried
        for m in r.codes:
            if m & (RING | RIGHT) == attempt:
                attempt = -1  # a legal direction (another candidate's drop went wrong): no attempt to name
    if attempt >= 0:
        try:
            from bao.reasons import why_illegal
        except ImportError:  # reasons not on this board: a short reason still goes out
            pass
        else:
            return why_illegal(p, attempt & (RING | RIGHT | PLAY))
    return _step(r, pit, boundary)


def _step(r: "Any", pit: int, boundary: bool) -> tuple:
    """(rule, reason) of a touch that is no step of the move under way: the rule of the step it waits for
    (the pits the guide lights next), in the host's guidance words (the touch names the pit)."""
    if boundary:  # (only the lit move is followed: it is the turn of the side that chose it)
        return ("1.1", "not where the move lit starts")
    if r.phase == _DECISION:
        return ("2.5b", "stop in the house or play it")
    side = r.p.d[TO_MOVE]
    rule = "1.3"
    for i in range(r.n):
        e = r.expected(i)
        if e >= 0 and e & _OPT:
            e = r.after_optional(i)
        if e < 0:
            continue
        if e & _LIFT and (e & _PIT) >> 4 != side:
            return ("1.4", "the capture is lifted first")
        if e & _KICHWA:
            rule = "1.4a"
        elif e & _LIFT and rule == "1.3":
            rule = "1.6"
    if rule == "1.4a":
        return (rule, "the captured seeds go in from a kichwa")
    if rule == "1.6":
        return (rule, "the sowing goes on from the pit its last seed fell in")
    return (rule, "the seeds go one by one into the next pits")


def _first_drop(r: "Any") -> bool:
    """The refused activation came where a move's first drop was due: after the lift (mtaji), after the store
    seed and the lift of a namua takasa (2.4a: the lone kichwa's direction); a namua capture's second step is
    the captured pit, not a drop."""
    if not r.namua():
        return r.steps == 1
    if r.steps != 2:
        return False
    ring = r.start_pit & 15
    for m in r.codes:
        if m & RING == ring and not m & TAKASA:
            return False
    return True
