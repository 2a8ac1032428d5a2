# The board's serial side under bad input: garbage, truncated and corrupted frames, unknown commands,
# duplicated and out-of-order acks, while a game is played: no crash, no event lost or duplicated.
from bao import core
from bao.core import format_move
from baoproto.frames import encode
from board_util import board, plies
from fwtest_util import Lcg


def test_garbage_and_bad_acks_during_a_game():
    app, hw, hands, host, st = board()
    rng = Lcg(7)
    want = []
    k = 0
    for p, m, _ in plies():
        want.append(format_move(m, p.d[core.TO_MOVE]))
        hands.perform(p, m)
        r = rng.below(6)
        if r == 0:
            host.send(rng.bytes(40 + rng.below(200)) + b"\n")  # line noise
        elif r == 1:
            line = encode("C", 900 + k, "PING")
            host.send(line[: rng.below(len(line) - 1)])  # truncated: the rest of the line never comes
            host.send(b"\n")
        elif r == 2:
            line = bytearray(encode("C", 900 + k, "MODE", "teach"))
            line[3] ^= 0x20  # corrupted: the CRC catches it
            host.send(bytes(line))
        elif r == 3:
            host.command(900 + k, "FROB", "x")  # unknown command: ERR, nothing else
        elif r == 4:
            host.send(encode("A", 1, "ACK", host.epoch))  # an old ack again
            host.send(encode("A", 100000, "ACK", host.epoch))  # an ack from the future
        host.send(b"\x03\x00\xff\r\n")
        hands.scan(3)
        host.poll(ack=rng.below(3) != 0)  # some acks withheld: the board resends
        k += 1
        if rng.below(4) == 0:
            hw.t += 3000  # time passes: resends
            hands.scan(2)
            host.poll()
    hands.scan(10)
    host.poll()
    assert host.moves() == want
    assert host.gaps == 0 and host.count == app.journal.last  # none lost, none out of order (nor twice:
    # an event received again must be the same bytes, which Host.poll checks)
    assert app.outbox.rx_errors > 0
    assert any(r[1] == "ERR" and "FROB" in r[2] for r in host.replies)
    st.close()


def test_commands():
    app, hw, hands, host, st = board()
    host.poll()
    host.command(1, "MODE", "play")
    host.command(2, "BRIGHT", "300")
    host.command(3, "BRIGHT", "20")
    host.command(4, "SNAP")
    host.command(5, "SHOW", "7L*")
    host.command(10, "SHOW", "A6R*")  # written another way than the board writes it: bao.notation reads it
    host.command(11, "SHOW", "9Z")
    host.command(6, "UNDO")
    host.command(7, "NEW", "malawi")
    host.command(8, "PING")
    host.command(9, "STOP")
    hands.scan(22)  # the board takes one line a scan, and runs a command in a scan of its own
    host.poll()
    r = dict((n, (t, pl)) for n, t, pl in host.replies)
    assert r[1] == ("OK", "") and app.guide.mode == 1
    assert r[2][0] == "ERR" and r[2][1].startswith("badarg") and r[3] == ("OK", "")
    assert r[4][0] == "OK" and '"position"' in r[4][1]
    assert r[5] == ("OK", "7L*"), r[5]  # (an internal MemoryError would be an ERR here)
    assert r[10] == ("OK", "6R*"), r[10]  # the answer as the board writes it
    assert r[11][0] == "ERR" and r[11][1].startswith("badarg"), r[11]
    assert r[6][0] == "ERR"
    assert r[7][0] == "OK" and host.events[-1][1] == "GAME" and "malawi" in host.events[-1][2]
    assert r[8] == ("OK", "") and r[9][0] == "ERR" and r[9][1].startswith("state")
    st.close()


def test_new_and_setpos_refuse_bad_options_with_a_clear_error():
    app, hw, hands, host, st = board()
    host.poll()
    games = len(host.events)
    bad = (
        '{"options": 1.5}',
        '{"options": {"takasia": 5}}',
        '{"takasia": 5}',
        '{"options": {"bogus": true}}',
        '{"options": {"sow_bound": true}}',
        '{"options": {"infinite": "never"}}',
        '{"ruleset": 3}',
        '{"first": "W"}',
        "[1, 2]",
        '{"options": ',
        "go",
    )
    for i, payload in enumerate(bad):
        host.command(20 + i, "NEW", payload)
        hands.scan(4)
    host.command(40, "SETPOS", '{"options": {"takasia": "yes"}}')
    host.command(41, "NEW", '{"ruleset": "malawi", "options": {"sow_bound": 500}}')
    hands.scan(6)
    host.poll()
    r = dict((n, (t, pl)) for n, t, pl in host.replies)
    for i, payload in enumerate(bad):
        typ, text = r[20 + i]
        assert typ == "ERR" and text.startswith("badarg ") and "internal" not in text, (payload, text)
    assert "takasia" in r[21][1] and "5" in r[21][1], r[21]
    assert "takasia" in r[22][1] and "unknown key" in r[22][1], r[22]
    assert "bogus" in r[23][1] and "sow_bound" in r[24][1] and "infinite" in r[25][1]
    assert r[40][0] == "ERR" and "takasia" in r[40][1], r[40]
    assert r[41] == ("OK", "")  # a good one after them all is played
    assert len(host.events) == games + 1 and '"sow_bound"' in host.events[-1][2] and "500" in host.events[-1][2]
    st.close()
