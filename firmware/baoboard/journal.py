# The board's journal: one append-only file that holds the game and the outbox, so that after a power cut
# at any instant the board comes back at the last completed move, and every event it ever sent comes back
# with the same sequence number and the same bytes. A move is opaque here: "notation position-json".
#
#   j = Journal(storage, name="journal", limit=8192); j.open()    recover (call once at boot)
#   j.append(typ, payload) -> seq     make one event durable (returns after the write), then it may be sent.
#                                     GAME payload=info json         starts a game (moves emptied)
#                                     MOVE payload="notation pos"    one completed move (see move_payload)
#                                     UNDO payload=opaque            takes the last move back
#                                     END  payload=opaque            the game is over
#                                     any other type (ILLEGAL, ERROR, ...) only goes to the outbox
#   j.ack(seq) -> bool                cumulative acknowledgement; False if it acknowledges nothing new
#   j.game, j.moves, j.ended          the current game: info json | None, list of move payloads, END payload | None
#   j.pending                         [(seq, typ, payload)] not yet acknowledged, oldest first
#   j.epoch, j.last (last seq), j.acked, j.size (bytes on flash), j.dropped (torn bytes dropped at open)
#   move_payload(notation, position) -> str;  split_move(payload) -> (notation, position)
#
# File: records  B7 kind len16le body crc32le  (crc over magic..body). A checkpoint (written by compact()
# with Storage.replace) starts the file: K "epoch next acked count", G info, M move..., X end, Q "seq typ payload"
# per pending event; then live events E "seq acked typ payload". Recovery reads records until the first bad
# one and keeps that prefix; a torn tail is removed by compacting at once. A record that is whole but wrong
# (or an incomplete checkpoint) is corruption, not a power cut: the prefix is kept under a new epoch. Compaction also
# runs when the file has grown by `limit` bytes since the last checkpoint, so flash use stays below
# checkpoint + limit + one record. Acks are not written on their own: each E record carries the ack level,
# an ack that was lost in a power cut only makes the host see a duplicate, which it drops by sequence.
try:
    from typing import Any, Iterator
except ImportError:
    pass

from baoboard.compat import const, crc32

_MAGIC = const(0xB7)
MAX_RECORD = const(4200)  # longest record body: an event frame (4096) and its header fit
_K = const(0x4B)  # K
_G = const(0x47)  # G
_M = const(0x4D)  # M
_X = const(0x58)  # X
_Q = const(0x51)  # Q
_E = const(0x45)  # E


def record(kind: int, body: bytes) -> bytes:
    n = len(body)
    if n > MAX_RECORD:
        raise ValueError("record too long")
    r = bytearray(8 + n)
    r[0] = _MAGIC
    r[1] = kind
    r[2] = n & 0xFF
    r[3] = n >> 8
    r[4 : 4 + n] = body
    r[4 + n :] = crc32(r, 4 + n).to_bytes(4, "little")
    return bytes(r)


def move_payload(notation: str, position: str) -> str:
    if not notation or " " in notation:
        raise ValueError("notation must be one word")
    return notation + " " + position


def split_move(payload: str) -> "tuple[str, str]":
    i = payload.find(" ")
    if i < 0:
        return (payload, "")
    return (payload[:i], payload[i + 1 :])


def _new_epoch() -> str:
    import random

    return "%08x" % random.getrandbits(32)


