"""Run every tests/firmware/test_*.py module under the MicroPython unix port, each in its own process with a
Pico-sized heap, and print the totals as "N passed, N failed".

Three ports, each at the heap its board has (nothing is skipped: a module that does not fit fails):
  --micropython    the 64-bit port from PyPI loading the firmware as .mpy, at a stock Pico's room word-scaled
                   (`160wk`: the same room for the same objects, whose words are twice as large)
  --frozen32 BIN   the 32-bit build with the firmware frozen in (tools/frozen_unix32.sh, from the image's
                   sources): the Bao-board image's case, the firmware's code and names in flash, at 64k
  --micropython32  the 32-bit build (a Pico's object sizes) loading the firmware as .mpy into the heap, at the
                   room a stock MicroPython leaves on a Pico (--heap-mpy, 160k): the `make deploy` path

`make test-mp` runs each module once on each port, two at a time. The heap benchmark (tools/bench_heaps.py,
`make bench`) asks more:
  --runs N        each module N times at its heap: it passes only if all N runs pass
  --sweep HI:STEP and again at every heap from its own up to HI K words in STEP steps (--sweep-runs at
                  each, default --runs), so that no result depends on where the heap's layout happens to fall
  -j N            N interpreters at a time"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The room a stock MicroPython leaves on a Pico for the board loaded from .mpy files (docs/benchmarks.md, Heaps)
HEAP_MPY = 160


def words(size: str) -> int:
    """K words of a heap size as MicroPython's -X heapsize reads it: 64wk, 64k (K words on 32-bit)."""
    m = re.fullmatch(r"(\d+)(w?)k", size.strip().lower())
    if not m:
        raise argparse.ArgumentTypeError(f"a heap is NNk or NNwk, not {size!r}")
    return int(m.group(1))


def sweep_arg(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+):(\d+)", text.strip())
    if not m or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(f"a sweep is HI:STEP in K words (256:4), not {text!r}")
    return int(m.group(1)), int(m.group(2))


FROZEN = "32-bit frozen"  # the port name of a --frozen32 build
FROZEN_BUILD = ROOT / "build/micropython-frozen32"  # where tools/frozen_unix32.sh puts it
FROZEN_LIB = ROOT / "build/mpy-frozen32"  # the frozen build's runs: the tests without the firmware's .mpy


def default_frozen() -> str:
    """The frozen build the benchmarks use unless told otherwise: FROZEN_BUILD when it has been made."""
    return str(FROZEN_BUILD) if FROZEN_BUILD.is_file() else ""


def make_frozen_lib() -> None:
    """FROZEN_LIB anew from build/mpy-host (make test-mp): the compiled tests and their runner, no firmware
    .mpy, so that the frozen firmware is what they import."""
    shutil.rmtree(FROZEN_LIB, ignore_errors=True)
    shutil.copytree(ROOT / "build/mpy-host/tests", FROZEN_LIB / "tests")
    for d in ("games", "hardware"):
        (FROZEN_LIB / d).symlink_to(Path("../..") / d)


# How long each (port, module) took last time: the next run starts the longest first, so that the last ones
# to finish are short (the pool's tail)
DURATIONS = ROOT / "build/mp-durations.json"


def load_durations() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
        return {str(k): float(v) for k, v in data.items()}
    except (OSError, ValueError, AttributeError):
        return {}


# Where each port's power-cut sweep starts when it cuts at every stride-th byte: the ports cut at different
# bytes, together more than any one of them (tests/firmware/fwtest_util.cut_points)
SWEEP_OFFSET = {"64-bit": 0, "32-bit": 2}
FROZEN_OFFSET = 4


