"""The board's set-up mode in the terminal UI (issue #28): the board lights one place at a time, the line under
the board says how many seeds to put in or take out, in words; a touch of the lit pit confirms it, a wrong one is
refused and said. Snapshots as test_tui_snapshots (the stepped simulated board, tui_rig): a frame is the same on
every run. The UI reads nothing of the firmware but its LED frame and its serial notices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import serial
from bao import core, notation
from bao_host.ui import setup_words
from bao_host.ui.tui import BaoApp
from textual.pilot import Pilot
from tui_rig import URL, Rig

GAME = Path(__file__).resolve().parent.parent.parent / "games" / "zanzibar-1994.txt"


def _mtaji() -> core.Position:
    """The 1994 game's position before its 47th ply: the mtaji stage, every seed on the board."""
    return notation.replay(notation.parse_transcript(GAME.read_text()))[46]


def _rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Rig, BaoApp]:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    app = rig.app()
    app.setup = _mtaji()
    return rig, app


async def _start(rig: Rig, pilot: Pilot[int]) -> BaoApp:
    app = pilot.app
    assert isinstance(app, BaoApp)
    await pilot.pause()
    rig.connect()
    app.step()
    await pilot.press("k")
    app.step()
    return app


def _lit(rig: Rig) -> list[int]:
    frame = rig.sim.leds()
    return [i for i in range(32) if any(frame[3 * i : 3 * i + 3])]


