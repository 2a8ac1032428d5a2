# The Malawi kuu games on the host side (and on a board only for a rare job: a refused move, a position
# received): the names of their state and move bits, the derived stage, the position checks (M7, M8,
# M19, M22), the drop notation (M25) and why a move is illegal (M9-M22). The rules that play the games
# are in bao.sowing, bao.rules and bao.malawi.
from bao.errors import IllegalMoveError, NotationError
from bao.layout import (
    DROP as DROP,
)
from bao.layout import (
    HOUSE,
    NONE,
    PLAY,
    RIGHT,
    RING,
    STORE,
    TAKASIA,
    TO_MOVE,
    pit_index,
    pit_name,
)
from bao.layout import (
    MUST as MUST,
)
from bao.layout import (
    PLACING as PLACING,
)
from bao.layout import (
    TAKE_SHIFT as TAKE_SHIFT,
)
from bao.malawi import NEMO as NEMO
from bao.movetext import format_move
from bao.position import (
    MALAWI_ADVANCED as MALAWI_ADVANCED,
)
from bao.position import (
    MALAWI_INTERMEDIATE as MALAWI_INTERMEDIATE,
)
from bao.position import Position
from bao.rules import finite_captures, legal_move_codes, play

# (the names above that this module does not use are there for the host: kuu.DROP, kuu.MUST...)


def is_placing(p: Position) -> bool:
    """M22: the side to move is placing: it has seeds left to place, or (advanced game) all 20 nemo."""
    k = p.rules.kuu
    return k is not None and k.placing(p.d)


def placing(p: Position) -> int:
    """M22: seeds the side to move still has to place (0 outside the advanced placement)."""
    return p.d[PLACING]


def must_capture(p: Position) -> "int | None":
    """M19: global index of the opponent's pit the side to move must capture first, or None."""
    t = p.d[MUST]
    return None if t == NONE else ((p.d[TO_MOVE] ^ 1) << 4) + t


def stage(p: Position) -> str:
    """The side to move's stage, derived (M8, M22): "placement", "nemo" / "namua", or "mtaji"."""
    d = p.d
    if is_placing(p):
        return "placement"
    if d[STORE + d[TO_MOVE]]:
        return "nemo" if p.rules.kuu else "namua"
    return "mtaji"


def split_plies(word: str) -> list:
    """A transcript token as plies: a placement token ("@A4@A3", "xA3@a4@a4") holds one ply per drop."""
    if "@" not in word:
        return [word]
    out = []
    i = 0
    while i < len(word):
        j = word.find("@", i + 1)
        if word[i] in "xX" and j >= 0:
            j = word.find("@", j + 1)  # "xA3@a4": the take and the first drop are one ply
        if j < 0:
            j = len(word)
        out.append(word[i:j])
        i = j
    return out


def _drop_side(ply: str) -> str:
    """ "S" or "N" for a drop (the case of the pit it places in), "" for any other ply."""
    k = ply.rfind("@")
    if k < 0 or k + 1 >= len(ply):
        return ""
    return "S" if ply[k + 1] in "AB" else "N"


def join_turns(plies: list) -> list:
    """Plies as transcript tokens: a side's consecutive drops make one token (M22)."""
    out = []  # type: list
    last = ""
    for ply in plies:
        side = _drop_side(ply)
        if side and side == last:
            out[-1] += ply
        else:
            out.append(ply)
        last = side
    return out


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def parse_drop(text: str) -> "tuple[int, int]":
    """Syntax of a placement drop (M25): "@A4" -> (-1, pit), "xA3@a4" -> (taken pit, pit), global indices."""
    s = text.strip()
    taken = -1
    if s[:1] in ("x", "X"):
        taken = pit_index(s[1:3])
        s = s[3:]
    if s[:1] != "@" or len(s) != 3:
        raise NotationError("%r: a drop is @pit, or xpit@pit for the second player's first (M25)" % (_short(text),))
    return taken, pit_index(s[1:])


def find_drop(p: Position, text: str) -> "tuple[int, Position]":
    taken, pit = parse_drop(text)
    d = p.d
    side = d[TO_MOVE]
    if not is_placing(p):
        raise IllegalMoveError(
            "M22: %s is not placing: only the advanced game's placement drops seeds"
            % ("South" if side == 0 else "North"),
            "M22",
        )
    if pit >> 4 != side:
        raise IllegalMoveError(
            "M20: %s places in his own 16 pits, not in %s" % ("South" if side == 0 else "North", text.strip()[-2:]),
            "M20",
        )
    want_take = 0 if taken < 0 else (taken & 15) + 1
    for m in legal_move_codes(p):
        if m & RING == pit & 15 and (m >> TAKE_SHIFT) & 15 == want_take:
            return m, play(p, m)
    if d[PLACING]:
        raise IllegalMoveError("M21: a pit is taken only before the first seed is placed", "M21")
    raise IllegalMoveError(
        "M21: %s cannot be taken: the second player takes one opponent front pit facing an "
        "occupied front pit of his own, before placing" % (text.strip()[1:3],),
        "M21",
    )


def why_illegal(p: Position, move: int) -> tuple:
    """(rule, reason) in the kuu games, where they differ from the basic game."""
    d = p.d
    s = d[TO_MOVE]
    if is_placing(p):
        return "M22", "%s is placing: each ply drops one seed into one of his 16 pits" % _side(s)
    starts = [m for m, _ in finite_captures(p)]
    same = [m for m in starts if m & (RING | RIGHT) == move & (RING | RIGHT)]
    why = _why_nemo(p, move, starts, same) if d[STORE + s] else _why_second(p, move, starts, same)
    if why:
        return why
    r = move & RING
    return "1.3", "%s %s is not a legal move here" % (pit_name((s << 4) + r), _dir(r, move & RIGHT))


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
                pit_name(op + 3)
            )
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
            name,
            n,
            "" if n == 1 else "s",
        )
    if starts and not same:
        if d[MUST] != NONE:
            return "M19", "you must capture %s first (it was threatened): %s" % (
                pit_name((me ^ 16) + d[MUST]),
                _examples(starts, s),
            )
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


def _side(side: int) -> str:
    return "South" if side == 0 else "North"


def _dir(ring: int, right: int) -> str:
    return "R (towards pit 8)" if right else "L (towards pit 1)"
