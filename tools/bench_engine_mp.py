# Engine speed, run by the MicroPython unix port and by CPython alike (tools/bench_engine.py collects it).
# Usage: micropython tools/bench_engine_mp.py NODES TT_BITS [DIR]   (DIR: where the bao package is, e.g. the
# precompiled .mpy; default firmware/). Searches the same positions for NODES nodes each, prints one
# "key value" line per figure: nodes, ms, nps, heap (MicroPython: the live heap after the searches).
import gc
import sys

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython
    import time

    def ticks_ms():
        return int(time.perf_counter() * 1000)

    def ticks_diff(a, b):
        return a - b


def positions(core, notation):
    f = open("games/zanzibar-1994.txt")
    game = notation.replay(notation.parse_transcript(f.read()))
    f.close()
    out = [game[i] for i in (0, 10, 20, 30, 40)]
    game = None
    p = core.initial("malawi")
    out.append(p)
    x = 1994
    for _ in range(12):  # a Malawi middle game by a fixed pseudo-random walk
        moves = core.legal_move_codes(p)
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        p = core.play(p, moves[(x >> 8) % len(moves)])
    out.append(p)
    return out


def main():
    argv = globals().get("ARGV") or sys.argv
    nodes = int(argv[1])
    bits = int(argv[2])
    sys.path.insert(0, argv[3] if len(argv) > 3 else "firmware")
    from bao import core, engine, notation

    e = engine.Engine(tt_bits=bits)  # the table first, while the heap is in one piece
    todo = positions(core, notation)
    total = 0
    ms = 0
    for p in todo:
        e.clear()
        gc.collect()
        t = ticks_ms()
        r = e.search(p, nodes=nodes)
        ms += ticks_diff(ticks_ms(), t)
        total += r.nodes
    gc.collect()
    print("positions", len(todo))
    print("nodes", total)
    print("ms", ms)
    print("nps", total * 1000 // max(1, ms))
    if hasattr(gc, "mem_free"):
        print("heap_used", gc.mem_alloc())


main()
