"""A test proxy between a simulated board's serial side and a logger, on loopback only: the board listens on
127.0.0.1 (bao_host.boards.sim.SocketLink), the proxy connects to it and listens itself on 127.0.0.1 for the logger
(`bao log --port socket://127.0.0.1:<port>`). A thread relays bytes both ways and, while `enabled`, injects
faults chosen by a seeded RNG: flipped bits, dropped bytes, duplicated bytes, line noise (random bytes, line
breaks included), and disconnects (the proxy closes the logger's connection and takes a new one, as a cable
pulled and plugged in again), and damaged bytes at a steady rate per byte (`Rates.byte`, the measure of
issue #14's noisy line: `damage()`, which tests/bao_testkit/simline.py's simulated line uses too). `counts` says
how many of each were injected. Every loop is bounded."""

from __future__ import annotations

import random
import select
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass


@dataclass
class Rates:
    """Probability of each fault per chunk of bytes relayed (a chunk is what one recv() returned)."""

    flip: float = 0.03
    drop: float = 0.03
    dup: float = 0.03
    noise: float = 0.03
    disconnect: float = 0.01
    byte: float = 0.0  # probability that a byte relayed is damaged (one bit flipped), whatever the chunk


def damage(data: bytes, rate: float, rng: random.Random) -> tuple[bytes, int]:
    """data with each byte damaged (one random bit flipped) with probability rate; and how many were."""
    if rate <= 0 or not data:
        return data, 0
    b = bytearray(data)
    n = 0
    i = int(rng.expovariate(rate))  # the gap to the next damaged byte: geometric, as independent bytes
    while i < len(b):
        b[i] ^= 1 << rng.randrange(8)
        n += 1
        i += 1 + int(rng.expovariate(rate))
    return bytes(b), n


class FaultProxy:
    def __init__(self, upstream: tuple[str, int], seed: int, rates: Rates | None = None) -> None:
        self.upstream_addr = upstream
        self.rng = random.Random(seed)
        self.rates = rates or Rates()
        self.enabled = True
        self.counts: Counter[str] = Counter()
        self.relayed = 0  # bytes
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.setblocking(False)
        self.url = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self.up: socket.socket | None = None
        self.down: socket.socket | None = None
        self._stop = threading.Event()
        self._disconnect = threading.Event()
        self._switch_lock = threading.Lock()
        self._switch_to: tuple[str, int] | None = None
        self._thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)
        self.error: BaseException | None = None

    def start(self) -> FaultProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for s in (self.up, self.down, self.listener):
            if s is not None:
                s.close()

    def disconnect(self) -> None:
        """Pull the cable now (counted as a disconnect)."""
        self._disconnect.set()

    def switch(self, upstream: tuple[str, int]) -> None:
        """Another board on the same path: both sides are closed and the next connection goes to upstream
        (as a pseudo-terminal path reused, or USB renumbering)."""
        with self._switch_lock:
            self._switch_to = upstream

    # ---- faults
    def mangle(self, data: bytes) -> bytes:
        if not self.enabled or not data:
            return data
        r, rng = self.rates, self.rng
        if r.byte > 0:
            data, n = damage(data, r.byte, rng)
            self.counts["damaged bytes"] += n
        b = bytearray(data)
        if rng.random() < r.flip:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
            self.counts["flipped"] += 1
        if rng.random() < r.drop and len(b) > 1:
            i = rng.randrange(len(b))
            del b[i : i + rng.randint(1, 8)]
            self.counts["dropped"] += 1
        if rng.random() < r.dup:
            i = rng.randrange(len(b))
            j = min(len(b), i + rng.randint(1, 200))
            b[j:j] = b[i:j]
            self.counts["duplicated"] += 1
        if rng.random() < r.noise:
            noise = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
            if rng.random() < 0.5:
                noise += b"\n"
            i = rng.randrange(len(b) + 1)
            b[i:i] = noise
            self.counts["noise"] += 1
        return bytes(b)

    # ---- the relay
    def _close_down(self) -> None:
        if self.down is not None:
            try:
                self.down.close()
            except OSError:
                pass
            self.down = None

    def _close_up(self) -> None:
        if self.up is not None:
            try:
                self.up.close()
            except OSError:
                pass
            self.up = None

    def _connect_up(self) -> None:
        try:
            self.up = socket.create_connection(self.upstream_addr, timeout=0.5)
            self.up.setblocking(False)
        except OSError:
            self.up = None

    def _send(self, s: socket.socket, data: bytes) -> bool:
        end = time.monotonic() + 2.0
        view = memoryview(data)
        while view:
            try:
                n = s.send(view)
                view = view[n:]
            except BlockingIOError:
                if time.monotonic() > end:
                    return False
                select.select([], [s], [], 0.05)
            except OSError:
                return False
        return True

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if self.up is None:
                    self._connect_up()
                    if self.up is None:
                        time.sleep(0.02)
                        continue
                if self.down is None:
                    try:
                        self.down, _ = self.listener.accept()
                        self.down.setblocking(False)
                    except (BlockingIOError, OSError):
                        pass
                with self._switch_lock:
                    to, self._switch_to = self._switch_to, None
                if to is not None:
                    self.upstream_addr = to
                    self._close_up()
                    self._close_down()
                    continue
                if self._disconnect.is_set():
                    self._disconnect.clear()
                    if self.down is not None:
                        self._close_down()
                        self.counts["disconnects"] += 1
                socks = [s for s in (self.up, self.down) if s is not None]
                ready, _, _ = select.select(socks, [], [], 0.01)
                for s in ready:
                    try:
                        data = s.recv(4096)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if s is self.up:
                        if not data:  # the board went away (its power was cut): the logger sees it too
                            self._close_up()
                            self._close_down()
                            break
                        if self.down is not None:  # with no logger, what the board writes is lost
                            self.relayed += len(data)
                            if not self._send(self.down, self.mangle(data)):
                                self._close_down()
                    else:
                        if not data:  # the logger closed the port (or was killed)
                            self._close_down()
                            break
                        self.relayed += len(data)
                        if self.up is not None and not self._send(self.up, self.mangle(data)):
                            self._close_up()
                    if self.enabled and self.down is not None and self.rng.random() < self.rates.disconnect:
                        self._close_down()
                        self.counts["disconnects"] += 1
                        break
        except BaseException as e:  # seen by the test
            self.error = e
            raise
