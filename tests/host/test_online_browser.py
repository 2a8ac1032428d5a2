"""Online play in the browser (issue #27, docs/online.md "In the browser"), in a real headless Chromium (Debian's,
driven by Playwright): a player without a board makes a game in the web pages, a simulated board (the unchanged
firmware, with its host client) joins it with the invitation's code, and the two play the 1994 game to its 30th ply, the
browser clicking North's moves, the board sowing them as lit; a spectator page follows every drop of every
move. Two browsers play each other through an invitation link. Screenshots are compared with the ones kept in
tests/host/screenshots (BAO_UPDATE_SCREENSHOTS=1 writes them anew)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import onlinerig
import pytest
from bao import core, notation
from bao_host.online.client import Api, Seat
from bao_host.record.state import DECISION
from bao_host.record.store import Store
from bao_host.ui.web.library import ply_frames
from bao_testkit import simrig
from bao_testkit.webrig import browser_unavailable, chromium_path, compare_screenshot

WHY_NOT = browser_unavailable()
pytestmark = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT)

SHOTS = Path(__file__).resolve().parent / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}
# Every drop the spectator's page draws, as a person sees it: the move and drop it shows, the pit lit, and
# the counts written in the pits and the stores (read from the page's text, not from its script's state).
RECORD_DROPS = """
window.baoSeen = [];
document.addEventListener("DOMContentLoaded", () => {
  const board = document.getElementById("board");
  new MutationObserver(() => {
    const f = board.getAttribute("data-frame");
    if (f === null || f === "end") return;
    const counts = [];
    for (let p = 0; p < 32; p++) counts.push(Number(document.getElementById("count-" + p).textContent));
    for (const id of ["store-s", "store-n"]) {
      counts.push(Number(document.getElementById(id).textContent.split(": ")[1]));
    }
    window.baoSeen.push({ ply: Number(board.getAttribute("data-ply")), frame: Number(f),
                          pit: Number(board.getAttribute("data-drop")), counts });
  }).observe(board, { attributes: true, attributeFilter: ["data-frame"] });
});
"""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True)
        yield browser
        browser.close()


class Pages:
    """Browser pages, each in its own context (its own localStorage: its own player), closed before the
    server stops (an open event stream would hold it up); no script error on any of them."""

    def __init__(self, chromium: Any) -> None:
        self.chromium = chromium
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, record: bool = False) -> Any:
        ctx = self.chromium.new_context(viewport=VIEWPORT, device_scale_factor=1)
        if record:
            ctx.add_init_script(RECORD_DROPS)
        self.contexts.append(ctx)
        pg = ctx.new_page()
        pg.on("pageerror", lambda e: self.errors.append(str(e)))
        return pg

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def pages(chromium: Any) -> Iterator[Pages]:
    p = Pages(chromium)
    yield p
    p.close()
    assert not p.errors, f"script errors on the pages: {p.errors}"


def _make_game(page: Any, url: str, name: str, side: str) -> str:
    """A new game made in the web pages: the invitation's code the page shows while the other is awaited."""
    page.goto(url + "/online?speed=5")
    page.fill("#name", name)
    page.select_option("#side", side)
    page.click("#create")
    page.wait_for_selector("#invitation:not([hidden])")
    assert "waiting for the other player" in page.inner_text("#guide")
    return str(page.text_content("#invite-code"))


def _start_pit(p: core.Position, text: str) -> int:
    m, _ = notation.parse_move(p, text)
    return p.to_move * 16 + (m & core.RING)


def _click_move(page: Any, p: core.Position, text: str, step: Any, ply: int, shot: str = "") -> bool:
    """The player's move made as a person makes it: the start pit clicked when it is lit green, then, when
    the pit starts more than one move, the move chosen among the ones the page offers (the page's board and
    the moves offered compared with the screenshot `shot` first, if named). True when more than one was
    offered."""
    pit = _start_pit(p, text)
    lit = f'.pit-group[data-pit="{pit}"][data-start="yes"]'
    simrig.wait_for(
        lambda: page.locator(lit).count() == 1 and "Your move" in page.inner_text("#guide"),
        60,
        step,
        f"the browser's turn at ply {ply}",
    )
    page.click(lit)
    offered = page.locator("#choices button").count() > 0
    if offered and shot:
        compare_screenshot(SHOTS, shot, page.locator("#online .left").screenshot())
    if offered:
        page.click(f'#choices button[data-move="{text}"]')
    return offered


