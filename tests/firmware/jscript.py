# The scripted game of the journal and outbox tests, and its reference run (a helper module, not tests).
from baoboard.compat import crc32
from baoboard.journal import Journal
from baoboard.memstorage import FakeStorage
from baoproto.frames import encode, move_payload

EPOCH = "0badcafe"
LIMIT = 500  # small, so that the scripted game compacts several times


def pos(i):
    return '{"pits":[%d,%d,2,2,0,0,0,0],"turn":"%s"}' % (i % 7, i % 5, "SN"[i % 2])


def script():
    """A scripted sequence of operations: games, moves, undos, illegal attempts, the computer's mode, acks."""
    ops = [("GAME", '{"ruleset":"zanzibar","options":{"takasa":true}}')]
    for i in range(11):
        ops.append(("MOVE", move_payload("a%d>" % (i % 8 + 1), pos(i))))
        if i % 4 == 1:
            ops.append(("ILLEGAL", '{"pit":%d,"rule":"G5","reason":"not a legal start"}' % i))
        if i % 5 == 2:
            ops.append(("UNDO", '{"undone":"a%d>"}' % (i % 8 + 1)))
        if i % 3 == 0:
            ops.append(("ack", i))  # acks lag behind and sometimes repeat
        if i == 4:
            ops.append(("CPU", "N 2"))  # the computer's mode: kept by every checkpoint
    ops.append(("END", '{"winner":"S"}'))
    ops.append(("ack", 1000))  # beyond the last event: ignored
    ops.append(("GAME", '{"ruleset":"malawi","options":{}}'))  # the mode goes on into the next game
    ops.append(("MOVE", move_payload("b2<", pos(99))))
    ops.append(("CPU", "S 0"))
    ops.append(("ack", 3))  # an old ack: ignored
    return ops


def do(j, op):
    if op[0] == "ack":
        j.ack(op[1])
    else:
        j.append(op[0], op[1])


def state(j):
    """The game as a small digest (the unix port runs these tests in a 64 KB heap)."""
    d = crc32(("%s|%s|%s" % (j.game, j.ended, j.cpu)).encode())
    for m in j.moves:
        d = (d * 31 + crc32(m.encode())) & 0xFFFFFFF
    return (j.epoch, j.next_seq, d, len(j.moves))


def new_journal(fs, budget=None):
    if budget is None:
        return Journal(fs, limit=LIMIT, epoch_fn=lambda: EPOCH)
    return Journal(fs, limit=LIMIT, epoch_fn=lambda: EPOCH, budget=budget)


def fingerprint(frame):
    """Length and CRC-32 of a frame: byte identity, in a few bytes of heap."""
    return (len(frame) << 32) | crc32(frame)


def reference(budget=None):
    fs = FakeStorage()
    j = new_journal(fs, budget)
    j.open()
    states = [state(j)]
    events = {}
    pendings = [tuple(p[0] for p in j.pending)]
    for op in script():
        do(j, op)
        states.append(state(j))
        pendings.append(tuple(p[0] for p in j.pending))
        for seq, typ, payload in j.pending:
            events[seq] = fingerprint(encode("E", seq, typ, payload))
    return fs, states, pendings, events


def check_pending(j, events, ref_pending):
    # contiguous, ending at the last event, every one byte-identical to what the reference run sent,
    # and a superset of the reference's pending list (an ack may be forgotten, an event never)
    seqs = [p[0] for p in j.pending]
    assert seqs == list(range(j.next_seq - len(seqs), j.next_seq)), seqs
    for seq, typ, payload in j.pending:
        assert fingerprint(encode("E", seq, typ, payload)) == events[seq]
    ref = list(ref_pending)
    assert ref == seqs[len(seqs) - len(ref) :]
