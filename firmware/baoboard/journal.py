# The board's journal: one append-only file that holds the game and the outbox, so that after a power cut
# at any instant the board comes back at the last completed move, and every event it ever sent comes back
# with the same sequence number and the same bytes. A move is opaque here: "notation position-json".
# RAM holds no payload of a move or of a pending event: where each move's record of the current game is in
# the file (an int each), and where the oldest pending event's is (the others follow it in the file), so a
# long game costs a few bytes a move and events piling up while no host listens cost no RAM at all.
#
#   j = Journal(storage, name="journal", limit=8192); j.open()    recover (call once at boot)
#   j.append(typ, payload) -> seq     make one event durable (returns after the write), then it may be sent.
#                                     GAME payload=info json         starts a game (moves emptied)
#                                     MOVE payload="notation pos"    one completed move (see move_payload)
#                                     UNDO payload=opaque            takes the last move back
#                                     END  payload=opaque            the game is over
#                                     CPU  payload="S 2" | "off"     who the computer plays (kept across games)
#                                     any other type (ILLEGAL, ERROR, ...) only goes to the outbox
#                                     -1: no room on the flash for it, even after a compaction; nothing written
#   j.ack(seq) -> bool                cumulative acknowledgement; False if it acknowledges nothing new
#   j.maintain() -> bool              in a quiet moment: a compaction that is due, a sector erased ahead (raw
#                                     flash only); False when there is nothing to do
#   j.full                            a compaction found no room on the flash (none is tried again until an ack)
#   j.game, j.ended                   the current game: info json | None, END payload | None
#   j.cpu                             the last CPU event's payload ("": none since the journal began)
#   j.begin(pit) -> bool              a move of the current game is begun from pit (its first activation), or
#                                     none is (-1: put back, cancelled, the board set up again); not an event
#   j.begun                           that pit, or -1: after a power cut the seeds of the pits that move may
#                                     have touched are not known (the board sets them up again, #28)
#   j.stop() -> bool                  the board is switched off on purpose with a move begun (a simulated
#                                     board whose host quits): j.stopped, read back at boot, tells it from a
#                                     power cut (the pits are set up again all the same); not an event
#   j.nmoves, j.move(k) -> payload    the moves of the current game (move(k) reads flash; k < 0 from the end)
#   j.npending, j.event(i) -> (seq, typ, payload)   the events not yet acknowledged, oldest first (reads flash)
#   j.moves, j.pending                the same as lists, read from flash (tests and tools)
#   j.epoch, j.last (last seq), j.acked, j.size (bytes on flash), j.dropped (torn bytes dropped at open)
#   j.recording                       False while the current game is not recorded: a GAME found more than
#                                     `budget` bytes of events waiting for a host, so this game's events
#                                     are kept for the game alone (append returns 0; never sent), and the
#                                     games waiting are kept as they are; the next GAME with room records again
#   j.pending_bytes                   bytes of the events waiting for a host (their records)
#   (a MOVE event's payload: baoproto.frames.move_payload, split_move)
#
# File: records  B7 kind len16le body crc32le  (crc over magic..body). A checkpoint (written by compact() with
# Storage.replace) starts the file: K "epoch next acked count", C cpu (if any), G info, M move..., X end, B pit (a
# move begun), Q "seq typ payload" per pending event; then live events E "seq acked typ payload" and B "pit" records
# (a move begun from pit; "-1": none; "pit s": that move left by a switch-off on purpose, stop). A MOVE, UNDO or
# GAME ends the move begun. Recovery reads records until the first bad one and keeps that prefix; a torn tail is
# removed by compacting at once. A record that is whole but wrong (or an incomplete checkpoint) is corruption,
# not a power cut: the prefix is kept under a new epoch. Compaction also runs when the file has grown by `limit`
# bytes since the last checkpoint, so flash use stays below checkpoint + limit + one record; it copies the moves
# and pending events from the old file into the new.
# On raw flash (baoboard.flashlog) it waits for maintain(), which the board calls when it is idle (an
# append compacts only once the file has grown 2 * limit), so that no move waits for it.
# An event of an unrecorded game is an E record with seq 0 ("0 acked typ payload"): it changes the game
# and is not pending; the checkpoint's K record then has a fifth field, 1. So the flash a journal takes
# is bounded: budget + one game's events + limit (+ the checkpoint's copy of the game's moves).
# Acks are not written on their own: each E record carries the ack level,
# an ack that was lost in a power cut only makes the host see a duplicate, which it drops by sequence.
try:
    from collections.abc import Iterator
    from typing import Any

    from baoboard.protocols import Storage  # (a stub: no module at run time)
except ImportError:
    pass

from bao import sowing

from baoboard.compat import const, crc32, modules_now, unload_new

_MAGIC = const(0xB7)
MAX_RECORD = const(4200)  # longest record body: an event frame (4096) and its header fit
# The record kinds (the file format: above), private so that MicroPython inlines them and keeps no name in
# RAM; baoboard.journal_io, loaded only for the recovery, declares the same (test_structure checks they agree).
_REC_CHECKPOINT = const(0x4B)  # K
_REC_GAME = const(0x47)  # G
_REC_MOVE = const(0x4D)  # M
_REC_END = const(0x58)  # X
_REC_PENDING = const(0x51)  # Q
_REC_EVENT = const(0x45)  # E
_REC_CPU = const(0x43)  # C
_REC_BEGUN = const(0x42)  # B
BUDGET = const(16384)  # bytes of events waiting for a host past which a new game is not recorded
_ENOSPC = const(28)  # OSError: no room left on the flash (append returns -1 then: Journal.full)
_HARD = const(2)  # with a storage that erases ahead, an append compacts only past limit * _HARD


def record(kind: int, body: "Any", payload: "Any" = b"") -> bytearray:
    """The record whose body is body then payload (str or bytes). A move's record is a few hundred bytes: on
    MicroPython a str is copied once, into the record (a memoryview of its UTF-8 bytes), not encoded first,
    so a move asks the heap for one piece of that size, not three."""
    try:  # (bytes, str, memoryview)
        body = memoryview(body)
        payload = memoryview(payload)
    except TypeError:  # CPython: a str has no buffer
        body = body.encode() if isinstance(body, str) else body
        payload = payload.encode() if isinstance(payload, str) else payload
    k = len(body)
    n = k + len(payload)
    if n > MAX_RECORD:
        raise ValueError("record too long")
    r = bytearray(8 + n)
    r[0] = _MAGIC
    r[1] = kind
    r[2] = n & 0xFF
    r[3] = n >> 8
    r[4 : 4 + k] = body
    r[4 + k : 4 + n] = payload
    r[4 + n :] = crc32(r, 4 + n).to_bytes(4, "little")
    return r


def _field(body: bytes, k: int) -> "memoryview | bytes":
    """body from after its k-th space (the payload of an E record is field 3, of a Q record field 2), a
    view of it (a move's payload is a few hundred bytes: not copied)."""
    i = -1
    for _ in range(k):
        i = body.find(b" ", i + 1)
        if i < 0:
            return b""
    return memoryview(body)[i + 1 :]


def _serve() -> None:
    """Between two of a checkpoint's records: a compaction copies a whole game and the events waiting, which
    the scan loop must not stand still for (bao.sowing.serve: the board's App.serve during a step; None at
    boot and off the board)."""
    if sowing.serve is not None:
        sowing.serve()


