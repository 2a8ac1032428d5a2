"""The soak, long form (issue #14): many games over the fault proxy of tests/host/test_e2e_faults.py (flipped,
dropped and duplicated bytes, line noise, unplugs, the logger killed with SIGKILL, the board's power cut, a
second board appearing on the logger's path), for several seeds; per seed the faults injected and the tally
of the store against the games the hands played: moves lost, doubled, reordered, games mixed up. Writes the
"Soak" section of docs/benchmarks.md (`make bench`; alone: `python tools/bench_soak.py [--games N]
[--seeds a,b,c] [--mistakes F] [--no-write]`). The short form is `pytest tests/host/test_e2e_faults.py`.

`--runtime pico` runs the same campaign on the Bao-board image in the emulated Pico (bao_testkit.faults.PicoRig:
its flash a file, a power cut a reboot of the image), each game's first `--plies` moves (the emulator runs at a
fraction of real time), then the protocol and journal fuzzers of bao_testkit.picofuzz, and writes the section
"Soak (emulated Pico)" (`make image` first; not run by `make bench`: an hour of wall time)."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bao_testkit.faults import PicoRig, run_faults
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]

TALLY = ("lost", "doubled", "reordered", "games mixed up")


def totals(runs: list[tuple[int, dict[str, Any]]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for _, rep in runs:
        total.update({k: rep["tally"][k] for k in TALLY})
        total.update({"games": rep["games"], "moves": rep["moves"]})
    return total


def render(runs: list[tuple[int, dict[str, Any]]]) -> str:
    """The tally a seed, and the faults injected."""
    kinds = sorted({k for _, rep in runs for k in rep["faults"]})
    tab = Table(["seed", "games", "moves stored", *TALLY, "flagged", "seconds"])
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
    ft = Table(["fault injected", *(f"seed {s}" for s, _ in runs), "total"])
    for k in kinds:
        counts = [rep["faults"].get(k, 0) for _, rep in runs]
        ft.add(k, *(str(c) for c in counts), str(sum(counts)))
    return tab.render() + "\n\n" + ft.render()


def sensor_campaign(seed: int, scenarios: int) -> tuple[list[str], str]:
    """Broken sensors on the image (bao_testkit.picosensors): the defects found, and the table."""
    from bao_testkit.picosensors import campaign
    from bao_testkit.simrig import game_1994

    if not scenarios:
        return [], ""
    with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
        runs = campaign(Path(d), seed, scenarios, game_1994())
    tab = Table(["broken sensors", "reported", "magenta", "moves recorded", "defects", "seconds"])
    found = []
    for what, rep, secs in runs:
        reported = ", ".join(
            f"{e['fault']} {e['chip'] if e['fault'] in ('chip', 'silent') else e['pit']}" for e in rep.errors
        )
        tab.add(
            what, reported or "none", str(len(rep.lit)), " ".join(rep.moves) or "-", str(len(rep.found)), f"{secs:.0f}"
        )
        found += [f"{what}: {x}" for x in rep.found]
        print(f"{what}: {rep.found or 'as a person must see it'}", flush=True)
    return found, "\n\n" + tab.render()


def pico(args: argparse.Namespace) -> int:
    """The campaign and the fuzzers on the emulated Pico's image."""
    from bao_testkit.picofuzz import DAMAGES, JOURNAL_STAGES, journal_fuzz, protocol_fuzz, summary

    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    plies = args.plies or 12
    runs = []
    stalled = []
    for seed in seeds:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
            try:
                rep = run_faults(
                    Path(d),
                    seed=seed,
                    random_games=args.games,
                    mistakes=args.mistakes,
                    rig=PicoRig(Path(d), seed),
                    plies=plies,
                )
            except (AssertionError, TimeoutError, RuntimeError) as e:  # a defect to report, not a crash
                stalled.append(f"seed {seed}: the campaign stopped: {str(e).splitlines()[0]}")
                print(stalled[-1], flush=True)
                continue
        runs.append((seed, rep))
        print(f"seed {seed}: {rep['tally']}, faults {rep['faults']}, {rep['seconds']} s", flush=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
        proto = protocol_fuzz(Path(d), seed=seeds[0], plies=plies, per_stage=args.fuzz, ends=True)
    proto_s = time.monotonic() - t0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
        cases = [
            c
            for stage in JOURNAL_STAGES
            for c in journal_fuzz(
                Path(d) / stage, seed=seeds[0], plies=plies, cases=args.fuzz * len(DAMAGES), stage=stage
            )
        ]
    journal_s = time.monotonic() - t0
    jt = Table(["journal damage", "cases", "booted", "moves lost", "new epoch", "defects"])
    for kind, d in summary(cases).items():
        jt.add(kind, *(str(d[k]) for k in ("cases", "booted", "moves lost", "new epoch", "found")))
    sensors, sensor_text = sensor_campaign(seeds[0], args.sensors)
    found = stalled + proto.found + [c.found for c in cases if c.found] + sensors
    text = (
        render(runs)
        + "\n\n"
        + jt.render()
        + f"\n\nProtocol fuzzer: {proto.inputs} bad inputs ("
        + ", ".join(f"{n} {k}" for k, n in proto.stages.items())
        + f") over {plies} moves, a house decision and a finished game, {len(proto.found)} defects, "
        f"{proto_s:.0f} s; journal fuzzer {journal_s:.0f} s." + sensor_text
    )
    if found:
        text += "\n\nDefects:\n" + "\n".join(f"- {x}" for x in found)
    print(text)
    total = totals(runs)
    ok = all(total[k] == 0 for k in TALLY) and not found
    note = (
        f"`python tools/bench_soak.py --runtime pico --games {args.games} --seeds {args.seeds} --plies {plies} "
        f"--fuzz {args.fuzz} --sensors {args.sensors}` (`make image` first; not in `make bench`): per seed the "
        f"first {plies} moves of the 1994 game and of random Zanzibar and Malawi games, played by simulated "
        "hands through the pins of the Bao-board image on the emulated Pico (its flash a file: a power cut "
        "reboots the image from it), `bao log --board` behind the fault proxy, the second board (CPython) on "
        "its path; then the protocol fuzzer (bad lines and commands between moves and with a hand in a move, "
        "then in a house decision, Zanzibar 2.5b, and in a finished game, a power cut after it: one answer "
        "each, no restart, no move lost) and the journal fuzzer (one sector of the journal's flash damaged at "
        "power-off, with a game under way, a house decision waiting or a finished game: the board boots, keeps "
        "each move whose record is whole, a new epoch when moves were lost); then broken sensors "
        "(bao_testkit.picosensors, on the emulated 74HC165 chain): a chip stuck "
        "active, a pit stuck and a pit flickering on a board idle for 21 s, each reported once (ERROR), lit "
        "magenta, no computer chosen, the stuck ones taken back once mended; and a chip silent from a move of "
        "the 1994 game, played by a person who takes the seed back after a look and touches again: found "
        f"silent, lit, every move recorded. Tally: {total['games']} "
        f"games, {total['moves']} moves, "
        + ", ".join(f"{total[k]} {k}" for k in TALLY)
        + (". " if ok else " (NOT all 0, or defects: see above). ")
        + f"Measured on {platform.machine()} ({os.cpu_count()} cores, shared), Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}. The short form: `make test-pico` "
        "(tests/host/test_pico_fuzz.py, tests/host/test_pico_sensors.py).\n"
    )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Soak (emulated Pico)", text + "\n\n" + note)
    return 0 if ok else 1


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
    ap.add_argument("--runtime", choices=("cpython", "pico"), default="cpython", help="the board (default cpython)")
    ap.add_argument("--plies", type=int, default=None, help="each game's first moves only (pico default 12)")
    ap.add_argument("--fuzz", type=int, default=8, help="pico: bad inputs a stage a move, journal damages a kind")
    ap.add_argument("--sensors", type=int, default=4, help="pico: broken-sensor scenarios (default 4)")
    args = ap.parse_args(argv)
    if args.runtime == "pico":
        return pico(args)
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
    total = totals(runs)
    text = render(runs)
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
