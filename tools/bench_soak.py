"""The soak, long form (issue #14): many games over the fault proxy of tests/host/test_e2e_faults.py (flipped,
dropped and duplicated bytes, line noise, unplugs, the logger killed with SIGKILL, the board's power cut, a
second board appearing on the logger's path), for several seeds; per seed the faults injected and the tally
of the store against the games the hands played: moves lost, doubled, reordered, games mixed up. Writes the
"Soak" section of docs/benchmarks.md (`make bench`; alone: `python tools/bench_soak.py [--games N]
[--seeds a,b,c] [--mistakes F] [--no-write]`). The short form is `pytest tests/host/test_e2e_faults.py`."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bao_testkit.faults import run_faults
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]

TALLY = ("lost", "doubled", "reordered", "games mixed up")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8, help="random games per seed, after the 1994 game (default 8)")
    ap.add_argument("--seeds", default="4,11,23", help="comma-separated RNG seeds (default 4,11,23)")
    ap.add_argument(
        "--mistakes",
        type=float,
        default=0.0,
        help="the hands' slips: a wrong pit touched (and the seed taken back) before this share of "
        "the touches (default 0: none)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    runs = []
    for seed in seeds:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
            rep = run_faults(Path(d), seed=seed, random_games=args.games, mistakes=args.mistakes)
        runs.append((seed, rep))
        print(
            f"seed {seed}: {rep['games']} games, {rep['moves']} moves, tally {rep['tally']}, "
            f"faults {rep['faults']}, {rep['seconds']} s",
            flush=True,
        )
    kinds = sorted({k for _, rep in runs for k in rep["faults"]})
    tab = Table(["seed", "games", "moves stored", *TALLY, "flagged", "seconds"])
    total: Counter[str] = Counter()
    for seed, rep in runs:
        t = rep["tally"]
        tab.add(
            str(seed),
            str(rep["games"]),
            str(rep["moves"]),
            *(str(t[k]) for k in TALLY),
            str(rep["flagged"]),
            str(rep["seconds"]),
        )
        total.update({k: t[k] for k in TALLY})
        total.update({"games": rep["games"], "moves": rep["moves"]})
    ft = Table(["fault injected", *(f"seed {s}" for s, _ in runs), "total"])
    for k in kinds:
        counts = [rep["faults"].get(k, 0) for _, rep in runs]
        ft.add(k, *(str(c) for c in counts), str(sum(counts)))
    text = tab.render() + "\n\n" + ft.render()
    print(text)
    ok = all(total[k] == 0 for k in TALLY)
    slips = f" --mistakes {args.mistakes:g}" if args.mistakes else ""
    note = (
        f"`python tools/bench_soak.py --games {args.games} --seeds {args.seeds}{slips}` (run by `make bench`): per "
        "seed the 1994 game and random Zanzibar and Malawi games played by simulated hands on the "
        "unchanged firmware (simulated hardware, flash in memory), `bao log --board` in its own process "
        "behind the fault proxy of tests/host/test_e2e_faults.py; the second board (its own game and events "
        "waiting) is put on the logger's path until the logger has refused it. Tally: the store against "
        f"the moves played, after each run: {total['games']} games, {total['moves']} moves, "
        + ", ".join(f"{total[k]} {k}" for k in TALLY)
        + (". " if ok else " (NOT all 0: a defect). ")
        + f"Measured on {platform.machine()} ({os.cpu_count()} cores, shared), Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}. The short form runs in the test suite "
        "(`pytest tests/host/test_e2e_faults.py -s`, 4 games).\n"
    )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Soak", text + "\n\n" + note)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
