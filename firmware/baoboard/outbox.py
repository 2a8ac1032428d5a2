# The board's end of the serial link (docs/protocol.md): events out through the journal, acks and commands in.
#   ob = Outbox(journal, write, ticks_ms, hello="fw=0.1.0 rules=bao-1 board=e6614103", timeout_ms=1000)
#   ob.on_command = fn(cmd_id, typ, payload) -> (ok, reply_payload)   the application's command handler;
#                       HELLO and ACK never reach it; a repeated command id gets the cached reply, not a rerun
#   ob.start()                    at boot: the unsolicited H0 HELLO, then every pending event
#   ob.post(typ, payload) -> seq  journal (durable) first, then send: E<seq> TYPE payload (-1: no room, not sent)
#   ob.move(notation, position) -> seq     post("MOVE", "notation position")
#   ob.feed(data, n=-1)           bytes read from the serial link (any split, any garbage)
#   ob.poll()                     call from the main loop: resends unacknowledged events after a timeout
#   ob.notice(typ, payload)       an unsequenced N0 line (not journalled, never resent)
#   counters: rx_frames, rx_errors, resent, naks, timeouts; rto: the retransmission timeout (ms)
# At most `window` events are in flight past the host's ack level; the rest wait on flash for acks.
# Bad input is dropped with "N0 BADFRAME reason=<crc|syntax|overlong|utf8|kind|epoch> errors=<count>".
# The board must call micropython.kbd_intr(-1) before using the link (0x03 is then plain data).
try:
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from baoproto.frames import (
    ERR_NAMES,
    K_ACK,
    K_CMD,
    MAX_HOST_LINE,
    PROTO,
    SPEAKS,
    LineAssembler,
    decode,
    encode,
    move_payload,
    words,
)

from baoboard.compat import const

try:
    from time import ticks_diff
except ImportError:  # CPython

    def ticks_diff(a: int, b: int) -> int:  # type: ignore
        return a - b


