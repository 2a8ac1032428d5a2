"""Run every tests/firmware/test_*.py module under the MicroPython unix port, each in its own process
with a Pico-sized heap (--heap, 64k), and print the totals as "N passed, N failed".

A module listed in HEAPS runs at the heap given there instead, printed on its line and in the totals: the
whole board application does not fit 64 KB on the 64-bit unix port (docs/benchmarks.md, Board, says how much
it needs and why). Nothing is skipped: a module that does not fit its heap fails."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Modules that need more than the default heap, with their heap. Near its smallest heap a module passes or
# fails from run to run (fragmentation: the journal's temp folder name, when collections happen), so these
# are heaps at which repeated runs all passed: test_board_power failed 1 run in 4 at 116-160k and passed
# 6 of 6 at 192k; its live heap after a collection stays at 82-86 KB over three games.
HEAPS = {
    "test_board_app": "112k",  # the 1994 game: board application, its flash in files, a host, simulated hands
    "test_board_power": "192k",  # the same, and a board rebuilt after every power cut
    "test_board_protocol": "160k",  # the same, host commands (each loads baoboard.commands; SHOW bao.notation)
}


def _kb(size: str) -> int:
    return int(size[:-1]) if size[-1:] in "kK" else int(size) // 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--micropython", default=str(ROOT / ".venv/bin/micropython"))
    ap.add_argument("--heap", default="64k")
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()
    modules = sorted(p.stem for p in (ROOT / "tests/firmware").glob("test_*.py"))
    if args.filters:
        modules = [m for m in modules if any(f in m for f in args.filters)]
    passed = failed = 0
    larger = []
    for mod in modules:
        heap = args.heap
        if mod in HEAPS and _kb(HEAPS[mod]) > _kb(heap):
            heap = HEAPS[mod]
            larger.append(f"{mod} {heap}")
        proc = subprocess.run(
            [args.micropython, "-X", f"heapsize={heap}", str(ROOT / "tests/mprun.py"), mod],
            cwd=ROOT, capture_output=True, text=True, timeout=900,
        )
        out = proc.stdout + proc.stderr
        m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
        if m:
            p, f = int(m.group(1)), int(m.group(2))
        else:
            p, f = 0, 1
        passed += p
        failed += f
        status = "ok" if f == 0 and m else "FAILED"
        print(f"  {mod:<28} heap {heap:>5} {p:4d} passed {f:3d} failed  {status}")
        if status != "ok":
            print("\n".join("    " + line for line in out.splitlines()[-30:]))
    where = f"heap {args.heap}" + (f"; larger: {', '.join(larger)}" if larger else "")
    print(f"micropython ({where}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
