"""The one adapter between a board and a user interface (the terminal UI, the web board).

`BoardAdapter` is what a UI needs of a board: its LED frame (the same bytes the LEDs get), the seed counts it
expects, its activation input, and the few host commands (new game, undo, mode). `SimBoard` is the firmware
on the simulated board behind a serial line to the logger, as `make run` starts it (`make_board`): on the
CPython runtime, or on the emulated Pico (`runtime="pico"`). Whatever runs it, the words and the seed counts
come from what the board says on that line (its events, its STATE notice: bao_host.record.state), as for a
board on USB: the same board looks and behaves the same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from bao import core, explain, notation, position_json, query

from bao_host.boards.sim import Board, CPythonBoard, PtyLink, SimRunner
from bao_host.engine.opponent import HostOpponent
from bao_host.record.link import BoardInfo, Reply
from bao_host.record.logger import SIDE_NAMES, Logger, side_name
from bao_host.record.session import LinkSession
from bao_host.record.state import IDLE, BoardState
from bao_host.ui import setup_words, steps
from bao_host.ui.ledfeed import EMULATED_TIMEOUT, TIMEOUT, LedFeed


class BoardAdapter(Protocol):
    """What the UI needs of a board (SimBoard: the firmware on the simulated board)."""

    def leds(self) -> bytes:
        """The LED frame: 96 bytes, R, G, B of pit i at 3*i."""
        ...

    def counts(self) -> list[int]:
        """The seed count the board expects in each of the 32 pits."""
        ...

    def stores(self) -> tuple[int, int]:
        """Seeds in South's and North's store."""
        ...

    def activate(self, pit: int) -> None:
        """One pit activation (a hand lifting from or dropping into pit)."""
        ...

    def new_game(self, ruleset: str) -> None: ...

    def undo(self) -> None: ...

    def set_mode(self, mode: str) -> None: ...

    def computer(self, side: str, level: int) -> None:
        """The board's engine plays side ("S", "N"; "" for nobody) at level 1..4 (docs/leds.md); level 5:
        the host's engine plays it, through SHOW."""
        ...

    def hint(self) -> None:
        """Light the engine's best move for the player to move."""
        ...

    def set_up(self, position: core.Position | None) -> None:
        """The board's set-up mode (docs/protocol.md): lay out `position`, pit by pit, then play it; None:
        re-check the board's own position, every place; while a set-up runs: leave it."""
        ...

    def poll(self) -> list[str]:
        """Run the board for a moment; returns its new messages for the player (guidance, refusals)."""
        ...

    def step_guidance(self) -> str:
        """The step the board waits for now, in one sentence (lift, direction, next drop, capture, kichwa,
        house: bao_host.ui.steps), whatever the LED mode; the computer's move or a hint in words while it
        is lit."""
        ...

    def players(self) -> str:
        """Who plays which side: "South: you · North: computer 2" (its level), or "North: host engine"."""
        ...

    def sides(self) -> tuple[str, str]:
        """Who plays South and North as the library records it: "a person", "computer 2", "host engine"."""
        ...

    def level(self) -> int:
        """The computer's level: 1..4 the board's engine, 5 the host's, 0 two players."""
        ...


def players_words(board: BoardAdapter | None, south: str, north: str) -> str:
    """Who plays which side, said once: the board's words (the computer and its level, the host's engine,
    you) with the players' names where the library has them (`bao name`, `bao log --south/--north`); for a
    board the host does not run (None), what the library says (nothing when it says nothing). The terminal
    UI's header and the web page's."""
    if board is None:
        if not south and not north:
            return ""
        return " · ".join(f"{side}: {name or 'unnamed'}" for side, name in zip(("South", "North"), (south, north)))
    named = [n if n and not SIDE_NAMES.fullmatch(n) else "" for n in (south, north)]
    if not any(named):
        return board.players()
    return " · ".join(
        f"{side}: {(name or 'you') if word == 'a person' else word}"  # (the computer's side: its level)
        for side, name, word in zip(("South", "North"), named, board.sides())
    )


