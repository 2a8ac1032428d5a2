"""Host benchmark: time from the pit activation that completes a move to the move stored on disk
(SQLite committed with synchronous=FULL, transcript rewritten and fsynced, event log appended), over a
pseudo-terminal with pyserial, for every move of the 1994 game. Prints a table (markdown)."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bao import notation
from bao_host.log_commands import SerialSession
from bao_host.logger import Logger
from bao_host.store import Store
from bao_host.tui import PtyBoard
from baoboard.recogniser import PIT, activations

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    t = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
    positions = notation.replay(t)
    board = PtyBoard()
    times: list[float] = []
    with tempfile.TemporaryDirectory() as d, Store(d) as st:
        lg = Logger(st)
        s = SerialSession(board.path, lg, timeout=0)
        while not (s.ready and lg.view.game_id is not None):
            board.step()
            s.poll_once()
            board.hw.t += 200
        for i, text in enumerate(t.plies):
            move, _ = notation.parse_move(positions[i], text)
            for b in activations(positions[i], move):
                # each activation: if it completes a move (or ends a house decision), time until stored
                before = lg.counters.moves
                t0 = time.perf_counter()
                board.activate(b & PIT)
                while True:
                    board.step()
                    s.poll_once()
                    if lg.counters.moves != before:
                        times.append(time.perf_counter() - t0)
                        break
                    if time.perf_counter() - t0 > 0.05:
                        break  # this activation completed no move
        while lg.counters.moves < len(t.plies):
            board.step()
            s.poll_once()
        assert st.games()[0].plies == t.plies
        s.close()
    board.close()
    ms = [x * 1000 for x in times]
    print(f"| measure (1994 game, {len(ms)} moves stored, pty + pyserial) | ms |")
    print("|---|---|")
    print(f"| median activation -> stored on disk | {statistics.median(ms):.2f} |")
    print(f"| 90th percentile | {sorted(ms)[int(len(ms) * 0.9)]:.2f} |")
    print(f"| worst | {max(ms):.2f} |")
    print(f"| best | {min(ms):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
