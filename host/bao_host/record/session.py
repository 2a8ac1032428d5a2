"""The logger on a serial link: bao_host.record.link.Link (handshake, acks, duplicates by sequence number,
reconnects with backoff, resume point) feeding bao_host.record.logger.Logger (checks and storage). The one place
where the two meet; `bao log`, `make run` and the tests all use it.

    s = LinkSession(url, logger, locate=None, board=None)   # any pyserial URL; locate() -> url finds the
                                 # board again; board: the id to bind to (else the first board met)
    s.poll(timeout) -> int       read for up to timeout; each new event stored on disk, THEN acknowledged
    s.run(until=None, on_tick=None)             poll until until() is true, close() or a fatal error
    s.command(typ, payload) -> Reply | None     a host command; a failure is reported through the logger
    s.new_game(ruleset, options) / s.undo() / s.mode(m) / s.stop()    the same, named
    s.fatal                      a one-line reason to give up (the board speaks another protocol), or ""
    s.on_stored = fn(event, result)             called after each event is stored (benchmarks, tests)
    s.close()

A session is bound to one board: the id it is given, else the first it meets of the boards whose games
its library holds (`library_boards`; any board when the library holds none). Another board on its port (a
pseudo-terminal path reused, USB renumbering on a Pi with two boards) is refused in the handshake, before
anything is acknowledged, with a message naming both ids; the session goes on waiting for its own board.

The resume point of a restarted logger is the highest sequence number the store holds for the board's
current epoch; the board then sends again only what the store does not have.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection
from typing import Any

from bao_host.record.link import BoardInfo, Event, Link, LinkError, Reply
from bao_host.record.logger import Logger, ProtocolError, Result


class LinkSession:
    def __init__(
        self,
        url: str,
        logger: Logger,
        *,
        locate: Callable[[], str | None] | None = None,
        backoff: tuple[float, float] = (0.1, 5.0),
        reply_timeout: float = 2.0,
        board: str | None = None,
        library_boards: Collection[str] = (),
    ) -> None:
        self.logger = logger
        self.board = board or None  # the board id this session is bound to
        # the boards whose games the library holds: unbound, only one of them is taken (the binding belongs to
        # the library, not to the process: a restarted logger does not adopt whatever board is on its path)
        self.library_boards = sorted(set(library_boards))
        self.locate = locate
        self.fatal = ""
        self.on_stored: Callable[[Event, Result], None] | None = None
        self.stored = 0  # events stored by this session
        self._was_connected = False
        self._last_msg = ""
        self._located_at = 0.0
        self._closed = False
        self.link = Link(
            url,
            resume=self._resume,
            backoff=backoff,
            reply_timeout=reply_timeout,
            on_error=self._on_error,
            on_hello=self._on_hello,
            on_bad=self._on_bad,
            on_notice=self._on_notice,
            accept=self._accept,
        )
        logger.connection("connecting", url)

    @property
    def url(self) -> str:
        return self.link.url

    @property
    def connected(self) -> bool:
        return self.link.connected

    # ---- link callbacks (a failing disk is reported; it never stops the link)
    def _accept(self, info: BoardInfo) -> str:
        board = info.board or "unknown"
        if self.board is None and self.library_boards and board not in self.library_boards:
            return (
                f"refused board {board} on {self.link.url}: this library holds the games of board "
                f"{', '.join(self.library_boards)} (`bao log --board {board}` logs this one into it, or give "
                "it another --data folder); nothing of it is acknowledged"
            )
        if self.board is None:
            self.board = board
            self.logger.say("detail", f"bound to board {board}: another board on {self.link.url} will be refused")
            return ""
        if board == self.board:
            return ""
        return (
            f"refused board {board} on {self.link.url}: this logger is bound to board {self.board} "
            f"(start another `bao log --board {board}` for it); nothing of it is acknowledged"
        )

    def _resume(self, info: BoardInfo) -> int:
        try:
            base = self.logger.store.last_seq(info.board or "unknown", info.epoch)
        except Exception as e:
            self.logger.say("error", f"cannot read the store's resume point ({e}): the board's ack level is used")
            return info.acked
        if base < info.acked <= info.last:  # acknowledged once, not in the store: they cannot be had
            try:
                self.logger.gap(info.board or "unknown", info.epoch, base + 1, info.acked)
            except Exception as e:
                self.logger.say("error", f"events {base + 1}..{info.acked} cannot be had; not recorded ({e})")
        return base

    def _on_hello(self, info: BoardInfo) -> None:
        try:
            self.logger.hello(info.fields, self.link.url)
        except ProtocolError as e:
            self.fatal = str(e)
            return
        except Exception as e:
            self.logger.say("error", f"board {info.board}: not recorded in the store ({e})")
        self.logger.connection("connected", self.link.url)
        self._was_connected = True
        self._last_msg = ""  # connected: the next failure is news, even the same as the last one

    def _on_error(self, msg: str) -> None:
        if msg != self._last_msg:  # a port that stays away is retried often: say it once
            self._last_msg = msg
            self.logger.say("warn", msg)

    def _on_bad(self, reason: str, line: bytes) -> None:
        shown = line[:60].decode("utf-8", "replace")
        try:
            self.logger.bad_input(
                f"a bad line from the board ({reason}) was dropped: {shown!r}", line.decode("utf-8", "replace")
            )
        except Exception as e:
            self.logger.say("error", f"a bad line from the board ({reason}) was dropped, not logged ({e})")

    def _on_notice(self, typ: str, payload: str, line: bytes) -> None:
        try:
            self.logger.notice(typ, payload, line.decode("utf-8", "replace"))
        except Exception as e:
            self.logger.say("error", f"board notice {typ} not logged ({e})")

    # ---- the loop
    def poll(self, timeout: float = 0.05) -> int:
        """Read for up to timeout; store every new event, then acknowledge it. Returns how many were stored."""
        if self.fatal or self._closed:
            time.sleep(timeout)
            return 0
        errors = self.link.stats.proto_errors
        try:
            events = self.link.poll(timeout)
        except LinkError as e:  # poll reports its own failures; this is a last resort
            self._on_error(str(e))
            events = []
        if self.link.stats.proto_errors != errors and not self.fatal:
            self.fatal = f"{self.link.last_error}: update the host or the board's firmware"
            self.logger.say("error", self.fatal)
            self.link.close()
        n = 0
        for ev in events:
            try:
                res = self.logger.event(ev.seq, ev.type, ev.payload, ev.line.decode("utf-8", "replace"), epoch=ev.epoch)
            except Exception as e:  # storage failed (disk full, ...): not acknowledged, the board resends
                self.logger.say(
                    "error",
                    f"event {ev.seq} could not be stored ({type(e).__name__}: {e});"
                    " the board keeps it and sends it again",
                )
                self.link.retry_from(ev.seq)
                time.sleep(min(0.5, max(timeout, 0.05)))
                break
            self.link.ack(ev.seq)  # stored on disk: now the board may forget it
            self.stored += 1
            n += 1
            if self.on_stored is not None:
                self.on_stored(ev, res)
        self._check_state()
        return n

    def _check_state(self) -> None:
        up = self.link.connected
        if up == self._was_connected:
            if not up and self.locate is not None and time.monotonic() - self._located_at > 1.0:
                self._located_at = time.monotonic()
                url = self.locate()  # the board may come back on another device path
                if url and url != self.link.url:
                    self.logger.say("info", f"board found on {url}")
                    self.link.url = url
            return
        self._was_connected = up
        if not up:
            why = self.link.last_error or "link lost"
            self.logger.connection("reconnecting", self.link.url)
            self.logger.say("warn", f"disconnected ({why}): reconnecting")

    def run(
        self, until: Callable[[], bool] | None = None, on_tick: Callable[[], None] | None = None, tick: float = 0.1
    ) -> None:
        while not self._closed and not self.fatal and not (until is not None and until()):
            self.poll(tick)
            if on_tick is not None:
                on_tick()

    # ---- commands (through the link: the board answers, its events follow)
    def command(self, typ: str, payload: str = "") -> Reply | None:
        if not self.link.connected:
            self.logger.say("warn", f"{typ}: the board is not connected")
            return None
        try:
            r = self.link.command(typ, payload)
        except LinkError as e:
            self.logger.say("error", f"{typ}: {e}")
            return None
        if not r.ok:
            self.logger.say("warn", f"the board refused {typ}: {r.payload}")
        return r

    def new_game(self, ruleset: str, options: dict[str, Any] | None = None) -> Reply | None:
        return self.command("NEW", json.dumps({"ruleset": ruleset, "options": options or {}}, separators=(",", ":")))

    def undo(self) -> Reply | None:
        return self.command("UNDO")

    def mode(self, mode: str) -> Reply | None:
        return self.command("MODE", mode)

    def stop(self) -> Reply | None:
        """2.5b: the player stops in the house (what the opponent's next touch would say)."""
        return self.command("STOP")

    def close(self) -> None:
        self._closed = True
        self.link.close()
        self.logger.connection("closed", self.link.url)
