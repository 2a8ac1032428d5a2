"""End to end over a pseudo-terminal: the board application on simulated hardware, its serial side on a
pty opened by the logger with pyserial; the stored games must equal the played ones."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from bao import core, notation
from bao_host.log_commands import SerialSession
from bao_host.logger import Logger
from bao_host.store import Store
from bao_host.tui import BaoApp, PtyBoard
from baoboard.recogniser import PIT, activations

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())


def pump(board: PtyBoard, session: SerialSession, n: int = 3) -> None:
    for _ in range(n):
        board.step()
        session.poll_once()


def connect(board: PtyBoard, lg: Logger) -> SerialSession:
    s = SerialSession(board.path, lg, timeout=0)
    for _ in range(200):
        pump(board, s, 1)
        if s.ready and lg.view.game_id is not None:
            break
        board.hw.t += 200  # let the board's resend timer run
    assert s.ready and lg.view.game_id is not None, list(lg.messages)
    return s


def play(board: PtyBoard, s: SerialSession, p: core.Position, move: int) -> None:
    board.hands.perform(p, move)
    pump(board, s)


def test_1994_game_over_a_pty(tmp_path: Path) -> None:
    board = PtyBoard()
    with Store(tmp_path) as st:
        lg = Logger(st, south="Ramadhan", north="Kijumbe")
        s = connect(board, lg)
        positions = notation.replay(T1994)
        for i, text in enumerate(T1994.plies):
            move, _ = notation.parse_move(positions[i], text)
            play(board, s, positions[i], move)
        pump(board, s, 10)
        [g] = st.games()
        assert g.plies == T1994.plies
        assert st.current_position(g.id).d == positions[-1].d
        t = notation.parse_transcript((tmp_path / "games" / (g.key + ".txt")).read_text())
        assert t.plies == T1994.plies and t.header("board") == "sim-0001"
        assert lg.counters.flagged == 0
        s.close()
    board.close()


def test_random_games_over_a_pty(tmp_path: Path) -> None:
    rng = random.Random(1994)
    board = PtyBoard()
    played: list[list[str]] = []
    with Store(tmp_path) as st:
        lg = Logger(st)
        s = connect(board, lg)
        for game in range(10):
            if game:
                board.new_game(core.ZANZIBAR if game % 3 else core.MALAWI)
                pump(board, s)
            p = board.app.p
            texts: list[str] = []
            for _ in range(rng.randrange(5, 40)):
                moves = core.legal_moves(p)
                if not moves:
                    break
                m, child = rng.choice(moves)
                texts.append(notation.format_move(m, p.to_move))
                play(board, s, p, m)
                p = child
            played.append(texts)
        pump(board, s, 10)
        games = st.games()
        assert [g.plies for g in games] == played
        assert lg.counters.flagged == 0
        s.close()
    board.close()


def test_tui_on_the_simulated_board(tmp_path: Path) -> None:
    plies = 6
    positions = notation.replay(T1994)

    async def run() -> None:
        board = PtyBoard()
        with Store(tmp_path) as st:
            lg = Logger(st)
            s = SerialSession(board.path, lg, timeout=0)
            app = BaoApp(board, lg, pump=s.poll_once, tick=0.02)
            async with app.run_test(size=(160, 50)) as pilot:
                for _ in range(100):
                    await pilot.pause(0.02)
                    if s.ready:
                        break
                for i in range(plies):
                    move, _ = notation.parse_move(positions[i], T1994.plies[i])
                    seq = [b & PIT for b in activations(positions[i], move)]
                    f = board.leds()
                    assert f[3 * seq[0] + 1] > 0  # the start pit is lit green
                    for pit in seq:
                        await pilot.click(f"#pit-{pit}")
                    await pilot.pause(0.05)
                for _ in range(100):
                    if len(lg.view.plies) == plies:
                        break
                    await pilot.pause(0.05)
                assert lg.view.plies == T1994.plies[:plies]
            [g] = st.games()
            assert g.plies == T1994.plies[:plies]
            s.close()
        board.close()

    asyncio.run(run())
