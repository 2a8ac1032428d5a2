# The board end of the link: events out through the journal, acks (duplicated, out of order, bogus), resends,
# the handshake, commands and their cached replies, bad input. Runs on CPython and the MicroPython unix port.

from baoproto.frames import encode
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
    ob.feed(encode("C", 8, "HELLO", "6,7"))
    f = frames(ser)
    assert f == [("R", 8, "ERR", "proto speaks=5,4,3,2,1")]
    ob.feed(encode("C", 9, "HELLO", "2,1"))  # the newest both speak
    assert frames(ser)[0][3].startswith("proto=2 ")
    ob.feed(encode("C", 10, "HELLO", "4,3,2,1"))
    assert frames(ser)[0][3].startswith("proto=4 ")


def _seqs(ser):
    return [f[1] for f in frames(ser) if f[0] == "E"]


def test_every_event_goes_out_once_as_it_is_posted_then_a_window_at_a_time():
    ob, ser, clk, fs = make()  # (no host yet: a terminal or `bao sim --report` listens, acknowledging nothing)
    for i in range(12):
        ob.post("MOVE", "m%d {}" % (i + 1))
    assert _seqs(ser) == list(range(1, 13))
    clk.t = 1000
    ob.poll()
    assert _seqs(ser) == [1, 2, 3, 4, 5, 6, 7, 8]  # sent again: a window from the oldest


def test_a_host_gets_a_window_of_events_and_each_ack_sends_the_next_at_once():
    ob, ser, clk, fs = make()
    for i in range(12):
        ob.post("MOVE", "m%d {}" % (i + 1))
    ser.take()
    ob.feed(encode("C", 1, "HELLO", "2,1"))  # a host: the pending events from the oldest, a window of them
    assert _seqs(ser) == [1, 2, 3, 4, 5, 6, 7, 8]  # the rest wait on flash for room in the window
    clk.t = 30
    ob.feed(encode("A", 3, "ACK", EPOCH))
    f = frames(ser)
    assert [x[1] for x in f] == [9, 10, 11] and f[0][3] == "m9 {}"  # at once, not after a timeout
    ob.feed(encode("A", 12, "ACK", EPOCH))
    assert _seqs(ser) == [] and ob.journal.acked == 12
    ob.post("MOVE", "m13 {}")  # with a host: out at once too
    assert _seqs(ser) == [13] and ob.resent == 11  # 1..11 again for the host, 13 once


def test_a_nak_resends_the_missing_event_at_once_and_only_when_its_resend_was_lost():
    ob, ser, clk, fs = make()
    for i in range(5):
        ob.post("MOVE", "m%d {}" % (i + 1))
    first = ser.take()
    clk.t = 10
    ob.feed(encode("A", 1, "NAK", EPOCH + " 3"))  # the host has 1, lacks 2, has just got 3
    assert ser.take() == [first[1]] and ob.naks == 1  # event 2 again, byte for byte, with no wait
    ob.feed(encode("A", 1, "NAK", EPOCH + " 4"))  # 4 left before 2's resend: that may still arrive
    ob.feed(encode("A", 1, "NAK", EPOCH + " 5"))
    assert ser.take() == []
    ob.post("MOVE", "m6 {}")
    ser.take()
    ob.feed(encode("A", 1, "NAK", EPOCH + " 6"))  # 6 left after 2's resend: the resend was lost too
    assert ser.take() == [first[1]] and ob.naks == 2
    ob.feed(encode("A", 1, "NAK", "deadbeef 6"))  # another journal's
    ob.feed(encode("A", 9, "NAK", EPOCH + " 10"))  # about events never sent
    ob.feed(encode("A", 0, "NAK", EPOCH))  # no <got>: it asks for 1 plainly
    f = frames(ser)
    assert f[0][:3] == ("N", 0, "BADFRAME") and "epoch" in f[0][3]
    assert f[1:] == [("E", 1, "MOVE", "m1 {}")] and ob.naks == 3


