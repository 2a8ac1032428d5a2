"""The host end of the serial link to a Bao board (docs/protocol.md), over any pyserial URL.

    link = Link("/dev/ttyACM0" | "socket://127.0.0.1:7001" | "/dev/pts/5", resume=store.last_seq)
    info = link.connect()                 # open + handshake -> BoardInfo (raises LinkError)
    for ev in link.events():              # forever: in order, no duplicates, reconnects by itself;
        store(ev)                         #   ev is acknowledged when the loop asks for the next one
    link.poll(timeout) -> list[Event]     # the same, one step at a time; acknowledge with link.ack(seq)
    link.command(typ, payload) -> Reply   # C<id> TYPE payload -> R<id> OK|ERR payload (retried with the same id)
    link.new_game(ruleset, options) / set_position(json) / undo() / mode(m) / brightness(n) / snapshot() / show(m)
    link.retry_from(seq)                  # the caller could not store event seq: deliver it (and what follows) again
    link.stats, link.last_error, link.connected, link.info, link.close()

`resume(info) -> int` gives the last sequence number the caller already holds for (info.board, info.epoch),
so that a restarted host neither loses nor repeats events; without it the board's own ack level is used.
Callbacks (all optional): `on_hello(info)` after every handshake (ours, or the board's H0 HELLO after a
restart), before the events that follow it are delivered; `on_bad(reason, line)` for a discarded line;
`on_notice(type, payload, line)` for an N frame; `on_error(message)` for every other one-line message
(and for those two when they have no callback of their own). A port that cannot be opened, or a link that
drops, is retried by poll() with a backoff (`backoff` = first and longest delay, doubling).
With a board of protocol 2 an event that arrives before an earlier one is kept for its turn and answered
with a NAK (docs/protocol.md, "Flow"), so the board sends the missing one again at once.
`opener`, `clock` and `sleep` (pyserial's serial_for_url, time.monotonic, time.sleep) are replaced by the
simulated line of tests/bao_testkit/simline.py, whose clock moves only as the link waits.
Frames are parsed by the protocol's own module (baoproto.frames): one implementation on both sides.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import serial
from baoproto.frames import (
    ERR_NAMES,
    MAX_BOARD_LINE,
    PROTO,
    LineAssembler,
    decode,
    encode,
    fields,
    words,
)
from baoproto.state import PROTO_STATE


class LinkError(Exception):
    """The link could not do what was asked (not connected, no answer, refused)."""


class NotConnected(LinkError):
    pass


class CommandTimeout(LinkError):
    pass


class CommandError(LinkError):
    """The board answered ERR."""


class ProtocolVersionError(LinkError):
    """The board speaks a protocol version this host does not."""


class BoardRefused(LinkError):
    """The board on the port is not the one the caller is bound to (`accept` said why)."""


@dataclass(frozen=True)
class BoardInfo:
    proto: int
    fw: str
    rules: str
    board: str
    epoch: str
    last: int
    acked: int
    fields: dict[str, str]


@dataclass(frozen=True)
class Event:
    board: str
    epoch: str
    seq: int
    type: str
    payload: str
    line: bytes  # the frame exactly as received, "\n" excluded

    def words(self) -> list[str]:
        return words(self.payload)

    def json(self) -> Any:
        """The payload's JSON word (the last one), or None."""
        w = self.words()
        if w and w[-1][:1] in ("{", "["):
            return json.loads(w[-1])
        return None


@dataclass(frozen=True)
class Reply:
    id: int
    ok: bool
    payload: str

    def check(self) -> Reply:
        if not self.ok:
            raise CommandError(self.payload)
        return self


