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
#   counters: rx_frames, rx_errors, resent, naks, timeouts; srtt, rttvar, rto (ms)
# At most `window` events are in flight past the host's ack level; the rest wait on flash for acks.
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
    PROTOS,
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


# Retransmission (docs/protocol.md, "Flow"). Up to `window` events are in flight past the host's ack level.
# The host (v2) keeps what arrives out of order and answers each such event with `A<n> NAK <epoch> <got>`:
# it holds every event up to n, lacks n+1, and has just received <got>. The line keeps order, so if <got>
# went out after the last sending of n+1, that sending was lost: n+1 is sent again at once (and only then:
# a NAK for a copy sent before the resend says nothing new). Otherwise the oldest event in flight is overdue
# after the retransmission timeout (RTO), from the measured round trip as TCP computes it (RFC 6298; Karn:
# only events sent once are timed); then every event in flight the host is not known to hold is sent again
# and the timer doubles, up to _MAX_BACKOFF (a board nobody listens to). Nothing is allocated for it: the
# sending order of the events in flight is a preallocated ring of `window` small ints.
_MIN_RTO = const(100)  # ms: the host acknowledges after its disk write, whose time varies
_MAX_RTO = const(4000)  # ms: the longest timer a measured round trip can give
_MAX_BACKOFF = const(8000)  # ms: the longest wait when no host answers at all
_LIVE_MS = const(15000)  # a host heard from this recently is there (as App's "host connected")
_CMD_IDS = const(8)  # command ids remembered: an older copy of one (line noise replays bytes) is not run again


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
        self.timeout_ms = timeout_ms  # the RTO until a round trip has been measured
        self.window = window
        self.on_command: Callable[[int, str, str], tuple[bool, str]] | None = None
        self._asm = LineAssembler(MAX_HOST_LINE, self._line, self._bad)
        self.rx_frames = 0
        self.rx_errors = 0
        self.resent = 0  # events sent again (timeouts, NAKs, HELLOs)
        self.naks = 0  # NAKs that sent an event again
        self.timeouts = 0  # retransmission timer expiries
        self._cmds = [-1] * _CMD_IDS  # the ids of the last commands run (a ring), -1: none
        self._cmd_at = 0  # where the next id goes in the ring
        self._last_cmd = -1
        self._last_reply = b""
        self.srtt = 0  # smoothed round trip, ms (0: none measured yet)
        self.rttvar = 0
        self.rto = timeout_ms
        self._backoff = timeout_ms  # the timer now: rto, doubled by each expiry
        self._due = 0
        self._next = 0  # the next event to send in this pass
        self._high = 0  # the highest event sent so far: beyond it an event goes out for the first time
        self._has = 0  # the host holds every event up to this one (its NAKs say so), acknowledged or not
        self._sent = [0] * window  # event seq % window -> the sending count at its last sending
        self._sent_at = [0] * window  # ... and its tick
        self._tries = bytearray(window)  # ... and how many times it was sent
        self._sends = 0
        self._heard_at = 0  # tick of the last frame from the host
        self._live = False  # a host has been heard from within _LIVE_MS
        self._timed = 0  # the event whose round trip is being measured (0: none)
        self._timed_at = 0

    def _send(self, line: bytes) -> None:
        try:
            self._write(line)
        except OSError:  # nobody listening: the event stays pending and is sent again
            pass

    def hello_fields(self, proto: int = PROTO) -> str:
        j = self.journal
        s = "proto=%d" % proto
        if self.hello:
            s += " " + self.hello
        return s + " epoch=%s last=%d acked=%d" % (j.epoch, j.last, j.acked)

    def start(self) -> None:
        # proto=1 with speaks=: a host of version 1 reads it; a newer one sees it may send NAKs
        self._send(encode("H", 0, "HELLO", self.hello_fields(1) + " speaks=" + PROTOS))
        self._go_back(self.journal.acked + 1)

    def post(self, typ: str, payload: str = "") -> int:
        j = self.journal
        seq = j.append(typ, payload)
        if self._next <= j.acked:
            self._next = j.acked + 1
        if j.npending == 1:
            self._arm()
        if self._next == seq and seq - j.acked <= self.window:  # in the window: out now (no flash read)
            self._out(seq, encode("E", seq, typ, payload))
            self._next = seq + 1
        return seq

    def move(self, notation: str, position: str) -> int:
        return self.post("MOVE", move_payload(notation, position))

    def notice(self, typ: str, payload: str = "") -> None:
        self._send(encode("N", 0, typ, payload))

    def _arm(self) -> None:
        self._due = self._ticks() + self._backoff

    def _out(self, seq: int, line: bytes) -> None:
        """Send event seq (line: its frame)."""
        first = seq > self._high
        if first:
            self._high = seq
            if not self._timed:
                self._timed = seq
                self._timed_at = self._ticks()
        else:
            self.resent += 1
            if seq <= self._timed:  # Karn: the timed event's ack may wait for this one: it measures nothing
                self._timed = 0
        self._sends += 1
        i = seq % self.window
        t = 1 if first else self._tries[i] + 1
        self._tries[i] = t if t < 255 else 255
        self._sent[i] = self._sends
        self._sent_at[i] = self._ticks()
        self._send(line)

    def _resend(self, seq: int) -> None:
        """Send pending event seq again, read back from flash (RAM holds no pending payload)."""
        s, typ, payload = self.journal.event(seq - self.journal.acked - 1)
        self._out(s, encode("E", s, typ, payload))

    def _fill(self) -> None:
        """Send the events of this pass that the window allows."""
        j = self.journal
        acked = j.acked
        if self._next <= acked:
            self._next = acked + 1
        while self._next <= j.last and self._next - acked <= self.window:
            self._resend(self._next)
            self._next += 1

    def _go_back(self, seq: int) -> None:
        """A new pass from seq on (every event in flight from it is sent again), timed from now."""
        self._next = seq
        self._fill()
        self._arm()

    def _measure(self, rtt: int) -> None:
        if self.srtt == 0:
            self.srtt = rtt if rtt > 0 else 1
            self.rttvar = rtt // 2
        else:
            d = self.srtt - rtt
            self.rttvar = (3 * self.rttvar + (d if d > 0 else -d)) // 4
            self.srtt = (7 * self.srtt + rtt) // 8
        self.rto = min(max(self.srtt + 4 * self.rttvar, _MIN_RTO), _MAX_RTO)

    def _acked(self, num: int) -> None:
        if not self.journal.ack(num):
            return
        if self._timed and self._timed <= num:
            self._measure(ticks_diff(self._ticks(), self._timed_at))
            self._timed = 0
        self._backoff = self.rto
        self._fill()
        self._arm()

    def _nak(self, num: int, got: int) -> None:
        """The host holds every event up to num, lacks num+1, and has just received event got (0: not
        said)."""
        j = self.journal
        want = num + 1
        if not (j.acked <= num < j.last and want <= self._high and want - j.acked <= self.window):
            return  # old, or about nothing sent
        if num > self._has:
            self._has = num
        self._backoff = self.rto  # the host is there
        w = self.window
        if got and not (want < got <= self._high and got - j.acked <= w
                        and self._sent[got % w] > self._sent[want % w]):
            return  # got left before want's last sending: that sending may still arrive
        if self._tries[got % w] == 1:  # (Karn) the NAK answers got's one sending: a round trip, and on a
            # line that loses most frames the only one measured (the host answers at once, acks after storing)
            self._measure(ticks_diff(self._ticks(), self._sent_at[got % w]))
        self.naks += 1
        self._resend(want)  # (if timed, the timed event's ack waits for this resend: no measure, _out)
        self._arm()

    def poll(self) -> None:
        j = self.journal
        if j.npending and ticks_diff(self._ticks(), self._due) >= 0:
            self.timeouts += 1
            # doubled while nobody answers, up to _MAX_BACKOFF; up to 2 RTO while a host is there (heard from
            # lately): its line loses frames, its acks too, and waiting longer loses time, not work
            live = self._live and ticks_diff(self._ticks(), self._heard_at) < _LIVE_MS
            self._live = live
            b = self._backoff * 2
            cap = 2 * self.rto if live else _MAX_BACKOFF
            self._backoff = b if b < cap else cap
            self._go_back((self._has if self._has > j.acked else j.acked) + 1)  # all the host may lack

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
        self._heard_at = self._ticks()
        self._live = True
        if kind == K_ACK and (typ == "ACK" or typ == "NAK"):
            w = words(payload)
            if not w or w[0] != self.journal.epoch:  # no epoch is no ack: it could be any journal's
                self._reject("epoch")
                return
            self.rx_frames += 1
            if typ == "ACK":
                self._acked(num)
            else:
                self._nak(num, int(w[1]) if len(w) > 1 and w[1].isdigit() else 0)
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
        if num in self._cmds:  # an older command again: run once, its reply is gone
            self._send(encode("R", num, "ERR", "dup command %d was run already: not run again" % num))
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
        if num != self._last_cmd:
            self._cmds[self._cmd_at] = num
            self._cmd_at = (self._cmd_at + 1) % _CMD_IDS
        self._last_cmd = num
        self._last_reply = line
        self._send(line)

    def _hello(self, num: int, payload: str) -> None:
        w = words(payload)
        versions = w[0].split(",") if w else ["1"]
        self._last_cmd = -1  # a new host counts its ids from anywhere
        for i in range(_CMD_IDS):
            self._cmds[i] = -1
        proto = 0  # the highest version both speak (the board's are PROTOS, newest first)
        for v in PROTOS.split(","):
            if not proto and v in versions:
                proto = int(v)
        if not proto:
            self._reply(num, False, "proto speaks=" + PROTOS)
            return
        self._reply(num, True, self.hello_fields(proto))
        self._backoff = self.rto
        self._has = 0  # a new host holds nothing it has not acknowledged
        self._go_back(self.journal.acked + 1)
