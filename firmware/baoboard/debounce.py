# Per-pit debouncing: raw sensor bitmaps (4 bytes, bit i&7 of byte i>>3 = pit i) in, activations out; and
# the sensors' health (poll(), below): what reads a pit's sensor also judges it.
# An activation is a debounced rising edge: a hand (or seed) newly sensed at a pit. A pit changes its
# debounced level only after `stable` consecutive scans agree, so contact bounce and single-scan noise
# never make an activation. Activations queue in a ring buffer with the tick they were confirmed at.
# Nothing is allocated after __init__: scan() and pop() only touch preallocated buffers and small ints.
from baoboard.compat import const, ticks_diff

PITS = const(32)
_QUEUE = const(32)  # activations that may wait between two pops (a sowing hand is far slower)

# Sensor faults the board sees for itself (issue #14; docs/leds.md, "Broken sensors"), in kind[pit]:
_STUCK = const(1)  # senses a hand far longer than a hand stays: a stuck or shorted sensor, or a TTP223
# touched at power-up, which then reads inverted (hardware/README.md)
_FLICKER = const(2)  # pulses shorter than the debounce (blips), far faster than a hand: a TTP223's
# push-pull output never makes them; a loose wire or a failing sensor does
_SAID = const(4)  # ... reported (baoboard.sensors also names a whole chip stuck)
_SILENT = const(8)  # its whole 74HC165 senses nothing (all 8 inputs read 0): found in play, by the moves that
# went on past its pits (baoboard.sensors.fault); kind[32 + pit] holds the chip + 1. Taken back at once when
# one of its pits senses a touch.
_SEEN = const(64)  # kind[64 + b]: the pits that made an activation (as the raw bitmap; sensors.fault clears a
# chip's when the chip is suspect)
_EVIDENCE = const(68)  # kind[68 + chip]: the touches, in the move under way, where the move would go on past
# the chip's pits while it sensed no touch (new_move forgets them)
_LAST = const(72)  # kind[72]: the chip + 1 the last refused touch gave evidence against (0: none; _ONE: a pit)
_ONE = const(255)  # ... the pit of kind[73]
_DEAD = const(73)  # kind[73]: the pit + 1 suspected of a dead input (one pit of a working chip that senses
# nothing, found in play as a silent chip is: baoboard.sensors), kind[74]: the touches of this move where the
# move went on past it (mid-sowing, from it as its start, or the next move after it as its end) while it
# sensed no touch (new_move forgets them); kind[75]: the other pit + 1 when two explain that evidence alike,
# kind[76]: the touch + 1 that gave it between moves (baoboard.sensors)
_PAIR = const(75)
# A faulty pit is ignored (the application masks `faulty` out of every scan) and lit (baoboard.guide). A
# stuck pit that reads idle again for _CLEAR_CHECKS checks is taken back; a flickering one stays ignored
# until the board restarts (masked, it can no longer be watched); a silent chip's pits are taken back at the
# first touch one of them senses. Each pit is checked every _CHECK_MS, not every scan, and one chip's eight
# pits at a time (every _CHECK_MS / 4): a scan never does all 32 pits' checks at once.
_CHECK_MS = const(100)
_CHIP_CHECK_MS = const(25)  # _CHECK_MS / 4 chips
_STUCK_CHECKS = const(200)  # active at every check for 20 s: no hand stays so long (the self-test: 2 s)
_CLEAR_CHECKS = const(20)  # idle at every check for 2 s: a stuck pit reads normally again
_FLICKER_BLIPS = const(8)  # blips counted, one forgotten every other check (5 a second): a hand makes none


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
        self.blips = bytearray(PITS)  # per pit: pulses shorter than `stable` scans lately (noise), at most 255
        self.faulty = bytearray(4)  # the pits whose sensor is faulty, ignored: as the raw bitmap
        self.kind = bytearray(2 * PITS + 13)  # [pit]: _STUCK, _FLICKER or _SILENT (| _SAID), 0: sound; [32 + pit]:
        # checks in a row a sound pit was active (a stuck one: idle); [64..67]: _SEEN; [68 + chip]: the moves
        # that went on past the chip's pits while it sensed no touch (baoboard.sensors.fault); [72]: _LAST;
        # [73], [74]: _DEAD; [75], [76]: _PAIR
        self.check_at = _CHECK_MS  # tick of the next check (poll(): the scan loop calls it only once it is due)
        self.settling = 0  # some pit's raw level differs from its debounced one, not yet stable (busy non-zero)
        self.last_tick = 0  # tick of the activation pop() returned last

    def reset(self, bitmap: "bytearray | None" = None) -> None:
        """Forget history; with bitmap, take it as the current level (no activations for what is held)."""
        for b in range(4):
            self.level[b] = bitmap[b] if bitmap is not None else 0
            self.busy[b] = 0
        for i in range(PITS):
            self.count[i] = 0
        self.head = self.tail = 0
        self.settling = 0

    def quiet(self, raw: bytearray) -> bool:
        """Whether scan(raw) would do nothing: every pit at its debounced level, none settling, no activation
        waiting (the scan loop's common case, told without scan()'s loop)."""
        return not self.settling and self.head == self.tail and raw == self.level

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
        self.settling = busy[0] | busy[1] | busy[2] | busy[3]
        return found

    def _push(self, pit: int, now: int) -> None:
        nxt = (self.tail + 1) % _QUEUE
        if nxt == self.head:
            self.overflow += 1
            return
        self.kind[_SEEN + (pit >> 3)] |= 1 << (pit & 7)  # (the chip works: baoboard.sensors)
        self.q[self.tail] = pit
        self.qt[self.tail] = now
        self.tail = nxt

    def new_move(self) -> None:
        """A move boundary: the evidence of a silent chip is forgotten. A chip that senses nothing stops the
        move that sows through it, so both touches that show it come in that move; a move made to its end
        shows the refused touches of it were slips (clumsy play, a whole game of it, adds up to nothing)."""
        kind = self.kind
        for c in range(4):
            kind[_EVIDENCE + c] = 0
        kind[_LAST] = kind[_DEAD] = kind[_DEAD + 1] = kind[_PAIR] = kind[_PAIR + 1] = 0

    def taken_back(self) -> None:
        """The touch refused last was taken back (its pit touched again: the seed out again; at once, or between moves
        however late, not after a look in the middle of a move: Recogniser._wrong). The player says it was a slip: it is
        no evidence of a silent chip (issue #26: two slips in one move, each taken back, made a healthy chip silent and
        the move the slips pointed to was taken as made)."""
        kind = self.kind
        c = kind[_LAST]
        if c == _ONE:
            if kind[_DEAD + 1]:
                kind[_DEAD + 1] -= 1
        elif c and kind[_EVIDENCE + c - 1]:
            kind[_EVIDENCE + c - 1] -= 1
        kind[_LAST] = 0

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

    def poll(self, raw: bytearray, now: int) -> bool:
        """Each scan, with the raw bitmap (before `faulty` is masked out of it): every _CHIP_CHECK_MS, judge
        the sensors of the next chip, so each pit every _CHECK_MS (a slow scan judges every chip that is due).
        True when a pit was found faulty (kind[pit] without _SAID: to be reported). The scan loop calls it only
        once check_at is reached (a call less a scan)."""
        late = ticks_diff(now, self.check_at)
        if late < 0:
            return False
        chips = late // _CHIP_CHECK_MS + 1 if late < 3 * _CHIP_CHECK_MS else 4
        tick = self.check_at
        first = ((tick // _CHIP_CHECK_MS) & 3) << 3  # the chips in turn, one a slot of the checks' clock
        # (far behind, after a long step, the checks go on from now)
        self.check_at = tick + chips * _CHIP_CHECK_MS if late < 4 * _CHIP_CHECK_MS else now + _CHIP_CHECK_MS
        found = False
        decay = (tick // _CHECK_MS) & 1
        blips = self.blips
        kind = self.kind
        faulty = self.faulty
        revive = 0
        for j in range(chips << 3):
            i = (first + j) & 31
            b = i >> 3
            bit = 1 << (i & 7)
            on = raw[b] & bit
            h = kind[PITS + i]
            k = kind[i]
            if k & _STUCK:
                h = 0 if on else h + 1
                if h >= _CLEAR_CHECKS:  # it reads normally again
                    kind[i] = 0
                    faulty[b] &= ~bit
                    h = 0
            elif k & _SILENT:
                if on:  # a touch sensed: the chip works (again)
                    revive = h
            elif not k:
                h = (h + 1 if h < 255 else h) if on else 0
                if h >= _STUCK_CHECKS:
                    kind[i] = _STUCK
                    h = 0
                elif blips[i] >= _FLICKER_BLIPS:
                    kind[i] = _FLICKER
                if kind[i]:
                    faulty[b] |= bit
                    found = True
            kind[PITS + i] = h
            if decay and blips[i]:
                blips[i] -= 1
        if revive:
            for i in range(PITS):
                if kind[i] & _SILENT and kind[PITS + i] == revive:
                    kind[i] = kind[PITS + i] = 0
                    faulty[i >> 3] &= ~(1 << (i & 7))
            if revive <= 4:  # (revive: the chip + 1; a dead input's mark is above: baoboard.sensors)
                kind[_EVIDENCE + revive - 1] = 0
        return found
