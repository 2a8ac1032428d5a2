"""`bao board --hal rpi` and `bao selftest --hal rpi` against the fake RPi.GPIO (tests/host/fake_gpio.py),
which drives the chip models of the 74HC165 sensor chain and the SK9822 LED chain wired to the Pi's pins as
hardware/board.json says. The commands run exactly as parsed from their command lines; only the gpio module
is handed in. A simulated hand (bao_host.boards.sim.Hands: a move as pit activations) sets the TTP223 outputs on
the chips' inputs, in step with the board's scans (it counts the chain's /PL loads, as a hand would watch a
clock); a host on the board's socket reads the moves it reports."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from bao import core, notation, position_json
from bao_host import cli
from bao_host.boards.sim import Board, Hands
from bao_host.cli import board as board_commands
from bao_host.record.link import Link
from bao_host.record.store import Store
from baoboard import recogniser as R
from baoboard.drivers import board_config as cfg
from baoproto.frames import encode
from fake_gpio import FakeGPIO
from fakes_board import FakeBoard

pytestmark = pytest.mark.timeout(600)  # (a hang, not a slow machine: the game's time grows with the load)

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
NAMES = [cfg.PIT_NAMES[2 * i : 2 * i + 2] for i in range(32)]
# How long a reply, an event or an LED frame may take before a test fails: a bound that the tests stop
# waiting at as soon as the thing comes, generous because a loaded machine can starve the board's thread.
PATIENCE = 60.0


class ScanGPIO(FakeGPIO):
    """The fake RPi.GPIO, counting the sensor chain's loads (/PL low): one per scan of the board."""

    def __init__(self, board: FakeBoard) -> None:
        super().__init__(board)
        self.scans = 0
        self.cond = threading.Condition()

    def output(self, ch: int, value: int) -> None:
        super().output(ch, value)
        if ch == cfg.RPI_SENS_PL and value == self.LOW:
            with self.cond:
                self.scans += 1
                self.cond.notify_all()

    def wait_scans(self, n: int, timeout: float = PATIENCE) -> None:
        with self.cond:
            target = self.scans + n
            if not self.cond.wait_for(lambda: self.scans >= target, timeout):
                raise AssertionError(f"the board stopped scanning ({self.scans} scans)")


class WiredBoard(Board):
    """What sim.Hands drives, on the real chips: set_pit is a finger on a pit's touch module, run(n) lets
    the board scan n times."""

    def __init__(self, fake: FakeBoard, gpio: ScanGPIO) -> None:
        super().__init__()
        self.fake = fake
        self.gpio = gpio
        self.held: set[int] = set()

    def set_pit(self, pit: int, on: bool) -> None:
        if on:
            self.held.add(pit)
        else:
            self.held.discard(pit)
        self.fake.touch([NAMES[i] for i in self.held])

    def run(self, steps: int, ms: int) -> None:
        self.gpio.wait_scans(steps)


def rig(**kw: Any) -> tuple[FakeBoard, ScanGPIO]:
    fake = FakeBoard("sk9822", controller="rpi", **kw)
    return fake, ScanGPIO(fake)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(argv: list[str], gpio: ScanGPIO) -> tuple[threading.Thread, threading.Event, list[int], io.StringIO]:
    """`bao <argv>` in a thread, as the command line parses it, on the fake GPIO."""
    args = cli.build_parser().parse_args(argv)
    assert args.func is board_commands.run
    stop = threading.Event()
    status: list[int] = []
    err = io.StringIO()
    out = io.StringIO()

    def main() -> None:
        with redirect_stderr(err), redirect_stdout(out):
            status.append(board_commands.run(args, gpio=gpio, stop=stop))

    t = threading.Thread(target=main, daemon=True)
    t.start()
    gpio.wait_scans(3)  # it runs
    return t, stop, status, out


