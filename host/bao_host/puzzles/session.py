"""A solver at work: the next puzzle for the solver's rating, an answer checked, both Glicko-2 ratings
updated and kept in the library (record/store/puzzle_ratings). The terminal, the browser and the board
(bao_host.puzzles.board) all solve through this."""

from __future__ import annotations

from dataclasses import dataclass

from bao import core

from bao_host.puzzles import glicko2, model
from bao_host.record.store import Store
from bao_host.record.store.puzzle_ratings import Rated

PUZZLE_RD = 200.0  # a puzzle never tried: its rating from the engines is a fair guess, not a certain one


SIDES = ("South", "North")


@dataclass
class Result:
    answer: model.Answer
    before: float  # the solver's rating before the attempt
    after: float  # and after it
    puzzle_rating: float  # the puzzle's, after it
    step: int = 0  # which of the solver's moves this was (0: the first)
    moves: int = 1  # the solver's moves the puzzle asks (a line: more than 1)
    reply: str | None = None  # the opponent's reply when the line goes on (a right move, not the last)
    replier: str = ""  # the side that replies ("North")
    before_rd: float = 0.0  # the solver's rating deviation before the attempt, and after it
    after_rd: float = 0.0

    def shown(self) -> tuple[str, str]:
        """The solver's rating before and after as a person reads them ("1441?" while provisional)."""
        return (
            glicko2.Rating(self.before, self.before_rd).shown(),
            glicko2.Rating(self.after, self.after_rd).shown(),
        )

    @property
    def final(self) -> bool:
        """The attempt is over (a wrong move, or the line's last): the ratings changed."""
        return self.reply is None

    def lines(self) -> list[str]:
        """What a person is told: right or wrong, what the move did, the solution, the rating's change; in a
        line, after a right move that is not the last: the reply, and that the next move is to find."""
        a = self.answer
        did = "; ".join(a.account[:3]) + ("; …" if len(a.account) > 3 else "")
        of = f" (move {self.step + 1} of {self.moves})" if self.moves > 1 else ""
        if self.reply is not None:
            return [
                f"Right: {a.move}{of}. {self.replier} replies {self.reply}: find your next move.",
                f"What {a.move} does: {did}",
            ]
        before, after = self.shown()
        change = f"rating {before} -> {after} ({self.after - self.before:+.0f})"
        if glicko2.Rating(self.after, self.after_rd).provisional:  # (the swing of a new solver's: said as such)
            change = f"rating {before} -> {after} (? provisional: a few more puzzles settle it)"
        if a.correct:
            what = "is the move" if self.moves == 1 else "ends the line"
            return [f"Solved: {a.move} {what}{of}. {change}", f"What it does: {did}"]
        out = [f"Not {a.move}: the move was {a.solution}{of}. {change}", f"What {a.move} does: {did}"]
        if a.solution_account:  # what made the solution better: its own account, as short
            sol = "; ".join(a.solution_account[:3]) + ("; …" if len(a.solution_account) > 3 else "")
            out.append(f"What {a.solution} does: {sol}")
        return out


def _rating(r: Rated | None, default: glicko2.Rating) -> glicko2.Rating:
    return default if r is None else glicko2.Rating(r.rating, r.rd, r.vol)


class Solving:
    """One solver's puzzles: `store` keeps the ratings; `puzzles` the set to choose from."""

    def __init__(self, store: Store, puzzles: list[model.Puzzle], solver: str) -> None:
        self.store = store
        self.puzzles = puzzles
        self.solver = solver.strip() or "you"

    def rating(self) -> glicko2.Rating:
        return _rating(self.store.solver_rating(self.solver), glicko2.Rating())

    def puzzle_rating(self, pz: model.Puzzle) -> glicko2.Rating:
        return _rating(self.store.puzzle_rating(pz.id), glicko2.Rating(float(pz.rating), PUZZLE_RD))

    def next_puzzle(self, ruleset: str | None = None) -> model.Puzzle | None:
        """A puzzle the solver has not solved, of the ruleset if one is given, rated nearest the solver (the
        lowest id among equals: the same choice every time); one not tried yet first (a puzzle just failed,
        its solution just shown, comes back only when no other is left)."""
        tried = self.store.solved_puzzles(self.solver)
        mine = self.rating().rating
        left = [pz for pz in self.puzzles if not tried.get(pz.id) and (ruleset is None or pz.ruleset == ruleset)]
        left = [pz for pz in left if pz.id not in tried] or left
        if not left:
            return None
        return min(left, key=lambda pz: (abs(self.puzzle_rating(pz).rating - mine), pz.id))

    def answer(self, pz: model.Puzzle, text: str, step: int = 0) -> Result:
        """Check the solver's move number `step` (bao.core.BaoError when it cannot be read or is illegal:
        nothing is recorded then). A wrong move, or the line's last, ends the attempt: it is recorded with both
        new ratings; a right move before the last answers the opponent's reply and records nothing."""
        if not 0 <= step < pz.moves:
            raise core.BaoError(f"the puzzle asks {pz.moves} move{'s' if pz.moves > 1 else ''}: no move {step + 1}")
        a = model.check_answer(pz, text, step)
        before = self.rating()
        reply = pz.reply(step) if a.correct else None
        if reply is not None:
            side = SIDES[pz.position_at(step).to_move ^ 1]
            return Result(
                a,
                before.rating,
                before.rating,
                self.puzzle_rating(pz).rating,
                step,
                pz.moves,
                reply,
                side,
                before.rd,
                before.rd,
            )
        solver, puzzle = glicko2.attempt(before, self.puzzle_rating(pz), a.correct)
        prev_s = self.store.solver_rating(self.solver)
        prev_p = self.store.puzzle_rating(pz.id)
        self.store.record_attempt(
            self.solver,
            pz.id,
            a.move,
            a.correct,
            Rated(solver.rating, solver.rd, solver.vol, _n(prev_s)),
            Rated(puzzle.rating, puzzle.rd, puzzle.vol, _n(prev_p)),
        )
        return Result(
            a, before.rating, solver.rating, puzzle.rating, step, pz.moves, before_rd=before.rd, after_rd=solver.rd
        )


def _n(r: Rated | None) -> int:
    return 0 if r is None else r.attempts
