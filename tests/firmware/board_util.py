# Helpers of the board tests (test_board_*.py); plain Python for CPython and the MicroPython unix port.
from bao import core, notation


def game_path():
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    return here + "/../../games/zanzibar-1994.txt"


def transcript():
    with open(game_path()) as f:
        return notation.parse_transcript(f.read())


def plies():
    """Yields (position before, legal move, text) for each ply of the 1994 game (a generator: the
    positions are not all kept, the MicroPython heap is small)."""
    t = transcript()
    p = core.initial(core.ZANZIBAR, notation.rules_from_headers(t.headers))
    for text in t.plies:
        m, child = notation.parse_move(p, text)
        yield (p, m, text)
        p = child
