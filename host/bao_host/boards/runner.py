"""The board application on a host: `Runner` steps the firmware's run loop (baoboard.runtime.Supervisor) on a
Raspberry Pi (bao_host.boards.rpi) or on simulated sensors and LEDs, its flash a folder, its serial side a
pseudo-terminal, a TCP socket or a pyserial device (`open_serial`). `bao board` (bao_host.cli.board) wires it up.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from bao import core

SCAN_MS = 4.0  # the pause between two scans: the debouncer counts scans, so the loop is paced
SELFTEST_FILE = "selftest.json"


class BoardError(Exception):
    """A one-line reason why the board cannot run."""


class Side(Protocol):
    """A served serial side (bao_host.boards.sim.PtyLink, SocketLink)."""

    path: str

    def read(self) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class SideStream:
    """A served serial side as the read(n)/write(b) stream RpiHardware takes."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.path = side.path
        self._pending = b""

    def read(self, size: int = 4096) -> bytes:
        if not self._pending:
            self._pending = self.side.read()
        out, self._pending = self._pending[:size], self._pending[size:]
        return out

    def write(self, data: bytes) -> int:
        self.side.write(bytes(data))
        return len(data)

    def close(self) -> None:
        self.side.close()


def open_serial(port: str) -> tuple[Any, str]:
    """The board's serial side for --port: (a read(n)/write(b)/close() stream or None, where a host finds it).
    'pty': a pseudo-terminal; 'socket://HOST:PORT': a TCP server (port 0: any free port); 'none'; anything
    else is a pyserial URL or device the board writes to (/dev/ttyGS0, /dev/ttyAMA0, rfc2217://...)."""
    from bao_host.boards.sim import PtyLink, SocketLink

    if port == "none":
        return None, "none"
    if port == "pty":
        try:
            pty = PtyLink()
        except OSError as e:
            raise BoardError(f"cannot make a pseudo-terminal: {e}") from e
        return SideStream(pty), pty.path
    if port.startswith("socket://"):
        host, _, num = port[len("socket://") :].rpartition(":")
        try:
            sock = SocketLink(host or "0.0.0.0", int(num))
        except ValueError as e:
            raise BoardError(f"bad socket address {port!r}: socket://HOST:PORT") from e
        except OSError as e:
            raise BoardError(f"cannot serve {port}: {e.strerror or e}") from e
        return SideStream(sock), sock.path
    from bao_host.boards.rpi import open_link

    try:
        return open_link(port), port
    except (OSError, ValueError) as e:  # serial.SerialException is an OSError
        raise BoardError(f"cannot open {port}: {e}") from e


def default_data_dir(hal: str) -> Path:
    """The board's flash on this machine: next to the game store (bao_host.record.store), one folder per HAL."""
    from bao_host.record.store import default_data_dir as store_dir

    return store_dir() / f"board-{hal}"


def rpi_board_id() -> str:
    """A stable id for this Pi: its SoC serial number (device tree), else the machine id, else the host name."""
    for path in ("/sys/firmware/devicetree/base/serial-number", "/proc/device-tree/serial-number"):
        with contextlib.suppress(OSError):
            s = Path(path).read_bytes().strip(b"\x00\n ").decode("ascii", "replace").lstrip("0")
            if s:
                return "rpi-" + s[-16:]
    with contextlib.suppress(OSError):
        s = Path("/etc/machine-id").read_text().strip()
        if s:
            return "rpi-" + s[:16]
    import socket

    return "rpi-" + socket.gethostname()


def make_rpi_hardware(
    link: Any,
    data: Path,
    gpio: Any = None,
    half_period_us: float = 0.0,
    brightness: int | None = None,
    say: Callable[[str], None] | None = None,
) -> Any:
    """RpiHardware with the self-test's recorded mapping when there is a usable one in `data`."""
    from baoboard.drivers import board_config as cfg
    from baoboard.drivers import selftest

    from bao_host.boards.rpi import RpiHardware

    mapping = selftest.load_mapping(str(data / SELFTEST_FILE))
    if mapping is not None and say is not None and mapping != bytes(cfg.PIT_SENSOR_BIT):
        say(f"reading the sensors with the mapping the self-test recorded in {data / SELFTEST_FILE}")
    try:
        return RpiHardware(
            link,
            gpio=gpio,
            pit_sensor_bit=mapping,
            half_period_s=half_period_us / 1e6,
            brightness=cfg.LED_BRIGHTNESS_CAP if brightness is None else brightness,
        )
    except ImportError as e:
        raise BoardError(
            f"RPi.GPIO is not installed: pip install 'bao-board[rpi]' (the rpi-lgpio shim, which a Pi 5 needs) ({e})"
        ) from e
    except Exception as e:  # RPi.GPIO/lgpio off a Pi: RuntimeError, lgpio.error, OSError
        raise BoardError(f"cannot drive the GPIO pins: {e}") from e


