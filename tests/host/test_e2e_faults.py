"""Faults between the simulated board and the logger over a pty: line noise, corrupted frames, the logger
killed and restarted mid-game. The stored game must equal the played one: 0 moves lost, 0 duplicated."""

from __future__ import annotations

import random
from pathlib import Path

from bao import notation
from bao_host.log_commands import SerialSession
from bao_host.logger import Logger
from bao_host.store import Store
from bao_host.tui import PtyBoard

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())


def test_noise_and_logger_restarts(tmp_path: Path) -> None:
    rng = random.Random(7)
    positions = notation.replay(T1994)
    board = PtyBoard()
    faults = {"noise": 0, "corrupt": 0, "restart": 0}

    def session() -> tuple[Store, Logger, SerialSession]:
        st = Store(tmp_path)
        lg = Logger(st)
        return st, lg, SerialSession(board.path, lg, timeout=0)

    st, lg, s = session()
    for i, text in enumerate(T1994.plies):
        move, _ = notation.parse_move(positions[i], text)
        board.hands.perform(positions[i], move)
        r = rng.random()
        if r < 0.2:
            board._write(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\n")
            faults["noise"] += 1
        elif r < 0.3:
            board._write(b"E99 MOVE 7L* {} *00000000\n")  # a wrong checksum
            faults["corrupt"] += 1
        elif r < 0.4:
            st.close()  # the logger killed: whatever it had not acknowledged, the board sends again
            s.close()
            st, lg, s = session()
            faults["restart"] += 1
        for _ in range(5):
            board.step()
            s.poll_once()
    for _ in range(400):
        board.step()
        s.poll_once()
        board.hw.t += 100
        if st.games() and len(st.games()[0].plies) == len(T1994.plies):
            break
    [g] = st.games()
    assert g.plies == T1994.plies, faults
    n = st.db.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    assert n == len(T1994.plies)
    print("injected faults:", faults)
    assert all(faults.values())
    s.close()
    st.close()
    board.close()
