"""The first boot's long step (issue #26, item 8): on a new flash the board carves the journal's sectors out
of LittleFS (baoboard.flashres: 32 files written, 32 sectors erased; seconds on a Pico) before its
application exists, so no scan reads a touch meanwhile. The board must be honest about it: it shows it is
not ready (the pits fill one by one in dim white, docs/leds.md "Waiting"), a touch made then starts no move,
and once ready it tells the host that touches were not seen. On the CPython board, with a flash model whose
erases take the board's time, and LittleFS modelled by a folder whose one-block files are the device's blocks."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from baoboard.flashres import boot_storage
from baoboard.runtime import Supervisor
from baoboard.simhw import SimHardware
from baoproto.frames import decode

SECTOR = 4096
ERASE_MS = 45  # the model's erase (a W25Q16JV's sector erase is tens of ms)
FIRST_FILE_BLOCK = 40  # where the model's LittleFS put the reservation's first file


class SlowFlash:
    """rp2.Flash as flashres and flashlog use it: 256 blocks; the reservation's files in `root`/jflash are
    blocks FIRST_FILE_BLOCK on (what LittleFS does with one-block files); an erase takes ERASE_MS of the
    board's clock, and `during_erase(n)` runs before the n-th (a hand on the board meanwhile)."""

    def __init__(self, root: Path, hw: SimHardware) -> None:
        self.root = root
        self.hw = hw
        self.mem: dict[int, bytearray] = {}
        self.erases = 0
        self.during_erase = lambda n: None

    def _file(self, b: int) -> Path | None:
        f = self.root / "jflash" / f"s{b - FIRST_FILE_BLOCK:02d}"
        return f if b >= FIRST_FILE_BLOCK and f.is_file() else None

    def _block(self, b: int) -> bytearray:
        if b not in self.mem:
            f = self._file(b)
            self.mem[b] = bytearray(f.read_bytes() if f else b"\xff" * SECTOR)
        return self.mem[b]

    def _written(self, b: int) -> None:
        f = self._file(b)  # (a file's data is its block: read through the file system, it is what was written)
        if f:
            f.write_bytes(self.mem[b])

    def readblocks(self, b: int, buf: bytearray | memoryview, off: int = 0) -> None:
        buf[:] = self._block(b)[off : off + len(buf)]

    def writeblocks(self, b: int, buf: bytes | bytearray | memoryview, off: int = 0) -> None:
        m = self._block(b)
        for i, v in enumerate(bytes(buf)):
            m[off + i] &= v  # NOR: a program only clears bits
        self._written(b)

    def ioctl(self, op: int, arg: int) -> int:
        if op == 4:
            return 256
        if op == 6:
            self.erases += 1
            self.during_erase(self.erases)
            self.mem[arg] = bytearray(b"\xff" * SECTOR)
            self._written(arg)
            self.hw.t += ERASE_MS
        return 0


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SimHardware, SlowFlash]:
    hw = SimHardware()
    flash = SlowFlash(tmp_path, hw)
    rp2 = types.ModuleType("rp2")
    rp2.Flash = lambda: flash  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rp2", rp2)
    frames: list[bytes] = []
    shown = hw.show
    hw.show = lambda f: (frames.append(bytes(f)), shown(f))[1]  # type: ignore[method-assign]
    hw.frames = frames  # type: ignore[attr-defined]
    return hw, flash


def _lit(frame: bytes) -> int:
    return sum(1 for i in range(32) if frame[3 * i : 3 * i + 3] != b"\0\0\0")


def test_the_first_boot_shows_it_is_not_ready_and_says_touches_were_not_seen(
    board: tuple[SimHardware, SlowFlash], tmp_path: Path
) -> None:
    hw, flash = board

    def hand(n: int) -> None:  # a player touches A5 (pit 4) through the 10th to the 13th erase
        if n in (10, 14):
            hw.set_pit(4, n == 10)

    flash.during_erase = hand
    t0 = hw.t
    storage, notice = boot_storage(hw, str(tmp_path))
    frames = hw.frames  # type: ignore[attr-defined]
    assert type(storage).__name__ == "FlashLog" and flash.erases == 32 and hw.t - t0 >= 32 * ERASE_MS
    # what the player saw meanwhile: the pits filling one by one in dim white, never a game's colours
    assert len(frames) == 65 and [_lit(f) for f in frames] == [i // 2 for i in range(64)] + [32]
    assert all(set(f) <= {0, 0x20} for f in frames)
    assert notice == ("IGNORED", "reason=preparing steps=4")
    out = bytearray()
    hw.on_write = out.extend
    sup = Supervisor(hw, storage, "b1")
    sup.notice = notice
    sup.run(hw.sleep_ms, 5, 100)
    said = [decode(line) for line in bytes(out).split(b"\n") if line]
    heads = [f[:3] for f in said if not isinstance(f, int)]  # once ready: HELLO, the new game, the notice
    assert heads[:3] == [("H", 0, "HELLO"), ("E", 1, "GAME"), ("N", 0, "IGNORED")] and len(heads) == 3
    assert sup.app is not None and sup.app.journal.last == 1  # the new game's GAME event, and no move


def test_a_hand_still_on_a_pit_when_the_board_is_ready_starts_no_move(
    board: tuple[SimHardware, SlowFlash], tmp_path: Path
) -> None:
    hw, flash = board
    flash.during_erase = lambda n: hw.set_pit(21, True) if n == 30 else None  # a5 touched late, held on
    storage, notice = boot_storage(hw, str(tmp_path))
    assert notice == ("IGNORED", "reason=preparing steps=3")
    sup = Supervisor(hw, storage, "b1")
    sup.notice = notice
    sup.run(hw.sleep_ms, 5, 100)
    app = sup.app
    assert app is not None and app.rec.phase == 0 and app.journal.last == 1  # no move, nothing refused
    hw.set_pit(21, False)
    sup.run(hw.sleep_ms, 5, 100)
    assert app.rec.phase == 0 and app.journal.last == 1


def test_a_board_whose_sectors_are_ready_boots_with_no_wait(
    board: tuple[SimHardware, SlowFlash], tmp_path: Path
) -> None:
    hw, flash = board
    boot_storage(hw, str(tmp_path))
    hw.frames.clear()  # type: ignore[attr-defined]
    storage, notice = boot_storage(hw, str(tmp_path))  # the next boot: the map is found, nothing is made
    assert type(storage).__name__ == "FlashLog" and notice is None and hw.frames == []  # type: ignore[attr-defined]
