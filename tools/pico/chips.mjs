// Models of the board's chips on the emulated Pico's pins: the 74HC165 sensor chain and the SK9822 LED
// chain of hardware/board.json, at the level of wires and clock edges.
//
// rp2040js hands an SPI block's traffic over one byte at a time (onTransmit). SpiWires turns each byte back
// into what the pins do: the idle level of SCK (CPOL), a leading and a trailing edge per bit, MOSI changing
// and MISO sampled on the edges the mode (CPHA) says, MSB first. The chips only see those wires, so a
// driver on the wrong pins, with the wrong mode or with the latch after the read gets wrong data, as it
// would on the real board. Like tests/firmware/fakes_chips.py (the same models in Python, for the driver
// tests), a sample taken on the edge that also shifts the data is a hazard: the model then takes the
// value after the edge (the worst case), so only a correct timing reads correctly.

// ---- nets: a level per net, listeners on a change, a chip output that drives a net
export class Wires {
  constructor() {
    this.levels = new Map();
    this.listeners = new Map();
    this.drivers = new Map();
  }
  get(net) {
    const d = this.drivers.get(net);
    return d ? d() : (this.levels.get(net) ?? 0);
  }
  set(net, v) {
    v = v ? 1 : 0;
    const old = this.levels.get(net) ?? 0;
    this.levels.set(net, v);
    if (old !== v) for (const fn of this.listeners.get(net) ?? []) fn(v);
  }
  listen(net, fn) {
    if (!this.listeners.has(net)) this.listeners.set(net, []);
    this.listeners.get(net).push(fn);
  }
}

// ---- 74HC165: /PL low loads D0..D7 (continuously; the clock is ignored); with /PL high each rising CP
// edge shifts towards QH (Q_A <- SER). chips[0] is nearest the controller: its QH is the chain's output,
// chip k's SER is chip k+1's QH, the last SER is tied to GND.
export class HC165Chain {
  constructor(wires, { pl, cp, qh, chips = 4 }) {
    this.n = chips;
    this.inputs = new Uint8Array(chips); // bit k of chip c = level at its input Dk
    this.reg = new Uint8Array(chips); // shift registers, bit 7 = QH
    this.pl = wires.levels.get(pl) ?? 1;
    this.loads = 0;
    this.shifts = 0;
    this.filter = null; // (chip, byte at its inputs) -> the byte it loads: a faulty sensor or chip (BoardChips.fault)
    wires.listen(pl, (v) => {
      this.pl = v;
      if (!v) {
        for (let c = 0; c < this.n; c++) this.reg[c] = this.load(c);
        this.loads++;
        this.onLoad?.();
      }
    });
    wires.listen(cp, (v) => {
      if (!v || !this.pl) return; // rising edge, and only while /PL is high
      this.shifts++;
      for (let c = 0; c < this.n; c++) {
        const ser = c + 1 < this.n ? (this.reg[c + 1] >> 7) & 1 : 0;
        this.reg[c] = ((this.reg[c] << 1) | ser) & 0xff;
      }
    });
    wires.drivers.set(qh, () => (this.reg[0] >> 7) & 1);
  }
  setInput(chip, k, level) {
    if (level) this.inputs[chip] |= 1 << k;
    else this.inputs[chip] &= ~(1 << k) & 0xff;
    if (!this.pl) this.reg[chip] = this.load(chip);
  }
  load(chip) {
    return this.filter ? this.filter(chip, this.inputs[chip]) : this.inputs[chip];
  }
}

// ---- SK9822 (APA102-compatible) chain: each LED is armed by 32 zero bits; the next 1 starts its own
// 32-bit frame (0b111bbbbb, B, G, R); after it, the LED forwards everything, its own frame replaced by
// zeros. An SK9822 shows a frame only after the next 32 zero bits (APA102: at once). Every second LED
// delays the data by one clock (half a clock per LED, hence the extra end-frame clocks).
export class SK9822Chain {
  constructor(wires, { ci, di, count = 32, onFrame = null }) {
    this.wires = wires;
    this.di = di;
    this.n = count;
    this.zeros = new Uint16Array(count);
    this.armed = new Uint8Array(count);
    this.own = new Uint8Array(count); // bits of its own frame received, 0 = not receiving
    this.word = new Uint32Array(count);
    this.pending = new Array(count).fill(null); // [brightness, r, g, b]
    this.shown = new Array(count).fill(null);
    this.delay = new Uint8Array(count);
    this.bad = 0; // frames whose top three bits were not 111
    this.latched = 0; // frames that changed what the chain shows
    this.onFrame = onFrame;
    wires.listen(ci, (v) => {
      if (v) this.clock();
    });
  }
  led(k, bit) {
    if (bit) this.zeros[k] = 0;
    else if (this.zeros[k] < 1000) {
      this.zeros[k]++;
      if (this.zeros[k] === 32) {
        this.armed[k] = 1;
        if (this.pending[k]) {
          this.shown[k] = this.pending[k];
          this.pending[k] = null;
          this.changed = true;
        }
      }
    }
    const n = this.own[k];
    if (n) {
      this.word[k] = ((this.word[k] << 1) | bit) >>> 0;
      this.own[k] = n + 1;
      if (n + 1 === 33) {
        this.own[k] = 0;
        const w = this.word[k];
        if (w >>> 29 !== 7) this.bad++;
        // brightness, R, G, B from 0b111bbbbb BBBBBBBB GGGGGGGG RRRRRRRR
        this.pending[k] = [(w >>> 24) & 31, w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff];
      }
      return 0;
    }
    if (this.armed[k] && bit) {
      this.armed[k] = 0;
      this.own[k] = 2; // this first 1 is the frame's first bit
      this.word[k] = 1;
      return 0;
    }
    return bit;
  }
  clock() {
    let bit = this.wires.get(this.di);
    this.changed = false;
    for (let k = 0; k < this.n; k++) {
      bit = this.led(k, bit);
      if (k & 1) {
        const out = this.delay[k];
        this.delay[k] = bit;
        bit = out;
      }
    }
    if (this.changed) {
      this.latched++;
      if (this.onFrame) this.onFrame(this);
    }
  }
}

