"""The terminal UI on a stepped simulated board, for tests whose every frame must be the same on each run
(the snapshot tests): the firmware application in-process (bao_host.boards.sim.CPythonBoard on an
in-memory flash), its clock moved only by what happens (a hand's touch, a frame from the host), never by
the wall clock; its USB serial line an in-memory one read by the real link and logger
(bao_host.record.session.LinkSession). What the UI draws is the LED frame the board said on that line: its
last STATE's, or the one read with SNAP by `blink`.

    rig = Rig(store_root)          # then monkeypatch serial.serial_for_url with rig.open_url
    app = rig.app()                # BaoApp on SimBoard(rig.runner, rig.session), as make run builds it
    rig.blink(on)                  # scans until the LEDs' blink phase is on (or off), then reads the frame
                                   # (SNAP): a blinking colour (the house, a refused pit) in a known state
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

from bao import core, position_json
from bao_host.boards.sim import CPythonBoard
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from bao_host.ui.adapter import SimBoard
from bao_host.ui.ledfeed import LedFeed
from bao_host.ui.tui import BaoApp
from baoboard import recogniser as R
from baoboard.memstorage import FakeStorage
from baoboard.simhw import Hands

URL = "stepped://sim-0001"
SCAN_MS = 5
DATA = "/srv/bao/library"  # the data folder the status line names (a fixed text, under no home folder)


class SteppedSerial:
    """The board's USB serial line in memory, as pyserial's Serial for the host's link. The board answers a
    host frame within the scans that follow it (run by write()); reading never moves the board's clock."""

    def __init__(self, board: CPythonBoard) -> None:
        self.board = board
        self.buf = bytearray()
        self.timeout: float | None = 0.05
        self.is_open = True
        board.on_serial = self.buf.extend

    def write(self, data: bytes) -> int:
        self.board.write_serial(data)
        self.board.run(2, SCAN_MS)  # one scan reads the frame and answers it; one more sends what follows
        for _ in range(10):  # a command the board takes longer over (SETUP): its reply, before a resend
            if not data.startswith(b"C") or self.buf.startswith(b"R") or b"\nR" in self.buf:
                break
            self.board.run(1, SCAN_MS)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        out = bytes(self.buf[:size])
        del self.buf[:size]
        return out

    @property
    def in_waiting(self) -> int:
        return len(self.buf)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.is_open = False


class SteppedRunner:
    """What SimBoard needs of bao_host.boards.sim.SimRunner, without its thread: a touch is made at once
    by the firmware's simulated hands, then the host reads what the board said (and acknowledges it)."""

    def __init__(self, board: CPythonBoard) -> None:
        self.board = board
        self.hands = Hands(board, scan_ms=SCAN_MS)
        self.lock = contextlib.nullcontext()
        self.error: BaseException | None = None
        self.session: LinkSession | None = None

    def tap(self, pit: int) -> None:
        self.hands.tap(pit)
        self.pump()

    def pump(self) -> None:
        if self.session is not None:
            for _ in range(20):  # each acknowledgement lets the board send what waited behind it
                if not self.session.poll(0):
                    break

    def leds(self) -> bytes:
        return bytes(self.board.frame)

    def counts(self) -> list[int]:
        return self.board.counts()

    @property
    def position(self) -> core.Position:
        return self.board.position

    @property
    def phase(self) -> int:
        return self.board.phase

    def close(self) -> None:
        self.board.close()


