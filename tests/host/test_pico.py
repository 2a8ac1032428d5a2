"""The firmware where it really runs: the Bao-board image of `make image` (MicroPython for the Pico with the
firmware frozen in) on the emulated Pico (rp2040js, tools/pico/), with the board's chips on the pins of
hardware/board.json: the hands touch pits through the 74HC165 chain, the LED frames are decoded from the
SK9822 chain's clock and data lines, the serial side is the USB CDC device.

The smoke test runs in `make test`; the tests marked `pico` (a whole game, power cuts, the self-test) in
`make test-pico`. Without node, rp2040js (make pico-deps) or the MicroPython image, they are skipped with
the reason."""

from __future__ import annotations

import json
import random
import signal
from pathlib import Path

import pytest
from bao import core, notation, position_json
from bao_host.boards.pico import STOCK, PicoBoard, PicoUnavailable, check_available
from bao_host.boards.sim import PtyLink, SimRunner
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.state import DECISION
from bao_host.record.store import Store
from bao_testkit.faults import SetupWatch, place_pit
from bao_testkit.picorig import NEEDS_PICO
from bao_testkit.simrig import check_store, game_1994, wait_for
from baoboard.recogniser import activations
from baoproto.frames import encode

pytestmark = NEEDS_PICO

HOLD = 10  # scans of 5 ms a touch lasts (and the pause after it): 50 ms, a quick hand
THINK = 120  # scans a player waits after a move: the board is busy for up to ~0.5 s then (flash writes)


class Snap:
    """The host side of the board's serial line, driven in lockstep: commands and their replies."""

    def __init__(self, board: PicoBoard) -> None:
        self.board = board
        self.buf = b""
        self.replies: dict[int, str] = {}
        self.n = 100
        self.setup = SetupWatch()  # (the set-up step the board says, as a host's screen shows it)
        board.on_serial = self._feed

    def _feed(self, data: bytes) -> None:
        from baoproto.frames import decode

        self.setup.feed(data)
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            f = decode(line.rstrip(b"\r"))
            if not isinstance(f, int) and f[0] == "R":
                self.replies[f[1]] = f"{f[2]} {f[3]}".strip()

    def command(self, typ: str, payload: str = "", scans: int = 40) -> str:
        self.n += 1
        n = self.n
        self.board.write_serial(encode("C", n, typ, payload))
        for _ in range(scans):
            self.board.run(1, 5)
            if n in self.replies:
                return self.replies[n]
        raise AssertionError(f"no reply to {typ} within {scans} scans")


def set_up_again(board: PicoBoard, host: Snap) -> int:
    """After a power cut in a move: the hands do the set-up the board says (docs/leds.md), place by place,
    then stay away while a touch of the last place still counts for the set-up. Returns the touches."""
    touches = 0
    while (step := host.setup.step) is not None:
        assert touches < 40, f"the set-up after a power cut never ends: {step}"
        pit = place_pit(step)
        said = host.setup.said
        board.set_pit(pit, True)
        board.run(HOLD, 5)
        board.set_pit(pit, False)
        touches += 1
        for _ in range(400):  # (the board's next step, or its end, within 2 s)
            board.run(1, 5)
            if host.setup.said != said:
                break
        else:
            raise AssertionError(f"no set-up step after a touch of {step.at}")
    if touches:
        board.run(500, 5)
    return touches


def perform(board: PicoBoard, p: core.Position, move: int) -> None:
    for pit in activations(p, move):
        board.set_pit(pit, True)
        board.run(HOLD, 5)
        board.set_pit(pit, False)
        board.run(HOLD, 5)
    board.run(THINK, 5)


def test_boots_plays_through_the_pins_and_shows_the_guide_frame_on_the_leds(tmp_path: Path) -> None:
    # (the flash without its erase and program times: the first boot's erases would be most of this test's
    # run; the tests marked pico and the boot benchmark keep them)
    board = PicoBoard(str(tmp_path), flash_timing=False)
    host = Snap(board)
    try:
        assert board.hello_ms > 0 and board.events[1][0] == "GAME"  # main.py started the board application
        g = game_1994()
        for i, (p, m) in enumerate(g.moves[:3]):
            perform(board, p, m)
            moves = [v for v in board.events.values() if v[0] == "MOVE"]
            assert len(moves) == i + 1, moves
            assert moves[-1][1].split(" ", 1)[0] == notation.format_move(m, p.to_move)
        assert board.position.d == g.moves[3][0].d
        # the LEDs, decoded from the SK9822 chain's pins, show exactly the guide's frame
        snap = json.loads(host.command("SNAP").split(" ", 1)[1])
        assert snap["moves"] == 3
        assert bytes.fromhex(snap["leds"]) == board.frame
        lit = {i for i in range(32) if any(board.frame[3 * i : 3 * i + 3])}
        assert lit, "the guide lights the pits North may start from"
        assert set(board.brightness[i] for i in lit) == {5}  # hardware/board.json's brightness cap
        assert board.errors == []
    finally:
        board.close()


