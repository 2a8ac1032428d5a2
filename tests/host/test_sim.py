"""`bao sim`: the 1994 game played by simulated hands on the simulated board, under both runtimes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
GAME = ROOT / "games/zanzibar-1994.txt"
BAO = [sys.executable, "-m", "bao_host.cli"]


def _want() -> list[str]:
    from bao import notation

    t = notation.parse_transcript(GAME.read_text())
    ps = notation.replay(t)
    return [notation.format_move(notation.parse_move(ps[i], x)[0], ps[i].to_move) for i, x in enumerate(t.plies)]


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_sim_plays_the_1994_game(runtime: str) -> None:
    r = subprocess.run(
        BAO + ["sim", "--runtime", runtime, "--play-transcript", str(GAME), "--report"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == _want()
    assert "board serial: /dev/" in r.stderr  # the pseudo-terminal path is printed


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_sim_with_mistakes(runtime: str) -> None:
    r = subprocess.run(
        BAO
        + [
            "sim",
            "--runtime",
            runtime,
            "--play-transcript",
            str(GAME),
            "--report",
            "--port",
            "none",
            "--mistakes",
            "0.15",
            "--seed",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == _want()
    assert "flagged" in r.stderr


def test_sim_board_observable_and_pty_host() -> None:
    import serial  # type: ignore[import-untyped]
    from bao_host.boards.sim import CPythonBoard, Hands, PtyLink, Reporter
    from baoproto.frames import decode, encode

    link = PtyLink()
    rep = Reporter()

    def out(data: bytes) -> None:
        rep.feed(data)
        link.write(data)

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        board = CPythonBoard(d, on_serial=out)
        port = serial.Serial(link.path, timeout=0.2)
        port.write(encode("C", 1, "SNAPSHOT"))
        for _ in range(20):
            data = link.read()
            if data:
                board.write_serial(data)
            board.run(1, 5)
        lines = port.read(200000).split(b"\n")
        replies = [f for f in (decode(x) for x in lines if x) if not isinstance(f, int) and f[0] == "R"]
        assert replies and replies[0][2] == "OK" and '"position"' in replies[0][3]
        # the LED frame and the expected counts are observable: teach mode lights South's starts
        assert any(board.rgb(i) for i in range(8))
        assert board.position.seeds(4) == 6
        from bao import core

        p = board.position
        m = core.legal_moves(p)[0][0]
        Hands(board).perform(p, m)
        assert rep.moves and board.position.to_move == core.NORTH
        port.close()
        board.close()
    link.close()
    os.environ.get("X")


def test_a_fault_on_the_simulated_board_is_reported_and_the_board_starts_again(tmp_path: Path) -> None:
    """The simulated board runs the board's own run loop (baoboard.runtime): a fault is reported on its serial
    line, kept in board.errors, and the application comes back from its journal 200 ms of board time later."""
    from bao import core
    from bao_host.boards.sim import CPythonBoard, Hands

    seen = bytearray()
    board = CPythonBoard(str(tmp_path), on_serial=seen.extend)
    p = core.initial()
    assert Hands(board).perform(p, core.legal_moves(p)[0][0])
    after = bytes(board.position.d)
    read_pits = board.hw.read_pits

    def broken(bitmap: bytearray) -> None:
        board.hw.read_pits = read_pits  # (once)
        raise OSError("sensor chain gone")

    board.hw.read_pits = broken
    board.run(1, 5)
    assert board.errors == ["OSError('sensor chain gone')"] and board.app is None
    assert b"N0 ERROR OSError('sensor chain gone')" in seen
    board.run(39, 5)
    assert board.app is None  # 195 ms: waiting
    board.run(1, 5)
    assert board.app is not None and bytes(board.position.d) == after and seen.count(b"HELLO") == 2


def test_play_transcript_plays_on_the_rules_its_header_names(tmp_path: Path) -> None:
    """Issue #26: `bao sim --play-transcript` ignored the transcript's `ruleset:` header and played a Malawi
    game on a Zanzibar board (it failed). The board is asked for the transcript's game first (NEW)."""
    f = tmp_path / "malawi.txt"
    f.write_text("ruleset: malawi\n1: A6L b8R;\n2: A8L a4L;\n3: A5L* a6R;\n4: B6R b8R;\n")
    out = subprocess.run(
        [*BAO, "sim", "--port", "none", "--report", "--play-transcript", str(f)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["A6L", "b8R", "A8L", "a4L", "A5L*", "a6R", "B6R", "b8R"], out.stdout