class Journal:
    def __init__(self, storage: "Any", name: str = "journal", limit: int = 8192, epoch_fn: "Any" = None) -> None:
        self.storage = storage
        self.name = name
        self.limit = limit
        self._epoch_fn = epoch_fn or _new_epoch
        self._clear()
        self.dropped = 0

    def _clear(self) -> None:
        self.epoch = ""
        self.next_seq = 1
        self.acked = 0
        self.game: "str | None" = None
        self.ended: "str | None" = None
        self.moves: "list[str]" = []
        self.pending: "list[tuple[int, str, str]]" = []
        self.size = 0
        self._base = 0
        self._broken = False
        self._count = 0  # checkpoint records still expected
        self.corrupt = False

    @property
    def last(self) -> int:
        return self.next_seq - 1

    # ---- recovery
    def open(self) -> int:
        """Recover from storage; returns the number of bytes dropped (a torn or corrupt tail)."""
        self._clear()
        total = self.storage.size(self.name)
        good = 0
        corrupt = False
        r = self.storage.reader(self.name)
        if r is not None:
            try:
                while True:
                    hdr = r.read(4)
                    if len(hdr) < 4:  # the end, or a header torn by a power cut
                        break
                    n = hdr[2] | (hdr[3] << 8)
                    if hdr[0] != _MAGIC or n > MAX_RECORD:
                        corrupt = True
                        break
                    if good + 8 + n > total:  # a record torn by a power cut (never read past the end)
                        break
                    rest = r.read(n + 4)
                    if len(rest) < n + 4:  # a record torn by a power cut
                        break
                    rec = hdr + rest
                    if int.from_bytes(rec[4 + n :], "little") != crc32(rec, 4 + n) or not self._load(
                        hdr[1], rec[4 : 4 + n], good == 0
                    ):
                        corrupt = True  # whole but wrong: not what a power cut leaves
                        break
                    good += 8 + n
                    self._count -= 1
            finally:
                r.close()
        if self._count > 0:  # a checkpoint is written atomically: an incomplete one is corrupt
            corrupt = True
        self.dropped = (total - good) if total > good else 0
        if good == 0:  # no journal, or not even its checkpoint survived: a new epoch
            self._clear()
            self.epoch = self._epoch_fn()
            self.compact()
        elif corrupt:
            # events after the damage may have been sent: their numbers must not be reused with other
            # content, so the board starts a new epoch (the host keys sequence numbers by epoch); what is
            # pending is kept and sent again, everything older counts as acknowledged
            self.epoch = self._epoch_fn()
            if self.pending:  # numbers after the last whole event are free again in the new epoch
                self.next_seq = self.pending[-1][0] + 1
                self.acked = self.pending[0][0] - 1
            else:
                self.acked = self.last
            self.compact()
        elif self.dropped:
            self.size = good
            self.compact()
        else:
            self.size = self._base = good
        self.corrupt = corrupt
        return self.dropped

    def _load(self, kind: int, raw: bytes, first: bool) -> bool:
        try:
            body = str(raw, "utf-8")
            if first != (kind == _K):
                return False
            if kind == _E:
                a = body.split(" ", 3)
                seq = int(a[0])
                if seq != self.next_seq or len(a) < 3:
                    return False
                self._ack(int(a[1]))
                self._apply(seq, a[2], a[3] if len(a) > 3 else "")
            elif kind == _Q:
                a = body.split(" ", 2)
                seq = int(a[0])
                if seq >= self.next_seq or len(a) < 2 or (self.pending and seq != self.pending[-1][0] + 1):
                    return False
                self.pending.append((seq, a[1], a[2] if len(a) > 2 else ""))
            elif kind == _M:
                self.moves.append(body)
            elif kind == _G:
                self.game = body
            elif kind == _X:
                self.ended = body
            elif kind == _K:
                a = body.split(" ")
                self.epoch = a[0]
                self.next_seq = int(a[1])
                self.acked = int(a[2])
                self._count = int(a[3])
            else:
                return False
            return True
        except (ValueError, IndexError, UnicodeError):
            return False

    # ---- the game and the outbox
    def _apply(self, seq: int, typ: str, payload: str) -> None:
        self.pending.append((seq, typ, payload))
        self.next_seq = seq + 1
        if typ == "MOVE":
            self.moves.append(payload)
        elif typ == "GAME":
            self.game = payload
            self.moves = []
            self.ended = None
        elif typ == "UNDO":
            if self.moves:
                self.moves.pop()
            self.ended = None
        elif typ == "END":
            self.ended = payload

    def append(self, typ: str, payload: str = "") -> int:
        if not typ or not typ.isupper() or " " in typ or "\n" in payload or "\r" in payload:
            raise ValueError("bad event")
        if self._broken:  # an earlier write failed half way: start again from a clean checkpoint
            self.compact()
        seq = self.next_seq
        rec = record(_E, ("%d %d %s %s" % (seq, self.acked, typ, payload)).encode())
        try:
            self.storage.append(self.name, rec)
        except BaseException:
            self._broken = True
            raise
        self.size += len(rec)
        self._apply(seq, typ, payload)
        if self.size - self._base > self.limit:
            self.compact()
        return seq

    def _ack(self, seq: int) -> bool:
        if seq <= self.acked or seq >= self.next_seq:
            return False
        self.acked = seq
        p = self.pending
        k = 0
        while k < len(p) and p[k][0] <= seq:
            k += 1
        del p[:k]
        return True

    def ack(self, seq: int) -> bool:
        return self._ack(seq)

    # ---- compaction
    def _checkpoint(self) -> "Iterator[bytes]":
        count = 1 + len(self.moves) + len(self.pending) + (self.game is not None) + (self.ended is not None)
        yield record(_K, ("%s %d %d %d" % (self.epoch, self.next_seq, self.acked, count)).encode())
        if self.game is not None:
            yield record(_G, self.game.encode())
        for m in self.moves:
            yield record(_M, m.encode())
        if self.ended is not None:
            yield record(_X, self.ended.encode())
        for seq, typ, payload in self.pending:
            yield record(_Q, ("%d %s %s" % (seq, typ, payload)).encode())

    def compact(self) -> None:
        size = 0
        for rec in self._checkpoint():
            size += len(rec)
        self._broken = True
        self.storage.replace(self.name, self._checkpoint())
        self._broken = False
        self.size = self._base = size
