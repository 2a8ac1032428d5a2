"""The terminal UI (textual): the board as a person sees it, played by clicking pits.

32 pits with their seed counts and LED colours, North on top (rows b, a, then A, B; row a reads a8..a1
left to right and b reads b8..b1, as North's pits sit seen from South's chair). A click on a pit is ONE
pit activation, exactly as a hand over a real pit. Beside the board: whose turn, the connection, the
guidance and the reasons for refused moves, and the transcript filling in (from the logger's store).

The UI talks to a board through the small `BoardAdapter` interface (the board's observable state and
its activation input) and to the logger (bao_host.record.logger.Logger) for what was stored. The board is the
firmware itself (`SimBoard`: the simulated board on its own thread, over a serial line to the logger, as
`make run` starts it, bao_host.cli.run), so what the UI shows is what a real board does.
"""

from __future__ import annotations

from collections.abc import Callable

from bao import core
from rich.text import Text
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Log, Static

from bao_host.record.logger import Logger, side_name
from bao_host.ui.adapter import BoardAdapter

RULESETS = core.RULESETS
MODES = ("teach", "play", "silent")

# The pits as a person sees them: (row label, side, ring order left to right)
ROWS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("b", core.NORTH, tuple(range(8, 16))),  # b8..b1
    ("a", core.NORTH, tuple(range(7, -1, -1))),  # a8..a1
    ("A", core.SOUTH, tuple(range(8))),  # A1..A8
    ("B", core.SOUTH, tuple(range(15, 7, -1))),  # B1..B8
)


def pit_label(pit: int) -> str:
    return core.pit_name(pit)


def led_style(rgb: tuple[int, int, int]) -> str:
    r, g, b = rgb
    if r == g == b == 0:
        return "on #202020"
    # keep dim colours visible on a terminal: scale up to full brightness, keep the hue
    m = max(r, g, b)
    k = 255 / m if m < 96 else 1.0
    r2, g2, b2 = (min(255, int(c * k)) for c in (r, g, b))
    fg = "black" if (r2 * 299 + g2 * 587 + b2 * 114) > 128000 else "white"
    return f"{fg} on #{r2:02x}{g2:02x}{b2:02x}"


class PitButton(Button):
    def __init__(self, pit: int) -> None:
        super().__init__(pit_label(pit), id=f"pit-{pit}", classes="pit")
        self.pit = pit
        self.led = ""  # the rich style showing the pit's LED colour