# Retransmission (docs/protocol.md, "Flow"). A new event goes out at once; a pass (after a HELLO, a timeout)
# sends up to `window` events past the host's ack level, and each ack moves it on.
# The host (v2) keeps what arrives out of order and answers each such event with `A<n> NAK <epoch> <got>`:
# it holds every event up to n, lacks n+1, and has just received <got>. The line keeps order, so if <got>
# went out after the last sending of n+1, that sending was lost: n+1 is sent again at once (and only then:
# a NAK for a copy sent before the resend says nothing new). Otherwise the oldest event in flight is overdue
# after the retransmission timeout (RTO), from the measured round trip as TCP computes it (RFC 6298; Karn:
# only events sent once are timed); then every event in flight the host is not known to hold is sent again
# and the timer doubles: up to 2 RTO while a host answers, up to _MAX_BACKOFF when nobody does.
# Nothing is allocated for it: its state is small ints in named attributes and three lists of `window` slots,
# allocated once.
_MIN_RTO = const(250)  # ms: the host acknowledges after its disk write (a Pi's SD card is slow)
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
        self.rto = timeout_ms  # ms
        self._last_reply = b""
        self._next = 0  # the next event to send in this pass
        self.proto = 0  # the protocol version the host's HELLO settled on (0: no host has said HELLO)
        self.hellos = 0  # HELLOs answered: a new host, which knows nothing of the board's state yet
        self.cmd_ids = [-1] * _CMD_IDS  # the last command ids, a ring: an older copy of one is not run again
        self.cmd_at = 0  # where the next command id goes in the ring
        self.last_cmd = -1  # the id of the last command answered (-1: none since the HELLO)
        self.high = 0  # the highest event sent so far (counted: a host answered): beyond it, a first sending
        self.has = 0  # the host holds every event up to this one (its NAKs say so), acknowledged or not
        self.sends = 0  # sendings so far (the order of the sendings)
        self.timed = 0  # the event whose round trip is being measured (0: none)
        self.timed_at = 0  # ... its sending's tick
        self.heard_at = 0  # tick of the last frame from the host
        self.live = 0  # 1: a host was heard from within _LIVE_MS
        self.srtt = 0  # smoothed round trip, ms (0: none measured yet)
        self.rttvar = 0
        self.raw_high = 0  # the highest event sent while no host answered (counted in `resent` when sent again)
        self.backoff = timeout_ms  # the timer now, ms: rto, doubled by each expiry
        self.due = 0  # tick at which the oldest event in flight is overdue
        # for event seq at i = seq % window: its last sending's number (sends), that sending's tick, and how
        # many times it was sent
        self.sent_no = [0] * window
        self.sent_at = [0] * window
        self.sendings = [0] * window

    def _send(self, line: bytes) -> None:
        try:
            self._write(line)
        except OSError:  # nobody listening: the event stays pending and is sent again
            pass

    def hello_fields(self, num: int = PROTO) -> str:
        """The handshake's fields, for protocol version num."""
        j = self.journal
        s = "proto=%d" % num
        if self.hello:
            s += " " + self.hello
        return s + " epoch=%s last=%d acked=%d" % (j.epoch, j.last, j.acked)

    def start(self) -> None:
        # proto=1 with speaks=: a host of version 1 reads it; a newer one sees it may send NAKs
        self.proto = 0  # (a host that was there may be gone: it says HELLO again)
        self._send(encode("H", 0, "HELLO", self.hello_fields(1) + " speaks=" + SPEAKS))
        self._fill(self.journal.acked + 1)

    def post(self, typ: str, payload: str = "") -> int:
        j = self.journal
        seq = j.append(typ, payload)
        if seq <= 0:  # a game the journal does not record (Journal.recording), or -1: no room on the flash
            return seq
        if self._next <= j.acked:
            self._next = j.acked + 1
        if j.npending == 1:
            self.due = self._ticks() + self.backoff
        line = encode("E", seq, typ, payload)  # out now, whatever the window (no flash read): a listener that
        # acknowledges nothing (a terminal, `bao sim --report`) sees every event once
        self._resend(seq, line, not self.live)  # (no host answers: the pass for one that comes is timed)
        if self._next == seq:
            self._next = seq + 1
        return seq

    def move(self, notation: str, position: str) -> int:
        return self.post("MOVE", move_payload(notation, position))

    def notice(self, typ: str, payload: str = "") -> None:
        self._send(encode("N", 0, typ, payload))

    def _resend(self, seq: int, line: "bytes | None" = None, raw: bool = False) -> None:
        """Send pending event seq: its frame `line`, or read back from flash (RAM holds no pending payload).
        raw: no host answers; not counted as a sending (nothing is timed from it)."""
        if line is None:
            s, typ, payload = self.journal.event(seq - self.journal.acked - 1)
            line = encode("E", s, typ, payload)
        w = self.window
        i = seq % w
        now = self._ticks()
        t = 0 if raw else (self.sendings[i] + 1 if seq <= self.high else 1)  # its counted sendings
        if not raw and seq > self.high:
            self.high = seq
        if raw:
            self.raw_high = seq
        elif t == 1:  # its first counted sending: timed
            if seq <= self.raw_high:
                self.resent += 1
            if not self.timed:
                self.timed = seq
                self.timed_at = now
        else:
            self.resent += 1
            if seq <= self.timed:  # Karn: the timed event's ack may wait for this one: it measures nothing
                self.timed = 0
        self.sends += 1
        self.sendings[i] = t if t < 255 else 255
        self.sent_no[i] = self.sends
        self.sent_at[i] = now
        self._send(line)

    def _fill(self, seq: int = 0) -> None:
        """Send the events of this pass that the window allows (with seq: a new pass from seq on, every
        event in flight from it sent again), and time the oldest from now."""
        j = self.journal
        acked = j.acked
        if seq:
            self._next = seq
        if self._next <= acked:
            self._next = acked + 1
        while self._next <= j.last and self._next - acked <= self.window:
            self._resend(self._next)
            self._next += 1
        self.due = self._ticks() + self.backoff

    def poll(self) -> None:
        j = self.journal
        if j.npending and ticks_diff(self._ticks(), self.due) >= 0:
            self.timeouts += 1
            # doubled while nobody answers, up to _MAX_BACKOFF; up to 2 RTO while a host is there (heard from
            # lately): its line loses frames, its acks too, and waiting longer loses time, not work
            if self.live and ticks_diff(self._ticks(), self.heard_at) >= _LIVE_MS:
                self.live = 0
            b = self.backoff * 2
            cap = 2 * self.rto if self.live else _MAX_BACKOFF
            self.backoff = b if b < cap else cap
            self._fill((self.has if self.has > j.acked else j.acked) + 1)  # all the host may lack

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
        self.heard_at = self._ticks()
        self.live = 1
        if kind == K_ACK and (typ == "ACK" or typ == "NAK"):
            self._acked(num, typ, payload)
        elif kind != K_CMD:
            self._reject("kind")
        else:
            self._command(num, typ, payload)

    def _acked(self, num: int, typ: str, payload: str) -> None:
        """An ACK (every event up to num is safe on the host) or a NAK (the host lacks num + 1)."""
        w = words(payload)
        j = self.journal
        if not w or w[0] != j.epoch:  # no epoch is no ack: it could be any journal's
            self._reject("epoch")
            return
        self.rx_frames += 1
        rtt = -1  # a round trip measured, ms
        if typ == "ACK":
            if not j.ack(num):
                return
            if self.timed and self.timed <= num:
                rtt = ticks_diff(self._ticks(), self.timed_at)
                self.timed = 0
            want = 0
        else:  # NAK: the host holds every event up to num, lacks num+1, has just received <got> (if said)
            want = num + 1
            ws = self.window
            high = self.high if self.high > self.raw_high else self.raw_high
            if not (j.acked <= num < j.last and want <= high and want - j.acked <= ws):
                return  # old, or about nothing sent
            if num > self.has:
                self.has = num
            got = int(w[1]) if len(w) > 1 and w[1].isdigit() else 0
            if got:
                g = got % ws
                if not (want < got <= high and got - j.acked <= ws and self.sent_no[g] > self.sent_no[want % ws]):
                    return  # got left before want's last sending: that sending may still arrive
                if self.sendings[g] == 1:  # (Karn) the NAK answers got's one sending: a round trip, on a
                    # line that loses most frames the only one measured (the host answers at once)
                    rtt = ticks_diff(self._ticks(), self.sent_at[g])
        if rtt >= 0:
            self._round_trip(rtt)
        self.backoff = self.rto  # the host is there
        if want:
            self.naks += 1
            self._resend(want)
            self.due = self._ticks() + self.backoff
        else:
            self._fill()

    def _round_trip(self, rtt: int) -> None:
        """A round trip measured (ms): the retransmission timeout follows RFC 6298, in whole ms."""
        if self.srtt == 0:
            self.srtt = rtt if rtt > 0 else 1
            self.rttvar = rtt // 2
        else:
            d = self.srtt - rtt
            self.rttvar = (3 * self.rttvar + (d if d > 0 else -d)) // 4
            self.srtt = (7 * self.srtt + rtt) // 8
        self.rto = min(max(self.srtt + 4 * self.rttvar, _MIN_RTO), _MAX_RTO)

    def _command(self, num: int, typ: str, payload: str) -> None:
        """A host command: run once (a resent one answered with the same reply), then its reply."""
        self.rx_frames += 1
        if typ == "HELLO":
            self._hello(num, payload)
            return
        if num == self.last_cmd:  # the host did not get our reply: the same reply, not a second run
            self._send(self._last_reply)
            return
        for i in range(_CMD_IDS):
            if self.cmd_ids[i] == num:  # an older command again: run once, its reply is gone
                break
        else:
            i = -1
        if i >= 0:
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
        if num != self.last_cmd:
            self.cmd_ids[self.cmd_at] = num
            self.cmd_at = (self.cmd_at + 1) % _CMD_IDS
        self.last_cmd = num
        self._last_reply = line
        self._send(line)

    def _hello(self, num: int, payload: str) -> None:
        w = words(payload)
        versions = w[0].split(",") if w else ["1"]
        self.last_cmd = -1  # a new host counts its ids from anywhere
        for i in range(_CMD_IDS):
            self.cmd_ids[i] = -1
        v = PROTO  # the newest version both speak
        while v and str(v) not in versions:
            v -= 1
        if not v:
            self._reply(num, False, "proto speaks=" + SPEAKS)
            return
        self._reply(num, True, self.hello_fields(v))
        self.proto = v
        self.hellos += 1
        self.backoff = self.rto
        self.has = 0  # a new host holds nothing it has not acknowledged
        self._fill(self.journal.acked + 1)