@pytest.mark.pico
def test_the_1994_game_through_the_pins_is_stored_by_the_logger(tmp_path: Path) -> None:
    (tmp_path / "flash").mkdir()
    link = PtyLink()
    board = PicoBoard(str(tmp_path / "flash"))
    runner = SimRunner(board, link, hold=HOLD, gap=HOLD, think=THINK).start()
    store = Store(tmp_path / "data")
    lg = Logger(store)
    s = LinkSession(link.path, lg)

    def poll() -> None:
        s.poll(0.002)

    try:
        wait_for(lambda: s.connected and lg.view.game_id is not None, 60, poll, "the handshake")
        g = game_1994()
        for p, m in g.moves:
            job = runner.perform(p, m)
            wait_for(job.done.is_set, 120, poll, "the hands")
        if runner.phase == DECISION:
            s.stop()
        wait_for(lambda: runner.idle and runner.wire.synced, 120, poll, "the logger's acks")
        counts = check_store(tmp_path / "data", [g])
        assert counts == {"games": 1, "moves": 52, "flagged": 0}
        assert board.position.d == g.final.d if g.final else False
        assert board.errors == []
    finally:
        s.close()
        runner.close()
        store.close()


@pytest.mark.pico
def test_ten_power_cuts_at_random_instants_lose_and_double_nothing(tmp_path: Path) -> None:
    """The power goes at random instants: in the middle of a move (the hands then make it again), or just
    after its last activation, while the board commits it to flash (the board then has it, or not)."""
    board = PicoBoard(str(tmp_path), seed=7)
    host = Snap(board)
    rng = random.Random(7)
    g = game_1994()
    plies = 30
    cut_at = sorted(rng.sample(range(2, plies), 10))
    set_ups = 0
    try:
        i = 0
        while i < plies:
            p, m = g.moves[i]
            acts = list(activations(p, m))
            cut = bool(cut_at) and cut_at[0] == i
            during_commit = cut and rng.random() < 0.5
            k = len(acts) if not cut or during_commit else rng.randrange(len(acts))
            for pit in acts[:k]:
                board.set_pit(pit, True)
                board.run(HOLD, 5)
                board.set_pit(pit, False)
                board.run(HOLD, 5)
            if not cut:
                board.run(THINK, 5)
                i += 1
                continue
            cut_at.pop(0)
            if during_commit:  # the board committed the move at its last activation: cut within ~0.5 s
                board.run(rng.randrange(0, 90), 5)
            board.power_cut()  # at a random instant of the next 5 ms
            board.run(THINK, 5)
            set_ups += set_up_again(board, host) > 0  # (a move cut half made: its places are checked first)
            moves = json.loads(host.command("SNAP").split(" ", 1)[1])["moves"]
            assert moves in (i, i + 1), (i, moves)
            i = moves  # the move is on flash, or the hands make it again from its start
        assert board.power_cuts == 10 and set_ups > 0
        snap = json.loads(host.command("SNAP").split(" ", 1)[1])
        assert snap["moves"] == plies
        assert position_json.from_dict(snap["position"]).d == g.moves[plies][0].d
        reported = [board.events[k][1].split(" ", 1)[0] for k in sorted(board.events) if board.events[k][0] == "MOVE"]
        want = [notation.format_move(m, p.to_move) for p, m in g.moves[:plies]]
        assert reported == want  # each move once, in order: nothing lost, nothing doubled
        assert board.errors == []
    finally:
        board.close()


def _flash_files(image: Path) -> list[str]:
    """The paths on an emulated Pico's file system (tools/pico/mkfs.py's geometry)."""
    from littlefs import LittleFS  # type: ignore[import-untyped]
    from littlefs.context import UserContext  # type: ignore[import-untyped]

    fs = LittleFS(
        context=UserContext(buffer=bytearray(image.read_bytes())),
        block_size=4096,
        block_count=352,
        read_size=32,
        prog_size=256,
        lookahead_size=32,
        name_max=255,
    )
    return sorted(root.rstrip("/") + "/" + name for root, dirs, files in fs.walk("/") for name in dirs + files)


