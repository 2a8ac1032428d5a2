# Runs ON the emulated Pico with the board's chips attached (tools/bench_board_engine.py sends it through the
# raw REPL): what the scan loop's steps cost the board's search. The board application is built as
# firmware/main.py builds it (its drivers, its journal on flash sectors of its own) and booted; then the
# engine searches positions of the 1994 game for 3 s of Pico time each, at the board's limits (table 2^11,
# quiescence 3 plies, a check every 8 nodes), once with App.step() run at each check (as
# baoboard.opponent does while the board thinks) and once without. Nobody touches the board: the steps are
# idle scans (sensors, link, LEDs, watchdog). Prints one JSON line: nodes, ms and steps of each search.
import gc
import json
import time

from bao import notation
from bao.engine import Engine
from baoboard.app import App
from baoboard.drivers import selftest
from baoboard.drivers.pico import PicoHardware
from baoboard.flashres import journal_storage

hw = PicoHardware(pit_sensor_bit=selftest.load_mapping(), watchdog_ms=0)  # (a search without steps feeds none)
hw.serial_write = lambda data: None  # no host: the board's events stay in its journal
app = App(hw, journal_storage("/"), board_id="bench")
app.boot()
f = open("/games/zanzibar-1994.txt")
game = notation.replay(notation.parse_transcript(f.read()))
f.close()
todo = [game[i] for i in (0, 10, 20, 30, 40)]
game = None
out = {"with": [], "without": [], "steps": [], "with_ms": [], "without_ms": []}
for p in todo:
    for mode in ("with", "without"):
        gc.collect()
        e = Engine(tt_bits=11, qdepth=3, clock=time.ticks_ms, check_every=8)
        t0 = time.ticks_ms()
        steps = [0]

        def stop(mode=mode, steps=steps, t0=t0):
            if mode == "with":
                app.step()
                steps[0] += 1
            return time.ticks_diff(time.ticks_ms(), t0) >= 3000

        r = e.search(p, depth=50, should_stop=stop)
        out[mode].append(r.nodes)
        out[mode + "_ms"].append(time.ticks_diff(time.ticks_ms(), t0))  # under 3 s: a forced end found
        if mode == "with":
            out["steps"].append(steps[0])
        e = None
print(json.dumps(out))
