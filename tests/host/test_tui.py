"""The terminal UI driven with textual's Pilot on the board `make run` plays on: the firmware on the simulated board
(bao_host.ui.adapter.SimBoard over bao_host.boards.sim.SimRunner), its serial line to the logger. Clicking pits plays
moves, the buttons show the LEDs the firmware lights, refusals are the board's own ILLEGAL events."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import serial
import tui_rig
from bao import core, notation, query
from bao_host.record.logger import Logger
from bao_host.record.store import Store
from bao_host.ui.adapter import SimBoard, make_board
from bao_host.ui.tui import GRID, HELP, BaoApp, HelpScreen, Pit, led_style
from baoboard.recogniser import PIT, activations
from textual.pilot import Pilot
from textual.widgets import Static
from tui_rig import Rig

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())


async def _until(pilot: Pilot[int], cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Let the UI and the board run until cond(): bounded in time."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.02)


async def _connected(pilot: Pilot[int], board: SimBoard, lg: Logger) -> None:
    await _until(pilot, lambda: board.session.connected and lg.view.game_id is not None, "the handshake")


@contextlib.asynccontextmanager
async def _ui(lg: Logger, tmp_path: Path) -> AsyncIterator[tuple[BaoApp, Pilot[int], SimBoard]]:
    """`make run`'s UI on the simulated board (its flash in tmp_path) with the logger lg; the board and its
    link are closed whatever happens."""
    board, pump, connection = make_board(lg, tmp_path / "flash")
    try:
        app = BaoApp(board, lg, pump=pump, tick=0.02, connection=connection)
        async with app.run_test(size=(160, 50)) as pilot:
            yield app, pilot, board
    finally:
        board.session.close()
        board.close()


def _messages(app: BaoApp) -> str:
    return "\n".join(app.messages_shown)


def test_clicking_the_first_moves_of_1994(tmp_path: Path) -> None:
    plies = 4
    positions = notation.replay(T1994)

    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st, south="Ramadhan", north="Kijumbe")
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                for i in range(plies):
                    p = positions[i]
                    move, _ = notation.parse_move(p, T1994.plies[i], notation.DONKERS)
                    seq = [b & PIT for b in activations(p, move)]
                    # the LEDs before the move: the first pit of the move is lit as a start (green)
                    frame = board.leds()
                    r, g, b = frame[3 * seq[0] : 3 * seq[0] + 3]
                    assert g > 0 and r == 0, (i, (r, g, b))
                    for k, pit in enumerate(seq):
                        await pilot.click(f"#pit-{pit}")
                        if k == 0:  # the button shows the LED colour the board lights (lit)
                            btn = app.query_one(f"#pit-{seq[0]}", Pit)

                            def shown(pit: int = seq[0], btn: Pit = btn) -> bool:
                                f = board.leds()
                                want = led_style((f[3 * pit], f[3 * pit + 1], f[3 * pit + 2]))
                                return board.runner.idle and btn.led == want != led_style((0, 0, 0))

                            await _until(pilot, shown, "the button in the LED's colour")
                    await _until(pilot, lambda n=i + 1: len(lg.view.plies) == n, f"ply {i + 1} stored")
                    assert board.runner.position.d == positions[i + 1].d, i
                assert lg.view.plies == T1994.plies[:plies]
                assert board.step_guidance().startswith("South to move")  # the guidance follows the board
                await pilot.press("question_mark")
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen)
                await pilot.press("escape")
                await pilot.pause()
                await pilot.press("u")  # undo the last move from the host: the board's UNDO event
                await _until(pilot, lambda: len(lg.view.plies) == plies - 1, "the undo stored")
                await pilot.press("q")
            [g] = st.games()
            assert g.plies == T1994.plies[: plies - 1]
            assert g.south == "Ramadhan"
            assert query.seed_total(st.current_position(g.id)) == 64

    asyncio.run(asyncio.wait_for(play(), 180))  # a UI that stops answering fails the test


def test_wrong_click_is_refused_with_the_boards_reason(tmp_path: Path) -> None:
    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                await pilot.click("#pit-16")  # a North pit: it is South's turn
                await _until(pilot, lambda: "refused a1" in _messages(app), "the refusal")
                text = _messages(app)
                assert "refused a1: 1.1: " in text and "South" in text, text
            assert st.db.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0

    asyncio.run(asyncio.wait_for(play(), 180))  # a UI that stops answering fails the test


def test_the_title_names_the_ruleset_of_a_game_resumed_from_the_board(tmp_path: Path) -> None:
    """`make run` again on a board in the middle of a Malawi game: the title says Malawi, not the default."""
    from textual.widgets._header import HeaderTitle

    def title(app: BaoApp) -> str:
        return str(app.query_one(HeaderTitle).render())

    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                await pilot.press("r", "n")  # a Malawi game, left unfinished
                await _until(
                    pilot,
                    lambda: lg.view.position is not None and lg.view.position.rules.ruleset == core.MALAWI,
                    "the Malawi game",
                )
                await _until(pilot, lambda: "malawi, teach mode" in title(app), "the title")
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):  # the same board's flash: the game resumes
                await _connected(pilot, board, lg)
                await _until(pilot, lambda: "malawi, teach mode" in title(app), "the resumed game's ruleset")
                assert "zanzibar" not in title(app), title(app)
                await pilot.press("r")  # the player's choice for the next game is named, and kept
                await _until(pilot, lambda: "malawi-intermediate (n starts it)" in title(app), "the choice")
                for _ in range(5):
                    await pilot.pause(0.02)
                assert "malawi-intermediate (n starts it)" in title(app), title(app)

    asyncio.run(asyncio.wait_for(play(), 180))


def test_a_tick_after_the_screens_are_gone_does_nothing(tmp_path: Path) -> None:
    # The UI's interval timer may fire once more while the app closes (seen on a loaded machine: the tick
    # landed after the last screen was popped and raised ScreenStackError). A late tick must do nothing.
    async def play() -> BaoApp:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await pilot.press("q")
            return app

    app = asyncio.run(asyncio.wait_for(play(), 180))
    assert app.screen_stack == []
    app.step()  # the tick that comes too late


def _drawn_colours(app: BaoApp) -> set[str]:
    """The background colours on the screen as drawn (textual's own SVG export of the terminal)."""
    return {c.lower() for c in re.findall(r'<rect fill="#([0-9a-fA-F]{6})"', app.export_screenshot())}


def _led_colours(frame: bytes) -> set[str]:
    return {led_style((frame[3 * p], frame[3 * p + 1], frame[3 * p + 2])).split("on #")[1].lower() for p in range(32)}


def test_a_pit_is_drawn_in_its_new_colour_when_only_its_led_changes(tmp_path: Path) -> None:
    # Issue #11: a pit was redrawn only when its seed count changed, so the guidance's colours seldom
    # appeared. Changing the mode changes the LEDs and no count: what is drawn must follow the LEDs.
    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                before = _led_colours(board.leds())
                await _until(pilot, lambda: before <= _drawn_colours(app), "the start's LEDs drawn")
                counts = board.counts()
                await pilot.press("m")  # teach -> play: the start pits are no longer lit
                await _until(pilot, lambda: _led_colours(board.leds()) != before, "the LEDs to change")
                after = _led_colours(board.leds())
                gone = before - after
                assert gone and board.counts() == counts
                await _until(
                    pilot,
                    lambda: after <= _drawn_colours(app) and not gone & _drawn_colours(app),
                    f"the pits drawn without {sorted(gone)}",
                )

    asyncio.run(asyncio.wait_for(play(), 180))


def _bright_green(frame: bytes) -> list[int]:
    """The pits lit as a shown move's start (guide._HINT, 0x00FF40 at any brightness)."""
    return [
        p
        for p in range(32)
        if frame[3 * p] == 0 and frame[3 * p + 1] > 0 and frame[3 * p + 2] * 4 == frame[3 * p + 1] + 1
    ]


def test_play_the_computer_and_ask_for_a_hint(tmp_path: Path) -> None:
    # Issue #10: `c` lets the board's engine play North; its move is lit and sown by clicks like any other
    # move, and `h` lights the engine's best move for South.
    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                await pilot.press("c")
                await _until(pilot, lambda: "the computer plays North, level 1" in _messages(app), "level 1")
                p = board.runner.position
                move, _ = notation.parse_move(p, T1994.plies[0], notation.DONKERS)
                for pit in activations(p, move):
                    await pilot.click(f"#pit-{pit}")
                await _until(
                    pilot,
                    lambda: len(lg.view.plies) == 1 and bool(_bright_green(board.leds())),
                    "the computer's move lit",
                )
                q = board.runner.position
                codes = board.runner.board.app.rec.codes  # the firmware follows the computer's move only
                assert len(codes) == 1
                lit = [m for m, _ in core.legal_moves(q) if m == codes[0]]
                assert activations(q, lit[0])[0] in _bright_green(board.leds())  # its start, lit
                for pit in activations(q, lit[0]):
                    await pilot.click(f"#pit-{pit}")
                await _until(pilot, lambda: len(lg.view.plies) == 2, "the computer's move stored")
                await pilot.press("h")
                await _until(
                    pilot,
                    lambda: core.SOUTH in [x >> 4 for x in _bright_green(board.leds())],
                    "the hint lit on South's side",
                )
                hint = board.runner.board.app.rec.hint
                assert hint >= 0 and board.runner.position.to_move == core.SOUTH
                for _ in range(4):  # levels 2, 3, 4, then the host's engine (through SHOW)
                    await pilot.press("c")
                await _until(pilot, lambda: "the host's engine plays North" in _messages(app), "the host's engine")
                p = board.runner.position
                for pit in activations(p, core.legal_move_codes(p)[0]):
                    await pilot.click(f"#pit-{pit}")
                await _until(
                    pilot,
                    lambda: len(lg.view.plies) == 3 and board.runner.board.app.rec.hint >= 0,
                    "the host's move shown",
                )
                assert len(board.runner.board.app.rec.codes) == 1  # the board follows the host's move only
                await pilot.press("q")

    asyncio.run(asyncio.wait_for(play(), 180))


# -- the keyboard alone, the library, on the stepped board (tui_rig: no thread, no wall clock) ------------


@contextlib.asynccontextmanager
async def _stepped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int] = (80, 24), verbose: bool = False
) -> AsyncIterator[tuple[BaoApp, Pilot[int], Rig]]:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        app = rig.app(verbose)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            rig.connect()
            app.step()
            yield app, pilot, rig
    finally:
        rig.close()


