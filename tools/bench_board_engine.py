"""The board's engine (playing the computer, firmware/baoboard/opponent.py), run by `make bench`: its speed on
the emulated Pico (tools/pico: the real RP2040 MicroPython image, 125 MHz, Pico time) and its strength at
the board's limits against the greedy player. Rewrites the "Board engine" section of docs/benchmarks.md.

    python tools/bench_board_engine.py [--games 200] [--pico-nodes 500]

1. tools/bench_engine_mp.py on the emulated Pico: 7 positions (the 1994 game, Malawi) searched --pico-nodes
   nodes each with the board's largest table (opponent._TT_MAX_BITS), timed in Pico milliseconds: nodes per second.
2. The board's level 4 is 1,200 nodes and at most 3 s of Pico time a move: the measured speed turns 3 s
   into a node budget (the search is the same code and, given a node limit, the same moves on every
   interpreter, up to the table's hash), and that budget plays --games games against greedy on CPython
   (bao_host.engine.match: pairs from 4-ply random openings, colours swapped). Playing the games on the emulated
   Pico itself would take about 13 s of wall time a move here.
3. What the scan loop costs the board's search (tools/pico/onpico/engine_steps.py, the board's chips
   attached): the board application built as main.py builds it, then 3 s searches of 1994-game positions
   with an idle App.step() every 8 nodes (as while the board thinks) and without: the nodes each gets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parent.parent


PICO_RUN = ROOT / "tools" / "pico" / "pico-run.mjs"
MOVE_MS = 3000  # the board's time limit a move (opponent._MOVETIME_MS)


def pico_speed(nodes: int, bits: int) -> dict[str, str]:
    code = f"exec(open('/bench_engine_mp.py').read(), {{'ARGV': ['b', '{nodes}', '{bits}', '/'], '__name__': 'bench'}})"
    cmd = [
        "node",
        str(PICO_RUN),
        "--dir",
        str(ROOT / "build" / "firmware"),
        "--exclude",
        "main.py",
        "--dir",
        f"{ROOT / 'games'}:/games",
        "--dir",
        f"{ROOT / 'tools' / 'bench_engine_mp.py'}:/",
        "-c",
        code,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"pico-run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)


def scan_cost() -> dict[str, list[int]]:
    """Nodes of 3 s searches on the emulated Pico with the scan loop's steps and without."""
    code = open(ROOT / "tools" / "pico" / "onpico" / "engine_steps.py").read()
    cmd = [
        "node",
        str(PICO_RUN),
        "--board",
        "--timeout",
        "3600",
        "--dir",
        str(ROOT / "build" / "firmware"),
        "--exclude",
        "main.py",
        "--dir",
        f"{ROOT / 'games'}:/games",
        "-c",
        code,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"pico-run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def board_matches(
    budgets: tuple[tuple[int, str], ...], bits: int, games: int, host: bool = True
) -> list[tuple[str, str]]:
    """The board's engine (its quiescence depth, a table of 2 ** bits slots) at each node budget against the
    greedy player and, with host, against the host's engine (bao_host.engine.players.EnginePlayer: its own
    table and quiescence) at the same nodes: CPython, pairs from 4-ply random openings, colours swapped.
    Returns (what, result) rows."""
    from bao_host.engine import match, players
    from baoboard.opponent import QDEPTH

    rows = []
    for nodes, label in budgets:
        a = players.EnginePlayer(nodes=nodes, tt_bits=bits, name=f"board engine {nodes} nodes ({label})")
        a.engine.qdepth = QDEPTH  # as on the board
        rivals: list[tuple[Any, str]] = [(players.GreedyPlayer(seed=1), "greedy")]
        if host:
            h = players.EnginePlayer(nodes=nodes)
            rivals.append(
                (h, f"the host engine at {nodes} nodes (table 2^{h.engine.tt_bits}, quiescence {h.engine.qdepth})")
            )
        for b, name in rivals:
            t = time.monotonic()
            r = match.run_match(a, b, games, seed=2026)
            print(r.summary(), f"({time.monotonic() - t:.0f} s)", flush=True)
            diff, low, high = r.elo()
            rows.append(
                (
                    f"{a.name}, table 2^{bits}, vs {name}, {r.played} games",
                    f"+{r.wins} -{r.losses} ={r.draws}: {100 * r.score / r.played:.0f} %, Elo "
                    f"{match.fmt_elo(diff)} ({match.fmt_elo(low)} to {match.fmt_elo(high)})",
                )
            )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games of each match against greedy")
    ap.add_argument("--pico-nodes", type=int, default=500, help="nodes per position on the emulated Pico")
    args = ap.parse_args()
    from bao_host.boards.pico import PicoUnavailable, check_available
    from baoboard import opponent
    from baoboard.opponent import NODES, QDEPTH

    bits = opponent._TT_MAX_BITS  # the table the board uses when its heap allows (a Pico's does)
    rows = Table(["the board's engine", "value"])
    note = ""
    try:
        check_available()
    except PicoUnavailable as e:
        print(f"bench_board_engine: no emulated Pico ({e}): the node budget is the levels' alone")
        nps = 0
    else:
        if not (ROOT / "build" / "firmware").is_dir():
            subprocess.run(["make", "-C", str(ROOT), "firmware"], check=True, capture_output=True)
        t = time.monotonic()
        v = pico_speed(args.pico_nodes, bits)
        nps = int(v["nps"])
        rows.add(
            f"search on the emulated Pico ({v['positions']} positions x {args.pico_nodes} nodes, table 2^{bits}, .mpy)",
            f"{nps:,} nodes per second of Pico time ({int(v['nodes']):,} nodes in "
            f"{int(v['ms']) / 1000:.1f} s; {time.monotonic() - t:.0f} s wall)",
        )
        rows.add("live heap after the searches (engine, table, rules core)", f"{int(v['heap_used']) // 1024} KB")
        t = time.monotonic()
        cost = scan_cost()
        full = [i for i, ms in enumerate(cost["without_ms"]) if ms >= MOVE_MS]  # (not a forced end found early)
        with_steps = [cost["with"][i] for i in full]
        without = [cost["without"][i] for i in full]
        share = 1 - sum(with_steps) / sum(without)
        rows.add(
            f"nodes in a 3 s search of Pico time, {len(full)} positions of the 1994 game (table 2^{bits}, "
            f"quiescence {QDEPTH})",
            f"median {statistics.median(without):,.0f} alone, "
            f"{statistics.median(with_steps):,.0f} with an idle App.step() every 8 nodes (the board "
            f"thinking): the scan loop takes {share:.0%} of the search's nodes "
            f"({time.monotonic() - t:.0f} s wall)",
        )
        for level in range(1, len(NODES)):
            rows.add(
                f"level {level}: {NODES[level]:,} nodes a move, at most 3 s",
                f"about {min(MOVE_MS, NODES[level] * 1000 // max(1, nps)) / 1000:.1f} s a move on a Pico",
            )
    budget = min(NODES[-1], MOVE_MS * nps // 1000) if nps else NODES[-1]
    os.nice(5)
    load = os.getloadavg()[0]
    for label, result in board_matches(
        ((NODES[1], "level 1"), (budget, "level 4: 3 s of Pico time")), bits, args.games, host=False
    ):
        rows.add(label, result)
    note = (
        f"`python tools/bench_board_engine.py --games {args.games} --pico-nodes {args.pico_nodes}` (run by "
        f"`make bench`) on {platform.machine()}, load average {load:.1f}, {time.strftime('%Y-%m-%d')}. The "
        "emulated Pico runs the real RP2040 MicroPython image at 125 MHz in Pico time (repeatable; a real "
        "Pico is somewhat slower: the emulator models no XIP cache misses). A node costs a move "
        "generation of the rules core with every child position, about 30 times slower than on the "
        "unix ports (Engine section). The matches are played on CPython at the node budget that 3 s of "
        "Pico time buys (the issue's target: at least 90 % against greedy); the board's engine is the "
        "same code with the same limits, its table hashed differently on MicroPython (only the move "
        "ordering can differ)."
    )
    body = rows.render() + "\n\n" + note + "\n"
    print(body)
    replace_section(ROOT / "docs" / "benchmarks.md", "Board engine", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