def _place(name: str) -> int:
    """A set-up notice's place: a pit's index, or the store's index in the seed counts (core.STORE + side)."""
    if name in setup_words.STORE_NAMES:
        return core.STORE + (name == "store-N")
    return core.pit_index(name)


ERR_CODES = ("unknown", "badarg", "state", "proto", "dup", "internal")  # docs/protocol.md, R<id> ERR <code>


def refusal(r: Reply | None) -> str:
    """Why the board refused a command, in its words: its ERR code is for programs, not said."""
    if r is None:
        return "it did not answer"
    code, _, why = r.payload.partition(" ")
    return why if code in ERR_CODES and why else r.payload


def advice_words(p: core.Position, kind: str, text: str) -> str:
    """The computer's move (CPU, or SHOW: the host's engine) or a hint in words, as the LEDs show it: the
    start lit bright green (marked ★ on the screens: bao_host.ui.lights), then the steps of the move from the
    rules core (bao.explain)."""
    try:
        move, _ = notation.parse_move(p, text)
        said = explain.describe(query.account(p, move), p.rules.ruleset)
    except (core.BaoError, ValueError):
        said = []
    who = "Hint:" if kind == "HINT" else "The host's engine plays" if kind == "SHOW" else "The computer plays"
    steps_said = "; ".join(said[:2]) + ("…" if len(said) > 2 else ".")
    end = "" if kind == "HINT" else f" Sow it for {side_name(p.to_move)}, pit by pit."
    return f"{who} {text}, its start lit bright green ★: {steps_said}{end}"


