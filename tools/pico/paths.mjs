// Where the emulated Pico's inputs are, unless given: the MicroPython image and the RP2040 bootrom from the
// environment ($PICO_UF2, $PICO_BOOTROM) or the workspace's shared folder next to the repository, the
// board description, and the Python that builds filesystem images (the repository's .venv).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');

export function defaults() {
  const venvPython = path.join(ROOT, '.venv', 'bin', 'python');
  return {
    uf2: process.env.PICO_UF2 || path.resolve(ROOT, '..', 'shared', 'pico', 'firmware.uf2'),
    bootrom: process.env.PICO_BOOTROM || path.resolve(ROOT, '..', 'shared', 'pico', 'bootrom.mjs'),
    boardJson: path.join(ROOT, 'hardware', 'board.json'),
    python: process.env.PICO_PYTHON || (fs.existsSync(venvPython) ? venvPython : 'python3'),
    mkfs: path.join(HERE, 'mkfs.py'),
    flashTiming: true,
  };
}
