"""The terminal UI (textual): the board as a person sees it, played with the mouse or the keyboard alone.

32 pits with their seed counts, each drawn in its LED's colour from the board's LED frame (the same 96
bytes the LEDs get), every frame; North on top (rows b, a, then A, B; row a reads a8..a1 left to right and
b reads b8..b1, as North's pits sit seen from South's chair). Touching a pit (a click, Enter or Space on the
cursor, or typing its name: `a6`, `B3`) is ONE pit activation, exactly as a hand over a real pit. Around
the board: the status line (whose turn, the game, the connection, the data folder), the guidance line
(the step the board waits for: bao_host.ui.steps), the messages (guidance, refusals with their reasons,
what the logger says) and the transcript filling in (from the logger's store).

The UI talks to a board through the `BoardAdapter` interface (bao_host.ui.adapter) and to the logger
(bao_host.record.logger.Logger) for what was stored. `make run` (bao_host.cli.run) plays on the firmware
itself on the simulated board, so what the UI shows is what a real board does.

The layout follows the terminal: a compact board (pits 7 columns by 2 lines) fits 80x24; a larger
terminal gets larger pits (up to 13 by 5) and more room for the messages and the transcript.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from bao import core, query
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Header, RichLog, Static

from bao_host.record.logger import Logger, side_name
from bao_host.ui import lights, notation_words, setup_words
from bao_host.ui.adapter import BoardAdapter, players_words

RULESETS = core.RULESETS
MODES = ("teach", "play", "silent")
MODE_TEXT = {
    "teach": "the LEDs show every step",
    "play": "the LEDs stay dark unless a touch is refused",
    "silent": "the LEDs stay dark; the board still checks and records every move",
}

# The pits as a person sees them, top to bottom: (row label, side, ring order left to right)
ROWS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("b", core.NORTH, tuple(range(8, 16))),  # b8..b1
    ("a", core.NORTH, tuple(range(7, -1, -1))),  # a8..a1
    ("A", core.SOUTH, tuple(range(8))),  # A1..A8
    ("B", core.SOUTH, tuple(range(15, 7, -1))),  # B1..B8
)
GRID: tuple[tuple[int, ...], ...] = tuple(tuple(side * 16 + r for r in rings) for _, side, rings in ROWS)

# Pit sizes (columns, lines): compact at 80x24, larger as the terminal grows
PIT_MIN = (7, 2)
PIT_MAX = (13, 5)
SIDE_MIN = 16  # the transcript's columns beside the board
ROWS_AROUND_BOARD = 15  # header, status (2), stores (2), the gap between the halves, guidance (2),
#                         messages (at least 6 with their border), footer


def pit_label(pit: int) -> str:
    return core.pit_name(pit)


def parse_pit(name: str) -> int | None:
    """A pit's name as typed (`a6`, `B3`) -> its index, or None."""
    try:
        return query.pit_index(name)
    except core.NotationError:
        return None


def _home_short(folder: str) -> str:
    """A folder as a person writes it: ~ for the home folder (the status line fits 80 columns)."""
    home = str(Path.home())
    return "~" + folder[len(home) :] if folder == home or folder.startswith(home + os.sep) else folder


def led_colours(rgb: tuple[int, int, int], k: float = 255 / lights.FULL) -> tuple[str, str]:
    """(text colour, background) showing an LED colour on a terminal: an unlit pit is dark grey; the frame is
    brought back to the grammar's colours by one factor k (bao_host.ui.lights.scale: the board's brightness),
    so a dim colour stays dim (the lifted pit's dim yellow, the start's green beside the bright green)."""
    if rgb == (0, 0, 0):
        return "#c0c0c0", "#202020"
    r2, g2, b2 = lights.colour(rgb, k)
    fg = "#000000" if (r2 * 299 + g2 * 587 + b2 * 114) > 128000 else "#ffffff"
    return fg, f"#{r2:02x}{g2:02x}{b2:02x}"


def led_style(rgb: tuple[int, int, int], k: float = 255 / lights.FULL) -> str:
    """The rich style of a pit lit in rgb."""
    fg, bg = led_colours(rgb, k)
    return f"{fg} on {bg}"


