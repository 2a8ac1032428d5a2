"""Board benchmark: runs the board application on the MicroPython unix port (firmware as .mpy) and prints
tables: scan-loop time and bytes allocated per iteration, activation-to-LED latency, peak heap during the
1994 game (and the smallest heap that plays it), flash written per move. Usage: python tools/bench_board.py
[--append docs/benchmarks.md]"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host")]

MP_SCRIPT = r"""
import sys, gc, time
sys.path.insert(0, %(lib)r)
sys.path.insert(0, %(tests)r)
MODE = %(mode)r
gc.collect()
free0 = gc.mem_free()
from bao import core, notation
from baoboard.app import App
from baoboard.simhw import SimHardware, Hands
from baoboard.storage import FakeStorage
from baoboard import recogniser as R
gc.collect()
code = free0 - gc.mem_free()
hw = SimHardware(); st = FakeStorage()
sent = [0]
def _w(d):
    sent[0] += len(d)
hw.on_write = _w
app = App(hw, st, board_id="bench"); app.boot()
hands = Hands(app, hw)
with open(%(game)r) as f:
    t = notation.parse_transcript(f.read())
p = app.p
lat_move = []; lat_drop = []; alloc_drop = []; flash = []; live = []; lowest = gc.mem_free()
def step_timed():
    global lowest
    hw.t += 5
    f0 = gc.mem_free()
    t0 = time.ticks_us()
    n0 = hw.shows
    app.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    fr = gc.mem_free()
    if fr < lowest:
        lowest = fr
    return dt, f0 - fr, hw.shows != n0
def tap(pit, moves_before):
    hw.set_pit(pit, True)
    for k in range(4):
        dt, al, shown = step_timed()
        if k == 2:  # the scan that confirms the activation (3 agreeing scans)
            if app.moves_done != moves_before:
                lat_move.append(dt)
            else:
                lat_drop.append(dt); alloc_drop.append(al)
    hw.set_pit(pit, False)
    for k in range(4):
        step_timed()
for text in t.plies:
    m, nxt = notation.parse_move(p, text)
    w0 = st.written
    for pit in R.activations(p, m):
        tap(pit, app.moves_done)
    p = nxt
    flash.append(st.written - w0)
    app.journal.ack(app.journal.last)  # a host that acknowledges every event
    gc.collect(); live.append(gc.mem_free())
if app.rec.phase == 2:
    app.rec.decide_stop()
for k in range(20):
    step_timed()
# idle loop: time and allocation per iteration
app.journal.ack(app.journal.last)
for k in range(300):
    hw.t += 5
    app.step()
gc.collect()
N = 2000
gc.disable()
f0 = gc.mem_free(); t0 = time.ticks_us()
for i in range(N):
    hw.t += 5
    app.step()
