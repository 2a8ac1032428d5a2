// A model of the RP2040's XIP cache that counts, for pico-run --xip-cache: rp2040js serves every read of the
// flash at once, as if each hit the cache. The cache (RP2040 datasheet, 2.6.3.1 XIP Cache): 16 KB, two-way
// set-associative, 8-byte lines; the 0x10 alias caches and allocates, 0x11 checks without allocating, 0x12
// and 0x13 bypass it. Replacement here is least recently used. The SDK flushes the cache after each flash
// erase or program: so does the model. Time is not changed: the benchmark turns misses into time.
const SETS = 1024; // 16 KB / 8-byte lines / 2 ways

export function installXipCache(mcu, flashStats) {
  const tags = new Int32Array(SETS * 2).fill(-1);
  const next = new Uint8Array(SETS); // the way a miss in each set replaces
  let writes = 0;
  const st = {
    reads: 0,
    misses: 0,
    reset() {
      st.reads = 0;
      st.misses = 0;
    },
  };
  const look = (address) => {
    const a = address >>> 0;
    if (a < 0x10000000 || a >= 0x14000000) return;
    const done = flashStats.erases + flashStats.programs;
    if (done !== writes) {
      writes = done;
      tags.fill(-1);
    }
    st.reads++;
    const alias = a >>> 24;
    if (alias >= 0x12) {
      st.misses++;
      return;
    }
    const line = (a & 0xffffff) >>> 3;
    const set = line & (SETS - 1);
    const tag = line >>> 10;
    const i = set * 2;
    if (tags[i] === tag) next[set] = 1;
    else if (tags[i + 1] === tag) next[set] = 0;
    else {
      st.misses++;
      if (alias === 0x10) {
        tags[i + next[set]] = tag;
        next[set] ^= 1;
      }
    }
  };
  for (const name of ['readUint32', 'readUint16', 'readUint8']) {
    const read = mcu[name].bind(mcu);
    mcu[name] = (address) => {
      look(address);
      return read(address);
    };
  }
  return st;
}
