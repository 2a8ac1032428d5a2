# Questions about positions and moves that the host asks of the rules core and the board never does: a move's
# account as steps, perft, the seed count (and pit_index and find_move, kept here for the host's callers:
# bao.layout and bao.notation hold them).
from bao.core import (
    IDENTITY,
    IN_HAND,
    PLACING,
    STORE,
    Position,
    legal_move_codes,
    legal_moves,
    play_raw,
)
from bao.core import (
    pit_index as pit_index,
)
from bao.explain import steps
from bao.notation import find_move as find_move


def account(p: Position, move: int) -> list:
    """The step-by-step account of a legal move (a list of STEP_* tuples)."""
    find_move(p, move)
    rec = bytearray()
    play_raw(p, move & IDENTITY, rec)
    return steps(rec)


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
    """All 64 seeds: pits, stores, seeds in hand and seeds still to place (an invariant)."""
    d = p.d
    t = d[STORE] + d[STORE + 1] + d[IN_HAND] + d[PLACING]
    for i in range(32):
        t += d[i]
    return t
