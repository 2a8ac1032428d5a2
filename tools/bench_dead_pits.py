"""Dead inputs, one at a time (issue #26): each of the 32 pits' input dies at a given ply of the 1994 game,
played on the simulated board as a person does (a flagged touch in the middle of a move, after a look, taken
back and made again, at most twice; one flagged between moves sown on from: tests/firmware/test_board_health.py).
Counts the runs whose moves are all recorded as played, the runs where a move was recorded that was not
played, the runs where the dead pit is named, and the false alarms: a healthy pit called dead, a chip
called silent (one input is not its chip). Run by `make bench`;
writes its table into docs/benchmarks.md ("Dead inputs (one pit at a time)").
`python tools/bench_dead_pits.py [--plies 30] [--at 2 3 6 9] [--no-write]`."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "firmware"), str(ROOT / "firmware"), str(ROOT / "tools")]

from bao.layout import pit_name  # noqa: E402
from bench_common import Table, replace_section  # noqa: E402
from test_board_health import _board, _errors, _play_as_a_person  # noqa: E402

TITLE = "Dead inputs (one pit at a time)"


def one(pit: int, at: int, plies: int) -> dict[str, object]:
    """One run, pit's input dead from ply `at`: whether the moves are as played, whether a move not played
    was recorded, whether the pit is named dead, the healthy pits called dead, whether a chip is called
    silent."""
    b, hw, host, hands, st = _board()

    def wire_off(k: int) -> None:
        if k == at:
            hw.dead[pit >> 3] = 1 << (pit & 7)

    try:
        want = _play_as_a_person(b, hands, host, plies, wire_off)
        got = host.moves()
    finally:
        st.close()
    errs = [e[2] for e in _errors(host)]
    dead = [m.group(1) for e in errs if '"dead"' in e for m in [re.search(r'"pit": "(\w+)"', e)] if m]
    return {
        "played": got == want,
        "wrong": any(g != w for g, w in zip(got, want)),
        "named": pit_name(pit) in dead,
        "false": sorted({x for x in dead if x != pit_name(pit)}),
        "silent": any('"silent"' in e for e in errs),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plies", type=int, default=30, help="plies played (default 30)")
    ap.add_argument("--at", type=int, nargs="+", default=[2, 3, 6, 9], help="the plies the input dies at")
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    runs = played = wrong = named = falsely = silent = 0
    left: list[str] = []
    for at in args.at:
        for pit in range(32):
            r = one(pit, at, args.plies)
            runs += 1
            played += bool(r["played"])
            wrong += bool(r["wrong"])
            named += bool(r["named"])
            falsely += len(r["false"])  # type: ignore[arg-type]
            silent += bool(r["silent"])
            if not r["played"] or not r["named"] or r["false"] or r["silent"]:
                what = [
                    "" if r["played"] else "a move recorded that was not played" if r["wrong"] else "moves stop",
                    "" if r["named"] else "not named",
                    f"{', '.join(r['false'])} called dead" if r["false"] else "",  # type: ignore[arg-type]
                    "a chip called silent" if r["silent"] else "",
                ]
                left.append(f"{pit_name(pit)} from ply {at}: {'; '.join(w for w in what if w)}")
                print(left[-1], flush=True)
    tab = Table(["runs", "moves all as played", "a move not played recorded", "the dead pit named",
                 "healthy pits called dead", "a chip called silent"])  # fmt: skip
    tab.add(str(runs), str(played), str(wrong), str(named), str(falsely), str(silent))
    text = tab.render()
    print(text)
    note = (
        f"`python tools/bench_dead_pits.py --plies {args.plies} --at {' '.join(map(str, args.at))}` (run by "
        f"`make bench`), {time.strftime('%Y-%m-%d')}, {time.monotonic() - t0:.0f} s: each of the 32 pits' input "
        f"dies at each of those plies of the 1994 game ({runs} runs of {args.plies} plies), played on the "
        "simulated board by a person who, after a look, takes back a touch flagged in the middle of a move and "
        "makes it again, at most twice, and sows on from one flagged between moves (touched again, it would be "
        "the seed taken back; issue #26, docs/leds.md \"Broken sensors\"). 'Moves all as played': the board's "
        "record is the game; 'a move not played recorded': a move of the record differs from the game's (else "
        "the record stops short: a touch refused for good). The runs left: "
        + ("; ".join(left) if left else "none")
        + '. (a6: a dead a6 and a dead b7, or a silent U4, explain its 6R* alike, docs/leds.md "What the '
        'dead-input rule cannot tell": the board records neither and names both in its refusals, for up to 20 '
        "plies of this person's refused touches, until a later move of North's touches b7, the pit the board "
        "lights; its record then differs from the game, and touches of the game's later moves look like dead "
        "pits.) Before (the same script, main at 8f4279d): 119 / 128 as played, 9 with a move not played "
        "recorded, 127 named, 26 healthy pits called dead, 4 chips called silent (a2 from ply 2, 3, 6, 9: a "
        "namua capture from it in a house decision taken as South's; a6 from ply 2, 3, 6: b7 found dead or U4 "
        "silent; A6 from ply 9: A6 and A8 both fit the touch at A7, and the move was taken as 8R*; a8 from "
        "ply 9: its 8L* read as a7 a6, never found). Main at 6e09101 (a flagged touch made again after a look "
        "between moves too, then evidence; now the seed taken back): the same but 3 healthy pits called dead (A5, "
        "A7, a4 with a6 from ply 6). Main at 2aadd78 (before faults9): 60 as played, 79 named, "
        "14 chips called silent.\n"
    )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", TITLE, text + "\n\n" + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