def make_sim_hardware(link: Any) -> Any:
    """Simulated sensors and LEDs (baoboard.simhw) on a real clock, with the serial side on `link`."""
    from baoboard.simhw import SimHardware

    from bao_host.boards.rpi import LinkSerial

    class ClockedSimHardware(LinkSerial, SimHardware):
        def __init__(self) -> None:
            super().__init__()
            self.link = link
            self._t0 = time.monotonic()

        def close(self) -> None:
            self.close_link()

    return ClockedSimHardware()


class Runner:
    """`bao board`'s board: the board's run loop (baoboard.runtime.Supervisor, the one firmware/main.py runs on
    the Pico) on a Hardware, its flash the folder `data`. A fault is reported on the serial link (N0 ERROR),
    said, and the application starts again from the journal, so the game comes back at its last completed
    move. The pause between two scans is a wait that `stop` cuts short."""

    def __init__(
        self, hw: Any, data: Path, board_id: str, scan_ms: float = SCAN_MS, say: Callable[[str], None] | None = None
    ) -> None:
        from baoboard.runtime import Supervisor
        from baoboard.storage import FileStorage

        self.hw = hw
        self.scan_ms = scan_ms
        self.say = say or (lambda m: None)
        self.errors: list[str] = []
        self.runtime = Supervisor(hw, FileStorage(str(data)), board_id, on_error=self._fault)

    @property
    def app(self) -> Any:
        """The running application (None before the first scan and for a moment after a fault)."""
        return self.runtime.app

    @property
    def steps(self) -> int:
        """Healthy scans so far."""
        return self.runtime.steps

    def _fault(self, e: Exception) -> None:
        text = repr(e).replace("\n", " ")
        self.errors.append(text)
        self.say(f"the board application stopped ({text}); starting it again")

    def run(self, stop: threading.Event, until: float | None = None) -> None:
        """Scan until stop is set (or time.monotonic() passes until)."""

        def pause(ms: float) -> bool:
            if ms > 0:
                stop.wait(ms / 1000)
            else:
                time.sleep(0)  # let other threads (a logger, a host in a test) have the interpreter
            return not stop.is_set() and (until is None or time.monotonic() < until)  # False: the loop ends

        if not stop.is_set():
            self.runtime.run(pause, self.scan_ms)


class Prompting:
    """The hardware seen by the self-test, telling the person at the board what to do."""

    def __init__(self, hw: Any, out: Any) -> None:
        self.hw = hw
        self.out = out
        self.lit = -1

    def read_raw(self) -> bytearray:
        raw: bytearray = self.hw.read_raw()
        return raw

    def feed_watchdog(self) -> None:
        self.hw.feed_watchdog()

    def show(self, frame: bytearray) -> None:
        self.hw.show(frame)
        lit = [i for i in range(32) if frame[3 * i] or frame[3 * i + 1] or frame[3 * i + 2]]
        if len(lit) == 1 and frame[3 * lit[0] : 3 * lit[0] + 3] == b"\x00\xff\x00" and lit[0] != self.lit:
            self.lit = lit[0]
            print(f"touch {core.pit_name(lit[0])}", file=self.out, flush=True)


def rpi_selftest(hw: Any, path: Path, walk_ms: int, pit_timeout: float, out: Any) -> dict[str, Any]:
    """`bao selftest` on a Pi's pins (baoboard.drivers.selftest, as the board runs it), telling the person
    at the board on `out` what to do: the LED walk, then each pit touched when lit; the result is stored in
    `path` and its verdict shown on the LEDs (all green, or the failed pits red)."""
    from baoboard.drivers import selftest

    seen = Prompting(hw, out)
    print(
        "LED walk: each pit lights blue in turn (A1..A8, B8..B1, a1..a8, b8..b1); a light out of place is "
        "an LED wired out of order",
        file=out,
        flush=True,
    )
    selftest.walk(seen, ms=walk_ms)
    print(
        f"touch each pit when it lights green; let go when it flashes white ({pit_timeout:g} s per "
        "pit, then it is skipped)",
        file=out,
        flush=True,
    )
    result: dict[str, Any] = selftest.touch_test(seen, timeout_ms=int(pit_timeout * 1000))
    selftest.save(result, str(path))
    frame = bytearray(96)
    for i in range(32):  # the verdict, as selftest.run shows it: all green, or the failed pits in red
        bad = selftest.name(i) in result["mismatches"] or selftest.name(i) in result["missing"]
        frame[3 * i + (0 if bad else 1)] = 255
    hw.show(frame)
    return result
