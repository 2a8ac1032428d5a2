"""A long life of games (issue #26, item 5): the board alone, no host, plays N random games one after the
other (its NEW button between two), on the MicroPython unix port at a Pico's heap: the 32-bit build with the
firmware frozen in (build/micropython-frozen32, the image's case) at 64 KB, and the 32-bit build loading the
firmware's .mpy (the `make deploy` path) at 160 KB. Per run: games and moves the board followed, faults (the
run loop's ERR), lowest free heap, seconds. Writes the "Long life" section of docs/benchmarks.md (alone:
`python tools/bench_life.py [--games N] [--seed S] [--no-write]`; not part of `make test` or `make bench`:
minutes on a loaded machine). A short form (a game's end and the next game) is in
tests/firmware/test_board_life.py."""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_board import MP32, MPYX, compile_mpy
from bench_common import Table, replace_section
from run_mp_tests import default_frozen

ROOT = Path(__file__).resolve().parent.parent

# The board alone, as firmware/main.py runs it (baoboard.runtime.Supervisor: a fault is reported and the
# application started again), driven by a few lines standing for the player's hands and buttons. Nothing
# listens on the serial link: the events stay in the journal (its budget then leaves later games unrecorded,
# still played).
LIFE_SCRIPT = r"""
import gc, time
gc.threshold(1024)
gc.collect()
from bao.core import TO_MOVE, legal_move_codes, play, initial
from baoboard.recogniser import sequence, DECISION
from baoboard.runtime import Supervisor
from baoboard.simhw import SimHardware
from baoboard.storage import FileStorage

st = FileStorage(%(root)r)
st.remove("journal")
hw = SimHardware()
hw.on_write = lambda d: None  # no host
errors = []
sup = Supervisor(hw, st, "life", 3, errors.append)
sup.start()
seed = [%(seed)d]
def rnd(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed[0] >> 8) %% n
low = [gc.mem_free()]
def scans(n):
    for _ in range(n):
        hw.t += 5
        sup.step()
        f = gc.mem_free()
        if f < low[0]:
            low[0] = f
def tap(pit):
    hw.set_pit(pit, True)
    scans(4)
    hw.set_pit(pit, False)
    scans(4)
games = moves = off = 0
t0 = time.ticks_ms()
for g in range(%(games)d):
    p = sup.app.p
    for ply in range(%(plies)d):
        codes = legal_move_codes(p)
        if not codes:
            break
        m = codes[rnd(len(codes))]
        for e in sequence(p, m):
            tap(e & 31)
        p = play(p, m)
        moves += 1
        a = sup.app
        if a is None or (a.p.d != p.d and a.rec.phase != DECISION):
            off += 1
            break
    games += 1
    hw.button_mask = 2  # NEW: the next game
    scans(4)
    hw.button_mask = 0
    scans(4)
    if sup.app is None or sup.app.p.d != initial(p.rules.ruleset, p.rules).d:
        off += 1
        break
st.remove("journal")
print("RESULT games=%%d moves=%%d off=%%d errors=%%d low=%%d ms=%%d" %% (
    games, moves, off, len(errors) + sup.restarts, low[0], time.ticks_diff(time.ticks_ms(), t0)))
for e in errors[:3]:
    print("ERROR", repr(e))
"""


def run(lib: Path, heap: str, flash: Path, games: int, seed: int, plies: int, binary: str) -> dict[str, int]:
    """The life on one build: the driver compiled to .mpy (compiling it in the board's heap would count the
    compiler's garbage), run from `lib`."""
    drv = lib / "lifedrv.py"
    drv.write_text(LIFE_SCRIPT % {"root": str(flash), "seed": seed, "games": games, "plies": plies})
    subprocess.run([MPYX, "-s", "lifedrv.mpy", "-o", str(lib / "lifedrv.mpy"), str(drv)], check=True)
    drv.unlink()
    r = subprocess.run(
        [binary, "-X", f"heapsize={heap}", "-c", "import sys; sys.path.insert(0, '')\nimport lifedrv"],
        capture_output=True,
        text=True,
        timeout=7200,
        cwd=lib,
    )
    m = re.search(r"^RESULT (.*)$", r.stdout, re.M)
    if not m:
        tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
        print(f"bench_life: no result at {heap} ({binary}): " + " | ".join(tail), file=sys.stderr)
        return {"games": 0, "moves": 0, "off": 1, "errors": 1, "low": 0, "ms": 0}
    for line in r.stdout.splitlines():
        if line.startswith("ERROR"):
            print(line, file=sys.stderr)
    return {k: int(v) for k, v in (w.split("=") for w in m.group(1).split())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games one after the other (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="the random moves' seed (default 1)")
    ap.add_argument("--plies", type=int, default=200, help="a game longer than this is left for a new one")
    ap.add_argument(
        "--frozen",
        metavar="BIN",
        default=default_frozen(),
        help="the 32-bit build with the firmware frozen in (default: build/micropython-frozen32)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)
    if not args.frozen or not Path(args.frozen).is_file() or not Path(MP32).is_file():
        print(
            f"bench_life: needs build/micropython-frozen32 (make test-mp builds it) and the 32-bit build {MP32}",
            file=sys.stderr,
        )
        return 2
    frozen = os.path.abspath(args.frozen)
    tab = Table(["build, heap", "games", "moves", "moves not followed", "faults (ERR)", "lowest free heap", "seconds"])
    ok = True
    with tempfile.TemporaryDirectory() as d:
        flash = Path(d) / "flash"
        flash.mkdir()
        flib = Path(d) / "frozen"  # only the driver: the firmware comes from the image
        flib.mkdir()
        lib = compile_mpy(Path(d) / "mpy", MP32)
        for name, where, heap, binary in (
            ("32-bit, firmware frozen in, 64 KB", flib, "64k", frozen),
            ("32-bit, firmware as .mpy, 160 KB", lib, "160k", MP32),
        ):
            res = run(where, heap, flash, args.games, args.seed, args.plies, binary)
            tab.add(
                name,
                str(res["games"]),
                str(res["moves"]),
                str(res["off"]),
                str(res["errors"]),
                str(res["low"]),
                f"{res['ms'] / 1000:.1f}",
            )
            print(f"{name}: {res}", flush=True)
            ok = ok and res["games"] == args.games and not res["off"] and not res["errors"]
    text = tab.render()
    print(text)
    note = (
        f"`python tools/bench_life.py --games {args.games} --seed {args.seed}` (not run by `make bench`: "
        "minutes): the board alone, no host (nothing acknowledges its events), plays random legal games one "
        "after the other through pit activations (5 ms scans), its NEW button between two, under its run "
        "loop's supervisor; a game past "
        f"{args.plies} plies is left for the next. "
        + ("Every game followed, no fault. " if ok else "NOT every game followed without a fault: a defect. ")
        + f"Measured on {platform.machine()} ({os.cpu_count()} cores, shared), {time.strftime('%Y-%m-%d')}.\n"
    )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Long life", text + "\n\n" + note)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
