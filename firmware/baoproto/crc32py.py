# CRC-32 (zlib / ISO-HDLC) in Python, for a port built without binascii.crc32 (baoproto.crc loads it
# only there). The 1 KB table is built on first use; drop it with `crc32py.table = None`.
table = None


def crc32_py(buf, n: int) -> int:
    global table
    if table is None:
        from array import array

        t = array("I", [0] * 256)
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            t[i] = c
        table = t
    tab = table
    c = 0xFFFFFFFF
    for i in range(n):
        c = tab[(c ^ buf[i]) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF
