# Per-pit debouncing: raw sensor bitmaps (4 bytes, bit i&7 of byte i>>3 = pit i) in, activations out.
# An activation is a debounced rising edge: a hand (or seed) newly sensed at a pit. A pit changes its
# debounced level only after `stable` consecutive scans agree, so contact bounce and single-scan noise
# never make an activation. Activations queue in a ring buffer with the tick they were confirmed at.
# Nothing is allocated after __init__: scan() and pop() only touch preallocated buffers and small ints.
from baoboard.compat import const

PITS = const(32)
_QUEUE = const(32)  # activations that may wait between two pops (a sowing hand is far slower)


class Debouncer:
    def __init__(self, stable: int = 3) -> None:
        self.stable = stable
        self.level = bytearray(4)  # debounced levels, same layout as the raw bitmap
        self.count = bytearray(PITS)  # consecutive scans that disagreed with the level
        self.busy = bytearray(4)  # pits whose count is non-zero: lets quiet bytes be skipped
        self.q = bytearray(_QUEUE)
        self.qt = [0] * _QUEUE  # ticks of each queued activation (small ints: no allocation to store)
        self.head = 0
        self.tail = 0
        self.overflow = 0  # activations lost because nobody popped them (a fault counter)
        self.blips = bytearray(PITS)  # pulses shorter than `stable` scans per pit (noise; baoboard.health
        # counts them down), at most 255
        self.last_tick = 0  # tick of the activation pop() returned last

    def reset(self, bitmap: "bytearray | None" = None) -> None:
        """Forget history; with bitmap, take it as the current level (no activations for what is held)."""
        for b in range(4):
            self.level[b] = bitmap[b] if bitmap is not None else 0
            self.busy[b] = 0
        for i in range(PITS):
            self.count[i] = 0
        self.head = self.tail = 0

    def scan(self, raw: bytearray, now: int = 0) -> int:
        """Take one raw bitmap; returns how many activations it confirmed."""
        found = 0
        level = self.level
        busy = self.busy
        count = self.count
        stable = self.stable
        for b in range(4):
            diff = raw[b] ^ level[b]
            if not diff and not busy[b]:
                continue
            base = b << 3
            for k in range(8):
                bit = 1 << k
                i = base + k
                if diff & bit:
                    c = count[i] + 1
                    if c >= stable:
                        count[i] = 0
                        busy[b] &= ~bit
                        level[b] ^= bit
                        if raw[b] & bit:
                            self._push(i, now)
                            found += 1
                    else:
                        count[i] = c
                        busy[b] |= bit
                elif busy[b] & bit:
                    count[i] = 0  # the raw level came back before it was stable: it was noise
                    busy[b] &= ~bit
                    if self.blips[i] < 255:
                        self.blips[i] += 1
        return found

    def _push(self, pit: int, now: int) -> None:
        nxt = (self.tail + 1) % _QUEUE
        if nxt == self.head:
            self.overflow += 1
            return
        self.q[self.tail] = pit
        self.qt[self.tail] = now
        self.tail = nxt

    def pending(self) -> int:
        return (self.tail - self.head) % _QUEUE

    def pop(self) -> int:
        """The oldest activation's pit, or -1. Its tick is in self.last_tick."""
        if self.head == self.tail:
            return -1
        h = self.head
        self.last_tick = self.qt[h]
        self.head = (h + 1) % _QUEUE
        return self.q[h]
