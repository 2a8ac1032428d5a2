"""A puzzle solved and a puzzle failed in the browser (`bao serve`'s /puzzles pages in a headless Chromium,
Playwright): the board drawn from the puzzle's position, the move typed and answered in words, the solver's
rating kept in the library; screenshots compared with the ones kept in tests/host/screenshots
(BAO_UPDATE_SCREENSHOTS=1 writes them anew). An unknown puzzle is a page that says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bao_host.record.store import Store
from bao_testkit import puzzlerig
from bao_testkit.webrig import browser_unavailable, chromium_path, compare_png, serving

WHY_NOT = browser_unavailable()
pytestmark = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT)
SHOTS = Path(__file__).resolve().parent / "screenshots"


@pytest.fixture
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True)
        ctx = browser.new_context(
            viewport={"width": 1100, "height": 760}, device_scale_factor=1, reduced_motion="reduce"
        )
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        ctx.close()
        browser.close()
        assert not errors, f"script errors on the page: {errors}"


@pytest.mark.parametrize(("move", "solved"), [("8", True), ("6R", False)])
def test_a_puzzle_solved_and_failed_in_the_browser(move: str, solved: bool, page: Any, tmp_path: Path) -> None:
    sets = puzzlerig.write_sets(tmp_path / "sets")
    data = tmp_path / "data"
    with serving(data, sims=0, puzzles=sets) as web:
        page.goto(f"{web.url}/puzzles")
        page.click("a.next >> nth=0")  # the next Zanzibar puzzle (the rulesets in bao.core.RULESETS' order)
        assert page.inner_text("h1") == f"Puzzle {puzzlerig.ZANZIBAR_ID} zanzibar"
        page.goto(f"{web.url}/puzzles/{puzzlerig.ZANZIBAR_ID}?solver=Ali")
        assert page.inner_text("#guide") == "North to move: find the one move that is clearly best."
        page.fill("#move", move)
        page.click("#submit")
        page.wait_for_selector("#result.solved" if solved else "#result.failed", timeout=20_000)
        said = page.inner_text("#result")
        assert said.startswith("Solved: 8 is the move." if solved else "Not 6R: the move was 8."), said
        compare_png(SHOTS / f"web-puzzle-{'solved' if solved else 'failed'}.png", page.screenshot(full_page=True))
        page.fill("#move", "B9")  # answered already: the button is off, nothing more is counted
        assert page.is_disabled("#submit")
        page.goto(f"{web.url}/puzzles/z-00000000")
        assert "no puzzle 'z-00000000'" in page.inner_text("main")
    with Store(data, readonly=True) as st:
        ali = st.solver_rating("Ali")
        assert ali is not None and (ali.attempts, ali.solved) == (1, int(solved))


def test_a_line_is_solved_in_the_browser_the_replies_drawn(page: Any, tmp_path: Path) -> None:
    """A puzzle of three moves: each right move is answered with South's reply, the board drawn again after
    it and the next move asked; the third ends the line, and only then is the solver rated."""
    sets = puzzlerig.write_sets(tmp_path / "sets")
    data = tmp_path / "data"
    with serving(data, sims=0, puzzles=sets) as web:
        page.goto(f"{web.url}/puzzles/{puzzlerig.LINE_ID}?solver=Ali")
        assert page.inner_text("#guide") == ("North to move: a line of 3 moves, each clearly best. Find move 1 of 3.")
        for k, move in enumerate(("4L", "3L")):
            page.fill("#move", move)
            page.click("#submit")
            # (a selector, not a script: the page's Content-Security-Policy allows no evaluated string)
            page.wait_for_selector(f"#guide:has-text('move {k + 2} of 3')")
            assert page.inner_text("#result").startswith(f"Right: {move} (move {k + 1} of 3). South replies ")
        assert page.inner_text("#guide") == (
            "North to move: a line of 3 moves, each clearly best. So far: 4L, South 8; 3L, South 3L. Find move 3 of 3."
        )
        assert page.text_content("#count-2") == "10"  # A3 after 4L 8 3L 3L (the terminal's diagram says the same)
        compare_png(SHOTS / "web-puzzle-line.png", page.screenshot(full_page=True))
        with Store(data, readonly=True) as st:
            assert st.solver_rating("Ali") is None  # the line goes on: not rated yet
        page.fill("#move", "5R")
        page.click("#submit")
        page.wait_for_selector("#result.solved", timeout=20_000)
        assert page.inner_text("#result").startswith("Solved: 5R ends the line (move 3 of 3).")
        assert "The line: 4L 8 3L 3L 5R" in page.inner_text("#result")
        rated = page.inner_text("#result").split("rating 1500? -> ")[1].split(" ")[0]
        assert rated.endswith("?")  # a new solver's rating: provisional
        assert page.inner_text("#ratings").startswith(f"Ali: rating {rated} · this puzzle: ")  # (not 1500 still)
    with Store(data, readonly=True) as st:
        ali = st.solver_rating("Ali")
        assert ali is not None and (ali.attempts, ali.solved) == (1, 1)
