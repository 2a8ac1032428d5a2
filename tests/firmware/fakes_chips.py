# Models of the board's chips, for the driver tests on CPython and on the MicroPython unix port (plain
# Python: no dataclasses, no f-strings). fakes_machine has the fake `machine` module (Pin, SPI, WDT) that
# drives them, fakes_board the board wired per hardware/board.json (three files: each must compile in
# the MicroPython test heap). tests/host/fake_gpio.py drives the same models through a fake RPi.GPIO.
#
#   fakes_machine.install()        # sys.modules["machine"] (and "micropython" where missing) -> the fakes
#   board = FakeBoard()            # wires the chips to the Pico pins of hardware/board.json
#   board.touch(["A1", "b8"])      # what the sensor modules output
#   board.leds.colour(k)           # (brightness, r, g, b) latched by LED k of the chain
#
# The models work on pin levels and clock edges, not on recorded calls:
#   HC165Chain  /PL low loads the inputs (continuously, the clock is ignored); with /PL high each rising CP
#               edge shifts (Q_A <- SER, Q_n <- Q_n-1); QH of chip 0 drives the controller's data input;
#               chip k's SER is chip k+1's QH, the last SER is GND.
#   APA102Chain each LED: 32 zero bits arm it, the next 1 starts its own 32-bit frame (0b111bbbbb, B, G, R),
#               after which it forwards everything; it replaces its own frame by zeros downstream. Every
#               second LED delays the stream by one clock (half a clock per LED). APA102 shows a frame as
#               soon as it has it; SK9822 only after the next 32 zero bits.
#   FakeSPI     drives SCK/MOSI and samples MISO with the configured polarity and phase. A sample taken on
#               the edge that also changes the data (or data changed on the edge that samples it) counts
#               as a timing hazard: the model then takes the value from before the edge.
import json

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_JSON = HERE + "/../../hardware/board.json"

# RP2040 pin functions of the SPI blocks: (sck, tx/mosi, rx/miso) candidates per bus.
RP2_SPI_PINS = {
    0: ((2, 6, 18, 22), (3, 7, 19, 23), (0, 4, 16, 20)),
    1: ((10, 14, 26), (11, 15, 27), (8, 12, 28)),
}

CURRENT = [None]  # the FakeBoard the fake machine module talks to


_WIRING = []


def load_board():
    """The wiring of hardware/board.json, read once and kept small: {"chips": ("B1B2..B8", ...) the pit
    names on D0..D7 per chip in chain order, "leds": "B1B2...b8" pit name per LED index, "pico": {net: GPIO},
    "rpi": {net: BCM GPIO}}.
    pit_names(s) splits such a string."""
    if not _WIRING:
        with open(BOARD_JSON) as f:
            d = json.load(f)
        w = {
            "chips": tuple("".join(c["inputs"]) for c in d["sensor_chain"]["chips"]),
            "leds": "".join(d["led_chain"]["order"]),
            "pico": dict((p["net"], p["gp"]) for p in d["pico"]["pins"]),
            "rpi": dict((p["net"], p["bcm"]) for p in d["rpi"]["pins"]),
        }
        d = None
        _WIRING.append(w)
    return _WIRING[0]


def pit_names(s):
    return [s[i : i + 2] for i in range(0, len(s), 2)]


def pit_index(name):
    """Global pit index from a pit name (the contract, written out again independently of the firmware)."""
    row = name[0]
    num = int(name[1:])
    side = 0 if row in "AB" else 1
    ring = num - 1 if row in "Aa" else 16 - num
    return side * 16 + ring


class Wires:
    """The nets: a level per GPIO, listeners called on a level change, chip outputs that drive a GPIO."""

    def __init__(self):
        self.levels = {}
        self.listeners = {}
        self.drivers = {}
        self.instant = 0  # logical time; FakeSPI advances it by half clock periods
        self.claimed = {}

    def get(self, gp):
        d = self.drivers.get(gp)
        if d is not None:
            return d()
        return self.levels.get(gp, 0)

    def set(self, gp, v):
        v = 1 if v else 0
        old = self.levels.get(gp, 0)
        self.levels[gp] = v
        if old != v:
            for fn in self.listeners.get(gp, ()):
                fn(v)

    def listen(self, gp, fn):
        if gp not in self.listeners:
            self.listeners[gp] = []
        self.listeners[gp].append(fn)

    def claim(self, gp, who):
        if gp in self.claimed and self.claimed[gp] != who:
            raise ValueError("GPIO%d used by %s and %s" % (gp, self.claimed[gp], who))
        self.claimed[gp] = who


