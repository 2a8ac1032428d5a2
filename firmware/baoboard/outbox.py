# The board's end of the serial link (docs/protocol.md): events out through the journal, acks and commands in.
#   ob = Outbox(journal, write, ticks_ms, hello="fw=0.1.0 rules=bao-1 board=e6614103", timeout_ms=1000)
#   ob.on_command = fn(cmd_id, typ, payload) -> (ok, reply_payload)   the application's command handler;
#                       HELLO and ACK never reach it; a repeated command id gets the cached reply, not a rerun
#   ob.start()                    at boot: the unsolicited H0 HELLO, then every pending event
#   ob.post(typ, payload) -> seq  journal (durable) first, then send: E<seq> TYPE payload
#   ob.move(notation, position) -> seq     post("MOVE", "notation position")
#   ob.feed(data, n=-1)           bytes read from the serial link (any split, any garbage)
#   ob.poll()                     call from the main loop: resends unacknowledged events after a timeout
#   ob.notice(typ, payload)       an unsequenced N0 line (not journalled, never resent)
#   counters: rx_frames, rx_errors, resent
# Bad input is dropped with "N0 BADFRAME reason=<crc|syntax|overlong|utf8|kind|epoch> errors=<count>".
# The board must call micropython.kbd_intr(-1) before using the link (0x03 is then plain data).
try:
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from baoboard.compat import const
from baoboard.frames import (
    ERR_NAMES,
    K_ACK,
    K_CMD,
    MAX_HOST_LINE,
    PROTO,
    LineAssembler,
    decode,
    encode,
    words,
)
from baoboard.journal import move_payload

try:
    from time import ticks_diff
except ImportError:  # CPython

    def ticks_diff(a: int, b: int) -> int:  # type: ignore
        return a - b


_MAX_BACKOFF = const(8000)


class Outbox:
    def __init__(
        self,
        journal: "Any",
        write: "Callable[[bytes], None]",
        ticks_ms: "Callable[[], int]",
        hello: str = "",
        timeout_ms: int = 1000,
        window: int = 8,
    ) -> None:
        self.journal = journal
        self._write = write
        self._ticks = ticks_ms
        self.hello = hello
        self.timeout_ms = timeout_ms
        self.window = window
        self.on_command: Callable[[int, str, str], tuple[bool, str]] | None = None
        self._asm = LineAssembler(MAX_HOST_LINE, self._line, self._bad)
        self.rx_frames = 0
        self.rx_errors = 0
        self.resent = 0
        self._last_cmd = -1
        self._last_reply = b""
        self._backoff = timeout_ms
        self._due = 0

    def _send(self, line: bytes) -> None:
        try:
            self._write(line)
        except OSError:  # nobody listening: the event stays pending and is sent again
            pass

    def hello_fields(self) -> str:
        j = self.journal
        s = "proto=%d" % PROTO
        if self.hello:
            s += " " + self.hello
        return s + " epoch=%s last=%d acked=%d" % (j.epoch, j.last, j.acked)

    def start(self) -> None:
        self._send(encode("H", 0, "HELLO", self.hello_fields()))
        self._resend()

    def post(self, typ: str, payload: str = "") -> int:
        seq = self.journal.append(typ, payload)
        if not seq:  # a game the journal does not record (Journal.recording): nothing to send
            return 0
        if self.journal.npending == 1:
            self._backoff = self.timeout_ms
            self._due = self._ticks() + self._backoff
        self._send(encode("E", seq, typ, payload))
        return seq

    def move(self, notation: str, position: str) -> int:
        return self.post("MOVE", move_payload(notation, position))

    def notice(self, typ: str, payload: str = "") -> None:
        self._send(encode("N", 0, typ, payload))

    def _resend(self) -> None:
        j = self.journal
        n = min(j.npending, self.window)
        for i in range(n):
            seq, typ, payload = j.event(i)  # read back from flash: RAM holds no pending payload
            self._send(encode("E", seq, typ, payload))
        self.resent += n
        self._due = self._ticks() + self._backoff

    def poll(self) -> None:
        if self.journal.npending and ticks_diff(self._ticks(), self._due) >= 0:
            self._backoff = min(self._backoff * 2, _MAX_BACKOFF)
            self._resend()

    def feed(self, data: "bytes | bytearray", n: int = -1) -> None:
        self._asm.feed(data, n)

    def _bad(self, code: int) -> None:
        self._reject(ERR_NAMES[code])

    def _reject(self, reason: str) -> None:
        self.rx_errors += 1
        self.notice("BADFRAME", "reason=%s errors=%d" % (reason, self.rx_errors))

    def _line(self, line: bytes) -> None:
        f = decode(line)
        if isinstance(f, int):
            self._bad(f)
            return
        kind, num, typ, payload = f
        if kind == K_ACK and typ == "ACK":
            w = words(payload)
            if w and w[0] != self.journal.epoch:
                self._reject("epoch")
                return
            self.rx_frames += 1
            if self.journal.ack(num):
                self._backoff = self.timeout_ms
                self._due = self._ticks() + self._backoff
            return
        if kind != K_CMD:
            self._reject("kind")
            return
        self.rx_frames += 1
        if typ == "HELLO":
            self._hello(num, payload)
            return
        if num == self._last_cmd:  # the host did not get our reply: the same reply, not a second run
            self._send(self._last_reply)
            return
        ok, text = False, "unknown " + typ
        h = self.on_command
        if h is not None:
            try:
                ok, text = h(num, typ, payload)
            except Exception as e:  # a failing command never stops the board
                ok, text = False, "internal " + repr(e).replace("\n", " ").replace("\r", " ")
        self._reply(num, ok, text)

    def _reply(self, num: int, ok: bool, text: str) -> None:
        line = encode("R", num, "OK" if ok else "ERR", text)
        self._last_cmd = num
        self._last_reply = line
        self._send(line)

    def _hello(self, num: int, payload: str) -> None:
        w = words(payload)
        versions = w[0].split(",") if w else [str(PROTO)]
        self._last_cmd = -1
        if str(PROTO) not in versions:
            self._reply(num, False, "proto speaks=%d" % PROTO)
            return
        self._reply(num, True, self.hello_fields())
        self._backoff = self.timeout_ms
        self._resend()