HELP = """\
[b]Bao on the simulated board[/b]

Each click on a pit is one pit activation: a hand lifting seeds from that pit or dropping one seed
into it, as over a real board. The LEDs guide you (green: pits to start from; blue: direction
choices; white: the next pit to drop into; red: the opponent's pit to empty; cyan: the kichwa;
amber: stop in the house or play it by lifting it; pink: that was not part of a legal move).

Keys:  n new game   r ruleset   m mode (teach, play, silent)   u undo   ? help   q quit
       c play the computer (it plays North; again: level 2, 3, 4, the host's engine, then two players)
       h hint (bright green: the engine's best move for the side to move)
When the computer is to move, its move lights bright green (start) with the pit of its first seed:
sow it for the computer, pit by pit, as the LEDs show.

Every move the board reports is checked again and stored in the game library (`bao games`).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close")]

    def compose(self) -> ComposeResult:
        yield Static(HELP, id="help")


class BaoApp(App[int]):
    CSS = """
    #board { grid-size: 8 4; grid-gutter: 0 1; height: 17; width: 72; }
    .pit { width: 8; height: 4; min-width: 8; border: none; }
    #side { width: 1fr; }
    #status { height: 5; }
    #transcript { height: 1fr; border: round $accent; }
    #messages { height: 12; border: round $warning; }
    #help { padding: 1 2; border: thick $accent; background: $surface; width: 90; height: auto; }
    HelpScreen { align: center middle; }
    .store { height: 1; width: 72; }
    """
    BINDINGS = [
        Binding("n", "new_game", "new game"),
        Binding("r", "ruleset", "ruleset"),
        Binding("m", "mode", "mode"),
        Binding("u", "undo", "undo"),
        Binding("c", "computer", "computer"),
        Binding("h", "hint", "hint"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]
    TITLE = "Bao"

    def __init__(self, board: BoardAdapter, logger: Logger, pump: Callable[[], None] | None = None,
                 tick: float = 0.05, connection: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.board = board
        self.logger = logger
        self.pump = pump
        self.tick = tick
        self.ruleset = core.ZANZIBAR
        self.mode = "teach"
        self.level = 0  # the computer's level (it plays North), 0: two players
        self._shown_messages = 0
        self._last_frame: bytes = b""
        self._last_counts: list[int] = []
        self._texts: dict[str, str] = {}
        self._connection = connection

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with Vertical():
                yield Static("", id="store-n", classes="store")
                with Grid(id="board"):
                    for _, side, rings in ROWS:
                        for r in rings:
                            yield PitButton(side * 16 + r)
                yield Static("", id="store-s", classes="store")
                yield Log(id="messages", highlight=False)
            with Vertical(id="side"):
                yield Static("", id="status")
                yield Static("", id="transcript")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.ruleset}, {self.mode} mode"
        self.refresh_board(force=True)
        self.set_interval(self.tick, self.step)

    # -- the loop -------------------------------------------------------------------------------------
    def step(self) -> None:
        try:
            screen = self.screen
        except ScreenStackError:  # the app is closing: a last tick after its screens went
            return
        if not screen.is_current or not isinstance(screen, Screen) or isinstance(screen, ModalScreen):
            if self.pump is not None:
                self.pump()
            self.board.poll()
            return
        if self.pump is not None:
            self.pump()
        for msg in self.board.poll():
            self.query_one("#messages", Log).write_line(msg)
        self.refresh_board()

    def refresh_board(self, force: bool = False) -> None:
        frame = bytes(self.board.leds())
        counts = list(self.board.counts())
        if force or frame != self._last_frame or counts != self._last_counts:
            old_frame, old_counts = self._last_frame, self._last_counts
            self._last_frame, self._last_counts = frame, counts
            for pit in range(32):  # only the pits that changed: a label update costs a layout pass
                rgb = frame[3 * pit: 3 * pit + 3] if len(frame) >= 96 else b"\0\0\0"
                count = counts[pit] if pit < len(counts) else -1
                if not force and old_frame[3 * pit: 3 * pit + 3] == rgb and pit < len(old_counts) \
                        and old_counts[pit] == count:
                    continue
                b = self.query_one(f"#pit-{pit}", PitButton)
                b.led = led_style((rgb[0], rgb[1], rgb[2]))
                label = Text(f"{pit_label(pit)}\n{count if count >= 0 else '?':>2}", style=b.led,
                             justify="center")
                # Set and redraw by hand: a label compares equal to another with the same text whatever
                # its colours (textual's Content), so `b.label = label` would leave a pit whose count did
                # not change in its old colour (issue #11: the guidance's colours almost never appeared).
                b.set_reactive(Button.label, Content.from_text(label))
                b.refresh(layout=True)
            s, n = self.board.stores()
            self._set_text("#store-n", f"North's store: {n}")
            self._set_text("#store-s", f"South's store: {s}")
        self._refresh_side()

    def _set_text(self, selector: str, text: str) -> None:
        if self._texts.get(selector) != text:
            self._texts[selector] = text
            self.query_one(selector, Static).update(text)

    def _refresh_side(self) -> None:
        v = self.logger.view
        lg = self.logger
        new = min(lg.said - self._shown_messages, len(lg.messages))
        for m in list(lg.messages)[len(lg.messages) - new:] if new > 0 else []:
            self.query_one("#messages", Log).write_line(("! " if m.level != "info" else "") + m.text)
        self._shown_messages = lg.said
        turn = "-"
        if v.position is not None:
            w = core.outcome(v.position) if not v.result else None
            turn = v.result or (f"{side_name(w)} wins" if w is not None else side_name(v.position.to_move)
                                + " to move")
        conn = self._connection() if self._connection is not None else v.connection
        status = (f"[b]{turn}[/b]\nconnection: {conn} {v.port}\nboard {v.board_id or '?'}  game "
                  f"{v.game_id if v.game_id is not None else '-'}  moves stored: {len(v.plies)}\n"
                  f"flagged: {lg.counters.flagged}  duplicates dropped: {lg.counters.duplicates}")
        self._set_text("#status", status)
        lines = []
        for i in range(0, len(v.plies), 2):
            lines.append(f"{i // 2 + 1:3d}: " + " ".join(v.plies[i:i + 2]))
        self._set_text("#transcript", "\n".join(lines[-40:]) or "(no moves yet)")

    # -- input ----------------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, PitButton):
            self.board.activate(event.button.pit)
            self.step()

    def action_new_game(self) -> None:
        self.board.new_game(self.ruleset)
        self.query_one("#messages", Log).write_line(f"new game: {self.ruleset}")

    def action_ruleset(self) -> None:
        self.ruleset = RULESETS[(RULESETS.index(self.ruleset) + 1) % len(RULESETS)]
        self.sub_title = f"{self.ruleset} (n starts it), {self.mode} mode"

    def action_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.board.set_mode(self.mode)
        self.sub_title = f"{self.ruleset}, {self.mode} mode"

    def action_undo(self) -> None:
        self.board.undo()

    def action_computer(self) -> None:
        """Play the computer (North): each press one level up, 1..4 (the board's engine), 5 (the host's),
        then two players again."""
        self.level = (self.level + 1) % 6
        self.board.computer("N" if self.level else "", self.level)
        self.query_one("#messages", Log).write_line(
            "two players" if not self.level else "the host's engine plays North" if self.level == 5
            else f"the computer plays North, level {self.level}")

    def action_hint(self) -> None:
        self.board.hint()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())