class HC165Chain:
    def __init__(self, wires, pl, clk, qh, chips=4):
        self.n = chips
        self.inputs = bytearray(chips)  # chip c, bit k = level at input Dk
        self.reg = bytearray(chips)  # the shift registers, bit 7 = Q_H
        self.pl = wires.levels.get(pl, 0)
        self.loads = 0
        self.shifts = 0
        wires.listen(pl, self._on_pl)
        wires.listen(clk, self._on_clk)
        wires.drivers[qh] = self.qh

    def qh(self):
        return (self.reg[0] >> 7) & 1

    def _load(self):
        for c in range(self.n):
            self.reg[c] = self.inputs[c]

    def _on_pl(self, v):
        self.pl = v
        if v == 0:
            self._load()
            self.loads += 1

    def _on_clk(self, v):
        if v != 1 or self.pl == 0:  # shifts on the rising edge, only with /PL high
            return
        self.shifts += 1
        reg = self.reg
        for c in range(self.n):
            ser = (reg[c + 1] >> 7) & 1 if c + 1 < self.n else 0
            reg[c] = ((reg[c] << 1) | ser) & 0xFF

    def set_input(self, chip, k, level):
        if level:
            self.inputs[chip] |= 1 << k
        else:
            self.inputs[chip] &= ~(1 << k) & 0xFF
        if self.pl == 0:
            self._load()


class APA102Chain:
    """count LEDs in a chain; the state of LED k lives in parallel arrays (small enough for the MicroPython
    test heap): zeros seen in a row, armed by a start frame, bits of its own frame, the frame word, and
    the pending / shown (brightness, r, g, b)."""

    def __init__(self, wires, ci, di, count=32, kind="sk9822"):
        self.wires = wires
        self.di = di
        self.n = count
        self.sk9822 = kind == "sk9822"
        self.zeros = bytearray(count)  # saturates at 255
        self.armed = bytearray(count)
        self.own = bytearray(count)  # bits of its own frame received so far, 0 = not receiving
        self.word = [0] * count
        self.pending = [None] * count
        self.shown = [None] * count
        self.bad = 0
        self.delay = bytearray(count)  # the one-bit register in front of every odd LED
        self.clocks = 0
        self.hazards = 0
        self._rise_instant = -1
        wires.listen(ci, self._on_ci)
        wires.listen(di, self._on_di)

    def _on_di(self, v):
        if self.wires.instant == self._rise_instant:
            self.hazards += 1  # data changed on the very edge that samples it

    def _on_ci(self, v):
        """A rising clock edge: every LED takes the bit in front of it (an odd LED's through its one-bit
        register) and passes one on. An LED counts zeros in a row (32 of them arm it: the start frame; an
        SK9822 then shows the frame it holds), takes the 32 bits of its own frame once armed and a 1
        arrives, and passes every other bit on. (One loop with the chain's state in locals: the chain
        clocks millions of times in a game.)"""
        if v != 1:
            return
        self._rise_instant = self.wires.instant
        self.clocks += 1
        bit = self.wires.get(self.di)
        d, zeros, armed, own, word, pending = self.delay, self.zeros, self.armed, self.own, self.word, self.pending
        for k in range(self.n):
            if k & 1:
                bit, d[k] = d[k], bit
            if bit:
                zeros[k] = 0
            elif zeros[k] < 255:
                z = zeros[k] + 1
                zeros[k] = z
                if z == 32:
                    armed[k] = 1
                    if self.sk9822 and pending[k] is not None:
                        self.shown[k] = pending[k]
            n = own[k]
            if n:
                w = (word[k] << 1) | bit
                word[k] = w
                bit = 0
                if n < 31:
                    own[k] = n + 1
                    continue
                own[k] = 0
                if (w >> 29) != 7:
                    self.bad += 1
                pending[k] = ((w >> 24) & 31, w & 0xFF, (w >> 8) & 0xFF, (w >> 16) & 0xFF)
                if not self.sk9822:
                    self.shown[k] = pending[k]
            elif bit and armed[k]:
                armed[k] = 0
                own[k] = 1
                word[k] = 1
                bit = 0

    def colour(self, k):
        """(brightness, r, g, b) that LED k shows, None if it never got a frame."""
        return self.shown[k]

    def bad_frames(self):
        return self.bad
