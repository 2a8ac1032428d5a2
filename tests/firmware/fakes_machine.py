# The fake `machine` module (Pin, SPI, WDT) wired to the chip models of fakes_chips (see there), and
# install(), which puts it (and a `micropython` stand-in on CPython) into sys.modules. Split from
# fakes_chips so that each file compiles within the MicroPython test heap.
import sys

from fakes_chips import CURRENT, RP2_SPI_PINS


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.wires = CURRENT[0].wires
        self.mode = mode
        if value is not None:
            self.wires.set(id, value)

    def init(self, mode=-1, pull=-1, value=None):
        if value is not None:
            self.wires.set(self.id, value)

    def value(self, v=None):
        if v is None:
            return self.wires.get(self.id)
        self.wires.set(self.id, v)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.wires.set(self.id, 1)

    def off(self):
        self.wires.set(self.id, 0)

    high = on
    low = off


class SPI:
    MSB = 1
    LSB = 0

    def __init__(self, id, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=1, sck=None, mosi=None, miso=None):
        if id not in RP2_SPI_PINS:
            raise ValueError("bad SPI bus %r" % (id,))
        ok = RP2_SPI_PINS[id]
        if sck is None or mosi is None or miso is None:
            raise ValueError("the fake wants every SPI pin given explicitly")
        for pin, allowed, what in ((sck, ok[0], "sck"), (mosi, ok[1], "mosi"), (miso, ok[2], "miso")):
            if pin.id not in allowed:
                raise ValueError("GPIO%d cannot be %s of SPI%d" % (pin.id, what, id))
        self.wires = CURRENT[0].wires
        for pin in (sck, mosi, miso):
            self.wires.claim(pin.id, "SPI%d" % id)
        self.id = id
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase
        self.firstbit = firstbit
        self.sck, self.mosi, self.miso = sck.id, mosi.id, miso.id
        self.hazards = 0
        self.bytes = 0
        self.wires.set(self.sck, polarity)  # the clock idles at the polarity level
        CURRENT[0].spis[id] = self

    def _tick(self):
        self.wires.instant += 1

    def _bit(self, out):
        w = self.wires
        pol = self.polarity
        if self.phase == 0:
            w.set(self.mosi, out)
            self._tick()
            sample = w.get(self.miso)  # sampled on the leading edge
            w.set(self.sck, 1 - pol)
            if w.get(self.miso) != sample:
                self.hazards += 1
            self._tick()
            w.set(self.sck, pol)
        else:
            self._tick()
            w.set(self.sck, 1 - pol)
            w.set(self.mosi, out)  # changes on the leading edge
            self._tick()
            sample = w.get(self.miso)  # sampled on the trailing edge
            w.set(self.sck, pol)
            if w.get(self.miso) != sample:
                self.hazards += 1
        return sample

    def _byte(self, out):
        v = 0
        for i in range(8):
            k = 7 - i if self.firstbit == SPI.MSB else i
            b = self._bit((out >> k) & 1)
            v |= b << k
        self.bytes += 1
        return v

    def write(self, buf):
        for x in buf:
            self._byte(x)

    def readinto(self, buf, write=0):
        for i in range(len(buf)):
            buf[i] = self._byte(write)

    def read(self, n, write=0):
        b = bytearray(n)
        self.readinto(b, write)
        return bytes(b)

    def write_readinto(self, wbuf, rbuf):
        for i in range(len(wbuf)):
            rbuf[i] = self._byte(wbuf[i])


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.fed = 0
        CURRENT[0].wdt = self

    def feed(self):
        self.fed += 1


class _Module:
    pass


def _machine_module():
    m = _Module()
    m.__name__ = "machine"
    m.Pin = Pin
    m.SPI = SPI
    m.WDT = WDT
    return m


def _micropython_module():
    m = _Module()
    m.__name__ = "micropython"
    m.kbd = [3]

    def const(x):
        return x

    def kbd_intr(c):
        m.kbd[0] = c

    def ident(f):
        return f

    m.const = const
    m.kbd_intr = kbd_intr
    m.native = ident
    m.viper = ident
    return m


def install():
    """Make `import machine` give the fake (and `import micropython` work on CPython)."""
    sys.modules["machine"] = _machine_module()
    try:
        import micropython  # noqa: F401
    except ImportError:
        sys.modules["micropython"] = _micropython_module()
        import builtins

        builtins.ptr8 = memoryview  # viper's pointer type, in baoboard.drivers.pico_loops' annotations
