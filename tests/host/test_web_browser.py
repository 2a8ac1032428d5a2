"""`bao serve` in a real headless Chromium (Debian's package, driven by Playwright): the live board follows a
game played on the simulated board over the logger, its pits drawn in the LEDs' colours; a click plays a
move; a replay animates drop by drop; library texts are shown, never run; screenshots of the main pages are
compared with the ones kept in tests/host/screenshots (BAO_UPDATE_SCREENSHOTS=1 writes them anew)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bao import core, notation
from bao_host.record.store import Store
from bao_host.ui.tui import HELP
from bao_host.ui.web.svg import RADIUS, pit_centre
from bao_testkit.webrig import (
    Web,
    browser_unavailable,
    chromium_path,
    compare_screenshot,
    led_colour,
    serving,
    state,
    wait_for,
)
from baoboard.recogniser import PIT, activations

WHY_NOT = browser_unavailable()
pytestmark = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
T1994_TEXT = (ROOT / "games" / "zanzibar-1994.txt").read_text()
T1994 = notation.parse_transcript(T1994_TEXT)
POSITIONS = notation.replay(T1994)
EVIL = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
VIEWPORT = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    ctx = chromium.new_context(viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()  # (before the server stops: an open event stream would hold it up)
    assert not errors, f"script errors on the page: {errors}"


def _library(d: Path) -> None:
    with Store(d) as st:
        st.import_text(T1994_TEXT)
        head = f"South: Ali\nNorth: {EVIL}\ndate: 2026-11-20\n"
        st.import_text(head + notation.format_transcript({}, T1994.plies[:6]))


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#board[data-version]")


def _drawn_rgb(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".pit", "cs => cs.map(c => c.getAttribute('data-rgb'))"))


def _board_rgb_in_dom_order(frame: bytes, page: Any) -> list[str]:
    order = page.eval_on_selector_all(".pit", "cs => cs.map(c => Number(c.id.slice(4)))")
    return [frame[3 * i : 3 * i + 3].hex() for i in order]


def _shows_the_leds(page: Any, web: Web) -> bool:
    frame = web.board().feed.leds  # (the frame the board said last: read on the server's thread only)
    return _drawn_rgb(page) == _board_rgb_in_dom_order(frame, page)


def _pixels_match_the_leds(page: Any, web: Web) -> None:
    """What is drawn: each pit's colour in a screenshot of the board, against its LED's value. (A blinking
    pit may change between the frame read and the screenshot: tried again until one screenshot agrees
    with the frame the board said just before it and still says after it, within the wait's bound.)"""
    mismatch: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []

    def agrees() -> bool:
        frame = bytes(web.board().feed.leds)  # (the frame the board said last: read on the server's thread only)
        found = _drawn_differently(page, frame)
        if bytes(web.board().feed.leds) != frame:
            return False  # (the frame changed while the screenshot was taken)
        mismatch[:] = found
        return not found

    try:
        wait_for(agrees, "a screenshot of the board that agrees with the LEDs", 20)
    except AssertionError:
        raise AssertionError(f"the pits drawn differ from the LEDs (pit, drawn, LED): {mismatch}") from None


def _drawn_differently(page: Any, frame: bytes) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    from PIL import Image

    box = page.locator("#board").bounding_box()
    img = Image.open(io.BytesIO(page.locator("#board").screenshot())).convert("RGB")
    scale = img.width / box["width"]
    found = []
    for pit in range(32):
        x, y = pit_centre(pit)
        px = img.getpixel((int((x - RADIUS + 9) * scale), int(y * scale)))  # inside the pit, off its text
        want = led_colour(*frame[3 * pit : 3 * pit + 3], frame=frame)
        if not all(abs(a - b) <= 6 for a, b in zip(px, want)):
            found.append((core.pit_name(pit), tuple(px), tuple(want)))
    return found


def _moves_shown(page: Any) -> list[str]:
    return str(page.inner_text("#moves")).split()


def test_the_spectator_view_follows_a_game_over_the_logger(tmp_path: Path, page: Any) -> None:
    with serving(tmp_path / "d", south="Ramadhan", north="Kijumbe") as web:
        _open(page, web.url + "/board/sim-1/watch")
        assert page.locator("#controls").count() == 0 and "clickable" not in page.get_attribute("#board", "class")
        wait_for(lambda: _shows_the_leds(page, web), "the start's LEDs on the page")
        _pixels_match_the_leds(page, web)
        runner = web.board().runner
        for i in range(3):
            move, _ = notation.parse_move(POSITIONS[i], T1994.plies[i])
            assert runner.perform(POSITIONS[i], move).wait(30)
            wait_for(lambda n=i + 1: _moves_shown(page) == T1994.plies[:n], f"ply {i + 1} on the page")
            wait_for(lambda: _shows_the_leds(page, web), f"the LEDs after ply {i + 1}")
        # a sowing half done: the page shows the board's frame drop by drop (the next pit lit)
        move, _ = notation.parse_move(POSITIONS[3], T1994.plies[3])
        for pit in [a & PIT for a in activations(POSITIONS[3], move)][:3]:
            runner.tap(pit).wait(30)
        wait_for(lambda: _shows_the_leds(page, web), "the LEDs in the middle of a sowing")
        _pixels_match_the_leds(page, web)
        counts = web.board().counts()
        assert [int(page.text_content(f"#count-{p}")) for p in range(32)] == counts[:32]
        assert page.inner_text("#who") == "South: Ramadhan · North: Kijumbe"  # who plays, said once (#25)
        assert "North to move" in page.inner_text("#turn")


def test_clicking_pits_plays_a_move_with_the_boards_guidance(tmp_path: Path, page: Any) -> None:
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        assert page.get_attribute("#live", "data-playing") == "yes"
        wait_for(lambda: "put a seed from the store into a green pit" in page.inner_text("#guide"), "the guidance")
        page.click("#pit-20")  # North's pit while South is to move: refused with the rule
        wait_for(lambda: "refused" in page.inner_text("#messages"), "the refusal")
        for i in range(2):
            move, _ = notation.parse_move(POSITIONS[i], T1994.plies[i])
            for pit in [a & PIT for a in activations(POSITIONS[i], move)]:
                page.click(f"#pit-{pit}")
            wait_for(lambda n=i + 1: _moves_shown(page) == T1994.plies[:n], f"ply {i + 1} played by clicks")
        wait_for(lambda: _shows_the_leds(page, web), "the LEDs after the clicks")
        assert web.board().runner.position == POSITIONS[2]
        page.click("#undo")
        wait_for(lambda: _moves_shown(page) == T1994.plies[:1], "the undo")
        page.select_option("#ruleset", "malawi")
        page.click("#new-game")
        wait_for(
            lambda: [int(page.text_content(f"#count-{p}")) for p in range(32)] == [2] * 32 and _moves_shown(page) == [],
            "a new Malawi game",
        )
        wait_for(lambda: _shows_the_leds(page, web), "the LEDs of the new game")


def test_a_replay_animates_drop_by_drop(tmp_path: Path, page: Any) -> None:
    _library(tmp_path / "d")
    with serving(tmp_path / "d", sims=0) as web:
        page.goto(web.url + "/games/1?speed=15")
        page.wait_for_selector("#board[data-at='0']")
        data = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
        first = data["plies"][0]["frames"]
        page.click("#next-drop")
        assert page.get_attribute("#board", "data-at") == "1"
        lit = first[0]["pit"]
        assert page.get_attribute(f"#pit-{lit}", "data-lit") == "yes"
        assert "a seed from the store goes into" in page.inner_text("#step")
        assert [int(page.text_content(f"#count-{p}")) for p in range(32)] == first[0]["counts"][:32]
        page.click("#start")
        page.evaluate("""() => { window.seen = []; new MutationObserver(() =>
            window.seen.push(Number(document.getElementById('board').getAttribute('data-at'))))
            .observe(document.getElementById('board'), {attributes: true, attributeFilter: ['data-at']}); }""")
        end = len(first) + len(data["plies"][1]["frames"])
        page.click("#play")
        page.wait_for_function(
            "(end) => window.seen.length > 0 && window.seen[window.seen.length - 1] >= end", arg=end, timeout=30000
        )
        page.click("#play")  # pause
        seen = page.evaluate("window.seen")
        assert seen[:end] == list(range(1, end + 1))  # every drop shown, one after the other
        page.click("#ply-3")
        want = POSITIONS[3].counts()[:32]
        assert [int(page.text_content(f"#count-{p}")) for p in range(32)] == want
        assert "current" in page.get_attribute("#ply-3", "class")


def test_library_texts_are_shown_never_run(tmp_path: Path, page: Any) -> None:
    _library(tmp_path / "d")
    with serving(tmp_path / "d", sims=0) as web:
        for url in ("/games", "/games/2", "/games?player=" + EVIL):
            page.goto(web.url + url)
            page.wait_for_load_state("load")
            assert page.evaluate("window.__xss") is None, url
        page.goto(web.url + "/games")
        assert EVIL in page.inner_text("#games")
        page.goto(web.url + "/games/2")
        assert page.inner_text("#title-north") == EVIL


def _compare(name: str, png: bytes) -> None:
    compare_screenshot(SHOTS, name, png)


def test_screenshots_of_the_main_pages(tmp_path: Path, page: Any) -> None:
    with serving(tmp_path / "board") as web:
        _open(page, web.url + "/board/sim-1")
        wait_for(
            lambda: (
                _shows_the_leds(page, web)
                and "green pit" in page.inner_text("#guide")
                and "new game (zanzibar)" in page.inner_text("#messages")
            ),
            "the board at the start",
        )
        _compare("web-board", page.screenshot(full_page=True))
    _library(tmp_path / "d")
    with serving(tmp_path / "d", sims=0) as web:  # (a simulated board's game would carry today's date)
        page.goto(web.url + "/games")
        _compare("web-library", page.screenshot(full_page=True))
        page.goto(web.url + "/games/1")
        page.wait_for_selector("#board[data-at='0']")
        for _ in range(2):
            page.click("#next-move")
        for _ in range(3):
            page.click("#next-drop")
        _compare("web-replay", page.screenshot())


def test_play_the_computer_with_a_hint_in_the_browser(tmp_path: Path, page: Any) -> None:
    # issue #25: the browser had no "play the computer" and no "hint"; both now, with the terminal's words
    # (the adapter's step_guidance: the same sentence on both faces)
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        wait_for(lambda: _shows_the_leds(page, web), "the start")
        assert "store into a green pit" in page.inner_text("#guide")  # the namua stage: from the store
        page.click("#hint")
        wait_for(lambda: page.inner_text("#guide").startswith("Hint: "), "the hint in words")
        assert page.inner_text("#guide") == web.board().step_guidance()
        _compare("web-hint", page.locator("#guide").screenshot())  # (the pits blink: the words only)
        page.select_option("#computer", "2")
        wait_for(lambda: "North: computer 2" in page.inner_text("#who"), "who plays North")
        p = web.board().runner.position
        move, _ = notation.parse_move(p, "7L*")
        for pit in activations(p, move):
            page.click(f"#pit-{pit & PIT}", force=True)
        wait_for(lambda: page.inner_text("#guide").startswith("The computer plays "), "the computer's move", timeout=60)
        assert page.inner_text("#guide") == web.board().step_guidance()
        wait_for(lambda: _shows_the_leds(page, web), "the computer's move lit")
        _compare("web-computer", page.locator("#guide").screenshot())


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + bytes(rgb).hex()


def _events_say(page: Any, web: Web, *states: dict[str, Any]) -> None:
    """The page's event stream replaced by these states, in this order (then no reconnection for long):
    what a page gets from a board whose moves arrive whole, or whose LEDs show what a test chose."""
    body = "retry: 600000\n\n" + "".join("data: " + json.dumps(s) + "\n\n" for s in states)
    page.route(
        "**/board/sim-1/events",
        lambda route: route.fulfill(
            status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}, body=body
        ),
    )


