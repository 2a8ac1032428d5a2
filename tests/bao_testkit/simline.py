"""A board and a host joined by a serial line in simulated time: the link's tests and its benchmark
(tools/bench_link.py). The board's end is the firmware's own Outbox and Journal on an in-memory flash,
scanned every simulated millisecond; the host's end is bao_host.record.link.Link, unchanged, over a pyserial-like
port (`SimLine.link()`). Each direction is a line of a given speed and latency that damages each byte with
a given probability (faultproxy.damage: one bit flipped). Nothing runs in real time: the clock moves only
while the host waits for bytes (a read with a timeout, Link's sleep) or the caller advances it, so every
figure is the same on any machine and for one seed the same on every run.

    sim = SimLine(error_rate=0.0035, seed=1)
    sim.post_backlog(50)                 # 50 MOVE events (the 1994 game's) waiting on the board, no host
    link = sim.link()                    # the host's Link on the line, with the simulated clock
    sim.drain(link, 50, store_ms=10)     # poll, store (store_ms each), ack, until the board holds no event
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path
from typing import Any

from bao import core, notation, position_json
from bao_host.record.link import Event, Link
from baoboard.journal import Journal
from baoboard.memstorage import FakeStorage
from baoboard.outbox import Outbox
from baoproto.frames import move_payload

from bao_testkit.faultproxy import damage

ROOT = Path(__file__).resolve().parents[2]
EPOCH = "5eed0001"
RX_PER_SCAN = 64  # bytes the board reads a scan (baoboard.app: its rx buffer)


class Line:
    """One direction: bytes leave one after the other at `bytes_per_ms`, arrive `latency_ms` later, each
    damaged with probability `error_rate`."""

    def __init__(
        self, sim: SimLine, bytes_per_ms: float, latency_ms: float, error_rate: float, rng: random.Random
    ) -> None:
        self.sim = sim
        self.bytes_per_ms = bytes_per_ms
        self.latency_ms = latency_ms
        self.error_rate = error_rate
        self.rng = rng
        self.q: deque[tuple[float, bytes]] = deque()
        self.free = 0.0  # when the line is done with what it was given
        self.sent = 0  # bytes
        self.damaged = 0  # bytes

    def send(self, data: bytes) -> None:
        data, n = damage(data, self.error_rate, self.rng)
        self.damaged += n
        self.sent += len(data)
        start = max(self.sim.now, self.free)
        self.free = start + len(data) / self.bytes_per_ms
        self.q.append((self.free + self.latency_ms, data))

    def arrived(self, into: bytearray) -> None:
        while self.q and self.q[0][0] <= self.sim.now:
            into += self.q.popleft()[1]


class Port:
    """What Link needs of a pyserial port, on the simulated line."""

    def __init__(self, sim: SimLine) -> None:
        self.sim = sim
        self.timeout = 0.05
        self.is_open = True

    @property
    def in_waiting(self) -> int:
        return len(self.sim.host_rx)

    def read(self, n: int = 1) -> bytes:
        sim = self.sim
        end = sim.now + (self.timeout or 0) * 1000
        while not sim.host_rx and sim.now < end:
            sim.tick()
        out = bytes(sim.host_rx[:n])
        del sim.host_rx[:n]
        return out

    def write(self, data: bytes) -> int:
        self.sim.down.send(bytes(data))
        return len(data)

    def close(self) -> None:
        self.is_open = False
        self.sim.connected = False


class SimLine:
    def __init__(
        self, error_rate: float = 0.0, seed: int = 1, baud: int = 115200, latency_ms: float = 1.0, window: int = 8
    ) -> None:
        rng = random.Random(seed)
        self.now = 0.0  # ms
        self.up = Line(self, baud / 10 / 1000, latency_ms, error_rate, rng)  # board -> host (8N1: 10 bits)
        self.down = Line(self, baud / 10 / 1000, latency_ms, error_rate, rng)  # host -> board
        self.host_rx = bytearray()
        self.board_rx = bytearray()
        self.connected = False  # a host holds the port open: what the board writes otherwise is lost
        j = Journal(FakeStorage(), epoch_fn=lambda: EPOCH)
        j.open()
        self.outbox = Outbox(
            j, self._board_write, lambda: int(self.now), hello="fw=sim rules=1 board=sim1", window=window
        )

    def _board_write(self, data: bytes) -> None:
        if self.connected:
            self.up.send(data)

    def tick(self) -> None:
        """One simulated millisecond: what arrives by then is delivered, and the board scans once."""
        self.now = float(int(self.now) + 1)
        self.up.arrived(self.host_rx)
        self.down.arrived(self.board_rx)
        ob = self.outbox
        if self.board_rx:
            n = min(len(self.board_rx), RX_PER_SCAN)
            ob.feed(bytes(self.board_rx[:n]))
            del self.board_rx[:n]
        ob.poll()

    def advance(self, ms: float) -> None:
        end = self.now + ms
        while self.now + 1 <= end:
            self.tick()
        self.now = max(self.now, end)

    def post_backlog(self, n: int, idle_ms: float = 60000) -> list[bytes]:
        """n MOVE events of the 1994 game posted with no host listening, then idle_ms with no host (the
        board's timer backs off meanwhile); returns the lines the host must receive, in order."""
        t = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
        positions = notation.replay(t)
        want: list[bytes] = []
        while len(want) < n:
            for i, text in enumerate(t.plies):
                if len(want) == n:
                    break
                move, child = notation.parse_move(positions[i], text)
                payload = move_payload(
                    core.format_move(move, positions[i].d[core.TO_MOVE]), position_json.dumps(child, True)
                )
                self.outbox.post("MOVE", payload)
                want.append(payload.encode())
        self.advance(idle_ms)
        return want

    def link(self, **kw: Any) -> Link:
        def opener(url: str, **_: Any) -> Port:
            self.connected = True
            return Port(self)

        return Link(
            "sim://line", opener=opener, clock=lambda: self.now / 1000, sleep=lambda s: self.advance(s * 1000), **kw
        )

    def drain(self, link: Link, n: int, store_ms: float = 10.0, limit_s: float = 600.0) -> list[Event]:
        """The host's loop (bao_host.record.session's): poll, store each event (store_ms of simulated time),
        acknowledge it; until n events are delivered and the board holds none pending, or limit_s."""
        got: list[Event] = []
        end = self.now + limit_s * 1000
        while (len(got) < n or self.outbox.journal.npending) and self.now < end:
            for ev in link.poll(0.01):
                self.advance(store_ms)
                got.append(ev)
                link.ack(ev.seq)
        return got