class Pit(Widget):
    """One pit: its name and seed count on its LED's colour; the cursor marks it with brackets; a light a
    person could take for another has its mark beside the count (bao_host.ui.lights.MARKS: ★ the computer's
    move or a hint, ✕ a refused touch, ⊘ no host, ! not recorded, ◆ the computer's level or the host's side)."""

    class Touched(Message):
        def __init__(self, pit: int) -> None:
            super().__init__()
            self.pit = pit

    def __init__(self, pit: int) -> None:
        super().__init__(id=f"pit-{pit}", classes="pit")
        self.pit = pit
        self.led = ""  # the rich style showing the pit's LED colour
        self.count = -1
        self.cursor = False
        self.mark = ""

    def show(self, rgb: tuple[int, int, int], count: int, cursor: bool, k: float, mark: str = "") -> None:
        style = led_style(rgb, k)
        if (style, count, cursor, mark) == (self.led, self.count, self.cursor, self.mark):
            return
        self.led, self.count, self.cursor, self.mark = style, count, cursor, mark
        fg, bg = led_colours(rgb, k)
        self.styles.color = Color.parse(fg)
        self.styles.background = Color.parse(bg)
        self.refresh()

    def render(self) -> Text:
        name = pit_label(self.pit)
        count = str(self.count) if self.count >= 0 else "?"
        count = f"{self.mark} {count}" if self.mark else count
        top = f"[{name}]" if self.cursor else name
        w, h = self.size.width, self.size.height
        lines = [top, "", count] if h >= 4 else [top, count]  # room to breathe: the count in the middle
        text = Text("\n".join(f"{line:^{w}}" for line in lines))
        if self.cursor:
            at = (w - len(top)) // 2
            text.stylize("bold underline", at, at + len(top))
        return text

    def on_click(self) -> None:
        self.post_message(self.Touched(self.pit))


