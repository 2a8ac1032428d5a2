#!/usr/bin/env node
// pico-run: boot the real MicroPython RP2040 image on the emulated Pico, optionally with files on its
// filesystem, run code over the raw REPL (USB CDC), stream its output and exit with its status.
//
//   node tools/pico/pico-run.mjs [options] [CODE]
//     --uf2 FILE          MicroPython image (default $PICO_UF2, else ../shared/pico/firmware.uf2 from the repo)
//     --bootrom FILE      RP2040 bootrom as an ES module exporting bootromB1 (default $PICO_BOOTROM, else
//                         ../shared/pico/bootrom.mjs)
//     --dir SRC[:DEST]    put SRC (a folder or a file) at DEST (default /) on the filesystem; repeatable
//     --exclude NAME      leave files or folders called NAME out of --dir (repeatable)
//     --fs-image IMG      start from this filesystem image; --save-fs IMG: write it back after the run
//     -c CODE | CODE      Python to run in the raw REPL (default: print the free heap)
//     --file F.py         run the contents of F.py
//     --run-for MS        no REPL: let boot.py/main.py run for MS of Pico time, print what they write
//     --board             attach the board's chips (hardware/board.json) to the pins
//     --no-flash-timing   flash writes take no time (default: the datasheet's typical times)
//     --timeout S         wall-clock limit (default 900); --sim-timeout S: Pico-time limit
//     --stats             print boot and run times (Pico ms) and flash counts on stderr
//     --xip-cache         count the code's reads of flash and the misses of a model of the XIP cache
//                         (xipcache.mjs; printed with --stats; the time does not change)
// Exit status: 0 ok, 1 the code raised, 2 bad arguments, 3 no REPL, 124 timeout.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pico } from './pico.mjs';
import { installXipCache } from './xipcache.mjs';
import { defaults } from './paths.mjs';

const argv = process.argv.slice(2);
const opt = { dirs: [], exclude: [], timeout: 900, simTimeout: 0, ...defaults() };
let code = null;
function usage(msg) {
  process.stderr.write(`pico-run: ${msg}\n`);
  process.exit(2);
}
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--uf2') opt.uf2 = val();
  else if (a === '--bootrom') opt.bootrom = val();
  else if (a === '--dir') opt.dirs.push(val());
  else if (a === '--exclude') opt.exclude.push(val());
  else if (a === '--fs-image') opt.fsImage = val();
  else if (a === '--save-fs') opt.saveFs = val();
  else if (a === '-c') code = val();
  else if (a === '--file') code = fs.readFileSync(val(), 'utf8');
  else if (a === '--run-for') opt.runFor = Number(val());
  else if (a === '--board') opt.board = true;
  else if (a === '--no-flash-timing') opt.flashTiming = false;
  else if (a === '--timeout') opt.timeout = Number(val());
  else if (a === '--sim-timeout') opt.simTimeout = Number(val());
  else if (a === '--stats') opt.stats = true;
  else if (a === '--xip-cache') opt.xipCache = true;
  else if (a === '-h' || a === '--help') {
    const src = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    console.log(src.slice(1, 19).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
    process.exit(0);
  } else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else code = a;
}
code ??= 'import gc\ngc.collect()\nprint(gc.mem_free())\n';

