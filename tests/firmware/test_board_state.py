# The STATE notice (docs/protocol.md, "State", protocol 4): what the board guides, told to a host that speaks
# protocol 4 and to no other; said once per change, not at each blink; the pits it names are those the LED
# guide lights; an idle board with such a host allocates nothing (MicroPython's heap lock).
import sys

from bao import core
from baoboard.recogniser import activations
from baoproto.frames import decode
from board_util import board


def _states(hw):
    """Collect the payloads of the board's STATE notices from now on (the list grows as the board writes)."""
    said = []
    take = hw.on_write

    def write(data):
        for line in bytes(data).split(b"\n"):
            f = decode(line) if line else 0
            if not isinstance(f, int) and f[0] == "N" and f[2] == "STATE":
                said.append(f[3])
        take(data)

    hw.on_write = write
    return said


def _fields(payload):
    head = payload.split(" why=")[0]
    return dict(w.split("=", 1) for w in head.split(" "))


def test_a_host_of_protocol_3_is_told_the_state_and_an_older_host_is_not():
    app, hw, hands, host, st = board()
    said = _states(hw)
    host.command(1, "HELLO", "2,1")
    hands.scan(5)
    p = app.p
    m = core.legal_move_codes(p)[0]
    acts = activations(p, m)
    hands.tap(acts[0])
    assert said == []  # a host of protocol 2 hears no STATE
    host.command(2, "HELLO", "4,3,2,1")
    hands.scan(5)
    assert len(said) == 1  # told the state at once, the move under way
    f = _fields(said[0])
    assert f["stage"] == "moving" and f["side"] == "S" and f["steps"] == "1"
    assert f["lifted"] == core.pit_name(acts[0]) or core.pit_name(acts[1]) in f.get("drop", "")
    assert bytes.fromhex(f["pos"]) == bytes(p.d)
    hands.scan(300)  # the LEDs blink on: nothing new to say
    assert len(said) == 1
    hands.tap(31)  # b1: no legal move goes there
    f = _fields(said[-1])
    assert len(said) == 2 and f["wrong"] == "b1" and " why=" in said[-1]
    for pit in acts[1:]:
        hands.tap(pit)
    f = _fields(said[-1])
    assert f["stage"] == "idle" and f["side"] == "N" and bytes.fromhex(f["pos"]) == bytes(app.p.d)
    assert len(bytes.fromhex(f["leds"])) == 96
    st.close()


def test_the_pits_the_state_names_are_those_the_leds_light():
    app, hw, hands, host, st = board()
    said = _states(hw)
    host.command(1, "HELLO", "4")
    hands.scan(5)
    p = app.p
    m = core.legal_move_codes(p)[0]
    hands.tap(activations(p, m)[0])
    f = _fields(said[-1])
    named = [core.pit_index(n) for k in ("drop", "lift", "kichwa") for n in f.get(k, "").split(",") if n]
    frame = app.guide.frame
    lit = [i for i in range(32) if frame[3 * i] or frame[3 * i + 1] or frame[3 * i + 2]]
    assert named and set(named) <= set(lit)
    st.close()


def test_an_idle_board_with_a_host_of_protocol_3_allocates_nothing():
    if sys.implementation.name != "micropython":
        import pytest

        pytest.skip("the heap lock is MicroPython's")
    import micropython

    app, hw, hands, host, st = board()
    host.command(1, "HELLO", "4,3,2,1")
    hands.scan(10)
    host.poll()
    hands.scan(10)
    run, sleep = hands.board.runtime.run, hw.sleep_ms
    micropython.heap_lock()
    try:
        run(sleep, 5, 200)  # 1 s of scans: the guide's blinking included
    finally:
        micropython.heap_unlock()
    st.close()


class _Busiest:
    """A recogniser's state with every field of a STATE line at its longest: 32 pits to go on to, the
    largest numbers, a refusal with its rule and a reason longer than any line."""

    phase = 1  # moving
    steps = 65535
    start_pit = 0
    n = 32
    c_move = [65535]
    c_pos = [65535]
    wrong_pit = 31
    wrong_rule = "2.4a"
    wrong_reason = "a reason in words, " * 200
    hint = -1
    codes = ()

    def __init__(self):
        self.p = core.initial()
        for i in range(len(self.p.d)):
            self.p.d[i] = 255

    def expected(self, i):
        return i | (32 if i % 3 == 1 else 128 if i % 3 == 2 else 0)

    def after_optional(self, i):
        return i


def test_the_busiest_state_fits_its_line_and_a_long_reason_is_cut():
    from baoboard.state import StateLine

    lines = []
    line = StateLine()
    assert line.send(_Busiest(), bytearray(b"\xff" * 96), lambda data: lines.append(bytes(data)))
    f = decode(lines[0].rstrip(b"\n"))
    assert not isinstance(f, int) and f[2] == "STATE"  # whole, its check right
    fields = _fields(f[3])
    assert fields["wrong"] == "b1" and fields["rule"] == "2.4a" and len(fields["leds"]) == 192
    listed = [n for k in ("drop", "lift", "kichwa") for n in fields[k].split(",")]
    assert sorted(core.pit_index(n) for n in listed) == list(range(32))
    why = f[3].split(" why=")[1]
    assert len(why) >= 200 and _Busiest.wrong_reason.startswith(why)  # cut, with room for a reason's words
