# Why a move is not legal, in words that cite the rule (the kuu games': bao.kuu).
from bao.kuu import why_illegal as kuu_why_illegal
from bao.layout import (
    END_INFINITE,
    END_MASK,
    HOUSE,
    IDENTITY,
    NONE,
    PLAY,
    RIGHT,
    RING,
    STORE,
    TAKASIA,
    TO_MOVE,
    WINNER,
    pit_name,
)
from bao.movetext import format_move
from bao.position import Position
from bao.rules import capture_starts, finite_captures, legal_moves, play_raw, takasa_starts

_NEVER = "its sowing repeats, or sows more seeds than the game's bound, R10"


def _side_name(side: int) -> str:
    return "South" if side == 0 else "North"


def _dir_name(ring: int, right: int) -> str:
    return "R (towards pit 8)" if right else "L (towards pit 1)"


def why_illegal(p: Position, move: int) -> tuple:  # noqa: C901, PLR0911, PLR0912
    """(rule, reason) for a move identity (ring | RIGHT | PLAY) that legal_moves does not list."""
    d = p.d
    malawi = p.rules.malawi
    move &= IDENTITY
    if d[WINNER] != NONE or not legal_moves(p):
        return "1.2", "the game is over"
    if p.rules.kuu is not None:
        return kuu_why_illegal(p, move)
    s = d[TO_MOVE]
    me = s << 4
    r = move & RING
    pit = me + r
    name = pit_name(pit)
    n = d[pit]
    namua = d[STORE + s] > 0
    captures = finite_captures(p)
    cap_starts = [m for m, _ in captures]
    same_start = [m for m in cap_starts if m & (RING | RIGHT) == move & (RING | RIGHT)]
    if namua:
        if r >= 8:
            return "2.4", "in the namua stage a move starts on the front row, not at %s" % name
        if not n:
            return "2.3", "%s is empty: the store seed goes into a non-empty front pit" % name
    elif n < 2:
        rule = "M2" if malawi else "3.3"
        return rule, "%s holds %d seed%s: only pits with 2 or more seeds can be played" % (
            name,
            n,
            "" if n == 1 else "s",
        )
    if captures:
        if not same_start:
            if namua and (r < 2 or r > 5) and d[((s ^ 1) << 4) + 7 - r]:
                return "1.4b", "a capture at a kichwa or kimbi sows from the nearest kichwa: write %s%s" % (
                    r + 1,
                    "L" if r < 2 else "R",
                )
            starts = [m for m in capture_starts(p) if m & (RING | RIGHT) == move & (RING | RIGHT)]
            if starts:
                return ("M4" if malawi else "1.5a"), "this capture move never ends (%s)" % _NEVER
            rule = "M2" if malawi else ("2.3b" if namua else "3.4")
            if not namua and n > 15:
                return rule, "a capture move cannot start from a pit with more than 15 seeds, and a capture is possible"
            examples = " ".join(format_move(m, s) for m in cap_starts[:3])
            if len(cap_starts) > 3:  # (three named: the others said, not left for a list that looks whole)
                examples += " and %d more" % (len(cap_starts) - 3)
            return rule, "a capture is possible, so you must capture (1.7a): %s" % examples
        if move & PLAY:
            return "2.5b", "this move does not stop in the owned house with 6 or more seeds: no house to play"
        return "1.5a", "this move never ends (%s)" % _NEVER
    if [m for m in capture_starts(p) if m & (RING | RIGHT) == move & (RING | RIGHT)]:
        return ("M4" if malawi else "1.5a"), "this capture move never ends (%s)" % _NEVER
    if move & PLAY:
        return "2.5b", "only a capture move may play the house; a takasa never does"
    # takasa
    if namua:
        filled = [i for i in range(8) if d[me + i]]
        owned = d[HOUSE] & (1 << s)
        if r == 4 and owned and n >= 6 and len(filled) > 1:
            return "2.4b", "takasa cannot start from the owned house with 6+ seeds while other front pits hold seeds"
        if n == 1 and not owned and [i for i in filled if d[me + i] > 1]:
            return "2.4c", "takasa cannot start from a single seed: the house is lost and a front pit holds 2 or more"
        if len(filled) == 1 and r in (0, 7) and (r == 0) != bool(move & RIGHT):
            return "2.4a", "the lone kichwa may not be sown towards the back row: the front row would be empty"
    else:
        if r == d[TAKASIA]:
            return "4.1", "%s is takasia-ed: you may not start a takasa from it this move" % name
        front = [m for m in takasa_starts(p, True)]
        if r >= 8:
            finite_front = [m for m in front if play_raw(p, m)[1] & END_MASK != END_INFINITE]
            if finite_front:
                return ("M2" if malawi else "3.5a"), "takasa must start from the front row while it can"
        filled = [i for i in range(8) if d[me + i]]
        if len(filled) == 1 and r in (0, 7) and (r == 0) != bool(move & RIGHT) and not malawi:
            return "3.5b", "the lone kichwa may not be sown towards the back row: the front row would be empty"
    child, status = play_raw(p, move)
    if status & END_MASK == END_INFINITE:
        return ("M4" if malawi else "1.5a"), "this move never ends (%s)" % _NEVER
    return "1.3", "%s %s is not a legal move here" % (name, _dir_name(r, move & RIGHT))