HELP = """\
[b]Bao on the simulated board[/b]  (arrow keys or the mouse wheel scroll this help; Escape, q or ? closes it)

[b]Touching a pit[/b] is one pit activation: a hand lifting the seeds of that pit, or dropping one seed \
into it, as over a real board. Touch with the mouse (click), or with the keyboard alone:
  arrow keys     move the cursor (the pit in \\[brackets]); Up and Down
                 change rows; every arrow wraps round
  Enter, Space   touch the pit under the cursor
  a6, B3 ...     type a pit's name to touch it (rows a, b: North;
                 A, B: South); Escape forgets a letter typed

[b]The LEDs[/b] guide you, and the line under the board says it in words. A pit \
is drawn in its LED's colour:
  green          a pit to start from (the namua stage: put a seed
                 from the store into it)
  bright green ★ the start of the computer's move, or of a hint (★
                 beside the count; the start's green has none)
  violet ◆       who plays a side, just chosen (not a move to make):
                 blinking on the computer's front pits, as many as
                 its level (1 to 4); one pit walking along the row:
                 the host plays it (its engine, or a player far away)
  blue           a direction to choose: drop the first seed into
                 one of the blue pits
  white          the next pit to drop a seed into
  dim yellow     the pit you lifted
  red            the opponent's pit to capture (1.4)
  cyan           the kichwa the captured seeds go in from
  yellow         lift that pit and sow on (1.6)
  amber and yellow, blinking  your house: stop there (amber), or
                 lift it to play it (yellow, as a relay) (2.5b); in
                 the kuu games, the kuu (M15)
  purple         the takasia-ed pit (4.1), or a threatened pit
                 (M18); blinking: capture it now (M19)
  gold           the winner's pits; dim red, the loser's
  gold (placing) one gold pit on the far back row per seed still
                 to place (M20-M22)
  red-pink ✕, blinking  that touch was not part of a legal move: touch
                 the right pit, or the same pit again to take the
                 seed back out (the line under the board says why)
  orange, blinking  put the seeds of these pits back (after an undo)
  dim blue, slow blink on the four corners: no host is connected
                 (marked ⊘; dim white there, marked !: this game is
                 not recorded, the board's journal is full)
  magenta        a pit whose sensor is faulty: the board ignores it
  magenta, blinking  two pits: one of them senses nothing, the board
                 cannot tell which (the line under the board says so)

[b]The house decision (2.5b)[/b]: when a sowing ends in your house (amber and yellow, blinking) you may stop there \
(the opponent begins its move: its first touch stops yours) or play the house (touch it: you lift it). The \
kuu games' kuu (M15) is decided the same way: lift it to relay, or let the opponent play.

[b]Undo[/b] (u): the board takes the last move back; its UNDO event is stored in the game's event log and \
the pits to put right blink orange. On a real board: touch one pit that is not part of the move three \
times within two seconds.

[b]Modes[/b] (m): teach, every step lit; play, dark unless a touch is refused; silent, always dark. \
[b]Rulesets[/b] (r): Zanzibar, Malawi and its kuu games, for the next new game (n). A new game before the \
old one ended marks the old one abandoned in the library. Mode changes and undos are said in the messages.

[b]Playing the computer[/b] (c): the board's engine plays North; press again for levels 2, 3 and 4, then \
the host's engine, then two players again. The header says who plays each side, and the level just \
chosen blinks violet ◆ on that many of the computer's front pits. When the computer is to move, its move \
lights bright green ★ (its start) with the pit of its first seed, and the line under the \
board says it: sow it for the computer, pit by pit, as the LEDs show. \
[b]Hint[/b] (h): the engine's best move for the side to move lights bright green ★ and is said in words.

[b]Set-up[/b] (k): the board guides you to lay out a position (`--setup FILE`: a position's JSON), or \
without one to check its own, one place at a time: sky blue, put seeds into this pit; orange, take seeds \
out; white, make it hold the count said (count them); a side's two back-row ends lit (B1 and B8, or b1 and b8): its \
store, or a pit whose sensor is faulty, touch either end when it is right; pink, blinking: that touch was \
not the lit place, put back what you moved there; dim white: done, take your hand off that pit; the game's \
lights come on two seconds after your last touch there. The line under the board says how many. Touch \
the pit when it is right; k again leaves.

[b]Lessons and puzzles[/b]: `bao lessons` lists the lessons (done or not); `make run \
ARGS="--lesson zanzibar-01-namua-capture"` starts one (a lesson's name as listed): the board lays its \
position out, the task is said among the messages, and a wrong answer is explained, then the position is \
laid out again. `make run ARGS="--puzzles"` (`--ruleset malawi`, `--solver NAME`) sets puzzles out one \
after another: play the one best move; your rating is kept in the library. In the browser: `bao serve`, \
the lessons under a simulated board, and /puzzles.

[b]Moves[/b] are written in Donkers' notation: the pit (its row letter left out while the stores hold \
seeds), then L or R, the way the hand sows as you see the row: towards pit 1 or pit 8 (G6; in a capture while \
the store holds seeds, the kichwa the captured seeds go in from, G7); * a takasa, a move that captures \
nothing (1.7; a takata in Malawi, M25); ** a takasa that makes a takasia (4.1); > the house played on \
(2.5b; in Malawi the kuu relayed, M15). Each mark is said in the messages the first time a move shows it.

[b]Keys[/b]: arrows  Enter/Space touch  n new game  r ruleset  m mode  u undo
      c computer  h hint  k set-up  ? help  q quit

[b]Where games are stored[/b]: every move the board reports is checked again and stored in the game \
library, in the data folder the status line names (`python -m bao_host.cli.run --data DIR` chooses \
another): index.sqlite3, games/*.txt (the transcripts), games/*.jsonl (every event of a game). \
`bao games` lists them (who played each side: a person, the computer and its level, the host's engine), \
`bao game N` shows one.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(HELP, id="help")


class BaoApp(App[int]):
    CSS = """
    #status { height: auto; max-height: 3; padding: 0 1; }
    #main { height: auto; }
    #boardpane { width: auto; height: auto; }
    .half { grid-size: 8 2; grid-gutter: 0 1; width: 63; height: 4; grid-columns: 7; grid-rows: 2; }
    #south { margin-top: 1; }
    .pit { content-align: center middle; }
    .store { height: 1; }
    #transcript { width: 1fr; height: 100%; border: round $accent; padding: 0 1; }
    #guide { height: auto; min-height: 2; max-height: 3; padding: 0 1; color: $text; background: $boost; }
    #messages { height: 1fr; border: round $warning; scrollbar-size-vertical: 1; overflow-x: hidden; }
    #help-box { border: thick $accent; background: $surface; width: 100%; max-width: 110; height: 100%;
                max-height: 40; padding: 0 1; }
    HelpScreen { align: center middle; }
    """
    BINDINGS = [
        Binding("left", "cursor(-1, 0)", "pit", show=False),
        Binding("right", "cursor(1, 0)", "pit", show=False),
        Binding("up", "cursor(0, -1)", "pit", show=False),
        Binding("down", "cursor(0, 1)", "pit", show=False),
        Binding("enter,space", "touch", "touch"),
        Binding("n", "new_game", "new game"),
        Binding("r", "ruleset", "ruleset"),
        Binding("m", "mode", "mode"),
        Binding("u", "undo", "undo"),
        Binding("c", "computer", "computer"),
        Binding("h", "hint", "hint", show=False),  # in the help: the footer must fit 80 columns
        Binding("k", "set_up", "set-up", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]
    TITLE = "Bao"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        board: BoardAdapter,
        logger: Logger,
        pump: Callable[[], None] | None = None,
        tick: float = 0.05,
        connection: Callable[[], str] | None = None,
        data_folder: str = "",
        setup: core.Position | None = None,
        lesson: Callable[[], list[str]] | None = None,
        verbose: bool = False,
    ) -> None:
        super().__init__()
        self.verbose = verbose  # the link's detail lines too (protocol, events: the logger's "detail")
        self.setup = setup  # the position k lays out (None: k re-checks the board's own)
        self.lesson = lesson  # a lesson's next lines, polled each tick (bao_host.lessons.LessonRun)
        self.board = board
        self.logger = logger
        self.pump = pump
        self.tick = tick
        self.ruleset = core.ZANZIBAR  # for the next new game (n); the game under way's until r is pressed
        self._ruleset_chosen = False
        self.mode = "teach"
        self.level = 0  # the computer's level (it plays North), 0: two players
        self.data_folder = data_folder
        self.cursor = (0, 2)  # (column, row) in GRID: A1
        self.typed = ""  # the first letter of a pit's name, typed
        self.messages_shown: list[str] = []  # every line written to the message panel
        self._marks_said: set[str] = set()  # the notation's marks said in words (notation_words), once each
        self._plies_seen: tuple[int | None, int] = (None, 0)  # (game, its plies) the marks were looked for in
        self._shown_messages = 0
        self._texts: dict[str, str] = {}
        self._connection = connection
        self._abandon: int | None = None  # the game left by `n`: marked abandoned once the new one starts
        self._grids: list[Grid] = []
        self._pits: dict[int, Pit] = {}
        self._statics: dict[str, Static] = {}
        self._message_log: RichLog | None = None
        self._next_ruleset = ""  # " (n starts it)": the ruleset in the title is for the next game

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="status")
        with Horizontal(id="main"):
            with Vertical(id="boardpane"):
                yield Static("", id="store-n", classes="store")
                for half, rows in (("north", GRID[:2]), ("south", GRID[2:])):
                    with Grid(id=half, classes="half"):
                        for row in rows:
                            for pit in row:
                                yield Pit(pit)
                yield Static("", id="store-s", classes="store")
            yield Static("", id="transcript")
        yield Static("", id="guide")
        messages = RichLog(id="messages", wrap=True, markup=False, highlight=False)
        messages.can_focus = False  # Up and Down move the pit cursor (the mouse wheel still scrolls it)
        yield messages
        yield Footer()

    def on_mount(self) -> None:
        # the widgets the loop updates, looked up once (a tick may come while the app closes and its
        # screen is emptied: it then updates widgets no longer shown, harmlessly)
        self._pits = {pit.pit: pit for pit in self.query(Pit)}
        self._statics = {f"#{w.id}": w for w in self.query(Static) if w.id}
        self._message_log = self.query_one("#messages", RichLog)
        self._grids = list(self.query(".half").results(Grid))
        self._title()
        self._fit(self.size.width, self.size.height)
        self.refresh_board()
        self.set_interval(self.tick, self.step)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Pit sizes for the terminal: the compact board at 80x24, larger pits when there is room."""
        if not self._grids:  # (a resize before the mount: on_mount fits the board)
            return
        pw = max(PIT_MIN[0], min(PIT_MAX[0], (width - SIDE_MIN - 7) // 8))
        ph = max(PIT_MIN[1], min(PIT_MAX[1], (height - ROWS_AROUND_BOARD) // 4))
        gap = 1 if ph >= 3 and 4 * ph + 2 + ROWS_AROUND_BOARD <= height else 0  # between rows a and b, A and B
        for grid in self._grids:
            grid.styles.grid_columns = str(pw)
            grid.styles.grid_rows = str(ph)
            grid.styles.width = 8 * pw + 7
            grid.styles.height = 2 * ph + gap
            grid.styles.grid_gutter_vertical = gap
        for store in ("#store-n", "#store-s"):
            self._statics[store].styles.width = 8 * pw + 7
        self._texts.pop("#transcript", None)  # its height changed: show the last moves that fit

    # -- the loop -------------------------------------------------------------------------------------
    def step(self) -> None:
        if not self.screen_stack:  # the app is closing: a last tick after its screens went
            return
        if self.pump is not None:
            self.pump()
        self._explain_marks()  # (the move just recorded, before what the board says of the next one)
        for msg in self.board.poll():
            self.say(msg)
        for msg in self.lesson() if self.lesson is not None else ():
            self.say(msg)
        self.refresh_board()  # (under the help too: the widgets are the main screen's, kept since mount)

    def say(self, line: str) -> None:
        """A line in the message panel (it wraps)."""
        self.messages_shown.append(line)
        if self._message_log is not None:
            self._message_log.write(Text(line))

    def refresh_board(self) -> None:
        """Every pit from the LED frame and the seed counts as they are now (a pit whose look did not
        change is not redrawn), the stores, the guidance, the status and the transcript."""
        if not self._pits:  # not mounted yet
            return
        frame = bytes(self.board.leds())
        counts = list(self.board.counts())
        col, row = self.cursor
        under = GRID[row][col]
        k = lights.scale(frame)
        marks = lights.meanings(frame)
        for pit in range(32):
            rgb = frame[3 * pit : 3 * pit + 3] if len(frame) >= 96 else b"\0\0\0"
            count = counts[pit] if pit < len(counts) else -1
            mark = lights.MARKS.get(marks[pit], "")
            self._pits[pit].show((rgb[0], rgb[1], rgb[2]), count, pit == under, k, mark)
        s, n = self.board.stores()
        self._set_text("#store-n", f"North's store: {n}")
        self._set_text("#store-s", f"South's store: {s}")
        guide = self.board.step_guidance()
        if self.typed:
            guide = f"typed {self.typed}: now the pit's number, 1 to 8 (Escape: forget it)"
        self._set_text("#guide", guide)
        self._title()
        self._refresh_side()

    def _title(self) -> None:
        """The header: the ruleset, the mode, and who plays which side (the computer and its level, the
        host's engine, or two players), as the board says it."""
        title = f"{self.ruleset}{self._next_ruleset}, {self.mode} mode · {self._players()}"
        if self.sub_title != title:
            self.sub_title = title

    def _players(self) -> str:
        """The board's words for who plays (the computer and its level, the host's engine, you), with the
        players' names where the library has them (`bao name`, or `bao log --south/--north`)."""
        return players_words(self.board, self.logger.view.south, self.logger.view.north)

    def _set_text(self, selector: str, text: str) -> None:
        if self._texts.get(selector) != text:
            self._texts[selector] = text
            self._statics[selector].update(Text(text))

    def _refresh_side(self) -> None:
        v = self.logger.view
        lg = self.logger
        new = min(lg.said - self._shown_messages, len(lg.messages))
        for m in list(lg.messages)[len(lg.messages) - new :] if new > 0 else []:
            if m.level != "detail" or self.verbose:
                self.say(("! " if m.level in ("warn", "error") else "") + m.text)
        self._shown_messages = lg.said
        if self._abandon is not None and v.game_id is not None and v.game_id != self._abandon:
            old, self._abandon = self._abandon, None
            if lg.store.mark_abandoned(old):
                lg.say("info", f"game {old} marked abandoned in the library (a new game before it ended)")
        turn = "-"
        if v.position is not None:
            w = core.outcome(v.position) if not v.result else None
            turn = v.result or (f"{side_name(w)} wins" if w is not None else side_name(v.position.to_move) + " to move")
        conn = self._connection() if self._connection is not None else f"{v.connection} {v.port}"
        counters = ""
        if lg.counters.flagged or lg.counters.duplicates:
            counters = f" · flagged {lg.counters.flagged} · duplicates dropped {lg.counters.duplicates}"
        game = "no game yet"
        shown = setup_words.ruleset_shown(v.setup, v.position)
        if shown and not self._ruleset_chosen and shown != self.ruleset:
            # a game resumed from the board, or a position of another ruleset laid out (a lesson's): the title
            # names the ruleset the board says, not a default it is not playing
            self.ruleset = shown
            self._next_ruleset = ""
        if v.game_id is not None:
            rules = v.position.rules.ruleset.capitalize() if v.position is not None else "?"
            game = f"game {v.game_id}, {rules}, {len(v.plies)} pl{'y' if len(v.plies) == 1 else 'ies'}"
        laying = isinstance(setup_words.parse(v.setup) if v.setup else None, setup_words.SetupStep)
        if laying and v.position is not None and shown != v.position.rules.ruleset:
            game = f"setting up a {shown.capitalize()} position"  # (the game before it is another ruleset's)
        status = (
            f"{turn} · {game} · board {v.board_id or '?'}{counters}\n"
            f"data: {_home_short(self.data_folder) or '?'} · {conn}"
        )
        self._set_text("#status", status)
        lines = [f"{i // 2 + 1}: " + " ".join(v.plies[i : i + 2]) for i in range(0, len(v.plies), 2)]
        fit = max(1, self._statics["#transcript"].size.height - 2)
        self._set_text("#transcript", "\n".join(lines[-fit:]) or "(no moves)")

    def _explain_marks(self) -> None:
        """The first recorded move that shows a notation mark (L/R, *, **, >) says it in words, once."""
        v = self.logger.view
        game, plies = v.game_id, v.plies
        ruleset = v.position.rules.ruleset if v.position is not None else ""
        seen_game, seen = self._plies_seen
        start = seen if game == seen_game and seen <= len(plies) else 0  # (a new game, an undo: from its start)
        self._plies_seen = (game, len(plies))
        for ply in plies[start:]:
            said = notation_words.explain(ply, ruleset, self._marks_said)
            if said is not None:
                self.say(said)

    # -- input ----------------------------------------------------------------------------------------
    def touch(self, pit: int) -> None:
        """One activation of pit, from a click, Enter/Space or a typed name."""
        self.board.activate(pit)
        self.step()

    def on_pit_touched(self, event: Pit.Touched) -> None:
        for row, pits in enumerate(GRID):
            if event.pit in pits:
                self.cursor = (pits.index(event.pit), row)
        self.touch(event.pit)

    def action_cursor(self, dx: int, dy: int) -> None:
        col, row = self.cursor
        self.cursor = ((col + dx) % 8, (row + dy) % 4)
        self.refresh_board()

    def action_touch(self) -> None:
        col, row = self.cursor
        self.touch(GRID[row][col])

    def on_key(self, event: events.Key) -> None:
        """A pit's name typed: its row letter (a, b, A, B), then its number."""
        if isinstance(self.screen, ModalScreen):  # (the help is open: its keys are its own)
            return
        ch = event.character or ""
        if self.typed and ch in "12345678" and ch:
            pit = parse_pit(self.typed + ch)
            self.typed = ""
            event.stop()
            if pit is not None:
                for row, pits in enumerate(GRID):
                    if pit in pits:
                        self.cursor = (pits.index(pit), row)
                self.touch(pit)
            return
        if ch and ch in "abAB":
            self.typed = ch
            event.stop()
        elif self.typed:
            self.typed = ""
        self.refresh_board()

    def action_new_game(self) -> None:
        v = self.logger.view
        if v.game_id is not None and not v.result:
            self._abandon = v.game_id
        self.board.new_game(self.ruleset)
        self._next_ruleset = ""
        self.say(f"new game: {self.ruleset}")

    def action_ruleset(self) -> None:
        self._ruleset_chosen = True
        self.ruleset = RULESETS[(RULESETS.index(self.ruleset) + 1) % len(RULESETS)]
        self._next_ruleset = " (n starts it)"
        self.say(f"ruleset {self.ruleset} for the next new game (n)")

    def action_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.board.set_mode(self.mode)
        self.logger.say("info", f"mode {self.mode}: {MODE_TEXT[self.mode]}")

    def action_undo(self) -> None:
        self.logger.say("info", "undo: the board is asked to take the last move back")
        self.board.undo()

    def action_computer(self) -> None:
        """Play the computer (North): each press one level up, 1..4 (the board's engine), 5 (the host's),
        then two players again."""
        self.level = (self.board.level() + 1) % 6
        self.board.computer("N" if self.level else "", self.level)
        if self.board.level() == self.level:  # (otherwise the board's refusal is said by the adapter)
            self.say(
                "two players"
                if not self.level
                else "the host's engine plays North"
                if self.level == 5
                else f"the computer plays North, level {self.level} (violet ◆ on {self.level} of its pits for a while)"
            )
        self._title()

    def action_hint(self) -> None:
        self.board.hint()

    def action_set_up(self) -> None:
        """The board's set-up mode: lay out the position given (--setup), or re-check the board's own; during
        a set-up, leave it."""
        self.board.set_up(self.setup)
        self.step()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())