@dataclass
class Stats:
    frames: int = 0  # good frames received
    events: int = 0  # events delivered (new, in order)
    duplicates: int = 0  # events already delivered, dropped
    gaps: int = 0  # events ahead of the next expected one: kept for their turn (protocol 2), else dropped
    naks: int = 0  # NAKs sent (protocol 2): "send again from the one I lack", at once (3: "this one came damaged")
    lost: int = 0  # events the board had already seen acknowledged but we never got (see resume)
    bad: dict[str, int] = field(default_factory=dict)  # unreadable lines by reason: crc, syntax, ...
    notices: int = 0  # N frames (the board saw bad input from us)
    unexpected: int = 0  # well-formed frames that make no sense here (a stray reply, a host kind)
    proto_errors: int = 0
    timeouts: int = 0
    handshakes: int = 0
    disconnects: int = 0
    refused: int = 0  # handshakes with a board the caller refused (another board id on the port)

    def count_bad(self, reason: str) -> None:
        self.bad[reason] = self.bad.get(reason, 0) + 1


_LinkDown = (serial.SerialException, OSError)
# The board lights "no host connected" when no frame has come from the host for a while (baoboard.app's
# _HOST_MS); an idle host sends a PING well within that, so the board's LEDs agree with the host's
# "connected" (issue #25: a quiet game showed the no-host corners beside a status line saying connected).
KEEPALIVE = 5.0  # seconds without a frame sent
_AHEAD = 64  # events kept that came before an earlier one (the board sends at most its window ahead)
# A line quiet this long while the host lacks an event it knows of: the board's copy was lost with no word
# of it (its NAK damaged too, or its number): asked for plainly, sooner than the board's timer (_MIN_RTO at
# the least) would send it; again after twice as long, up to QUIET[1], while nothing new comes.
QUIET = (0.05, 1.0)


