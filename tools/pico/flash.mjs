// The Pico's SPI NOR flash (a W25Q16JV: 2 MiB) behind the RP2040's SSI, for rp2040js, which serves reads
// from its flash array but ignores the program and erase commands that LittleFS needs.
//
// The bootrom's flash_range_erase/program (pico-sdk hardware_flash, used by MicroPython's rp2.Flash)
// select the chip through IO_QSPI SS_CTRL's output override and shift command bytes through SSI DR0; this
// model decodes those transactions. Program and erase take the datasheet's typical times of Pico time:
// status register 1 reports BUSY until then, so the bootrom's polling spends the time a real write takes
// (and a power cut can land inside it: the page or sector is then left half done).
import { BasePeripheral } from 'rp2040js';

const SSI_DR0 = 0x60;
const SSI_TXFLR = 0x20;
const SSI_RXFLR = 0x24;
const SS_CTRL = 0x0c; // IO_QSPI GPIO_QSPI_SS_CTRL
const SIZE = 2 * 1024 * 1024;

// W25Q16JV datasheet, AC characteristics, typical values (maximum: 3 ms, 400 ms, 1.6 s, 2 s)
export const FLASH_TIMING_TYPICAL = { pageProgramMs: 0.7, sectorEraseMs: 45, block32EraseMs: 120, block64EraseMs: 150 };
export const FLASH_TIMING_NONE = { pageProgramMs: 0, sectorEraseMs: 0, block32EraseMs: 0, block64EraseMs: 0 };

export function installFlash(mcu, timing = FLASH_TIMING_TYPICAL) {
  const flash = mcu.flash;
  const clock = mcu.clock;
  let selected = false;
  let tx = [];
  let rx = [];
  let writeEnabled = false;
  let busyUntil = 0; // clock.nanos at which the running program/erase ends
  const stats = { programs: 0, erases: 0, bytes: 0, busyMs: 0 };

  const busy = () => clock.nanos < busyUntil;
  function startBusy(ms) {
    busyUntil = clock.nanos + ms * 1e6;
    stats.busyMs += ms;
  }

  function respond(pos) {
    // the byte the flash shifts out while byte `pos` of the transaction is shifted in
    if (pos === 0) return 0;
    switch (tx[0]) {
      case 0x05: // status register 1: BUSY (bit 0), WEL (bit 1)
        return (busy() ? 1 : 0) | (writeEnabled ? 2 : 0);
      case 0x9f: // JEDEC id: Winbond W25Q16
        return [0xef, 0x40, 0x15][pos - 1] ?? 0;
      case 0x03: // read data
        if (pos < 4) return 0;
        return flash[(((tx[1] << 16) | (tx[2] << 8) | tx[3]) + pos - 4) % SIZE];
      case 0x4b: // unique id (4 dummy bytes, then 8 bytes)
        return pos >= 5 ? ([0xe6, 0x61, 0x38, 0x30, 0x42, 0x61, 0x6f, 0x21][pos - 5] ?? 0) : 0;
      default:
        return 0;
    }
  }

  function endTransaction() {
    const cmd = tx[0];
    const addr = tx.length >= 4 ? (tx[1] << 16) | (tx[2] << 8) | tx[3] : 0;
    if (busy() && cmd !== 0x05) {
      tx = []; // a real chip ignores commands while busy
      return;
    }
    if (cmd === 0x06) writeEnabled = true;
    else if (cmd === 0x04) writeEnabled = false;
    else if (cmd === 0x02 && tx.length > 4 && writeEnabled) {
      const page = addr & ~0xff;
      for (let i = 4; i < tx.length; i++) flash[page | ((addr + i - 4) & 0xff)] &= tx[i]; // NOR: 1 -> 0 only
      stats.programs++;
      stats.bytes += tx.length - 4;
      writeEnabled = false;
      startBusy(timing.pageProgramMs);
    } else if ((cmd === 0x20 || cmd === 0x52 || cmd === 0xd8) && tx.length >= 4 && writeEnabled) {
      const size = cmd === 0x20 ? 4096 : cmd === 0x52 ? 32768 : 65536;
      const base = addr & ~(size - 1);
      flash.fill(0xff, base, base + size);
      stats.erases++;
      writeEnabled = false;
      startBusy(cmd === 0x20 ? timing.sectorEraseMs : cmd === 0x52 ? timing.block32EraseMs : timing.block64EraseMs);
    } else if ((cmd === 0xc7 || cmd === 0x60) && writeEnabled) {
      flash.fill(0xff);
      writeEnabled = false;
      startBusy(5000);
    }
    tx = [];
  }

  // IO_QSPI: keep the registers (the bootrom read-modify-writes them) and watch chip select
  class IoQspi extends BasePeripheral {
    constructor() {
      super(mcu, 'IO_QSPI_BASE');
      this.regs = new Map();
    }
    readUint32(offset) {
      return this.regs.get(offset) ?? 0;
    }
    writeUint32(offset, value) {
      this.regs.set(offset, value >>> 0);
      if (offset === SS_CTRL) {
        const low = ((value >>> 8) & 3) === 2; // OUTOVER = drive low
        if (low && !selected) {
          tx = [];
          rx = [];
        } else if (!low && selected) endTransaction();
        selected = low;
      }
    }
  }
  mcu.peripherals[0x40018] = new IoQspi();

  const ssi = mcu.peripherals[0x18000];
  const ssiWrite = ssi.writeUint32.bind(ssi);
  const ssiRead = ssi.readUint32.bind(ssi);
  ssi.writeUint32 = (offset, value) => {
    if (offset !== SSI_DR0) return ssiWrite(offset, value);
    if (selected) {
      tx.push(value & 0xff);
      rx.push(respond(tx.length - 1));
    } else rx.push(0);
  };
  ssi.readUint32 = (offset) => {
    if (offset === SSI_DR0) return rx.length ? rx.shift() : 0;
    if (offset === SSI_RXFLR) return rx.length;
    if (offset === SSI_TXFLR) return 0;
    return ssiRead(offset);
  };
  return stats;
}