class Journal:
    def __init__(
        self, storage: "Storage", name: str = "journal", limit: int = 8192, epoch_fn: "Any" = None, budget: int = BUDGET
    ) -> None:
        self.storage = storage
        self.name = name
        self.limit = limit
        self.budget = budget
        self._epoch_fn = epoch_fn  # a new epoch's name (default: random, see journal_io)
        # a storage that erases ahead (baoboard.flashlog): the compaction waits for a quiet moment too
        self._ahead = getattr(storage, "maintain", None)
        self._clear()
        self.dropped = 0

    def _clear(self) -> None:
        self.epoch = ""
        self.next_seq = 1
        self.acked = 0
        self.game: str | None = None
        self.ended: str | None = None
        self.cpu = ""
        self.begun = -1  # the pit a move of the current game was begun from, or -1 (Journal.begin)
        self.stopped = False  # the move begun was left by a switch-off on purpose, not a power cut (stop)
        self._mv: list[int] = []  # file offset of each move's record (M or E), the current game's moves
        # The pending events (seq acked+1...last) are the last _np event records of the file (Q, then E):
        # RAM holds where the oldest is, not a list, so it does not grow while no host acknowledges.
        self._p0 = 0  # file offset of the oldest pending event's record (Q or E), if _np
        self._np = 0
        self.pending_bytes = 0
        self.recording = True
        self.size = 0
        self._base = 0
        self._broken = False
        self._count = 0  # checkpoint records still expected
        self._csize = 0  # size of the checkpoint being written
        self._cp0 = 0  # offset of its first pending event
        self._cbytes = 0  # and the bytes of its pending events
        self._skipped = 0
        self.corrupt = False
        self.full = False  # a compaction found no room on the flash: none is tried again until an ack

    @property
    def last(self) -> int:
        return self.next_seq - 1

    @property
    def nmoves(self) -> int:
        return len(self._mv)

    @property
    def npending(self) -> int:
        return self._np

    # ---- reading records back from flash
    def _read(self, r: "Any", off: int) -> "tuple[int, bytes]":
        r.seek(off)
        hdr = r.read(4)
        return hdr[1], r.read(hdr[2] | (hdr[3] << 8))

    def _skip(self, r: "Any", off: int, k: int) -> int:
        """The offset of the pending event k pending events after the one at off (the records of an
        unrecorded game's events, seq 0, and of moves begun, B, are passed over); self._skipped: the pending
        records' bytes."""
        n = 0
        while True:
            r.seek(off)
            hdr = r.read(6)
            size = 8 + (hdr[2] | (hdr[3] << 8))
            if hdr[4:6] != b"0 " and hdr[1] != _REC_BEGUN:
                if not k:
                    break
                k -= 1
                n += size
            off += size
        self._skipped = n
        return off

    def _at(self, off: int, k: int = 0) -> "tuple[int, bytes]":
        """The record at off, or the pending event k pending events after it, as (kind, body)."""
        r = self.storage.reader(self.name)
        try:
            return self._read(r, self._skip(r, off, k) if k else off)
        finally:
            r.close()

    def move(self, k: int) -> str:
        """The payload of move k of the current game ("notation position"); k < 0 counts from the end."""
        kind, body = self._at(self._mv[k])
        return str(body if kind == _REC_MOVE else _field(body, 3), "utf-8")

    def event(self, i: int) -> "tuple[int, str, str]":
        """The i-th pending event (0: the oldest not acknowledged) as (seq, typ, payload)."""
        if not 0 <= i < self._np:
            raise IndexError("no pending event %d" % i)
        kind, body = self._at(self._p0, i)
        a = str(body, "utf-8").split(" ", 2 if kind == _REC_PENDING else 3)
        if kind == _REC_EVENT:
            a.pop(1)  # the ack level
        return (int(a[0]), a[1], a[2] if len(a) > 2 else "")

    @property
    def moves(self) -> "list[str]":
        return [self.move(k) for k in range(len(self._mv))]

    @property
    def pending(self) -> "list[tuple[int, str, str]]":
        return [self.event(i) for i in range(self._np)]

    # ---- recovery: its code is loaded while it runs (baoboard.journal_io)
    def open(self) -> int:
        """Recover from storage; returns the number of bytes dropped (a torn or corrupt tail)."""
        before = modules_now()
        try:
            from baoboard.journal_io import recover

            return recover(self, MAX_RECORD)
        finally:
            recover = None  # type: ignore[assignment]  # (the module's last reference dropped: unload_new)
            unload_new(before)

    # ---- the game and the outbox
    def _apply(self, seq: int, typ: str, payload: str, off: int, size: int) -> None:
        """Event seq (0: of an unrecorded game) in a record of size bytes at off."""
        if typ == "GAME":
            self.recording = seq > 0
        if seq:
            if not self._np:
                self._p0 = off
            self._np += 1
            self.pending_bytes += size
            self.next_seq = seq + 1
        if typ == "MOVE" or typ == "UNDO" or typ == "GAME":
            self.begun = -1  # the move begun is made, taken back, or of a game no longer played
        if typ == "MOVE":
            self._mv.append(off)
        elif typ == "GAME":
            self.game = payload
            self._mv = []
            self.ended = None
        elif typ == "UNDO":
            if self._mv:
                self._mv.pop()
            self.ended = None
        elif typ == "END":
            self.ended = payload
        elif typ[:1] == "C":  # CPU, the one event kind in C ("CPU" would be one more name at boot)
            self.cpu = payload

    def append(self, typ: str, payload: str = "") -> int:
        if not typ or not typ.isupper() or " " in typ or "\n" in payload or "\r" in payload:
            raise ValueError("bad event")
        was = self.recording
        if typ == "GAME":
            self.recording = self.pending_bytes <= self.budget
        seq = self.next_seq if self.recording else 0
        # ("seq acked typ ", then the payload: a string of 10 characters or less would be one more name)
        rec = record(_REC_EVENT, "%d %d %s %s" % (seq, self.acked, typ, ""), payload)
        for attempt in (0, 1):  # (a write the flash has no room for: a compaction, then once again)
            if self._broken and not self.compact():  # an earlier write failed half way: a clean checkpoint first
                break
            try:
                self.storage.append(self.name, rec)
                attempt = -1
                break
            except BaseException as e:
                self._broken = True
                if not isinstance(e, OSError) or not e.args or e.args[0] != _ENOSPC:
                    raise
            cut = getattr(self.storage, "truncate", None)  # what the failed write left, dropped in place
            if cut is not None and not getattr(self.storage, "torn", False):
                try:
                    cut(self.name, self.size)
                    self._broken = False
                except OSError:
                    pass
            if attempt or self.full or not self.compact():
                break
        if attempt >= 0:
            self.recording = was
            return -1  # no room on the flash, a compaction tried: nothing written (the board refuses the move)
        off = self.size
        self.size += len(rec)
        self._apply(seq, typ, payload, off, len(rec))
        if self.size - self._base > (self.limit if self._ahead is None else _HARD * self.limit) and not self.full:
            self.compact()
        return seq

    def begin(self, pit: int) -> bool:
        """A move is begun from pit (-1: none is any more), written before its seeds move on: after a power cut
        the board knows the pits it may have touched are uncertain. Not an event (nothing goes to a host).
        False if it could not be written (no room on the flash): the board goes on without it."""
        if pit == self.begun and not self.stopped:
            return True
        self.stopped = False
        rec = record(_REC_BEGUN, "%d" % pit)
        if self._broken and not self.compact():
            return False
        try:
            self.storage.append(self.name, rec)
        except OSError:  # (no room: a move is still played; only its begun mark is missing)
            self._broken = True
            return False
        self.size += len(rec)
        self.begun = pit
        if self.size - self._base > (self.limit if self._ahead is None else _HARD * self.limit) and not self.full:
            self.compact()
        return True

    def stop(self) -> bool:
        """The board is switched off on purpose (a simulated board's host quits) with a move begun: the move's B
        record again, with a second field ("5 s"), so that the next boot tells this from a power cut (the seeds
        the hands moved are still not known: they are set up again). False if nothing was written."""
        if self.begun < 0:
            return False
        rec = record(_REC_BEGUN, "%d s" % self.begun)
        try:
            self.storage.append(self.name, rec)
        except OSError:
            return False
        self.size += len(rec)
        self.stopped = True
        return True

    def maintain(self) -> bool:
        """Work for a quiet moment (the board idle) with a storage that erases ahead: a compaction that is
        due, or else one sector erased; False when nothing is left to do."""
        if self._ahead is None:
            return False
        if self.size - self._base > self.limit and not self.full:
            return self.compact()
        return bool(self._ahead())

    def _ack(self, seq: int) -> bool:
        if seq <= self.acked or seq >= self.next_seq:
            return False
        k = seq - self.acked
        if k < self._np:  # the oldest still pending: k event records further on
            r = self.storage.reader(self.name)
            try:
                self._p0 = self._skip(r, self._p0, k)
            finally:
                r.close()
            self.pending_bytes -= self._skipped
        else:
            self.pending_bytes = 0
        self._np -= k
        self.acked = seq
        self.full = False  # a compaction may find room now
        return True

    def ack(self, seq: int) -> bool:
        return self._ack(seq)

    # ---- compaction
    def _checkpoint(self, r: "Any", mv: "list[int]") -> "Iterator[bytearray]":
        """The checkpoint's records; the moves and pending events are copied from the old file (reader r),
        the moves' new offsets go to mv, the first pending event's to self._cp0, the checkpoint's size to
        self._csize."""
        count = 1 + len(self._mv) + self._np + (self.game is not None) + (self.ended is not None) + (self.cpu != "")
        count += self.begun >= 0
        rec = record(
            _REC_CHECKPOINT,
            "%s %d %d %d%s" % (self.epoch, self.next_seq, self.acked, count, "" if self.recording else " 1"),
        )
        off = len(rec)
        yield rec
        if self.cpu:
            rec = record(_REC_CPU, self.cpu)
            off += len(rec)
            yield rec
        if self.game is not None:
            rec = record(_REC_GAME, self.game)
            off += len(rec)
            yield rec
        for o in self._mv:
            _serve()
            kind, body = self._read(r, o)
            rec = record(_REC_MOVE, body if kind == _REC_MOVE else _field(body, 3))
            mv.append(off)
            off += len(rec)
            yield rec
        if self.ended is not None:
            rec = record(_REC_END, self.ended)
            off += len(rec)
            yield rec
        if self.begun >= 0:
            rec = record(_REC_BEGUN, ("%d s" if self.stopped else "%d") % self.begun)
            off += len(rec)
            yield rec
        o = self._p0
        self._cp0 = off
        self._cbytes = 0
        for i in range(self._np):
            _serve()
            if i:
                o = self._skip(r, o, 1)
            kind, body = self._read(r, o)
            if kind == _REC_EVENT:  # "seq acked typ payload" -> "seq typ payload"
                rec = record(_REC_PENDING, body[: body.find(b" ") + 1], _field(body, 2))
            else:
                rec = record(_REC_PENDING, body)
            off += len(rec)
            self._cbytes += len(rec)
            yield rec
        if r is not None:
            r.close()  # before the new file replaces the old one
        self._csize = off

    def compact(self) -> bool:
        """Write the checkpoint to a new file that replaces the old one atomically. False when the flash has no
        room for it (Journal.full, and none is tried from append or maintain until an ack): the old file stays
        whole, the new one's part is removed."""
        import gc

        if hasattr(gc, "mem_free"):
            gc.collect()
        r = self.storage.reader(self.name) if self._mv or self._np else None
        mv: list[int] = []
        was = self._broken
        self._broken = True
        try:
            self.storage.replace(self.name, self._checkpoint(r, mv))
        except OSError as e:
            if not e.args or e.args[0] != _ENOSPC:
                raise
            self.storage.remove(self.name + ".tmp")
            self._broken = was
            self.full = True
            return False
        finally:
            if r is not None:
                r.close()
        self._broken = False
        self.full = False
        self._mv = mv
        self._p0 = self._cp0
        self.pending_bytes = self._cbytes
        self.size = self._base = self._csize
        return True
