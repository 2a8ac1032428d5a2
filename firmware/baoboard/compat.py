# Small shims so the same firmware modules run unchanged on MicroPython (the Pico, the unix port) and CPython.
#   const(x)            micropython.const, or the identity on CPython
#   crc32(buf, n) -> int  CRC-32 (zlib / ISO-HDLC) of buf[0:n]; binascii.crc32 (C) where the port has it,
#                       a table-driven fallback (table built on first use, 1 KB) where it does not
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


try:
    from binascii import crc32 as _bcrc32
except ImportError:  # a port built without binascii
    _bcrc32 = None  # type: ignore

_table = None


def _crc32_py(buf, n: int) -> int:
    global _table
    if _table is None:
        from array import array

        t = array("I", [0] * 256)
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            t[i] = c
        _table = t
    tab = _table
    c = 0xFFFFFFFF
    for i in range(n):
        c = tab[(c ^ buf[i]) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc32(buf, n: int = -1) -> int:
    if n < 0:
        n = len(buf)
    if _bcrc32 is None:
        return _crc32_py(buf, n)
    if n == len(buf):
        return _bcrc32(buf) & 0xFFFFFFFF
    return _bcrc32(memoryview(buf)[:n]) & 0xFFFFFFFF