@pytest.mark.pico
def test_the_image_over_a_half_played_game_keeps_it_and_retires_the_old_files(tmp_path: Path) -> None:
    """A maker moves a board from `make deploy`'s .mpy files on a stock MicroPython to the image in the middle
    of a game: the journal survives and the game goes on; the .mpy left on the flash (which would shadow the
    frozen modules on sys.path) are deleted, and nothing else is."""
    try:
        check_available(STOCK)
    except PicoUnavailable as e:
        pytest.skip(f"no stock MicroPython image: {e}")
    g = game_1994()
    board = PicoBoard(str(tmp_path), image=STOCK)
    try:
        for p, m in g.moves[:3]:
            perform(board, p, m)
        assert json.loads(Snap(board).command("SNAP").split(" ", 1)[1])["moves"] == 3
    finally:
        board.close()
    before = _flash_files(tmp_path / "pico-flash.img")
    assert "/baoboard/app.mpy" in before and "/main.py" in before

    board = PicoBoard(str(tmp_path))  # the same flash, the image flashed over it
    host = Snap(board)
    try:
        snap = json.loads(host.command("SNAP").split(" ", 1)[1])
        assert snap["moves"] == 3 and position_json.from_dict(snap["position"]).d == g.moves[3][0].d
        p, m = g.moves[3]
        perform(board, p, m)
        moves = [v[1].split(" ", 1)[0] for v in board.events.values() if v[0] == "MOVE"]
        assert moves[-1] == notation.format_move(m, p.to_move)
        assert json.loads(host.command("SNAP").split(" ", 1)[1])["moves"] == 4
        assert board.errors == []
    finally:
        board.close()
    after = _flash_files(tmp_path / "pico-flash.img")
    assert not [f for f in after if f.startswith(("/bao/", "/baoboard/")) or f in ("/bao", "/baoboard")]
    assert set(before) - set(after) == {f for f in before if f.startswith(("/bao", "/baoboard"))}


@pytest.mark.pico
def test_a_host_whose_terminal_is_closed_leaves_the_board_its_flash(tmp_path: Path) -> None:
    """`make run --runtime pico` in a terminal that is closed: the host and the emulated Pico get SIGHUP. A
    real board's flash keeps every write, so the emulated one must too: the next start has the moves."""
    g = game_1994()
    board = PicoBoard(str(tmp_path), flash_timing=False)
    try:
        for p, m in g.moves[:2]:
            perform(board, p, m)
        board.proc.send_signal(signal.SIGHUP)
        assert board.proc.wait(timeout=60) == 0
    finally:
        board.close()
    board = PicoBoard(str(tmp_path), flash_timing=False)
    try:
        snap = json.loads(Snap(board).command("SNAP").split(" ", 1)[1])
        assert snap["moves"] == 2 and position_json.from_dict(snap["position"]).d == g.moves[2][0].d
    finally:
        board.close()


def _selftest(board: PicoBoard, host: Snap, wait_ms: int) -> dict[str, object]:
    """Ask for the self-test and be the person doing it: touch the pit that lights green, let go when it
    flashes white, until the board reports the result."""
    assert host.command("SELFTEST", str(wait_ms)) == "OK"
    held = -1
    for _ in range(40000):
        board.run(2, 5)
        green = [i for i in range(32) if board.frame[3 * i : 3 * i + 3] == b"\x00\xff\x00"]
        white = [i for i in range(32) if board.frame[3 * i : 3 * i + 3] == b"\xff\xff\xff"]
        if held < 0 and len(green) == 1:
            held = green[0]
            board.set_pit(held, True)
        elif held >= 0 and (white or len(green) != 1 or green[0] != held):
            board.set_pit(held, False)
            held = -1
        results = [v for v in board.events.values() if v[0] == "SELFTEST"]
        if results:
            result: dict[str, object] = json.loads(results[0][1])
            return result
    raise AssertionError("no SELFTEST result")


@pytest.mark.pico  # (the self-test's logic runs in make test on every runtime: tests/firmware/test_drivers_selftest.py)
def test_a_board_wired_right_passes_its_self_test(tmp_path: Path) -> None:
    board = PicoBoard(str(tmp_path))
    try:
        result = _selftest(board, Snap(board), 2000)
        assert result["ok"] is True and result["mismatches"] == [] and result["missing"] == []
    finally:
        board.close()


@pytest.mark.pico
@pytest.mark.parametrize("fault", ["reverse-chain", "swap-latch-clock"])
def test_a_miswired_sensor_chain_is_caught_by_the_self_test(tmp_path: Path, fault: str) -> None:
    board = PicoBoard(str(tmp_path), faults=(fault,))
    try:
        result = _selftest(board, Snap(board), 300)
        assert result["ok"] is False
        if fault == "reverse-chain":  # every touch answers, on another chip's bit
            assert result["missing"] == [] and len(result["mismatches"]) == 32  # type: ignore[arg-type]
        else:  # the chips load while they should shift: no touch reads as one sensor
            assert len(result["missing"]) == 32  # type: ignore[arg-type]
    finally:
        board.close()
