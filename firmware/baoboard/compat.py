# Small shims so the same firmware modules run unchanged on MicroPython (the Pico, the unix port) and CPython.
#   const(x)            micropython.const, or the identity on CPython
#   MICROPYTHON         True on MicroPython (its viper code is defined only there)
#   micropython         the module, or CPython's stand-in whose @micropython.native leaves a function as it is
#                       (MicroPython's compiler reads the decorator itself: it must be written so)
#   crc32(buf, n) -> int  CRC-32 (zlib / ISO-HDLC) of buf[0:n]; binascii.crc32 (C) where the port has it,
#                       the table-driven fallback (baoproto.crc: the protocol's own)
#   modules_now(), unload_new(before)   load a module for a rare job, then give its RAM back (MicroPython
#                       loading .mpy files; frozen modules stay)
#   ticks_diff(a, b)    time.ticks_diff, or a plain subtraction on CPython (whose tick counts do not wrap)
#   get_ident()         the running thread's id (_thread), 0 where there are no threads
try:  # for the annotations only (MicroPython has no typing)
    from typing import Callable

    from micropython import Const_T  # (a name of the stubs only)
except ImportError:
    pass

try:
    import micropython
    from micropython import const

    MICROPYTHON = True
except ImportError:  # CPython
    MICROPYTHON = False

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr

    class micropython:  # type: ignore[no-redef]  # (CPython's stand-in for the module)
        @staticmethod
        def native(f: "Callable") -> "Callable":
            return f


try:
    from time import ticks_diff
except ImportError:  # CPython

    def ticks_diff(a: int, b: int) -> int:  # type: ignore[no-redef]  # (the stand-in for time's)
        return a - b


try:
    from _thread import get_ident
except ImportError:  # a port built without threads: one thread

    def get_ident() -> int:  # type: ignore[misc]  # (the stand-in: the stubs' get_ident is another variant)
        return 0


from baoproto.crc import crc32  # noqa: F401  (the protocol's: the journal checks its records with it too)


def modules_now() -> "set | None":
    """The modules loaded now, for unload_new(); None where a module kept costs little RAM: on CPython, and
    with the firmware frozen into the image (its code and names stay in flash; a rare job's module then
    keeps a few hundred bytes, and importing it again would cost each command a few ms: docs/benchmarks.md,
    Emulated Pico). Loaded as .mpy files (`make deploy`), a module's bytecode is in the heap: dropped."""
    import sys

    return set(sys.modules) if sys.implementation.name == "micropython" and __file__.endswith(".mpy") else None


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
