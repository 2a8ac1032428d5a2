# "Play the computer" on the board (issue #10; docs/leds.md, "Playing the computer"): the engine's move for
# the side the computer plays, lit for the player to sow for it, and hints. App.rare (think, choose; the
# host's CPU and SHOW: baoboard.checks) loads this module (and for a search the
# engine, bao.engine) for one job and drops it after: the engine is not in the board's RAM between its moves.
# The search runs within a node limit (the level) and a time limit in the board's own ticks (Pico time on a
# Pico), and serves the scan loop as it goes: every _CHECK_EVERY nodes it runs one App.step() (sensors, the
# link's events and acks, LEDs, the watchdog); a touch that begins a move, a new position or a new request to
# think stops it, and its move is dropped (the position it searched is gone).
#   think(app, hint)        search app.p; light the move (hint) or make it the only move followed
#   choose(app, side, now)  the gesture: the computer plays `side`, one level up (off after the last)
#   setup(app, side, level, now)   the computer plays side (-1: nobody) at level (0: the host's engine);
#                                  a CPU event, journalled (a restart keeps the mode: commands.restore)
#   light(app, move, lead)  light a legal move of app.p (SHOW, think); lead: only that move is followed
# (Loaded in play: its names are interned then, so the ones no other module needs are private constants.)
try:  # for the annotations only
    from typing import Any

    from baoboard.app import App
except ImportError:
    pass

import gc

from bao.layout import IDENTITY, TO_MOVE
from bao.movetext import format_move

from baoboard.compat import const
from baoboard.recogniser import IDLE, PIT, sequence

LEVELS = const(4)
# Nodes searched at each level 1..4, at most (docs/benchmarks.md, Board engine: a Pico's nodes a second, and
# so each level's time); and never longer than _MOVETIME_MS of the board's ticks.
NODES = (0, 100, 300, 600, 1200)
_MOVETIME_MS = const(3000)
# Capture sequences followed past the horizon: 3, not the host's 6, for the board's small budgets. Captures are
# compulsory and branch, so with 6 a depth-1 search takes many times the nodes it takes with 3, and a budget
# that ends inside depth 1 plays a move barely searched (docs/benchmarks.md, Board engine: the nodes and the
# scores against greedy of both).
QDEPTH = const(3)
_CHECK_EVERY = const(8)  # nodes between two steps of the scan loop (docs/benchmarks.md, Board engine)
_TT_SHARE = const(4)  # the table takes at most a quarter of the free heap (the rest: the search's lines)
_TT_MIN_BITS = const(6)
# The largest table: 4,096 slots, 32 KB on a Pico in two 16 KB pieces, the largest a quarter of the free heap
# holds on the Bao-board image, whose frozen code leaves most of the heap free at a search's start; where the
# heap has less room (the stock image's .mpy, a small heap) table_bits gives less (docs/benchmarks.md,
# Emulated Pico: the free heap each search started with and its table).
_TT_MAX_BITS = const(12)


def table_bits(free: int) -> int:
    """The transposition table's size (2 ** bits slots) for `free` bytes of heap: two lists of
    2 ** bits slots, a word each (4 bytes on a Pico, 8 on a 64-bit port)."""
    word = 8 if _wide() else 4
    bits = _TT_MIN_BITS
    while bits < _TT_MAX_BITS and 2 * word << (bits + 1) <= free // _TT_SHARE:
        bits += 1
    return bits


def _wide() -> bool:
    import sys

    return sys.maxsize > 1 << 32