def _arrows(frm: tuple[int, int], pit: int) -> list[str]:
    """The arrow keys that take the cursor from (column, row) to pit."""
    col, row = frm
    [(c, r)] = [(c, r) for r, pits in enumerate(GRID) for c, p in enumerate(pits) if p == pit]
    return (["right"] * (c - col) if c >= col else ["left"] * (col - c)) + (
        ["down"] * (r - row) if r >= row else ["up"] * (row - r)
    )


def test_the_keyboard_alone_plays_the_first_moves_of_1994(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    positions = notation.replay(T1994)

    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            guides = []
            for i in range(2):
                p = positions[i]
                move, _ = notation.parse_move(p, T1994.plies[i], notation.DONKERS)
                for k, pit in enumerate(activations(p, move)):
                    if i == 0:  # South: the cursor, touched with Enter and Space in turn
                        await pilot.press(*_arrows(app.cursor, pit), "enter" if k % 2 else "space")
                    else:  # North: the pits' names typed
                        await pilot.press(*core.pit_name(pit))
                    guides.append(rig.sim.step_guidance())
                    assert GRID[app.cursor[1]][app.cursor[0]] == pit  # the cursor is on the pit touched
            assert rig.logger.view.plies == T1994.plies[:2]
            assert rig.board.position.d == positions[2].d
            # the guidance line followed the steps: the capture, the kichwa choice, the drops, the next side
            said = "\n".join(guides)
            assert "1.4 capture: lift the seeds of" in said and "choose the kichwa" in said, said
            assert "drop one seed into" in said and "North to move" in said, said

    asyncio.run(asyncio.wait_for(play(), 180))


def test_a_typed_name_touches_that_pit_and_only_a_whole_name_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            taps = rig.runner.hands.taps
            await pilot.press("a", "escape", "B", "9", "b")  # forgotten, not a pit, and half a name
            assert rig.runner.hands.taps == taps and app.typed == "b"
            assert "typed b" in str(app.query_one("#guide", Static).render())
            await pilot.press("question_mark", "A", "6", "escape")  # the help open: its keys are its own
            assert rig.runner.hands.taps == taps
            await pilot.press("escape", "A", "6")
            assert rig.runner.hands.taps == taps + 1
            assert rig.board.app.rec.start_pit == core.pit_index("A6")
            assert "A6" in rig.sim.step_guidance()

    asyncio.run(asyncio.wait_for(play(), 180))


def _first_move_of_1994(app: BaoApp, rig: Rig) -> None:
    p = rig.board.position
    move, _ = notation.parse_move(p, T1994.plies[0], notation.DONKERS)
    for pit in activations(p, move):
        app.touch(pit)


def test_a_new_game_before_the_end_marks_the_old_one_abandoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            _first_move_of_1994(app, rig)
            old = rig.logger.view.game_id
            assert old is not None and rig.store.game(old).status == "playing"
            await pilot.press("n")
            await pilot.pause()
            app.step()
            assert rig.logger.view.game_id not in (None, old)
            assert rig.store.game(old).status == "abandoned"
            assert rig.store.game(old).plies == T1994.plies[:1]  # its moves are kept
            assert f"game {old} marked abandoned" in "\n".join(app.messages_shown)
            assert rig.store.game(rig.logger.view.game_id).status == "playing"

    asyncio.run(asyncio.wait_for(play(), 180))


def test_the_log_says_each_thing_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue #25: the message log repeated the guidance line at each phase of each move ("South to move: put a
    # seed from the store into a green pit", "go on: each step is said on the line above") and the hint as a
    # raw notice ("board notice HINT 6L* 305 2 163"); the guidance line says the step, the log what happened
    positions = notation.replay(T1994)

    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            before = len(app.messages_shown)
            guides = {rig.sim.step_guidance()}
            for i in range(2):
                p = positions[i]
                move, _ = notation.parse_move(p, T1994.plies[i], notation.DONKERS)
                for pit in activations(p, move):
                    await pilot.press(*core.pit_name(pit))
                    app.step()
                    guides.add(rig.sim.step_guidance())
            await pilot.press("h")
            for _ in range(400):  # the board's engine thinks in its scans
                if rig.sim.step_guidance().startswith("Hint:"):
                    break
                rig.board.run(5, tui_rig.SCAN_MS)
                rig.runner.pump()
                app.step()
            assert rig.sim.step_guidance().startswith("Hint: "), rig.sim.step_guidance()
            said = app.messages_shown[before:]
            assert not [m for m in said if any(m in g or g in m for g in guides)], (said, guides)
            assert not [m for m in said if m.startswith(("go on:", "board notice"))], said
            assert len([m for m in said if m.startswith("hint: ")]) == 1, said

    asyncio.run(asyncio.wait_for(play(), 180))


@pytest.mark.parametrize("by", ["n", "board"])
def test_a_game_left_unfinished_is_said_abandoned_once(
    by: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the session note said the terminal UI no longer says "game N marked abandoned" after the library began
    # marking it when the board's GAME event is stored (#26 item 9). It does: the logger says it, in the
    # GAME's transaction, for a new game started from the UI (n) and for one the board starts (here SETPOS; the
    # board's NEW button alike); the UI's own mark then finds it done and says nothing more. Those 14
    # snapshots gained the line for the board's new games (they had it only after n)
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            _first_move_of_1994(app, rig)
            old = rig.logger.view.game_id
            if by == "n":
                await pilot.press("n")
            else:
                rig.set_position(core.initial())
            await pilot.pause()
            app.step()
            assert rig.logger.view.game_id not in (None, old) and rig.store.game(old).status == "abandoned"
            said = [m for m in app.messages_shown if "abandoned" in m]
            assert said == [f"game {old} marked abandoned in the library (a new game before it ended)"], said

    asyncio.run(asyncio.wait_for(play(), 180))


def test_undo_and_mode_changes_are_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            _first_move_of_1994(app, rig)
            await pilot.press("m")
            assert rig.board.app.guide.mode == 1  # the board's LEDs are in play mode
            await pilot.press("u")
            app.step()
            said = "\n".join(app.messages_shown)
            assert "mode play: the LEDs stay dark unless a touch is refused" in said, said
            assert "undo: the board is asked to take the last move back" in said, said
            game = rig.logger.view.game_id
            assert game is not None and rig.store.game(game).plies == []
            assert [e["type"] for e in rig.store.events(game)][-2:] == ["MOVE", "UNDO"]  # in the event log

    asyncio.run(asyncio.wait_for(play(), 180))


def test_the_help_covers_the_keyboard_undo_the_house_the_modes_and_the_library() -> None:
    for words in (
        "arrow keys",
        "Enter, Space",
        "a6, B3",
        "Undo",
        "house decision (2.5b)",
        "teach",
        "play",
        "silent",
        "data folder",
        "index.sqlite3",
        "abandoned",
    ):
        assert words in HELP, words


def test_the_help_says_how_to_reach_the_lessons_and_the_puzzles() -> None:
    # issue #28, used as a user would: `make run` showed no way to the lessons or the puzzles (its help named
    # neither, and `make run` took no options): a beginner did not know they were there
    text = re.sub(r"\s+", " ", HELP)
    for words in (
        'make run ARGS="--lesson zanzibar-01-namua-capture"',
        "bao lessons",
        'make run ARGS="--puzzles"',
        "bao serve",
    ):
        assert words in text, words


# the link's words, which a player does not know (the protocol, its events and acknowledgements, a device)
LINK_WORDS = re.compile(r"protocol|event|acknowledg|bound to|notice|frame|firmware|stepped://|/dev/", re.I)


def test_the_first_messages_are_in_a_players_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue #25 (found last session): `make run`'s first messages spoke the link's language ("bound to board
    # sim-0001: another board on /dev/pts/1 will be refused", "board sim-0001 (firmware 0.1.0, protocol 4) on
    # /dev/pts/1: last event 1, acknowledged 0"). A player reads that the board is connected and the game began;
    # the link's detail is the logger's (`bao log`), and `make run`'s with --verbose
    for verbose in (False, True):

        async def play(verbose: bool = verbose) -> list[str]:
            async with _stepped(tmp_path / str(verbose), monkeypatch, verbose=verbose) as (app, pilot, rig):
                await pilot.pause()
                return list(app.messages_shown)

        said = asyncio.run(asyncio.wait_for(play(), 180))
        assert "the board (sim-0001) is connected" in said, said
        assert any(m.startswith("new game (zanzibar)") for m in said), said
        technical = [m for m in said if LINK_WORDS.search(m)]
        if verbose:
            assert any("protocol 5" in m and "acknowledged" in m for m in technical), said
        else:
            assert not technical, technical


def test_the_header_names_the_players_and_the_computer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue #25: the header said "two players" for a game whose players the library names (the rig's logger:
    # Asha and Baraka); it names them, and the computer with its level on the side it plays
    from textual.widgets._header import HeaderTitle

    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            app.step()
            assert "South: Asha · North: Baraka" in str(app.query_one(HeaderTitle).render())
            await pilot.press("c", "c")
            app.step()
            assert "South: Asha · North: computer 2" in str(app.query_one(HeaderTitle).render())

    asyncio.run(asyncio.wait_for(play(), 180))


def led_colours(module: str) -> list[str]:
    """The colours a firmware module of the board lights, as its constants' comments name them."""
    code = (ROOT / "firmware" / "baoboard" / module).read_text()
    return re.findall(r"^_?[A-Z_]+ = const\(0x[0-9A-F]{6}\)\s+#\s+([a-z -]+?)(?: instead)?[,:]", code, re.M)


def test_the_help_names_every_key_and_every_colour_of_the_leds() -> None:
    # issue #25: the help left out colours the board shows (the no-host corners, a faulty sensor, an
    # unrecorded game, the seeds to place) and keys (Escape, h); every colour the LED guide draws
    # (baoboard/guide.py, each named in its comment) and every key of the app is now in it
    # (#28: the set-up mode's colours, baoboard/setup_mode.py, as well)
    text = re.sub(r"\s+", " ", HELP)
    colours = led_colours("guide.py")
    assert len(colours) >= 15, colours
    setup = led_colours("setup_mode.py")
    assert {"sky blue", "orange", "pink"} <= set(setup), setup
    for colour in colours + setup:
        assert re.search(rf"(^|[^-a-z]){colour}([^-a-z]|$)", text), colour
    keys = text[text.index("Keys") :]
    for b in BaoApp.BINDINGS:
        for key in b.key.split(","):  # (each key, in the words a person reads)
            word = {
                "left": "arrows",
                "right": "arrows",
                "up": "arrows",
                "down": "arrows",
                "enter": "Enter",
                "space": "Space",
                "question_mark": "?",
            }.get(key, key)
            assert re.search(rf"(^|[\s/]){re.escape(word)}[\s/]", keys), key
    for words in ("Escape forgets", "Up and Down", "dim blue, slow blink on the four corners", "M20-M22"):
        assert words in text, words


def test_make_run_names_its_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bao_host.cli import run

    seen: list[str] = []

    def run_app(app: BaoApp) -> int:  # instead of taking the terminal: what make run hands the UI
        seen.append(app.data_folder)
        return 0

    monkeypatch.setattr(BaoApp, "run", run_app)
    assert run.main(["--sim", "--data", str(tmp_path / "library")]) == 0
    assert seen == [str(tmp_path / "library")]


def test_the_guidance_line_counts_the_seeds_to_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The advanced game's placement (M20-M22) in words, as the LEDs count it in gold (docs/leds.md)."""

    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            await pilot.press("r", "r", "r", "n")  # malawi-advanced for the next game, and a new game
            app.step()
            assert rig.sim.step_guidance().startswith("South places, 5 seeds left (gold, M22): lift the green pit")
            p = rig.board.position
            for pit in activations(p, notation.parse_move(p, "@A4")[0]):
                app.touch(pit)
            assert rig.sim.step_guidance() == "South places, 4 seeds left (gold, M22): drop one seed into a green pit"

    asyncio.run(asyncio.wait_for(play(), 180))


def test_an_idle_host_keeps_the_no_host_corners_dark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue #25: with the host connected but nothing to say (a player thinking), the board lit its four
    # corners in the "no host connected" blue after a while, beside a status line saying "connected": the
    # host sent no frame at all while idle. The link now sends a PING when it has been quiet.
    from baoboard import guide as G

    nohost = tuple(G.NOHOST.to_bytes(3, "big"))

    async def idle() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            now = [time.monotonic()]
            rig.session.link._clock = lambda: now[0]  # the host's clock moves with the board's
            lit = []
            for _ in range(60):  # a minute of the board's time, a second at a time, the host polling
                rig.board.run(1000 // tui_rig.SCAN_MS, tui_rig.SCAN_MS)
                now[0] += 1.0
                app.step()
                frame = rig.board.frame
                lit += [
                    i
                    for i in G.CORNERS
                    if tuple(frame[3 * i : 3 * i + 3]) != (0, 0, 0)
                    and _scaled(tuple(frame[3 * i : 3 * i + 3])) == _scaled(nohost)
                ]
            assert rig.session.connected and "· connected" in str(app.query_one("#status", Static).render())
            assert lit == [], f"the no-host corners lit while connected: {lit}"

    asyncio.run(asyncio.wait_for(idle(), 180))


def _scaled(rgb: tuple[int, ...]) -> tuple[int, ...]:
    """A colour's hue, whatever the brightness: the components divided by the largest."""
    m = max(rgb) or 1
    return tuple(round(8 * c / m) for c in rgb)


def test_the_host_engine_plays_again_after_a_restart(tmp_path: Path) -> None:
    # issue #25: after choosing the host's engine and restarting `make run`, the board (which keeps the mode)
    # waited for the host's move and nothing said the engine was off. The UI asks the board (SNAP's cpu)
    # and the host's engine takes North again; the header says who plays which side.
    from textual.widgets._header import HeaderTitle

    def title(app: BaoApp) -> str:
        return str(app.query_one(HeaderTitle).render())

    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                await pilot.press(*["c"] * 5)
                await _until(pilot, lambda: "North: host engine" in title(app), "the host's engine chosen")
            lg = Logger(st)
            async with _ui(lg, tmp_path) as (app, pilot, board):  # the same board's flash
                await _connected(pilot, board, lg)
                await _until(pilot, lambda: "North: host engine" in title(app), "the host's engine again")
                p = board.runner.position
                for pit in activations(p, core.legal_move_codes(p)[0]):
                    await pilot.click(f"#pit-{pit}")
                await _until(
                    pilot,
                    lambda: board.step_guidance().startswith("The host's engine plays"),
                    "the host's move said in words",
                )
                await pilot.press("c")  # one press on: two players
                await _until(pilot, lambda: "two players" in title(app), "two players")

    asyncio.run(asyncio.wait_for(play(), 180))


def test_the_library_says_who_played_each_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue #25: `bao games` showed "?" for both sides of every game played in `make run`; the library now
    # records who plays each side (a person, the computer and its level, the host's engine) while the game
    # runs, and a list of games at 80 columns says it
    from bao_host.cli import main

    def sides(st: Store, lg: Logger) -> tuple[str, str]:
        g = st.game(lg.view.game_id or 0)
        return (g.south, g.north)

    async def play() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)  # (`make run` names nobody)
            async with _ui(lg, tmp_path) as (app, pilot, board):
                await _connected(pilot, board, lg)
                await _until(pilot, lambda: sides(st, lg) == ("a person", "a person"), "two people")
                await pilot.press("c", "c")  # the computer plays North, level 2
                await _until(pilot, lambda: sides(st, lg) == ("a person", "computer 2"), "the computer named")
                await pilot.press("q")

    asyncio.run(asyncio.wait_for(play(), 180))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["games", "--data", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80, out
    lines = out.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("│ 1 ")]
    assert at, out
    row = lines[at[0] : at[0] + 2]  # South's name over North's at 80 columns
    assert "│ a person " in row[0] and "│ computer 2 " in row[1] and "?" not in "".join(row), out


async def _until_guide(rig: Rig, app: BaoApp, start: str) -> str:
    """Scans of the stepped board (its engine thinks in them) until the guidance line starts with `start`."""
    for _ in range(400):
        if rig.sim.step_guidance().startswith(start):
            break
        rig.board.run(5, tui_rig.SCAN_MS)
        rig.runner.pump()
        app.step()
    said = rig.sim.step_guidance()
    assert said.startswith(start), said
    return said


@pytest.mark.parametrize("who", ["computer", "host"])
def test_a_touch_off_the_computers_move_is_refused_in_the_boards_words(
    who: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue #25 (item 5 of the session's findings): a touch off the computer's move (CPU) or the host's engine's
    # (SHOW) is refused by the board with "the computer plays 5L: a3 is not its pit now"; the guidance line said
    # "1.1: not a pit this move can start from", which is not why. Both cite 1.1: it is the computer's turn
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            await pilot.press(*["c"] * (1 if who == "computer" else 5))
            p = rig.board.position
            await pilot.press(
                *[c for a in activations(p, notation.parse_move(p, "7L*")[0]) for c in core.pit_name(a & PIT)]
            )
            lead = "The computer plays " if who == "computer" else "The host's engine plays "
            said = await _until_guide(rig, app, lead)
            move = said[len(lead) :].split(",")[0]
            lit = activations(rig.board.position, notation.parse_move(rig.board.position, move)[0])
            wrong = next(q for q in range(16, 32) if q not in [a & PIT for a in lit])  # North's, not the move's
            await pilot.press(*core.pit_name(wrong))
            app.step()
            name = core.pit_name(wrong)
            who_plays = "the computer" if who == "computer" else "the host's engine"
            assert rig.sim.step_guidance().startswith(
                f"{name} refused (pink ✕), 1.1: {who_plays} plays {move}, {name} is not its pit now; {lead}{move}, "
            ), rig.sim.step_guidance()
            # the log cites the rule too (issue #25): 1.1, the computer's turn
            # and names who plays: the host's engine said "the computer plays" before (issue #25)
            assert f"! refused {name}: 1.1: {who_plays} plays {move}: {name} is not its pit now" in _messages(app)

    asyncio.run(asyncio.wait_for(play(), 180))


def test_the_boards_refusals_of_hint_and_show_are_said_without_its_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the board answers a command it refuses with `ERR <code> <why>` (docs/protocol.md); the code is for
    # programs: a person reads why ("no hint now: state a hint is for the player to move" before)
    async def play() -> None:
        async with _stepped(tmp_path, monkeypatch) as (app, pilot, rig):
            await pilot.press("c")  # the computer plays North, level 1
            p = rig.board.position
            await pilot.press(
                *[c for a in activations(p, notation.parse_move(p, "7L*")[0]) for c in core.pit_name(a & PIT)]
            )
            await _until_guide(rig, app, "The computer plays ")
            await pilot.press("h")  # North is the computer's: no hint for it
            app.step()
            assert "no hint now: a hint is for the player to move, between moves" in _messages(app), _messages(app)
            await pilot.press("k")  # a set-up (the board's own position checked): the board takes no SHOW
            app.step()
            assert rig.sim.step_guidance().startswith("Set-up, step 1 of ")
            await pilot.press("c", "c", "c", "c")  # levels 2, 3, 4, then the host's engine: its SHOW is refused
            app.step()
            said = [m for m in app.messages_shown if m.startswith("the host's engine plays ")]
            assert said and said[-1].endswith(
                ", but the board did not take it: a set-up is under way (SETUP off leaves it)"
            ), said

    asyncio.run(asyncio.wait_for(play(), 180))


def test_a_refused_level_is_said_and_the_ui_keeps_the_boards() -> None:
    # the board refuses a CPU it cannot take (ERR badarg ...): the UI says why, without the code, and keeps
    # showing the level the board plays (a mode the UI shows is a mode that works)
    from types import SimpleNamespace

    from bao_host.record.link import Reply

    class Refusing:
        link = SimpleNamespace(on_notice=None, on_hello=None)
        logger = None

        def command(self, typ: str, payload: str = "") -> Reply:
            return Reply(7, False, "badarg CPU off | CPU S|N [level 0..4] (0: the host's engine, through SHOW)")

    sim = SimBoard(SimpleNamespace(), Refusing())  # type: ignore[arg-type]
    sim.computer("N", 2)
    assert sim.msgs == [
        "the board did not take the computer's new level: CPU off | CPU S|N [level 0..4] (0: the "
        "host's engine, through SHOW)"
    ]
    assert sim.level() == 0 and sim.players() == "two players"