def test_the_board_is_drawn_with_seeds_heaps_and_a_square_house(tmp_path: Path, page: Any) -> None:
    # issue #25: the board was numbered circles; now seeds in the pits (the count in small type), the stores as
    # heaps and the house pits square, each pit still in its LED's colour
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        wait_for(lambda: _shows_the_leds(page, web), "the start")
        counts = web.board().counts()
        seeds = [page.locator(f"#seeds-{p} circle.seed").count() for p in range(32)]
        assert seeds == [min(c, 30) for c in counts[:32]]
        south, north = web.board().stores()
        assert page.locator("#heap-s circle.seed").count() == south == 22
        assert page.locator("#heap-n circle.seed").count() == north
        houses = page.eval_on_selector_all("rect.pit", "rs => rs.map(r => r.id)")
        assert sorted(houses) == sorted(f"pit-{p}" for p in (core.SOUTH * 16 + 4, core.NORTH * 16 + 4))
        _pixels_match_the_leds(page, web)
        _compare("web-board-seeds", page.locator("#board").screenshot())


def test_a_move_that_arrives_whole_is_sown_drop_by_drop(tmp_path: Path, chromium: Any) -> None:
    # issue #25: the live board jumped from one position to the next; a move reported whole (a real board's,
    # or a page that looked away) is now sown again drop by drop, the pits keeping the LEDs' colours
    with serving(tmp_path / "d") as web:
        before = state(web)
        p = POSITIONS[0]
        move, _ = notation.parse_move(p, T1994.plies[0])
        assert web.board().runner.perform(p, move).wait(30)
        after = wait_for(lambda: (s := state(web))["last"] and s["plies"] == T1994.plies[:1] and s, "the move")
        frames = after["last"]["frames"]
        assert after["last"]["before"] == before["counts"] + before["stores"] and len(frames) > 3
        ctx = chromium.new_context(viewport=VIEWPORT, device_scale_factor=1)
        try:
            page = ctx.new_page()
            _events_say(page, web, before, after)
            page.add_init_script("""window.drops = []; window.countsSeen = [];
                new MutationObserver(() => { const b = document.getElementById('board');
                  if (!b || !b.hasAttribute('data-drop')) return;
                  window.drops.push(Number(b.getAttribute('data-drop')));
                  window.countsSeen.push([...Array(34).keys()].map(i => i < 32
                    ? document.getElementById('seeds-' + i).childElementCount : -1)); })
                .observe(document, {subtree: true, attributes: true, attributeFilter: ['data-drop']});""")
            page.goto(web.url + "/board/sim-1?speed=20")
            page.wait_for_function("(n) => window.drops.length >= n", arg=len(frames) + 1, timeout=30000)
            drops = page.evaluate("window.drops")
            assert drops == [f["pit"] for f in frames] + [-1]  # each step of the move, then none
            seen = page.evaluate("window.countsSeen")
            assert [c[:32] for c in seen[:-1]] == [[min(n, 30) for n in f["counts"][:32]] for f in frames]
            assert [int(page.text_content(f"#count-{i}")) for i in range(32)] == after["counts"]
            leds = bytes.fromhex(after["leds"])
            fills = page.eval_on_selector_all(
                ".pit", "cs => cs.map(c => [Number(c.id.slice(4)), c.getAttribute('fill')])"
            )
            for pit, fill in fills:
                assert fill == _hex(led_colour(*leds[3 * pit : 3 * pit + 3], frame=leds)), core.pit_name(pit)
        finally:
            ctx.close()


