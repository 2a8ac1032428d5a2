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


def cut_points(total, step=1, stride=1):
    """The write budgets a power-cut sweep cuts at, 0 to total (both included): every step-th byte, times a
    stride. `stride` is CPython's: 1 where the code runs on CPython in a product (the journal: the Raspberry
    Pi board's runtime), more where it runs only on a Pico (the flash-sector log). Every byte is cut once,
    where the code runs: on CPython, or on the image's interpreter (BAO_SWEEP_IMAGE, the 32-bit build with the
    firmware frozen in). Elsewhere BAO_SWEEP_STRIDE ("N+K", tools/run_mp_tests.py) gives each MicroPython
    port a prime stride from its own offset: the ports cut at different bytes inside every kind of record.
    A generator: a list of every budget would not fit the board's heap."""
    import os

    env = os.getenv("BAO_SWEEP_STRIDE")
    offset = 0
    if os.getenv("BAO_SWEEP_IMAGE") and stride > 1:
        stride = 1
    elif env:
        try:
            head, _, tail = env.partition("+")
            stride = max(1, int(head))
            offset = int(tail) % stride if tail else 0
        except ValueError:
            pass
    budget = offset * step
    step *= stride
    if budget:
        yield 0
    while budget < total:
        yield budget
        budget += step
    yield total


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
