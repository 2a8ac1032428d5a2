# Small shims so the same firmware modules run unchanged on MicroPython (the Pico, the unix port) and CPython.
#   const(x)            micropython.const, or the identity on CPython
#   crc32(buf, n) -> int  CRC-32 (zlib / ISO-HDLC) of buf[0:n]; binascii.crc32 (C) where the port has it,
#                       the table-driven fallback of baoboard.crc32py (loaded only where it does not)
#   modules_now(), unload_new(before)   load a module for a rare job, then give its RAM back (MicroPython)
#   ticks_diff(a, b)    time.ticks_diff, or a plain subtraction on CPython (whose tick counts do not wrap)
#   intern_rare()       at boot: load each rare job's module once and drop it, so its names are interned now
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


try:
    from time import ticks_diff
except ImportError:  # CPython

    def ticks_diff(a: int, b: int) -> int:  # type: ignore[misc,no-redef]
        return a - b


try:
    from binascii import crc32 as _bcrc32
except ImportError:  # a port built without binascii
    _bcrc32 = None  # type: ignore


def crc32(buf, n: int = -1) -> int:
    if n < 0:
        n = len(buf)
    if _bcrc32 is None:
        from baoboard.crc32py import crc32_py

        return crc32_py(buf, n)
    if n == len(buf):
        return _bcrc32(buf) & 0xFFFFFFFF
    return _bcrc32(memoryview(buf)[:n]) & 0xFFFFFFFF


def modules_now() -> "set | None":
    """The modules loaded now, for unload_new(); None on CPython (RAM is no concern there)."""
    import sys

    return set(sys.modules) if sys.implementation.name == "micropython" else None


def unload_new(before: "set | None") -> None:
    """Forget every module loaded since modules_now() returned `before`: code loaded for a rare job (a host
    command, the reason of an illegal attempt) gives its RAM back at the next collection."""
    if before is None:
        return
    import sys

    for name in list(sys.modules):
        if name not in before:
            del sys.modules[name]
            i = name.rfind(".")
            parent = sys.modules.get(name[:i]) if i > 0 else None
            if parent is not None and hasattr(parent, name[i + 1 :]):
                delattr(parent, name[i + 1 :])


# The modules of the rare jobs (App.rare, the journal's recovery, the reason of an illegal attempt), loaded
# while a job runs and dropped after it. The names they use (qstrs) stay interned once loaded, and MicroPython
# interns into pools that grow by doubling, each new pool one piece of memory (640 names: about 4,600 bytes on a Pico,
# needed at about 620 names). Met the first time a rare job runs in play, that piece can fail in a fragmented
# heap with tens of KB free; met at boot, it cannot. bao.notation is not here: the board needs it only for a
# SHOW written in another way than the board writes moves (baoboard.checks), and its 26 names would take
# the board alone past 620 (a 60 KB game would need 65 KB; docs/benchmarks.md, Board).
RARE = ("baoboard.journal_io", "baoboard.commands", "baoboard.refusal", "bao.reasons")


_interned = [False]  # names stay interned for the interpreter's life: a restart in the same heap skips it


def intern_rare() -> None:
    """Load each rare module once, one at a time, and drop it (MicroPython, once; nothing on CPython)."""
    before = modules_now()
    if before is None or _interned[0]:
        return
    _interned[0] = True
    import gc

    for name in RARE:
        __import__(name)
        unload_new(before)
        gc.collect()
