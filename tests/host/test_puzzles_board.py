"""Puzzles on the simulated board (the firmware itself): each puzzle's position laid out with the set-up mode,
touch by touch as its lights say, then the solver's move played pit by pit and checked; a wrong answer, then a
right one, and the rating kept in the library."""

from __future__ import annotations

from pathlib import Path

import pytest
import serial
from bao import core, notation
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
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        puzzles = puzzlerig.example()
        solving = Solving(rig.logger.store, puzzles, "Ali")
        run = PuzzleRun(solving, rig.session.command, rig.logger.view, ruleset=core.ZANZIBAR, first=puzzles[0], limit=2)
        said = _solver(rig, run, ["6L", "8"])
        assert said[0] == (
            f"Puzzle {puzzlerig.ZANZIBAR_ID} (zanzibar): the board lays its position out, follow its lights."
        )
        assert "North to move: play the one move that is clearly best." in said
        assert any(s.startswith("Not 6L: the move was 8.") for s in said), said
        assert any(s.startswith("Solved: 8 is the move.") for s in said), said
        assert said[-1].startswith("Puzzles done: 2. Ali's rating ")
        ali = rig.logger.store.solver_rating("Ali")
        assert ali is not None and (ali.attempts, ali.solved) == (2, 1)
    finally:
        rig.close()
