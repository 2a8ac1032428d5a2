"""A puzzle solved and a puzzle failed in the terminal (`bao puzzles --solve`), compared with SVG snapshots
kept beside this file (__snapshots__/; pytest-textual-snapshot): the diagram, the words said, the rating in
the header. The move is typed as a person types it. A snapshot that changes on purpose: `pytest
tests/host/test_puzzles_tui.py --snapshot-update`, and look at the new SVGs before committing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bao_host.puzzles import model
from bao_host.puzzles.session import Solving
from bao_host.record.store import Store
from bao_host.ui.puzzles_tui import PuzzleApp
from bao_testkit import puzzlerig
from textual.pilot import Pilot
from textual.widgets import Input


async def _steady_cursor(pilot: Pilot[int]) -> None:
    """The move field's cursor shown without blinking: a snapshot taken in its off phase would differ from one
    taken in its on phase (it did, under load)."""
    await pilot.pause()
    pilot.app.query_one(Input).cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize(("typed", "solved"), [("8", True), ("6L", False), ("B9", None)])
def test_a_puzzle_solved_failed_and_a_bad_move_in_the_terminal(
    typed: str, solved: bool | None, snap_compare: Any, tmp_path: Path
) -> None:
    puzzles = puzzlerig.example()
    first = model.find(puzzles, puzzlerig.ZANZIBAR_ID)
    app: PuzzleApp

    async def answer(pilot: Pilot[int]) -> None:
        await _steady_cursor(pilot)
        await pilot.press(*typed, "enter")
        await pilot.pause()

    with Store(tmp_path / "data") as st:
        app = PuzzleApp(Solving(st, puzzles, "Ali"), first)
        assert snap_compare(app, terminal_size=(80, 30), run_before=answer)
        said = " ".join(app.lines)
        ali = st.solver_rating("Ali")
    if solved is None:  # a move that cannot be read: said, not counted
        assert "B9" in said and ali is None
    else:
        assert ali is not None and (ali.attempts, ali.solved) == (1, int(solved))
        assert said.startswith("Solved: 8 is the move." if solved else "Not 6L: the move was 8.")


def test_a_line_in_the_terminal_plays_the_replies_and_asks_the_next_move(snap_compare: Any, tmp_path: Path) -> None:
    """A puzzle of three moves: two right moves typed, each followed by South's reply on the diagram; the
    snapshot shows the position where the third is to find, and what was said."""
    puzzles = puzzlerig.example()
    first = model.find(puzzles, puzzlerig.LINE_ID)
    app: PuzzleApp

    async def answer(pilot: Pilot[int]) -> None:
        await _steady_cursor(pilot)
        for typed in ("4L", "3L"):
            await pilot.press(*typed, "enter")
            await pilot.pause()

    with Store(tmp_path / "data") as st:
        app = PuzzleApp(Solving(st, puzzles, "Ali"), first)
        assert snap_compare(app, terminal_size=(80, 30), run_before=answer)
        assert app.lines[0] == "Right: 4L (move 1 of 3). South replies 8: find your next move."
        assert app.lines[2].startswith("Right: 3L (move 2 of 3). South replies 3L: find your next move.")
        assert st.solver_rating("Ali") is None  # the line is not finished: nothing rated


def test_the_verdict_stays_in_sight_at_80x24(tmp_path: Path) -> None:
    """Solving by hand in tmux at 80x24: the answer's words filled the small panel and its first line, right
    or wrong, scrolled out of sight. The verdict is said above the board too (the screen's text is read)."""
    import asyncio
    import html
    import re

    puzzles = puzzlerig.example()
    first = model.find(puzzles, puzzlerig.LINE_ID)

    async def main(st: Store) -> str:
        app = PuzzleApp(Solving(st, puzzles, "Ali"), first)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("4", "R", "enter")
            await pilot.pause()
            return app.export_screenshot()

    with Store(tmp_path / "data") as st:
        svg = asyncio.run(main(st))
    seen = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    assert "Not 4R: the move was 4L (move 1 of 3)." in seen
