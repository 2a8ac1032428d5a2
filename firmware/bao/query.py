# Questions about positions and moves that the host asks of the rules core and the board never does: a move's
# account as steps, perft, the seed count, a pit by its name (and find_move, from
# bao.notation, which the board loads only for a SHOW written another way than it writes moves). Split from
# bao.core so that their code and names are not in a Pico's RAM (docs/architecture.md, "Memory on the
# board"); bao.core still answers them (core.perft...) through its __getattr__, which loads this module the
# first time one is asked for.
from bao.core import (
    IDENTITY,
    IN_HAND,
    NORTH,
    SOUTH,
    STORE,
    NotationError,
    Position,
    legal_move_codes,
    legal_moves,
    play_raw,
)
from bao.notation import find_move as find_move

_PLACING = 40  # bao.core's private layout (a private const there, not a global): M22's seeds still to place


def pit_index(name: str) -> int:
    """"A1".."b8" -> global pit index; raises NotationError."""
    if len(name) != 2 or name[0] not in "ABab" or name[1] not in "12345678":
        raise NotationError("not a pit name: %r (A1..A8, B1..B8, a1..a8, b1..b8)" % (name,))
    side = SOUTH if name[0] in "AB" else NORTH
    k = int(name[1])
    ring = k - 1 if name[0] in "Aa" else 16 - k
    return (side << 4) + ring


def account(p: Position, move: int) -> list:
    """The step-by-step account of a legal move (a list of STEP_* tuples)."""
    find_move(p, move)
    rec = bytearray()
    play_raw(p, move & IDENTITY, rec)
    from bao import explain  # the host's reading of the compact account

    return explain.steps(rec)


def perft(p: Position, depth: int) -> int:
    """Leaf count: every distinct legal move is one leaf; a finished game is one leaf at any depth."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(legal_move_codes(p)) or 1
    moves = legal_moves(p)
    if not moves:
        return 1
    total = 0
    for _, child in moves:
        total += perft(child, depth - 1)
    return total


def seed_total(p: Position) -> int:
    """All 64 seeds: pits, stores and seeds in hand (an invariant)."""
    d = p.d
    t = d[STORE] + d[STORE + 1] + d[IN_HAND] + d[_PLACING]
    for i in range(32):
        t += d[i]
    return t
