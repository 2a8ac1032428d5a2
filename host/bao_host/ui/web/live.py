"""The live boards of `bao serve`: each board's state as one JSON-able snapshot, published to every page
that follows it as soon as it changes.

    hub = Hub()
    hub.add(LiveBoard("sim-1", logger, board=sim_board, pump=pump))    a simulated board (playable)
    hub.add(LiveBoard("b-1", logger, session=session))                 a real board on a serial link
    await hub.run(tick)           pumps every board's link and publishes what changed, every `tick` s
    q = hub.boards["sim-1"].subscribe(); state = await q.get(); ...unsubscribe(q)

Everything here runs on the web server's event loop thread: the logger and its store are not
thread-safe, and a link's `poll(0)` never waits. A snapshot carries the LED frame (the same 96 bytes the
LEDs get), the seed counts, the game as the logger stored it and the board's messages; `stored` is the
wall-clock time at which the logger last stored an event, so a page can tell how late it got it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from bao import core, notation

from bao_host import lessons
from bao_host.lessons import LessonRun
from bao_host.record.logger import Logger, View, side_name
from bao_host.record.session import LinkSession
from bao_host.record.state import IDLE
from bao_host.record.store import StoreError
from bao_host.ui import setup_words, steps
from bao_host.ui.adapter import BoardAdapter, players_words
from bao_host.ui.ledfeed import LedFeed
from bao_host.ui.web.library import ply_frames

MAX_MESSAGES = 8
QUEUE_SIZE = 16  # snapshots a slow page may fall behind before it gets only the newest


def _guide(v: View) -> str:
    """The step a board the page does not run waits for, in words: its set-up's step (a SETUP notice; after a
    power cut mid-move the board boots into one), else what its STATE says."""
    said = setup_words.parse(v.setup) if v.setup else None
    if isinstance(said, setup_words.SetupStep):
        return setup_words.step_words(said)
    if isinstance(said, setup_words.SetupEnd) and said.wait and (v.state is None or v.state.stage == IDLE):
        # done: the hand to leave the last place first (a move begun: the ready notice was lost on the line)
        return setup_words.wait_words(said.wait)
    if v.state is None:
        return ""
    return steps.step_guidance(v.state, v.position.rules if v.position is not None else None)


class LiveBoard:
    """One board followed by the web server. `board` (a BoardAdapter) when the server runs the board
    itself (the simulated board: pits can be clicked); otherwise only the logger's view and the LED frame
    the board says (`feed`: its STATE and SNAP, bao_host.ui.ledfeed), as the adapter reads it too."""

    def __init__(
        self,
        slug: str,
        logger: Logger,
        *,
        board: BoardAdapter | None = None,
        session: LinkSession | None = None,
        pump: Callable[[], None] | None = None,
        title: str = "",
    ) -> None:
        self.slug = slug
        self.title = title or slug
        self.logger = logger
        self.board = board
        self.session = session
        self.pump = pump
        self.leds = bytes(96)  # the last frame a board without an adapter reported (its STATE, or SNAP)
        self.feed = LedFeed(logger, session) if session is not None and board is None else None
        self.messages: deque[str] = deque(maxlen=MAX_MESSAGES)
        self.version = 0
        self.stored_at = 0.0  # time.time() when the logger last stored an event of this board
        self.stored_seq = 0
        self._said = logger.said
        self._last: dict[str, Any] = {}
        self._queues: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self.closed = False
        self._move_key: tuple[int | None, int] = (None, -1)  # (game, plies) of the position below
        self._move_from: core.Position | None = None
        self._move: dict[str, Any] | None = None
        self.lesson: LessonRun | None = None  # a lesson played on this board (start_lesson)
        self._lesson_intro: set[str] = set()
        if session is not None:
            session.on_stored = self._on_stored

    @property
    def playable(self) -> bool:
        return self.board is not None

    def _on_stored(self, event: Any, result: Any) -> None:
        self.stored_at = time.time()
        self.stored_seq = int(getattr(event, "seq", 0))
        if self.feed is not None:
            self.feed.due()  # a move changes the LEDs: read them now

    def _read_leds(self) -> None:
        """A board the server does not run: its LED frame as it says it (bao_host.ui.ledfeed: its STATE, and
        SNAP about once a blink phase and after each stored event), the way the terminal UI reads it."""
        if self.feed is None:
            return
        self.leds = self.feed.frame()
        msg = f"! {self.feed.error}" if self.feed.error else ""
        if msg and (not self.messages or self.messages[-1] != msg):
            self.messages.append(msg)

    # -- state ----------------------------------------------------------------------------------------
    def _last_move(self) -> dict[str, Any] | None:
        """The latest move drop by drop (the replay's frames, from the rules core's account of the move),
        for a page to sow it again when it arrived whole: its ply number, the counts before it (34: the
        pits, then the stores) and each frame's counts and pit. None until a move follows a position seen."""
        v = self.logger.view
        key = (v.game_id, len(v.plies))
        if key == self._move_key:
            return self._move
        before, (game, n) = self._move_from, self._move_key
        self._move_key, self._move_from, self._move = key, v.position, None
        if before is not None and game == v.game_id and n + 1 == len(v.plies):
            try:
                move, _ = notation.parse_move(before, v.plies[-1], notation.DONKERS)
                frames = ply_frames(before, move)
            except (ValueError, IndexError):  # a move the logger flagged: no animation, the counts jump
                return None
            self._move = {
                "n": len(v.plies),
                "before": before.counts(),
                "frames": [{"counts": f["counts"], "pit": f["pit"]} for f in frames],
            }
        return self._move

    def snapshot(self) -> dict[str, Any]:
        v = self.logger.view
        if self.board is not None:
            leds = bytes(self.board.leds())
            counts = list(self.board.counts())
            stores = list(self.board.stores())
        else:  # what the board says: its STATE (protocol 4), else its events and the frame SNAP read
            said = v.state
            rules = v.position.rules if v.position is not None else None
            leds = self.feed.frame() if self.feed is not None else self.leds
            c = said.counts(rules) if said is not None else v.position.counts() if v.position is not None else [0] * 34
            counts = c[:32]
            stores = c[32:34]
        turn = "waiting for a game"
        if v.position is not None:
            w = core.outcome(v.position) if not v.result else None
            turn = v.result or (f"{side_name(w)} wins" if w is not None else side_name(v.position.to_move) + " to move")
        return {
            "board": self.slug,
            "board_id": v.board_id,
            "connection": v.connection,
            "leds": leds.hex(),
            "counts": counts,
            "stores": stores,
            "game": v.game_id,
            "south": v.south,
            "north": v.north,
            "turn": turn,
            # the board's ruleset (a set-up's, while one lays a position out): the page's ruleset choice follows
            "ruleset": setup_words.ruleset_shown(v.setup, v.position),
            # the same words as the terminal UI: the step the board waits for, the computer's move or a
            # hint, who plays which side
            "guide": self.board.step_guidance() if self.board is not None else _guide(v),
            "players": players_words(self.board, v.south, v.north),  # (said once: the names with the board's)
            "level": self.board.level() if self.board is not None else 0,  # (the page's computer choice)
            "plies": list(v.plies),
            "last": self._last_move(),
            "messages": list(self.messages),
            "lesson": self.lesson.page_state() if self.lesson is not None else None,
            "stored_seq": self.stored_seq,
            "stored": self.stored_at,
        }

    def _collect_messages(self) -> None:
        if self.board is not None:
            self.messages.extend(self.board.poll())
        if self.lesson is not None:  # (its title, words and rules are the page's lesson panel, not messages)
            self.messages.extend(line for line in self.lesson.poll() if line not in self._lesson_intro)
        lg = self.logger
        new = min(lg.said - self._said, len(lg.messages))
        self._said = lg.said
        for m in list(lg.messages)[len(lg.messages) - new :] if new > 0 else []:
            # The logger's info lines name device paths and times; a page shows what a player needs:
            # the board's guidance, what went wrong, a new game and the game it left unfinished, and the
            # computer's move or a hint (said once, in words).
            if (
                m.level in ("warn", "error")
                or m.text.startswith(("new game", "the computer chose ", "hint: "))
                or "marked abandoned" in m.text
            ):
                self.messages.append(("! " if m.level in ("warn", "error") else "") + m.text)

    def step(self) -> bool:
        """Pump the link, gather messages; publish a new snapshot if anything changed. True if it did."""
        if self.pump is not None:
            self.pump()
        elif self.session is not None:
            self.session.poll(0)
            self._read_leds()
        self._collect_messages()
        snap = self.snapshot()
        if snap == self._last:
            return False
        self._last = snap
        self.version += 1
        snap = dict(snap, version=self.version)
        for q in list(self._queues):
            if q.full():  # a page that does not keep up gets the newest state, not a backlog
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(snap)
        return True

    def current(self) -> dict[str, Any]:
        if not self._last:
            self.step()
        return dict(self._last, version=self.version)

    def subscribe(self) -> asyncio.Queue[dict[str, Any] | None]:
        """A page's queue of snapshots, the current one first; None in it: the server is stopping."""
        q: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(QUEUE_SIZE)
        q.put_nowait(self.current())
        if self.closed:
            q.put_nowait(None)
        else:
            self._queues.add(q)
        return q

    def close(self) -> None:
        """End every page's stream (a server stopping waits for its open connections)."""
        self.closed = True
        for q in list(self._queues):
            if q.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(None)
        self._queues.clear()

    def unsubscribe(self, q: asyncio.Queue[dict[str, Any] | None]) -> None:
        self._queues.discard(q)

    # -- what a player may do (the server checks the token before) -------------------------------------
    def touch(self, pit: int) -> None:
        if self.board is None:
            raise PermissionError("this board is played on the board itself")
        if not 0 <= pit < 32:
            raise ValueError(f"no pit {pit}: pits are 0..31")
        self.board.activate(pit)

    def new_game(self, ruleset: str) -> None:
        if ruleset not in core.RULESETS:
            raise ValueError(f"unknown ruleset {ruleset!r} ({', '.join(core.RULESETS)})")
        if self.board is not None:
            self.board.new_game(ruleset)
        elif self.session is not None:
            self.session.new_game(ruleset)

    def start_lesson(self, name: str) -> None:
        """Play the lesson `name` (a lesson file's stem, lessons/*.toml; never a path) on this board: a simulated
        board takes its position at once (SETPOS: the browser alone has no seeds to lay out), a real one lays
        it out with the set-up mode. The learner's progress is kept in the library."""
        found = {lesson.name: lesson for lesson in lessons.load_all()}
        lesson = found.get(name)
        if lesson is None:
            raise ValueError(f"no lesson {name[:60]!r} ({len(found)} lessons: `bao lessons` lists them)")
        session = self.session
        if session is None:
            raise PermissionError("this board has no link to lay a lesson out on")
        store, tasks = self.logger.store, len(lesson.tasks)

        def progress(done: int, wrong: int) -> None:
            try:
                store.save_lesson(lesson.name, tasks, done, wrong)
            except StoreError as e:  # the lesson goes on; the page says why its progress was not kept
                self.messages.append(f"! the lesson's progress was not kept: {e}")

        run = self.lesson = lessons.LessonRun(
            lesson, session.command, self.logger.view, progress, "SETPOS" if self.board is not None else "SETUP"
        )
        self.logger.practice = run.kind  # its tasks are kept apart from the library's games
        self._lesson_intro = set(lessons.introduction(lesson))

    def undo(self) -> None:
        if self.board is not None:
            self.board.undo()
        elif self.session is not None:
            self.session.undo()

    def computer(self, level: int) -> None:
        """The computer plays North: 1..4 the board's engine at that level, 5 the host's engine, 0 nobody."""
        if self.board is None:
            raise PermissionError("the computer plays on a board the server runs (a simulated board)")
        if not 0 <= level <= 5:
            raise ValueError(f"no level {level}: 1..4 the board's engine, 5 the host's, 0 two players")
        self.board.computer("N" if level else "", level)
        if self.board.level() != level:  # (the board's refusal is among the adapter's messages)
            return
        self.messages.append(
            "two players"
            if not level
            else "the host's engine plays North"
            if level == 5
            else f"the computer plays North, level {level}"
        )

    def hint(self) -> None:
        if self.board is None:
            raise PermissionError("hints come from a board the server runs (a simulated board)")
        self.board.hint()

    def set_mode(self, mode: str) -> None:
        if mode not in ("teach", "play", "silent"):
            raise ValueError(f"unknown mode {mode!r} (teach, play, silent)")
        if self.board is not None:
            self.board.set_mode(mode)
        elif self.session is not None:
            self.session.mode(mode)


class Hub:
    """The boards the server follows, by their slug (the page's address)."""

    def __init__(self) -> None:
        self.boards: dict[str, LiveBoard] = {}
        self.steps = 0

    def add(self, board: LiveBoard) -> LiveBoard:
        if board.slug in self.boards:
            raise ValueError(f"two boards named {board.slug}")
        self.boards[board.slug] = board
        return board

    def step(self) -> None:
        for b in self.boards.values():
            try:
                b.step()
            except Exception as e:  # one board's failure never stops the others or the server
                b.messages.append(f"! {type(e).__name__}: {e}")
        self.steps += 1

    def close(self) -> None:
        for b in self.boards.values():
            b.close()

    async def run(self, tick: float = 0.01) -> None:
        while True:
            self.step()
            await asyncio.sleep(tick)
