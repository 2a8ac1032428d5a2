"""The terminal UI driven with textual's Pilot: clicking pits plays moves, the LEDs show, moves are stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bao import core, notation
from bao_host.logger import Logger
from bao_host.store import Store
from bao_host.tui import BaoApp, LocalBoard, PitButton, led_style
from baoboard.recogniser import PIT, activations

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())


def test_clicking_the_first_moves_of_1994(tmp_path: Path) -> None:
    plies = 8
    positions = notation.replay(T1994)

    async def play() -> None:
        with Store(tmp_path) as st:
            lg = Logger(st, south="Ramadhan", north="Kijumbe")
            board = LocalBoard(lg, clock=lambda: 0)
            app = BaoApp(board, lg, tick=0.05)
            async with app.run_test(size=(160, 50)) as pilot:
                for i in range(plies):
                    p = positions[i]
                    move, _ = notation.parse_move(p, T1994.plies[i], notation.DONKERS)
                    seq = [b & PIT for b in activations(p, move)]
                    # the LEDs before the move: the first pit of the move is lit as a start (green)
                    frame = board.leds()
                    r, g, b = frame[3 * seq[0]: 3 * seq[0] + 3]
                    assert g > 0 and r == 0, (i, (r, g, b))
                    for k, pit in enumerate(seq):
                        await pilot.click(f"#pit-{pit}")
                        await pilot.pause()
                        if k == 0:
                            # the button shows the LED colour the board lights
                            btn = app.query_one(f"#pit-{seq[0]}", PitButton)
                            f2 = board.leds()
                            want = led_style((f2[3 * seq[0]], f2[3 * seq[0] + 1], f2[3 * seq[0] + 2]))
                            assert btn.led == want and want != led_style((0, 0, 0))
                    assert board.positions[-1].d == positions[i + 1].d, i
                await pilot.pause()
                assert lg.view.plies == T1994.plies[:plies]
                await pilot.press("question_mark")
                await pilot.pause()
                await pilot.press("escape")
                await pilot.press("u")  # undo the last move from the host
                await pilot.pause()
                await pilot.press("q")
            [g] = st.games()
            assert g.plies == T1994.plies[:plies - 1]
            assert g.south == "Ramadhan"
            assert core.seed_total(st.current_position(g.id)) == 64

    asyncio.run(asyncio.wait_for(play(), 180))  # a UI that stops answering fails the test


def test_wrong_click_is_refused_with_a_reason(tmp_path: Path) -> None:
    async def play() -> None:
        with Store(tmp_path) as st:
            lg = Logger(st)
            board = LocalBoard(lg, clock=lambda: 0)
            app = BaoApp(board, lg)
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.click("#pit-16")  # a North pit: it is South's turn
                await pilot.pause()
                log = app.query_one("#messages")
                text = "\n".join(str(x) for x in log.lines)  # type: ignore[attr-defined]
                assert "refused a1" in text and "South's turn" in text
            assert st.db.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0

    asyncio.run(asyncio.wait_for(play(), 180))  # a UI that stops answering fails the test


def test_a_tick_after_the_screens_are_gone_does_nothing(tmp_path: Path) -> None:
    # The UI's interval timer may fire once more while the app closes (seen on a loaded machine: the tick
    # landed after the last screen was popped and raised ScreenStackError). A late tick must do nothing.
    async def play() -> BaoApp:
        with Store(tmp_path) as st:
            lg = Logger(st)
            app = BaoApp(LocalBoard(lg, clock=lambda: 0), lg)
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.press("q")
            return app

    app = asyncio.run(asyncio.wait_for(play(), 180))
    assert app.screen_stack == []
    app.step()  # the tick that comes too late
