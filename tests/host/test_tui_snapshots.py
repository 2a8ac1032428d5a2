"""What the terminal UI draws, compared with SVG snapshots kept beside this file (__snapshots__/; textual's
pytest-textual-snapshot): each pit in its LED's colour from the frame the board says on its serial line
(its STATE, and SNAP at a blink phase: tui_rig), the guidance line, the
messages, the status line, for every step of a move in both rulesets. The board is the firmware on a
stepped simulated board (tui_rig): its clock moves only with what happens, so a frame is the same on every
run, and a blinking colour is drawn in a known phase. The moves are played from the keyboard (a pit's
name typed), as a person without a mouse would.

A snapshot that changes on purpose: look at the report (`pytest --snapshot-report`), then
`pytest tests/host/test_tui_snapshots.py --snapshot-update` and look at the new SVGs before committing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import serial
import tui_rig
from bao import core, notation, position_json
from bao_host.ui.tui import BaoApp
from baoboard import guide
from baoboard import recogniser as R
from textual.pilot import Pilot
from tui_rig import Rig

# (ruleset, name, the state to reach in seeded random games, or None: a scenario of its own)
STATES: dict[str, Callable[[Any], bool] | None] = {
    "start": None,
    "direction": tui_rig.direction_choice,
    "sowing": tui_rig.mid_sowing,
    "capture": tui_rig.capture,
    "kichwa": tui_rig.kichwa_choice,
    "house": tui_rig.house_decision,
    "refusal": None,
    "over": None,
}
# Malawi's basic game has no house and no kichwa choice (M1, M2: the mtaji stage's capture only). The kuu
# games (M5-M25) add what the seeds do not show: the seeds left to place, gold (M20-M22), and the
# threatened pit, purple (M18), blinking when it must be captured (M19).
CASES = (
    [(core.ZANZIBAR, s) for s in STATES]
    + [(core.MALAWI, s) for s in STATES if s not in ("kichwa", "house")]
    + [("malawi-advanced", "placing"), ("malawi-intermediate", "threatened"), ("malawi-intermediate", "forced")]
)
# test_rules_malawi_levels' THREAT: South's A4R** threatens a2 (M18); North's a7L* leaves it to be captured
THREAT = {
    "ruleset": "malawi-intermediate",
    "to_move": "S",
    "A": [0, 0, 0, 3, 0, 0, 0, 0],
    "B": [0, 0, 20, 0, 0, 0, 0, 2],
    "a": [0, 2, 0, 0, 2, 0, 2, 0],
    "b": [0, 0, 0, 33, 0, 0, 0, 0],
    "store": {"S": 0, "N": 0},
    "house": {"S": False, "N": False},
}


async def _type(rig: Rig, pilot: Pilot[int], pits: list[int]) -> None:
    """The activations up to the state: the last two typed (a pit's name), the ones before touched directly
    (as a click does: the UI looks at the board after each touch, so it sees every step)."""
    app = pilot.app
    assert isinstance(app, BaoApp)
    for pit in pits[:-2]:
        app.touch(pit & 31)
    for pit in pits[-2:]:
        await pilot.press(*core.pit_name(pit & 31))


async def _play(rig: Rig, pilot: Pilot[int], ruleset: str, state: str) -> None:
    app = pilot.app
    assert isinstance(app, BaoApp)
    await pilot.pause()
    rig.connect()
    app.step()  # (what the board and the logger said so far, shown now: in the same order on every run)
    if ruleset != core.ZANZIBAR:  # the ruleset for the next game, and a new game: from the keyboard
        await pilot.press(*["r"] * core.RULESETS.index(ruleset), "n")
        app.step()  # (the new game's events stored and said now, before the next touch)
    if state == "placing":  # South's first drop (A6 and A7 lifted, a seed into A4) and one more: 3 left
        p = rig.board.position
        acts: list[int] = []
        for text in ("@A4", "@B1"):
            move, _ = notation.parse_move(p, text)
            acts += R.activations(p, move)
            p = core.play(p, move)
        await _type(rig, pilot, acts)
    elif state in ("threatened", "forced"):
        p = position_json.from_dict(THREAT)
        rig.set_position(core.play(p, notation.parse_move(p, "A4R**")[0]))
        app.step()
        if state == "forced":
            p = rig.board.position
            move, _ = notation.parse_move(p, "a7L*")
            await _type(rig, pilot, R.activations(p, move))
        rig.blink(True)
    elif state == "refusal":  # the side to move is South: a touch on North's pit is refused (1.1)
        await _type(rig, pilot, [core.NORTH * 16])
        rig.blink(False)
    elif state == "over":
        p, acts = tui_rig.last_move(ruleset)
        rig.set_position(p)
        app.step()
        await _type(rig, pilot, acts)
    elif state != "start":
        want = STATES[state]
        assert want is not None
        p, acts = tui_rig.find(ruleset, want)
        rig.set_position(p)
        app.step()
        await _type(rig, pilot, acts)
        rig.blink(True)
    app.step()  # the frame as it is now drawn, whether or not the UI's timer has ticked since
    await pilot.pause()


@pytest.mark.parametrize(("ruleset", "state"), CASES)
def test_tui_draws(
    ruleset: str, state: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(
            rig.app(), terminal_size=(80, 24), run_before=lambda pilot: _play(rig, pilot, ruleset, state)
        )
    finally:
        rig.close()


@pytest.mark.parametrize("state", ["start", "kichwa"])
def test_tui_uses_a_larger_terminal(
    state: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(
            rig.app(), terminal_size=(120, 40), run_before=lambda pilot: _play(rig, pilot, core.ZANZIBAR, state)
        )
    finally:
        rig.close()


def test_tui_help_fits_80x24(snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async def help_open(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        await pilot.press("question_mark")
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=help_open)
    finally:
        rig.close()


def test_tui_help_scrolls_to_the_colours_in_words(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #25: the help's colours, each on its own line in words, reached with the arrow keys at 80x24
    async def help_scrolled(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        await pilot.press("question_mark", *["down"] * 9)
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=help_scrolled)
    finally:
        rig.close()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_tui_up_moves_the_cursor_one_row_up(
    size: tuple[int, int], snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #25: Up and Down scrolled the messages (80x24) or did nothing (120x40); the cursor, on A1 at the
    # start, is on a1 after Up (and Left, Right move along the row as before)
    async def up(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        await pilot.press("right", "right", "up")
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=size, run_before=up)
    finally:
        rig.close()


async def _until_said(rig: Rig, pilot: Pilot[int], words: str) -> None:
    """Scans of the stepped board (the engine thinks in them) until the guidance line says words."""
    app = pilot.app
    assert isinstance(app, BaoApp)
    for _ in range(400):
        if words in rig.sim.step_guidance():
            break
        rig.board.run(5, tui_rig.SCAN_MS)
        rig.runner.pump()
        app.step()
    assert words in rig.sim.step_guidance(), rig.sim.step_guidance()
    rig.blink(True)
    app.step()
    await pilot.pause()


@pytest.mark.parametrize("what", ["computer", "hint", "capture-refusal"])
def test_tui_says_the_computers_move_the_hint_and_the_rule_of_a_refusal(
    what: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #25: the computer's move and the hint were only log lines ("board notice HINT 7L* ..."); the
    # header did not say who plays North; a refusal during a capture cited no rule
    async def run(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        app = pilot.app
        assert isinstance(app, BaoApp)
        if what == "computer":  # the board's engine plays North, level 1; South plays 7L* (A7 from the store)
            await pilot.press("c")
            p = rig.board.position
            await _type(rig, pilot, list(R.activations(p, notation.parse_move(p, "7L*")[0])))
            await _until_said(rig, pilot, "The computer plays")
        elif what == "hint":
            await pilot.press("h")
            await _until_said(rig, pilot, "Hint:")
        else:  # a capture to lift, and a touch on another pit
            p, acts = tui_rig.find(core.ZANZIBAR, tui_rig.capture)
            rig.set_position(p)
            app.step()
            await _type(rig, pilot, acts)
            side = rig.board.position.to_move
            await _type(rig, pilot, [side * 16 + 15])  # the far end of the mover's back row
            rig.blink(False)
            app.step()
            await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def _px(pit: int, rgb: int) -> bytes:
    """A pit's LED value as the board sends it at its default brightness (baoboard.guide: c * 64 >> 8)."""
    return bytes(((rgb >> s) & 255) * 64 >> 8 for s in (16, 8, 0))


# a frame with the lights a person could take for one another: the start's green (A7, A8) beside the hint's
# bright green (A6), the next pit's white (A5) beside the dim white "not recorded" corners, a refused touch, the
# violet of the computer's level (a1, a2) beside the takasia's purple (a3)
LOOKALIKES = {
    6: 0x00A000,
    7: 0x00A000,
    5: 0x00FF40,
    4: 0xFFFFFF,
    18: 0xFF0040,
    16: 0x6000FF,
    17: 0x6000FF,
    19: 0xA000FF,
    8: 0x303030,
    15: 0x303030,
    24: 0x303030,
    31: 0x303030,
}


def test_tui_tells_the_lookalike_lights_apart(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #25 (found last session): the start's green and the hint's bright green were drawn alike (each pit
    # brought up to full brightness on its own), and the "not recorded" corners' dim white as the next pit's
    # white; now the frame keeps its dim colours dim, and the hint (★), a refused touch (✕) and the corners
    # (!) have a mark beside the count, as the help and the guidance words say. The computer's level blinked
    # in the hint's bright green: it is violet now, marked ◆ (not the takasia's purple)
    from bao_host.ui.tui import Pit

    frame = bytearray(96)
    for pit, rgb in LOOKALIKES.items():
        frame[3 * pit : 3 * pit + 3] = _px(pit, rgb)

    async def lookalikes(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        monkeypatch.setattr(rig.feed, "frame", lambda: bytes(frame))  # (a frame as a board would say it)
        app = pilot.app
        assert isinstance(app, BaoApp)
        app.step()
        await pilot.pause()
        shown = {p: str(app.query_one(f"#pit-{p}", Pit).render()).split() for p in LOOKALIKES}
        marks = {p: words[1] for p, words in shown.items() if len(words) > 2}
        assert marks == {5: "★", 18: "✕", 16: "◆", 17: "◆", 8: "!", 15: "!", 24: "!", 31: "!"}, shown

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=lookalikes)
    finally:
        rig.close()


def _hide_the_boards_leds(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated board's own LEDs out of the UI's reach: what it draws comes from the serial line."""

    def hidden() -> bytes:
        raise AssertionError("the UI read the simulated board's LEDs, not what the board said on its line")

    monkeypatch.setattr(rig.runner, "leds", hidden)


@pytest.mark.parametrize("blink", ["on", "off"])
def test_tui_lights_the_pits_the_serial_line_says(
    blink: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #24: the terminal UI took its colours from the simulated board object; now from the board's
    # STATE and SNAP on its serial line, as for a board on USB. The house decision blinks (2.5b): amber at one
    # blink phase, the relay's yellow (lift it to play it) at the other, each frame read over the line (SNAP).
    # Issue #25: the words said "(amber)" while the pit showed yellow; they name the colour of each phase now
    async def house(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "house")
        if blink == "off":
            rig.blink(False)
            app = pilot.app
            assert isinstance(app, BaoApp)
            app.step()
            await pilot.pause()
        p = rig.board.position
        house = p.to_move * 16 + 4
        shown = rig.feed.frame()[3 * house : 3 * house + 3]
        word = {_px(house, guide.HOUSE): "amber", _px(house, guide.RELAY): "yellow"}.get(shown)
        assert word == ("amber" if blink == "on" else "yellow"), shown
        said = rig.sim.step_guidance()
        named = said.split(f"lift {core.pit_name(house)} (", 1)[1].split(")")[0]
        assert re.search(rf"\b{word}\b", named), said  # (the colours in the brackets after its name)

    rig = Rig(tmp_path / "data")
    _hide_the_boards_leds(rig, monkeypatch)
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=house)
    finally:
        rig.close()


def _south_house_decision(rec: Any) -> bool:
    return tui_rig.house_decision(rec) and rec.p.to_move == core.SOUTH


@pytest.mark.parametrize("what", ["decision", "stopped"])
def test_tui_says_the_house_decision_against_the_computer(
    what: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # issue #25: a person's move against the computer that may stop in the house (2.5b): the line under the
    # board says what to do, with the rule, and that the computer plays after the stop; a touch of North's
    # pits stops the move there and the computer's move is lit and said
    async def run(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        app = pilot.app
        assert isinstance(app, BaoApp)
        await pilot.press("c")  # the board's engine plays North, level 1
        p, acts = tui_rig.find(core.ZANZIBAR, _south_house_decision)
        rig.set_position(p)
        app.step()
        await _type(rig, pilot, acts)
        said = rig.sim.step_guidance()
        assert said.startswith("2.5b house decision: stop in the house (touch any of North's pits: then the computer")
        if what == "decision":
            rig.blink(True)
            app.step()
            await pilot.pause()
            return
        await _type(rig, pilot, [core.pit_index("a1")])  # a touch of North's: the move stops in the house
        await _until_said(rig, pilot, "The computer plays")

    rig = Rig(tmp_path / "data")
    _hide_the_boards_leds(rig, monkeypatch)
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=run)
    finally:
        rig.close()


def test_tui_says_what_the_notations_marks_mean_once(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The 1994 game's first three plies (7L* 5R 6R*): the first move that shows L/R and `*` says what they mean
    (G6, G7, 1.7) in the messages; the next ones, which show the same marks, say nothing more."""
    game = notation.parse_transcript((Path(__file__).resolve().parents[2] / "games" / "zanzibar-1994.txt").read_text())
    positions = notation.replay(game)

    async def three_plies(pilot: Pilot[int]) -> None:
        await _play(rig, pilot, core.ZANZIBAR, "start")
        app = pilot.app
        assert isinstance(app, BaoApp)
        for i in range(3):
            move, _ = notation.parse_move(positions[i], game.plies[i])
            await _type(rig, pilot, R.activations(positions[i], move))
            app.step()
        said = [m for m in app.messages_shown if m.startswith(tuple(game.plies[:3]))]
        assert said == [
            "7L*: L means pit 1's end, R pit 8's: the way the hand sows (G6), or in a capture with a seed from the "
            "store: the kichwa the captured seeds go in from (G7); * a takasa, a move that captures nothing (1.7)."
        ], said
        await pilot.pause()

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        assert snap_compare(rig.app(), terminal_size=(80, 24), run_before=three_plies)
    finally:
        rig.close()