// ---- an RP2040 SPI block's pins, driven bit by bit from the bytes rp2040js reports
const FUNC_SPI = 1;

export class SpiWires {
  // spi: rp2040js RPSPI; gpio: mcu.gpio; pins: {sck, tx, rx} GPIO numbers wired on the board (nets named
  // by GPIO number); clock: the simulation clock (a transfer takes 8 bit times of Pico time).
  constructor(wires, spi, gpio, clock, { sck, tx = -1, rx = -1 }) {
    this.wires = wires;
    this.spi = spi;
    this.gpio = gpio;
    this.pins = { sck, tx, rx };
    this.bytes = 0;
    this.alarm = clock.createAlarm(() => this.complete());
    this.result = 0;
    this.sckLevel = null;
    spi.onTransmit = (value) => this.transmit(value);
  }
  selected(pin) {
    return pin >= 0 && this.gpio[pin].functionSelect === FUNC_SPI;
  }
  mode() {
    const cr0 = this.spi.control0;
    return { cpol: (cr0 >> 6) & 1, cpha: (cr0 >> 7) & 1, bits: (cr0 & 15) + 1, frf: (cr0 >> 4) & 3 };
  }
  idle() {
    // between transfers SCK rests at CPOL, once the pin is given to the SPI block
    const { cpol } = this.mode();
    if (this.selected(this.pins.sck) && this.sckLevel !== cpol) {
      this.sckLevel = cpol;
      this.wires.set(this.pins.sck, cpol);
    }
  }
  transmit(value) {
    this.bytes++;
    const { cpol, cpha, bits, frf } = this.mode();
    const w = this.wires;
    const sckOn = this.selected(this.pins.sck);
    const txOn = this.selected(this.pins.tx);
    const rxOn = this.selected(this.pins.rx);
    const sck = (v) => {
      if (sckOn) w.set(this.pins.sck, v);
      this.sckLevel = v;
    };
    const sample = () => (rxOn ? w.get(this.pins.rx) : 0);
    this.idle();
    let rx = 0;
    for (let i = bits - 1; i >= 0; i--) {
      const out = frf === 0 ? (value >> i) & 1 : 0; // Motorola format only; others drive nothing useful
      if (cpha === 0) {
        // data valid before the leading edge; sampled on it, changed on the trailing edge
        if (txOn) w.set(this.pins.tx, out);
        sck(cpol ^ 1); // leading edge: the chips react first (the hazard rule: value after the edge)
        rx = (rx << 1) | sample();
        sck(cpol);
      } else {
        // data changes on the leading edge, sampled on the trailing edge
        sck(cpol ^ 1);
        if (txOn) w.set(this.pins.tx, out);
        sck(cpol); // trailing edge: chips react first, then the sample
        rx = (rx << 1) | sample();
      }
    }
    this.result = rx;
    const hz = this.spi.clockFrequency;
    const nanos = hz > 0 ? (bits * 1e9) / hz : 0;
    if (nanos > 0) this.alarm.schedule(nanos);
    else this.complete();
  }
  complete() {
    this.spi.completeTransmit(this.result);
  }
}

// ---- the board: chips wired to the Pico pins that hardware/board.json names
export function pitIndex(name) {
  // global pit index from a pit name (docs/architecture.md): side*16 + ring
  const row = name[0];
  const num = Number(name.slice(1));
  const side = 'AB'.includes(row) ? 0 : 1;
  const ring = 'Aa'.includes(row) ? num - 1 : 16 - num;
  return side * 16 + ring;
}

