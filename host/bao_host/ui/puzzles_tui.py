"""Puzzles in the terminal (`bao puzzles --solve`): the puzzle's position as a diagram, the move typed in
Donkers notation (`A5R`, `b3L*`, `6L`), the answer checked by the rules core and the solver's Glicko-2
rating updated in the library (bao_host.puzzles.session). n: the next puzzle, s: show the solution, q: quit.
"""

from __future__ import annotations

from bao import core
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Header, Input, RichLog, Static

from bao_host.puzzles import model
from bao_host.puzzles.session import Solving
from bao_host.ui import diagram

SIDES = ("South", "North")


class PuzzleApp(App[int]):
    CSS = """
    #info { height: auto; padding: 0 1; }
    #board { height: auto; padding: 0 1; }
    #move { width: 46; }
    #said { height: 1fr; border: round $accent; scrollbar-size-vertical: 1; overflow-x: hidden; }
    """
    BINDINGS = [
        Binding("ctrl+n", "next", "next puzzle"),
        Binding("ctrl+s", "solution", "solution"),
        Binding("escape", "quit", "quit"),
    ]
    TITLE = "Bao puzzles"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, solving: Solving, first: model.Puzzle | None = None, ruleset: str | None = None) -> None:
        super().__init__()
        self.solving = solving
        self.ruleset = ruleset
        self.puzzle = first
        self.answered = False
        self.step = 0  # the solver's move to find (a line's: 0, 1, ...)
        self.lines: list[str] = []  # every line said (what a person reads in the panel)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Static("", id="info")
            yield Static("", id="board")
            yield Input(placeholder="your move, e.g. A5R or b3L* (Enter)", id="move")
            yield RichLog(id="said", wrap=True, markup=False, highlight=False, min_width=20)  # (default 78: cut at 80)
        yield Footer()

    def on_mount(self) -> None:
        if self.puzzle is None:
            self.puzzle = self.solving.next_puzzle(self.ruleset)
        self.show()

    def say(self, line: str) -> None:
        self.lines.append(line)
        self.query_one("#said", RichLog).write(Text(line))

    def show(self) -> None:
        r = self.solving.rating()
        self.sub_title = f"{self.solving.solver}: rating {r.shown()} ± {2 * r.rd:.0f}"
        pz = self.puzzle
        if pz is None:
            self.query_one("#info", Static).update("No puzzle left to solve in this set.")
            return
        p = pz.position_at(self.step)
        self.answered = False
        task = model.task(pz, self.step)  # (a line: the moves found so far and the replies, then the next)
        self.query_one("#info", Static).update(Text(f"{self.header(pz)}\n{task}"))
        self.query_one("#board", Static).update(diagram.render(p))
        self.query_one("#move", Input).focus()

    def header(self, pz: model.Puzzle) -> str:
        return f"Puzzle {pz.id} · {pz.ruleset} · rated {self.solving.puzzle_rating(pz).rating:.0f}"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        pz = self.puzzle
        if pz is None or not text:
            return
        if self.answered:
            self.say("This puzzle is answered: Ctrl+N for the next one.")
            return
        try:
            result = self.solving.answer(pz, text, self.step)
        except core.BaoError as e:
            self.say(f"{text}: {e}")
            return
        for line in result.lines():
            self.say(line)
        if not result.final:  # a line: the reply is played on the diagram, the next move is to find
            self.step += 1
            self.show()
            return
        self.answered = True
        shown = pz.line[: 2 * pz.moves - 1] if pz.moves > 1 else pz.line
        self.say(f"The line: {' '.join(shown)} · themes: {', '.join(pz.themes)} · Ctrl+N: next puzzle")
        # the verdict stays in sight above the board (at 80x24 the panel below scrolls it away)
        self.query_one("#info", Static).update(Text(f"{self.header(pz)}\n{result.lines()[0]} Ctrl+N: next."))
        r = self.solving.rating()
        self.sub_title = f"{self.solving.solver}: rating {r.shown()} ± {2 * r.rd:.0f}"

    def action_next(self) -> None:
        self.puzzle = self.solving.next_puzzle(self.ruleset)
        self.step = 0
        self.query_one("#said", RichLog).clear()
        self.show()

    def action_solution(self) -> None:
        if self.puzzle is not None:
            pz = self.puzzle
            if pz.moves > 1:
                self.say(f"The line: {' '.join(pz.line[: 2 * pz.moves - 1])} (the engine's line: {' '.join(pz.line)})")
            else:
                self.say(f"The solution: {pz.solution} (line {' '.join(pz.line)})")
