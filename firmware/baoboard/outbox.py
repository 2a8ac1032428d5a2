# The board's end of the serial link (docs/protocol.md): events out through the journal, acks and commands in.
#   ob = Outbox(journal, write, ticks_ms, hello="fw=0.1.0 rules=bao-1 board=e6614103", timeout_ms=1000)
#   ob.on_command = fn(cmd_id, typ, payload) -> (ok, reply_payload)   the application's command handler;
#                       HELLO and ACK never reach it; a repeated command id gets the cached reply, not a rerun
#   ob.defer = True; ob.run_pending()   commands wait for the application to run them (PING apart)
#   ob.paced = True; ob.pump()    a pass's events go out one a pump() call, not all at once
#   ob.start()                    at boot: the unsolicited H0 HELLO, then every pending event
#   ob.post(typ, payload) -> seq  journal (durable) first, then send: E<seq> TYPE payload (-1: no room, not sent)
#   ob.move(notation, position) -> seq     post("MOVE", "notation position")
#   ob.feed(data, n=-1, i=0)      bytes read from the serial link, data[i:n] (any split, any garbage)
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

from baoboard.compat import const, ticks_diff

# Retransmission (docs/protocol.md, "Flow"). A new event goes out at once; a pass (after a HELLO, a timeout)
# sends up to `window` events past the host's ack level, and each ack moves it on.
# The host (v2) keeps what arrives out of order and answers each such event with `A<n> NAK <epoch> <got>`:
# it holds every event up to n, lacks n+1, and has just received <got>. The line keeps order, so if <got>
# went out after the last sending of n+1, that sending was lost: n+1 is sent again at once (and only then:
# a NAK for a copy sent before the resend says nothing new). The host (v3) also reports a damaged line that
# reads as event k at once, `NAK <epoch> bad=<k>/<c>`: k is sent again at once (issue #26: on a line that
# damages most frames, waiting for the timer to find each loss took minutes). Otherwise an event in flight is
# overdue one retransmission timeout (RTO) after its last sending, from the measured round trip as TCP
# computes it (RFC 6298; Karn: only events sent once are timed); then the events in flight the host may lack
# are sent again (v1: all from the first; v2 and later: those not sent again lately) and the timer doubles:
# up to 2 RTO while a host answers, up to _MAX_BACKOFF when nobody does.
# Nothing is allocated for it: the state is small ints in attributes set at start, and four per-event
# tables of `window` slots allocated once (Outbox.__init__).
_MIN_RTO = const(250)  # ms: the host acknowledges after its disk write (a Pi's SD card is slow)
_MAX_RTO = const(4000)  # ms: the longest timer a measured round trip can give
_MAX_BACKOFF = const(8000)  # ms: the longest wait when no host answers at all
_LIVE_MS = const(15000)  # a host heard from this recently is there (as App's "host connected")
_WAITING = const(8)  # host commands that may wait for the application to run them (defer): more than a
# scan's read of the link holds
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
        # defer: a command (PING apart) waits in `pending` for the application's run_pending(), which runs it
        # where its work is not stacked on the link's own calls (a Pico's C stack is small) or on the
        # computer's search (App.step); up to _WAITING wait, in order, and one more is answered ERR state
        self.defer = False
        self.pending: list[tuple[int, str, str]] = []
        # paced: a pass (a HELLO's, an ack's, the boot's) leaves its events to pump(), one a call (the
        # application's: one a scan; each is read back from flash) rather than sending them all at once
        self.paced = False
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
        # the retransmission's state (the comment above _MIN_RTO)
        self._cmd_ids = [-1] * _CMD_IDS  # the last command ids answered, a ring: an older copy is not run again
        self._cmd_at = 0  # where the next command id goes in the ring
        self._last_cmd = -1  # the id of the last command answered (-1: none since the HELLO)
        self._high = 0  # the highest event sent so far (counted: a host answered): beyond it, a first sending
        self._raw = 0  # the highest event sent while no host answered (counted in `resent` when sent again)
        self._has = 0  # the host holds every event up to this one (its NAKs say so), acknowledged or not
        self._sendings = 0  # sendings so far (the order of the sendings)
        self._timed = 0  # the event whose round trip is being measured (0: none)
        self._timed_at = 0  # ... its sending's tick
        self._heard_at = 0  # tick of the last frame from the host
        self._live = False  # a host was heard from within _LIVE_MS
        self._keeps = False  # the host keeps what comes out of order (it speaks protocol 2 or later, or NAKed)
        self._srtt = 0  # smoothed round trip, ms (0: none measured yet)
        self._rttvar = 0
        self._backoff = timeout_ms  # the timer now, ms: rto, doubled by each expiry
        self._due = 0  # tick at which the oldest event in flight is overdue
        self._bad_seq = 0  # the last damaged copy a NAK reported (protocol 3): its event's number ...
        self._bad_copies = 0  # ... and the host's count of that event's damaged copies (the host sends each NAK twice)
        # per event in flight, event seq in slot seq % window:
        self._sending_of = [0] * window  # its last sending's number (_sendings)
        self._sent_at = [0] * window  # that sending's tick
        self._times_sent = bytearray(window)  # how many times it was sent (up to 255)
        self._held = bytearray(window)  # 1: the host holds it (a NAK's <got> said so) though it cannot
        # acknowledge it yet (an earlier one is missing)

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
        line = encode("E", seq, typ, payload)  # out now, whatever the window (no flash read): a listener that
        # acknowledges nothing (a terminal, `bao sim --report`) sees every event once
        self._resend(seq, line, not self._live)  # (no host answers: the pass for one that comes is timed)
        if self._next == seq:
            self._next = seq + 1
        self._time()
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
        i = seq % self.window
        now = self._ticks()
        t = 0 if raw else (self._times_sent[i] + 1 if seq <= self._high else 1)  # its counted sendings
        if raw or seq > self._high:  # its first sending: the slot's mark was an older event's
            self._held[i] = 0
        if not raw and seq > self._high:
            self._high = seq
        if raw:
            self._raw = seq
        elif t == 1:  # its first counted sending: timed
            if seq <= self._raw:
                self.resent += 1
            if not self._timed:
                self._timed = seq
                self._timed_at = now
        else:
            self.resent += 1
            if seq <= self._timed:  # Karn: the timed event's ack may wait for this one: it measures nothing
                self._timed = 0
        self._sendings += 1
        self._times_sent[i] = t if t < 255 else 255
        self._sending_of[i] = self._sendings
        self._sent_at[i] = now
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
        while not self.paced and self._next <= j.last and self._next - acked <= self.window:
            self._resend(self._next)
            self._next += 1
        self._time()

    def pump(self) -> None:
        """Paced: send the pass's next event, if the window allows it. (Called every scan: nothing past the
        last event, the common case, is told by one comparison.)"""
        j = self.journal
        seq = self._next
        if seq >= j.next_seq:  # (j.last + 1, without the property's call)
            return
        if seq <= j.acked:
            seq = j.acked + 1
        if seq <= j.last and seq - j.acked <= self.window:
            self._resend(seq)
            self._next = seq + 1
            self._time()

    def _time(self) -> int:
        """Set the timer: due when the event in flight that has waited longest since its last sending, of
        those the host may lack, has waited one backoff. Returns that wait so far (ms; -1: none)."""
        j = self.journal
        w = self.window
        now = self._ticks()
        age = -1
        seq = (self._has if self._has > j.acked else j.acked) + 1
        while seq < self._next:
            i = seq % w
            if not self._held[i]:
                a = ticks_diff(now, self._sent_at[i])
                if a > age:
                    age = a
            seq += 1
        self._due = now + self._backoff - (age if age > 0 else 0)
        return age

    def poll(self) -> None:
        j = self.journal
        if not j.npending or ticks_diff(self._ticks(), self._due) < 0:
            return
        wait = self._backoff
        age = self._time()
        if 0 <= age < wait:  # the oldest was sent again meanwhile (a NAK), or the host holds it
            return
        self.timeouts += 1
        # doubled while nobody answers, up to _MAX_BACKOFF; up to 2 RTO while a host is there (heard from
        # lately): its line loses frames, its acks too, and waiting longer loses time, not work
        if self._live and ticks_diff(self._ticks(), self._heard_at) >= _LIVE_MS:
            self._live = False
        b = self._backoff * 2
        cap = 2 * self.rto if self._live else _MAX_BACKOFF
        self._backoff = b if b < cap else cap
        base = (self._has if self._has > j.acked else j.acked) + 1
        if age < 0 or not self._keeps:  # a host of protocol 1 drops what comes after a lost event: the lost
            # one and every one after it (or nothing in flight it may lack: a pass from the first it lacks)
            self._fill(base)
            return
        # the host keeps the others: only those sent a quarter of the timer ago or more (one whose damaged
        # copy the host reported, protocol 3, or that a NAK asked for, was sent again since: on its way)
        w = self.window
        now = self._ticks()
        while base < self._next:
            i = base % w
            if not self._held[i] and ticks_diff(now, self._sent_at[i]) >= wait // 4:
                self._resend(base)
            base += 1
        self._fill()

    def feed(self, data: "bytes | bytearray", n: int = -1, i: int = 0) -> None:
        self._asm.feed(data, n, i)

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
            if self._timed and self._timed <= num:
                rtt = ticks_diff(self._ticks(), self._timed_at)
                self._timed = 0
            want = 0
        else:  # NAK: the host holds every event up to num, lacks num+1, has just received <got> (if said)
            self._keeps = True
            want = self._nak(num, w[1] if len(w) > 1 else "")
            if want < 0:
                return
        if rtt >= 0:
            self._round_trip(rtt)
        self._backoff = self.rto  # the host is there
        if want:
            self.naks += 1
            self._resend(want)
            self._time()
        else:
            self._fill()

    def _nak(self, num: int, got: str) -> int:
        """The event a NAK asks for (num + 1, or the damaged one), or -1: it asks for nothing new."""
        j = self.journal
        want = num + 1
        ws = self.window
        high = self._high if self._high > self._raw else self._raw
        if not (j.acked <= num < j.last and want <= high and want - j.acked <= ws):
            return -1  # old, or about nothing sent
        if num > self._has:
            self._has = num
        bad = got[:4] == "bad="  # (protocol 3) "bad=<k>/<c>": the host has just received a frame that read as
        # event <k>, damaged, the <c>th such copy since its HELLO: <k> again at once, unless the host holds <k>
        # (then the number was damaged too) or this is the NAK's second copy (the host sends each twice)
        c = 0
        if bad:
            got = got[4:]
            sl = got.find("/")
            if sl > 0:
                c = int(got[sl + 1 :]) if got[sl + 1 :].isdigit() else 0
                got = got[:sl]
        k = int(got) if got.isdigit() else 0
        if not k:
            return want  # asked for plainly
        g = k % ws
        if not (want <= k <= high and k - j.acked <= ws) or (k == want and not bad):
            return -1
        if bad:
            if self._held[g] or (c and k == self._bad_seq and c == self._bad_copies):
                return -1  # (the host holds it: the number was damaged; or the NAK's second copy)
            self._bad_seq = k
            self._bad_copies = c
            want = k
        else:
            self._held[g] = 1  # the host holds <got>: no timer sends it again
            if not self._sending_of[g] > self._sending_of[want % ws]:
                return -1  # got left before want's last sending: that sending may still arrive
        if self._times_sent[g] == 1:  # (Karn) the NAK answers k's one sending: a round trip, on a line that loses
            # most frames the only one measured (the host answers at once)
            self._round_trip(ticks_diff(self._ticks(), self._sent_at[g]))
        return want

    def _round_trip(self, rtt: int) -> None:
        """A round trip measured (ms): the retransmission timeout follows RFC 6298, in whole ms."""
        if self._srtt == 0:
            self._srtt = rtt if rtt > 0 else 1
            self._rttvar = rtt // 2
        else:
            d = self._srtt - rtt
            self._rttvar = (3 * self._rttvar + (d if d > 0 else -d)) // 4
            self._srtt = (7 * self._srtt + rtt) // 8
        self.rto = min(max(self._srtt + 4 * self._rttvar, _MIN_RTO), _MAX_RTO)

    def _command(self, num: int, typ: str, payload: str) -> None:
        """A host command: run once (a resent one answered with the same reply), then its reply."""
        self.rx_frames += 1
        if typ == "HELLO":
            self._hello(num, payload)
            return
        if num == self._last_cmd:  # the host did not get our reply: the same reply, not a second run
            self._send(self._last_reply)
            return
        if num in self._cmd_ids:  # an older command again: run once, its reply is gone
            self._send(encode("R", num, "ERR", "dup command %d was run already: not run again" % num))
            return
        if self.defer and typ != "PING":
            waiting = self.pending
            for c in waiting:
                if c[0] == num:
                    return  # a copy of a waiting one: answered when it runs
            if len(waiting) < _WAITING:
                waiting.append((num, typ, payload))
            else:
                self._send(encode("R", num, "ERR", "state %d commands wait to run" % len(waiting)))
            return
        self._run(num, typ, payload)

    def run_pending(self) -> None:
        """Run the oldest command that waits (defer), and send its reply."""
        if self.pending:
            c = self.pending.pop(0)
            self._run(c[0], c[1], c[2])

    def _run(self, num: int, typ: str, payload: str) -> None:
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
            self._cmd_ids[self._cmd_at] = num
            self._cmd_at = (self._cmd_at + 1) % _CMD_IDS
        self._last_cmd = num
        self._last_reply = line
        self._send(line)

    def _hello(self, num: int, payload: str) -> None:
        w = words(payload)
        versions = w[0].split(",") if w else ["1"]
        self._last_cmd = -1  # a new host counts its ids from anywhere
        ids = self._cmd_ids
        for i in range(_CMD_IDS):
            ids[i] = -1
        v = PROTO  # the newest version both speak
        while v and str(v) not in versions:
            v -= 1
        if not v:
            self._reply(num, False, "proto speaks=" + SPEAKS)
            return
        self._reply(num, True, self.hello_fields(v))
        self.proto = v
        self.hellos += 1
        self._keeps = v > 1
        self._backoff = self.rto
        self._has = 0  # a new host holds nothing it has not acknowledged
        held = self._held
        for i in range(self.window):
            held[i] = 0
        self._fill(self.journal.acked + 1)