def connect(url: str) -> Link:
    link = Link(url, reply_timeout=PATIENCE)
    end = time.monotonic() + PATIENCE
    while True:
        try:
            link.connect()
            return link
        except Exception:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def shown(fake: FakeBoard) -> bytes:
    """What the LED chain shows, as the guide's R,G,B frame (the brightness cap checked on every lit LED)."""
    out = bytearray()
    for i in range(32):
        c = fake.pit_colour(i)
        assert c is not None
        if c[1] or c[2] or c[3]:
            assert c[0] == cfg.LED_BRIGHTNESS_CAP
        out += bytes(c[1:])
    return bytes(out)


def leds_agree(link: Link, fake: FakeBoard) -> dict[str, Any]:
    """The LED chain shows the guide's frame (SNAP's "leds"); a frame may be on its way: look again."""
    snap: dict[str, Any] = {}
    end = time.monotonic() + PATIENCE
    while time.monotonic() < end:
        snap = link.snapshot()
        if bytes.fromhex(snap["leds"]) == shown(fake):
            return snap
        time.sleep(0.02)
    raise AssertionError(f"LED chain {shown(fake).hex()} != guide {snap.get('leds')}")


def colour(rgb: int, brightness: int = 64) -> tuple[int, int, int]:
    """A colour of the LED grammar (baoboard.guide) at the guide's brightness, as the frame holds it."""
    return tuple(((rgb >> s) & 255) * brightness >> 8 for s in (16, 8, 0))  # type: ignore[return-value]


def want_moves() -> tuple[list[str], list[core.Position], list[int]]:
    ps = notation.replay(T1994)
    moves = [notation.parse_move(ps[i], x)[0] for i, x in enumerate(T1994.plies)]
    return [notation.format_move(m, ps[i].to_move) for i, m in enumerate(moves)], ps, moves


def play(
    link: Link,
    hands: Hands,
    ps: list[core.Position],
    moves: list[int],
    got: list[str],
    check: Callable[[int], None] | None = None,
) -> None:
    """The hands perform every move; the host takes the MOVE events as they come (acknowledging them)."""

    def take(timeout: float = 0.0) -> None:
        for ev in link.poll(timeout):
            if ev.type == "MOVE":
                got.append(ev.payload.split(" ", 1)[0])
            link.ack(ev.seq)

    for i, m in enumerate(moves):
        hands.perform(ps[i], m)
        take()
        if check is not None:
            check(i)
    end = time.monotonic() + PATIENCE
    while len(got) < len(moves) and time.monotonic() < end:
        take(0.1)
        if len(got) == len(moves) - 1 and link.snapshot()["phase"] == "decision":
            link.command("STOP").check()  # the last move ends at the house: the host says stop
    if len(got) < len(moves):
        print("snapshot at the end:", link.snapshot())


def test_bao_board_rpi_plays_the_1994_game(tmp_path: Path) -> None:
    fake, gpio = rig()
    port = free_port()
    t, stop, status, _ = start(
        [
            "board",
            "--hal",
            "rpi",
            "--port",
            f"socket://127.0.0.1:{port}",
            "--data",
            str(tmp_path / "flash"),
            "--scan-ms",
            "0",
            "--board-id",
            "rpi-test",
        ],
        gpio,
    )
    link = connect(f"socket://127.0.0.1:{port}")
    assert link.info is not None and link.info.board == "rpi-test"
    want, ps, moves = want_moves()
    board = WiredBoard(fake, gpio)
    hands = Hands(board, hold=5, gap=5)
    checked: list[str] = []
    mid = {"armed": False}

    def between() -> None:  # after one activation: halfway through a move, the LEDs guide the next drop
        if mid["armed"]:
            mid["armed"] = False
            snap = leds_agree(link, fake)
            assert snap["phase"] == "moving" and snap["next"], snap
            lit = {i for i in range(32) if any(shown(fake)[3 * i : 3 * i + 3])}
            assert {NAMES.index(n) for n in snap["next"]} <= lit
            checked.append("moving")

    hands.between = between

    def check(i: int) -> None:
        if i == 0:  # North to move: the chain shows the guide's frame, green exactly on North's start pits
            deadline = time.monotonic() + PATIENCE
            while not got and time.monotonic() < deadline:
                for ev in link.poll(0.1):
                    if ev.type == "MOVE":
                        got.append(ev.payload.split(" ", 1)[0])
                    link.ack(ev.seq)
            snap = leds_agree(link, fake)
            assert snap["phase"] == "idle" and snap["moves"] == 1
            shadow = R.Recogniser()
            shadow.start(ps[1], core.legal_moves(ps[1]))
            starts = {shadow.first_pit(code) for code in shadow.codes}
            frame = shown(fake)
            green = {p for p in range(32) if tuple(frame[3 * p : 3 * p + 3]) == colour(0x00A000)}
            assert green == starts and all(p >> 4 == core.NORTH for p in starts)
            checked.append("idle")
            mid["armed"] = True  # and once more after the first activation of North's move

    got: list[str] = []
    try:
        play(link, hands, ps, moves, got, check)
        assert got == want
        snap = link.snapshot()
        assert snap["moves"] == len(want) and snap["position"] == position_json.to_dict(ps[-1])
        assert checked == ["idle", "moving"]
    finally:
        link.close()
        stop.set()
        t.join(20)
    assert status == [0]
    assert fake.leds.bad_frames() == 0 and fake.leds.hazards == 0
    assert fake.lit_pits() == []  # lights off when the board stops
    assert set(gpio.cleaned) == {cfg.RPI_SENS_PL, cfg.RPI_SENS_CLK, cfg.RPI_SENS_QH, cfg.RPI_LED_CLK, cfg.RPI_LED_DAT}


