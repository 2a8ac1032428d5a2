# CRC-32 (zlib / ISO-HDLC) of buf[0:n], the frames' and the journal's check: binascii.crc32 (C) where the port
# has it, the table-driven fallback of baoproto.crc32py (loaded only where it does not).
#   crc32(buf, n=-1) -> int          the check as a number
#   crc32_hex(buf, n, out, at)       the check as the frames write it (eight uppercase hex digits) into
#                                    out[at:at + 8], allocating nothing on MicroPython (the board's STATE line)
try:
    from binascii import crc32 as _bcrc32
except ImportError:  # a port built without binascii
    _bcrc32 = None  # type: ignore[assignment]  # (None: the fallback)

import sys

_HEX = b"0123456789ABCDEF"


def crc32(buf, n: int = -1) -> int:
    if n < 0:
        n = len(buf)
    if _bcrc32 is None:
        from baoproto.crc32py import crc32_py

        return crc32_py(buf, n)
    if n == len(buf):
        return _bcrc32(buf) & 0xFFFFFFFF
    return _bcrc32(memoryview(buf)[:n]) & 0xFFFFFFFF


if sys.implementation.name == "micropython":
    import micropython  # (the compiler reads @micropython.viper itself)

    # crc32_hex in machine words: binascii.crc32 needs buf[0:n] as an object of its own (a view: allocated),
    # and its result, above 2**30 three times in four, is a long int on a 32-bit port (allocated too).

    @micropython.viper
    def _crc32_hex(data, n: int, into, at: int, hexdigits):  # (viper: the buffers are objects, cast below)
        buf = ptr8(data)  # noqa: F821 (viper's own)
        out = ptr8(into)  # noqa: F821
        digits = ptr8(hexdigits)  # noqa: F821
        poly = (uint(0xEDB8) << 16) | uint(0x8320)  # noqa: F821  (the reflected polynomial, 0xEDB88320)
        ones = (uint(0xFFFF) << 16) | uint(0xFFFF)  # noqa: F821  (written so: no long int constant)
        c = ones
        for i in range(n):
            c ^= uint(buf[i])  # noqa: F821
            for _ in range(8):
                c = (c >> 1) ^ poly if c & 1 else c >> 1
        c ^= ones
        for j in range(8):
            out[at + j] = digits[(c >> (28 - 4 * j)) & 15]

    def crc32_hex(buf, n: int, out, at: int) -> None:
        _crc32_hex(buf, n, out, at, _HEX)

else:

    def crc32_hex(buf, n: int, out, at: int) -> None:
        c = crc32(buf, n)
        for j in range(8):
            out[at + j] = _HEX[(c >> (28 - 4 * j)) & 15]