class Link:
    def __init__(  # noqa: PLR0913
        self,
        url: str,
        *,
        baudrate: int = 115200,
        resume: Callable[[BoardInfo], int] | None = None,
        reply_timeout: float = 2.0,
        retries: int = 2,
        backoff: tuple[float, float] = (0.1, 5.0),
        on_error: Callable[[str], None] | None = None,
        on_hello: Callable[[BoardInfo], None] | None = None,
        on_bad: Callable[[str, bytes], None] | None = None,
        on_notice: Callable[[str, str, bytes], None] | None = None,
        opener: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        accept: Callable[[BoardInfo], str] | None = None,
        quiet: tuple[float, float] | None = QUIET,
        proto: int = PROTO,
    ) -> None:
        self.url = url
        # (url, baudrate=, timeout=, exclusive=) -> a port; None: pyserial's serial_for_url, looked up at each
        # open (tests replace it); a simulated line in tools/bench_link.py
        self._opener = opener
        self._clock = clock  # seconds, and the matching sleep: simulated together in the benchmark
        self._sleep = sleep
        self.baudrate = baudrate
        self.resume = resume
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.backoff = backoff
        self.on_error = on_error
        self.on_hello = on_hello
        self.on_bad = on_bad
        self.on_notice = on_notice
        self.accept = accept  # accept(info) -> "" or why this board is refused (before anything is acked)
        self.quiet = quiet  # (first, longest) wait of a quiet line before a plain NAK; None: no such NAK
        # the versions offered at the handshake: every one up to `proto` (a lower one plays an older host)
        self.protos = ",".join(str(v) for v in range(min(proto, PROTO), 0, -1))
        self.stats = Stats()
        self.info: BoardInfo | None = None
        self.last_error = ""
        self._ser: Any = None
        self._asm = LineAssembler(MAX_BOARD_LINE, self._on_line, self._on_overlong)
        self._frames: deque[tuple[str, int, str, str, bytes]] = deque()
        self._queue: deque[Event] = deque()
        self._expected = 1
        self._acked = 0
        self._history: tuple[str, str] | None = None  # (board, epoch) that _expected and _acked refer to
        self._nak = False  # the board reads NAKs (it speaks protocol 2)
        self._nak_bad = False  # ... and NAKs that report a damaged frame (protocol 3)
        self._damages: dict[int, int] = {}  # damaged copies of each event received since the handshake
        self._known = 0  # the highest event number the board is known to have (HELLO, events, damaged ones)
        self._heard_at = 0.0  # clock of the last bytes read
        self._quiet = quiet[0] if quiet else 0.0  # how long a quiet line is waited for before a plain NAK
        self._ahead: dict[int, tuple[str, str, bytes]] = {}  # events received before an earlier one
        self._cmd_id = 0
        self._sent_at = 0.0  # clock of the last frame sent to the board
        self._pings: set[int] = set()  # keepalive PINGs sent, their replies not read yet (not waited for)
        self._retry_at = 0.0
        self._delay = backoff[0]
        self._closed = False

    # ---- connection
    @property
    def connected(self) -> bool:
        return self._ser is not None and self.info is not None

    @property
    def caught_up(self) -> bool:
        """Connected, and every event the board has announced (its HELLO's last, or any heard since) has been
        delivered and taken by poll(): what the host knows of the board's game is current."""
        return self.connected and self._expected > self._known and not self._queue

    def connect(self, timeout: float | None = None) -> BoardInfo:
        """Open the port and shake hands; raises LinkError (the port stays closed then)."""
        self._closed = False
        try:
            # exclusive: a second program (another logger, a terminal) cannot open the board's port as well
            opener = self._opener or serial.serial_for_url
            self._ser = opener(self.url, baudrate=self.baudrate, timeout=0.05, exclusive=True)
        except (*_LinkDown, ValueError) as e:
            self._ser = None
            self._drop()  # the next attempt waits for the backoff
            raise NotConnected(self._error(f"cannot open {self.url}: {e}")) from e
        self._asm.reset()
        self._frames.clear()
        try:
            return self._handshake(timeout if timeout is not None else self.reply_timeout)
        except LinkError:
            self._drop()
            raise

    def close(self) -> None:
        self._closed = True
        self._drop()

    def _drop(self, reason: str = "") -> None:
        if reason:
            self._error(reason)
            self.stats.disconnects += 1
        ser, self._ser, self.info = self._ser, None, None
        if ser is not None:
            try:
                ser.close()
            except _LinkDown:
                pass
        self._retry_at = self._clock() + self._delay
        self._delay = min(self._delay * 2, self.backoff[1])

    def _error(self, msg: str) -> str:
        self.last_error = msg
        if self.on_error is not None:
            self.on_error(msg)
        return msg

    def _handshake(self, timeout: float) -> BoardInfo:
        for _ in range(self.retries + 1):
            self._cmd_id += 1
            cid = self._cmd_id
            self._send(encode("C", cid, "HELLO", self.protos))
            end = self._clock() + timeout
            while self._clock() < end:
                self._read(min(0.05, max(0.0, end - self._clock())))
                while self._frames:
                    kind, num, typ, payload, _line = self._frames.popleft()
                    if kind == "R" and num == cid:
                        if typ != "OK":
                            self.stats.proto_errors += 1
                            raise ProtocolVersionError(self._error(f"board refused protocols {self.protos}: {payload}"))
                        return self._hello(payload)
                    # events before the handshake are sent again after it; anything else is ignored
            self.stats.timeouts += 1
        raise CommandTimeout(self._error(f"no answer to HELLO from {self.url}"))

    def _greet(self) -> None:
        """HELLO again to a board that restarted and speaks a version of 4 or more that this host speaks: it
        then speaks the newest both do (4: it tells its state, the STATE notice; 5: with the set-up's phase).
        Its answer is not waited for (as a keepalive's)."""
        self._cmd_id += 1
        self._pings.add(self._cmd_id)
        self._send(encode("C", self._cmd_id, "HELLO", self.protos))

    def _hello(self, payload: str) -> BoardInfo:
        f = fields(payload)
        try:
            proto = int(f.get("proto", "0"))
            info = BoardInfo(
                proto,
                f.get("fw", ""),
                f.get("rules", ""),
                f.get("board", ""),
                f.get("epoch", ""),
                int(f.get("last", "0")),
                int(f.get("acked", "0")),
                f,
            )
        except ValueError as e:
            self.stats.proto_errors += 1
            raise LinkError(self._error(f"unreadable HELLO: {payload!r}")) from e
        if str(proto) not in self.protos.split(","):
            self.stats.proto_errors += 1
            raise ProtocolVersionError(self._error(f"board speaks protocol {proto}, this host {self.protos}"))
        why = self.accept(info) if self.accept is not None else ""
        if why:  # refused before any ack: none of its events is taken
            self.stats.refused += 1
            raise BoardRefused(self._error(why))
        self.info = info
        speaks = [v for v in f.get("speaks", "").split(",") if v in self.protos.split(",")]
        self._nak = proto >= 2 or "2" in speaks
        self._nak_bad = proto >= 3 or "3" in speaks
        self._damages.clear()  # (the board counts its sendings from its HELLO on too)
        self._known = info.last
        self._heard_at = self._clock()  # (the board answered just now: its events follow)
        self.stats.handshakes += 1
        self._delay = self.backoff[0]
        if self._history != (info.board, info.epoch):  # a new board or a new epoch: where do we stand?
            self._history = (info.board, info.epoch)
            base = self.resume(info) if self.resume is not None else info.acked
            if base > info.last:  # the caller holds more than the board ever sent: not this history
                self._error(f"resume point {base} is past the board's last event {info.last}")
                base = info.acked
            if base < info.acked:
                self.stats.lost += info.acked - base
                self._error(f"events {base + 1}..{info.acked} were acknowledged before and cannot be had")
                base = info.acked
            self._acked = base
            self._expected = base + 1
            self._queue.clear()
            self._ahead.clear()
        if self._acked > info.acked:
            self._send_ack(self._acked)
        if self.on_hello is not None:
            self.on_hello(info)
        return info

    # ---- bytes in
    def _read(self, timeout: float) -> None:
        ser = self._ser
        if ser is None:
            self._sleep(timeout)
            return
        try:
            if ser.timeout != timeout:  # (setting it reconfigures a real port: only when it changes)
                ser.timeout = timeout
            data = ser.read(1)
            if data:
                n = ser.in_waiting
                if n:
                    data += ser.read(n)
        except _LinkDown as e:
            self._drop(f"link lost: {e}")
            return
        if data:
            self._heard_at = self._clock()
            self._asm.feed(data)

    def _on_overlong(self, code: int) -> None:
        self._bad(ERR_NAMES[code], b"")

    def _bad(self, reason: str, line: bytes) -> None:
        self.stats.count_bad(reason)
        msg = f"discarded a line from the board ({reason}): {line[:60]!r}"
        if self.on_bad is not None:
            self.last_error = msg
            self.on_bad(reason, line)
        else:
            self._error(msg)

    def _on_line(self, line: bytes) -> None:
        f = decode(line)
        if isinstance(f, int):
            self._bad(ERR_NAMES[f], line)
            self._damaged(line)
            return
        self.stats.frames += 1
        kind, num, typ, payload = f
        self._frames.append((kind, num, typ, payload, line))

    def _process(self) -> None:
        """Handle frames read so far outside a handshake: events into the queue, notices counted."""
        while self._frames:
            kind, num, typ, payload, line = self._frames.popleft()
            if kind == "E":
                self._event(num, typ, payload, line)
            elif kind == "H" and typ == "HELLO":  # the board restarted
                try:
                    self._hello(payload)
                except LinkError:
                    self._drop()
                    return
                speaks = fields(payload).get("speaks", "").split(",")
                if any(v in speaks for v in self.protos.split(",") if int(v) >= PROTO_STATE):  # it tells its
                    self._greet()  # state (STATE, version 4 on) to a host that said HELLO with it
            elif kind == "N":
                self.stats.notices += 1
                if self.on_notice is not None:
                    self.on_notice(typ, payload, line)
                else:
                    self._error(f"board: {typ} {payload}")
            elif kind == "R" and num in self._pings:
                self._pings.discard(num)  # a keepalive's answer: nothing waits for it
            else:
                self.stats.unexpected += 1

    def _event(self, seq: int, typ: str, payload: str, line: bytes) -> None:
        info = self.info
        if info is None:
            return
        self._known = max(self._known, seq)
        if seq > self._expected:
            self.stats.gaps += 1
            if self._nak:  # kept until the ones before it come; the board is told what is missing
                if seq - self._expected < _AHEAD:
                    self._ahead[seq] = (typ, payload, line)
                self._send_nak(seq)
            return
        if seq < self._expected:
            self.stats.duplicates += 1
            if seq <= self._acked:
                self._send_ack(self._acked)
            if self._ahead:
                self._send_nak(seq)
            return
        self._deliver(seq, typ, payload, line)
        while self._expected in self._ahead:
            self._deliver(self._expected, *self._ahead.pop(self._expected))
        if self._ahead:
            self._send_nak(max(self._ahead))

    def _damaged(self, line: bytes) -> None:
        """Protocol 3: a damaged line that reads as an event this host lacks is reported at once
        (`NAK <epoch> bad=<k>`): the board sends that event again without waiting for its timer. (Its number
        may be damaged too: then the board sends the wrong one, or none, and its timer repairs the loss.)"""
        info = self.info
        if info is None or not self._nak_bad or line[:1] != b"E":
            return
        sp = line.find(b" ", 1, 12)
        if sp < 2 or not line[1:sp].isdigit():
            return
        k = int(line[1:sp])
        if k < self._expected or k in self._ahead or k - self._expected >= _AHEAD:
            return
        c = self._damages[k] = self._damages.get(k, 0) + 1
        self._known = max(self._known, k)
        self.stats.naks += 1
        nak = encode("A", self._expected - 1, "NAK", f"{info.epoch} bad={k}/{c}")
        try:  # twice: the line that damaged the event may damage its NAK (the board acts on one of them)
            self._send(nak + nak)
        except NotConnected:
            pass

    def _send_nak(self, got: int) -> None:
        """Protocol 2: every event up to _expected - 1 is here, _expected is not, `got` just came."""
        info = self.info
        if info is None:
            return
        self.stats.naks += 1
        try:
            self._send(encode("A", self._expected - 1, "NAK", f"{info.epoch} {got}"))
        except NotConnected:
            pass

    def _deliver(self, seq: int, typ: str, payload: str, line: bytes) -> None:
        info = self.info
        assert info is not None
        self._expected = seq + 1
        self._damages.pop(seq, None)
        self._quiet = self.quiet[0] if self.quiet else 0.0
        self.stats.events += 1
        self._queue.append(Event(info.board, info.epoch, seq, typ, payload, line))

    # ---- bytes out
    def _send(self, line: bytes) -> None:
        ser = self._ser
        if ser is None:
            raise NotConnected("not connected")
        try:
            ser.write(line)
        except _LinkDown as e:
            self._drop(f"link lost: {e}")
            raise NotConnected(str(e)) from e
        self._sent_at = self._clock()

    def _keepalive(self) -> None:
        """A PING when nothing was sent for KEEPALIVE seconds; its answer is read by _process, not waited for."""
        if self.connected and self._clock() - self._sent_at > KEEPALIVE:
            self._cmd_id += 1
            if len(self._pings) > 8:  # (answers lost on a noisy line: forget the oldest)
                self._pings.clear()
            self._pings.add(self._cmd_id)
            try:
                self._send(encode("C", self._cmd_id, "PING", ""))
            except NotConnected:
                pass

    def _send_ack(self, seq: int) -> None:
        if self.info is not None:
            try:
                self._send(encode("A", seq, "ACK", self.info.epoch))
            except NotConnected:
                pass

    def ack(self, seq: int) -> None:
        """Every event up to seq is safe with the caller: the board may forget it."""
        if seq > self._acked and seq < self._expected:
            self._acked = seq
            self._send_ack(seq)

    def retry_from(self, seq: int) -> None:
        """Event seq was delivered but the caller could not keep it (disk full, ...): it and every later one
        are delivered again when the board sends them again (it does, as they are not acknowledged)."""
        if self._acked < seq < self._expected:
            self._expected = seq
            self._queue.clear()

    # ---- the logger's API
    def poll(self, timeout: float = 0.1) -> list[Event]:
        """Read for up to timeout (reconnecting when due); return the new events, in order, not yet acked."""
        if self._ser is None and not self._closed:
            wait = self._retry_at - self._clock()
            if wait > 0:
                self._sleep(min(wait, timeout))
                return self._take()
            try:
                self.connect()
            except LinkError:
                return self._take()
        self._read(timeout)
        self._process()
        self._keepalive()
        self._nudge()
        return self._take()

    def _nudge(self) -> None:
        """Protocol 2: the line has gone quiet while this host lacks an event it knows the board has: a plain
        `NAK <epoch>` asks for it (the board sends the one after the NAK's number at once)."""
        info = self.info
        if info is None or not self.quiet or not self._nak or self._expected > self._known:
            return
        now = self._clock()
        if now - self._heard_at < self._quiet:
            return
        self._heard_at = now
        self._quiet = min(self._quiet * 2, self.quiet[1])
        self.stats.naks += 1
        try:
            self._send(encode("A", self._expected - 1, "NAK", info.epoch))
        except NotConnected:
            pass

    def _take(self) -> list[Event]:
        out = list(self._queue)
        self._queue.clear()
        return out

    def events(self, auto_ack: bool = True) -> Iterator[Event]:
        """Every event once, in order, across disconnects, until close(). With auto_ack an event is
        acknowledged when the next one is asked for (so: after the loop body has stored it)."""
        while not self._closed:
            for ev in self.poll(0.2):
                yield ev
                if auto_ack:
                    self.ack(ev.seq)

    def command(self, typ: str, payload: str = "", timeout: float | None = None) -> Reply:
        if not self.connected:
            raise NotConnected(f"not connected to {self.url}")
        self._cmd_id += 1
        cid = self._cmd_id
        line = encode("C", cid, typ, payload)
        wait = timeout if timeout is not None else self.reply_timeout
        for _ in range(self.retries + 1):
            self._send(line)
            end = self._clock() + wait
            while self._clock() < end:
                self._read(min(0.05, max(0.0, end - self._clock())))
                if self._ser is None:
                    raise NotConnected(self.last_error)
                reply: Reply | None = None
                keep: deque[tuple[str, int, str, str, bytes]] = deque()
                while self._frames:
                    fr = self._frames.popleft()
                    if fr[0] == "R" and fr[1] == cid and reply is None:
                        reply = Reply(cid, fr[2] == "OK", fr[3])
                    else:
                        keep.append(fr)
                self._frames = keep
                self._process()
                if reply is not None:
                    return reply
            self.stats.timeouts += 1
        raise CommandTimeout(self._error(f"no reply to {typ}"))

    def new_game(self, ruleset: str, options: dict[str, Any] | None = None) -> Reply:
        body = json.dumps({"ruleset": ruleset, "options": options or {}}, separators=(",", ":"))
        return self.command("NEW", body).check()

    def set_position(self, position_json: str) -> Reply:
        return self.command("SETPOS", position_json).check()

    def undo(self) -> Reply:
        return self.command("UNDO").check()

    def mode(self, mode: str) -> Reply:
        if mode not in ("teach", "play", "silent"):
            raise ValueError(mode)
        return self.command("MODE", mode).check()

    def brightness(self, percent: int) -> Reply:
        return self.command("BRIGHT", str(int(percent))).check()

    def snapshot(self) -> Any:
        r = self.command("SNAP").check()
        return json.loads(r.payload) if r.payload else None

    def show(self, notation: str) -> Reply:
        return self.command("SHOW", notation).check()
