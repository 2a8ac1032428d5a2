#!/usr/bin/env node
// The Bao board on an emulated Pico, driven in lockstep by the host's simulator (host/bao_host/pico.py)
// over stdin/stdout, one line per message; Pico time advances only on R.
//   host -> board   P <pit> <0|1>     a hand on (1) or off (0) pit <pit>: the sensor's output on its 74HC165
//                   F <pit> <kind> [%] the sensor of pit <pit> is faulty: stuck, dead, flicker <percent of
//                                     the chain's loads it reads active at>, ok (chips.mjs BoardChips.fault);
//                                     kept over power cuts, as the hands are
//                   S <hex>           bytes from the host into the Pico's USB CDC
//                   R <ms>            run <ms> of Pico time
//                   C <us>            run <us> more microseconds, then cut the power and boot again
//                   T                 statistics
//                   Q                 quit
//   board -> host   S <hex>           bytes the Pico wrote to USB CDC
//                   L <ms> <rgb> <brightness>   the LED chain latched a new frame at Pico time <ms>: R,G,B
//                                     per pit (96 bytes, pit-index order) and the 5-bit brightness per pit
//                   K <ms>            the sensor chain was latched (/PL) at Pico time <ms> (with --latches)
//                   D <ms>            end of an R or C: the Pico's time
//                   T <json>          answer to T
//                   E <text>          an error in the emulator itself (the process then exits 3)
//                   X <misses>        (with --xip-cache) after each L and D: the misses so far of a model of the
//                                     XIP cache (xipcache.mjs; the time does not change)
// Options: --fs-image IMG (the flash's filesystem; required), --save-fs IMG (written at Q, at the end of
//          the input, at SIGHUP and SIGTERM),
//          --fault swap-latch-clock | reverse-chain (a wrongly wired sensor chain; repeatable),
//          --no-flash-timing, --latches (a K line per sensor read), --xip-cache, --uf2 FILE, --bootrom FILE.
import fs from 'node:fs';
import readline from 'node:readline';
import { defaults } from './paths.mjs';
import { Pico } from './pico.mjs';
import { installXipCache } from './xipcache.mjs';

const opt = { ...defaults(), faults: {} };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => argv[++i];
  if (a === '--fs-image') opt.fsImage = val();
  else if (a === '--save-fs') opt.saveFs = val();
  else if (a === '--uf2') opt.uf2 = val();
  else if (a === '--bootrom') opt.bootrom = val();
  else if (a === '--no-flash-timing') opt.flashTiming = false;
  else if (a === '--latches') opt.latches = true;
  else if (a === '--xip-cache') opt.xipCache = true;
  else if (a === '--fault') {
    const f = val();
    if (f === 'swap-latch-clock') opt.faults.swapLatchClock = true;
    else if (f === 'reverse-chain') opt.faults.reverseChain = true;
    else fail(`unknown fault ${f}`);
  } else fail(`unknown option ${a}`);
}

function fail(msg) {
  process.stdout.write(`E ${msg}\n`);
  process.exit(3);
}

const lines = [];
const put = (s) => lines.push(s);
function flush() {
  if (lines.length) process.stdout.write(lines.join('\n') + '\n');
  lines.length = 0;
}
const hex = (a) => Buffer.from(a).toString('hex');

