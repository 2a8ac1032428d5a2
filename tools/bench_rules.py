"""Rules-core benchmark: perft(9) on CPython and MicroPython, move listing times on MicroPython, memory
of a whole game with the firmware as .mpy, .mpy sizes. Prints tables and rewrites the "Rules core"
section of docs/benchmarks.md. Run by `make bench` (after `make firmware`)."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bao import core, query
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parent.parent
MP = str(ROOT / ".venv/bin/micropython")


def mp(*args: str, heap: str = "8M") -> tuple[int, dict[str, str]]:
    proc = subprocess.run(
        [MP, "-X", f"heapsize={heap}", "tools/bench_rules_mp.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    values = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        values[key] = value
    return proc.returncode, values


def min_heap(seed: int) -> int:
    """The smallest heap (KB) in which a whole random game runs to its end (bisection)."""
    lo, hi = 16, 256
    while lo < hi:
        mid = (lo + hi) // 2
        rc, _ = mp("game", str(seed), heap=f"{mid}k")
        if rc == 0:
            hi = mid
        else:
            lo = mid + 1
    return lo


def main() -> int:
    rows = Table(["figure", "value", "target"])
    p = core.initial()
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        n = query.perft(p, 9)
        runs.append(time.perf_counter() - t)
    rows.add(
        f"perft(9) = {n:,}, CPython {platform.python_version()}",
        f"{min(runs):.2f} s best, {statistics.median(runs):.2f} s median of 3",
        "< 1 s",
    )
    _, v = mp("perft", "9")
    us = int(v["perft"].split()[2])
    rows.add("perft(9), MicroPython unix port", f"{us / 1e6:.2f} s", "")
    # The kuu games (issue #12): deeper than the tests go. The advanced placement's plies are single drops
    # (16 per ply for South's five, M22); the intermediate count is the core's own (4, 14, 30, ... tested).
    for ruleset, depth, want in (("malawi-intermediate", 9, 83313), ("malawi-advanced", 5, 16**5)):
        q = core.initial(ruleset)
        t = time.perf_counter()
        n = query.perft(q, depth)
        cpu = time.perf_counter() - t
        if n != want:
            raise SystemExit(f"perft({depth}) of {ruleset} is {n}, expected {want}")
        _, v = mp("perft", str(depth), ruleset)
        us = int(v["perft"].split()[2])
        rows.add(
            f"perft({depth}) {ruleset} = {n:,}: CPython, MicroPython unix port", f"{cpu:.2f} s, {us / 1e6:.2f} s", ""
        )
    _, v = mp("moves", "1000")
    rows.add(
        f"list all legal moves with their accounts, {v['positions']} positions (1994 game + random, all rulesets)",
        f"median {int(v['median_us']) / 1000:.2f} ms, p99 {int(v['p99_us']) / 1000:.2f} ms, "
        f"worst {int(v['worst_us']) / 1000:.2f} ms",
        "worst < 5 ms",
    )
    worst_position = v["worst_position"]
    seeds = list(range(1, 9))
    code = peak_alloc = 0
    plies = []
    for s in seeds:
        _, g = mp("game", str(s), heap="256k")
        code = int(g["code_bytes"])
        peak_alloc = max(peak_alloc, int(g["working_peak_bytes"]))
        plies.append(int(g["plies"]))
    heaps = [min_heap(s) for s in seeds]
    rows.add("loaded rules code (core, notation, position_json as .mpy, after import)", f"{code / 1024:.1f} KB", "")
    rows.add(
        f"bytes allocated per ply, worst of {len(seeds)} random games of the four rulesets "
        f"({min(plies)}-{max(plies)} plies)",
        f"{peak_alloc / 1024:.1f} KB",
        "",
    )
    rows.add(
        "smallest heap that plays a whole game (code + working memory), worst game",
        f"{max(heaps)} KB (working memory above the code: {max(heaps) - code // 1024} KB)",
        "64 KB in all, 16 KB working",
    )
    # bench_rules_mp.py's game SEED plays ruleset number SEED % 4; a kuu game also loads bao.kuu (M7-M22)
    names = ("malawi", "zanzibar", "malawi-intermediate", "malawi-advanced")
    by = {n: max(h for s, h in zip(seeds, heaps) if names[s % 4] == n) for n in names}
    rows.add("... worst game of each ruleset", ", ".join(f"{n} {by[n]} KB" for n in names), "")
    bao_mpy = sum(f.stat().st_size for f in (ROOT / "build/firmware/bao").glob("*.mpy"))
    all_mpy = sum(f.stat().st_size for f in (ROOT / "build/firmware").rglob("*.mpy"))
    rows.add("size of bao/*.mpy (rules core, armv6m)", f"{bao_mpy / 1024:.1f} KB", "")
    rows.add("size of all firmware .mpy", f"{all_mpy / 1024:.1f} KB", "")
    text = rows.render()
    print(text)
    load = os.getloadavg()[0]  # the machine is shared: timings are slower when it is busy
    note = (
        f"Measured with `make bench` on {platform.machine()}, {time.strftime('%Y-%m-%d')}, load average "
        f"{load:.1f} on {os.cpu_count()} cores. "
        "MicroPython figures come from the unix port (x86-64, not the RP2040: expect a Pico to be "
        "one to two orders of magnitude slower). The worst position of the listing run:\n\n"
        f"```json\n{worst_position}\n```\n"
    )
    replace_section(ROOT / "docs/benchmarks.md", "Rules core", text + "\n" + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