def test_bao_board_rpi_with_the_logger_in_process(tmp_path: Path) -> None:
    """--log: the logger of `bao log` in the same process stores the game as the board reports it."""
    fake, gpio = rig()
    store = tmp_path / "store"
    t, stop, status, out = start(
        [
            "board",
            "--hal",
            "rpi",
            "--log",
            "--store",
            str(store),
            "--data",
            str(tmp_path / "flash"),
            "--scan-ms",
            "0",
            "--board-id",
            "rpi-log",
            "--south",
            "Ramadhan",
            "--north",
            "Kijumbe",
            "--quiet",
        ],
        gpio,
    )
    want, ps, moves = want_moves()
    n = 6
    hands = Hands(WiredBoard(fake, gpio), hold=5, gap=5)
    for i in range(n):
        hands.perform(ps[i], moves[i])
    end = time.monotonic() + PATIENCE
    while out.getvalue().split() != want[:n] and time.monotonic() < end:
        time.sleep(0.05)
    stop.set()
    t.join(20)
    assert status == [0]
    assert out.getvalue().split() == want[:n]  # each stored move, printed
    with Store(store) as st:
        [g] = st.games()
    assert (g.board_id, g.south, g.north, g.plies) == ("rpi-log", "Ramadhan", "Kijumbe", T1994.plies[:n])


def test_bao_board_comes_back_at_the_last_move(tmp_path: Path) -> None:
    """The journal is a FileStorage in --data: a second run of the board resumes the game."""
    want, ps, moves = want_moves()
    flash = tmp_path / "flash"
    for k in (0, 1):
        fake, gpio = rig()
        port = free_port()
        t, stop, status, _ = start(
            ["board", "--hal", "rpi", "--port", f"socket://127.0.0.1:{port}", "--data", str(flash), "--scan-ms", "0"],
            gpio,
        )
        link = connect(f"socket://127.0.0.1:{port}")
        try:
            if k == 0:
                hands = Hands(WiredBoard(fake, gpio), hold=5, gap=5)
                for i in range(3):
                    hands.perform(ps[i], moves[i])
                gpio.wait_scans(10)
            snap = link.snapshot()
            assert snap["moves"] == 3
        finally:
            link.close()
            stop.set()
            t.join(20)
        assert status == [0]
    assert (flash / "journal").exists()