dt = time.ticks_diff(time.ticks_us(), t0); f1 = gc.mem_free()
gc.enable()
lat_drop.sort(); lat_move.sort(); alloc_drop.sort()
def med(a): return a[len(a)//2] if a else -1
print("RESULT moves=%%d code=%%d idle_us=%%d idle_alloc=%%d drop_med_us=%%d drop_max_us=%%d "
      "move_med_us=%%d move_max_us=%%d "
      "drop_alloc_med=%%d drop_alloc_max=%%d heap=%%d min_free=%%d min_live_free=%%d "
      "flash_avg=%%d flash_max=%%d" %% (
      app.moves_done, code, dt // N, (f0 - f1) // N if f0 > f1 else 0, med(lat_drop), lat_drop[-1],
      med(lat_move), lat_move[-1], med(alloc_drop), alloc_drop[-1], %(heapbytes)d, lowest, min(live),
      sum(flash) // len(flash), max(flash)))
"""


def compile_mpy(out: Path) -> Path:
    from bao_host.sim import compile_firmware

    return compile_firmware(out)


def run_mp(lib: Path, heap: int, mode: str = "full") -> dict[str, int] | None:
    code = MP_SCRIPT % {"lib": str(lib), "tests": str(ROOT / "tests/firmware"),
                        "game": str(ROOT / "games/zanzibar-1994.txt"), "heapbytes": heap, "mode": mode}
    r = subprocess.run([str(ROOT / ".venv/bin/micropython"), "-X", f"heapsize={heap}", "-c", code],
                       capture_output=True, text=True, timeout=600)
    m = re.search(r"^RESULT (.*)$", r.stdout, re.M)
    if not m:
        return None
    return {k: int(v) for k, v in (w.split("=") for w in m.group(1).split())}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--append", metavar="FILE", help="write the tables into FILE under the 'Board' heading")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        lib = compile_mpy(Path(d) / "mpy")
        res = run_mp(lib, 192 * 1024)
        if res is None:
            print("the board did not run at 192k", file=sys.stderr)
            return 1
        lo, hi = 32 * 1024, 192 * 1024  # the smallest heap that plays the whole game
        while hi - lo > 4096:
            mid = (lo + hi) // 2 // 1024 * 1024
            r = run_mp(lib, mid)
            if r is not None and r["moves"] == 52:
                hi = mid
            else:
                lo = mid
        smallest = hi
    used = res["heap"] - res["min_free"]
    live = res["heap"] - res["min_live_free"]
    lines = [
        "Measured with `python tools/bench_board.py` on the MicroPython unix port (64-bit x86; the firmware "
        "as bytecode .mpy, simulated hardware, the 1994 game played through pit activations, 5 ms scans).",
        "",
        "| scan loop (idle) | value |",
        "|---|---|",
        f"| time per iteration | {res['idle_us']} µs |",
        f"| bytes allocated per iteration (gc disabled, 2000 iterations) | {res['idle_alloc']} |",
        "",
        "| activation -> LED frame (the confirming scan, render and show included) | median | max |",
        "|---|---|---|",
        f"| a drop or lift inside a move | {res['drop_med_us']} µs | {res['drop_max_us']} µs |",
        f"| the activation that completes a move (rules core, journal write, event, next legal moves) | "
        f"{res['move_med_us']} µs | {res['move_max_us']} µs |",
        f"| bytes allocated by a drop inside a move | {res['drop_alloc_med']} (median) "
        f"| {res['drop_alloc_max']} (max) |",
        "",
        "| heap (64-bit unix port; a Pico's 32-bit objects are smaller) | bytes |",
        "|---|---|",
        f"| firmware modules loaded (rules core, app, transport, sim HAL) | {res['code']} |",
        f"| peak heap in use during the whole game (192 KB heap, garbage included) | {used} |",
        f"| peak live heap after a collection at a move boundary | {live} |",
        f"| smallest heap that plays the whole game (bisection, 4 KB steps) | {smallest} |",
        "",
        "The 64 KB target is **not met** here: the loaded modules alone take about 64 KB on the 64-bit port, "
        "the simulated flash (FakeStorage) sits in the same heap, and the journal keeps every move's position "
        "JSON in RAM. `make test-mp` (64 KB) therefore runs the board's recogniser and guide tests and skips "
        "the whole-application tests, which tests/host/test_sim.py runs under MicroPython at 192 KB.",
        "",
        "| flash (journal) | bytes |",
        "|---|---|",
        f"| written per move, average | {res['flash_avg']} |",
        f"| written per move, max (a compaction rewrites the checkpoint) | {res['flash_max']} |",
    ]
    text = "\n".join(lines)
    print(text)
    if args.append:
        path = Path(args.append)
        old = path.read_text() if path.exists() else "# Benchmarks\n"
        section = "## Board\n\n" + text + "\n"
        if "## Board\n" in old:
            head, _, rest = old.partition("## Board\n")
            nxt = rest.find("\n## ")
            old = head + section + (rest[nxt + 1:] if nxt >= 0 else "")
        else:
            old = old.rstrip("\n") + "\n\n" + section
        path.write_text(old)
    return 0


if __name__ == "__main__":
    sys.exit(main())
