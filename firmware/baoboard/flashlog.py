# The journal's file on raw NOR flash sectors, so that an append only programs pages (256 bytes, quick
# on a Pico's W25Q16JV) and never waits for an erase (4 KB, far slower; docs/benchmarks.md, Emulated
# Pico): sectors are erased ahead of time (maintain(), in idle scans) and a rewrite (replace) goes to
# erased sectors. The storage interface of baoboard.storage for one file; the sectors come from
# baoboard.flashres on a Pico (carved out of the LittleFS storage without upsetting it) or from a
# simulated chip in tests.
#   log = FlashLog(dev, blocks, nonce, name="journal")   dev: readblocks(b, buf, off), writeblocks(b, buf,
#         off) (program only), ioctl(6, b) (erase): rp2.Flash; blocks: the sector numbers on dev it owns
#   size/reader/append/replace/remove as baoboard.storage;  log.torn: bytes of an unfinished write follow
#         the file (after a power cut): the journal rewrites it before its next append (journal_io)
#   log.maintain() -> bool          erase one sector no longer in use (slow); False when none is left
#   log.free(), log.erased          sectors not in the file / of those, erased and ready
#
# Sector: page 0 is its header, pages 1-15 data (3840 bytes).
#   0  "BAOJ"   4 nonce (the reservation's, flashres)   8 generation  12 index in the file   16 crc32 of 0..15
#   20 00000000 once the file (generation) is complete (index 0 only; replace programs it last)
#   32 commits: 56 words "end lo16, ~end hi16": the file's data in this sector ends at `end` (its bytes
#      0..end); an append programs its data, then a commit in each sector it wrote to.
# The file: the sectors of the newest complete generation, index 0, 1, 2...; each holds data up to its last
# valid commit. Programming only clears bits, so a commit torn by a power cut never reads as valid (a bit
# still 1 in the value is 0 in its complement) and a completion mark never appears by itself; erasing
# only sets bits, so an erase cut short never makes a sector look part of a newer file (the header's crc).
# Whatever follows the last commit and is not erased is a torn write: `torn` tells the journal to rewrite
# the file (to erased sectors) before it appends again, so no page is ever programmed over garbage.
try:
    from collections.abc import Iterable
    from typing import Any
except ImportError:
    pass

from baoboard.compat import const, crc32

_SECTOR = const(4096)
_PAGE = const(256)
_DATA = const(3840)  # data bytes in a sector (pages 1-15)
_COMMIT0 = const(32)
_NCOMMIT = const(56)
_ERASE = const(6)  # MP_BLOCKDEV_IOCTL_BLOCK_ERASE
_ENOSPC = const(28)
_MAGIC = b"BAOJ"


class _Reader:
    """The file as it was when opened (a later replace does not change what it reads)."""

    def __init__(self, log: "FlashLog", chain: "list[int]", ends: "list[int]") -> None:
        self.log = log
        self.chain = chain
        self.ends = ends
        self.pos = 0

    def seek(self, pos: int) -> None:
        self.pos = pos

    def read(self, n: int) -> bytes:
        ends = self.ends
        pos = self.pos
        i = 0
        while i < len(ends) and pos >= ends[i]:  # the sector that holds byte pos
            pos -= ends[i]
            i += 1
        size = 0
        for k in range(i, len(ends)):
            size += ends[k]
        if n > size - pos:
            n = size - pos
        if n <= 0:
            return b""
        out = bytearray(n)
        mv = memoryview(out)
        j = 0
        while j < n:
            k = ends[i] - pos
            if k > n - j:
                k = n - j
            self.log.dev.readblocks(self.log.blocks[self.chain[i]], mv[j : j + k], _PAGE + pos)
            j += k
            i += 1
            pos = 0
        self.pos += n
        return bytes(out)

    def close(self) -> None:
        pass