def _board_move(pl: onlinerig.Player, p: core.Position, m: int, step: Any, what: str) -> None:
    job = pl.runner.perform(p, m)
    simrig.wait_for(job.done.is_set, 60, step, what)
    if pl.runner.phase == DECISION:  # 2.5b with the opponent far away: the player says stop
        pl.session.command("STOP")


def _seen_every_drop(spectator: Any, g: simrig.Played, upto: int) -> None:
    """The spectator's page drew every drop of plies 1..upto, in order: the pit and the counts of each of the
    rules core's frames."""
    seen = spectator.evaluate("window.baoSeen")
    for n in range(1, upto + 1):
        p, m = g.moves[n - 1]
        want = [(f["pit"], f["counts"]) for f in ply_frames(p, m)]
        got = [(s["pit"], s["counts"]) for s in seen if s["ply"] == n]
        assert got == want, f"ply {n}: the spectator drew {len(got)} drops, the move has {len(want)}"


# The 1994 game up to the browser's house decision (ply 30, 5R>: three moves from one pit, 2.5b): the namua
# stage's captures and takasa moves on both sides; South resigns there. The rest of the game is played
# board to board in test_online_cli.
PLIES = 30


def test_a_board_plays_a_browser_and_a_spectator_follows_every_drop(tmp_path: Path, pages: Pages) -> None:
    g = simrig.game_1994()
    plies = g.plies[:PLIES]
    assert plies[-1] == "5R>"
    server = onlinerig.Server(tmp_path / "server").start()
    api = Api(server.url)
    browser = pages.new()
    code = _make_game(browser, server.url, "Wanjiru", "N")
    board = onlinerig.player("alice", api, api.join(code, "Alice"), tmp_path / "alice")
    spectator = pages.new(record=True)
    game = board.bridge.seat.game
    step = board.pump
    try:
        spectator.goto(f"{server.url}/online/game/{game}/watch?speed=5")
        simrig.wait_for(lambda: board.bridge.local is not None, 60, step, "the board to start the online game")
        assert "you play North" in browser.inner_text("#who")
        shot = "online-browser-choice"  # (the first choice the browser is offered)
        for i, (p, m) in enumerate(g.moves[:PLIES]):
            n = i + 1
            if p.to_move == core.SOUTH:
                _board_move(board, p, m, step, f"the board's hands, ply {n}")
            elif _click_move(browser, p, g.plies[i], step, n, shot):
                shot = ""
            simrig.wait_for(lambda n=n: len(server.moves(game)) >= n, 60, step, f"the server's ply {n}")
            if p.to_move == core.NORTH:
                simrig.wait_for(
                    lambda n=n, p=p, m=m: board.follows_only(n, p, m),
                    60,
                    step,
                    f"the board lighting the browser's ply {n}",
                )
                _board_move(board, p, m, step, f"the board sowing the browser's ply {n}")
        api.resign(board.bridge.seat)
        onlinerig.wait_end([board])
        for page in (browser, spectator):
            simrig.wait_for(
                lambda pg=page: "North wins (South resigned)" in pg.inner_text("#turn"),
                60,
                step,
                "the pages to show the end",
            )
        _seen_every_drop(spectator, g, PLIES)
        assert browser.inner_text("#moves").split() == plies
        compare_screenshot(SHOTS, "online-spectator-end", spectator.locator("#board").screenshot())
        state = server.api.state(game)
    finally:
        pages.close()
        board.close()
        server.stop()
    assert (state["moves"], state["result"], state["seats"]) == (plies, "North wins", {"S": "Alice", "N": "Wanjiru"})
    with Store(tmp_path / "alice" / "library", readonly=True) as st:
        local = [st.game(x.id) for x in st.games() if st.game(x.id).headers().get("online game") == game]
    assert [x.plies for x in local] == [plies]