def test_a_refused_touch_and_no_host_are_not_drawn_as_guidance(tmp_path: Path, page: Any) -> None:
    # issue #25: on the spectator view a refused touch's red-pink and the "no host" corners' blue looked like
    # move guidance; now each has its marker, the corners their own dim blue, and a legend says them all
    with serving(tmp_path / "d") as web:
        s = state(web)
        leds = bytearray(bytes.fromhex(s["leds"]))
        scaled = lambda rgb: bytes(c * 64 // 255 for c in rgb)  # noqa: E731 (the board's brightness)
        for pit in (8, 15, 24, 31):
            leds[3 * pit : 3 * pit + 3] = scaled((0, 0, 0x30))  # NOHOST
        leds[3 * 20 : 3 * 20 + 3] = scaled((0xFF, 0, 0x40))  # WRONG: a touch refused
        leds[3 * 3 : 3 * 3 + 3] = scaled((0, 0x40, 0xFF))  # CHOICE: a direction to choose
        leds[3 * 5 : 3 * 5 + 3] = scaled((0, 0xFF, 0x40))  # the hint's bright green
        _events_say(page, web, dict(s, leds=leds.hex()))
        page.goto(web.url + "/board/sim-1/watch")
        page.wait_for_selector("#board[data-version]")
        marks = {p: page.text_content(f"#mark-{p}") for p in range(32)}
        assert {p: m for p, m in marks.items() if m} == {8: "⊘", 15: "⊘", 24: "⊘", 31: "⊘", 20: "✕", 5: "★"}
        corner, choice = page.get_attribute("#pit-8", "fill"), page.get_attribute("#pit-3", "fill")
        assert corner != choice and corner != _hex(led_colour(0, 0, 12))
        legend = page.inner_text("#legend")
        for words in ("a refused touch", "no host connected", "the computer's move or a hint", "choose the direction"):
            assert words in legend
        _compare("web-spectator-lights", page.locator("#live .left").screenshot())


def test_the_losers_dim_red_is_not_the_red_of_a_capture(tmp_path: Path, page: Any) -> None:
    # seen playing the computer in the browser (issue #25): at the end the loser's dim red pits were drawn
    # as the full red of a pit to capture; drawn dim now, as the LEDs are, and the legend says gold and dim red
    with serving(tmp_path / "d") as web:
        s = state(web)
        leds = bytearray(96)
        for pit in range(32):
            leds[3 * pit : 3 * pit + 3] = bytes((64, 48, 0)) if pit < 16 else bytes((8, 0, 0))  # WIN, LOSE
        _events_say(page, web, dict(s, leds=leds.hex(), turn="South wins"))
        page.goto(web.url + "/board/sim-1/watch")
        page.wait_for_selector("#board[data-version]")
        loser = page.get_attribute("#pit-20", "fill")
        assert loser != _hex(led_colour(8, 0, 0, bytes(leds))) and loser != _hex(led_colour(64, 0, 0, bytes(leds)))
        assert page.get_attribute("#pit-3", "fill") == _hex(led_colour(64, 48, 0, bytes(leds)))
        assert "the winner's pits (dim red: the loser's)" in page.inner_text("#legend")


def test_the_computer_choice_shows_the_boards_mode_after_a_reload(tmp_path: Path, page: Any) -> None:
    # issue #25, "a mode the UI shows is a mode that works": the board keeps who the computer plays; a page
    # opened later showed "a person (two players)" while the computer played North
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        page.select_option("#computer", "3")
        wait_for(lambda: "North: computer 3" in page.inner_text("#who"), "the computer chosen")
        page.reload()
        page.wait_for_selector("#board[data-version]")
        wait_for(lambda: page.input_value("#computer") == "3", "the page's choice: the board's level")
        page.select_option("#computer", "5")
        wait_for(lambda: "North: host engine" in page.inner_text("#who"), "the host's engine chosen")
        page.reload()
        page.wait_for_selector("#board[data-version]")
        wait_for(lambda: page.input_value("#computer") == "5", "the host's engine shown after a reload")


def test_a_lesson_in_the_browser_alone(tmp_path: Path, page: Any) -> None:
    """Issue #28: a lesson on the web board without a physical board. The page starts it; the lesson's words,
    rules and task are in the page; a wrong answer made by clicks is explained (the rule and what the move
    did), the position set again, the right one ends the lesson and the library keeps it done."""
    from bao_host import lessons

    lesson = lessons.load(lessons.LESSONS / "zanzibar-09-winning.toml")
    p = lesson.position
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1?lesson=zanzibar-09-winning")
        assert page.is_hidden("#lesson")
        page.click("#start-lesson")
        wait_for(lambda: "Task 1 of 1: North: South's front row" in page.inner_text("#lesson-task"), "the task")
        assert page.inner_text("#lesson-title") == f"Lesson: {lesson.title}"
        assert "R9: " in page.inner_text("#lesson-rules")
        wait_for(lambda: web.board().runner.position == p and _shows_the_leds(page, web), "the position set")
        _compare("web-lesson", page.locator("#lesson").screenshot())
        for text in ("5L", "6R"):  # a wrong answer first, then the right one
            wait_for(lambda: web.board().runner.position == p, f"the position before {text}")
            move, _ = notation.parse_move(p, text)
            for pit in activations(p, move):
                page.click(f"#pit-{pit & PIT}", force=True)
            if text == "5L":
                wait_for(lambda: "Not this one, 5L" in page.inner_text("#messages"), "the wrong answer explained")
                said = page.inner_text("#messages")
                assert "the game goes on (1.1, 1.2)" in said and "Hint: put the store seed into a6" in said
                wait_for(
                    lambda: "The position is set again: try once more." in page.inner_text("#messages"),
                    "the position set again (the browser alone: no seeds to lay out)",
                )
        wait_for(lambda: page.inner_text("#lesson-task") == "Lesson done (1 wrong answer).", "the lesson done")
        assert "(1.2, R9)" in page.inner_text("#messages")
        _open(page, web.url + "/board/sim-1?lesson=zanzibar-09-winning")  # the library keeps it done
        assert page.inner_text("#lesson-name option:checked") == f"{lesson.title} (done)"


def test_a_malawi_lesson_shows_its_ruleset_in_the_page(tmp_path: Path, page: Any) -> None:
    """Issue #28, used: during a Malawi lesson the page's ruleset said "zanzibar" (the next new game's default).
    It follows the board's ruleset now: the lesson's once its position is set, unless a person chooses another."""
    from bao_host import lessons

    lesson = lessons.load(lessons.LESSONS / "malawi-01-basic.toml")
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1?lesson=malawi-01-basic")
        assert page.input_value("#ruleset") == "zanzibar"  # the board's game before the lesson
        page.click("#start-lesson")
        wait_for(lambda: web.board().runner.position == lesson.position, "the lesson's position set")
        wait_for(lambda: page.input_value("#ruleset") == "malawi", "the page's ruleset: the lesson's")
        assert state(web)["ruleset"] == "malawi"
        page.select_option("#ruleset", "malawi-advanced")  # a person's choice for the next new game stays
        seen = page.get_attribute("#board", "data-version")
        page.click("#pit-9", force=True)  # (a touch, B7: a move begun, a new state from the board)
        wait_for(lambda: page.get_attribute("#board", "data-version") != seen, "the page's next state")
        assert page.input_value("#ruleset") == "malawi-advanced"


def test_the_lookalike_lights_are_told_apart(tmp_path: Path, page: Any) -> None:
    # issue #25 (found last session): on the page the start's green and the bright green of the computer's move
    # or a hint looked alike (each pit brought up to full brightness on its own), and the dim white "not
    # recorded" corners looked like the white next pit. The frame now keeps its dim colours dim, the bright
    # green start is marked ★ with a white ring, the corners are dim grey marked !, and the legend says so.
    # The computer's level blinked in the hint's bright green: violet now, marked ◆ (not the takasia's purple)
    with serving(tmp_path / "d") as web:
        s = state(web)
        leds = bytearray(96)
        lit = {
            6: 0x00A000,
            7: 0x00A000,
            5: 0x00FF40,
            4: 0xFFFFFF,
            16: 0x6000FF,
            17: 0x6000FF,
            19: 0xA000FF,
            8: 0x303030,
            15: 0x303030,
            24: 0x303030,
            31: 0x303030,
        }
        for pit, rgb in lit.items():  # at the board's default brightness (baoboard.guide: c * 64 >> 8)
            leds[3 * pit : 3 * pit + 3] = bytes(((rgb >> sh) & 255) * 64 >> 8 for sh in (16, 8, 0))
        _events_say(page, web, dict(s, leds=leds.hex()))
        page.goto(web.url + "/board/sim-1/watch")
        page.wait_for_selector("#board[data-version]")
        marks = {p: page.text_content(f"#mark-{p}") for p in range(32)}
        assert {p: m for p, m in marks.items() if m} == {5: "★", 16: "◆", 17: "◆", 8: "!", 15: "!", 24: "!", 31: "!"}
        fill = {p: page.get_attribute(f"#pit-{p}", "fill") for p in lit}
        start, hint = _hex(led_colour(0, 40, 0, bytes(leds))), _hex(led_colour(0, 63, 16, bytes(leds)))
        assert fill[6] == fill[7] == start and fill[5] == hint  # the grammar's two greens, #00A000 and #00FF40
        assert int(start[3:5], 16) < 0xB0 and int(hint[3:5], 16) == 0xFF
        grey = int(fill[8][1:3], 16)
        assert fill[4] == "#ffffff" and fill[8] == fill[31] and grey < 0x80  # a dim grey, not the next pit
        legend = page.inner_text("#legend")
        assert "bright green ★: the computer's move or a hint" in legend and "this game is not recorded" in legend
        assert "violet ◆: the computer's level (that many pits)" in legend  # the computer's level: not the hint's green
        _compare("web-lookalike-lights", page.locator("#live .left").screenshot())


def test_a_power_cut_mid_move_is_set_up_again_in_the_browser(tmp_path: Path, page: Any) -> None:
    """What a person sees on the web board after a power cut in the middle of a move (#28): why the board asks
    for a set-up (it keeps every recorded move and guesses nothing) and the place to count again, in words;
    then, each place clicked as the words say, the move to play again, and the move played."""
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        wait_for(lambda: "put a seed from the store into a green pit" in page.inner_text("#guide"), "the guidance")
        runner = web.board().runner
        p = POSITIONS[0]
        move, _ = notation.parse_move(p, T1994.plies[0])
        acts = [a & PIT for a in activations(p, move)]
        for pit in acts[:3]:
            runner.tap(pit).wait(30)
        with runner.lock:
            runner.board.power_cut()  # the board boots again from its journal: the move begun, not made
        wait_for(lambda: page.inner_text("#guide").startswith("Set-up after a power cut mid-move"), "the set-up")
        wait_for(lambda: "Power cut mid-move: the board keeps" in page.inner_text("#messages"), "why, said once")
        wait_for(lambda: _shows_the_leds(page, web), "the place to count again lit")
        _compare("web-set-up-after-a-power-cut", page.screenshot())  # the words above the board too
        for _ in range(40):
            guide = page.inner_text("#guide")
            if not guide.startswith("Set-up"):
                break
            pit = core.pit_index(guide.split("touch ")[-1].rstrip(".").split(" or ")[0])
            page.click(f"#pit-{pit}")
            wait_for(lambda g=guide: page.inner_text("#guide") != g, "the next step")
        assert "then play the move that was cut short again from its start." in page.inner_text("#messages")
        # (#28) the hand off the place set up last first: the game's lights come on two seconds after
        assert page.inner_text("#guide").startswith("The board is set up. Take your hand off "), page.inner_text(
            "#guide"
        )
        runner.scans(500).wait(30)  # (the hand away from the place set up last)
        wait_for(lambda: "green pit" in page.inner_text("#guide"), "the game's step again, once ready")
        for pit in acts:
            page.click(f"#pit-{pit}")
        wait_for(lambda: _moves_shown(page) == T1994.plies[:1], "the move played again, recorded")


def _led_colours(module: str) -> list[str]:
    """The colours a firmware module of the board lights, as its constants' comments name them."""
    code = (ROOT / "firmware" / "baoboard" / module).read_text()
    return re.findall(r"^_?[A-Z_]+ = const\(0x[0-9A-F]{6}\)\s+#\s+([a-z -]+?)(?: instead)?[,:]", code, re.M)


def test_the_legend_names_the_set_up_colours(tmp_path: Path, page: Any) -> None:
    # issues #25 and #28: the set-up mode lit pits sky blue, orange and white, a side's back-row ends, a pink
    # refused touch, which the legend did not name; it names each colour baoboard/setup_mode.py lights now,
    # in the words of the terminal UI's help
    with serving(tmp_path / "d") as web:
        _open(page, web.url + "/board/sim-1")
        wait_for(lambda: "green pit" in page.inner_text("#guide"), "the game")
        web.call(lambda: web.board().set_up(POSITIONS[20]))  # (on the server's loop: the link is its alone)
        wait_for(lambda: page.inner_text("#guide").startswith("Set-up, step 1 of"), "the set-up's first step")
        wait_for(lambda: _shows_the_leds(page, web), "its place lit")
        # each entry's words, after its swatch
        items = page.eval_on_selector_all("#legend li.setup", "ls => ls.map(l => l.lastChild.textContent.trim())")
        colours = _led_colours("setup_mode.py")
        assert {"sky blue", "orange", "white", "pink"} <= set(colours), colours
        helped = " ".join(HELP.replace("\\\n", "").split())
        for colour in colours:
            said = [i for i in items if i.startswith(f"set-up, {colour}")]
            assert said, (colour, items)
            words = said[0].split(": ", 1)[1].split(" (")[0]
            assert any(f"{colour}{sep}{words}" in helped for sep in (", ", ": ", ", blinking: ")), (colour, words)
        _compare("web-set-up-legend", page.locator("#live .left").screenshot())
