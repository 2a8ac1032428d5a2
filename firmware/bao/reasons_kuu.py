# Why a move is not legal in a kuu game (M9-M22), citing the ruling. Loaded only when such a move is refused.
from bao.core import (
    HOUSE,
    MUST,
    NONE,
    PLAY,
    RIGHT,
    RING,
    STORE,
    TAKASIA,
    TO_MOVE,
    Position,
    _finite_captures,
    _placing,
    format_move,
    pit_name,
)
from bao.reasons import _dir_name, _side_name


def why_kuu(p: Position, move: int) -> tuple:
    """(rule, reason) in the kuu games, where they differ from the basic game."""
    d = p.d
    s = d[TO_MOVE]
    if _placing(p):
        return "M22", "%s is placing: each ply drops one seed into one of his 16 pits" % _side_name(s)
    starts = [m for m, _ in _finite_captures(p)]
    same = [m for m in starts if m & (RING | RIGHT) == move & (RING | RIGHT)]
    why = _why_nemo(p, move, starts, same) if d[STORE + s] else _why_second(p, move, starts, same)
    if why:
        return why
    r = move & RING
    return "1.3", "%s %s is not a legal move here" % (pit_name((s << 4) + r), _dir_name(r, move & RIGHT))


def _why_nemo(p: Position, move: int, starts: list, same: list) -> tuple:
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    r = move & RING
    name = pit_name(me + r)
    if r >= 8:
        return "M9", "a nemo goes into an occupied front pit, not into the back row (%s)" % name
    if not d[me + r]:
        return "M9", "%s is empty: the nemo goes into an occupied front pit" % name
    if starts and not same:
        if r == 3 and d[op + 4] and d[HOUSE] == 3 and d[op + 3]:
            return "M11", "you may not take the opponent's kuu directly while your own kuu faces seeds (%s)" % (
                pit_name(op + 3))
        if (r < 2 or r > 5) and d[op + 7 - r]:
            return "M10", "a capture at a kichwa or kimbi sows from the nearest kichwa: write %s" % (r + 1)
        return "M10", "a capture is possible, so the nemo must capture: %s" % _examples(starts, s)
    if move & PLAY:
        return "M15", "only a capture move whose sowing ends in your kuu may relay it"
    status = d[HOUSE] & (1 << s)
    filled = [i for i in range(8) if d[me + i]]
    if r == 4 and status and len(filled) > 1:
        return "M12", "no takata from the kuu while it has its status and other front pits hold seeds"
    if d[me + r] == 1 and [i for i in filled if d[me + i] > 1 and not (i == 4 and status)]:
        return "M12", "a single seed may be used only when no front pit other than the kuu holds two or more"
    return ()


def _why_second(p: Position, move: int, starts: list, same: list) -> tuple:
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    r = move & RING
    name = pit_name(me + r)
    n = d[me + r]
    if n < 2:
        return "M2", "%s holds %d seed%s: only pits with 2 or more seeds can be played" % (
            name, n, "" if n == 1 else "s")
    if starts and not same:
        if d[MUST] != NONE:
            return "M19", "you must capture %s first (it was threatened): %s" % (
                pit_name((me ^ 16) + d[MUST]), _examples(starts, s))
        return "M2", "a capture is possible, so you must capture: %s" % _examples(starts, s)
    if move & PLAY:
        return "M17", "in the second stage the kuu has no stop or relay to choose"
    if d[HOUSE] & (1 << s) and d[me + 4] > 1 and not starts and r != 4:
        return "M17", "your first takata of the second stage must start from the kuu %s" % pit_name(me + 4)
    if r == d[TAKASIA]:
        return "M18", "%s is threatened: you may not start a takata from it this move" % name
    if r >= 8:
        return "M2", "takata must start from the front row while it can"
    return ()


def _examples(moves: list, side: int) -> str:
    return " ".join(format_move(m, side) for m in moves[:3])
