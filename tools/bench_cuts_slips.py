"""Power cuts and slips together, fast (issue #26, item 3): the firmware in-process (CPythonBoard, flash in
memory), no link and no logger, random games played by the simulated hands with slips (a wrong pit touched,
then the seed taken back), the power cut between two touches or torn into a later flash write. After each
move the board must stand where the game does (or wait for a house decision); after a cut, at one of the
last moves, which the hands play again. Prints per seed the moves, cuts and moves the board got wrong; exit
status 1 if any. `python tools/bench_cuts_slips.py [--seeds 1:31] [--games 2] [--mistakes 0.2] [--cuts 0.2]`.
The soak with its link faults is tools/bench_soak.py --mistakes."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from bao import core
from bao_host.boards.sim import CPythonBoard, Hands
from bao_host.record.logger import same_position
from bao_testkit.simrig import random_game
from baoboard.memstorage import FakeStorage
from baoboard.recogniser import DECISION

ROOT = Path(__file__).resolve().parent.parent


def set_up_again(board: CPythonBoard, hands: Hands) -> None:
    """A cut in the middle of a move: the board boots into the set-up of the pits the move may have changed
    (#28, docs/leds.md); the hands put each right and touch it (a store: its side's back-row end), as a person
    does, then stay away a while (a touch at the place set up last is absorbed)."""
    s = board.app.setup
    if s is None:
        return
    while s.current() >= 0:
        c = s.current()
        hands.tap(c if c < 32 else 15 if c == 32 else 31)
    board.run(450, 5)


def one_seed(seed: int, games: int, mistakes: float, cuts: float) -> tuple[int, int, list[str]]:
    """(moves followed, power cuts, what went wrong) for one seed."""
    rng = random.Random(seed)
    board = CPythonBoard(storage=FakeStorage(), board_id="b")
    hands = Hands(board, mistakes=mistakes, seed=seed)
    moves = 0
    wrong: list[str] = []
    for gi in range(games):
        g = random_game(rng, core.MALAWI if gi % 2 else core.ZANZIBAR)
        board.storage.budget = -1
        if gi:
            board.app.command(0, "NEW", json.dumps({"ruleset": g.ruleset}))
        positions = [p for p, _ in g.moves] + [g.final]
        i = attempts = 0
        while i < len(g.moves) and attempts < 3 * len(g.moves) + 20:
            attempts += 1
            p, m = g.moves[i]
            before = board.power_cuts
            at = rng.randrange(0, 12) if rng.random() < cuts else -1
            torn = rng.random() >= 0.3
            for t, _ in enumerate(hands.steps(p, m)):
                if board.power_cuts != before:
                    break
                if t == at:  # between two touches: now, or during one of the next flash writes
                    board.power_cut(rng.randrange(0, 600) if torn else None)
            board.run(40, 5)
            now = board.app.p
            if board.power_cuts != before:
                board.storage.budget = -1
                set_up_again(board, hands)
                for j in (i + 1, i, i - 1, i - 2):
                    if 0 <= j < len(positions) and same_position(now, positions[j]):
                        i = j
                        break
                else:
                    wrong.append(f"game {gi + 1} move {i + 1}: after a power cut, at no move of the game")
                    break
                continue
            if board.app.rec.phase != DECISION and not same_position(now, positions[i + 1]):
                made = [core.format_move(x, p.to_move) for x, c in core.legal_moves(p) if same_position(now, c)]
                wrong.append(
                    f"game {gi + 1} move {i + 1}: {core.format_move(m, p.to_move)} played, "
                    f"{made[0] if made else 'no move'} on the board"
                )
                break
            moves += 1
            i += 1
        if wrong:
            break
    return moves, board.power_cuts, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1:31", help="a:b, the seeds a..b-1 (default 1:31)")
    ap.add_argument("--games", type=int, default=2, help="random games per seed (default 2)")
    ap.add_argument("--mistakes", type=float, default=0.2, help="the hands' slips per touch (default 0.2)")
    ap.add_argument("--cuts", type=float, default=0.2, help="power cuts per move played (default 0.2)")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.seeds.split(":"))
    t0 = time.monotonic()
    total = [0, 0, 0]
    for seed in range(lo, hi):
        moves, cuts, wrong = one_seed(seed, args.games, args.mistakes, args.cuts)
        total[0] += moves
        total[1] += cuts
        total[2] += len(wrong)
        for w in wrong:
            print(f"seed {seed}: {w}", flush=True)
    print(
        f"seeds {args.seeds}: {total[0]} moves followed, {total[1]} power cuts, {total[2]} seeds with a move "
        f"wrong ({time.monotonic() - t0:.0f} s)"
    )
    return 1 if total[2] else 0


if __name__ == "__main__":
    sys.exit(main())
