# Frames of the board <-> host serial protocol (docs/protocol.md), shared by the board and the host.
# One frame is one line:   <kind><number> <TYPE>[ <payload>] *<CRC-32 as 8 uppercase hex>\n
# the CRC (zlib CRC-32) covers every byte before " *". Runs unchanged on MicroPython and CPython.
#
#   encode(kind, num, typ, payload="") -> bytes   the whole line, "\n" included; ValueError on a bad field
#   decode(line) -> (kind, num, typ, payload) | int   line without its "\n" ("\r" already stripped);
#                                                    an int is an error code ERR_*, named by ERR_NAMES[code]
#   words(payload) -> list[str]      split at spaces; a word starting with "{" or "[" runs to the end (JSON)
#   fields(payload) -> dict[str, str]   "k=v k2=v2" words as a dict (the handshake)
#   move_payload(notation, position) -> str;  split_move(payload) -> (notation, position)   a MOVE event's payload
#   LineAssembler(max_line, on_line, on_error).feed(data, n=-1, i=0)   data[i:n] (n < 0: to its end)
#       takes bytes as they arrive; calls on_line(bytes) per complete non-empty line (EOL stripped) and
#       on_error(ERR_LONG) once per overlong line, which is discarded up to its "\n". One buffer, allocated once.
try:
    from typing import Callable

    from micropython import Const_T  # (a name of the stubs only)
except ImportError:
    pass

from baoproto.crc import crc32

try:
    from micropython import const
except ImportError:  # CPython

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr


PROTO = const(5)  # the newest protocol version this module speaks, and every one before it (2 adds the NAK,
# 3 its bad=<k> form: a damaged frame reported at once, 4 the STATE notice: baoproto.state, 5 its setup= field)
SPEAKS = "5,4,3,2,1"  # every version, newest first (the handshake says it)
MAX_BOARD_LINE = const(4096)  # longest line the board may send, "\n" included
MAX_HOST_LINE = const(512)  # longest line the host may send

# kinds: board -> host (written as letters where they are sent: a global's name is a qstr in a Pico's RAM)
#   H0 HELLO k=v ...        unsolicited handshake at boot
#   E<seq> TYPE payload     a sequenced event; stays in the outbox until acknowledged
#   R<id> OK|ERR payload    the answer to host command <id>
#   N0 TYPE payload         an unsequenced notice (bad input seen, ...); never resent
# kinds: host -> board
K_CMD = "C"  # C<id> TYPE payload       a command
K_ACK = "A"  # A<seq> ACK <epoch>       every event up to <seq> is safe on the host
#             A<seq> NAK <epoch>       (v2) the host has every event up to <seq> in order, lacks <seq>+1
#             A<seq> NAK <epoch> bad=<k>   (v3) ... and has just received a damaged frame that read as E<k>
KINDS = "HERNCA"

ERR_SYNTAX = const(1)
ERR_CRC = const(2)
ERR_LONG = const(3)
_ERR_UTF8 = const(4)
ERR_NAMES = ("ok", "syntax", "crc", "overlong", "utf8")

_TRAILER = const(10)  # len(" *XXXXXXXX")


def encode(kind: str, num: int, typ: str, payload: str = "") -> bytes:
    if len(kind) != 1 or kind not in KINDS or num < 0 or not typ or not typ.isupper() or " " in typ:
        raise ValueError("bad frame header")
    if "\n" in payload or "\r" in payload:
        raise ValueError("line break in payload")
    if payload:
        b = ("%s%d %s %s" % (kind, num, typ, payload)).encode()
    else:
        b = ("%s%d %s" % (kind, num, typ)).encode()
    return b + (" *%08X\n" % crc32(b)).encode()


def decode(line: bytes) -> "tuple[str, int, str, str] | int":
    n = len(line)
    if n < 4 + _TRAILER or line[n - 10] != 0x20 or line[n - 9] != 0x2A:
        return ERR_SYNTAX
    body = n - _TRAILER
    if line[body + 2 :] != ("%08X" % crc32(line, body)).encode():
        return ERR_CRC
    try:
        s = str(memoryview(line)[:body], "utf-8")  # (one copy of a line of up to 4 KB, not two)
    except UnicodeError:
        return _ERR_UTF8
    sp = s.find(" ")
    if sp < 2 or s[0] not in KINDS or not s[1:sp].isdigit():
        return ERR_SYNTAX
    sp2 = s.find(" ", sp + 1)
    if sp2 < 0:
        typ = s[sp + 1 :]
        payload = ""
    else:
        typ = s[sp + 1 : sp2]
        payload = s[sp2 + 1 :]
    if not typ or not typ.isupper() or not typ.isalpha():
        return ERR_SYNTAX
    return (s[0], int(s[1:sp]), typ, payload)


def words(payload: str) -> "list[str]":
    out = []
    i = 0
    n = len(payload)
    while i < n:
        if payload[i] == "{" or payload[i] == "[":
            out.append(payload[i:])
            break
        j = payload.find(" ", i)
        if j < 0:
            j = n
        if j > i:
            out.append(payload[i:j])
        i = j + 1
    return out


def fields(payload: str) -> "dict[str, str]":
    d = {}
    for w in words(payload):
        k = w.find("=")
        if k > 0:
            d[w[:k]] = w[k + 1 :]
    return d


def move_payload(notation: str, position: str) -> str:
    """A MOVE event's payload (docs/protocol.md): the move in notation, one word, then the position's JSON."""
    if not notation or " " in notation:
        raise ValueError("notation must be one word")
    return notation + " " + position


def split_move(payload: str) -> "tuple[str, str]":
    """A MOVE event's payload as (notation, position JSON); the JSON is "" when the payload has none."""
    i = payload.find(" ")
    if i < 0:
        return (payload, "")
    return (payload[:i], payload[i + 1 :])


class LineAssembler:
    def __init__(self, max_line: int, on_line: "Callable[[bytes], None]", on_error: "Callable[[int], None]") -> None:
        self._buf = bytearray(max_line)
        self._mv = memoryview(self._buf)
        self._n = 0
        self._skip = False
        self._on_line = on_line
        self._on_error = on_error

    def reset(self) -> None:
        """Forget a partial line (after a reconnect)."""
        self._n = 0
        self._skip = False

    def feed(self, data: "bytes | bytearray", n: int = -1, i: int = 0) -> None:
        if n < 0:
            n = len(data)
        cap = len(self._buf)
        while i < n:
            j = data.find(b"\n", i, n)
            end = n if j < 0 else j
            k = end - i
            if not self._skip:
                if self._n + k > cap - 1:  # room for the "\n" the line must still end with
                    self._skip = True
                    self._n = 0
                    self._on_error(ERR_LONG)
                elif k:
                    self._mv[self._n : self._n + k] = memoryview(data)[i:end]
                    self._n += k
            if j < 0:
                return
            i = j + 1
            if self._skip:
                self._skip = False
                continue
            m = self._n
            self._n = 0
            if m and self._buf[m - 1] == 13:
                m -= 1
            if m:
                self._on_line(bytes(self._mv[:m]))
