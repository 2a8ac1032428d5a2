"""Puzzles on the board: the host lays each puzzle's position out with the board's set-up mode (`SETUP`,
docs/protocol.md "Set-up mode"; firmware/baoboard/setup_mode.py), the solver plays a move on the board as in
a game, and the move the board reports is checked (bao_host.puzzles.session: the rating kept in the library);
then the next puzzle for the solver's rating is laid out. Like bao_host.lessons.LessonRun, poll() answers the
lines to say and the UI (terminal or web) says them."""

from __future__ import annotations

from collections.abc import Callable

from bao import core, notation, position_json

from bao_host.puzzles import model
from bao_host.puzzles.session import Solving
from bao_host.record.link import Reply
from bao_host.record.logger import View

SIDES = ("South", "North")


class PuzzleRun:
    """Puzzles one after another on a board: `command(type, payload)` sends a host command
    (LinkSession.command), `view` is the logger's view of the board's events."""

    def __init__(
        self,
        solving: Solving,
        command: Callable[[str, str], Reply | None],
        view: View,
        ruleset: str | None = None,
        first: model.Puzzle | None = None,
        limit: int = 0,
    ) -> None:
        self.solving = solving
        self.command = command
        self.view = view
        self.ruleset = ruleset
        self.puzzle = first
        self.limit = limit  # puzzles to do (0: until the set has none left)
        self.done = 0
        self.state = "start"  # start, setup (waiting for the position), solve (waiting for the move), reply
        # (waiting for the opponent's reply of a line to be sown, as the board lights it), done
        self.step = 0  # the solver's move to find (a line's: 0, 1, ...)
        self._game: int | None = None
        self._plies = 0

    def kind(self) -> str:
        """What a position this run lays out is for (the logger's `practice`): the library keeps the puzzles
        played on the board apart from its games."""
        return "puzzle" if self.state != "done" else ""

    def _next(self) -> list[str]:
        if self.limit and self.done >= self.limit:
            self.state = "done"
            return [f"Puzzles done: {self.done}. {self.solving.solver}'s rating {self.solving.rating().shown()}."]
        if self.puzzle is None:
            self.puzzle = self.solving.next_puzzle(self.ruleset)
        if self.puzzle is None:
            self.state = "done"
            return ["No puzzle left to solve in this set."]
        r = self.command("SETUP", position_json.dumps(self.puzzle.start(), False))
        if r is None or not r.ok:
            self.state = "done"
            return [f"the puzzles stop: the board did not take the position ({r.payload if r else 'no answer'})"]
        self._game = self.view.game_id
        self.state = "setup"
        self.step = 0
        return [f"Puzzle {self.puzzle.id} ({self.puzzle.ruleset}): the board lays its position out, follow its lights."]

    def poll(self) -> list[str]:
        v = self.view
        pz = self.puzzle
        if self.state == "start":
            return self._next()
        if self.state == "setup" and pz is not None:
            if v.game_id != self._game and v.position is not None and v.position.d == pz.start().d:
                self.state = "solve"
                self._plies = len(v.plies)
                if pz.moves > 1:
                    return [model.task(pz, 0) + " Play it on the board."]
                return [f"{SIDES[v.position.to_move]} to move: play the one move that is clearly best."]
        elif self.state == "solve" and pz is not None and len(v.plies) > self._plies:
            played = v.plies[self._plies]
            try:
                result = self.solving.answer(pz, played, self.step)
            except core.BaoError as e:
                return [f"the move {played} is not one of this position ({e})"]
            if result.reply is not None:  # a line: the opponent's reply is sown on the board, as it lights it
                self._plies += 1
                self.state = "reply"
                return result.lines() + self._show(result.reply, result.replier)
            self.done += 1
            self.puzzle = None
            said = result.lines()  # the verdict last: a terminal's messages panel keeps the last few lines in
            return said[1:] + said[:1] + self._next()  # sight, and the next puzzle's set-up begins at once
        elif self.state == "reply" and pz is not None and len(v.plies) > self._plies:
            return self._replied(pz, v.plies[self._plies])
        return []

    def _show(self, reply: str, side: str) -> list[str]:
        r = self.command("SHOW", reply)
        if r is None or not r.ok:
            return [
                f"Sow {side}'s reply {reply} on the board (it could not light it: {r.payload if r else 'no answer'})."
            ]
        return [f"Sow {side}'s reply {reply} on the board: its lights show the way."]

    def _replied(self, pz: model.Puzzle, played: str) -> list[str]:
        """The ply sown where the line's reply was expected: the reply (the next move is to find), or another
        move, taken back (UNDO) and the reply lit again."""
        reply = pz.line[2 * self.step + 1]
        before = pz.position_at(self.step)
        after = notation.parse_move(before, pz.expected(self.step))[1]
        try:
            same = notation.same_move(notation.parse_move(after, played)[0], notation.parse_move(after, reply)[0])
        except core.BaoError:
            same = False
        side = SIDES[after.to_move]
        if not same:
            r = self.command("UNDO", "")
            took = "the board takes it back" if r is not None and r.ok else "take it back (undo)"
            return [f"{played} is not {side}'s reply in this line: {took}."] + self._show(reply, side)
        self.step += 1
        self._plies += 1
        self.state = "solve"
        return [model.task(pz, self.step) + " Play it on the board."]