class SimBoard:
    """The simulated board for the UI (`make run`): the firmware application on its own thread
    (bao_host.boards.sim.SimRunner), its serial side on a pseudo-terminal that the logger opens with pyserial
    like a real board. A click is one activation by simulated hands; the seed counts are the board's,
    pit by pit during a move. New game, undo and mode are host commands sent by the logger's link."""

    def __init__(self, runner: SimRunner, session: LinkSession, feed: LedFeed | None = None) -> None:
        self.runner = runner
        self.session = session
        self.feed = feed or LedFeed(session.logger, session)  # its LED frame, as it says it (STATE, SNAP)
        self._feed_error = ""  # the last failure to read it that was said
        self.msgs: list[str] = []  # what happened, once (the step the board waits for is the guidance line's)
        self.host_engine: HostOpponent | None = None  # the host's engine playing the computer's side
        self.cpu = ""  # who the computer plays, as the board's CPU event says it ("N 2", "N 0"), "" nobody
        self._synced = False  # the board asked (SNAP) who the computer plays since the link came up
        self._advice: tuple[str, str, bytes] | None = None  # (CPU or HINT, the move, the position it is for)
        # the set-up mode, as the board's SETUP notices say it: the step it waits for, and the seeds as the
        # person has laid them out so far (the board's counts are the position before the set-up until its end)
        self.setup_step: setup_words.SetupStep | None = None
        self._setup_counts: list[int] | None = None
        self._setup_seen = ""  # the logger's view of the set-up (a SETUP notice's payload) this host said last
        # the cut whose why this host said (its kind, places, game and ply): a set-up heard again (the HELLO
        # after the board's reboot resets the logger's view, the board says its step again) is not said twice
        self._cut_said: tuple[str, int, int | None, int] | None = None
        notice = session.link.on_notice

        def on_notice(typ: str, payload: str, line: bytes) -> None:
            if notice is not None:  # (the logger's view first: it is never older than what is said here)
                notice(typ, payload, line)
            if typ in ("CPU", "HINT") and payload.split():
                self._advice = (typ, payload.split()[0], self._position_key())
            if typ == "SETUP" and payload != self._setup_seen:
                self._setup_seen = payload
                self._on_setup(setup_words.parse(payload))
                self.feed.due()  # (a set-up step lights other places, and says no STATE: SNAP reads them)

        session.link.on_notice = on_notice
        hello = session.link.on_hello

        def on_hello(info: BoardInfo) -> None:  # (a restarted board has no set-up: SNAP says, _sync)
            self._synced = False
            if hello is not None:
                hello(info)

        session.link.on_hello = on_hello

    @property
    def setup_wait(self) -> str:
        """The set-up done, the pit the board waits for the hand to leave (until N0 SETUP ready), as the
        logger's view keeps it: its SETUP notices, and (protocol 5) its STATE and SNAP, which make good a
        notice lost on the line (#28)."""
        said = setup_words.parse(self.session.logger.view.setup) if self.session.logger.view.setup else None
        return said.wait if isinstance(said, setup_words.SetupEnd) else ""

    def _setup_lost(self) -> None:
        """The set-up's step as this host shows it, made good from the logger's view when a board of protocol 5
        says (STATE, SNAP) what a lost notice did not: the set-up over, or at another step."""
        if self.session.logger.proto < 5:
            return
        v = self.session.logger.view.setup
        said = setup_words.parse(v) if v else None
        if isinstance(said, setup_words.SetupStep):
            last = self.setup_step
            if last is None or (last.step, last.of, last.at) != (said.step, said.of, said.at):
                self._on_setup(said)
        elif isinstance(said, setup_words.SetupEnd) and self.setup_step is not None:  # its done lost: said here
            self._on_setup(said)
        elif self.setup_step is not None:  # over (ready, off: the view says none): the notice says how, if heard
            self.setup_step = None
            self._setup_counts = None
        self._setup_seen = v  # (the same notice, when it comes, is not said twice)

    def _on_setup(self, said: setup_words.SetupStep | setup_words.SetupEnd | setup_words.SetupReady | None) -> None:
        last = self.setup_step
        if (
            last is not None
            and self._setup_counts is not None
            and (not isinstance(said, setup_words.SetupStep) or said.step != last.step)
        ):
            self._setup_counts[_place(last.at)] = last.want  # the step before was confirmed: put right
        if isinstance(said, setup_words.SetupStep):
            if self._setup_counts is None:  # the board's position: a move half made is dropped by a set-up
                p = self._position() or self.session.logger.view.position
                self._setup_counts = p.counts() if p is not None else [0] * 34
            if said.why in setup_words.LEFT:
                v = self.session.logger.view
                cut = (said.why, said.of, v.game_id, len(v.plies))
                if cut != self._cut_said:
                    self._cut_said = cut
                    self.msgs.append(setup_words.cut_words(said))
            if said.wrong:
                self.msgs.append(f"set-up: {said.wrong} refused, {said.at} is the lit place")
            self.setup_step = said
        elif isinstance(said, setup_words.SetupEnd):
            self.setup_step = None
            self._setup_counts = None
            self.msgs.append(setup_words.end_words(said))

    # ---- what the board says (its events, its STATE notice), as the logger keeps it
    def _said(self) -> tuple[BoardState | None, core.Rules | None]:
        """The board's last STATE, and the game's rules (the logger's, from the GAME event)."""
        v = self.session.logger.view
        return v.state, (v.position.rules if v.position is not None else None)

    def _position(self) -> core.Position | None:
        """The position the board guides from, as its STATE says it."""
        state, rules = self._said()
        return state.position(rules) if state is not None else None

    def _position_key(self) -> bytes:
        p = self._position()
        return p.key() if p is not None else b""

    def _stage(self) -> int:
        state, _ = self._said()
        return state.stage if state is not None else -1

    def _counts(self) -> list[int]:
        """34 counts as the board says them: pit by pit during a move (its STATE)."""
        state, rules = self._said()
        if state is not None:
            return state.counts(rules)
        p = self.session.logger.view.position
        return p.counts() if p is not None else [0] * 34

    def leds(self) -> bytes:
        return self.feed.frame()  # (as a board on USB: what the board says, blinking read with SNAP)

    def counts(self) -> list[int]:
        if self._setup_counts is not None:
            return self._setup_counts[:32]
        return self._counts()[:32]

    def stores(self) -> tuple[int, int]:
        c = self._setup_counts if self._setup_counts is not None else self._counts()
        return c[core.STORE], c[core.STORE + 1]

    def set_up(self, position: core.Position | None) -> None:
        if self.setup_step is not None:
            r = self.session.command("SETUP", "off")
        elif position is None:
            r = self.session.command("SETUP", "check")
        else:
            r = self.session.command("SETUP", position_json.dumps(position, False))
        if r is not None and not r.ok:
            self.msgs.append(f"no set-up: {refusal(r)}")

    def activate(self, pit: int) -> None:
        self.runner.tap(pit)

    def new_game(self, ruleset: str) -> None:
        self.session.new_game(ruleset)

    def undo(self) -> None:
        self.session.undo()

    def set_mode(self, mode: str) -> None:
        self.session.mode(mode)

    def computer(self, side: str, level: int) -> None:
        self.host_engine = HostOpponent(core.NORTH if side == "N" else core.SOUTH) if side and level > 4 else None
        if self.host_engine is not None:
            r = self.session.command("CPU", self.host_engine.cpu_command())
        else:
            r = self.session.command("CPU", f"{side} {level}" if side else "off")
        if r is not None and r.ok:
            self.cpu = f"{side} {0 if level > 4 else level}" if side else ""
            self.feed.cpu = self.cpu or "off"  # (the board may search at once: its LEDs wait, LedFeed)
        else:  # the mode the UI shows is the board's: say why it did not change
            self.host_engine = None if not self.cpu.endswith(" 0") else self.host_engine
            self.msgs.append(f"the board did not take the computer's new level: {refusal(r)}")

    def level(self) -> int:
        """The computer's level as the UI counts it: 1..4 the board's engine, 5 the host's, 0 nobody."""
        if not self.cpu:
            return 0
        n = int(self.cpu.split()[1])
        return n if n else 5

    def players(self) -> str:
        if not self.cpu:
            return "two players"
        side, n = self.cpu.split()
        who = "host engine" if n == "0" else f"computer {n}"  # (its level: the header fits 80 columns)
        return f"South: {who} · North: you" if side == "S" else f"South: you · North: {who}"

    def sides(self) -> tuple[str, str]:
        """Who plays South and North as the library records it: "a person", "computer 2", "host engine"."""
        if not self.cpu:
            return ("a person", "a person")
        side, n = self.cpu.split()
        who = "host engine" if n == "0" else f"computer {n}"
        return (who, "a person") if side == "S" else ("a person", who)

    def _sync(self) -> None:
        """Once the link is up: who the board's computer plays (the board keeps it across restarts, the CPU
        event journalled); the host's engine takes its side again when the board says level 0."""
        if self._synced or not self.session.connected:
            if not self.session.connected:
                self._synced = False
            return
        self._synced = True
        snap = self.feed.read()
        if snap is None:
            return
        cpu = str(snap.get("cpu", "off"))
        setup = snap.get("setup")
        if setup is None and self.setup_step is not None:  # the board restarted (a power cut): no set-up
            self.setup_step = None
            self._setup_counts = None
            self.msgs.append("the board restarted: its set-up ended (k to start it again)")
        elif setup is not None:  # a set-up under way, not heard (a cut mid-move: the board boots into it)
            step = setup_words.from_snapshot(setup)
            last = self.setup_step
            if step is not None and (last is None or (last.step, last.of, last.at) != (step.step, step.of, step.at)):
                self._on_setup(step)
        self.cpu = "" if cpu == "off" else cpu
        if cpu.endswith(" 0"):
            self.host_engine = HostOpponent(core.NORTH if cpu.startswith("N") else core.SOUTH)
            self.msgs.append(
                f"the host's engine plays {side_name(self.host_engine.side)} again (the board kept the mode)"
            )
        else:
            self.host_engine = None

    def hint(self) -> None:
        r = self.session.command("HINT")
        if r is not None and not r.ok:
            self.msgs.append(f"no hint now: {refusal(r)}")
        elif r is not None:
            self.feed.hint_asked()

    def _opponent(self, state: BoardState | None) -> str:
        """Who plays the side not to move when it is no person: "the computer", "the host's engine", or ""."""
        side, _, level = self.cpu.partition(" ")
        if state is None or side != "SN"[1 - state.side]:
            return ""
        return "the host's engine" if level == "0" else "the computer"

    def step_guidance(self) -> str:
        self._setup_lost()
        if self.setup_step is not None:
            return setup_words.step_words(self.setup_step)
        state, rules = self._said()
        wait = self.setup_wait
        if wait and (state is None or state.stage == IDLE):  # (a move begun: ready was lost, an older board)
            return setup_words.wait_words(wait)
        said = steps.step_guidance(state, rules, self._opponent(state))
        p = self._position()
        adv = self._advice
        if adv is None or p is None or adv[2] != p.key() or self._stage() != IDLE:
            return said
        refused = ""
        if " refused (pink" in said:  # (said first) a touch off the move shown: the board's own words
            name = said.split(" refused", 1)[0]
            who = {"CPU": "the computer", "SHOW": "the host's engine"}.get(adv[0])
            rule = f", {state.rule}" if state is not None and state.rule else ""  # (1.1: its turn; or its step's)
            refused = (
                f"{name} refused (pink ✕){rule}: {who} plays {adv[1]}, {name} is not its pit now; "
                if who
                else said.split("; ", 1)[0] + "; "
            )
        return refused + advice_words(p, adv[0], adv[1])

    def poll(self) -> list[str]:
        self._sync()
        if self.session.connected:
            self.session.logger.name_sides(*self.sides())
        if self.runner.error is not None:
            self.msgs.append(f"the simulated board stopped: {self.runner.error!r}")
            self.runner.error = None
        if self.feed.error != self._feed_error:  # (said once, not at every failed read)
            self._feed_error = self.feed.error
            if self.feed.error:
                self.msgs.append(self.feed.error)
        ph = self._stage()
        p = self._position()
        if self.host_engine is not None and p is not None:
            text = self.host_engine.answer(p, ph)
            if text is not None:
                r = self.session.command("SHOW", text)
                if r is not None and r.ok:
                    self._advice = ("SHOW", text, p.key())
                else:  # (said, not silently waited on: the player sows nothing until told)
                    self.msgs.append(f"the host's engine plays {text}, but the board did not take it: {refusal(r)}")
        out, self.msgs = self.msgs, []
        return out

    def close(self) -> None:
        self.runner.close()