class Rig:
    def __init__(self, root: Any, south: str = "Asha", north: str = "Baraka") -> None:
        self.store = Store(root)
        self.logger = Logger(self.store, south=south, north=north)
        self.board = CPythonBoard(storage=FakeStorage(), board_id="sim-0001")
        self.serial = SteppedSerial(self.board)
        self.runner = SteppedRunner(self.board)
        self.session = LinkSession(URL, self.logger)
        self.runner.session = self.session
        # its LEDs as the board says them on the line (bao_host.ui.ledfeed): each STATE's frame, and SNAP
        # when a test asks (blink): read by a wall-clock pace, a SNAP (two scans of the board) would move
        # the board's clock by when the UI's timer ticks, and a blinking colour with it
        self.feed = LedFeed(self.logger, self.session, every=None)
        self.sim = SimBoard(self.runner, self.session, self.feed)  # type: ignore[arg-type]

    def open_url(self, url: str, **_: Any) -> SteppedSerial:
        assert url == URL, url
        return self.serial

    def app(self, verbose: bool = False) -> BaoApp:
        return BaoApp(
            self.sim,
            self.logger,
            pump=self.runner.pump,
            tick=0.02,
            connection=lambda: f"{self.logger.view.connection} (simulated board)",
            data_folder=DATA,
            verbose=verbose,
        )

    def connect(self) -> None:
        """The link's handshake, and every event the board has for the host stored."""
        for _ in range(5):
            self.runner.pump()
            if self.session.connected:
                return
        raise AssertionError("the stepped board did not answer the handshake")

    def set_position(self, p: core.Position) -> None:
        r = self.session.command("SETPOS", position_json.dumps(p, True))
        assert r is not None and r.ok, r
        self.runner.pump()

    def blink(self, on: bool) -> None:
        """Scans until the guide's blink phase is on (odd: the house lit) or off (even, but not the phase
        that shows the no-host corners: a refused pit lit); the LEDs are drawn again on the phase change."""
        for _ in range(200):
            ph = (self.board.hw.t >> 8) & 7  # the phase of the next scan, which draws the LEDs at its start
            self.board.run(1, SCAN_MS)
            if (ph & 1) == on and ph != 0:
                self.feed.read()  # (the frame as the board says it: SNAP)
                return
        raise AssertionError("no blink phase change in 200 scans")

    def close(self) -> None:
        self.session.close()
        self.board.close()
        self.store.close()


# -- positions to show: found in seeded random games of the rules core, the same on every run ---------------


def _states(p: core.Position, move: int) -> Iterator[tuple[int, R.Recogniser]]:
    """After each activation of a legal move: (activations made, the board's recogniser then)."""
    rec = R.Recogniser()
    rec.start(p, core.legal_moves(p))
    for k, pit in enumerate(R.activations(p, move), 1):
        rec.feed(pit)
        yield k, rec


def _next(rec: R.Recogniser) -> list[int]:
    return [rec.expected(i) for i in range(rec.n) if rec.expected(i) >= 0]


def direction_choice(rec: R.Recogniser) -> bool:
    nxt = _next(rec)
    return (
        rec.phase == R.MOVING
        and len({e & R.PIT for e in nxt}) > 1
        and not any(e & (R.LIFT | R.KICHWA | R.OPT) for e in nxt)
    )


def mid_sowing(rec: R.Recogniser) -> bool:
    nxt = _next(rec)
    return rec.phase == R.MOVING and rec.steps >= 5 and len(nxt) == 1 and not nxt[0] & (R.LIFT | R.KICHWA)


def kichwa_choice(rec: R.Recogniser) -> bool:
    nxt = _next(rec)
    return rec.phase == R.MOVING and len({e & R.PIT for e in nxt}) > 1 and all(e & R.KICHWA for e in nxt)


def capture(rec: R.Recogniser) -> bool:
    side = rec.p.to_move
    nxt = _next(rec)
    return rec.phase == R.MOVING and len(nxt) == 1 and bool(nxt[0] & R.LIFT) and (nxt[0] & R.PIT) >> 4 != side


def house_decision(rec: R.Recogniser) -> bool:
    return rec.phase == R.DECISION


def find(ruleset: str, want: Any, seed: int = 1, games: int = 50) -> tuple[core.Position, list[int]]:
    """The first (position, activations up to the state) of seeded random games where want(recogniser)."""
    rng = random.Random(seed)
    for _ in range(games):
        p = core.initial(ruleset)
        for _ply in range(300):
            moves = core.legal_moves(p)
            if not moves:
                break
            for move, _child in moves:
                for k, rec in _states(p, move):
                    if want(rec):
                        return p, list(R.activations(p, move)[:k])
            move, p = rng.choice(moves)
    raise AssertionError(f"no {want.__name__} in {games} random {ruleset} games")


def last_move(ruleset: str, seed: int = 1) -> tuple[core.Position, list[int]]:
    """A seeded random game's position before its last move, and that move's activations."""
    rng = random.Random(seed)
    p = core.initial(ruleset)
    while True:
        moves = core.legal_moves(p)
        move, child = rng.choice(moves)
        if core.outcome(child) is not None or not core.legal_moves(child):
            return p, list(R.activations(p, move))
        p = child
