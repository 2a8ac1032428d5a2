# The board end of the link: events out through the journal, acks (duplicated, out of order, bogus), resends,
# the handshake, commands and their cached replies, bad input. Runs on CPython and the MicroPython unix port.

from baoboard.frames import encode
from outbox_util import EPOCH, frames, make


def test_post_sends_after_journal_and_ack_clears():
    ob, ser, clk, fs = make()
    assert ob.post("GAME", '{"ruleset":"zanzibar"}') == 1
    assert ob.move("a6>", '{"p":1}') == 2
    assert frames(ser) == [("E", 1, "GAME", '{"ruleset":"zanzibar"}'), ("E", 2, "MOVE", 'a6> {"p":1}')]
    ob.feed(encode("A", 1, "ACK", EPOCH))
    assert [p[0] for p in ob.journal.pending] == [2]
    ob.feed(encode("A", 1, "ACK", EPOCH))  # duplicate
    ob.feed(encode("A", 0, "ACK", EPOCH))  # older
    ob.feed(encode("A", 99, "ACK", EPOCH))  # beyond the last event
    assert [p[0] for p in ob.journal.pending] == [2] and ob.journal.acked == 1
    ob.feed(encode("A", 2, "ACK", EPOCH) + encode("A", 1, "ACK", EPOCH))  # then an out-of-order one
    assert ob.journal.pending == [] and ob.journal.acked == 2
    assert ser.take() == [] and ob.rx_errors == 0


def test_ack_of_another_epoch_is_refused():
    ob, ser, clk, fs = make()
    ob.post("MOVE", "a1> {}")
    ser.take()
    ob.feed(encode("A", 1, "ACK", "deadbeef"))
    assert len(ob.journal.pending) == 1
    f = frames(ser)
    assert f[0][:3] == ("N", 0, "BADFRAME") and "epoch" in f[0][3]


def test_resend_after_timeout_is_byte_identical_with_backoff():
    ob, ser, clk, fs = make()
    ob.post("GAME", "{}")
    ob.move("a1>", "{}")
    sent = ser.take()
    clk.t = 999
    ob.poll()
    assert ser.take() == []
    clk.t = 1000
    ob.poll()
    assert ser.take() == sent
    clk.t = 2500
    ob.poll()
    assert ser.take() == []  # the second wait is twice as long
    clk.t = 3000
    ob.poll()
    assert ser.take() == sent
    ob.feed(encode("A", 2, "ACK", EPOCH))
    clk.t = 100000
    ob.poll()
    assert ser.take() == [] and ob.resent == 4


def test_hello_handshake_then_pending_resent():
    ob, ser, clk, fs = make()
    ob.post("GAME", "{}")
    ser.take()
    ob.feed(encode("C", 7, "HELLO", "1"))
    f = frames(ser)
    assert f[0][:3] == ("R", 7, "OK")
    assert f[0][3] == "proto=1 fw=0.1.0 rules=1 board=e661 epoch=0badcafe last=1 acked=0"
    assert f[1] == ("E", 1, "GAME", "{}")
    ob.feed(encode("C", 8, "HELLO", "2,3"))
    f = frames(ser)
    assert f == [("R", 8, "ERR", "proto speaks=1")]
