# The journal's flash sectors on a Pico, carved out of MicroPython's LittleFS storage without upsetting it
# (loaded at boot only, by firmware/main.py). MicroPython's frozen _boot.py mounts LittleFS on the whole
# storage (rp2.Flash()) and formats it when that fails, so the filesystem cannot be made smaller. Instead
# the journal's sectors are the data blocks of files of exactly one block (4096 bytes) in /jflash: LittleFS
# keeps a one-block file in a single block with nothing of its own in it (the pointers of its block lists
# start at a file's second block), and never reads, moves or rewrites a file's data unless the file is
# written. The board finds those blocks once (each file begins with a marker), writes their numbers to
# /jflash/map and from then on programs and erases them directly (baoboard.flashlog).
#   storage = journal_storage("/", sectors=32, wait=None)   FlashLog on the reserved sectors, or
#                 FileStorage(root) where there is no rp2.Flash (a Pi, the unix port) or the reservation does
#                 not check out; wait(done, total) is called between the reservation's slow steps
#   Preparing(hw): such a wait for the first boot: the board shows it is not ready (docs/leds.md, "Waiting")
#                 and notes hands on it meanwhile (`touched`: the steps during which a pit sensed one)
#   storage, notice = boot_storage(hw, "/")   the two at boot (firmware/main.py): notice, (type, payload) or
#                 None, is what the board says once it is ready (Supervisor.notice)
# At each boot the reservation is checked before any sector is touched: every file still there with 4096
# bytes and still in its block (its first bytes read through LittleFS are those of the block). If not (a
# file removed or written again over USB), the journal stays on LittleFS: the board never writes a block
# that LittleFS may have given to another file. The first boot after the reservation moves an existing LittleFS
# journal into it.
try:
    from typing import Any
except ImportError:
    pass

import os

from baoboard.compat import const

_DIR = "/jflash"
_BLOCK = const(4096)
_PITS = const(32)
_WAIT_LEVEL = const(0x20)  # the waiting pits' dim white


def _blocks_from_map(root: str) -> "tuple[bytes, list[int]] | None":
    try:
        with open(root + _DIR + "/map") as f:
            w = f.read().split()
        from binascii import unhexlify

        return (unhexlify(w[0]), [int(x) for x in w[1:]])
    except (OSError, ValueError, IndexError):
        return None


def _check(dev: "Any", root: str, blocks: "list[int]", sectors: int) -> bool:
    """Each file is still in its block: its first bytes read through LittleFS are the block's, read directly
    (a file written again over USB would be in another block, and its old one LittleFS's to give away)."""
    if len(blocks) != sectors or len(set(blocks)) != sectors:
        return False
    raw = bytearray(32)
    for i in range(sectors):
        path = "%s%s/s%02d" % (root, _DIR, i)
        try:
            if os.stat(path)[6] != _BLOCK:
                return False
            with open(path, "rb") as f:
                got = f.read(32)
        except OSError:
            return False
        dev.readblocks(blocks[i], raw, 0)
        if got != raw:
            return False
    return True


class Preparing:
    """The first boot's reservation (a file written, a sector erased: seconds in all on a Pico) runs before
    the board's application exists: no scan reads a touch, so none would be seen (issue #26). The board
    says so instead: the pits light one by one in dim white as the work goes on (docs/leds.md, "Waiting"),
    the rest dark (the watchdog is left alone: its first feed starts it, the run loop's). A hand on the
    board meanwhile is noted, and the board tells the host once it is ready (`N0 IGNORED
    reason=preparing`, baoboard.runtime); what a hand still holds then is no touch (App.boot)."""

    def __init__(self, hw: "Any") -> None:
        self.hw = hw
        self.frame = bytearray(_PITS * 3)
        self.bits = bytearray(4)
        self.touched = 0

    def __call__(self, done: int, total: int) -> None:
        f = self.frame
        lit = done * _PITS // total if total else _PITS
        for i in range(_PITS * 3):
            f[i] = _WAIT_LEVEL if i < 3 * lit else 0
        hw = self.hw
        hw.show(f)
        b = self.bits
        hw.read_pits(b)
        if b[0] | b[1] | b[2] | b[3]:
            self.touched += 1


def _reserve(dev: "Any", root: str, sectors: int, wait: "Any" = None) -> "tuple[bytes, list[int]] | None":
    """Make the files, find their blocks, write the map (last: without it the reservation is made again);
    wait(done, total) between the slow steps."""
    d = root + _DIR
    try:
        for name in os.listdir(d):
            os.remove(d + "/" + name)
    except OSError:
        os.mkdir(d)
    nonce = os.urandom(4)
    block = bytearray(b"\xff" * _BLOCK)
    block[0:4] = b"BAOR"
    block[4:8] = nonce
    total = 2 * sectors
    for i in range(sectors):
        if wait is not None:
            wait(i, total)
        block[8:12] = i.to_bytes(4, "little")
        with open("%s/s%02d" % (d, i), "wb") as f:
            f.write(block)
    del block
    found = [-1] * sectors
    head = bytearray(12)
    for b in range(dev.ioctl(4, 0)):  # MP_BLOCKDEV_IOCTL_BLOCK_COUNT
        dev.readblocks(b, head, 0)
        if head[0:4] == b"BAOR" and head[4:8] == nonce:
            i = int.from_bytes(head[8:12], "little")
            if i >= sectors or found[i] >= 0:
                return None
            found[i] = b
    if -1 in found:
        return None
    for i, b in enumerate(found):  # erased now, once (in play one at a time, when the board is idle)
        if wait is not None:
            wait(sectors + i, total)
        dev.ioctl(6, b)  # MP_BLOCKDEV_IOCTL_BLOCK_ERASE
    from binascii import hexlify

    with open(d + "/map.tmp", "w") as f:  # last: a reservation cut short is made again from the start
        f.write(hexlify(nonce).decode() + " " + " ".join(str(b) for b in found))
    os.rename(d + "/map.tmp", d + "/map")
    if wait is not None:
        wait(total, total)
    return (nonce, found)


def boot_storage(hw: "Any", root: str = "/", sectors: int = 32) -> "tuple[Any, tuple[str, str] | None]":
    """The journal's storage at boot, the first boot's reservation shown as a wait; and the notice the board
    gives once it is ready when a hand was on it meanwhile (those touches were not seen)."""
    wait = Preparing(hw)
    storage = journal_storage(root, sectors, wait=wait)
    if not wait.touched:
        return (storage, None)
    return (storage, ("IGNORED", "reason=preparing steps=%d" % wait.touched))


def journal_storage(root: str = "/", sectors: int = 32, name: str = "journal", wait: "Any" = None) -> "Any":
    """The journal's storage: its own flash sectors on a Pico, a LittleFS (or any) folder elsewhere."""
    from baoboard.storage import FileStorage

    root = root.rstrip("/")
    try:
        import rp2

        dev = rp2.Flash()
    except (ImportError, AttributeError):
        return FileStorage(root)
    res = _blocks_from_map(root)
    if res is None:
        res = _reserve(dev, root, sectors, wait)
        if res is None:
            return FileStorage(root)
    elif not _check(dev, root, res[1], sectors):
        return FileStorage(root)
    from baoboard.flashlog import FlashLog

    log = FlashLog(dev, res[1], res[0], name)
    old = FileStorage(root)
    if log.size(name) < 0 and old.size(name) >= 0:  # the journal kept on LittleFS so far: moved over
        r = old.reader(name)
        try:
            log.replace(name, iter(lambda: r.read(256), b""))
        finally:
            r.close()
        old.remove(name)
        old.remove(name + ".tmp")
    return log