let pico;
try {
  const board = JSON.parse(fs.readFileSync(opt.boardJson, 'utf8'));
  const fsImage = opt.fsImage ? fs.readFileSync(opt.fsImage) : null;
  pico = await Pico.create({ uf2: opt.uf2, bootrom: opt.bootrom, fsImage, board, faults: opt.faults, flashTiming: opt.flashTiming });
} catch (e) {
  fail(e.message);
}
const hands = new Map(); // pit -> on, kept over power cuts
const sensorFaults = new Map(); // pit -> [kind, rate], kept over power cuts
let cuts = 0;
let lastFrame = '';
let xip = null;
const misses = () => {
  if (xip) put(`X ${xip.misses}`);
};
// the time between two sensor reads (the scan loop's period; a hand shorter than its longest gap can go
// unseen), kept since the last T
const scan = { last: -1, gaps: [] };
function scanStats() {
  const g = scan.gaps.slice().sort((a, b) => a - b);
  scan.gaps = [];
  if (!g.length) return null;
  const at = (q) => g[Math.min(g.length - 1, Math.floor(q * g.length))];
  return { n: g.length, medianMs: at(0.5), p99Ms: at(0.99), maxMs: g[g.length - 1], minMs: g[0] };
}
function attach(p) {
  scan.last = -1;
  p.chips.sensors.onLoad = () => {
    const t = p.ms;
    if (scan.last >= 0) scan.gaps.push(t - scan.last);
    if (opt.latches) put(`K ${t.toFixed(3)}`);
    scan.last = t;
  };
  p.onSerial = (data) => put(`S ${hex(data)}`);
  p.onFrame = (ms) => {
    const { rgb, bright } = p.chips.frame();
    const key = hex(rgb) + ' ' + hex(bright);
    if (key !== lastFrame) {
      lastFrame = key;
      put(`L ${ms.toFixed(3)} ${key}`);
      misses();
    }
  };
  for (const [pit, on] of hands) p.chips.touch(pit, on);
  for (const [pit, [kind, rate]] of sensorFaults) p.chips.fault(pit, kind, rate);
  if (opt.xipCache) xip = installXipCache(p.mcu, p.flashStats);
}
attach(pico);

// The flash kept as a file (--save-fs): written whole through a new file, so that a host killed while it is
// written finds the previous image, never half of one.
function saveFlash() {
  if (!opt.saveFs) return;
  fs.writeFileSync(opt.saveFs + '.new', pico.fsImage());
  fs.renameSync(opt.saveFs + '.new', opt.saveFs);
}
// A real board's flash keeps every write: a host whose terminal is closed (SIGHUP) or that is stopped must not
// cost the emulated board what it wrote since the last Q.
for (const signal of ['SIGHUP', 'SIGTERM']) {
  process.on(signal, () => {
    saveFlash();
    process.exit(0);
  });
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of rl) {
  const w = line.trim().split(/\s+/);
  try {
    if (w[0] === 'P') {
      const pit = Number(w[1]);
      if (!(pit >= 0 && pit < 32)) throw new Error(`no pit ${w[1]}`);
      hands.set(pit, w[2] === '1');
      pico.chips.touch(pit, w[2] === '1');
    } else if (w[0] === 'F') {
      const pit = Number(w[1]);
      if (!(pit >= 0 && pit < 32)) throw new Error(`no pit ${w[1]}`);
      pico.chips.fault(pit, w[2], Number(w[3] ?? 0));
      sensorFaults.set(pit, [w[2], Number(w[3] ?? 0)]);
    } else if (w[0] === 'S') {
      pico.send(Buffer.from(w[1] ?? '', 'hex'));
    } else if (w[0] === 'R') {
      pico.runFor(Number(w[1]));
      misses();
      put(`D ${pico.ms.toFixed(3)}`);
    } else if (w[0] === 'C') {
      pico.runFor(Number(w[1] ?? 0) / 1000);
      const t = pico.ms;
      pico = await pico.powerCut();
      cuts++;
      lastFrame = '';
      attach(pico);
      put(`D ${t.toFixed(3)}`);
    } else if (w[0] === 'T') {
      put(`T ${JSON.stringify({ ms: pico.ms, cuts, flash: pico.flashStats, ledBad: pico.chips.leds.bad, sensorReads: pico.chips.sensSpi.bytes, scan: scanStats() })}`);
    } else if (w[0] === 'Q') {
      break;
    } else if (w[0]) {
      throw new Error(`unknown command ${w[0]}`);
    }
  } catch (e) {
    put(`E ${e.message}`);
    if (w[0] === 'R' || w[0] === 'C') {  // the emulated CPU stopped (a fault): no D will come, the host must hear it
      flush();
      process.exit(3);
    }
  }
  flush();
}
flush();
saveFlash();
process.exit(0);