def run_module(binary: str, heap: str, mod: str, port: str = "64-bit", stride: int = 1) -> tuple[int, int, str]:
    """One test module at one heap: the runner precompiled in build/mpy-host (make test-mp; build/mpy-host32
    for the 32-bit build: bao.core's native code is made for the machine that runs it), else its source.
    stride > 1: the power-cut sweeps cut at every stride-th byte, from the port's own offset
    (tests/firmware/fwtest_util.cut_points)."""
    offset = FROZEN_OFFSET if port == FROZEN else SWEEP_OFFSET.get(port, 0)
    sweep = f"{stride}+{offset}" if stride > 1 else "1"  # (set on every port: 1 means every byte)
    base_env = dict(os.environ, BAO_SWEEP_STRIDE=sweep)
    if port == FROZEN:  # the image's interpreter: every byte of code that runs only on a Pico
        base_env["BAO_SWEEP_IMAGE"] = "1"
    if port == FROZEN:  # (MICROPYPATH replaces the default path, which holds the frozen modules' .frozen)
        env = dict(base_env, MICROPYPATH="tests:.frozen")
        proc = subprocess.run(
            [os.path.abspath(binary), "-X", f"heapsize={heap}", "-m", "mprun", mod],
            cwd=FROZEN_LIB,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        return parse_run(proc.stdout + proc.stderr)
    lib = ROOT / ("build/mpy-host32" if port == "32-bit" else "build/mpy-host")
    if (lib / "tests/mprun.mpy").is_file():
        cmd, cwd, env = ["-m", "mprun"], lib, dict(base_env, MICROPYPATH="tests")
    else:
        cmd, cwd, env = [str(ROOT / "tests/mprun.py")], ROOT, base_env
    if "/" in binary:  # (a path: from the folder the runs are in)
        binary = os.path.abspath(binary)
    proc = subprocess.run(
        [binary, "-X", f"heapsize={heap}", *cmd, mod], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )
    return parse_run(proc.stdout + proc.stderr)


def parse_run(out: str) -> tuple[int, int, str]:
    """(passed, failed, output) of one run: its closing line, or one failure when it has none (a crash)."""
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    if not m:
        return 0, 1, out
    return int(m.group(1)), int(m.group(2)), out


def ports(micropython: str, micropython32: str, frozen32: str = "") -> list[tuple[str, str, str]]:
    """(name, binary, heap unit) of each port to run: the 64-bit one, the 32-bit build if present, and the
    32-bit build with the firmware frozen in if asked for."""
    out = [("64-bit", micropython, "wk")]
    if micropython32:
        if Path(micropython32).is_file():
            out.append(("32-bit", micropython32, "k"))
        else:
            print(f"micropython: no 32-bit build at {micropython32}: its runs are skipped")
    if frozen32:
        if not Path(frozen32).is_file():
            raise SystemExit(f"micropython: no frozen 32-bit build at {frozen32} (tools/frozen_unix32.sh makes one)")
        make_frozen_lib()
        out.append((FROZEN, frozen32, "k"))
    return out


def modules(filters: list[str]) -> list[str]:
    names = sorted(p.stem for p in (ROOT / "tests/firmware").glob("test_*.py"))
    return [m for m in names if not filters or any(f in m for f in filters)]


def heap_of(mod: str, base: int, port: str = "32-bit", heap_mpy: int = HEAP_MPY) -> int:
    """A module's heap on a port: the frozen build has the Bao-board image's room (base: 64); the ports that
    load the firmware as .mpy into the heap have a stock Pico's (heap_mpy; word-scaled on the 64-bit port)."""
    return base if port == FROZEN else max(base, heap_mpy)


class Outcome:
    """The runs of one module on one port: at its own heap, and over the sweep."""

    def __init__(self, port: str, mod: str, kw: int) -> None:
        self.port, self.mod, self.kw = port, mod, kw
        self.runs = self.ok_runs = 0
        self.tests = self.failed_tests = 0
        self.sweep_heaps = self.sweep_runs = 0
        self.sweep_failed: dict[int, int] = {}  # heap (K words) -> failed runs there
        self.first_failure = ""


def run_all(
    port_list: list[tuple[str, str, str]],
    mods: list[str],
    base: int,
    runs: int,
    sweep: tuple[int, int] | None,
    jobs: int,
    sweep_runs: int = 0,
    sweep_skip: tuple[str, ...] = (),
    heap_mpy: int = HEAP_MPY,
    cut_stride: int = 1,
) -> list[Outcome]:
    """Each module `runs` times at its heap, and with a sweep `sweep_runs` times (default `runs`) at every
    heap above it (modules in sweep_skip are not swept). cut_stride: the power-cut sweeps' stride on every
    port, each from its own offset; the frozen build cuts at every byte of code that runs only on a Pico,
    CPython's run of the same tests at every byte of the rest (tests/firmware/fwtest_util.cut_points)."""
    outcomes = {(p, m): Outcome(p, m, heap_of(m, base, p, heap_mpy)) for p, _, _ in port_list for m in mods}
    tasks = []
    for port, binary, unit in port_list:
        for mod in mods:
            kw = heap_of(mod, base, port, heap_mpy)
            for _ in range(runs):
                tasks.append((port, binary, unit, mod, kw))
            if sweep is not None and mod not in sweep_skip:
                for h in range(kw + sweep[1], sweep[0] + 1, sweep[1]):
                    for _ in range(sweep_runs or runs):
                        tasks.append((port, binary, unit, mod, h))

    durations = load_durations()
    tasks.sort(key=lambda t: -durations.get(f"{t[0]} {t[3]}", 1e9))

    def one(task: tuple[str, str, str, str, int]) -> tuple[tuple[str, str, str, str, int], tuple[int, int, str]]:
        port, binary, unit, mod, h = task
        t0 = time.monotonic()
        result = run_module(binary, f"{h}{unit}", mod, port, cut_stride)
        durations[f"{port} {mod}"] = time.monotonic() - t0
        return task, result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for future in as_completed([pool.submit(one, t) for t in tasks]):
            (port, _, unit, mod, h), (p, f, out) = future.result()
            o = outcomes[(port, mod)]
            ok = f == 0 and p > 0
            if h == o.kw:
                o.runs += 1
                o.ok_runs += ok
                o.tests += p
                o.failed_tests += f
            else:
                o.sweep_runs += 1
                if not ok:
                    o.sweep_failed[h] = o.sweep_failed.get(h, 0) + 1
            if not ok and not o.first_failure:
                o.first_failure = f"{h}{unit}:\n" + "\n".join("    " + line for line in out.splitlines()[-30:])
    try:
        DURATIONS.parent.mkdir(parents=True, exist_ok=True)
        DURATIONS.write_text(json.dumps(durations, indent=0, sort_keys=True))
    except OSError:
        pass
    result = [outcomes[(p, m)] for p, _, _ in port_list for m in mods]
    for o in result:
        if sweep is not None and o.mod not in sweep_skip:
            o.sweep_heaps = len(range(o.kw + sweep[1], sweep[0] + 1, sweep[1]))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--micropython",
        default=str(ROOT / ".venv/bin/micropython"),
        help="the 64-bit unix port (heaps word-scaled: NNwk)",
    )
    ap.add_argument("--micropython32", default="", help="a 32-bit unix port loading the firmware's .mpy; empty: none")
    ap.add_argument("--heap", type=words, default=64, help="K words: 64 is a Pico's 64 KB (default)")
    ap.add_argument(
        "--heap-mpy",
        type=words,
        default=HEAP_MPY,
        help=f"K: the 32-bit build loading .mpy, a stock MicroPython's room on a Pico (default {HEAP_MPY})",
    )
    ap.add_argument("--runs", type=int, default=1, help="runs of each module at its heap (default 1)")
    ap.add_argument("--sweep", type=sweep_arg, default=None, help="HI:STEP: every heap above a module's own too")
    ap.add_argument("--sweep-runs", type=int, default=0, help="runs at each heap of the sweep (default --runs)")
    ap.add_argument(
        "--frozen32",
        default="",
        metavar="BIN",
        help="a 32-bit build with the firmware frozen in (tools/frozen_unix32.sh), at --heap",
    )
    ap.add_argument(
        "--cut-stride",
        type=int,
        default=7,
        help="with --frozen32: the power-cut sweeps cut at every Nth byte on each port, the ports at different "
        "offsets (default 7; every byte is cut on CPython or on the frozen build; 1: everywhere)",
    )
    ap.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="interpreters at a time (default: one per core)"
    )
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()
    port_list = ports(args.micropython, args.micropython32, args.frozen32)
    mods = modules(args.filters)
    outcomes = run_all(
        port_list,
        mods,
        args.heap,
        max(1, args.runs),
        args.sweep,
        args.jobs,
        args.sweep_runs,
        heap_mpy=args.heap_mpy,
        cut_stride=max(1, args.cut_stride) if args.frozen32 else 1,
    )
    units = {p: u for p, _, u in port_list}
    passed = sum(o.tests for o in outcomes)
    failed = sum(o.failed_tests for o in outcomes) + sum(sum(o.sweep_failed.values()) for o in outcomes)
    for o in outcomes:
        heap = f"{o.kw}{units[o.port]}"
        ok = o.ok_runs == o.runs and not o.sweep_failed
        line = f"  {o.port} {o.mod:<28} heap {heap:>6} {o.tests:4d} passed {o.failed_tests:3d} failed"
        if o.runs > 1:
            line += f"  {o.ok_runs}/{o.runs} runs"
        if o.sweep_heaps:
            line += f"  sweep {o.sweep_heaps} heaps: " + (
                ", ".join(f"{h}{units[o.port]} {n} failed" for h, n in sorted(o.sweep_failed.items())) or "all pass"
            )
        print(line + ("  ok" if ok else "  FAILED"))
        if not ok:
            print(o.first_failure)
    where = ", ".join(f"{p} {heap_of('', args.heap, p, args.heap_mpy)}{u}" for p, _, u in port_list)
    print(f"micropython ({where}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