class FlashLog:
    def __init__(self, dev: "Any", blocks: "list[int]", nonce: bytes, name: str = "journal") -> None:
        self.dev = dev
        self.blocks = blocks
        self.nonce = bytes(nonce)
        self.name = name
        self._page = bytearray(_PAGE)
        self._ff = b"\xff" * _PAGE
        self.mount()

    # ---- reading the sectors back (at boot)
    def _header(self, s: int) -> "tuple[int, int, bool, int, bool] | None":
        """Sector s's (generation, index, complete, data end, a commit torn) if it has a valid header of ours."""
        p = self._page
        self.dev.readblocks(self.blocks[s], p, 0)
        if p[0:4] != _MAGIC or p[4:8] != self.nonce or int.from_bytes(p[16:20], "little") != crc32(p, 16):
            return None
        end = 0
        i = 0
        while i < _NCOMMIT:
            o = _COMMIT0 + 4 * i
            v = p[o] | (p[o + 1] << 8)
            c = p[o + 2] | (p[o + 3] << 8)
            i += 1
            if v == 0xFFFF and c == 0xFFFF:
                break
            if v ^ c == 0xFFFF and end <= v <= _DATA:
                end = v
                continue
            if self._programmed_from(p, i):  # commits follow: this one was damaged, not torn (skipped)
                continue
            # the last commit: torn by a power cut (its data whole, its bits partly programmed), or damaged
            head = (int.from_bytes(p[8:12], "little"), int.from_bytes(p[12:16], "little"), p[20:24] == b"\0\0\0\0")
            k = self._end_of(s, v, c, end)  # (reads the sector: p is overwritten)
            if k < 0 and ~(v | c) & 0xFFFF:  # a bit cleared in both halves: no power cut does that
                self.damaged = True
            return (head[0], head[1], head[2], k if k >= 0 else end, True)
        gen = int.from_bytes(p[8:12], "little")
        index = int.from_bytes(p[12:16], "little")
        return (gen, index, p[20:24] == b"\x00\x00\x00\x00", end, False)

    def _programmed_from(self, p: bytearray, i: int) -> bool:
        """A commit word from the i-th on has been programmed (commits are programmed in order)."""
        while i < _NCOMMIT:
            o = _COMMIT0 + 4 * i
            if p[o] & p[o + 1] & p[o + 2] & p[o + 3] != 0xFF:
                return True
            i += 1
        return False

    def _end_of(self, s: int, v: int, c: int, end: int) -> int:
        """The end an unreadable last commit (v, ~v programmed as v, c) says, or -1. Each bit of the end
        programmed as 1 in v and 0 in c, or the other way, is known; the others (a torn or damaged bit,
        at most 4 of them) are tried from the smallest end: the one after which the sector is erased is
        where its data ends (programmed before the commit: the data is whole)."""
        unknown = ~(v ^ c) & 0xFFFF
        n = 0
        b = unknown
        while b:
            n += b & 1
            b >>= 1
        if n > 4:
            return -1
        known = v & (v ^ c)
        best = -1
        sub = unknown
        while True:  # every subset of the unknown bits
            e = known | sub
            if end <= e <= _DATA and (best < 0 or e < best) and self._clean_from(s, _PAGE + e):
                best = e
            if sub == 0:
                break
            sub = (sub - 1) & unknown
        return best

    def _clean_page(self, s: int) -> bool:
        """Sector s's header page is erased."""
        self.dev.readblocks(self.blocks[s], self._page, 0)
        return self._page == self._ff

    def _clean_from(self, s: int, off: int) -> bool:
        """Sector s is erased from byte off to its end."""
        p = self._page
        ff = self._ff
        b = self.blocks[s]
        while off < _SECTOR:
            k = _PAGE - (off & (_PAGE - 1))
            self.dev.readblocks(b, memoryview(p)[:k], off)
            if p[:k] != ff[:k]:
                return False
            off += k
        return True

    def mount(self) -> None:
        """Find the file (the newest complete generation) and which other sectors are erased. `damaged`: what
        no power cut leaves was found (a sector of the file missing before others, a commit no tear makes,
        a torn commit before another sector of the file): data may be lost, the journal takes a new epoch."""
        n = len(self.blocks)
        self.damaged = False
        heads = [self._header(s) for s in range(n)]
        gen = -1
        top = -1
        for h in heads:
            if h is not None:
                if h[0] > top:
                    top = h[0]
                if h[1] == 0 and h[2] and h[0] > gen:
                    gen = h[0]
        self._top = top  # the highest generation on flash (a new file takes the next)
        self.gen = gen
        chain: list[int] = []
        ends: list[int] = []
        torn = False
        while gen >= 0:
            s = -1
            for k in range(n):
                h = heads[k]
                if h is not None and h[0] == gen and h[1] == len(chain):
                    s = k
            if s < 0:
                break
            h = heads[s]
            if torn:  # (a sector after one whose last write was cut short: that was damage, not a power cut)
                self.damaged = True
            chain.append(s)
            ends.append(h[3])  # type: ignore[index]  # (heads[s] has a header: s was chosen so)
            if h[4] or not self._clean_from(s, _PAGE + h[3]):  # type: ignore[index]  # (as above)
                torn = True  # a write cut short: the journal rewrites the file before appending
        for h in heads:  # a sector of the file after the chain's end: one before it is gone
            if h is not None and h[0] == self.gen and h[1] > len(chain):
                self.damaged = True
        self.chain = chain
        self.ends = ends
        self.torn = torn
        # sectors whose header page is erased; each is checked whole before it is used (_take): at boot
        # that would be 16 reads a sector
        self.erased = [s for s in range(n) if s not in chain and heads[s] is None and self._clean_page(s)]

    # ---- programming
    def _program(self, s: int, off: int, data: "Any", start: int, n: int) -> None:
        """Program data[start:start+n] at byte off of sector s, whole aligned pages (0xff elsewhere: a NOR
        program leaves those bits as they are), as the RP2040's flash_range_program requires."""
        p = self._page
        mv = memoryview(data)
        b = self.blocks[s]
        while n > 0:
            o = off & (_PAGE - 1)
            k = _PAGE - o
            if k > n:
                k = n
            p[:] = self._ff
            p[o : o + k] = mv[start : start + k]
            self.dev.writeblocks(b, p, off - o)
            off += k
            start += k
            n -= k

    def _commit(self, s: int, i: int, end: int) -> None:
        w = bytearray(4)
        w[0] = end & 0xFF
        w[1] = end >> 8
        w[2] = ~end & 0xFF
        w[3] = (~end >> 8) & 0xFF
        self._program(s, _COMMIT0 + 4 * i, w, 0, 4)

    def _take(self, busy: "list[int]") -> int:
        """An erased sector not in busy (erased now, slowly, if none is ready)."""
        for s in self.erased:
            if s not in busy:
                self.erased.remove(s)
                if not self._clean_from(s, _PAGE):  # (an erase cut short by a power cut)
                    self.dev.ioctl(_ERASE, self.blocks[s])
                return s
        for s in range(len(self.blocks)):
            if s not in busy and s not in self.chain:
                self.dev.ioctl(_ERASE, self.blocks[s])
                return s
        raise OSError(_ENOSPC)

    def _start_sector(self, s: int, gen: int, index: int) -> None:
        h = bytearray(20)
        h[0:4] = _MAGIC
        h[4:8] = self.nonce
        h[8:12] = gen.to_bytes(4, "little")
        h[12:16] = index.to_bytes(4, "little")
        h[16:20] = crc32(h, 16).to_bytes(4, "little")
        self._program(s, 0, h, 0, 20)

    def _write(
        self,
        chain: "list[int]",
        ends: "list[int]",
        used: "list[int]",
        gen: int,
        data: "Any",
        n: int,
        busy: "list[int]",
        commit: bool,
    ) -> None:
        """Append data[:n] to the sectors of a file (chain, ends, commits used), taking erased ones as
        needed (one at least)."""
        i = 0
        while i < n or not chain:
            if not chain or ends[-1] == _DATA or used[-1] == _NCOMMIT:
                s = self._take(busy)
                busy.append(s)
                self._start_sector(s, gen, len(chain))
                chain.append(s)
                ends.append(0)
                used.append(0)
            k = _DATA - ends[-1]
            if k > n - i:
                k = n - i
            self._program(chain[-1], _PAGE + ends[-1], data, i, k)
            if commit:
                self._commit(chain[-1], used[-1], ends[-1] + k)
                used[-1] += 1
            ends[-1] += k
            i += k

    # ---- the storage interface (baoboard.storage)
    def _check(self, name: str) -> None:
        if name != self.name:
            raise OSError(2)  # ENOENT: this storage holds one file

    def size(self, name: str) -> int:
        self._check(name)
        if self.gen < 0:
            return -1
        n = 0
        for e in self.ends:
            n += e
        return n

    def reader(self, name: str) -> "Any":
        self._check(name)
        return _Reader(self, self.chain, self.ends) if self.gen >= 0 else None

    def append(self, name: str, data: "bytes | bytearray") -> None:
        self._check(name)
        if self.gen < 0:
            self.replace(name, ())
        if self.torn:
            raise OSError(5)  # EIO: the journal rewrites the file first (journal_io, Journal.append)
        used = [self._used(s) for s in self.chain[-1:]]
        used = [0] * (len(self.chain) - len(used)) + used
        # Room: the write may take sectors outside the file as long as as many stay free as a rewrite of the
        # file needs (a compaction once the host took the events: no larger than the file), so a full flash
        # never keeps the journal from making room again. Else nothing is programmed: the file stays whole
        # (the journal compacts, or refuses the event).
        n = len(data)
        rest = _DATA - self.ends[-1] if self.chain and used[-1] < _NCOMMIT else 0
        extra = 0 if n <= rest else (n - rest + _DATA - 1) // _DATA
        for e in self.ends:
            n += e
        if len(self.blocks) - len(self.chain) - extra < (n + _DATA - 1) // _DATA:
            raise OSError(_ENOSPC)
        self.torn = True  # until the write is done and committed
        self._write(self.chain, self.ends, used, self.gen, data, len(data), list(self.chain), True)
        self.torn = False

    def _used(self, s: int) -> int:
        """Commits written in sector s (read from its header page)."""
        p = self._page
        self.dev.readblocks(self.blocks[s], p, 0)
        for i in range(_NCOMMIT):
            if p[_COMMIT0 + 4 * i : _COMMIT0 + 4 * i + 4] == b"\xff\xff\xff\xff":
                return i
        return _NCOMMIT

    def replace(self, name: str, chunks: "Iterable[bytes | bytearray]") -> None:
        """The new content to erased sectors as a new generation, completed by its mark: a power cut
        before the mark leaves the old file, after it the new one."""
        self._check(name)
        gen = self._top + 1
        chain: list[int] = []
        ends: list[int] = []
        used: list[int] = []
        busy = list(self.chain)
        buf = bytearray(_PAGE)  # whole pages at a time (one program each)
        fill = 0
        try:
            for c in chunks:
                j = 0
                while j < len(c):
                    k = _PAGE - fill
                    if k > len(c) - j:
                        k = len(c) - j
                    buf[fill : fill + k] = memoryview(c)[j : j + k]
                    fill += k
                    j += k
                    if fill == _PAGE:
                        self._write(chain, ends, used, gen, buf, _PAGE, busy, False)
                        fill = 0
            if fill or not chain:
                self._write(chain, ends, used, gen, buf, fill, busy, False)
            self._top = gen
            for k in range(len(chain)):  # each sector's end, then the mark that makes the file whole
                self._commit(chain[k], 0, ends[k])
            self._program(chain[0], 20, b"\x00\x00\x00\x00", 0, 4)
        except BaseException:
            self._top = gen  # the sectors taken hold a torn file: erased before they are used again
            raise
        self.chain = chain
        self.ends = ends
        self.gen = gen
        self.torn = False

    def remove(self, name: str) -> None:
        if name != self.name:  # (journal.tmp: this storage never makes one)
            return
        if self.gen >= 0 and self.size(name):
            self.replace(name, ())

    # ---- erasing ahead
    def free(self) -> int:
        return len(self.blocks) - len(self.chain)

    def maintain(self) -> bool:
        """Erase one sector that is no longer part of the file (slow); False if every one is ready."""
        for s in range(len(self.blocks)):
            if s not in self.chain and s not in self.erased:
                self.dev.ioctl(_ERASE, self.blocks[s])
                self.erased.append(s)
                return True
        return False
