# Frames of the serial protocol: encode/decode, corruption, the line assembler. Runs on CPython and MicroPython.
from baoboard import compat
from baoproto.frames import (
    ERR_CRC,
    ERR_LONG,
    ERR_NAMES,
    LineAssembler,
    decode,
    encode,
    fields,
    words,
)
from fwtest_util import Lcg

POS = '{"pits":[2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"stores":[22,22],"turn":"S"}'
SAMPLES = [
    ("E", 1, "GAME", '{"ruleset":"zanzibar","options":{}}'),
    ("E", 42, "MOVE", "a6> " + POS),
    ("E", 4294967295, "UNDO", ""),
    ("H", 0, "HELLO", "proto=1 fw=0.1.0 epoch=0badcafe last=0 acked=0"),
    ("R", 7, "ERR", "badarg mode must be teach|play|silent"),
    ("R", 8, "OK", ""),
    ("C", 3, "MODE", "teach"),
    ("A", 12, "ACK", "0badcafe"),
    ("N", 0, "BADFRAME", "reason=crc errors=3"),
    ("E", 5, "ILLEGAL", '{"reason":"Kiswahili \u00e9\u00e8 \u2192 G5"}'),
]


def test_roundtrip():
    for kind, num, typ, payload in SAMPLES:
        line = encode(kind, num, typ, payload)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert decode(line[:-1]) == (kind, num, typ, payload)


def test_known_vector():
    # the whole frame is "E1 UNDO *7119F7F6": lets another implementation check itself against ours
    line = encode("E", 1, "UNDO")
    assert line == b"E1 UNDO *7119F7F6\n"
    assert int(line[9:17], 16) == compat.crc32(b"E1 UNDO")
    assert compat.crc32(b"123456789") == 0xCBF43926


def test_crc_fallback_matches():
    from baoproto import crc32py

    r = Lcg(7)
    for n in (0, 1, 5, 64, 300):
        b = r.bytes(n)
        assert crc32py.crc32_py(b, n) == compat.crc32(b)
        if n:
            assert crc32py.crc32_py(b, n - 1) == compat.crc32(b, n - 1)
    crc32py.table = None  # give the 1 KB table back (the unix port runs the tests in a 64 KB heap)


def test_crc32_hex_writes_the_check_a_frame_carries_in_place():
    # the STATE line's check (baoboard.state): written into the line's own buffer, after the bytes it covers;
    # the second vector's check is above 2**31 (a long int on a 32-bit port, which crc32_hex never makes)
    from baoproto.crc import crc32_hex

    out = bytearray(b"E1 UNDO *........")
    crc32_hex(out, 7, out, 9)
    assert out == b"E1 UNDO *7119F7F6"
    buf = bytearray(b"123456789 *--------")
    crc32_hex(buf, 9, buf, 11)
    assert buf == b"123456789 *CBF43926"
    r = Lcg(11)
    for n in (0, 1, 63, 200):
        b = r.bytes(n)
        out = bytearray(10)
        crc32_hex(b, n, out, 1)
        assert out[0] == 0 and out[9] == 0 and bytes(out[1:9]) == b"%08X" % compat.crc32(b)


def test_encode_rejects_bad_fields():
    for args in (
        ("X", 1, "MOVE", ""),
        ("E", -1, "MOVE", ""),
        ("E", 1, "move", ""),
        ("E", 1, "", ""),
        ("E", 1, "MOVE", "a\nb"),
        ("E", 1, "MOVE", "a\rb"),
        ("EE", 1, "MOVE", ""),
    ):
        try:
            encode(*args)
        except ValueError:
            pass
        else:
            raise AssertionError(args)


def test_every_single_byte_corruption_is_detected():
    line = encode("E", 42, "MOVE", "a6> " + POS)[:-1]
    r = Lcg(3)
    checked = 0
    for i in range(len(line)):
        for _ in range(3):
            b = bytearray(line)
            b[i] = (b[i] + 1 + r.below(255)) & 0xFF
            assert isinstance(decode(bytes(b)), int)
            checked += 1
    assert checked == 3 * len(line)


def test_truncated_and_extended():
    line = encode("E", 9, "END", '{"winner":"S"}')[:-1]
    for n in range(len(line)):
        assert isinstance(decode(line[:n]), int)
    assert decode(line + b"x") != decode(line)
    assert isinstance(decode(b"x" + line), int)


