# A NOR flash chip as MicroPython's rp2.Flash shows it, for the tests of baoboard.flashlog (a helper module).
from baoboard.storage import PowerCut

SECTOR = 4096
PAGE = 256


class NorFlash:
    """sectors of 4096 bytes; writeblocks programs whole aligned pages (as the RP2040's flash_range_program
    requires) and can only clear bits; ioctl(6, b) erases sector b to 0xff.
    budget: units of work that may still be done (-1: no limit), one per byte a program changes (its bytes
    that are not 0xff: the others leave the chip as it was) and two per erase; the operation that exhausts
    it stops there (the first bytes programmed; an erase half done) and raises PowerCut. With `noise`
    (an Lcg), a program cut short also clears random bits of the rest of its bytes, as a real one may."""

    def __init__(self, sectors):
        self.sec = [bytearray(SECTOR) for _ in range(sectors)]
        self.reset()

    def reset(self, noise=None):
        """A new chip: every sector erased, nothing counted (tests reuse one: its sectors are 4 KB pieces
        of heap, which a fragmented 64 KB heap may no longer have)."""
        for m in self.sec:
            self._fill(m, 0, SECTOR)
        self.budget = -1
        self.used = 0
        self.programs = 0
        self.erases = 0
        self.noise = noise

    def _fill(self, m, a, b):
        ff = b"\xff" * PAGE
        for i in range(a, b, PAGE):
            m[i : i + PAGE] = ff

    def _take(self, k):
        if self.budget < 0:
            self.used += k
            return k
        if k > self.budget:
            k = self.budget
        self.budget -= k
        self.used += k
        return k

    def readblocks(self, b, buf, off=0):
        buf[:] = memoryview(self.sec[b])[off : off + len(buf)]

    def writeblocks(self, b, buf, off=0):
        if off % PAGE or len(buf) % PAGE:
            raise ValueError("flash programs whole aligned pages")
        start = off
        n = 0
        for x in buf:
            if x != 0xFF:
                n += 1
        k = self._take(n)
        self.programs += 1
        mem = self.sec[b]
        left = k
        for i in range(len(buf)):
            x = buf[i]
            if x == 0xFF:
                continue
            if left:
                left -= 1
                mem[start + i] &= x
            elif self.noise is not None:  # cut short: some of the bits to clear are cleared
                mem[start + i] &= x | (self.noise.next() & 0xFF)
        if k < n:
            raise PowerCut()

    def ioctl(self, op, b):
        if op == 6:
            k = self._take(2)
            if k:
                self._fill(self.sec[b], 0, SECTOR if k == 2 else SECTOR // 2)
            if k < 2:
                raise PowerCut()
            self.erases += 1
        return 0
