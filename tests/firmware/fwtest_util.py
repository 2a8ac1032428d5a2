# Helpers shared by the firmware tests; plain Python that runs on CPython and the MicroPython unix port.


class Lcg:
    """A tiny deterministic generator (MicroPython builds differ in what `random` offers)."""

    def __init__(self, seed=1):
        self.x = seed & 0x7FFFFFFF

    def next(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return self.x >> 8

    def below(self, n):
        return self.next() % n

    def bytes(self, n):
        b = bytearray(n)
        for i in range(n):
            b[i] = self.next() & 0xFF
        return bytes(b)


def temp_path(prefix):
    """A path in /tmp no other test run uses, even one running at the same time (another checkout, a parallel
    bench): prefix + 8 random hex digits. Always as long, so the heap's layout does not depend on it."""
    import os

    return "/tmp/" + prefix + "".join("%02x" % b for b in os.urandom(4))


class FakeSerial:
    def __init__(self):
        self.out = []

    def write(self, data):
        self.out.append(bytes(data))

    def take(self):
        o = self.out
        self.out = []
        return o


class Clock:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t