def test_two_browsers_play_through_an_invitation_link(tmp_path: Path, pages: Pages) -> None:
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        south = pages.new()
        _make_game(south, server.url, "Zuhura", "S")
        link = str(south.get_attribute("#invite-link", "href"))
        assert "/online/join#" in link and south.text_content("#invite-code") in link
        north = pages.new()
        north.goto(link)
        north.fill("#name", "Baraka")
        north.click("#join-game")
        north.wait_for_url("**/online/game/**")
        game = north.url.rsplit("/", 1)[1].split("?")[0]
        for i, (p, _) in enumerate(g.moves[:4]):
            page = south if p.to_move == core.SOUTH else north
            _click_move(page, p, g.plies[i], None, i + 1)
            simrig.wait_for(lambda n=i + 1: len(server.moves(game)) >= n, 30, None, f"the server's ply {i + 1}")
        simrig.wait_for(lambda: north.inner_text("#moves").split() == g.plies[:4], 30, None, "the moves listed")
        south.wait_for_selector('#board[data-ply="4"][data-frame="end"]')  # (ply 4 sown on South's page)
        assert "Your move (South)" in south.inner_text("#guide") and south.locator("#abort").is_hidden()
        compare_screenshot(SHOTS, "online-browser-turn", south.locator("#online .left").screenshot())
        # a seat's token stays in its browser: another browser sees the game but cannot move in it
        other = pages.new()
        other.goto(f"{server.url}/online/game/{game}")
        other.wait_for_selector("#board[data-ply='4']")
        assert "holds no seat" in other.inner_text("#who") and other.locator('[data-start="yes"]').count() == 0
        # South asks to take back her last move: North declines, and South's page says so
        south.click("#takeback")
        north.wait_for_selector("#accept-takeback:visible")
        north.click("#decline-takeback")
        simrig.wait_for(lambda: "North declined the takeback" in south.inner_text("#messages"), 30, None, "no")
        # South asks again (ply 3, and North's answer): North accepts; both pages go back
        south.click("#takeback")
        north.wait_for_selector("#accept-takeback:visible")
        assert server.api.state(game)["takeback"] == {"by": "S", "plies": 2}
        north.click("#accept-takeback")
        for page in (south, north):
            page.wait_for_selector('#board[data-ply="2"][data-frame="end"]')
            simrig.wait_for(
                lambda pg=page: pg.inner_text("#moves").split() == g.plies[:2], 30, None, "moves taken back"
            )
        assert server.moves(game) == g.plies[:2]
        for i, (p, _) in enumerate(g.moves[2:4], 2):  # the game goes on
            page = south if p.to_move == core.SOUTH else north
            _click_move(page, p, g.plies[i], None, i + 1)
            simrig.wait_for(lambda n=i + 1: len(server.moves(game)) >= n, 30, None, f"the server's ply {i + 1}")
        north.click("#resign")
        simrig.wait_for(lambda: "South wins (North resigned)" in south.inner_text("#turn"), 30, None, "the end")
        assert server.api.state(game)["moves"] == g.plies[:4]
        # a rematch, the sides swapped: each page asks for it and goes to the new game
        south.click("#rematch")
        south.wait_for_url(lambda u: game not in u)
        north.wait_for_selector("#rematch:visible")
        north.click("#rematch")
        north.wait_for_url(lambda u: game not in u)
        rematch = north.url.rsplit("/", 1)[1].split("?")[0]
        assert south.url.rsplit("/", 1)[1].split("?")[0] == rematch
        simrig.wait_for(lambda: "Your move (South)" in north.inner_text("#guide"), 30, None, "the rematch's start")
        assert "you play North" in south.inner_text("#who")
        state = server.api.state(rematch)
        assert (state["status"], state["seats"]) == ("playing", {"S": "Baraka", "N": "Zuhura"})
    finally:
        pages.close()
        server.stop()


def test_a_seat_token_is_kept_in_the_browser_only(tmp_path: Path, pages: Pages) -> None:
    """The pages never put a token in an address or a page: a spectator's page of a game holds none."""
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        api = Api(server.url)
        seat: Seat = api.create(core.ZANZIBAR, "S", "Asha")
        api.join(seat.invite, "Juma")
        page = pages.new()
        page.goto(f"{server.url}/online/game/{seat.game}/watch")
        page.wait_for_selector("#board[data-ply='0']")
        html = page.content()
        assert seat.token not in html and seat.invite not in html
        assert page.locator("#seat-controls").count() == 0
    finally:
        pages.close()
        server.stop()


