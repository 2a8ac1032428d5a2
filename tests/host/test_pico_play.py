"""Playing the computer where the board really runs (issue #10): the firmware on the emulated Pico (the real
MicroPython RP2040 image in rp2040js, its heap and its clock; tools/pico/) answers the player's move with its
engine within 3 s of Pico time, lights the move on the LED chain and follows it as the player sows it.
Marked `pico` (about 40 s): `make test-pico` runs it. Skipped, with the reason, where the emulated Pico cannot run
(make pico-deps)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bao import core, notation, position_json
from bao_testkit.picorig import NEEDS_PICO
from bao_testkit.simrig import game_1994
from baoboard.recogniser import activations
from baoproto.frames import decode, encode
from test_pico import HOLD, PicoBoard  # (PicoBoard from where test_pico finds it)

pytestmark = NEEDS_PICO


class Line:
    """The host end of the board's serial line: replies and notices by type."""

    def __init__(self, board: PicoBoard) -> None:
        self.board = board
        self.buf = b""
        self.replies: dict[int, str] = {}
        self.notices: list[tuple[str, str]] = []
        board.on_serial = self._feed

    def _feed(self, data: bytes) -> None:
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            f = decode(line.rstrip(b"\r"))
            if isinstance(f, int):
                continue
            if f[0] == "R":
                self.replies[f[1]] = f"{f[2]} {f[3]}".strip()
            elif f[0] == "N":
                self.notices.append((f[2], f[3]))

    def command(self, n: int, typ: str, payload: str = "") -> str:
        self.board.write_serial(encode("C", n, typ, payload))
        for _ in range(80):
            self.board.run(1, 5)
            if n in self.replies:
                return self.replies[n]
        raise AssertionError(f"no reply to {typ}")


def _tap(board: PicoBoard, pit: int) -> None:
    board.set_pit(pit, True)
    board.run(HOLD, 5)
    board.set_pit(pit, False)
    board.run(HOLD, 5)


@pytest.mark.pico
def test_the_computer_answers_within_3_s_of_pico_time_and_is_sown(tmp_path: Path) -> None:
    board = PicoBoard(str(tmp_path))
    line = Line(board)
    try:
        assert line.command(1, "CPU", "N 4") == "OK N 4"
        p, m = game_1994().moves[0]
        for pit in activations(p, m):
            _tap(board, pit)
        start = board.pico_ms
        while not [n for n in line.notices if n[0] == "CPU"]:  # the engine's move, told to the host
            board.run(20, 5)
            assert board.pico_ms - start < 5000, "no answer within 5 s of Pico time"
        text, nodes, depth, _score = next(n for n in line.notices if n[0] == "CPU")[1].split()
        assert board.pico_ms - start < 3000 + 500  # 3 s for the search, the rest for the scans around it
        assert int(nodes) > 0 and int(depth) >= 1
        q = board.position
        mine, _ = notation.parse_move(q, text)
        first = activations(q, mine)[0]
        board.run(60, 5)
        assert any(board.frame[3 * first : 3 * first + 3]), "the computer's start is lit on the LED chain"
        for pit in activations(q, mine):
            _tap(board, pit)
        board.run(120, 5)
        moves = [v for v in board.events.values() if v[0] == "MOVE"]
        assert [v[1].split(" ", 1)[0] for v in moves] == [notation.format_move(m, core.SOUTH), text]
        assert board.errors == []
    finally:
        board.close()


@pytest.mark.pico
def test_host_commands_while_the_computer_thinks_are_answered(tmp_path: Path) -> None:
    """A command that arrives during the computer's search waits for it to stop and then runs at the top of
    the scan loop's step (Outbox.defer): run inside the search's own steps, a SETPOS's listing overran a
    Pico's 8 KB C stack ("ERR internal RuntimeError('maximum recursion depth exceeded')")."""
    board = PicoBoard(str(tmp_path))
    line = Line(board)
    try:
        assert line.command(1, "CPU", "N 4") == "OK N 4"
        game = game_1994().moves
        p, m = game[0]
        for pit in activations(p, m):
            _tap(board, pit)
        assert not [n for n in line.notices if n[0] == "CPU"], "the search is still running"
        later = game[20][0]  # South to move: the computer does not think after it
        assert later.d[core.TO_MOVE] == core.SOUTH
        assert line.command(2, "SETPOS", position_json.dumps(later, False)) == "OK"
        assert board.position.d == later.d
        snap = line.command(3, "SNAP")
        assert snap.startswith("OK {") and '"moves": 0' in snap, snap[:80]
        assert not [n for n in line.notices if n[0] == "CPU"], "the stopped search lit nothing"
        assert board.errors == []
    finally:
        board.close()
