# Runs ON the emulated Pico (tools/bench_pico.py sends it through the raw REPL, after it sets BITS, a list of
# table sizes; None: the size baoboard.opponent picks): the board's engine at its top level, alone (no scan
# loop), searching positions of the 1994 game for the board's time limit each, with the board's quiescence
# depth and check interval. Prints one JSON line: for each table size, the nodes of each search, its Pico ms,
# the free heap the search started with and the table size used.
import gc
import json
import time

from bao import notation
from bao.engine import Engine
from baoboard import opponent

f = open("/games/zanzibar-1994.txt")
game = notation.replay(notation.parse_transcript(f.read()))
f.close()
todo = [game[i] for i in (0, 10, 20, 30, 40)]
game = None
gc.collect()
out = {"free_before": gc.mem_free(), "runs": []}
try:
    BITS  # noqa: B018  (set by whoever sends this code)
except NameError:
    BITS = [None]
for want in BITS:
    run = {"bits": [], "nodes": [], "ms": [], "free": []}
    for p in todo:
        e = None
        gc.collect()
        free = gc.mem_free()
        bits = opponent.table_bits(free) if want is None else want
        e = Engine(tt_bits=bits, qdepth=opponent.QDEPTH, clock=time.ticks_ms, check_every=8)
        t0 = time.ticks_ms()
        r = e.search(p, depth=50, movetime=3000)
        run["ms"].append(time.ticks_diff(time.ticks_ms(), t0))
        run["nodes"].append(r.nodes)
        run["bits"].append(bits)
        run["free"].append(free)
    e = None
    out["runs"].append(run)
print(json.dumps(out))