def test_valid_crc_but_bad_syntax():
    for body in (b"E MOVE", b"Q1 MOVE", b"E1 move", b"E1", b"Ex MOVE", b"E1 MO1E", b"1E MOVE"):
        line = body + (" *%08X" % compat.crc32(body)).encode()
        assert decode(line) == 1, body  # ERR_SYNTAX
    bad_utf8 = b"E1 MOVE \xff\xfe"
    assert isinstance(decode(bad_utf8 + (" *%08X" % compat.crc32(bad_utf8)).encode()), int)


def test_lowercase_crc_rejected():
    for i in range(20):
        line = encode("E", i, "UNDO")[:-1]
        if line[-8:] != line[-8:].lower():
            assert decode(line[:-8] + line[-8:].lower()) == ERR_CRC


def test_garbage_never_crashes():
    r = Lcg(11)
    for _n in range(300):
        g = r.bytes(r.below(60))
        d = decode(g)
        assert isinstance(d, int) and 0 < d < len(ERR_NAMES)


def test_words_and_fields():
    assert words("") == []
    assert words("teach") == ["teach"]
    assert words("a6> " + POS) == ["a6>", POS]
    assert words('{"a": [1, 2]}') == ['{"a": [1, 2]}']
    assert words("x  y") == ["x", "y"]
    assert fields("proto=1 fw=0.1.0 junk board=e6") == {"proto": "1", "fw": "0.1.0", "board": "e6"}


class Collect:
    def __init__(self, max_line=128):
        self.lines = []
        self.errors = []
        self.asm = LineAssembler(max_line, self.lines.append, self.errors.append)


def test_assembler_any_split():
    stream = b"".join(encode(*s) for s in SAMPLES[:6])
    for cut in range(len(stream) + 1):
        c = Collect(256)
        c.asm.feed(stream[:cut])
        c.asm.feed(bytearray(stream[cut:]))
        assert [decode(l) for l in c.lines] == list(SAMPLES[:6]), cut
        assert c.errors == []


def test_assembler_byte_by_byte_crlf_nul_blank():
    stream = b"\r\n\n" + encode(*SAMPLES[1]).replace(b"\n", b"\r\n") + b"\x00\x00\n" + encode(*SAMPLES[0])
    c = Collect(256)
    for i in range(len(stream)):
        c.asm.feed(stream[i : i + 1])
    assert len(c.lines) == 3
    assert decode(c.lines[0]) == SAMPLES[1]
    assert isinstance(decode(c.lines[1]), int)
    assert decode(c.lines[2]) == SAMPLES[0]
    # a line of NULs is a line, and it is rejected, not a crash
    c = Collect()
    c.asm.feed(b"\x00\x00\x00\n\x03\n")
    assert [isinstance(decode(l), int) for l in c.lines] == [True, True]


def test_assembler_overlong_discarded_once_then_recovers():
    good = encode("C", 1, "UNDO")
    c = Collect(32)
    c.asm.feed(b"A" * 100)
    c.asm.feed(b"B" * 100 + b"\n" + good)
    assert c.errors == [ERR_LONG]
    assert c.lines == [good[:-1]]
    # exactly at the limit: max_line counts the "\n"
    c = Collect(len(good))
    c.asm.feed(good)
    assert c.lines == [good[:-1]] and c.errors == []
    c = Collect(len(good) - 1)
    c.asm.feed(good + good)
    assert c.lines == [] and c.errors == [ERR_LONG, ERR_LONG]


def test_assembler_partial_with_n_and_reset():
    good = encode("C", 2, "SNAP")
    buf = bytearray(64)
    buf[: len(good)] = good
    c = Collect()
    c.asm.feed(buf, 5)
    c.asm.reset()
    c.asm.feed(buf, len(good))
    assert c.lines == [good[:-1]]


def test_assembler_random_noise_between_frames():
    r = Lcg(5)
    frames = [encode("E", i + 1, "MOVE", "a%d> %s" % (i, POS)) for i in range(30)]
    stream = bytearray()
    for f in frames:
        stream += r.bytes(r.below(20)).replace(b"\n", b"") + b"\n"
        stream += f
    c = Collect(200)
    i = 0
    while i < len(stream):
        k = 1 + r.below(40)
        c.asm.feed(bytes(stream[i : i + k]))
        i += k
    got = [d for d in (decode(l) for l in c.lines) if not isinstance(d, int)]
    assert [g[1] for g in got] == list(range(1, 31))