def think(a: "App", hint: bool) -> None:
    """Search the board's position (the level's limits; a hint at the computer's level, or level 2 when it
    plays nobody) and light the move found. Also tells the host: a CPU notice `MOVE nodes depth score`."""
    gc.collect()
    from bao.engine import Engine

    level = a.level if a.cpu >= 0 and a.level else 2
    p = a.p
    # The search is of no use any more after another position (a move, an undo, a new game), a move begun by
    # hand, or a new request to think (the mode changed, a hint asked). A host's command stops it too: the
    # command runs after it (App.step), and the search begins again if it is still wanted.
    # (Lambdas, not named functions: a function's name is one more interned name on the board.)
    stale = lambda: a.p is not p or a.rec.phase != IDLE or a.think_due > 0  # noqa: E731
    served = lambda: a.step() or stale() or bool(a.outbox.pending)  # type: ignore[func-returns-value]  # noqa: E731  (step() is None: the or goes on)
    try:
        r = _search(a, Engine, level, QDEPTH, _TT_MAX_BITS, served)
    except MemoryError:  # the heap in too many pieces for this search: the smallest table, a shallower one
        if stale():
            return
        try:
            r = _search(a, Engine, 1, 2, _TT_MIN_BITS, served)
        except MemoryError:  # not even that now: no move lit, the board goes on (a fault would restart it);
            if not hint:  # the computer's move is searched again at the next step, after a collection
                a.think_due = 1
            return
    if stale():  # the board changed while it thought
        return
    if a.outbox.pending:  # stopped for a host's command: searched again after it
        a.think_due = 2 if hint else 1
        return
    if r.move is None:  # the game is over
        return
    light(a, r.move, not hint)
    a.outbox.notice(
        "HINT" if hint else "CPU", "%s %d %d %d" % (format_move(r.move, p.d[TO_MOVE]), r.nodes, r.depth, r.score)
    )


def _search(a: "App", engine: "Any", level: int, qdepth: int, most: int, should_stop: "Any") -> "Any":
    """The search at a level's limits, with a table of what the heap leaves (a quarter of it; at most
    2 ** most slots); should_stop() runs a step of the scan loop (every _CHECK_EVERY nodes)."""
    gc.collect()
    free = gc.mem_free() if hasattr(gc, "mem_free") else 1 << 20
    e = engine(tt_bits=min(most, table_bits(free)), qdepth=qdepth, clock=a.hw.ticks_ms, check_every=_CHECK_EVERY)
    return e.search(a.p, nodes=NODES[level], movetime=_MOVETIME_MS, should_stop=should_stop)


def light(a: "App", move: int, lead: bool) -> None:
    """Light `move`, a legal move of a.p with its descriptive bits: its start (bright green) and the pit its
    first seed goes to (the direction; a capture's pit in the namua stage). lead: the computer's move,
    the only one the recogniser then follows (any other touch is flagged)."""
    rec = a.rec
    if lead:
        rec.start(a.p, [move])
    rec.hint = move & IDENTITY
    seq = sequence(a.p, move)
    rec.hint_to = -1
    for e in seq:
        if e & PIT != seq[0] & PIT:
            rec.hint_to = e
            break
    a.dirty = True


def setup(a: "App", side: int, level: int, now: int, keep_move: bool = False) -> None:
    """The computer plays `side` (-1: nobody) at `level`; if it is its turn, it thinks at the end of the
    step. The level is shown for a few seconds: that many front pits of the computer's side blink violet.
    A change is a CPU event: journalled, so that the board still plays the computer after a restart
    (baoboard.commands.restore), and reported to the host. keep_move (the host's CPU command): a move half
    made goes on when the side to move was and stays a player's."""
    was = a.cpu
    a.cpu = side
    a.level = level
    mode = "off" if side < 0 else "%s %d" % ("SN"[side], level)
    if mode != (a.journal.cpu or "off"):
        a.outbox.post("CPU", mode)
    a.rec.hint = -1
    # a host taking the game for a remote player as the hand sows must not drop the move (keep_move); a
    # gesture's own touches are no move and go with the boundary
    if not keep_move or a.p is None or a.p.d[TO_MOVE] in (was, side):
        a.boundary(a.p, now)  # the moves followed are all legal moves again, or the computer's turn begins
    marks = bytearray(32)
    if side >= 0:
        for i in range(level if level else 8):  # (2: blinking violet; 3: the host's side, a walk: baoboard.guide)
            marks[(side << 4) + i] = 2 if level else 3
    a.guide.set_restore(marks, now)


def choose(a: "App", side: int, now: int) -> None:
    """The gesture (one side's two back-row ends held 3 s): the computer plays the other side, level 1; held
    again, one level up; after the last level, nobody."""
    level = a.level + 1 if a.cpu == side and a.level else 1
    if level > LEVELS:
        side = -1
        level = 1
    setup(a, side, level, now)