@pytest.mark.parametrize("what", ["first", "pit", "refused"])
def test_tui_says_each_set_up_step_in_words(
    what: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        app = await _start(rig, pilot)
        if what != "first":  # the stores given (two touches of their back-row ends), then the first pit
            for name in ("B1", "b1"):
                await pilot.press(*name)
            app.step()
        if what == "refused":  # a touch of another pit than the lit one
            step = rig.sim.setup_step
            assert step is not None and step.at != "a4"
            await pilot.press("a", "4")
            rig.blink(False)
            app.step()
        await pilot.pause()

    rig, app = _rig(tmp_path, monkeypatch)
    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def test_tui_names_the_ruleset_of_the_position_being_laid_out(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A Malawi position laid out on a board that played Zanzibar (a Malawi lesson's, #28 used): from the first
    step the header and the status line name Malawi, as the board's SETUP notice says it (rules=), not the
    Zanzibar game the board holds until the set-up's GAME event."""

    async def run(pilot: Pilot[int]) -> None:
        await _start(rig, pilot)
        assert rig.sim.setup_step is not None and rig.board.position.rules.ruleset == core.ZANZIBAR
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    app = rig.app()
    app.setup = core.initial(core.MALAWI)
    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def test_a_person_following_the_words_lays_out_the_position(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only the guidance line and the lit pit: the person does what the words say, touches the lit pit (a store:
    a back-row end), and at the end the UI shows the target's seeds and play starts from it."""

    async def run(pilot: Pilot[int]) -> None:
        app = await _start(rig, pilot)
        target = _mtaji()
        touches = 0
        for _ in range(40):
            said = rig.sim.step_guidance()
            if not said.startswith("Set-up"):
                break
            words = said.split("touch ")[-1].rstrip(".")
            pit = words.split(" or ")[0]
            lit = _lit(rig)
            assert len(lit) == (2 if " or " in words else 1), (said, lit)
            assert core.pit_index(pit) in lit, (said, lit)
            await pilot.press(*pit)
            app.step()
            touches += 1
        assert touches == sum(1 for i in range(34) if target.d[i] != core.initial().d[i])
        assert any(m.startswith("The board is set up:") for m in app.messages_shown), app.messages_shown
        assert rig.sim.counts() == list(target.d[:32]) and rig.sim.stores() == (0, 0)
        assert rig.board.position.d == target.d

    rig, app = _rig(tmp_path, monkeypatch)
    try:
        import asyncio

        async def main() -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await run(pilot)

        asyncio.run(main())
    finally:
        rig.close()


def test_words_of_each_kind_of_step() -> None:
    s = setup_words.parse("step=3 of=30 at=A7 have=2 want=5")
    assert isinstance(s, setup_words.SetupStep)
    assert setup_words.step_words(s) == (
        "Set-up, step 3 of 30: put three seeds into A7 (it holds 2: make it 5), then touch A7."
    )
    s = setup_words.parse("step=1 of=30 at=store-S have=22 want=0")
    assert isinstance(s, setup_words.SetupStep)
    assert setup_words.step_words(s) == (
        "Set-up, step 1 of 30: take twenty-two seeds out of South's store (it holds 22: leave 0), then touch B1 or B8."
    )
    s = setup_words.parse("step=31 of=31 at=b2 have=? want=1 wrong=b2")
    assert isinstance(s, setup_words.SetupStep)
    assert setup_words.step_words(s).endswith("make b2 hold one seed (1: count them), then touch b2.")
    s = setup_words.parse("step=4 of=20 at=A6 have=2 want=0 touch=B1,B8")
    assert isinstance(s, setup_words.SetupStep)
    assert setup_words.step_words(s) == (
        "Set-up, step 4 of 20: take two seeds out of A6 (it holds 2: leave 0), "
        "then touch B1 or B8 (A6's sensor is faulty)."
    )
    assert setup_words.parse("step=x") is None and setup_words.parse("") is None


def test_the_web_board_says_the_set_up_step_in_the_same_words(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bao_host.ui.web.live import LiveBoard

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        live = LiveBoard("sim", rig.logger, board=rig.sim)
        rig.sim.set_up(_mtaji())
        rig.runner.pump()
        snap = live.snapshot()
        assert snap["guide"] == (
            "Set-up, step 1 of 24: take twenty-two seeds out of South's store (it holds 22: "
            "leave 0), then touch B1 or B8."
        )
        lit = [i for i in range(32) if int(snap["leds"][6 * i : 6 * i + 6], 16)]
        assert lit == [8, 15]  # the store's two back-row ends
        rig.runner.tap(15)
        rig.runner.tap(31)
        snap = live.snapshot()
        assert snap["stores"] == [0, 0] and snap["guide"].startswith("Set-up, step 3 of 24: put two seeds into B1")
    finally:
        rig.close()


def test_a_board_restarted_during_a_set_up_leaves_no_stale_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        rig.sim.set_up(_mtaji())
        rig.runner.pump()
        assert rig.sim.step_guidance().startswith("Set-up, step 1 of 24")
        rig.board.power_cut()  # the board boots again from its journal: the set-up (in RAM) is gone
        said: list[str] = []
        for _ in range(10):
            rig.board.run(4, 5)
            rig.runner.pump()
            said += rig.sim.poll()
            if not rig.sim.step_guidance().startswith("Set-up"):
                break
        assert not rig.sim.step_guidance().startswith("Set-up"), rig.sim.step_guidance()
        assert "the board restarted: its set-up ended (k to start it again)" in said
        assert rig.sim.counts() == list(core.initial().d[:32])  # the board's own position again
    finally:
        rig.close()


def _move_begun(rig: Rig) -> tuple[core.Position, int, bytes]:
    """The first move from the initial position with more than four activations, its first three made: the
    position, the move, its activations."""
    from baoboard.recogniser import activations

    p = core.initial()
    m = next(x for x in core.legal_move_codes(p) if len(activations(p, x)) > 4)
    acts = bytes(activations(p, m))
    for pit in acts[:3]:
        rig.runner.tap(pit)
    return p, m, acts


def _until_set_up(rig: Rig, said: list[str], words: str = "Set-up after") -> str:
    """The board run and the host polled until the guidance line begins with words (a set-up the board booted
    into), what the host says meanwhile added to said; the guidance line."""
    for _ in range(10):
        rig.board.run(4, 5)
        rig.runner.pump()
        said += rig.sim.poll()
        if rig.sim.step_guidance().startswith(words):
            break
    return rig.sim.step_guidance()


def test_a_power_cut_mid_move_is_set_up_again_in_words(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A move begun (its store seed put in, its pit lifted, one seed sown) when the power goes: the board comes
    back at the last move it recorded and guides the person through the pits the move may have changed, said in
    words on the terminal's guidance line and the web board's; then the move is played again from its start."""
    from bao_host.ui.web.live import LiveBoard

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        live = LiveBoard("sim", rig.logger, board=rig.sim)
        p, m, acts = _move_begun(rig)
        rig.board.power_cut()  # the board boots again from its journal: the move was begun, not finished
        said: list[str] = []
        guide = _until_set_up(rig, said)
        assert guide.startswith("Set-up after a power cut mid-move, step 1 of "), guide
        assert live.snapshot()["guide"] == guide  # the web board says the same words
        assert any(s.startswith("Power cut mid-move: the board keeps the moves it recorded") for s in said), said
        touched = set()
        for _ in range(40):
            guide = rig.sim.step_guidance()
            if not guide.startswith("Set-up"):
                break
            assert "count them" in guide or "empty " in guide, guide  # the board does not know what it holds
            pit = guide.split("touch ")[-1].rstrip(".").split(" or ")[0]
            touched.add(pit)
            rig.runner.tap(core.pit_index(pit))
            said += rig.sim.poll()
        assert {core.pit_name(i) for i in acts} <= touched | {"B1", "b1"} and len(touched) < 20, touched
        end = [s for s in said if s.startswith("The board is set up again after the power cut")]
        assert end and end[0].endswith("then play the move that was cut short again from its start."), said
        assert rig.board.position.d == p.d
        rig.board.run(450, 5)  # the hand away from the place set up last
        for pit in acts:
            rig.runner.tap(pit)
        assert rig.board.position.d == core.play(p, m).d
    finally:
        rig.close()


def test_the_why_of_a_set_up_after_a_cut_is_said_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The board booted into the set-up after a cut mid-move says its step again after each handshake, and a
    handshake resets the logger's view of the set-up until then. A UI that looks between the two (CI, stop 35:
    the web board's messages said the why twice) still says the why of the same cut once: here the host
    shakes hands again twice (a cable pulled and put back) before the first place is put right."""
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        _move_begun(rig)
        rig.board.power_cut()  # the board boots again from its journal: the move begun, not made
        said: list[str] = []
        guides = []
        for again in range(3):
            if again:
                rig.session.link.connect()  # its answer read; the step the board says after it not yet
                guides.append(rig.sim.step_guidance())  # (what a UI shows between the two)
            guides.append(_until_set_up(rig, said))
        assert guides[0].startswith("Set-up after a power cut mid-move, step 1 of "), guides
        why = [s for s in said if s.startswith("Power cut mid-move: the board keeps")]
        assert len(why) == 1, said
    finally:
        rig.close()


def test_a_quit_mid_move_is_said_plainly_not_as_a_power_cut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`q` in the middle of a move (the simulated board switched off on purpose, its flash kept), then the board
    started again: the pits the move may have changed are set up again, said as the last session's end, not as
    a power cut (#28, used: "Power cut mid-move" after a q)."""
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        _move_begun(rig)
        rig.board.restart()  # quit (switched off on purpose), started again
        said: list[str] = []
        guide = _until_set_up(rig, said)
        assert guide.startswith("Set-up after the last session ended mid-move, step 1 of "), guide
        assert any(s.startswith("The last session ended in the middle of a move: the board keeps") for s in said)
        assert not any("ower cut" in s for s in said), said
    finally:
        rig.close()


async def _cut_mid_move(rig: Rig, pilot: Pilot[int]) -> tuple[BaoApp, core.Position, int]:
    """The first game's first move with more than four activations begun (three made) when the power goes;
    the terminal UI steps until it says the set-up the board booted into."""
    from baoboard.recogniser import activations

    app = pilot.app
    assert isinstance(app, BaoApp)
    await pilot.pause()
    rig.connect()
    app.step()
    p = core.initial()
    m = next(x for x in core.legal_move_codes(p) if len(activations(p, x)) > 4)
    for pit in activations(p, m)[:3]:
        await pilot.press(*core.pit_name(pit))
    app.step()
    rig.board.power_cut()  # the board boots again from its journal: the move was begun, not finished
    for _ in range(20):
        rig.board.run(4, 5)
        app.step()
        if rig.sim.step_guidance().startswith("Set-up after a power cut"):
            break
    return app, p, m


@pytest.mark.parametrize("when", ["cut", "done"])
def test_tui_says_the_set_up_after_a_power_cut_mid_move(
    when: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What a person sees after a power cut in the middle of a move: why the board guides a set-up (it keeps
    every recorded move, guesses nothing), the first pit to count again; then, the set-up done by following
    the words, the move to play again."""

    async def run(pilot: Pilot[int]) -> None:
        app, p, m = await _cut_mid_move(rig, pilot)
        assert rig.sim.step_guidance().startswith("Set-up after a power cut mid-move, step 1 of ")
        if when == "done":
            for _ in range(40):
                guide = rig.sim.step_guidance()
                if not guide.startswith("Set-up"):
                    break
                await pilot.press(*guide.split("touch ")[-1].rstrip(".").split(" or ")[0])
                app.step()
            assert any(s.startswith("The board is set up again") for s in app.messages_shown), app.messages_shown
            assert rig.board.position.d == p.d  # back before the move: its start is lit again
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def test_a_web_page_of_a_board_it_does_not_run_says_the_set_up_after_a_cut(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`bao serve` beside a real board sees it only through the logger: after a power cut mid-move its page
    says the set-up step the board waits for (the logger keeps its SETUP notices), each step as it comes, and
    the game's step once the set-up is done."""
    from bao_host.ui.web.live import LiveBoard
    from baoboard.recogniser import activations

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        live = LiveBoard("board", rig.logger)  # (no board object: what the logger heard only)
        p = core.initial()
        m = next(x for x in core.legal_move_codes(p) if len(activations(p, x)) > 4)
        for pit in activations(p, m)[:3]:
            rig.runner.tap(pit)
        rig.board.power_cut()
        for _ in range(20):
            rig.board.run(4, 5)
            rig.runner.pump()
            if live.snapshot()["guide"].startswith("Set-up"):
                break
        guide = live.snapshot()["guide"]
        assert guide.startswith("Set-up after a power cut mid-move, step 1 of "), guide
        seen = [guide]
        for _ in range(40):
            if not guide.startswith("Set-up"):
                break
            rig.runner.tap(core.pit_index(guide.split("touch ")[-1].rstrip(".").split(" or ")[0]))
            rig.runner.pump()
            guide = live.snapshot()["guide"]
            seen.append(guide)
        of = seen[0].split(" of ")[1].split(":")[0]
        assert seen[1].startswith(f"Set-up after a power cut mid-move, step 2 of {of}: "), seen
        # done: the hand off the place put right last first (#28: the game's lights come on after it)
        assert guide.startswith("The board is set up. Take your hand off "), guide
        for _ in range(100):  # the board's time runs on, the hand away
            rig.board.run(10, 5)
            rig.runner.pump()
            guide = live.snapshot()["guide"]
            if not guide.startswith("The board is set up."):
                break
        assert guide.startswith("South to move"), guide  # ready: the game's own step again
    finally:
        rig.close()


def _lay_out(rig: Rig, target: core.Position) -> str:
    """The set-up of `target` followed by a person doing what the words say; returns the place touched last."""
    rig.sim.set_up(target)
    rig.runner.pump()
    pit = ""
    for _ in range(40):
        said = rig.sim.step_guidance()
        if not said.startswith("Set-up"):
            break
        pit = said.split("touch ")[-1].rstrip(".").split(" or ")[0]
        rig.runner.tap(core.pit_index(pit))
    return pit


def _drop_lines(rig: Rig, *kinds: bytes) -> None:
    """From now on the board's lines that start with one of `kinds` are lost on the line (never reach the host)."""
    import re

    pattern = re.compile(rb"(?:" + b"|".join(re.escape(k) for k in kinds) + rb")[^\n]*\n")
    rig.board.on_serial = lambda data: rig.serial.buf.extend(pattern.sub(b"", data))


@pytest.mark.parametrize("lost", ["ready", "ready and state", "ready and state, after a restart"])
def test_a_lost_ready_is_made_good_by_the_next_state_or_poll(
    lost: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """#28: the set-up done, the board waits for the hand to leave the place put right last, then says ready. That
    notice lost on the line left the words "Take your hand off ..." until a move began. Now the board's STATE
    (protocol 5) says the set-up is over, and if that is lost too, the next poll (SNAP) does; also after the
    board restarted on the same line (its H0 HELLO says proto=1 speaks=5,...: the host says HELLO again)."""
    from bao_host.ui.web.live import LiveBoard

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        if lost.endswith("after a restart"):
            rig.board.power_cut()
            for _ in range(10):
                rig.board.run(4, 5)
                rig.runner.pump()
                rig.sim.poll()
        live = LiveBoard("board", rig.logger)  # a page beside a board it does not run: the logger's view
        pit = _lay_out(rig, _mtaji())
        wait = f"The board is set up. Take your hand off {pit}: "
        assert rig.sim.step_guidance().startswith(wait), rig.sim.step_guidance()
        assert live.snapshot()["guide"].startswith(wait)
        _drop_lines(rig, b"N0 SETUP ready", *([b"N0 STATE"] if lost.startswith("ready and state") else []))
        rig.board.run(450, 5)  # the hand away from the place set up last: the board says ready, lit for play
        rig.runner.pump()
        if lost.startswith("ready and state"):
            assert rig.sim.step_guidance().startswith(wait)  # nothing heard yet
            rig.feed.read()  # the UI's next poll of the board (SNAP)
        assert rig.sim.step_guidance().startswith("South to move"), rig.sim.step_guidance()
        assert live.snapshot()["guide"].startswith("South to move"), live.snapshot()["guide"]
    finally:
        rig.close()


def test_a_host_that_connects_during_the_wait_says_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """#28: a host (the logger, its web page) that connects while the board waits for the hand to leave the place
    set up last is told of the wait (its HELLO hears it again), then of the game once the board is ready."""
    from bao_host.record.logger import Logger
    from bao_host.record.session import LinkSession
    from bao_host.ui.web.live import LiveBoard

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        pit = _lay_out(rig, _mtaji())
        rig.session.close()  # the first host goes; another comes during the wait
        rig.serial.is_open = True
        logger = Logger(rig.store)
        session = LinkSession(URL, logger)
        for _ in range(5):
            session.poll(0)
            if session.connected:
                break
        assert session.connected
        live = LiveBoard("board", logger)
        guide = live.snapshot()["guide"]
        assert guide.startswith(f"The board is set up. Take your hand off {pit}: "), guide
        rig.board.run(450, 5)
        for _ in range(5):
            if not session.poll(0):
                break
        assert live.snapshot()["guide"].startswith("South to move"), live.snapshot()["guide"]
        session.close()
    finally:
        rig.close()


def test_tui_says_the_game_once_a_lost_ready_is_made_good(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """#28: the terminal's line under the board after the set-up, its ready notice and the STATE after it lost on
    the line: the next poll of the board (SNAP) says the set-up is over, and the line says the game's step, not
    "Take your hand off"."""

    async def run(pilot: Pilot[int]) -> None:
        app = await _start(rig, pilot)
        for _ in range(40):
            said = rig.sim.step_guidance()
            if not said.startswith("Set-up"):
                break
            await pilot.press(*said.split("touch ")[-1].rstrip(".").split(" or ")[0])
            app.step()
        assert rig.sim.step_guidance().startswith("The board is set up. Take your hand off ")
        _drop_lines(rig, b"N0 SETUP ready", b"N0 STATE")
        rig.board.run(450, 5)
        rig.runner.pump()
        rig.blink(False)  # the UI's next poll of the board (SNAP), at a steady blink phase
        app.step()
        await pilot.pause()
        assert rig.sim.step_guidance().startswith("South to move"), rig.sim.step_guidance()

    rig, app = _rig(tmp_path, monkeypatch)
    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def test_the_house_decision_words_lead_to_a_touch_that_is_not_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """#28, used as a user (the house lesson): the words said "stop in the house (touch any of South's pits: South
    plays on)"; a learner touched B2, which stopped the move and was then refused as South's first touch (2.4:
    the namua stage starts on the front row). The words now say that the other side's move begins there, and a
    touch of one of its starts stops the move with no refusal."""
    import tui_rig
    from baoboard import recogniser as R

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        p, acts = tui_rig.find(core.ZANZIBAR, tui_rig.house_decision)
        rig.set_position(p)
        for pit in acts:
            rig.runner.tap(pit)
        said = rig.sim.step_guidance()
        other = "North" if p.to_move == core.SOUTH else "South"
        assert said.startswith(
            f"2.5b house decision: stop in the house (begin {other}'s move: its first touch stops this one) or lift "
        ), said
        stop = next(m for m in core.legal_move_codes(p) if list(R.activations(p, m)) == acts)  # (no more touch)
        child = core.play(p, stop)
        start = R.activations(child, core.legal_move_codes(child)[0])[0] & R.PIT
        rig.runner.tap(start)
        rig.sim.poll()
        refused = [m.text for m in rig.logger.messages if m.text.startswith("refused ")]
        assert not refused and rig.board.position.d == child.d, refused  # stopped in the house, nothing refused
    finally:
        rig.close()