def test_bao_board_without_rpi_gpio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import RPi.GPIO  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("RPi.GPIO is installed here")
    assert cli.main(["board", "--hal", "rpi", "--port", "none", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'bao-board[rpi]'" in err[0]


def test_bao_board_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, gpio = rig()
    args = cli.build_parser().parse_args(
        ["board", "--hal", "rpi", "--port", "/dev/no-such-tty", "--data", str(tmp_path)]
    )
    assert board_commands.run(args, gpio=gpio) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bao board: cannot open /dev/no-such-tty")


def test_bao_board_sim_with_a_socket(tmp_path: Path) -> None:
    """--hal sim: the same runner on simulated sensors; a host connects over the served socket."""
    port = free_port()
    args = cli.build_parser().parse_args(
        ["board", "--hal", "sim", "--port", f"socket://127.0.0.1:{port}", "--data", str(tmp_path), "--duration", "30"]
    )
    stop = threading.Event()
    status: list[int] = []
    err = io.StringIO()

    def main() -> None:
        with redirect_stderr(err):
            status.append(board_commands.run(args, stop=stop))

    t = threading.Thread(target=main, daemon=True)
    t.start()
    link = connect(f"socket://127.0.0.1:{port}")
    try:
        assert link.info is not None and link.info.board == "sim-board"
        assert link.snapshot()["phase"] == "idle"
    finally:
        link.close()
        stop.set()
        t.join(10)
    assert status == [0]
    assert f"board serial: socket://127.0.0.1:{port}" in err.getvalue()


# ---------------------------------------------------------------------------------------------- selftest


class Finger(threading.Thread):
    """A person doing the self-test: touches the pit that lights green (through `wiring`: the pit a finger
    really reaches may be another), lets go when it flashes white."""

    def __init__(self, fake: FakeBoard, skip: frozenset[str] = frozenset()) -> None:
        super().__init__(daemon=True)
        self.fake = fake
        self.skip = skip
        self.done = threading.Event()
        self.touched: list[str] = []
        self.blue: list[int] = []  # the LED walk, as far as the finger's eye catches it

    def run(self) -> None:
        green, white = (0, 255, 0), (255, 255, 255)
        holding = ""
        while not self.done.is_set():
            lit = [(p, self.fake.pit_colour(p)) for p in range(32)]
            on = [(p, c[1:]) for p, c in lit if c is not None and c[0] and any(c[1:])]
            if len(on) == 1:
                p, c = on[0]
                if c == (0, 0, 255) and (not self.blue or self.blue[-1] != p):
                    self.blue.append(p)
                if c == green and not holding and NAMES[p] not in self.skip and NAMES[p] not in self.touched:
                    holding = NAMES[p]
                    self.touched.append(holding)
                    self.fake.touch([holding])
                elif c == white and holding:
                    holding = ""
                    self.fake.touch([])
            time.sleep(0.001)


def selftest_args(data: Path, *extra: str) -> Any:
    args = cli.build_parser().parse_args(
        ["selftest", "--hal", "rpi", "--data", str(data), "--walk-ms", "20", "--verdict-s", "0", *extra]
    )
    assert args.func is board_commands.run_selftest
    return args


def run_selftest(
    fake: FakeBoard, data: Path, skip: frozenset[str] = frozenset(), *extra: str
) -> tuple[int, str, str, Finger]:
    finger = Finger(fake, skip)
    finger.start()
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = board_commands.run_selftest(selftest_args(data, *extra), gpio=FakeGPIO(fake))
    finally:
        finger.done.set()
        finger.join(5)
    return status, out.getvalue(), err.getvalue(), finger


def test_bao_selftest_rpi_records_the_mapping(tmp_path: Path) -> None:
    fake = FakeBoard("sk9822", controller="rpi")
    status, out, err, finger = run_selftest(fake, tmp_path)
    assert status == 0, out + err
    assert finger.touched == NAMES  # each pit lit in turn, in pit-index order
    assert [line for line in err.splitlines() if len(line) == 8 and line.startswith("touch ")] == [
        f"touch {n}" for n in NAMES
    ]
    assert finger.blue == sorted(set(finger.blue)) and finger.blue  # the walk goes round in index order
    result = json.loads((tmp_path / "selftest.json").read_text())
    assert result["ok"] and result["pit_sensor_bit"] == list(cfg.PIT_SENSOR_BIT)
    assert "all 32 pits answer" in out
    assert fake.lit_pits() == [] and fake.leds.bad_frames() == 0  # the verdict shown, then lights off


def test_bao_selftest_on_a_miswired_board(tmp_path: Path) -> None:
    """A1 and A2 soldered to each other's input: recorded, and `bao board` then reads them right."""
    from fakes_chips import load_board

    chips = list(load_board()["chips"])
    chips[1] = "A2A1" + chips[1][4:]
    fake = FakeBoard("sk9822", controller="rpi", chips=chips)
    status, out, _, _ = run_selftest(fake, tmp_path)
    assert status == 0
    assert "2 pit(s) answer at another sensor bit" in out and "A1, A2" in out
    msgs: list[str] = []
    hw = board_commands.make_rpi_hardware(None, tmp_path, FakeGPIO(fake), say=msgs.append)
    assert msgs and "self-test" in msgs[0]
    bm = bytearray(4)
    for name in ("A1", "A2", "b5"):
        fake.touch([name])
        hw.read_pits(bm)
        i = NAMES.index(name)
        assert bm == bytes(4 if j != i >> 3 else 0 for j in range(4)) or bm[i >> 3] == 1 << (i & 7)
        assert sum(bin(b).count("1") for b in bm) == 1


def test_bao_selftest_a_pit_that_never_answers(tmp_path: Path) -> None:
    fake = FakeBoard("sk9822", controller="rpi")
    status, out, _, finger = run_selftest(fake, tmp_path, frozenset({"b3"}), "--pit-timeout", "1")
    assert status == 1
    assert "1 pit(s) never answered: b3" in out
    assert "b3" not in finger.touched and len(finger.touched) == 31
    from baoboard.drivers import selftest

    assert selftest.load_mapping(str(tmp_path / "selftest.json")) is None  # bao board keeps board.json's


def test_bao_selftest_over_the_serial_link(tmp_path: Path) -> None:
    """The host side of SELFTEST (the command the board application is to get): R OK, then the result as a
    SELFTEST event, which the command prints and does not acknowledge (it is the logger's to store)."""
    from baoproto.frames import decode

    result = {
        "version": 1,
        "pit_sensor_bit": list(cfg.PIT_SENSOR_BIT),
        "expected": list(cfg.PIT_SENSOR_BIT),
        "mismatches": [],
        "missing": [],
        "duplicates": [],
        "ok": True,
    }
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    seen: list[tuple[str, int, str]] = []

    def board() -> None:
        conn, _ = srv.accept()
        conn.settimeout(10)
        buf = b""
        hello = "proto=1 fw=test rules=1 board=pico-1 epoch=0000abcd last=4 acked=4"
        try:
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buf += data
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    f = decode(line)
                    assert not isinstance(f, int)
                    kind, num, typ, _ = f
                    seen.append((kind, num, typ))
                    if typ == "HELLO":
                        conn.sendall(encode("R", num, "OK", hello))
                    elif typ == "SELFTEST":
                        conn.sendall(encode("R", num, "OK"))
                        conn.sendall(encode("E", 5, "SELFTEST", json.dumps(result)))
        except OSError:
            return

    t = threading.Thread(target=board, daemon=True)
    t.start()
    url = f"socket://127.0.0.1:{srv.getsockname()[1]}"
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        status = cli.main(["selftest", "--port", url, "--wait", "10"])
    srv.close()
    t.join(5)
    assert status == 0
    assert "all 32 pits answer" in out.getvalue()
    assert [typ for kind, _, typ in seen if kind == "C"] == ["HELLO", "SELFTEST"]
    assert not [x for x in seen if x[0] == "A"]  # the event stays with the board for the logger


def test_bao_selftest_port_of_a_board_without_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A board whose hardware cannot run the self-test (the simulated one) answers ERR: one line, status 2."""
    port = free_port()
    args = cli.build_parser().parse_args(
        ["board", "--hal", "sim", "--port", f"socket://127.0.0.1:{port}", "--data", str(tmp_path), "--duration", "30"]
    )
    stop = threading.Event()
    t = threading.Thread(target=lambda: board_commands.run(args, stop=stop), daemon=True)
    t.start()
    try:
        connect(f"socket://127.0.0.1:{port}").close()  # it is up
        status = cli.main(["selftest", "--port", f"socket://127.0.0.1:{port}", "--wait", "2"])
    finally:
        stop.set()
        t.join(10)
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bao selftest")]
    assert status == 2 and len(err) == 1, err


def _selftest_event(link: Link, timeout: float) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for ev in link.poll(0.1):
            link.ack(ev.seq)
            if ev.type == "SELFTEST":
                return dict(json.loads(ev.payload))
    raise AssertionError("no SELFTEST event")


@contextmanager
def _rpi_board_with_finger(data: Path) -> Iterator[tuple[FakeBoard, Link, Finger]]:
    """`bao board --hal rpi` on the fake GPIO, a host linked to it and a finger for the self-test; all
    stopped afterwards, and the board must have ended well."""
    fake, gpio = rig()
    port = free_port()
    t, stop, status, _ = start(
        ["board", "--hal", "rpi", "--port", f"socket://127.0.0.1:{port}", "--data", str(data), "--scan-ms", "1"], gpio
    )
    link = connect(f"socket://127.0.0.1:{port}")
    finger = Finger(fake)
    try:
        yield fake, link, finger
    finally:
        finger.done.set()
        link.close()
        stop.set()
        t.join(20)
    assert status == [0]


def test_board_app_runs_the_selftest_on_command(tmp_path: Path) -> None:
    """SELFTEST to the board application on the Pi hardware: OK, the LED walk and the touch test, the result
    as a SELFTEST event and in the data folder; then the game goes on where it was."""
    data = tmp_path / "flash"
    with _rpi_board_with_finger(data) as (_, link, finger):
        finger.start()
        reply = link.command("SELFTEST")
        assert reply.ok, reply.payload
        result = _selftest_event(link, 90)
        assert result["ok"] and result["missing"] == []
        assert finger.touched == NAMES
        assert json.loads((data / "selftest.json").read_text())["ok"]
        finger.done.set()
        snap = link.snapshot()
        assert snap["phase"] == "idle" and snap["moves"] == 0


def test_board_app_selftest_by_holding_the_four_corners(tmp_path: Path) -> None:
    """No PC needed: the four corner pits (B1, B8, b1, b8) held for 2 s start the self-test."""
    with _rpi_board_with_finger(tmp_path) as (fake, link, finger):
        fake.touch(["B1", "B8", "b1", "b8"])
        end = time.monotonic() + PATIENCE
        while not any(fake.pit_colour(p) and fake.pit_colour(p)[1:] == (0, 0, 255) for p in range(32)):
            assert time.monotonic() < end, "the LED walk did not start"
            time.sleep(0.01)
        fake.touch([])  # the walk is on: hands off, then touch each lit pit
        finger.start()
        assert _selftest_event(link, 90)["ok"]


def test_runner_reports_a_fault_and_starts_again(tmp_path: Path) -> None:
    """The board's run loop, as on the Pico: whatever escapes the application is reported (N0 ERROR) and said,
    and the application starts again from its journal 200 ms later (here on a simulated clock)."""
    from baoboard.simhw import SimHardware

    class Flaky(SimHardware):  # type: ignore[misc]
        fail = 1

        def read_pits(self, bitmap: bytearray) -> None:
            if self.fail and self.t > 20:
                self.fail -= 1
                raise OSError("sensor chain gone")
            super().read_pits(bitmap)

    hw = Flaky()
    said: list[str] = []
    runner = board_commands.Runner(hw, tmp_path, "rpi-x", scan_ms=5, say=said.append)
    runner.runtime.run(hw.sleep_ms, 5, 20)
    assert runner.errors == ["OSError('sensor chain gone')"] and said
    assert b"N0 ERROR OSError('sensor chain gone')" in bytes(hw.tx)
    assert runner.app is None and runner.steps == 5  # (t = 0, 5, .. 20; the scan at 25 failed)
    runner.runtime.run(hw.sleep_ms, 5, 25)  # t = 100 .. 220: waiting
    assert runner.app is None and runner.steps == 5
    runner.runtime.run(hw.sleep_ms, 5, 1)  # t = 225, 200 ms after the fault: started again
    assert runner.app is not None and runner.steps == 6
    assert bytes(hw.tx).count(b"H0 HELLO") == 2  # booted twice
