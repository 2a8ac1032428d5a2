# Writing a move (rulings G7), in two explicit dialects:
#   "donkers": [row] pit [L|R] [* | **] [>]     e.g. 7L*  5R>  B2L  a6L
#   "kiba":    [row] pit [<|>] [* | **] [+]     the revised edition: < > for L R and + plays the house
# Reading one is bao.notation's; writing is here, below it, for the board, which writes every move it
# reports and reads one only for a SHOW written another way.
from bao.errors import NotationError
from bao.layout import DROP, MAKES_TAKASIA, NAMUA, PLAY, RIGHT, RING, TAKASA, TAKE_SHIFT, pit_name

DONKERS = "donkers"
KIBA = "kiba"
DIALECTS = (DONKERS, KIBA)


def marks(dialect: str) -> tuple:
    """The dialect's letters: (left, right, plays the house)."""
    if dialect == DONKERS:
        return "L", "R", ">"
    if dialect == KIBA:
        return "<", ">", "+"
    raise NotationError("unknown dialect %r (donkers or kiba)" % (dialect,))


def format_move(move: int, side: int, dialect: str = DONKERS) -> str:
    """Text of a move as returned by legal_moves (its descriptive bits say takasa, takasia, namua)."""
    left, right, house = marks(dialect)
    r = move & RING
    out = ""
    if move & DROP:  # M22, M25: "@A4", the second player's first drop "xA3@a4"
        t = (move >> TAKE_SHIFT) & 15
        if t:
            out = "x" + pit_name(((side ^ 1) << 4) + t - 1)
        return out + "@" + pit_name((side << 4) + r)
    if move & NAMUA:
        out = str(r + 1)
        if move & TAKASA or 1 < r < 6:
            out += right if move & RIGHT else left
    else:
        if r < 8:
            out = ("A" if side == 0 else "a") + str(r + 1)
        else:
            out = ("B" if side == 0 else "b") + str(16 - r)
        out += right if move & RIGHT else left
    if move & TAKASA:
        out += "**" if move & MAKES_TAKASIA else "*"
    if move & PLAY:
        out += house
    return out