def make_board(
    logger: Logger, flash: Path, board_id: str = "sim-0001", runtime: str = "cpython"
) -> tuple[SimBoard, Callable[[], None], Callable[[], str]]:
    """The simulated board on its own thread with its serial side on a pseudo-terminal, and the logger's
    link (bao_host.record.session) on the other end. The board's flash is the folder `flash`: it remembers its
    game from one `make run` to the next, as a real board does. `board_id`: the id it reports (`bao serve`
    runs several simulated boards, each with its own id and flash). `runtime`: "cpython" (the firmware
    in-process) or "pico" (the Bao-board image on the emulated Pico: bao_host.boards.pico; PicoUnavailable
    says what is missing)."""
    flash.mkdir(parents=True, exist_ok=True)
    board: Board
    hold = 4
    if runtime == "pico":
        from bao_host.boards.pico import PicoBoard

        board = PicoBoard(str(flash / "pico"))
        hold = 10  # (a hand's touch lasts several of the emulated board's paced scans, as in bao sim)
    else:
        board = CPythonBoard(str(flash), board_id=board_id)
    link = PtyLink()
    runner = SimRunner(board, link, hold=hold, gap=hold).start()
    session = LinkSession(link.path, logger)

    def pump() -> None:
        session.poll(0)

    def connection() -> str:
        return f"{logger.view.connection} (simulated board)"  # (its device: the messages, --verbose)

    feed = LedFeed(logger, session, timeout=EMULATED_TIMEOUT if runtime == "pico" else TIMEOUT)
    return SimBoard(runner, session, feed), pump, connection
