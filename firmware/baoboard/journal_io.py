# The journal's recovery at boot: the code of baoboard.journal that runs once. Journal.open() loads this
# module while it runs and drops it after, so it is not in the board's RAM during play. The file format is
# described in baoboard.journal.
try:
    from typing import Any
except ImportError:
    pass

from baoboard.compat import const, crc32

# The record kinds, baoboard.journal's: private in both modules, so that MicroPython inlines them and keeps no
# name; imported from one module they would keep this one in RAM during play (test_structure: they agree).
_MAGIC = const(0xB7)
_REC_CHECKPOINT = const(0x4B)  # K
_REC_GAME = const(0x47)  # G
_REC_MOVE = const(0x4D)  # M
_REC_END = const(0x58)  # X
_REC_PENDING = const(0x51)  # Q
_REC_EVENT = const(0x45)  # E
_REC_CPU = const(0x43)  # C
_REC_BEGUN = const(0x42)  # B


def _new_epoch() -> str:
    import random

    # two halves: a 32-bit draw is a big int on a 32-bit MicroPython (small ints have 31 bits) three times
    # in four, so the heap's layout would depend on the value drawn
    return "%04x%04x" % (random.getrandbits(16), random.getrandbits(16))


def recover(j: "Any", max_record: int) -> int:
    """Journal.open(): read the file, keep its longest good prefix, compact if anything was dropped;
    returns the number of bytes dropped (a torn or corrupt tail). max_record: journal.MAX_RECORD."""
    j._clear()
    # a compaction cut short leaves its new file: never used (the old one is whole), it only takes space,
    # and a full flash must not keep the board from starting (issue #14)
    j.storage.remove(j.name + ".tmp")
    total = j.storage.size(j.name)
    good = 0
    corrupt = False
    r = j.storage.reader(j.name)
    if r is not None:
        try:
            while True:
                hdr = r.read(4)
                if len(hdr) < 4:  # the end, or a header torn by a power cut
                    break
                n = hdr[2] | (hdr[3] << 8)
                if hdr[0] != _MAGIC or n > max_record:
                    corrupt = True
                    break
                if good + 8 + n > total:  # a record torn by a power cut (never read past the end)
                    break
                rest = r.read(n + 4)
                if len(rest) < n + 4:  # a record torn by a power cut
                    break
                rec = hdr + rest
                if int.from_bytes(rec[4 + n :], "little") != crc32(rec, 4 + n) or not _load(
                    j, hdr[1], rec[4 : 4 + n], good
                ):
                    corrupt = True  # whole but wrong: not what a power cut leaves
                    break
                good += 8 + n
                j._count -= 1
        finally:
            r.close()
    if j._count > 0 or j.acked + j._np != j.last:
        corrupt = True  # a checkpoint is written atomically: an incomplete one is corrupt
    if getattr(j.storage, "damaged", False):  # (raw flash: what no power cut leaves, baoboard.flashlog)
        corrupt = True
    j.dropped = (total - good) if total > good else 0
    new_epoch = j._epoch_fn or _new_epoch
    if good == 0:  # no journal, or not even its checkpoint survived: a new epoch
        j._clear()
        j.epoch = new_epoch()
        if not j.compact():  # a full flash: start anyway, the checkpoint written before the first record
            j._broken = True
    elif corrupt:
        # events after the damage may have been sent: their numbers must not be reused with other
        # content, so the board starts a new epoch (the host keys sequence numbers by epoch); what is
        # pending is kept and sent again, everything older counts as acknowledged (pending events
        # are always acked+1, acked+2...: numbers after the last whole one are free again)
        j.epoch = new_epoch()
        j.next_seq = j.acked + 1 + j._np
        if not j.compact():
            j._broken = True
    elif j.dropped or getattr(j.storage, "torn", False):  # (raw flash: a write cut short after the file)
        j.size = good
        if not _cut(j, good):
            if not j.compact():  # a full flash: start anyway; the next append tries again first (_broken)
                j._broken = True
    else:
        j.size = j._base = good
    j.corrupt = corrupt
    return j.dropped


def _cut(j: "Any", good: int) -> bool:
    """Drop a torn tail in place, where the storage can (no free space needed); False if it cannot."""
    cut = getattr(j.storage, "truncate", None)
    if cut is None or getattr(j.storage, "torn", False):
        return False
    try:
        cut(j.name, good)
    except OSError:
        return False
    j._base = good
    return True


def _load(j: "Any", kind: int, raw: bytes, off: int) -> bool:
    try:
        body = str(raw, "utf-8")
        if (off == 0) != (kind == _REC_CHECKPOINT):
            return False
        if kind == _REC_EVENT:
            a = body.split(" ", 3)
            seq = int(a[0])
            if len(a) < 3 or (seq and (seq != j.next_seq or j.acked + j._np != seq - 1)):
                return False
            j._ack(int(a[1]))
            j._apply(seq, a[2], a[3] if len(a) > 3 else "", off, 8 + len(raw))
        elif kind == _REC_PENDING:
            a = body.split(" ", 2)
            seq = int(a[0])
            if seq >= j.next_seq or len(a) < 2 or seq != j.acked + 1 + j._np:
                return False
            if not j._np:
                j._p0 = off
            j._np += 1
            j.pending_bytes += 8 + len(raw)
        elif kind == _REC_MOVE:
            j._mv.append(off)
        elif kind == _REC_GAME:
            j.game = body
        elif kind == _REC_END:
            j.ended = body
        elif kind == _REC_CPU:
            j.cpu = body
        elif kind == _REC_BEGUN:  # "pit", or "pit s": left by a switch-off on purpose (Journal.stop)
            j.stopped = body.endswith(" s")
            j.begun = int(body[:-2] if j.stopped else body)
        elif kind == _REC_CHECKPOINT:
            a = body.split(" ")
            j.epoch = a[0]
            j.next_seq = int(a[1])
            j.acked = int(a[2])
            j._count = int(a[3])
            j.recording = len(a) < 5 or a[4] != "1"
        else:
            return False
        return True
    except (ValueError, IndexError, UnicodeError):
        return False