function buildFs() {
  if (!opt.dirs.length) return opt.fsImage ? fs.readFileSync(opt.fsImage) : null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pico-run-'));
  const img = path.join(tmp, 'fs.img');
  try {
    execFileSync(opt.python, [opt.mkfs, img, ...opt.dirs, ...opt.exclude.flatMap((e) => ['--exclude', e])], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return fs.readFileSync(img);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

let pico;
let xip = null;
try {
  const board = opt.board ? JSON.parse(fs.readFileSync(opt.boardJson, 'utf8')) : null;
  pico = await Pico.create({ uf2: opt.uf2, bootrom: opt.bootrom, fsImage: buildFs(), board, flashTiming: opt.flashTiming });
  if (opt.xipCache) xip = installXipCache(pico.mcu, pico.flashStats);
} catch (e) {
  process.stderr.write(`pico-run: ${e.message}\n`);
  process.exit(3);
}

const wall0 = Date.now();
const stats = {};
const latin1 = new TextDecoder('latin1');
let state = opt.runFor ? 'free' : 'boot'; // boot -> raw -> sent -> out -> err -> done
let rx = '';
let stderrText = '';
let status = null;

function finish(s) {
  status = s;
}

pico.onSerial = (data) => {
  if (state === 'free') {
    process.stdout.write(data);
    return;
  }
  let text = latin1.decode(data);
  if (state === 'boot' || state === 'raw' || state === 'sent') {
    rx += text;
    if (state === 'boot' && rx.includes('>>> ')) {
      stats.promptMs = pico.ms;
      state = 'raw';
      rx = '';
      pico.send([1]); // Ctrl-A: raw REPL
    } else if (state === 'raw' && rx.includes('raw REPL; CTRL-B to exit\r\n>')) {
      state = 'sent';
      rx = '';
      stats.startMs = pico.ms;
      xip?.reset();
      pico.send(Buffer.from(code.replace(/\r\n/g, '\n') + '\x04', 'utf8'));
    } else if (state === 'sent' && rx.startsWith('OK')) {
      text = rx.slice(2);
      rx = '';
      state = 'out';
    } else if (state === 'sent' && rx.length >= 2 && !rx.startsWith('OK')) {
      process.stderr.write(`pico-run: the raw REPL refused the code: ${JSON.stringify(rx)}\n`);
      finish(3);
      return;
    } else return;
    if (state !== 'out') return;
  }
  while (text.length && status == null) {
    const eot = text.indexOf('\x04');
    const part = eot < 0 ? text : text.slice(0, eot);
    if (state === 'out') process.stdout.write(Buffer.from(part, 'latin1'));
    else if (state === 'err') {
      stderrText += part;
      process.stderr.write(Buffer.from(part, 'latin1'));
    }
    if (eot < 0) break;
    text = text.slice(eot + 1);
    if (state === 'out') state = 'err';
    else if (state === 'err') {
      stats.runMs = pico.ms - stats.startMs;
      if (xip) stats.xip = { reads: xip.reads, misses: xip.misses };
      finish(stderrText.length ? 1 : 0);
    }
  }
};

let lastNudge = -1e9;
while (status == null) {
  pico.runFor(5);
  if (state === 'boot' && pico.connected && pico.ms - lastNudge > 250) {
    lastNudge = pico.ms;
    pico.send([13, 3, 3]); // Ctrl-C: stop main.py if one runs, and show the prompt
  }
  if (opt.runFor && pico.ms >= opt.runFor) finish(0);
  else if ((Date.now() - wall0) / 1000 > opt.timeout) {
    process.stderr.write(`pico-run: wall-clock timeout after ${opt.timeout} s (${state})\n`);
    finish(124);
  } else if (opt.simTimeout && pico.ms / 1000 > opt.simTimeout) {
    process.stderr.write(`pico-run: Pico-time timeout after ${opt.simTimeout} s (${state})\n`);
    finish(124);
  }
  if (status == null && (pico.ms & 1023) < 5) await new Promise((r) => setImmediate(r)); // let stdout drain
}
if (opt.saveFs) fs.writeFileSync(opt.saveFs, pico.fsImage());
if (opt.stats) {
  const f = (x) => (x == null ? '-' : x.toFixed(1));
  const wall = (Date.now() - wall0) / 1000;
  process.stderr.write(
    `[pico-run] usb at ${f(pico.connectedAtMs)} ms, REPL at ${f(stats.promptMs)} ms; code ran ${f(stats.runMs)} ms ` +
      `of Pico time; flash: ${pico.flashStats.erases} sector erases, ${pico.flashStats.programs} page programs, ` +
      `${f(pico.flashStats.busyMs)} ms busy; ${f(pico.ms)} ms in ${wall.toFixed(1)} s wall ` +
      `(${(pico.ms / 1000 / wall).toFixed(3)}x real time)` +
      (stats.xip ? `; xip: ${stats.xip.reads} reads, ${stats.xip.misses} misses while the code ran` : '') + '\n',
  );
}
process.stdout.write('', () => process.exit(status));