def test_the_retransmission_timer_follows_the_measured_round_trip():
    ob, ser, clk, fs = make()
    ob.feed(encode("C", 1, "HELLO", "2,1"))  # a host
    assert ob.rto == 1000  # nothing measured yet
    ob.post("MOVE", "m1 {}")
    clk.t = 200
    ob.feed(encode("A", 1, "ACK", EPOCH))  # a round trip of 200 ms
    assert ob.rto == 600  # srtt + 4 rttvar (RFC 6298: 200 + 4 * 100)
    ser.take()
    ob.post("MOVE", "m2 {}")
    sent = ser.take()
    clk.t = 200 + 599
    ob.poll()
    assert ser.take() == []
    clk.t = 200 + 600
    ob.poll()
    assert ser.take() == sent and ob.timeouts == 1
    clk.t = 2000
    ob.feed(encode("A", 2, "ACK", EPOCH))  # 2 was sent twice: its ack measures nothing (Karn)
    assert ob.rto == 600
    for i in range(3, 40):
        ob.post("MOVE", "m%d {}" % i)
        clk.t += 10
        ob.feed(encode("A", i, "ACK", EPOCH))
    assert ob.rto == 250  # round trips of 10 ms: the floor (the host's disk write varies)


def test_a_host_that_answers_keeps_the_timer_short_one_that_does_not_lets_it_grow():
    ob, ser, clk, fs = make()
    ob.post("MOVE", "m1 {}")
    ob.post("MOVE", "m2 {}")
    ser.take()
    for k in range(6):  # nobody listening: 1, 2, 4, 8, 8, 8 s
        clk.t += min(1000 << k, 8000)
        ob.poll()
        assert len(ser.take()) == 2, k
    ob.feed(encode("A", 0, "NAK", EPOCH))  # a host now: it lacks 1
    assert _seqs(ser) == [1]
    waits = []
    for _ in range(4):  # its line loses everything: the timer stays at most 2 RTO
        t0 = clk.t
        while not ser.out:
            clk.t += 1
            ob.poll()
        waits.append(clk.t - t0)
        ser.take()
    assert waits == [1000, 2000, 2000, 2000], waits


def test_a_damaged_copy_the_host_reports_is_sent_again_at_once_and_only_once():
    ob, ser, clk, fs = make()
    ob.feed(encode("C", 1, "HELLO", "3,2,1"))
    for i in range(4):
        ob.post("MOVE", "m%d {}" % (i + 1))
    ser.take()
    first = [encode("E", i + 1, "MOVE", "m%d {}" % (i + 1)) for i in range(4)]
    clk.t = 30
    nak = encode("A", 0, "NAK", EPOCH + " bad=3/1")  # the host has none, its first damaged copy of 3
    ob.feed(nak + nak)  # (the host sends each twice: the line may damage one)
    assert ser.take() == [first[2]] and ob.naks == 1  # 3 again, byte for byte, once, with no wait
    ob.feed(encode("A", 0, "NAK", EPOCH + " bad=3/2"))  # that copy came damaged too
    assert ser.take() == [first[2]] and ob.naks == 2
    ob.feed(encode("A", 0, "NAK", EPOCH + " 4"))  # the host got 4 (after 1's only sending): 1 again
    assert ser.take() == [first[0]]
    ob.feed(encode("A", 0, "NAK", EPOCH + " bad=4/1"))  # a damaged number: the host holds 4
    ob.feed(encode("A", 0, "NAK", EPOCH + " bad=9/1"))  # about an event never sent
    ob.feed(encode("A", 0, "NAK", "deadbeef bad=2/1"))  # another journal's
    f = frames(ser)
    assert len(f) == 1 and f[0][:3] == ("N", 0, "BADFRAME") and ob.naks == 3


def test_the_timer_sends_again_only_what_is_overdue_and_not_what_the_host_holds():
    ob, ser, clk, fs = make()
    ob.feed(encode("C", 1, "HELLO", "3,2,1"))
    for i in range(4):
        ob.post("MOVE", "m%d {}" % (i + 1))
    ser.take()
    clk.t = 100
    ob.feed(encode("A", 0, "NAK", EPOCH + " 3"))  # the host holds 3 and lacks 1: 1 again
    assert _seqs(ser) == [1] and ob.rto == 300  # (a round trip of 100 ms: 100 + 4 * 50)
    clk.t = 280
    ob.feed(encode("A", 0, "NAK", EPOCH + " bad=1/1"))  # that copy came damaged: 1 again
    assert _seqs(ser) == [1]
    clk.t = 299
    ob.poll()
    assert _seqs(ser) == []
    clk.t = 300  # 2 and 4 have waited a timer since their sending; 1 is on its way, 3 is held
    ob.poll()
    assert _seqs(ser) == [2, 4] and ob.timeouts == 1
    clk.t = 280 + 600 - 1  # 1's turn: a timer (doubled) after its own sending, not after the others'
    ob.poll()
    assert _seqs(ser) == []
    clk.t = 280 + 600
    ob.poll()
    assert _seqs(ser) == [1, 2, 4] and ob.timeouts == 2
