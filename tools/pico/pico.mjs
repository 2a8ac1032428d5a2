// One emulated Raspberry Pi Pico: rp2040js running the real MicroPython RP2040 image, with the flash model
// (flash.mjs), a LittleFS image in its filesystem region, and USB CDC to a host. Time is Pico time: the
// machine runs only when asked to (runFor), so every figure it gives is repeatable.
//
//   const pico = await Pico.create({ uf2, bootrom, fsImage, board, faults });
//   pico.onSerial = (bytes) => ...;   pico.send(bytes);   pico.runFor(ms);   pico.ms
//   const next = await pico.powerCut();   // a new machine on the same flash, as after a real power cut
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConsoleLogger, LogLevel, Simulator, USBCDC } from 'rp2040js';
import { decodeBlock } from 'uf2';
import { BoardChips } from './chips.mjs';
import { FLASH_TIMING_NONE, FLASH_TIMING_TYPICAL, installFlash } from './flash.mjs';

export const FLASH_START = 0x10000000;
export const FS_OFFSET = 0xa0000; // RPI_PICO: the last 1408 KiB of the 2 MiB flash are the filesystem
export const FS_SIZE = 352 * 4096;
const CYCLE_NANOS = 1e9 / 125e6;

const bootroms = new Map();
async function loadBootrom(file) {
  if (!bootroms.has(file)) {
    if (!fs.existsSync(file)) throw new Error(`no RP2040 bootrom at ${file} (see README.md, "The emulated Pico")`);
    const mod = await import(pathToFileURL(path.resolve(file)).href);
    const rom = mod.bootromB1 ?? mod.default;
    if (!rom) throw new Error(`${file} exports no bootromB1`);
    bootroms.set(file, rom);
  }
  return bootroms.get(file);
}

export function flashFromUf2(file) {
  if (!fs.existsSync(file)) throw new Error(`no MicroPython image at ${file} (see README.md, "The emulated Pico")`);
  const data = fs.readFileSync(file);
  const image = new Uint8Array(2 * 1024 * 1024).fill(0xff);
  for (let off = 0; off + 512 <= data.length; off += 512) {
    const { flashAddress, payload } = decodeBlock(data.subarray(off, off + 512));
    image.set(payload, flashAddress - FLASH_START);
  }
  return image;
}

export class Pico {
  static async create({ uf2, bootrom, flash = null, fsImage = null, board = null, faults = {}, flashTiming = true }) {
    const rom = await loadBootrom(bootrom);
    const image = flash ?? flashFromUf2(uf2);
    if (fsImage) {
      if (fsImage.length > FS_SIZE) throw new Error('filesystem image larger than the filesystem region');
      image.set(fsImage, FS_OFFSET);
    }
    return new Pico(rom, image, { uf2, bootrom, board, faults, flashTiming });
  }

  constructor(rom, image, opts) {
    this.opts = opts;
    this.sim = new Simulator();
    const mcu = this.sim.rp2040;
    this.mcu = mcu;
    mcu.loadBootrom(rom);
    mcu.logger = new ConsoleLogger(LogLevel.Error);
    mcu.flash.set(image);
    this.flashStats = installFlash(mcu, opts.flashTiming ? FLASH_TIMING_TYPICAL : FLASH_TIMING_NONE);
    this.onSerial = null;
    this.onFrame = null;
    this.connected = false;
    this.chips = opts.board
      ? new BoardChips(mcu, opts.board, { faults: opts.faults, onFrame: (ms) => this.onFrame?.(ms) })
      : null;
    this.setupUsb();
    mcu.core.PC = 0x10000000;
  }

  get ms() {
    return this.sim.clock.nanos / 1e6;
  }

  // ---- USB CDC, paced as a real host: an OUT transfer is answered only when the host has bytes
  setupUsb() {
    const cdc = new USBCDC(this.mcu.usbCtrl);
    this.cdc = cdc;
    this.out = [];
    this.heldRead = null;
    const usb = this.mcu.usbCtrl;
    const read = usb.onEndpointRead;
    this.endpointRead = read;
    usb.onEndpointRead = (ep, size) => {
      this.pump();
      // rp2040js answers an armed OUT endpoint at once, with no bytes when the host has none: a flood of
      // empty packets a real host never sends. Hold the transfer until there is something to give.
      if (ep === cdc.outEndpoint && cdc.txFIFO.empty) {
        this.heldRead = [ep, size];
        return;
      }
      read(ep, size);
    };
    cdc.onDeviceConnected = () => {
      this.connected = true;
      this.connectedAtMs = this.ms;
    };
    cdc.onSerialData = (data) => this.onSerial?.(data);
  }

  send(bytes) {
    for (const b of bytes) this.out.push(b);
    this.pump();
    if (this.heldRead && !this.cdc.txFIFO.empty) {
      const [ep, size] = this.heldRead;
      this.heldRead = null;
      this.endpointRead(ep, size);
    }
  }

  pump() {
    let n = 0;
    while (n < this.out.length && !this.cdc.txFIFO.full) this.cdc.sendSerialByte(this.out[n++]);
    if (n) this.out.splice(0, n);
  }

  // ---- running
  runFor(ms) {
    return this.runUntil(this.sim.clock.nanos + ms * 1e6);
  }

  runUntil(targetNanos) {
    const { mcu } = this;
    const clock = this.sim.clock;
    const core = mcu.core;
    let n = 0;
    while (clock.nanos < targetNanos) {
      if (core.waiting) {
        const next = clock.nanosToNextAlarm;
        const left = targetNanos - clock.nanos;
        clock.tick(next > 0 && next < left ? next : left);
      } else {
        clock.tick(core.executeInstruction() * CYCLE_NANOS);
      }
      if ((++n & 0xfff) === 0 && this.out.length) this.send([]);
    }
    if (this.out.length) this.send([]);
  }

  // the filesystem region as it is now (the flash keeps it over a power cut)
  fsImage() {
    return this.mcu.flash.slice(FS_OFFSET, FS_OFFSET + FS_SIZE);
  }

  async powerCut() {
    const image = this.mcu.flash.slice();
    const rom = await loadBootrom(this.opts.bootrom);
    const next = new Pico(rom, image, this.opts);
    if (this.chips && next.chips) next.chips.sensors.inputs.set(this.chips.sensors.inputs); // hands stay
    next.onSerial = this.onSerial;
    next.onFrame = this.onFrame;
    return next;
  }
}
