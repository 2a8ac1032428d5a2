"""Dead inputs, one at a time (issue #26): each of the 32 pits' input dies at a given ply of the 1994 game,
played on the simulated board as a person does (each flagged touch made again after a look, at most
twice: tests/firmware/test_board_health.py). Counts the runs whose moves are all recorded as played, the
runs where the dead pit is named, and the runs where a chip is called silent (a false alarm: one input is
not its chip). Not in `make bench`.
`PYTHONPATH=tests/firmware python tools/bench_dead_pits.py [--plies 12] [--at 2 3 6 9]`."""

from __future__ import annotations

import argparse

from bao.layout import pit_name
from test_board_health import _board, _errors, _play_as_a_person


def one(pit: int, at: int, plies: int) -> tuple[bool, bool, bool]:
    """(moves as played, the pit named dead, a chip called silent) with pit's input dead from ply `at`."""
    b, hw, host, hands, st = _board()

    def wire_off(k: int) -> None:
        if k == at:
            hw.dead[pit >> 3] = 1 << (pit & 7)

    try:
        want = _play_as_a_person(b, hands, host, plies, wire_off)
        played = host.moves() == want
    finally:
        st.close()
    errs = [e[2] for e in _errors(host)]
    named = any('"dead"' in e and f'"pit": "{pit_name(pit)}"' in e for e in errs)
    return played, named, any('"silent"' in e for e in errs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plies", type=int, default=30, help="plies played (default 30)")
    ap.add_argument("--at", type=int, nargs="+", default=[2, 3, 6, 9], help="the plies the input dies at")
    args = ap.parse_args()
    runs = played = named = silent = 0
    for at in args.at:
        for pit in range(32):
            p, n, s = one(pit, at, args.plies)
            runs += 1
            played += p
            named += n
            silent += s
            if not p or not n or s:
                print(
                    f"ply {at} {pit_name(pit)}: {'' if p else 'moves not as played; '}"
                    f"{'' if n else 'not named; '}{'a chip called silent' if s else ''}",
                    flush=True,
                )
    print(f"{runs} runs: moves as played {played}, the dead pit named {named}, a chip called silent {silent}")


if __name__ == "__main__":
    main()
