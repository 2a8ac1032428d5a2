"""What things cost in RAM on the MicroPython unix port (64-bit), the port the firmware tests run on: a function,
a method, a named constant, a string constant, a qstr, a call's frame, and the sizes the qstr pool grows by.
Writes the "MicroPython RAM costs" section of docs/benchmarks.md (`make bench`; alone:
`python tools/bench_mp_costs.py [--no-write]`). These costs explain the Board section's heap figures: why the
whole board application needs more than 64 KB on the 64-bit port, and what a change to the firmware saves.

Each figure comes from a generated module of 100 units compiled with mpy-cross (as the firmware is), imported
in a fresh interpreter; the increment of gc.mem_alloc() (after collections) is divided by 100."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parent.parent


MP = str(ROOT / ".venv/bin/micropython")
MPYX = str(ROOT / ".venv/bin/mpy-cross")
N = 100

# unit -> module source with N of them
MODULES = {
    "empty": "x = 1\n",
    "function": "".join(f"def fn{i}(a, b):\n    return a + b + {i}\n" for i in range(N)),
    "method": "class K:\n" + "".join(f"    def meth{i}(self, a):\n        return a + {i}\n" for i in range(N)),
    "public": "from micropython import const\n" + "".join(f"CONST_NUM{i} = const({i})\n" for i in range(N)),
    "private": "from micropython import const\n" + "".join(f"_CONST_NUM{i} = const({i})\n" for i in range(N)),
    "strings": "def f(i):\n    return (" + ", ".join(f"'s{i:03d}'" for i in range(N)) + ")[i]\n",
    "qstrs": "".join(f"def g{i}(d):\n    return d['k{i:03d}']\n" for i in range(N)),
}

IMPORT = """
import sys, gc, micropython
sys.path.insert(0, %(lib)r)
gc.collect(); a = gc.mem_alloc()
import %(name)s
gc.collect(); print("BYTES", gc.mem_alloc() - a)
"""

# bytes a call allocates on the heap (a function's frame, a generator's state)
FRAMES = """
import gc
def small(a):
    return a + 1
def large(a):
    b = a + 1; c = b + 1; d = c + 1; e = d + 1; f = e + 1; g = f + 1; h = g + 1; i = h + 1
    j = i + 1; k = j + 1; m = k + 1; n = m + 1
    return a + b + c + d + e + f + g + h + i + j + k + m + n
def gen(a):
    yield a
for fn in (small, large):
    gc.collect(); gc.disable(); x = gc.mem_alloc()
    for _ in range(100):
        fn(1)
    print("FRAME", fn.__name__, (gc.mem_alloc() - x) // 100); gc.enable()
gc.collect(); gc.disable(); x = gc.mem_alloc()
for _ in range(100):
    next(gen(1))
print("FRAME", "generator", (gc.mem_alloc() - x) // 100); gc.enable()
"""

# the qstr pool: every new name interned; a full pool makes a new one twice its size, in one piece
POOLS = """
import micropython
class O: pass
o = O()
for i in range(1400):
    setattr(o, "name%04d" % i, 1)
    micropython.qstr_info()
"""


def module_costs(tmp: Path) -> dict[str, int]:
    lib = tmp / "lib"
    lib.mkdir()
    out: dict[str, int] = {}
    for name, src in MODULES.items():
        py = tmp / f"{name}.py"
        py.write_text(src)
        subprocess.run([MPYX, "-o", str(lib / f"cost_{name}.mpy"), str(py)], check=True)
        r = subprocess.run(
            [MP, "-X", "heapsize=1024k", "-c", IMPORT % {"lib": str(lib), "name": f"cost_{name}"}],
            capture_output=True,
            text=True,
            timeout=60,
        )
        m = re.search(r"^BYTES (\d+)$", r.stdout, re.M)
        if not m:
            raise SystemExit(f"{name}: {r.stdout}{r.stderr}")
        out[name] = int(m.group(1))
    return out


def frame_costs() -> dict[str, int]:
    r = subprocess.run([MP, "-c", FRAMES], capture_output=True, text=True, timeout=60)
    return {w[1]: int(w[2]) for w in (line.split() for line in r.stdout.splitlines()) if w and w[0] == "FRAME"}


def pool_sizes() -> list[tuple[int, int]]:
    """(qstrs interned when a new pool appeared, bytes that pool added)."""
    r = subprocess.run([MP, "-X", "heapsize=1024k", "-c", POOLS], capture_output=True, text=True, timeout=60)
    out = []
    prev = None  # (pools, bytes of the pools) at the previous line
    for line in r.stdout.splitlines():
        m = re.match(r"qstr pool: n_pool=(\d+), n_qstr=(\d+), n_str_data_bytes=(\d+), n_total_bytes=(\d+)", line)
        if not m:
            continue
        pools, nq, data, total = (int(g) for g in m.groups())
        if prev is not None and pools > prev[0]:
            out.append((nq, total - data - prev[1]))
        prev = (pools, total - data)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        cost = module_costs(Path(d))
    base = cost["empty"]
    frames = frame_costs()
    pools = pool_sizes()

    def per(name: str) -> str:
        return f"{(cost[name] - base) / N:.0f}"

    t = Table(["unit (loaded from .mpy, 64-bit unix port)", "bytes of heap each"])
    t.add("a function `def fn(a, b): return a + b + k` (its objects, bytecode, name)", per("function"))
    t.add("a method of a class", per("method"))
    t.add("a named constant `NAME = const(k)` (a global another module can import)", per("public"))
    t.add("a private constant `_NAME = const(k)` (inlined by mpy-cross, no global)", per("private"))
    t.add("a short string in a constant tuple (a str object)", per("strings"))
    t.add("a function using a short string key (the string is a qstr)", per("qstrs"))
    f = Table(["call (gc disabled, 100 calls)", "bytes allocated per call"])
    f.add("a function with 1 local", str(frames.get("small", -1)))
    f.add("a function with 13 locals (the frame is on the C stack)", str(frames.get("large", -1)))
    f.add("a generator (its frame lives on the heap until it is collected)", str(frames.get("generator", -1)))
    q = Table(["qstr pool", "qstrs interned when it was made", "bytes, in one piece"])
    for i, (nq, size) in enumerate(pools, 1):
        q.add(f"pool {i}", str(nq), str(size))
    intro = (
        "`python tools/bench_mp_costs.py` (run by `make bench`): what the MicroPython unix port from PyPI "
        "(64-bit x86) spends on each kind of thing the firmware is made of. A 32-bit port (the Pico's "
        "RP2040) stores object words in 4 bytes, not 8, and allocates in 16-byte blocks, not 32: objects, "
        "tables and frames take about half of these figures there, while bytecode and string bytes take "
        "the same."
    )
    note = (
        "What follows for the board (Board section): its resident modules hold about 170 functions and "
        "methods, 560 names interned as qstrs and about 29 KB of bytecode, so about half of their 55 KB "
        "on the 64-bit port is the per-object cost above, which a 32-bit port halves. Calls allocate nothing for "
        "their frames; generators (the sowing engine is one) and the strings, lists and bytearrays of a "
        "move do, and near a full heap it is the contiguity of the free space, not its total, that fails "
        "first (Board section). A module loaded late (a rare job) can make the "
        "qstr pool grow by the next size in the table, in one piece: loading such code early, while the "
        "heap is empty, avoids it."
    )
    body = "\n\n".join([intro, t.render(), f.render(), q.render(), note])
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs/benchmarks.md", "MicroPython RAM costs", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
