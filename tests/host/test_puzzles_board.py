"""Puzzles on the simulated board (the firmware itself): each puzzle's position laid out with the set-up mode,
touch by touch as its lights say, then the solver's move played pit by pit and checked; a wrong answer, then a
right one, and the rating kept in the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import serial
from bao import core, notation
from bao_host.cli import main
from bao_host.puzzles.board import PuzzleRun
from bao_host.puzzles.session import Solving
from bao_host.record.state import IDLE
from bao_testkit import puzzlerig
from baoboard import recogniser as R
from tui_rig import Rig


def _solver(rig: Rig, run: PuzzleRun, answers: list[str], limit: int = 600) -> list[str]:
    """Follows the set-up's lights (a touch on the lit place), then plays the next answer pit by pit."""
    said: list[str] = []
    for _ in range(limit):
        rig.runner.pump()
        said += run.poll()
        said += rig.sim.poll()
        if run.state == "done":
            return said
        step = rig.sim.setup_step
        if step is not None:
            at = step.at
            rig.runner.tap(31 if at == "store-N" else 15 if at == "store-S" else core.pit_index(at))
            continue
        if run.state != "solve" or rig.board.phase != IDLE or run.puzzle is None:
            continue
        p = run.puzzle.start()
        if rig.board.position.d != p.d:
            continue
        move, _ = notation.parse_move(p, answers.pop(0))
        for pit in R.activations(p, move):
            rig.runner.tap(pit & R.PIT)
    raise AssertionError(f"the puzzles did not end: {run.state}, said {said[-6:]}")


def test_a_puzzle_failed_then_one_solved_on_the_simulated_board(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        puzzles = [pz for pz in puzzlerig.example() if pz.moves == 1]  # (the next: the one failed, again)
        solving = Solving(rig.logger.store, puzzles, "Ali")
        run = PuzzleRun(solving, rig.session.command, rig.logger.view, ruleset=core.ZANZIBAR, first=puzzles[0], limit=2)
        rig.logger.practice = run.kind  # as `make run --puzzles` tells the logger
        said = _solver(rig, run, ["6L", "8"])
        assert said[0] == (
            f"Puzzle {puzzlerig.ZANZIBAR_ID} (zanzibar): the board lays its position out, follow its lights."
        )
        assert "North to move: play the one move that is clearly best." in said
        assert any(s.startswith("Not 6L: the move was 8.") for s in said), said
        assert any(s.startswith("Solved: 8 is the move.") for s in said), said
        # the verdict is said last, just before the next puzzle's line: the terminal's messages panel shows its
        # last few lines, and the accounts of the two moves said after it pushed it out of sight (#28, used)
        nxt = [i for i, s in enumerate(said) if s.startswith("Puzzle ")]
        assert len(nxt) == 2 and said[nxt[1] - 1].startswith("Not 6L: the move was 8."), said
        assert said[-1].startswith("Puzzles done: 2. Ali's rating ")
        ali = rig.logger.store.solver_rating("Ali")
        assert ali is not None and (ali.attempts, ali.solved) == (2, 1)
        # the two puzzles are kept apart from the library's games, and nothing was "abandoned" (#28, used)
        assert not any("abandoned" in m.text for m in rig.logger.messages)
        capsys.readouterr()
        assert main(["games", "--data", str(tmp_path / "data"), "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == []
        assert main(["games", "--data", str(tmp_path / "data"), "--empty", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)  # the board's game before them, left with no move
        assert [(r["moves"], r["status"]) for r in rows] == [(0, "abandoned")]
        assert main(["games", "--data", str(tmp_path / "data")]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[-2].startswith("(and 2 lesson tasks and puzzles played on"), out
        assert out[-1] == "(and 1 game abandoned before its first move: not listed, --empty lists it)", out
    finally:
        rig.close()


def test_a_line_on_the_simulated_board_the_replies_sown_as_lit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A puzzle of three moves on the board: the solver's moves played pit by pit; after each right one the
    board lights South's reply (SHOW) and the person sows it; a wrong reply is taken back and lit again."""
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        puzzles = puzzlerig.example()
        pz = next(p for p in puzzles if p.id == puzzlerig.LINE_ID)
        solving = Solving(rig.logger.store, puzzles, "Ali")
        run = PuzzleRun(solving, rig.session.command, rig.logger.view, first=pz, limit=1)
        said: list[str] = []
        answers = ["4L", "3L", "5R"]
        slipped = False
        for _ in range(800):
            rig.runner.pump()
            said += run.poll()
            said += rig.sim.poll()
            if run.state == "done":
                break
            step = rig.sim.setup_step
            if step is not None:
                at = step.at
                rig.runner.tap(31 if at == "store-N" else 15 if at == "store-S" else core.pit_index(at))
                continue
            if rig.board.phase != R.IDLE:
                continue
            p = rig.board.position
            if run.state == "solve" and p.d == pz.position_at(run.step).d:
                text = answers.pop(0)
            elif run.state == "reply" and p.d != pz.position_at(run.step).d:
                reply = pz.line[2 * run.step + 1]
                text = reply
                if not slipped:  # the person sows another move than the one lit, once
                    slipped = True
                    text = next(
                        core.format_move(m, p.to_move)
                        for m, _ in core.legal_moves(p)
                        if not notation.same_move(m, notation.parse_move(p, reply)[0])
                    )
            else:
                continue
            move, _ = notation.parse_move(p, text)
            for pit in R.activations(p, move):
                rig.runner.tap(pit & R.PIT)
        assert run.state == "done", said[-6:]
        assert "North to move: a line of 3 moves, each clearly best. Find move 1 of 3. Play it on the board." in said
        assert "Right: 4L (move 1 of 3). South replies 8: find your next move." in said
        assert "Sow South's reply 8 on the board: its lights show the way." in said
        assert any(s.endswith("is not South's reply in this line: the board takes it back.") for s in said), said
        assert (
            "North to move: a line of 3 moves, each clearly best. So far: 4L, South 8; 3L, South 3L. "
            "Find move 3 of 3. Play it on the board."
        ) in said
        assert any(s.startswith("Solved: 5R ends the line (move 3 of 3).") for s in said), said
        ali = rig.logger.store.solver_rating("Ali")
        assert ali is not None and (ali.attempts, ali.solved) == (1, 1)
    finally:
        rig.close()
