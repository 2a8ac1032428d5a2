"""The board's LED frame as the board says it on its serial line, for every UI (the terminal UI, the web
board): the simulated board, the emulated Pico and a board on USB are read the same way.

    feed = LedFeed(logger, session)     # the logger's view (the board's STATE) and the link to the board
    frame = feed.frame()                # 96 bytes, R, G, B of pit i at 3*i: the newest the board said
    feed.due()                          # read it again at the next frame() (a move was stored)
    feed.read()                         # read it now (SNAP), whatever the pace

Two sources, both the protocol's (docs/protocol.md): a new `STATE` notice carries the frame as drawn when
what the board guides changed; between two of them the board's LEDs blink (the guide's blink phase changes
every 256 ticks of the board's clock: baoboard.guide), which no notice says, so the frame is read with
`SNAP` at `every` seconds, about once a blink phase (`every` None: only when asked, `due` or `read`).

Why not a blink mask in the protocol: the board blinks several ways at once (the house amber on one phase,
a refused pit's pink on the other, the "no host" corners one phase in eight, the restore marks walking),
and the time-limited lights (the level shown, the restore) end without a notice; a mask would have to say
the guide's rules, and an older board would say none of it. `SNAP` is version 1's: every board answers it.

A host command stops the board's engine while it searches, and the search begins again after it
(docs/protocol.md, "Commands"): read at this pace, a search longer than `every` could never end. So the
frame is not read while the board says its computer is to move and has lit no move yet (its `MOVE` events,
its `STATE`, and `cpu` of its last `SNAP`), nor while a hint is asked (`hint_asked`): nothing on the board
changes then but the blinking, and the computer's move comes with a `STATE` of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.state import IDLE, BoardState

EVERY = 0.25  # seconds between two reads of the frame (SNAP): about one of the board's blink phases
TIMEOUT = 0.3  # a board answers SNAP within milliseconds; a UI waits no longer than this
# the emulated Pico runs its scans slower than a Pico does, the more so on a loaded machine: its SNAP takes longer
EMULATED_TIMEOUT = 2.0


class LedFeed:
    def __init__(
        self,
        logger: Logger,
        session: LinkSession,
        every: float | None = EVERY,
        clock: Callable[[], float] = time.monotonic,
        timeout: float = TIMEOUT,
    ) -> None:
        self.logger = logger
        self.timeout = timeout  # how long a read waits for the board's SNAP reply
        self.session = session
        self.every = every
        self.clock = clock
        self.leds = bytes(96)  # the newest frame the board said
        self.cpu = "off"  # who the board's computer plays, as its last SNAP said ("N 2"; "N 0": the host's)
        self._hint: tuple[BoardState | None] | None = None  # (the STATE when a hint was asked,), or None
        self.error = ""  # why the last read failed, or ""
        self._state: BoardState | None = None  # the STATE whose frame was taken
        self._read_at = 0.0  # clock() of the last SNAP
        self._due = every is not None  # a SNAP at the next frame() (every None: only when due() is called)

    def hint_asked(self) -> None:
        """A hint was asked (HINT): the board searches until it says a new STATE (the hint lit, a touch)."""
        s = self.logger.view.state
        self._hint = (s,) if s is not None else None  # (a board without STATE: no way to tell, read on)

    def due(self) -> None:
        """Read the frame at the next frame() (a stored move changes the LEDs)."""
        self._due = True

    def thinking(self) -> bool:
        """The board's engine searches, as far as the board says: its computer (levels 1..4; level 0 is the
        host's engine, which the board does not search for) is to move in the game its events say, and its
        STATE for that position has no move lit, no move under way and no end yet; or a hint is asked. (The
        board says the STATE after its search: a move's end says itself in the MOVE event first.)"""
        s = self.logger.view.state
        if self._hint is not None:
            if self._hint[0] is s:
                return True
            self._hint = None
        p = self.logger.view.position
        side, _, level = self.cpu.partition(" ")
        if p is None or side != "SN"[p.to_move] or level in ("", "0"):
            return False
        said = s is not None and s.pos == bytes(p.d)  # (a STATE of this position: what it says counts)
        return not (said and s is not None and (s.shown >= 0 or s.stage != IDLE))

    def frame(self) -> bytes:
        """The newest frame: a new STATE's, or one read with SNAP when `every` passed since the last."""
        said = self.logger.view.state
        if said is not self._state:  # a new STATE: its frame is the newest (SNAP's until the next)
            self._state = said
            if said is not None and len(said.leds) == 96:
                self.leds = said.leds
        paced = self.every is not None and self.clock() - self._read_at >= self.every
        if self._due or paced:
            if not self.thinking():
                self.read()
        return self.leds

    def read(self) -> dict[str, Any] | None:
        """SNAP now: the frame and who the computer plays taken; the whole reply, or None when the board did
        not answer it (not connected, refused, nonsense: `error` says why, the frame stays as it was)."""
        self._read_at = self.clock()
        self._due = False
        if not self.session.connected:
            return None
        try:
            reply = self.session.link.command("SNAP", timeout=self.timeout)
            snap = json.loads(reply.payload) if reply.ok else {}
            leds = bytes.fromhex(str(snap["leds"])) if reply.ok else b""
        except Exception as e:  # a board that does not answer, or answers nonsense
            self.error = f"the board's LEDs could not be read: {type(e).__name__}: {e}"
            return None
        if not reply.ok:
            self.error = f"the board's LEDs could not be read: it answered {reply.payload}"
            return None
        self.error = ""
        if len(leds) == 96:
            self.leds = leds
        self.cpu = str(snap.get("cpu", self.cpu))
        if "setup" in snap:  # the set-up's phase: a SETUP notice lost on the line is made good here (#28)
            self.logger.setup_polled(snap["setup"])
        return dict(snap)
