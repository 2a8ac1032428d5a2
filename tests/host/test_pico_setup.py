"""The set-up mode (issue #28, docs/protocol.md "Set-up mode") on the emulated Pico running the Bao-board image:
a host asks for a position the board did not play to, a person does what each SETUP notice says and touches the
lit place (a store: its side's back-row end), and the board ends with the position live, a GAME event, and the
game's lights once the hand has left the last place. The same steps as the simulated board takes for the same
request (tests/firmware/test_board_setup.py runs them on CPython and MicroPython). `make test-pico` (marked
pico)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bao import core, position_json
from bao_host.ui import setup_words
from bao_testkit.faults import place_pit
from bao_testkit.picofuzz import HELLO, THINK, Host, touch
from bao_testkit.picorig import NEEDS_PICO
from bao_testkit.simrig import game_1994
from baoboard.recogniser import PIT, activations

pytestmark = [pytest.mark.pico, NEEDS_PICO]

WAIT_SCANS = 500  # scans of 5 ms: past the 2 s the board waits for the hand to leave the last place


def _said(host: Host, since: int) -> list[setup_words.SetupStep | setup_words.SetupEnd | setup_words.SetupReady]:
    """The SETUP notices the board said since line `since`, read as a host reads them."""
    out = []
    for f in host.lines[since:]:
        if f[0] == "N" and f[2] == "SETUP":
            said = setup_words.parse(f[3])
            assert said is not None, f"a notice the host cannot read: {f}"
            out.append(said)
    return out


def _lay_out(host: Host, target: core.Position) -> tuple[int, int, setup_words.SetupEnd]:
    """SETUP target, then the person's touches, one per step said, until the board says done: (the steps the
    reply announced, touches, done)."""
    since = len(host.lines)
    reply = host.command("SETUP", position_json.dumps(target, False))
    assert reply.startswith("OK steps="), reply
    announced = int(reply.split("=", 1)[1])
    touches = 0
    while True:
        said = _said(host, since)
        assert said, "the board said no set-up step"
        last = said[-1]
        if isinstance(last, setup_words.SetupEnd):
            assert last.done, last
            return announced, touches, last
        assert isinstance(last, setup_words.SetupStep), last
        assert touches < 80, f"the set-up never ends: {last}"
        since = len(host.lines)
        touch(host.board, [place_pit(last)])
        touches += 1
        host.board.run(20, 5)  # (the board says the next step a moment after the touch)


def test_the_board_guides_a_person_from_the_start_to_a_mtaji_position_and_plays_it(tmp_path: Path) -> None:
    from bao_host.boards.pico import PicoBoard

    g = game_1994()
    target = g.moves[44][0]  # the 1994 game at ply 45, B2L: both stores empty, the mtaji stage
    assert target.store(core.SOUTH) == 0 and target.store(core.NORTH) == 0
    board = PicoBoard(str(tmp_path), flash_timing=False)
    host = Host(board)
    try:
        assert host.command("HELLO", HELLO).startswith("OK ")
        board.run(THINK, 5)
        announced, touches, done = _lay_out(host, target)
        # every place that differs (a pit or a store) was one step and one touch, none refused; those right
        # already were skipped
        places = sum(a != b for a, b in zip(core.initial().counts(), target.counts()))
        assert (announced, touches, done.steps, done.touches, done.refused) == (places,) * 4 + (0,)
        assert done.wait, "the board names the pit the hand must leave"
        # the position is live: its GAME event, then the game's lights once the hand has been away 2 s
        assert board.position.d == target.d
        since = len(host.lines)
        board.run(WAIT_SCANS, 5)
        assert any(isinstance(s, setup_words.SetupReady) for s in _said(host, since))
        p, m = g.moves[44]
        start = p.to_move * 16 + (m & core.RING)
        r, green, b = board.frame[3 * start : 3 * start + 3]
        assert green > 0 and r == b == 0, f"the move's start pit is not lit green: {(r, green, b)}"
        # and the move is played on it as on any board
        moves_before = [v for v in board.events.values() if v[0] == "MOVE"]
        touch(board, [a & PIT for a in activations(p, m)])
        board.run(THINK, 5)
        moves = [v for v in board.events.values() if v[0] == "MOVE"]
        assert len(moves) == len(moves_before) + 1 and moves[-1][1].split(" ", 1)[0] == g.plies[44]
        assert board.errors == []
    finally:
        board.close()