export class BoardChips {
  // faults: {swapLatchClock: bool, reverseChain: bool} wire the sensor chain wrongly, as a maker might.
  constructor(mcu, board, { faults = {}, onFrame = null } = {}) {
    const pico = Object.fromEntries(board.pico.pins.map((p) => [p.net, p.gp]));
    this.mcu = mcu;
    this.wires = new Wires();
    const w = this.wires;
    // GPIO outputs driven by the SIO (the latch) reach the nets through rp2040js's pin listeners
    const sensChips = board.sensor_chain.chips;
    const n = sensChips.length;
    const plNet = faults.swapLatchClock ? pico.SENS_CLK : pico.SENS_PL;
    const cpNet = faults.swapLatchClock ? pico.SENS_PL : pico.SENS_CLK;
    w.levels.set(pico.SENS_PL, 1);
    this.sensors = new HC165Chain(w, { pl: plNet, cp: cpNet, qh: pico.SENS_QH, chips: n });
    this.activeHigh = board.sensor_chain.active_high !== false;
    // pit index -> [chip position in the chain, input]
    this.sensorOf = new Map();
    sensChips.forEach((chip, c) => {
      const pos = faults.reverseChain ? n - 1 - c : c;
      chip.inputs.forEach((name, k) => this.sensorOf.set(pitIndex(name), [pos, k]));
    });
    for (let pit = 0; pit < 32; pit++) this.touch(pit, false);
    // faulty sensors (fault()): per chip, the inputs that read active whatever the hand does (stuck), that
    // never do (dead), and the flickering ones with their rate; a seeded generator makes a run repeatable
    this.stuck = new Uint8Array(n);
    this.dead = new Uint8Array(n);
    this.flicker = []; // [chip, input, percent of the loads it reads active at]
    this.rng = 0x2545f491;
    this.sensors.filter = (c, v) => this.faulty(c, v);
    const order = board.led_chain.order;
    this.ledPit = order.map(pitIndex);
    // LEDs latch one after the other as the end frame passes down the chain: report the frame once the
    // chain has been quiet for 100 us, stamped with the time its last LED changed
    this.frameAlarm = mcu.clock.createAlarm(() => onFrame?.(this.lastLatchMs));
    this.leds = new SK9822Chain(w, {
      ci: pico.LED_CLK, di: pico.LED_DAT, count: order.length,
      onFrame: () => {
        this.lastLatchMs = mcu.clock.nanos / 1e6;
        this.frameAlarm.schedule(100e3);
      },
    });
    this.sensSpi = new SpiWires(w, mcu.spi[board.pico.sensor_spi.bus], mcu.gpio, mcu.clock, {
      sck: pico.SENS_CLK, rx: pico.SENS_QH, tx: pico.NC_SPI0_TX ?? -1,
    });
    this.ledSpi = new SpiWires(w, mcu.spi[board.pico.led_spi.bus], mcu.gpio, mcu.clock, {
      sck: pico.LED_CLK, tx: pico.LED_DAT, rx: pico.NC_SPI1_RX ?? -1,
    });
    // the latch is a plain GPIO output (SIO): follow the pin
    const latch = mcu.gpio[pico.SENS_PL];
    latch.addListener((value) => {
      // GPIOPinState: 0 Low, 1 High, >= 2 an input (not driven: the net keeps its level)
      if (latch.functionSelect === 5 /* SIO */ && value <= 1) w.set(pico.SENS_PL, value);
    });
  }
  touch(pit, on) {
    const [chip, k] = this.sensorOf.get(pit);
    this.sensors.setInput(chip, k, on ? this.activeHigh : !this.activeHigh);
  }
  // a sensor's fault, as tests/firmware/test_board_health.py models them on the simulated board: 'stuck' (its
  // input reads active: a stuck or shorted TTP223; eight of them on one chip: the chip, its supply or
  // ribbon), 'dead' (it never reads active: a chip's byte at 0 when all eight are), 'flicker' (it also reads
  // active at random at `rate` percent of the chain's loads: a loose wire), 'ok' (sound again)
  fault(pit, kind, rate = 0) {
    const [chip, k] = this.sensorOf.get(pit);
    const bit = 1 << k;
    this.stuck[chip] &= ~bit;
    this.dead[chip] &= ~bit;
    this.flicker = this.flicker.filter(([c, i]) => c !== chip || i !== k);
    if (kind === 'stuck') this.stuck[chip] |= bit;
    else if (kind === 'dead') this.dead[chip] |= bit;
    else if (kind === 'flicker') this.flicker.push([chip, k, rate]);
    else if (kind !== 'ok') throw new Error(`no sensor fault ${kind}`);
  }
  random100() {
    // xorshift32: the same blips for the same run
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x >>> 0;
    return this.rng % 100;
  }
  faulty(chip, v) {
    let on = this.stuck[chip];
    const off = this.dead[chip];
    for (const [c, k, rate] of this.flicker) if (c === chip && this.random100() < rate) on |= 1 << k;
    if (!on && !off) return v;
    return this.activeHigh ? (v | on) & ~off & 0xff : (v & ~on & 0xff) | off;
  }
  // what the LEDs show, as the firmware's guide frame is laid out: R, G, B of pit i at 3*i, and the
  // global brightness of each LED
  frame() {
    const rgb = new Uint8Array(96);
    const bright = new Uint8Array(32);
    this.ledPit.forEach((pit, k) => {
      const s = this.leds.shown[k];
      if (!s) return;
      bright[pit] = s[0];
      rgb.set([s[1], s[2], s[3]], 3 * pit);
    });
    return { rgb, bright };
  }
}
