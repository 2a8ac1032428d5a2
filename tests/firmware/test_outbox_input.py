# The board end of the link, continued: commands, bad input, power cuts, write errors.
from baoboard.journal import Journal
from baoboard.memstorage import FakeStorage
from baoboard.outbox import Outbox
from baoboard.storage import PowerCut
from baoproto.frames import decode, encode
from fwtest_util import Clock, Lcg
from outbox_util import EPOCH, frames, make


def test_commands_replied_once_and_cached():
    calls = []

    def handler(cid, typ, payload):
        calls.append((cid, typ, payload))
        if typ == "BOOM":
            raise RuntimeError("bad\nthing")
        if typ == "MODE":
            return (payload in ("teach", "play", "silent"), "" if payload == "teach" else "badarg mode")
        return (False, "unknown " + typ)

    ob, ser, clk, fs = make(handler=handler)
    ob.feed(encode("C", 1, "MODE", "teach"))
    ob.feed(encode("C", 1, "MODE", "teach"))  # the host did not see the reply: same reply, not a rerun
    ob.feed(encode("C", 2, "MODE", "loud"))
    ob.feed(encode("C", 3, "FROB"))
    ob.feed(encode("C", 4, "BOOM"))
    f = frames(ser)
    assert f[0] == ("R", 1, "OK", "") and f[1] == f[0]
    assert f[2] == ("R", 2, "ERR", "badarg mode")
    assert f[3] == ("R", 3, "ERR", "unknown FROB")
    assert f[4][:3] == ("R", 4, "ERR") and f[4][3].startswith("internal RuntimeError")
    assert len(calls) == 4


def test_no_handler_unknown():
    ob, ser, clk, fs = make()
    ob.feed(encode("C", 1, "SNAP"))
    assert frames(ser) == [("R", 1, "ERR", "unknown SNAP")]


def test_garbage_gives_notices_and_the_board_goes_on():
    ob, ser, clk, fs = make()
    r = Lcg(17)
    ob.feed(b"\x03\x03\x00garbage\r\n")
    for _ in range(20):
        ob.feed(b"x" * 100)  # one line, far too long
    ob.feed(b"\n" + encode("E", 1, "MOVE", "a1> {}"))
    for _ in range(50):
        ob.feed(r.bytes(r.below(80)))
    ob.feed(b"\n")
    good = encode("C", 5, "HELLO", "1")
    bad = bytearray(good)
    bad[3] ^= 0x20
    ob.feed(bytes(bad) + good[:10])
    ob.feed(good[10:])
    out = frames(ser)
    notes = [f for f in out if f[0] == "N"]
    assert len(notes) == ob.rx_errors and ob.rx_errors >= 4
    reasons = " ".join(n[3] for n in notes)
    for r_ in ("syntax", "overlong", "kind", "crc"):
        assert "reason=" + r_ in reasons, r_
    assert out[-1][:3] == ("R", 5, "OK")
    assert ob.post("END", "{}") == 1


def test_power_cut_then_start_resends_same_bytes():
    fs = FakeStorage()
    ob, ser, clk, fs = make(fs)
    ob.post("GAME", "{}")
    ob.move("a1>", '{"p":1}')
    ob.move("a2>", '{"p":2}')
    ob.feed(encode("A", 1, "ACK", EPOCH))
    before = ser.take()
    fs.budget = 10
    try:
        ob.move("a3>", '{"p":3}')
    except PowerCut:
        pass
    assert ser.take() == []  # not durable, so never sent
    fs.budget = -1
    ob2, ser2, clk2, fs = make(fs)
    ob2.start()
    out = ser2.take()
    assert decode(out[0][:-1])[:3] == ("H", 0, "HELLO")
    assert "last=3" in out[0].decode()
    # every event resent byte for byte; the ack of 1 was not on flash yet (acks ride on the next record),
    # so 1 comes again too, and the host drops it as a duplicate
    assert out[1:] == before
    assert ob2.move("a3>", '{"p":3}') == 4


def test_write_errors_are_survived():
    fs = FakeStorage()
    j = Journal(fs, epoch_fn=lambda: EPOCH)
    j.open()

    def broken(data):
        raise OSError(5)

    ob = Outbox(j, broken, Clock())
    assert ob.post("GAME", "{}") == 1
    ob.start()
    ob.feed(encode("C", 1, "HELLO", "1"))
    assert len(j.pending) == 1


def test_an_older_command_replayed_is_not_run_again():
    calls = []

    def handler(cid, typ, payload):
        calls.append(cid)
        return (True, "")

    ob, ser, clk, fs = make(handler=handler)
    for cid in (1, 2, 3):
        ob.feed(encode("C", cid, "UNDO"))
    ob.feed(encode("C", 1, "UNDO"))  # a stale copy (noise replays bytes): not a second UNDO
    ob.feed(encode("C", 3, "UNDO"))  # the last one again: its cached reply
    f = frames(ser)
    assert calls == [1, 2, 3]
    assert f[3][:3] == ("R", 1, "ERR") and f[3][3].startswith("dup "), f[3]
    assert f[4] == ("R", 3, "OK", "")
    ob.feed(encode("C", 9, "HELLO", "1"))  # a new host: it may count from 1 again
    ob.feed(encode("C", 1, "UNDO"))
    assert calls == [1, 2, 3, 1]


def test_an_ack_without_its_epoch_is_refused():
    ob, ser, clk, fs = make()
    ob.post("GAME", "{}")
    ser.take()
    ob.feed(encode("A", 1, "ACK"))
    f = frames(ser)
    assert f[0][:3] == ("N", 0, "BADFRAME") and "reason=epoch" in f[0][3]
    assert ob.journal.acked == 0 and len(ob.journal.pending) == 1
    ob.feed(encode("A", 1, "ACK", EPOCH))
    assert ob.journal.acked == 1


def test_deferred_commands_wait_in_order_for_the_application():
    """With defer (the board application's case), a command runs only when the application calls run_pending,
    in the order the commands came; a copy of a waiting one is not queued twice; PING is answered at once;
    past 8 waiting, one more is refused with ERR state."""
    calls = []

    def handler(cid, typ, payload):
        calls.append(cid)
        return (True, typ)

    ob, ser, clk, fs = make(handler=handler)
    ob.defer = True
    ob.feed(encode("C", 1, "SNAP"))
    ob.feed(encode("C", 2, "MODE", "play"))
    ob.feed(encode("C", 1, "SNAP"))  # the host resent it: still one to run
    ob.feed(encode("C", 3, "PING"))
    assert calls == [3] and frames(ser) == [("R", 3, "OK", "PING")]
    ob.run_pending()
    assert calls == [3, 1] and frames(ser) == [("R", 1, "OK", "SNAP")]
    ob.run_pending()
    ob.run_pending()  # nothing waits: nothing runs
    assert calls == [3, 1, 2] and frames(ser) == [("R", 2, "OK", "MODE")]
    for cid in range(10, 19):
        ob.feed(encode("C", cid, "UNDO"))
    f = frames(ser)
    assert len(f) == 1 and f[0][:3] == ("R", 18, "ERR") and f[0][3].startswith("state "), f
    while ob.pending:
        ob.run_pending()
    assert calls[3:] == list(range(10, 18))
