"""Run every tests/firmware/test_*.py module under the MicroPython unix port, each in its own process
with a Pico-sized heap, and print the totals as "N passed, N failed"."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
    for mod in modules:
        proc = subprocess.run(
            [args.micropython, "-X", f"heapsize={args.heap}", str(ROOT / "tests/mprun.py"), mod],
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
        print(f"  {mod:<40} {p:4d} passed {f:3d} failed  {status}")
        if status != "ok":
            print("\n".join("    " + line for line in out.splitlines()[-30:]))
    print(f"micropython (heap {args.heap}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
