# CRC-32 (zlib / ISO-HDLC) of buf[0:n], the frames' and the journal's check: binascii.crc32 (C) where the port
# has it, the table-driven fallback of baoproto.crc32py (loaded only where it does not).
try:
    from binascii import crc32 as _bcrc32
except ImportError:  # a port built without binascii
    _bcrc32 = None  # type: ignore


def crc32(buf, n: int = -1) -> int:
    if n < 0:
        n = len(buf)
    if _bcrc32 is None:
        from baoproto.crc32py import crc32_py

        return crc32_py(buf, n)
    if n == len(buf):
        return _bcrc32(buf) & 0xFFFFFFFF
    return _bcrc32(memoryview(buf)[:n]) & 0xFFFFFFFF