def test_the_pages_show_the_clocks_the_server_keeps(tmp_path: Path, pages: Pages) -> None:
    """A game with clocks made in the page (5 min + 3 s a move): both players' pages and a spectator's show the
    two clocks, the side to move's counting down, and the increment once a move is made."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        south = pages.new()
        south.goto(server.url + "/online?speed=5")
        south.fill("#name", "Zuhura")
        south.select_option("#clock", "300+3")
        south.click("#create")
        south.wait_for_selector("#invitation:not([hidden])")
        simrig.wait_for(lambda: south.inner_text("#clocks") == "clocks: South 5:00 · North 5:00", 30, None, "clocks")
        north = pages.new()
        north.goto(str(south.get_attribute("#invite-link", "href")))
        north.fill("#name", "Baraka")
        north.click("#join-game")
        north.wait_for_url("**/online/game/**")
        game = north.url.rsplit("/", 1)[1].split("?")[0]
        spectator = pages.new()
        spectator.goto(f"{server.url}/online/game/{game}/watch")
        for page in (south, north, spectator):  # the game started: South's clock runs, on every page
            simrig.wait_for(
                lambda pg=page: re.fullmatch(r"clocks: South 4:5\d · North 5:00", pg.inner_text("#clocks")),
                30,
                None,
                "South's clock running",
            )
        assert south.locator("#clock-S.running").count() == 1 and south.locator("#clock-N.running").count() == 0
        p, _ = g.moves[0]
        _click_move(south, p, g.plies[0], None, 1)
        simrig.wait_for(lambda: server.api.state(game)["clock"]["running"] == "N", 30, None, "the server's move")
        state = server.api.state(game)
        assert (state["clock"]["base"], state["clock"]["increment"], state["clock"]["running"]) == (300.0, 3.0, "N")
        # South's clock stopped at what the server keeps (her time less her move's, 3 s added; however long the
        # move took on this machine), shown in whole seconds either way
        left = state["clock"]["S"] / 1000
        shown = {f"{int(t) // 60}:{int(t) % 60:02d}" for t in (left, left + 0.999)}
        for page in (south, north, spectator):  # North's clock runs, South's shows the server's
            simrig.wait_for(
                lambda pg=page: (
                    (m := re.fullmatch(r"clocks: South (\d:\d\d) · North 4:5\d", pg.inner_text("#clocks")))
                    and m.group(1) in shown
                ),
                30,
                None,
                f"North's clock running, South's at {sorted(shown)}",
            )
        assert north.locator("#clock-N.running").count() == 1
        north.screenshot(path=str(tmp_path / "online-clocks.png"))
    finally:
        pages.close()
        server.stop()


def test_a_move_taken_back_while_a_page_sows_it_is_not_sown_on(tmp_path: Path, pages: Pages) -> None:
    """A spectator's page sowing a move slowly when the move is taken back stops at once and draws the
    position the game went back to: it never finishes sowing a move that is gone."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        south = pages.new()
        _make_game(south, server.url, "Zuhura", "S")
        north = pages.new()
        north.goto(str(south.get_attribute("#invite-link", "href")))
        north.fill("#name", "Baraka")
        north.click("#join-game")
        north.wait_for_url("**/online/game/**")
        game = north.url.rsplit("/", 1)[1].split("?")[0]
        for i, (p, _) in enumerate(g.moves[:2]):
            _click_move(south if p.to_move == core.SOUTH else north, p, g.plies[i], None, i + 1)
            simrig.wait_for(lambda n=i + 1: len(server.moves(game)) >= n, 30, None, f"the server's ply {i + 1}")
        spectator = pages.new(record=True)
        spectator.goto(f"{server.url}/online/game/{game}?speed=60000")  # a drop a minute: still sowing
        spectator.wait_for_selector('#board[data-ply="2"][data-frame="end"]')
        _click_move(south, g.moves[2][0], g.plies[2], None, 3)
        spectator.wait_for_selector('#board[data-ply="3"][data-frame="0"]')
        south.click("#takeback")
        north.wait_for_selector("#accept-takeback:visible")
        north.click("#accept-takeback")
        spectator.wait_for_selector('#board[data-ply="2"][data-frame="end"]', timeout=30_000)
        assert "takeback: the game goes back to 2 moves" in spectator.inner_text("#messages")
        seen = [s["frame"] for s in spectator.evaluate("window.baoSeen") if s["ply"] == 3]
        assert seen == [0], f"the page drew ply 3's drops {seen} after it was taken back"
        assert spectator.inner_text("#moves").split() == g.plies[:2]
    finally:
        pages.close()
        server.stop()
